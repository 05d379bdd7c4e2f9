//! Message roles and the helpers seed 004 asked for.

/// A chat role. Unknown role strings are kept on the message but read as `user`
/// (the producer reads role strings exactly, case-sensitive).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// `system`.
    System,
    /// `developer`.
    Developer,
    /// `user` (also what an unknown role reads as).
    User,
    /// `assistant`.
    Assistant,
    /// `tool`.
    Tool,
}

impl Role {
    /// Exact match, or `None` (the reference's `tryFrom`).
    pub fn try_from_str(s: &str) -> Option<Role> {
        match s {
            "system" => Some(Role::System),
            "developer" => Some(Role::Developer),
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            "tool" => Some(Role::Tool),
            _ => None,
        }
    }

    /// Exact match, unknown strings read as `user` (the reference's `fromString`).
    pub fn from_str_or_user(s: &str) -> Role {
        Role::try_from_str(s).unwrap_or(Role::User)
    }

    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }

    /// True for `system` and `developer`: both instruct the model.
    pub fn is_system(self) -> bool {
        matches!(self, Role::System | Role::Developer)
    }

    /// Whether it is `user`.
    pub fn is_user(self) -> bool {
        self == Role::User
    }

    /// Whether it is `assistant`.
    pub fn is_assistant(self) -> bool {
        self == Role::Assistant
    }

    /// Whether it is `tool`.
    pub fn is_tool(self) -> bool {
        self == Role::Tool
    }

    /// Whether it is `developer`.
    pub fn is_developer(self) -> bool {
        self == Role::Developer
    }

    /// True when the role is any of `roles`.
    pub fn has_role(self, roles: &[Role]) -> bool {
        roles.contains(&self)
    }
}

/// Anything with a `role`, e.g. a message from a state or your own UI model:
/// what the role predicates (`isUserMessage`, …) read. Declared for the
/// schema only: the predicates read `role` from the object directly.
#[cfg(feature = "schema")]
#[derive(schemars::JsonSchema)]
#[schemars(extend("additionalProperties" = true))]
pub struct MessageLike {
    /// The role string; unknown roles read as `user`.
    #[schemars(default, skip_serializing_if = "String::is_empty")]
    pub role: String,
}

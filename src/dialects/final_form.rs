//! Final forms: what each producer keeps once a run is over, read into one
//! neutral shape that reconciliation compares a session with.
//!
//! - AG-UI: an array of AG-UI messages (a `MESSAGES_SNAPSHOT` event's
//!   `messages`, or an array a front end persisted), or the event itself.
//! - AI SDK: a `UIMessage[]` (`parts`: `step-start`, `text`, `reasoning`,
//!   `tool-<name>` / `dynamic-tool`, …).
//! - laravel/ai: the rows of `agent_conversation_messages` as stored, the
//!   JSON columns (`tool_calls`, `tool_results`, `usage`, `meta`) decoded or
//!   still as their stored text.
//!
//! Every form is a conversation: its assistant turns (the run of non-user
//! messages after each user message) are the runs the session streamed, one
//! [`FinalTurn`] per run. Parsing is pure: the same value gives the same run.
//!
//! An instructor-php slim snapshot is read into the same [`FinalTurn`] by
//! `session/reconcile/final_run.rs`, with what the state records beside
//! ([`RunRecord`], [`StepRecord`], [`FinalTool::kept`]), so that both kinds
//! of final state meet one reconciler (`session/reconcile/`).

use crate::dialects::{Dialect, Dialects};
use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{type_name, Value};
use crate::model::usage::Usage;

/// The producer whose final form it is: its dialect's name (`"ag-ui"`,
/// `"ai-sdk"`, `"laravel-ai"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FinalDialect(pub &'static str);

impl FinalDialect {
    /// The dialect's name.
    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl serde::Serialize for FinalDialect {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for FinalDialect {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FinalFormDialect".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = crate::dialects::BUILT_IN
            .iter()
            .filter(|d| d.final_form().is_some())
            .map(|d| d.name())
            .collect();
        schemars::json_schema!({
            "description": "The producer whose final form it is (`\"ag-ui\"`, `\"ai-sdk\"`, `\"laravel-ai\"`).",
            "type": "string",
            "enum": names,
        })
    }
}

/// One tool call of a final form, with its outcome.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FinalTool {
    /// The producer's id of the call.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as kept (an object, or the producer's JSON text of them).
    pub args: Option<Value>,
    /// What the tool returned (`None` when the form keeps no result).
    pub result: Option<Value>,
    /// Why the tool failed (`None` when it did not, or the form cannot say).
    pub error: Option<String>,
    /// The approval state the form keeps (`"requested"`, `"approved"`, `"denied"`).
    pub approval: Option<&'static str>,
    /// Whether the form holds the call's outcome (a result, an error or a
    /// denial); `false` for a call still waiting for it.
    pub finished: bool,
    /// Whether this form says when a tool failed (laravel/ai's rows do not,
    /// and a denied call did not run).
    pub failure_known: bool,
    /// JSON pointer to the call in the form.
    pub path: String,
    /// JSON pointer to its result (or error) in the form, when it has one.
    pub result_path: Option<String>,
    /// The call as an instructor-php state keeps it (a slim snapshot's
    /// `tool_calls` item), which a `tool_call_missing` reports whole; `None`
    /// for the foreign forms.
    pub kept: Option<Value>,
    /// Whether the state kept the call without an id (`call_id` is then
    /// empty); the foreign forms always keep one.
    pub id_missing: bool,
}

/// One step of a final form: what the model said, thought and called.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FinalStep {
    /// The step's text (its text parts or assistant contents, joined).
    pub text: String,
    /// JSON pointer to the first of its texts (`None` when it has none).
    pub text_path: Option<String>,
    /// The step's reasoning, joined.
    pub reasoning: String,
    /// JSON pointer to the first of its reasoning texts.
    pub reasoning_path: Option<String>,
    /// The tool calls, in the form's order.
    pub tools: Vec<FinalTool>,
    /// JSON pointer to where the step begins in the form.
    pub path: String,
    /// What an instructor-php state records of the step besides its calls
    /// (a slim snapshot's step); `None` for the foreign forms.
    pub record: Option<StepRecord>,
}

/// What an instructor-php state records of a step, each field as the state
/// writes it (`None` when it writes none), so that a value of an unexpected
/// type is reported as it is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepRecord {
    /// `has_tool_calls`.
    pub has_tool_calls: Option<Value>,
    /// `finish_reason`.
    pub finish_reason: Option<Value>,
    /// `errors`: how many (a slim snapshot counts them).
    pub errors: Option<Value>,
    /// `type`.
    pub step_type: Option<Value>,
    /// `usage.total`.
    pub usage_total: Option<Value>,
    /// `duration_ms`.
    pub duration_ms: Option<Value>,
    /// Whether the state lists the step's calls (`tool_calls` is an array):
    /// then `tools` are all of them, else the state says nothing of them.
    pub lists_calls: bool,
}

/// What an instructor-php state records of a run besides its steps (a slim
/// snapshot), read by `session/reconcile/final_run.rs`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunRecord {
    /// `status`, when it is a string (an `AgentStatus`, or v2's
    /// `ExecutionStatusV2`).
    pub status: Option<String>,
    /// The last assistant message with text content and its index in `messages`.
    pub last_text: Option<(usize, String)>,
    /// The content of the last assistant message, when it is non-empty text.
    pub answer: Option<String>,
    /// The content of the last user message, when it is text.
    pub user_message: Option<String>,
}

impl FinalStep {
    pub(crate) fn at(path: String) -> FinalStep {
        FinalStep {
            path,
            ..FinalStep::default()
        }
    }

    pub(crate) fn add_text(&mut self, text: &str, path: String) {
        self.text.push_str(text);
        self.text_path.get_or_insert(path);
    }

    pub(crate) fn add_reasoning(&mut self, text: &str, path: String) {
        self.reasoning.push_str(text);
        self.reasoning_path.get_or_insert(path);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty() && self.reasoning.is_empty() && self.tools.is_empty()
    }
}

/// One run of a final form: the producer's answer to one user message.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FinalTurn {
    /// The producer's id of it, when the form keeps one (an AI SDK
    /// `UIMessage.id`, which is the stream's `start.messageId`).
    pub id: Option<String>,
    /// JSON pointer to its first message.
    pub path: String,
    /// Its steps, in order.
    pub steps: Vec<FinalStep>,
    /// Whether the form marks step boundaries (the AI SDK's `step-start`
    /// parts). laravel/ai keeps one row per run (its text joined over steps,
    /// its tool calls in one list): one step holding everything. AG-UI's
    /// steps are inferred from message order, which a reducer that gives each
    /// parent-less tool call its own assistant message makes ambiguous. Such
    /// turns are compared with the whole run: text and reasoning joined, tool
    /// calls by id wherever they were streamed.
    pub steps_known: bool,
    /// Whether the form keeps the model's reasoning (laravel/ai's rows do not).
    pub keeps_reasoning: bool,
    /// The run's token usage, when the form keeps it (laravel/ai's `usage`).
    pub usage: Option<Usage>,
    /// JSON pointer to the usage.
    pub usage_path: Option<String>,
    /// How the run ended, when the form says (`"completed"`: laravel/ai
    /// stores a run's messages only once its response completed).
    pub status: Option<&'static str>,
    /// What an instructor-php state records of the run (a slim snapshot);
    /// `None` for the foreign forms.
    pub record: Option<RunRecord>,
}

/// A final form read: its dialect and its runs.
#[derive(Clone, Debug, PartialEq)]
pub struct FinalRun {
    /// Whose form it is.
    pub dialect: FinalDialect,
    /// The runs, in conversation order.
    pub turns: Vec<FinalTurn>,
}

/// Reads a final form: an array of messages (or, for AG-UI, a
/// `MESSAGES_SNAPSHOT` event) of the dialect `named`, detected among
/// `dialects` when `None`.
/// A form of no known shape is `invalid_value` (or `invalid_type`) at the
/// first place that decided it; a message of a known dialect missing a field
/// its producer always writes is `missing_field` at that field.
pub fn parse(
    form: &Value,
    dialects: &Dialects,
    named: Option<&'static dyn Dialect>,
) -> Result<FinalRun> {
    let (messages, prefix) = messages_of(form)?;
    let dialect = match named {
        Some(d) => d,
        None => detect(messages, &prefix, dialects)?,
    };
    let turns = match dialect.final_form() {
        Some(reader) => reader.turns(messages, &prefix)?,
        None => {
            return Err(SteplineError::at(
                ErrorCode::InvalidValue,
                "",
                format!(
                    "the {} dialect keeps no final form stepline reads",
                    dialect.name()
                ),
            ))
        }
    };
    Ok(FinalRun {
        dialect: FinalDialect(dialect.name()),
        turns,
    })
}

/// The message array of a form and the pointer prefix of its items.
fn messages_of(form: &Value) -> Result<(&[Value], String)> {
    match form {
        Value::Array(a) => Ok((a.as_slice(), String::new())),
        Value::Object(m) if m.get("type").and_then(Value::as_str) == Some("MESSAGES_SNAPSHOT") => {
            match m.get("messages") {
                Some(Value::Array(a)) => Ok((a.as_slice(), "/messages".into())),
                Some(other) => Err(SteplineError::at(
                    ErrorCode::InvalidType,
                    "/messages",
                    format!(
                        "expected MESSAGES_SNAPSHOT `messages` to be an array, found {}",
                        type_name(other)
                    ),
                )),
                None => Err(SteplineError::at(
                    ErrorCode::MissingField,
                    "/messages",
                    "expected MESSAGES_SNAPSHOT to carry `messages`",
                )),
            }
        }
        other => Err(SteplineError::at(
            ErrorCode::InvalidType,
            "",
            format!(
                "expected a final form: an array of messages (AG-UI, AI SDK UIMessage, laravel/ai rows) or an AG-UI MESSAGES_SNAPSHOT event, found {}",
                type_name(other)
            ),
        )),
    }
}

/// The dialect of a message array, decided by its first message that only
/// one producer writes ([`FinalForm::marks`](crate::dialects::FinalForm::marks)),
/// else by a producer that claims a form no producer marks.
pub fn detect(
    messages: &[Value],
    prefix: &str,
    dialects: &Dialects,
) -> Result<&'static dyn Dialect> {
    let forms = || {
        dialects
            .iter()
            .filter_map(|d| d.final_form().map(|f| (d, f)))
    };
    for (i, m) in messages.iter().enumerate() {
        let Some(m) = m.as_object() else {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                &crate::json::index(prefix, i),
                format!("expected a message object, found {}", type_name(m)),
            ));
        };
        if let Some((d, _)) = forms().find(|(_, f)| f.marks(m)) {
            return Ok(d);
        }
    }
    if let Some((d, _)) = forms().find(|(_, f)| f.claims_unmarked(messages)) {
        return Ok(d);
    }
    Err(SteplineError::at(
        ErrorCode::InvalidValue,
        prefix,
        if messages.is_empty() {
            "an empty message array names no dialect: pass { dialect }".to_string()
        } else {
            "expected AG-UI messages ({id, role, content, toolCalls}), AI SDK UIMessages ({id, role, parts}) or laravel/ai rows ({role, content, tool_calls, tool_results, usage}); found none of them".to_string()
        },
    ))
}

/// The object at `path`, or `invalid_type` there.
pub(crate) fn object_at<'a>(v: &'a Value, path: &str, what: &str) -> Result<&'a crate::json::Map> {
    v.as_object().ok_or_else(|| {
        SteplineError::at(
            ErrorCode::InvalidType,
            path,
            format!("expected {what} as an object, found {}", type_name(v)),
        )
    })
}

/// A string field the producer always writes.
pub(crate) fn required_str<'a>(m: &'a crate::json::Map, key: &str, path: &str) -> Result<&'a str> {
    match m.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(crate::model::read::wrong_type(path, key, "a string", other)),
        None => Err(SteplineError::at(
            ErrorCode::MissingField,
            &crate::json::child(path, key),
            format!("expected `{key}`"),
        )),
    }
}

/// The steps of a turn without the empty ones a boundary left (AG-UI's
/// inferred boundaries; AI SDK steps are kept as the form numbers them).
pub(crate) fn drop_empty(steps: Vec<FinalStep>) -> Vec<FinalStep> {
    steps.into_iter().filter(|s| !s.is_empty()).collect()
}

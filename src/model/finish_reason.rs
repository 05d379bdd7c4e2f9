//! Why an inference stopped, normalised across providers.

/// Normalised finish reason (the producer's `InferenceFinishReason::fromText`
/// of the provider's value).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// The model finished its answer (`stop`).
    Stop,
    /// The token limit cut the answer (`length`).
    Length,
    /// The model called tools (`tool_calls`).
    ToolCalls,
    /// A content filter stopped it (`content_filter`).
    ContentFilter,
    /// The inference failed (`error`).
    Error,
    /// Any other provider reason (`other`).
    Other,
}

impl FinishReason {
    /// The reference's `fromText`: lower-cased, then an exact match against the
    /// provider spellings it knows. v1.22 quirk 11, kept on purpose: at v1.22
    /// `content_filter`, `end_turn`, `function_call`, `incomplete`, `failed`,
    /// `completed` and `''` are not in the table and read as `other`.
    pub fn from_text(text: &str) -> FinishReason {
        // PHP 8's strtolower is ASCII-only, and so is this.
        match text.to_ascii_lowercase().as_str() {
            "stop" | "complete" | "stop_sequence" => FinishReason::Stop,
            "length" | "max_tokens" | "model_length" => FinishReason::Length,
            "tool_calls" | "tool_call" | "tool_use" => FinishReason::ToolCalls,
            "blocklist" | "language" | "safety" | "spii" | "prohibited_content" | "recitation" => {
                FinishReason::ContentFilter
            }
            "error" | "malformed_function_call" => FinishReason::Error,
            _ => FinishReason::Other,
        }
    }

    /// The enum's wire value (`stop`, `length`, `tool_calls`, `content_filter`, `error`, `other`).
    pub fn as_str(self) -> &'static str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::Length => "length",
            FinishReason::ToolCalls => "tool_calls",
            FinishReason::ContentFilter => "content_filter",
            FinishReason::Error => "error",
            FinishReason::Other => "other",
        }
    }

    /// Parses an exact wire value (no provider aliases).
    pub fn from_wire(value: &str) -> Option<FinishReason> {
        [
            FinishReason::Stop,
            FinishReason::Length,
            FinishReason::ToolCalls,
            FinishReason::ContentFilter,
            FinishReason::Error,
            FinishReason::Other,
        ]
        .into_iter()
        .find(|r| r.as_str() == value)
    }

    /// The reference's `equals(string)`: exact, case-sensitive comparison with the wire value.
    pub fn equals(self, other: &str) -> bool {
        self.as_str() == other
    }
}

//! The object keys the core reads most often, shared instead of allocated.
//!
//! A heap string per key meant allocations and frees on every envelope of a
//! bulk replay (figures: bench/findings.md). The parser looks a key up here first ([`known`]) and keeps the static copy when it
//! finds one ([`super::Name`] is a `Cow`).

/// The envelope's members and every payload field of the v1.22 and seed-003
/// dialects (src/envelope/schema.rs, aliases included; a test keeps this list
/// complete), usage and continuation-trace fields, and the keys of the agent
/// state's messages and steps a slim snapshot reads.
const KNOWN: &[&str] = &[
    // The envelope.
    "type",
    "session_id",
    "execution_id",
    "timestamp",
    "payload",
    "event_type",
    "extra",
    "truncated",
    // Payload fields.
    "annotations",
    "approval",
    "approval_id",
    "args",
    "args_summary",
    "available_tools",
    "available_tool_names",
    "chunk",
    "chunk_index",
    "content",
    "continuation",
    "data",
    "duration_ms",
    "error",
    "error_message",
    "errors",
    "evaluations",
    "final_answer",
    "finish_reason",
    "has_tool_calls",
    "is_complete",
    "last_response",
    "llm_delta",
    "message_count",
    "previous_status",
    "provider_frame",
    "recorded_steps",
    "resolved_by",
    "result_summary",
    "should_continue",
    "should_stop",
    "status",
    "step",
    "step_count",
    "step_id",
    "step_index",
    "step_number",
    "stop_reason",
    "success",
    "text_delta",
    "tokens_delta",
    "tool",
    "tool_call",
    "tool_call_id",
    "tool_name",
    "tool_result",
    "result",
    "usage",
    // Usage, in both spellings, and the continuation trace.
    "input",
    "output",
    "cacheWrite",
    "cacheRead",
    "reasoning",
    "total",
    "prompt",
    "completion",
    "criterion",
    "decision",
    "reason",
    // The agent state's messages, steps and tool calls.
    "id",
    "name",
    "role",
    "metadata",
    "arguments",
    "createdAt",
    "updatedAt",
    "stepType",
    "messages",
    "steps",
    "toolCalls",
    "inferenceResponse",
    "toolExecutions",
];

/// Slots of the open-addressing table: at most half full (checked below).
const SLOTS: usize = 256;

const _: () = assert!(KNOWN.len() * 2 <= SLOTS, "names.rs: raise SLOTS");

/// A cheap mix of a key's length and three of its bytes.
const fn slot(b: &[u8]) -> usize {
    let n = b.len();
    let (Some((_, [mid, ..])), [first, ..], [.., last]) = (b.split_at_checked(n / 2), b, b) else {
        return 0;
    };
    (n.wrapping_mul(31)
        ^ (*first as usize).wrapping_mul(7)
        ^ (*mid as usize).wrapping_mul(17)
        ^ (*last as usize).wrapping_mul(131))
        % SLOTS
}

/// The table, filled at compile time with linear probing; `""` is empty.
#[expect(
    clippy::indexing_slicing,
    reason = "evaluated at compile time: an index out of range fails the build"
)]
static TABLE: [&str; SLOTS] = {
    let mut table = [""; SLOTS];
    let mut i = 0;
    while i < KNOWN.len() {
        let mut at = slot(KNOWN[i].as_bytes());
        while !table[at].is_empty() {
            at = (at + 1) % SLOTS;
        }
        table[at] = KNOWN[i];
        i += 1;
    }
    table
};

/// The shared copy of `key` when it is a known name.
pub(crate) fn known(key: &str) -> Option<&'static str> {
    let mut at = slot(key.as_bytes());
    loop {
        // `at` is below SLOTS: the table's length.
        let name = *TABLE.get(at)?;
        if name.is_empty() {
            return None;
        }
        // Eight bytes at a time (`==` on strings calls memcmp, one byte a
        // step in the wasm, src/json/value.rs `same_key` says more).
        if super::value::same_key(name, key) {
            return Some(name);
        }
        at = (at + 1) % SLOTS;
    }
}

#[cfg(test)]
mod tests {
    use super::{known, KNOWN};

    #[test]
    fn every_known_name_is_found_once_and_others_are_not() {
        for (i, name) in KNOWN.iter().enumerate() {
            assert_eq!(known(name), Some(*name));
            assert!(!KNOWN[..i].contains(name), "{name} is listed twice");
        }
        for other in [
            "",
            "typ",
            "types",
            "Type",
            "session",
            "x",
            "step_numbers",
            "é",
            "🚀",
        ] {
            assert_eq!(known(other), None, "{other}");
        }
    }
}

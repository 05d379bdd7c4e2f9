//! Detectors over message lists: tool-call arguments copied into an assistant
//! message's content, and tool results a snapshot should not hold.

use crate::json::Value;

use super::{items, text, Diagnostic, Severity, TOOL_ARGS_IN_CONTENT, TOOL_RESULTS_NOT_EXCLUDED};
use crate::json::{child, index, obj};
use crate::model::leaked_args::{leaked_call, Leak};
use crate::snapshot::serialize::TOOL_RESULT_OMITTED;
use crate::snapshot::SlimConfig;

/// Flags assistant messages whose content equals one of their own tool calls'
/// arguments, in the snapshot's messages and in every section of the state's
/// message store. (Seed 004, issue 1: the reference's OpenAI-compatible driver
/// falls back to the arguments when a tool-calling response has no text.)
pub(super) fn tool_args_in_content(
    snapshot: Option<&Value>,
    state: Option<&Value>,
    out: &mut Vec<Diagnostic>,
) {
    if let Some(s) = snapshot {
        scan_messages(items(s.get("messages")), "/snapshot/messages", out);
    }
    let sections = state
        .and_then(|s| s.get("messageStore"))
        .and_then(|m| m.get("sections"));
    for (i, section) in items(sections).iter().enumerate() {
        let path = child(&index("/state/messageStore/sections", i), "messages");
        scan_messages(items(section.get("messages")), &path, out);
    }
}

fn scan_messages(messages: &[Value], path: &str, out: &mut Vec<Diagnostic>) {
    for (i, m) in messages.iter().enumerate() {
        if m.get("role").and_then(Value::as_str) != Some("assistant") {
            continue;
        }
        let Some(content) = m.get("content").and_then(Value::as_str) else {
            continue;
        };
        let calls = m.get("_metadata").and_then(|md| md.get("tool_calls"));
        let Some((call, leak)) = leaked_call(content, items(calls)) else {
            continue;
        };
        let function = call.get("function");
        let name = function
            .and_then(|f| f.get("name"))
            .or_else(|| call.get("name"));
        let (severity, message) = match leak {
            Leak::Exact => (
                Severity::Error,
                "the assistant message's content is the arguments of its own tool call \
                 (the driver fell back to tool-call arguments for a response without text)",
            ),
            Leak::Truncated => (
                Severity::Error,
                "the assistant message's content is the beginning of its own tool call's \
                 arguments, cut by the snapshot's content limit (the driver fell back to \
                 tool-call arguments for a response without text)",
            ),
            // The arguments were redacted, so they cannot be compared: JSON
            // object text beside a tool call is the leak's shape, not proof.
            Leak::Redacted => (
                Severity::Warning,
                "the assistant message's content is JSON beside a tool call whose arguments \
                 were redacted: most likely the arguments the driver copied into the content, \
                 which redaction of the tool calls alone does not remove",
            ),
        };
        out.push(Diagnostic {
            code: TOOL_ARGS_IN_CONTENT,
            severity,
            path: child(&index(path, i), "content"),
            message: message.into(),
            evidence: obj([
                ("content", Value::from(content)),
                ("tool_call_id", text(call.get("id"))),
                ("tool_name", text(name)),
                (
                    "match",
                    Value::from(match leak {
                        Leak::Exact => "exact",
                        Leak::Truncated => "truncated",
                        Leak::Redacted => "redacted",
                    }),
                ),
            ]),
        });
    }
}

/// Flags tool messages of a snapshot taken with `includeToolResults: false`
/// that still hold the result: in `_metadata.result` (the reference leaks it
/// there, v1.22 quirk 1) or as content other than the placeholder.
pub(super) fn tool_results_not_excluded(
    snapshot: Option<&Value>,
    config: &SlimConfig,
    out: &mut Vec<Diagnostic>,
) {
    if config.include_tool_results {
        return;
    }
    let messages = items(snapshot.and_then(|s| s.get("messages")));
    for (i, m) in messages.iter().enumerate() {
        if m.get("role").and_then(Value::as_str) != Some("tool") {
            continue;
        }
        let path = index("/snapshot/messages", i);
        let metadata = m.get("_metadata");
        // Evidence names the call and the size, never the leaked value itself.
        let evidence = |field: &str, leaked: &Value| {
            obj([
                ("field", Value::from(field)),
                (
                    "tool_call_id",
                    text(metadata.and_then(|md| md.get("tool_call_id"))),
                ),
                (
                    "tool_name",
                    text(metadata.and_then(|md| md.get("tool_name"))),
                ),
                ("bytes", Value::from(crate::php::json_encode(leaked).len())),
            ])
        };
        if let Some(result) = metadata
            .and_then(|md| md.get("result"))
            .filter(|r| !r.is_null())
        {
            out.push(Diagnostic {
                code: TOOL_RESULTS_NOT_EXCLUDED,
                severity: Severity::Error,
                path: child(&child(&path, "_metadata"), "result"),
                message: "the snapshot was taken with includeToolResults: false but this tool \
                          message still holds the result in _metadata.result"
                    .into(),
                evidence: evidence("_metadata.result", result),
            });
        }
        let content = m.get("content").unwrap_or(&Value::Null);
        let omitted = match content {
            Value::Null => true,
            Value::String(s) => s.is_empty() || s == TOOL_RESULT_OMITTED,
            _ => false,
        };
        if !omitted {
            out.push(Diagnostic {
                code: TOOL_RESULTS_NOT_EXCLUDED,
                severity: Severity::Error,
                path: child(&path, "content"),
                message: "the snapshot was taken with includeToolResults: false but this tool \
                          message's content is not the omitted-result placeholder"
                    .into(),
                evidence: evidence("content", content),
            });
        }
    }
}

//! State → slim snapshot, exactly as the reference's `SlimAgentStateSerializer`
//! (with the two deliberate fixes unless `compat`).

use crate::json::{Map, Value};

use crate::json::obj;
use crate::model::leaked_args::{leaked_call, Leak};
use crate::model::state::AgentState;
use crate::model::step::AgentStep;
use crate::model::time::format_atom;
use crate::snapshot::config::SlimConfig;
use crate::snapshot::shape::{
    SlimContinuation, SlimExecution, SlimMessage, SlimSnapshot, SlimStep, SlimStepUsage,
    SlimToolCall,
};
use crate::snapshot::source::SlimSource;
use crate::snapshot::truncate::truncate;

/// What the tool result placeholder says.
pub const TOOL_RESULT_OMITTED: &str = "[tool result omitted]";

/// The slim snapshot of a parsed state.
pub fn slim_state(state: &AgentState, config: &SlimConfig) -> Value {
    slim(&SlimSource::from_state(state, config), config)
}

/// The slim snapshot of what `source` holds, as a JSON value.
pub fn slim(source: &SlimSource, config: &SlimConfig) -> Value {
    crate::json::to_value_of(&slim_snapshot(source, config))
}

/// The slim snapshot of what `source` holds.
pub fn slim_snapshot(source: &SlimSource, config: &SlimConfig) -> SlimSnapshot {
    let state = &source.head;
    let messages = last(&source.messages, config.max_messages)
        .iter()
        .map(|m| {
            let (role, content, metadata) = slim_message_parts(m, config);
            SlimMessage {
                id: None,
                created_at: None,
                role,
                content,
                tool_calls: None,
                tool_result: None,
                metadata,
            }
        })
        .collect();
    let steps = if config.include_steps {
        slim_steps(
            last(&source.steps, config.max_steps),
            last(&source.durations, config.max_steps),
            config.compat,
        )
    } else {
        Vec::new()
    };
    let last_continuation = match (config.include_continuation_trace, &source.last_outcome) {
        (true, Some(o)) => Some(SlimContinuation {
            should_continue: o.should_continue,
            stop_reason: o.stop_reason().to_string(),
            resolved_by: o.resolved_by().to_string(),
        }),
        _ => None,
    };
    SlimSnapshot {
        state_version: None,
        agent_id: state.agent_id.clone(),
        parent_agent_id: state.parent_agent_id.clone(),
        status: Some(state.status.as_str()),
        step_count: source.step_count,
        usage: state.usage,
        execution: SlimExecution {
            started_at: format_atom(&state.state_info.started_at),
            updated_at: format_atom(&state.state_info.updated_at),
            cumulative_seconds: state.state_info.cumulative_execution_seconds,
            execution_id: None,
            completed_at: None,
            execution_count: None,
        },
        messages,
        steps,
        last_continuation: Some(last_continuation),
        stop_signal: None,
        continuation: None,
        metadata: state.metadata.clone(),
        created_at: None,
        system_prompt: None,
    }
}

/// The last `max` items (none when `max` ≤ 0), as the reference slices.
pub fn last<T>(items: &[T], max: i64) -> &[T] {
    let keep = crate::snapshot::config::limit(max).min(items.len());
    items.get(items.len() - keep..).unwrap_or_default()
}

/// Role, content and metadata of one written message under `config`: content
/// truncated, tool results omitted, tool-call arguments redacted.
pub fn slim_message_parts(message: &Value, config: &SlimConfig) -> (String, Value, Value) {
    let role = message
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or("user")
        .to_string();
    let mut content = message
        .get("content")
        .cloned()
        .unwrap_or_else(|| Value::from(""));
    // The reference cuts only when `maxContentLength > 0`: 0 or less is no
    // limit here (unlike the envelope's `maxArgLength`, where 0 cuts all).
    if let (Value::String(s), true) = (&content, config.max_content_length > 0) {
        if let Some(cut) = truncate(s, config.max_content_length, config.compat) {
            content = Value::String(cut);
        }
    }
    let mut metadata = match message.get("_metadata") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    if config.redact_tool_args {
        if role == "assistant" && !config.compat {
            // Fixed by default: arguments the driver copied into the content
            // (seed 004, issue 1) would survive a redaction of the tool calls alone.
            // The reference (`compat`) keeps them there.
            let leaked = match (message.get("content"), metadata.get("tool_calls")) {
                // Only what matches the arguments themselves: content beside
                // a call whose arguments are already gone cannot be checked.
                (Some(Value::String(text)), Some(Value::Array(calls))) => matches!(
                    leaked_call(text, calls),
                    Some((_, Leak::Exact | Leak::Truncated))
                ),
                _ => false,
            };
            if leaked {
                content = Value::from("");
            }
        }
        if let Some(Value::Array(calls)) = metadata.get("tool_calls") {
            let redacted = calls.iter().map(redact_call).collect();
            metadata.insert("tool_calls", Value::Array(redacted));
        }
    }
    if !config.include_tool_results && role == "tool" {
        content = Value::from(TOOL_RESULT_OMITTED);
        if !config.compat {
            // v1.22 quirk 1, fixed: the reference leaks the whole result here.
            metadata.remove("result");
        }
    }
    let metadata = if metadata.is_empty() {
        Value::Array(Vec::new())
    } else {
        Value::Object(metadata)
    };
    (role, content, metadata)
}

/// `{id, name}` only: the name from `name`, else `function.name`, else `unknown`.
fn redact_call(call: &Value) -> Value {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(String::from);
    let name = text(call.get("name"))
        .or_else(|| text(call.get("function").and_then(|f| f.get("name"))))
        .unwrap_or_else(|| "unknown".into());
    obj([
        ("id", call.get("id").cloned().unwrap_or(Value::Null)),
        ("name", Value::from(name)),
    ])
}

fn slim_steps(steps: &[AgentStep], durations: &[Option<f64>], compat: bool) -> Vec<SlimStep> {
    steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            // Seed 001 §Refactor Strategy, stage 3: the serializer reads the
            // requested calls, the response's usage and the derived type (as
            // `parseAgentState` shows the step). The reference (`compat`) reads
            // the step's legacy `toolCalls`/`usage` and its stored type.
            let (step_type, calls, usage) = if compat {
                (step.step_type, step.tool_calls.0.as_slice(), step.usage)
            } else {
                (
                    step.seed_001_step_type(),
                    step.seed_001_requested_calls(),
                    step.seed_001_usage(),
                )
            };
            SlimStep {
                step_number: i + 1,
                step_type,
                has_tool_calls: !calls.is_empty(),
                finish_reason: step.finish_reason(),
                errors: step.errors.len(),
                usage: SlimStepUsage {
                    total: usage.total(),
                },
                // Seed 000 §Proposed Snapshot Schema: `steps[].duration_ms`,
                // which the reference's serializer never writes (`compat`).
                duration_ms: (!compat)
                    .then(|| durations.get(i).copied().flatten().filter(|ms| *ms >= 0.0)),
                tool_calls: calls
                    .iter()
                    .map(|c| SlimToolCall {
                        id: Some(c.id.clone()),
                        name: c.name.clone(),
                    })
                    .collect(),
                stop_signal: None,
            }
        })
        .collect()
}

/// The reference's sibling `ContinuationAgentStateSerializer`: every section
/// kept (its last `max_messages` each), `name` and `_metadata` only when non-empty.
pub fn continuation_form(state: &AgentState, config: &SlimConfig) -> Value {
    let sections: Vec<Value> = state
        .message_store
        .sections
        .iter()
        .map(|section| {
            let written = section.messages.to_value();
            let list = match &written {
                Value::Array(list) => list.as_slice(),
                _ => &[],
            };
            let messages: Vec<Value> = last(list, config.max_messages)
                .iter()
                .map(|m| {
                    let (role, content, metadata) = slim_message_parts(m, config);
                    let mut out = Map::new();
                    out.insert("role", Value::from(role));
                    if let Some(name) = m
                        .get("name")
                        .filter(|n| n.as_str().is_some_and(|s| !s.is_empty()))
                    {
                        out.insert("name", name.clone());
                    }
                    out.insert("content", content);
                    if matches!(&metadata, Value::Object(m) if !m.is_empty()) {
                        out.insert("_metadata", metadata);
                    }
                    Value::Object(out)
                })
                .collect();
            obj([
                ("name", Value::from(section.name.as_str())),
                ("messages", Value::Array(messages)),
            ])
        })
        .collect();
    obj([
        ("version", Value::from(1)),
        ("agent_id", Value::from(state.agent_id.as_str())),
        (
            "parent_agent_id",
            Value::from(state.parent_agent_id.clone()),
        ),
        ("status", Value::from(state.status.as_str())),
        ("metadata", state.metadata.clone()),
        (
            "messageStore",
            obj([
                ("sections", Value::Array(sections)),
                (
                    "parameters",
                    crate::php::map_value(&state.message_store.parameters),
                ),
            ]),
        ),
    ])
}

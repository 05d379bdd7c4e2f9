//! `collect()`: the seed-003 response shape `{ turns, final_output }` built
//! from the streamed events, for callers that want one result, not a stream.

use crate::json::Value;

use crate::json::obj;
use crate::model::usage::UsageWithTotal;
use crate::session::view::{opt_str, StepView, ToolRun};
use crate::session::Session;

impl Session {
    /// `{ turns: [step], final_output }`: every step of every execution in
    /// order, each `{step_id, step_number, execution_id, timestamp,
    /// llm_response: {text, finish_reason, usage}, tool_results: [{call,
    /// output, error, result_summary, duration_ms}], annotations}` (usage
    /// `total` is the producer's own when it sent one; `annotations` null
    /// when the step has none); `final_output` is the run's `final_answer`, else the
    /// latest execution's streamed text, else its last step's text.
    pub fn collect(&self) -> Value {
        let mut turns = Vec::new();
        for e in self.executions() {
            for s in e.steps.values() {
                turns.push(turn(s, e.id.as_deref()));
            }
        }
        let last = self.executions().last();
        let final_output = last
            .and_then(|e| e.final_answer.clone())
            .or_else(|| {
                last.map(|e| e.text().into_owned())
                    .filter(|t| !t.is_empty())
            })
            .or_else(|| {
                last.and_then(|e| e.steps.values().next_back())
                    .map(|s| s.text.clone())
            })
            .unwrap_or_default();
        obj([
            ("turns", Value::Array(turns)),
            ("final_output", Value::from(final_output)),
        ])
    }
}

fn turn(s: &StepView, execution_id: Option<&str>) -> Value {
    obj([
        ("step_id", opt_str(&s.step_id)),
        ("step_number", Value::from(s.number)),
        (
            "execution_id",
            execution_id.map_or(Value::Null, Value::from),
        ),
        (
            "timestamp",
            opt_str(&s.started_at.clone().or_else(|| s.completed_at.clone())),
        ),
        (
            "llm_response",
            obj([
                ("text", Value::from(s.text.as_str())),
                ("finish_reason", opt_str(&s.finish_reason)),
                (
                    "usage",
                    match (s.usage, s.usage_total()) {
                        (Some(u), Some(t)) => crate::json::to_value_of(&UsageWithTotal::new(&u, t)),
                        _ => Value::Null,
                    },
                ),
            ]),
        ),
        (
            "tool_results",
            Value::Array(s.tools.iter().map(tool_result).collect()),
        ),
        ("error", opt_str(&s.error)),
        (
            "annotations",
            crate::json::to_value_of(&s.view().annotations),
        ),
    ])
}

fn tool_result(t: &ToolRun) -> Value {
    obj([
        (
            "call",
            obj([
                ("id", opt_str(&t.call_id)),
                ("name", Value::from(t.name.as_str())),
                ("arguments", t.args.clone().unwrap_or(Value::Null)),
            ]),
        ),
        ("output", Value::from(t.output.as_str())),
        ("error", opt_str(&t.error)),
        ("result_summary", opt_str(&t.result_summary)),
        ("duration_ms", t.duration_ms.clone().unwrap_or(Value::Null)),
    ])
}

//! `collect()`: the seed-003 response shape `{ turns, final_output }` built
//! from the streamed events, for callers that want one result, not a stream.

use crate::json::Value;
use crate::model::annotations::Annotations;
use crate::model::usage::UsageWithTotal;
use crate::session::view::{StepView, ToolRun};
use crate::session::Session;

impl Session {
    /// Every step of every execution in order, and `final_output`: the
    /// run's `final_answer`, else the latest execution's streamed text, else
    /// its last step's text.
    ///
    /// ```
    /// use stepline::session::Session;
    /// let mut s = Session::new(None);
    /// s.ingest_text(r#"{"event_type":"agent.llm.output_text.delta","step_index":1,"text_delta":"Hi"}"#).unwrap();
    /// let r = s.collect();
    /// assert_eq!(r.turns[0].llm_response.text, "Hi");
    /// assert_eq!(r.final_output, "Hi");
    /// ```
    pub fn collect(&self) -> CollectedResponse<'_> {
        let turns = self
            .executions()
            .iter()
            .flat_map(|e| e.steps.values().map(|s| turn(s, e.id.as_deref())))
            .collect();
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
        CollectedResponse {
            turns,
            final_output,
        }
    }
}

/// Seed 003's response shape, collected from the events.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CollectedResponse<'a> {
    /// Every step of every execution, in order.
    pub turns: Vec<CollectedTurn<'a>>,
    /// The run's `final_answer`, else the latest execution's streamed text,
    /// else its last step's text.
    pub final_output: String,
}

/// One step as a seed-003 turn.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CollectedTurn<'a> {
    /// The producer's id of the step.
    pub step_id: Option<&'a str>,
    /// The step's number in its execution.
    pub step_number: i64,
    /// The execution the step belongs to.
    pub execution_id: Option<&'a str>,
    /// When the step started, else when it completed.
    pub timestamp: Option<&'a str>,
    /// What the model answered.
    pub llm_response: CollectedLlmResponse<'a>,
    /// The step's tool runs.
    pub tool_results: Vec<CollectedToolResult<'a>>,
    /// The step's error text.
    pub error: Option<&'a str>,
    /// Seed-003 annotations of the step (`null` when none).
    pub annotations: Option<&'a Annotations>,
}

/// A turn's model answer.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CollectedLlmResponse<'a> {
    /// The step's streamed text.
    pub text: &'a str,
    /// The model's streamed reasoning in the step (`""` when none).
    pub reasoning: &'a str,
    /// The inference's finish reason.
    pub finish_reason: Option<&'a str>,
    /// The step's tokens (`total` is the producer's own when it sent one).
    pub usage: Option<UsageWithTotal>,
}

/// A turn's tool run.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CollectedToolResult<'a> {
    /// The call as the model made it.
    pub call: CollectedToolCall<'a>,
    /// What the tool returned (seed 003's `tool_result.output`), else its
    /// streamed output.
    pub output: &'a str,
    /// Why the tool failed.
    pub error: Option<&'a str>,
    /// The producer's short text of the result.
    pub result_summary: Option<&'a str>,
    /// The result as the producer sent it (laravel/ai, AG-UI, AI SDK, and
    /// a seed-003 completion's `tool_result.output`; `null` otherwise).
    #[cfg_attr(feature = "schema", schemars(schema_with = "any_schema"))]
    pub result: Option<&'a Value>,
    /// The producer's duration in milliseconds.
    #[cfg_attr(feature = "schema", schemars(schema_with = "duration_schema"))]
    pub duration_ms: Option<&'a Value>,
}

/// A tool call of a turn.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CollectedToolCall<'a> {
    /// The producer's id of the call.
    pub id: Option<&'a str>,
    /// The tool's name.
    pub name: &'a str,
    /// The arguments as sent (`null` when none were).
    #[cfg_attr(feature = "schema", schemars(schema_with = "any_schema"))]
    pub arguments: Option<&'a Value>,
}

fn turn<'a>(s: &'a StepView, execution_id: Option<&'a str>) -> CollectedTurn<'a> {
    let view = s.view();
    CollectedTurn {
        step_id: view.step_id,
        step_number: s.number,
        execution_id,
        timestamp: view.started_at.or(view.completed_at),
        llm_response: CollectedLlmResponse {
            text: &s.text,
            reasoning: &s.reasoning,
            finish_reason: view.finish_reason,
            usage: view.usage,
        },
        tool_results: s.tools.iter().map(tool_result).collect(),
        error: view.error,
        annotations: view.annotations,
    }
}

fn tool_result(t: &ToolRun) -> CollectedToolResult<'_> {
    CollectedToolResult {
        call: CollectedToolCall {
            id: t.call_id.as_deref(),
            name: &t.name,
            arguments: t.args.as_ref(),
        },
        output: t.final_output.as_deref().unwrap_or(&t.output),
        error: t.error.as_deref(),
        result_summary: t.result_summary.as_deref(),
        result: t.result.as_ref(),
        duration_ms: t.duration_ms.as_ref(),
    }
}

/// A producer's duration in milliseconds, or `null`.
#[cfg(feature = "schema")]
fn duration_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": ["number", "null"] })
}

/// Any JSON value (`unknown`).
#[cfg(feature = "schema")]
fn any_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::from(true)
}

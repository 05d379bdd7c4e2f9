//! The JavaScript-facing view of a v2 state (what `parseAgentState` returns
//! for one): the state as stored, `stateVersion: "v2"`, and its derived values
//! under `derived`, so no consumer re-derives (and possibly disagrees about)
//! the status, the stop signal or the usage.

use serde::Serialize;

use crate::json::Value;
use crate::model::continuation::v2::ExecutionContinuation;
use crate::model::shape::atom;
use crate::model::time::{format_atom, Timestamp};

use super::derived::{derived_view, Derived};
use super::execution::{ExecutionState, ExecutionStatus, StepExecution};
use super::message::{messages_value, Context};
use super::state::AgentState;
use super::step::AgentStep;
use super::Form;
use crate::model::usage::UsageWithTotal;
use crate::model::StepType;

/// What replaces a stored API key in every view.
pub const REDACTED: &str = "[redacted]";

/// A v2.x (instructor-php `packages/agents`) state as `parseAgentState` returns it.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "AgentStateV2"))]
#[serde(rename_all = "camelCase")]
pub struct AgentStateV2View<'a> {
    /// The agent's id.
    pub agent_id: &'a str,
    /// The parent agent's id, for a subagent.
    pub parent_agent_id: Option<&'a str>,
    /// When the state was created (ATOM).
    #[serde(serialize_with = "atom")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::shape::timestamp")
    )]
    pub created_at: &'a Timestamp,
    /// When it was last updated (ATOM).
    #[serde(serialize_with = "atom")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::shape::timestamp")
    )]
    pub updated_at: &'a Timestamp,
    /// Metadata, system prompt, response format and the message store.
    pub context: ContextV2View<'a>,
    /// The resolved LLM config as stored, `apiKey` shown as `"[redacted]"`.
    #[cfg_attr(feature = "schema", schemars(schema_with = "php_map_or_null"))]
    pub llm_config: Option<Value>,
    /// Executions run so far.
    pub execution_count: i64,
    /// The current (or last) execution; `null` between executions.
    pub execution: Option<ExecutionV2View<'a>>,
    /// Always `"v2"`: which release was read.
    #[cfg_attr(feature = "schema", schemars(schema_with = "v2_tag"))]
    pub state_version: &'static str,
    /// What the state's accessors give.
    pub derived: Derived<'a>,
}

/// A v2 state's context as stored.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "AgentContextV2"))]
#[serde(rename_all = "camelCase")]
pub struct ContextV2View<'a> {
    /// A map, or `[]`.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::shape::php_map")
    )]
    pub metadata: &'a Value,
    /// The system prompt.
    pub system_prompt: &'a str,
    /// A map, or `[]`.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::shape::php_map")
    )]
    pub response_format: &'a Value,
    /// The conversation's sections and parameters.
    pub message_store: MessageStoreV2View<'a>,
}

/// A v2 message store as stored.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "MessageStoreV2"))]
pub struct MessageStoreV2View<'a> {
    /// The named sections (`messages`, `summary`, `buffer`, …).
    pub sections: Vec<SectionV2View<'a>>,
    /// A map, or `[]`.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::shape::php_map")
    )]
    pub parameters: &'a Value,
}

/// A named section of a v2 message store.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "MessageSectionV2"))]
pub struct SectionV2View<'a> {
    /// The section's name.
    pub name: &'a str,
    /// Its messages as stored, oldest first.
    #[cfg_attr(feature = "schema", schemars(schema_with = "objects"))]
    pub messages: Value,
}

/// A v2 execution as stored.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "ExecutionV2"))]
#[serde(rename_all = "camelCase")]
pub struct ExecutionV2View<'a> {
    /// The execution's id.
    pub execution_id: &'a str,
    /// Its status.
    pub status: ExecutionStatus,
    /// When it started (ATOM).
    #[serde(serialize_with = "atom")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::shape::timestamp")
    )]
    pub started_at: &'a Timestamp,
    /// When it completed (ATOM), or `null`.
    pub completed_at: Option<String>,
    /// The recorded steps.
    pub step_executions: Vec<StepExecutionV2View<'a>>,
    /// The execution's continuation.
    pub continuation: &'a ExecutionContinuation,
    /// When the current step started (ATOM), or `null`.
    pub current_step_started_at: Option<String>,
    /// The step in progress as stored, or `null`.
    #[cfg_attr(feature = "schema", schemars(schema_with = "object_or_null"))]
    pub current_step: Option<Value>,
    /// What the execution's accessors give.
    pub derived: ExecutionDerivedV2,
}

/// What a v2 execution's accessors give (`packages/agents/src/Data/ExecutionState.php`):
/// `usage()` over the recorded steps and the current one, `stepCount()`,
/// `shouldStop()`, `hasErrors()`, and the current step's own values.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ExecutionDerivedV2 {
    /// Token usage of the recorded steps and the current one, with its total.
    pub usage: UsageWithTotal,
    /// Recorded steps plus the current one.
    pub step_count: usize,
    /// The run should stop (`shouldStop()`).
    pub should_stop: bool,
    /// A recorded or current step has errors.
    pub has_errors: bool,
    /// The current step's derived values, or `null` between steps.
    pub current_step: Option<StepDerivedV2>,
}

/// What a v2 step's accessors give (`packages/agents/src/Data/AgentStep.php`):
/// its type (never stored, item 23), finish reason, tool calls, errors, and
/// `usage()` (its inference's) with its total.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StepDerivedV2 {
    /// What kind of step it is.
    pub step_type: StepType,
    /// The inference's finish reason, normalised.
    pub finish_reason: crate::model::FinishReason,
    /// The step has tool calls (`hasToolCalls()`).
    pub has_tool_calls: bool,
    /// The step has errors (its own or a failed tool run's).
    pub has_errors: bool,
    /// The step's token usage, with its total.
    pub usage: UsageWithTotal,
}

/// A recorded v2 step as stored.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "StepExecutionV2"))]
#[serde(rename_all = "camelCase")]
pub struct StepExecutionV2View<'a> {
    /// The record's id.
    pub id: &'a str,
    /// The step as stored.
    #[cfg_attr(feature = "schema", schemars(schema_with = "object"))]
    pub step: Value,
    /// The continuation after the step.
    pub continuation: &'a ExecutionContinuation,
    /// When the step started (ATOM).
    #[serde(serialize_with = "atom")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::shape::timestamp")
    )]
    pub started_at: &'a Timestamp,
    /// When it completed (ATOM).
    #[serde(serialize_with = "atom")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::shape::timestamp")
    )]
    pub completed_at: &'a Timestamp,
    /// Seconds the step took.
    pub duration: f64,
    /// What the step's accessors give.
    pub derived: StepDerivedV2,
}

#[cfg(feature = "schema")]
fn v2_tag(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "const": "v2", "type": "string" })
}

#[cfg(feature = "schema")]
fn object(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "object", "additionalProperties": true })
}

#[cfg(feature = "schema")]
fn objects(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "array", "items": { "type": "object", "additionalProperties": true } })
}

#[cfg(feature = "schema")]
fn object_or_null(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "anyOf": [{ "type": "object", "additionalProperties": true }, { "type": "null" }]
    })
}

#[cfg(feature = "schema")]
fn php_map_or_null(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let map = crate::model::shape::php_map(g);
    schemars::json_schema!({ "anyOf": [map, { "type": "null" }] })
}

/// Builds the view. The stored `llmConfig.apiKey` is replaced by
/// [`REDACTED`] when non-empty: a view is shown and logged, the key must not be.
///
/// ```
/// use stepline::model::v2::{view::view, AgentState};
/// let now = chrono::DateTime::parse_from_rfc3339("2026-08-10T12:00:00Z").unwrap();
/// let text = r#"{"agentId": "a0000000-0000-4000-8000-000000000001", "llmConfig": {"apiKey": "sk-live"}, "execution": null}"#;
/// let state = AgentState::from_value(&stepline::json::from_str(text).unwrap(), &now).unwrap();
/// let v = view(&state, &now);
/// assert_eq!(v["stateVersion"], "v2");
/// assert_eq!(v["llmConfig"]["apiKey"], "[redacted]");
/// assert_eq!(v["derived"]["status"], stepline::json::Value::Null);
/// ```
pub fn view_of<'a>(state: &'a AgentState, now: &Timestamp) -> AgentStateV2View<'a> {
    let llm_config = state.llm_config.as_ref().map(|c| {
        let mut config = c.0.clone();
        if let Some(key) = config.as_object_mut().and_then(|c| c.get_mut("apiKey")) {
            if key.as_str().is_none_or(|k| !k.is_empty()) && !key.is_null() {
                *key = Value::from(REDACTED);
            }
        }
        config
    });
    AgentStateV2View {
        agent_id: &state.agent_id,
        parent_agent_id: state.parent_agent_id.as_deref(),
        created_at: &state.created_at,
        updated_at: &state.updated_at,
        context: context(&state.context),
        llm_config,
        execution_count: state.execution_count,
        execution: state.execution.as_ref().map(execution),
        state_version: "v2",
        derived: derived_view(state, now, Form::Stored),
    }
}

/// [`view_of`] as a JSON value. Any other credential (an `Authorization`
/// header in llmConfig.options, a key an application put in metadata) is not
/// shown either.
pub fn view(state: &AgentState, now: &Timestamp) -> Value {
    crate::secrets::redact(&crate::json::to_value_of(&view_of(state, now)))
}

fn context(c: &Context) -> ContextV2View<'_> {
    ContextV2View {
        metadata: &c.metadata,
        system_prompt: &c.system_prompt,
        response_format: &c.response_format,
        message_store: MessageStoreV2View {
            sections: c
                .sections
                .iter()
                .map(|s| SectionV2View {
                    name: &s.name,
                    messages: messages_value(&s.messages),
                })
                .collect(),
            parameters: &c.parameters,
        },
    }
}

fn execution(e: &ExecutionState) -> ExecutionV2View<'_> {
    ExecutionV2View {
        execution_id: &e.execution_id,
        status: e.status,
        started_at: &e.started_at,
        completed_at: e.completed_at.as_ref().map(format_atom),
        step_executions: e.step_executions.iter().map(step_execution).collect(),
        continuation: &e.continuation,
        current_step_started_at: e.current_step_started_at.as_ref().map(format_atom),
        current_step: e.current_step.as_ref().map(|s| s.to_value(Form::Stored)),
        derived: ExecutionDerivedV2 {
            usage: e.usage().with_total(),
            step_count: e.step_count(),
            should_stop: e.should_stop(),
            has_errors: e
                .step_executions
                .iter()
                .map(|s| &s.step)
                .chain(e.current_step.as_ref())
                .any(AgentStep::has_errors),
            current_step: e.current_step.as_ref().map(step_derived),
        },
    }
}

fn step_derived(s: &AgentStep) -> StepDerivedV2 {
    StepDerivedV2 {
        step_type: s.step_type(),
        finish_reason: s.inference_response.finish_reason(),
        has_tool_calls: s.has_tool_calls(),
        has_errors: s.has_errors(),
        usage: s.usage().with_total(),
    }
}

fn step_execution(s: &StepExecution) -> StepExecutionV2View<'_> {
    StepExecutionV2View {
        id: &s.id,
        step: s.step.to_value(Form::Stored),
        continuation: &s.continuation,
        started_at: &s.started_at,
        completed_at: &s.completed_at,
        duration: s.duration(),
        derived: step_derived(&s.step),
    }
}

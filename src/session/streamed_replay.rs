//! "What if" for a streamed run: re-evaluates one execution of the session
//! under other continuation criteria. A recording or a live stream has no
//! agent state, so this builds the smallest v1.22 state the evaluator reads
//! from what was streamed — per step its usage, finish reason, tool calls,
//! tool failures (as errors) and timing, with the streamed continuation as
//! the step's recorded outcome — and replays it. The result also says how
//! the run itself ended as streamed ([`RecordedRun`]), so a what-if starts
//! from the run's own outcome: a run whose driver threw (no final status)
//! never finished, it did not "stop (completed)".

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{Map, Value};
use crate::model::continuation::criteria::Criterion;
use crate::model::continuation::evaluate::replay_state;
use crate::model::continuation::explain::streamed_explanation;
use crate::model::continuation::replay::{ContinuationReplay, Replay, ReplayOptions};
use crate::model::time::Timestamp;
use crate::model::usage::Usage;
use crate::session::view::{Execution, StepView, ToolRun, TERMINAL};
use crate::session::Session;

/// How the run ended as it was streamed: what a what-if compares with.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RecordedRun {
    /// A final status was streamed (`completed`, `failed`, `cancelled`,
    /// `stopped`, `interrupted`).
    pub ended: bool,
    /// The broadcast status the run is in (`null` when none arrived).
    pub status: Option<String>,
    /// The run's error, when it streamed one (`agent.run.failed`, a
    /// failed status's `error_message`, or the last step's error).
    pub error: Option<String>,
    /// The last step streamed (`null` when none).
    pub last_step: Option<i64>,
    /// One sentence: how the run ended, or that it never finished.
    pub summary: String,
}

/// A streamed execution re-evaluated under other criteria.
#[derive(Clone, Debug)]
pub struct StreamedReplay {
    /// The replay of the state built from the stream.
    pub replay: Replay,
    /// How the run ended as streamed.
    pub recorded_run: RecordedRun,
}

/// What `Session.replayContinuation` returns: `replayContinuation`'s result
/// plus `recordedRun`.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamedContinuationReplay<'a> {
    /// The replay, step by step.
    #[serde(flatten)]
    pub replay: ContinuationReplay<'a>,
    /// How the run ended as streamed.
    pub recorded_run: &'a RecordedRun,
}

impl StreamedReplay {
    /// What `Session.replayContinuation` returns.
    pub fn view(&self) -> StreamedContinuationReplay<'_> {
        StreamedContinuationReplay {
            replay: self.replay.view(),
            recorded_run: &self.recorded_run,
        }
    }
}

fn usage(u: Option<Usage>) -> Value {
    let u = u.unwrap_or_default();
    crate::json!({"input": u.input, "output": u.output, "cacheWrite": u.cache_write,
        "cacheRead": u.cache_read, "reasoning": u.reasoning})
}

fn call(step: &StepView, tool: &ToolRun, i: usize) -> Value {
    let id = tool
        .call_id
        .clone()
        .unwrap_or_else(|| format!("call_{}_{}", step.number, i + 1));
    let args = tool
        .args
        .clone()
        .filter(Value::is_object)
        .unwrap_or_else(|| Value::Array(Vec::new()));
    crate::json!({"id": id, "name": tool.name.clone(), "arguments": args})
}

/// The streamed continuation as the producer's outcome (`decision` is never `allow`).
fn recorded_outcome(c: &Value) -> Value {
    let text = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let goes_on = c
        .get("should_continue")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let evaluations: Vec<Value> = c
        .get("evaluations")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|e| {
                    let f = |k: &str| e.get(k).and_then(Value::as_str).map(String::from);
                    crate::json!({"criterion": f("criterion").unwrap_or_default(),
                        "decision": f("decision").unwrap_or_else(|| "allow".into()),
                        "reason": f("reason").unwrap_or_default(), "stopReason": null, "context": []})
                })
                .collect()
        })
        .unwrap_or_default();
    let decision = if goes_on {
        "request"
    } else if text("resolved_by") == "aggregate" {
        "stop"
    } else {
        "forbid"
    };
    crate::json!({"decision": decision, "shouldContinue": goes_on, "resolvedBy": text("resolved_by"),
        "stopReason": text("stop_reason"), "evaluations": evaluations})
}

/// An AgentState-shaped object for `replayContinuation`, built from one
/// streamed execution.
pub fn state_from_execution(exec: &Execution) -> Value {
    let mut steps = Vec::new();
    let mut results = Vec::new();
    for step in exec.steps.values() {
        let at = step
            .started_at
            .clone()
            .or_else(|| step.completed_at.clone())
            .or_else(|| exec.first_at.clone())
            .unwrap_or_else(|| "1970-01-01T00:00:00.000Z".into());
        let calls: Vec<Value> = step
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| call(step, t, i))
            .collect();
        let requested = if step.has_tool_calls == Some(false) {
            Vec::new()
        } else {
            calls.clone()
        };
        let executions: Vec<Value> = step
            .tools
            .iter()
            .zip(&calls)
            .map(|(t, c)| {
                let started = t
                    .started_at
                    .as_ref()
                    .map_or_else(|| at.clone(), |s| s.as_str().into_owned());
                let ended = t
                    .completed_at
                    .as_ref()
                    .map_or_else(|| started.clone(), |s| s.as_str().into_owned());
                crate::json!({"toolCall": c.clone(), "tool": t.name.clone(),
                    "args": c.get("arguments").cloned().unwrap_or(Value::Null), "result": null,
                    "error": t.more().error.clone(), "startedAt": started, "endedAt": ended})
            })
            .collect();
        let errors: Vec<Value> = step
            .tools
            .iter()
            .filter(|t| t.status() == crate::session::view::ToolStatus::Failed)
            .map(|t| {
                let message = t
                    .more()
                    .error
                    .clone()
                    .unwrap_or_else(|| format!("{} failed", t.name));
                crate::json!({"message": message, "class": "RuntimeException"})
            })
            .collect();
        let agent_step = crate::json!({
            "stepInfo": {"id": step.step_id.clone().unwrap_or_else(|| format!("step-{}", step.number)), "createdAt": at},
            "toolCalls": requested.clone(),
            "toolExecutions": executions,
            "errors": errors,
            "usage": usage(step.usage),
            "inferenceResponse": {"finishReason": step.finish_reason.clone().unwrap_or_default(),
                "toolCalls": requested, "usage": usage(step.usage),
                "responseData": {"statusCode": 0, "body": "", "headers": [], "isStreamed": true}},
        });
        // A step result needs an outcome: a step whose continuation was not
        // streamed (a driver that threw, a lost event) has none, so it is a
        // step without a result (its timing then comes from its creation).
        if let Some(c) = &step.continuation {
            let mut result = Map::new();
            result.insert("step", agent_step.clone());
            result.insert("outcome", recorded_outcome(&c.value()));
            if let Some(t) = &step.started_at {
                result.insert("startedAt", Value::from(t.as_str()));
            }
            if let Some(t) = &step.completed_at {
                result.insert("completedAt", Value::from(t.as_str()));
            }
            results.push(Value::Object(result));
        }
        steps.push(agent_step);
    }
    crate::json!({"status": "in_progress", "steps": steps, "stepResults": results})
}

/// How `exec` ended as streamed.
pub fn recorded_run(exec: &Execution) -> RecordedRun {
    let status = exec.status().map(String::from);
    let ended = status.as_deref().is_some_and(|s| TERMINAL.contains(&s));
    let last = exec.steps.values().next_back();
    let error = exec
        .run_error
        .clone()
        .or_else(|| exec.status_detail.error_message().map(String::from))
        .or_else(|| last.and_then(|s| s.error.clone()));
    let last_step = last.map(|s| s.number);
    let after = last_step.map_or(String::new(), |n| format!(" after step {n}"));
    let summary = match (ended, status.as_deref()) {
        (false, _) => format!(
            "Never finished: no final status was streamed{after} (the run is {}){}.",
            status.as_deref().unwrap_or("without a status"),
            error
                .as_deref()
                .map_or(String::new(), |e| format!("; its last error: {e}"))
        ),
        (true, Some("failed")) => format!(
            "Failed{after}{}.",
            error.as_deref().map_or(String::new(), |e| format!(": {e}"))
        ),
        (true, s) => {
            let why = last
                .and_then(|l| l.continuation.as_ref())
                .and_then(|c| streamed_explanation(&c.value()))
                .map_or(String::new(), |w| format!(" {w}"));
            format!("Ended {}{after}.{why}", s.unwrap_or("unknown"))
        }
    };
    RecordedRun {
        ended,
        status,
        error,
        last_step,
        summary,
    }
}

impl Session {
    /// The execution at `index` (arrival order) or with id `id`.
    fn execution_by(&self, index: Option<usize>, id: Option<&str>) -> Result<&Execution> {
        let found = match (index, id) {
            (Some(i), _) => self.executions().get(i),
            (None, Some(id)) => self
                .executions()
                .iter()
                .rev()
                .find(|e| e.id.as_deref() == Some(id)),
            (None, None) => self.executions().last(),
        };
        found.ok_or_else(|| {
            SteplineError::at(
                ErrorCode::InvalidValue,
                "/execution",
                match (index, id) {
                    (Some(i), _) => format!(
                        "no execution {i}: the session has {}",
                        self.executions().len()
                    ),
                    (None, Some(id)) => format!("no execution with id {id:?}"),
                    (None, None) => "the session has no execution".into(),
                },
            )
        })
    }

    /// Re-evaluates one streamed execution (by position, else by id, else
    /// the latest) under `criteria`: see the module doc.
    ///
    /// ```
    /// use stepline::model::continuation::spec::parse_criteria;
    /// use stepline::session::Session;
    /// let mut s = Session::new(None);
    /// for line in [
    ///   r#"{"type":"agent.status","session_id":"s","execution_id":"e","timestamp":"2026-01-20T12:00:00Z","payload":{"status":"processing","previous_status":"idle"}}"#,
    ///   r#"{"type":"agent.step.completed","session_id":"s","execution_id":"e","timestamp":"2026-01-20T12:00:01Z","payload":{"step_number":1,"has_tool_calls":true}}"#,
    ///   r#"{"type":"agent.step.completed","session_id":"s","execution_id":"e","timestamp":"2026-01-20T12:00:02Z","payload":{"step_number":2,"has_tool_calls":true}}"#,
    /// ] { s.ingest_text(line).unwrap(); }
    /// let criteria = parse_criteria(&stepline::json!([{"kind": "steps_limit", "max": 1}]), "/criteria").unwrap();
    /// let r = s.replay_streamed(None, None, &criteria, Default::default(), chrono::DateTime::parse_from_rfc3339("2026-01-20T12:00:05Z").unwrap()).unwrap();
    /// assert_eq!(r.replay.stops_at_step(), Some(1));
    /// assert!(!r.recorded_run.ended);
    /// ```
    pub fn replay_streamed(
        &self,
        index: Option<usize>,
        id: Option<&str>,
        criteria: &[Criterion],
        options: ReplayOptions,
        now: Timestamp,
    ) -> Result<StreamedReplay> {
        let exec = self.execution_by(index, id)?;
        let mut exec = exec.clone();
        exec.settle();
        // The streamed state carries each step's recorded start: compat's
        // origin (the first step's recorded start) is the stream's own.
        let replay = replay_state(&state_from_execution(&exec), criteria, options, now, true)?;
        Ok(StreamedReplay {
            replay,
            recorded_run: recorded_run(&exec),
        })
    }
}

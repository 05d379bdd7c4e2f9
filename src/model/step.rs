//! One agent step: what went in, what the model answered, which tools ran.
//!
//! Read from the reference's `AgentStep::toArray` form. Two reference quirks are
//! matched on purpose (state-model vectors): `hasToolCalls` looks at the step's
//! own stored `toolCalls` while the inferred step type looks at the inference
//! response's, so legacy data can disagree; and stored model errors do not make
//! the *inferred* type `error` (only failed tool executions do). stepline's own
//! derived view (seed 001) is offered next to them: `requested_tool_calls` and
//! `executed_tool_calls`.

use crate::json::{Map, Value};

use crate::error::Result;
use crate::json::child;
use crate::model::annotations::Annotations;
use crate::model::finish_reason::FinishReason;
use crate::model::inference::InferenceResponse;
use crate::model::info::StepInfo;
use crate::model::message::Messages;
use crate::model::read;
use crate::model::step_type::StepType;
use crate::model::time::Timestamp;
use crate::model::tool_call::{ToolCall, ToolCalls};
use crate::model::tool_execution::ToolExecutions;
use crate::model::usage::Usage;
use crate::php;

/// The class the reference uses for errors it cannot reconstruct.
pub const TOOL_EXECUTION_EXCEPTION: &str =
    "Cognesy\\Addons\\Agent\\Exceptions\\ToolExecutionException";

/// A stored error: message and PHP exception class.
#[derive(Clone, Debug, PartialEq)]
pub struct StepError {
    /// The error's message.
    pub message: String,
    /// The PHP exception class.
    pub class: String,
}

/// One agent step.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentStep {
    /// The step's id and creation time.
    pub info: StepInfo,
    /// The messages sent to the model (`inputMessages`).
    pub input_messages: Messages,
    /// The messages the step produced (`outputMessages`).
    pub output_messages: Messages,
    /// The step's stored usage (what the reference's `usage()` returns at v1.22).
    pub usage: Usage,
    /// The step's stored tool calls (legacy field; `hasToolCalls` reads it).
    pub tool_calls: ToolCalls,
    /// The tools run in this step (`toolExecutions`).
    pub tool_executions: ToolExecutions,
    /// The model's response (`inferenceResponse`).
    pub inference_response: InferenceResponse,
    /// The stored or derived step type (`stepType`).
    pub step_type: StepType,
    /// The errors recorded on the step.
    pub errors: Vec<StepError>,
    /// Seed-003 safety notes, citations and extras.
    pub annotations: Annotations,
}

impl AgentStep {
    /// Reads the stored form; an error names the offending value by its JSON pointer under `path`.
    /// Dates the producer would generate when missing take `now`.
    pub fn from_value(v: &Value, path: &str, now: &Timestamp) -> Result<AgentStep> {
        let m = read::object(v, path, "a step")?;
        let field = |k: &str| php::get(m, k);
        let p = |k: &str| child(path, k);
        let tool_executions = match field("toolExecutions") {
            Some(v) => ToolExecutions::from_value(v, &p("toolExecutions"), now)?,
            None => ToolExecutions::default(),
        };
        let inference_response = match field("inferenceResponse") {
            Some(v) => InferenceResponse::from_value(v, &p("inferenceResponse"), now)?,
            None => InferenceResponse::empty(now),
        };
        let step_type = match field("stepType") {
            Some(Value::String(s)) => StepType::parse(s, &p("stepType"))?,
            Some(other) => StepType::parse(&php::json_encode(other), &p("stepType"))?,
            None => infer_step_type(&inference_response, &tool_executions),
        };
        let explicit_errors = match field("errors") {
            Some(v) => normalize_errors(v, &p("errors"))?,
            None => Vec::new(),
        };
        let errors = if explicit_errors.is_empty() {
            execution_errors(&tool_executions)
        } else {
            explicit_errors
        };
        Ok(AgentStep {
            info: StepInfo::from_value(
                field("stepInfo").unwrap_or(&Value::Array(Vec::new())),
                &p("stepInfo"),
                now,
            )?,
            input_messages: match field("inputMessages") {
                Some(v) => Messages::from_value(v, &p("inputMessages"))?,
                None => Messages::default(),
            },
            output_messages: match field("outputMessages") {
                Some(v) => Messages::from_value(v, &p("outputMessages"))?,
                None => Messages::default(),
            },
            usage: match field("usage") {
                Some(v) => Usage::from_value(v, &p("usage"))?,
                None => Usage::default(),
            },
            tool_calls: match field("toolCalls") {
                Some(v) => ToolCalls::from_value(v, &p("toolCalls"))?,
                None => ToolCalls::default(),
            },
            tool_executions,
            inference_response,
            step_type,
            errors,
            annotations: match field("annotations") {
                Some(v) => Annotations::from_value(v, &p("annotations"))?,
                None => Annotations::default(),
            },
        })
    }

    /// A failed step as the reference's `AgentStep::failure` builds it.
    pub fn failure(input_messages: Messages, error: StepError, now: &Timestamp) -> AgentStep {
        AgentStep {
            info: StepInfo::new(now),
            input_messages,
            output_messages: Messages::default(),
            usage: Usage::default(),
            tool_calls: ToolCalls::default(),
            tool_executions: ToolExecutions::default(),
            inference_response: InferenceResponse::empty(now),
            step_type: StepType::Error,
            errors: vec![error],
            annotations: Annotations::default(),
        }
    }

    /// The reference's `toArray` (plus `annotations` when there are any).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("stepInfo", self.info.to_value());
        m.insert("inputMessages", self.input_messages.to_value());
        m.insert("outputMessages", self.output_messages.to_value());
        m.insert("toolCalls", self.tool_calls.to_value());
        m.insert("toolExecutions", self.tool_executions.to_value());
        m.insert(
            "errors",
            Value::Array(
                self.errors
                    .iter()
                    .map(|e| {
                        crate::json::obj([
                            ("message", Value::from(e.message.clone())),
                            ("class", Value::from(e.class.clone())),
                        ])
                    })
                    .collect(),
            ),
        );
        m.insert("usage", self.usage.to_value());
        m.insert("inferenceResponse", self.inference_response.to_value());
        m.insert("stepType", Value::String(self.step_type.as_str().into()));
        if !self.annotations.is_empty() {
            m.insert("annotations", self.annotations.to_value());
        }
        Value::Object(m)
    }

    /// The reference's `hasToolCalls()`: the step's own stored tool calls.
    pub fn has_tool_calls(&self) -> bool {
        !self.tool_calls.is_empty()
    }

    /// Seed 001: the tool calls the model asked for (from the inference response).
    pub fn requested_tool_calls(&self) -> &[ToolCall] {
        &self.inference_response.tool_calls.0
    }

    /// Seed 001: the tool calls that were executed (from the executions).
    pub fn executed_tool_calls(&self) -> Vec<&ToolCall> {
        self.tool_executions.tool_calls()
    }

    /// Seed 001 §Single Sources of Truth, rule 1, with §Compatibility Notes 2:
    /// the requested calls are the inference response's; a legacy step whose
    /// response holds none but whose own `toolCalls` field does (an old state)
    /// reads those, as `AgentStep::fromArray` is to hydrate them.
    pub fn seed_001_requested_calls(&self) -> &[ToolCall] {
        if self.inference_response.tool_calls.is_empty() {
            &self.tool_calls.0
        } else {
            &self.inference_response.tool_calls.0
        }
    }

    /// Seed 001 §Single Sources of Truth, rule 3: the step's usage is its
    /// inference response's. The stored `usage` field is a legacy input
    /// (§Compatibility Notes 3): it stands in only when the response carries
    /// none, as in a state written before the response kept its usage.
    pub fn seed_001_usage(&self) -> Usage {
        if self.inference_response.usage == Usage::default() {
            self.usage
        } else {
            self.inference_response.usage
        }
    }

    /// Seed 001 §Step Type Derivation Rules, derived and never stored: model or
    /// driver errors → `error`; failed tool executions → `error`; requested
    /// tool calls → `tool_execution`; otherwise `final_response`. (The
    /// reference's own inference, [`infer_step_type`], skips the first rule, so
    /// a failed inference read `final_response`.)
    pub fn seed_001_step_type(&self) -> StepType {
        if !self.errors.is_empty() || self.tool_executions.has_errors() {
            StepType::Error
        } else if !self.seed_001_requested_calls().is_empty() {
            StepType::ToolExecution
        } else {
            StepType::FinalResponse
        }
    }

    /// Rewrites the step as seed 001 reads it (stepline's default; `compat`
    /// keeps the stored form): legacy `toolCalls` hydrated into an empty
    /// `inferenceResponse.toolCalls` (§Compatibility Notes 2), `toolCalls` the
    /// alias of the requested calls, `usage` the response's, `stepType` derived.
    /// Every reader that shows a step in default mode (`parseAgentState`, the
    /// slim snapshot) goes through the `seed_001_*` methods, so they agree.
    pub fn apply_seed_001(&mut self) {
        let requested = ToolCalls(self.seed_001_requested_calls().to_vec());
        let usage = self.seed_001_usage();
        self.step_type = self.seed_001_step_type();
        self.inference_response.tool_calls = requested.clone();
        self.inference_response.usage = usage;
        self.tool_calls = requested;
        self.usage = usage;
    }

    /// The inference's finish reason, normalised.
    pub fn finish_reason(&self) -> FinishReason {
        self.inference_response.finish_reason()
    }

    /// Whether the step recorded errors or a tool run failed.
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// Messages joined by newlines (the reference's `errorsAsString`).
    pub fn errors_as_string(&self) -> String {
        self.errors
            .iter()
            .map(|e| e.message.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Seed 001's rule as the reference implements it: failed executions → `error`;
/// requested tool calls → `tool_execution`; otherwise `final_response`.
pub fn infer_step_type(response: &InferenceResponse, executions: &ToolExecutions) -> StepType {
    if executions.has_errors() {
        StepType::Error
    } else if response.has_tool_calls() {
        StepType::ToolExecution
    } else {
        StepType::FinalResponse
    }
}

fn execution_errors(executions: &ToolExecutions) -> Vec<StepError> {
    executions
        .0
        .iter()
        .filter_map(|e| e.error.as_ref())
        .map(|message| StepError {
            message: message.clone(),
            class: TOOL_EXECUTION_EXCEPTION.into(),
        })
        .collect()
}

/// Rebuilds stored errors as the reference does: a non-string message becomes
/// "Unknown tool-use error"; a class PHP could not instantiate as a Throwable
/// becomes `ToolExecutionException`; entries that are not arrays are skipped.
fn normalize_errors(v: &Value, path: &str) -> Result<Vec<StepError>> {
    let mut out = Vec::new();
    for (_, item) in read::entries(v, path, "errors")? {
        let Value::Object(e) = item else { continue };
        let message = match e.get("message") {
            Some(Value::String(s)) => s.clone(),
            _ => "Unknown tool-use error".to_string(),
        };
        let class = match e.get("class") {
            Some(Value::String(c)) if is_known_throwable(c) => {
                c.trim_start_matches('\\').to_string()
            }
            _ => TOOL_EXECUTION_EXCEPTION.to_string(),
        };
        out.push(StepError { message, class });
    }
    Ok(out)
}

/// Whether the reference could `new $class($message)` as a `Throwable`: PHP's
/// built-in exception classes and the producer's own `Cognesy\…` exceptions.
fn is_known_throwable(class: &str) -> bool {
    const BUILTIN: &[&str] = &[
        "Exception",
        "ErrorException",
        "Error",
        "TypeError",
        "ValueError",
        "ArithmeticError",
        "DivisionByZeroError",
        "ArgumentCountError",
        "AssertionError",
        "UnhandledMatchError",
        "RuntimeException",
        "LogicException",
        "InvalidArgumentException",
        "DomainException",
        "LengthException",
        "OutOfRangeException",
        "OutOfBoundsException",
        "OverflowException",
        "RangeException",
        "UnderflowException",
        "UnexpectedValueException",
        "BadFunctionCallException",
        "BadMethodCallException",
        "JsonException",
    ];
    let class = class.trim_start_matches('\\');
    BUILTIN.contains(&class)
        || (class.starts_with("Cognesy\\")
            && (class.ends_with("Exception") || class.ends_with("Error")))
}

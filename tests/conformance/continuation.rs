//! continuation.json: resolution (a.), each criterion (b.), the default agent
//! list on whole states (c.), outcome (de)serialisation and helpers (d.).

use stepline::json;
use stepline::json::Value;
use stepline::model::continuation::classes;
use stepline::model::continuation::criteria::{check_max_seconds, ResponsePredicate};
use stepline::model::continuation::error_policy::{ErrorContext, ErrorPolicy, ErrorType, Handling};
use stepline::model::continuation::spec::{default_criteria, parse_error_policy, Defaults};
use stepline::model::continuation::{
    evaluate_all, Criterion, Decision, Evaluation, Observation, Outcome,
};
use stepline::model::time::Timestamp;
use stepline::model::AgentState;
use stepline::SteplineError;

use crate::Outcome as CaseOutcome;

pub fn run(name: &str, input: &Value) -> Option<CaseOutcome> {
    let now = rfc3339(
        input["now"]
            .as_str()
            .unwrap_or("2026-01-20T12:00:00.250000+00:00"),
    );
    let out = if name.starts_with("a.resolve") {
        Ok(Outcome::resolve(from_decisions(&input["evaluations"])?).to_value())
    } else if name.starts_with("b.") {
        criterion_case(input)?.map(|e| e.to_value())
    } else if name.starts_with("c.default-criteria") {
        default_list_case(input, now)
    } else if name.starts_with("d.ContinuationOutcome::empty()")
        || name.starts_with("d.ContinuationCriteria() with no criteria")
    {
        Ok(evaluate_all(&[], &Observation::empty(now)).to_value())
    } else if name.starts_with("d.fromEvaluationError") {
        let e = &input["exception"];
        Ok(Outcome::from_evaluation_error(e["class"].as_str()?, e["message"].as_str()?).to_value())
    } else if name.starts_with("d.ContinuationOutcome::fromArray->toArray") {
        Outcome::from_value(input, "").map(|o| o.to_value())
    } else if name.starts_with("d.ContinuationCriteria::evaluate") {
        let (list, obs) = composite(&input["criteria"], now)?;
        Criterion::All(list)
            .evaluate(&obs)
            .map(|o| o.to_value())
            .map_err(criterion_threw)
    } else if name.starts_with("d.nested") {
        let (list, obs) = composite(&input["criteria"], now)?;
        Ok(evaluate_all(&list, &obs).to_value())
    } else if name.starts_with("d.ContinuationEvaluation::fromDecision") {
        let d = crate::or_outcome!(Decision::parse(input["decision"].as_str()?, "/decision"));
        Ok(Evaluation::from_decision(input["criterion"].as_str()?, d, None).to_value())
    } else if name.starts_with("d.ContinuationDecision::canContinueWith") {
        let ds: Option<Vec<Decision>> = input["decisions"]
            .as_array()?
            .iter()
            .map(|d| Decision::parse(d.as_str()?, "").ok())
            .collect();
        Ok(json!(Decision::can_continue_with(&ds?)))
    } else {
        return None;
    };
    Some(out)
}

/// A criterion that failed while evaluating (the reference's criterion
/// threw): the case's outcome is that failure, judged against `throws`.
fn criterion_threw(message: String) -> SteplineError {
    SteplineError::new(stepline::ErrorCode::InvalidValue, None, message)
}

fn rfc3339(s: &str) -> Timestamp {
    chrono::DateTime::parse_from_rfc3339(s).expect("vector timestamps are RFC 3339")
}

/// `ContinuationEvaluation::fromDecision(criterion, decision, stopReason)` for each entry.
fn from_decisions(list: &Value) -> Option<Vec<Evaluation>> {
    list.as_array()?
        .iter()
        .map(|e| {
            let d = Decision::parse(e["decision"].as_str()?, "").ok()?;
            Some(Evaluation::from_decision(
                e["criterion"].as_str()?,
                d,
                e["stopReason"].as_str().map(String::from),
            ))
        })
        .collect()
}

/// An enum is described as `{enum, value}`; the criterion sees its value.
fn enum_value(v: &Value) -> Value {
    match v.get("value") {
        Some(inner) if v.get("enum").is_some() => inner.clone(),
        _ => v.clone(),
    }
}

fn criterion_case(input: &Value) -> Option<Result<Evaluation, SteplineError>> {
    let class = input["criterion"].as_str()?;
    let p = &input["params"];
    let o = &input["observed"];
    let mut obs = Observation::empty(rfc3339("2026-01-20T12:00:00.250000+00:00"));
    let short = class.rsplit('\\').next()?;
    let criterion = match short {
        "StepsLimit" => {
            obs.step_count = o["stepCount"].as_i64()?;
            Criterion::StepsLimit {
                max: p["maxSteps"].as_i64()?,
            }
        }
        "TokenUsageLimit" => {
            obs.usage_total = o["usageTotal"].as_i64()?;
            Criterion::TokenUsageLimit {
                max: p["maxTokens"].as_i64()?,
            }
        }
        "ExecutionTimeLimit" => {
            match check_max_seconds(p["maxSeconds"].as_i64()?, "/params/maxSeconds") {
                Err(e) => return Some(Err(e)),
                Ok(max_seconds) => {
                    obs.now = rfc3339(o["now"].as_str()?);
                    obs.time_origin = rfc3339(o["startedAt"].as_str()?);
                    Criterion::ExecutionTimeLimit { max_seconds }
                }
            }
        }
        "CumulativeExecutionTimeLimit" => {
            match check_max_seconds(p["maxSeconds"].as_i64()?, "/params/maxSeconds") {
                Err(e) => return Some(Err(e)),
                Ok(max_seconds) => {
                    obs.cumulative_seconds = *o["cumulativeSeconds"].as_number()?;
                    Criterion::CumulativeExecutionTimeLimit { max_seconds }
                }
            }
        }
        "ErrorPresenceCheck" => {
            obs.current_step_has_errors = o["hasErrors"].as_bool()?;
            Criterion::ErrorPresenceCheck
        }
        "FinishReasonCheck" => {
            obs.finish_reason = Some(enum_value(&o["finishReason"]));
            Criterion::FinishReasonCheck {
                stop_reasons: p["stopReasons"]
                    .as_array()?
                    .iter()
                    .map(enum_value)
                    .collect(),
            }
        }
        "RetryLimit" => {
            obs.steps_have_errors = o["stepHasError"]
                .as_array()?
                .iter()
                .map(|b| b.as_bool().unwrap_or(false))
                .collect();
            Criterion::RetryLimit {
                max: p["maxConsecutiveFailures"].as_i64()?,
            }
        }
        "ResponseContentCheck" => {
            obs.response = o["response"].as_str().map(String::from);
            Criterion::ResponseContentCheck {
                predicate: ResponsePredicate::Constant(p["predicateResult"].as_bool()?),
            }
        }
        "ToolCallPresenceCheck" => {
            obs.has_tool_calls = o["hasToolCalls"].as_bool()?;
            let inner = Criterion::ToolCallPresenceCheck;
            if class == classes::TOOL_CALL_PRESENCE_CHECK {
                inner
            } else {
                Criterion::Renamed {
                    class: class.to_string(),
                    inner: Box::new(inner),
                }
            }
        }
        "CallableCriterion" => Criterion::Fixed {
            decision: crate::or_outcome!(Decision::parse(
                o["predicateDecision"].as_str()?,
                "/observed/predicateDecision"
            )),
        },
        "ErrorPolicyCriterion" => {
            obs.error_context = error_context(&o["errorContext"])?;
            Criterion::ErrorPolicy {
                policy: policy_resolved(&p["policyResolved"])?,
            }
        }
        _ => return None,
    };
    Some(criterion.evaluate(&obs).map_err(criterion_threw))
}

fn error_context(v: &Value) -> Option<ErrorContext> {
    Some(ErrorContext {
        error_type: ErrorType::parse(v["type"].as_str()?)?,
        consecutive_failures: v["consecutiveFailures"].as_i64()?,
        total_failures: v["totalFailures"].as_i64()?,
        message: v["message"].as_str().map(String::from),
        tool_name: v["toolName"].as_str().map(String::from),
    })
}

fn policy_resolved(v: &Value) -> Option<ErrorPolicy> {
    let h = |k: &str| Handling::parse(v[k].as_str()?, "").ok();
    Some(ErrorPolicy {
        on_tool_error: h("onToolError")?,
        on_model_error: h("onModelError")?,
        on_validation_error: h("onValidationError")?,
        on_rate_limit_error: h("onRateLimitError")?,
        on_timeout_error: h("onTimeoutError")?,
        on_unknown_error: h("onUnknownError")?,
        max_retries: v["maxRetries"].as_i64()?,
    })
}

/// The producer's `AgentBuilder::buildContinuationCriteria()` on a whole state,
/// honouring `input.executionStartedAt` (which the state format never restores).
fn default_list_case(input: &Value, now: Timestamp) -> CaseOutcome {
    let opts = &input["builderOptions"];
    let mut d = Defaults::default();
    if let Some(n) = opts["maxSteps"].as_i64() {
        d.max_steps = n;
    }
    if let Some(n) = opts["maxTokens"].as_i64() {
        d.max_tokens = n;
    }
    if let Some(n) = opts["timeout"].as_i64() {
        d.max_execution_time = n;
    }
    d.cumulative_timeout = opts["cumulativeTimeout"].as_i64();
    if let Some(p) = opts.get("errorPolicy").filter(|v| !v.is_null()) {
        d.error_policy = parse_error_policy(p, "/builderOptions/errorPolicy")?;
    }
    if let Some(list) = opts["finishReasons"].as_array() {
        d.finish_reasons = list.clone();
    }
    let state = AgentState::from_value(&input["state"], &now)?;
    let started = input["executionStartedAt"].as_str().map(rfc3339);
    let obs = Observation::from_state(&state, now, started);
    Ok(evaluate_all(&default_criteria(&d), &obs).to_value())
}

/// `[[name, {params and observed values}], …]` → criteria plus one shared observation.
fn composite(list: &Value, now: Timestamp) -> Option<(Vec<Criterion>, Observation)> {
    let mut obs = Observation::empty(now);
    let criteria = build(list, &mut obs)?;
    Some((criteria, obs))
}

fn build(list: &Value, obs: &mut Observation) -> Option<Vec<Criterion>> {
    list.as_array()?
        .iter()
        .map(|entry| {
            let name = entry[0].as_str()?;
            let args = &entry[1];
            Some(match name {
                "StepsLimit" => {
                    obs.step_count = args["stepCount"].as_i64()?;
                    Criterion::StepsLimit {
                        max: args["maxSteps"].as_i64()?,
                    }
                }
                "ToolCallPresenceCheck(agent)" => {
                    obs.has_tool_calls = args["hasToolCalls"].as_bool()?;
                    Criterion::ToolCallPresenceCheck
                }
                "ContinuationCriteria" => Criterion::All(build(args, obs)?),
                _ => return None,
            })
        })
        .collect()
}

//! state-model.json: AgentState/AgentStep/ToolExecution/Usage/finish reasons/roles/messages.
//! Each handler computes exactly the observation the vector records.

use stepline::json;
use stepline::json::Value;
use stepline::model::info::{StateInfo, StepInfo};
use stepline::model::message::{Content, Message, Messages};
use stepline::model::step::StepError;
use stepline::model::time::Timestamp;
use stepline::model::tool_call::ToolCall;
use stepline::model::{AgentState, AgentStep, FinishReason, Role, ToolExecution, Usage};

use crate::Outcome;

pub fn run(name: &str, input: &Value) -> Option<Outcome> {
    let now = now(input);
    let data = &input["data"];
    let out = if name.starts_with("AgentState roundtrip") {
        AgentState::from_value(data, &now).map(|s| s.to_value())
    } else if name.starts_with("AgentStep::fromArray") {
        AgentStep::from_value(data, "", &now).map(|s| step_observation(&s))
    } else if name.starts_with("AgentStep::failure") {
        let messages = crate::or_outcome!(Messages::from_value(
            &input["inputMessages"],
            "/inputMessages"
        ));
        let error = StepError {
            message: input["error"]["message"].as_str()?.into(),
            class: input["error"]["class"].as_str()?.into(),
        };
        Ok(step_observation(&AgentStep::failure(messages, error, &now)))
    } else if name.starts_with("AgentExecution::fromArray") {
        ToolExecution::from_value(data, "", &now).map(|e| {
            json!({
                "toArray": e.to_value(),
                "id": e.id,
                "hasError": e.has_error(),
                "errorMessage": e.error.clone().unwrap_or_default(),
                "value": e.result,
            })
        })
    } else if name.starts_with("Usage::fromArray") {
        Usage::from_value(data, "").map(|u| usage_observation(&u))
    } else if name.starts_with("Usage::withAccumulated") {
        let a = crate::or_outcome!(Usage::from_value(&input["a"], "/a"));
        let b = crate::or_outcome!(Usage::from_value(&input["b"], "/b"));
        a.with_accumulated(&b).map(|u| usage_observation(&u))
    } else if name.starts_with("Usage accumulate over a sequence") {
        let mut acc = Usage::default();
        let mut trace = Vec::new();
        for item in input["sequence"].as_array()? {
            match Usage::from_value(item, "").and_then(|u| acc.with_accumulated(&u)) {
                Ok(next) => acc = next,
                Err(e) => return Some(Err(e)),
            }
            trace.push(acc.to_value());
        }
        Ok(
            json!({"trace": trace, "total": acc.total(), "output": acc.output_total(), "cache": acc.cache_total()}),
        )
    } else if name.starts_with("InferenceFinishReason::fromText") {
        Ok(json!(
            FinishReason::from_text(input["text"].as_str()?).as_str()
        ))
    } else if name.starts_with("InferenceFinishReason::") && name.contains("->equals") {
        let reason = FinishReason::from_wire(input["reason"].as_str()?)?;
        Ok(json!(reason.equals(input["other"].as_str()?)))
    } else if name.starts_with("MessageRole::fromString") {
        let raw = input["role"].as_str()?;
        let role = Role::from_str_or_user(raw);
        Ok(json!({
            "role": role.as_str(),
            "tryFromString": Role::try_from_str(raw).map(Role::as_str),
            "isSystem": role.is_system(),
        }))
    } else if name.starts_with("Message::fromArray->toArray") {
        Message::from_value(&input["message"], "").map(|m| {
            json!({
                "toArray": m.to_value(),
                "isEmpty": m.is_empty(),
                "role": m.role().as_str(),
                "isComposite": m.content.is_composite(),
            })
        })
    } else if name.starts_with("Message constructor") {
        let message = Message {
            role: input["role"].as_str()?.into(),
            name: String::new(),
            content: crate::or_outcome!(Content::from_value(Some(&input["content"]), "")),
            metadata: input["metadata"].as_object().cloned().unwrap_or_default(),
            from_string_array: false,
        };
        Ok(json!({"toArray": message.to_value(), "isEmpty": message.is_empty()}))
    } else if name.starts_with("Messages::fromArray->toArray") {
        Messages::from_value(&input["messages"], "").map(|m| m.to_value())
    } else if name.starts_with("ToolCall::fromArray") {
        ToolCall::from_value(data, "").map(|call| match call {
            None => Value::Null,
            Some(c) => json!({"toArray": c.to_value(), "toToolCallArray": c.to_tool_call_array(), "toString": c.summary()}),
        })
    } else if name.starts_with("StateInfo::fromArray->toArray") {
        StateInfo::from_value(data, "", &now).map(|s| s.to_value())
    } else if name.starts_with("StepInfo::fromArray->toArray") {
        StepInfo::from_value(data, "", &now).map(|s| s.to_value())
    } else if name.starts_with("StateInfo addExecutionTime") {
        let mut info = StateInfo::new(&now);
        let mut seen = Vec::new();
        for seconds in input["additions"].as_array()? {
            info = info.add_execution_time(seconds.as_f64()?, &now);
            seen.push(json!(info.cumulative_execution_seconds));
        }
        Ok(Value::Array(seen))
    } else {
        return None;
    };
    Some(out)
}

fn now(input: &Value) -> Timestamp {
    let text = input["now"]
        .as_str()
        .unwrap_or("2026-01-20T12:00:00.250000+00:00");
    chrono::DateTime::parse_from_rfc3339(text).expect("vector `now` is RFC 3339")
}

fn step_observation(s: &AgentStep) -> Value {
    json!({
        "stepType": s.step_type.as_str(),
        "hasToolCalls": s.has_tool_calls(),
        "toolCalls": s.tool_calls.to_value(),
        "usage": s.usage.to_value(),
        "usageTotal": s.usage.total(),
        "finishReason": s.finish_reason().as_str(),
        "hasErrors": s.has_errors(),
        "errorCount": s.errors.len(),
        "errors": s.errors.iter().map(|e| json!({"message": e.message, "class": e.class})).collect::<Vec<_>>(),
        "errorsAsString": s.errors_as_string(),
        "toolExecutions": s.tool_executions.to_value(),
        "toolExecutionsHaveErrors": s.tool_executions.has_errors(),
        "inferenceResponseHasToolCalls": s.inference_response.has_tool_calls(),
        "toArray": s.to_value(),
    })
}

fn usage_observation(u: &Usage) -> Value {
    json!({
        "toArray": u.to_value(),
        "total": u.total(),
        "input": u.input,
        "output": u.output_total(),
        "cache": u.cache_total(),
        "toString": u.summary(),
    })
}

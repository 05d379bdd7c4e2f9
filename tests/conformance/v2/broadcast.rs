//! v2.7 continuation.json `f.` cases: the broadcaster's status mapping,
//! driven through stepline's encoder in the v2 dialect. Ops: `status`
//! (`onAgentStatusChanged`), `continuation` (`ContinuationEvaluated`),
//! `stopped` (`AgentExecutionStopped`), `failed` (`AgentExecutionFailed`), `reset`.

use stepline::envelope::config::Dialect;
use stepline::envelope::{Broadcast, BroadcastConfig, Encoder};
use stepline::json;
use stepline::json::Value;
use stepline::model::time::Timestamp;

use crate::Outcome;

pub fn run(input: &Value) -> Option<Outcome> {
    let now: Timestamp = chrono::DateTime::parse_from_rfc3339(input["now"].as_str()?).ok()?;
    let config = match input["config"].as_str()? {
        "minimal" => BroadcastConfig::minimal(),
        "standard" => BroadcastConfig::standard(),
        "debug" => BroadcastConfig::debug(),
        _ => return None,
    };
    let mut encoder = Encoder::new(
        input["sessionId"].as_str()?,
        input["executionId"].as_str()?,
        // `compat`: the producer's own broadcasts, without the seed adapter's
        // fields stepline adds by default (step_count); the cases' clock is UTC.
        BroadcastConfig {
            dialect: Dialect::V2,
            compat: chrono::FixedOffset::east_opt(0),
            ..config
        },
    );
    let mut out: Vec<Broadcast> = Vec::new();
    for op in input["ops"].as_array()? {
        let sent = match op["op"].as_str()? {
            "status" => encoder
                .set_status(
                    op["status"].as_str()?,
                    op["error"].as_str(),
                    op["lastResponse"].as_str(),
                    &now,
                )
                .map(|b| vec![b]),
            "continuation" => encoder.push(
                "ContinuationEvaluated",
                &json!({"stepNumber": op["step"].clone(), "executionState": op["executionState"].clone()}),
                &now,
            ),
            "stopped" => encoder.push(
                "AgentExecutionStopped",
                &json!({"stopReason": op["stopReason"].clone(), "stopMessage": op["stopMessage"].clone()}),
                &now,
            ),
            "failed" => encoder.push(
                "AgentExecutionFailed",
                &json!({"message": op["message"].clone()}),
                &now,
            ),
            "reset" => {
                encoder.reset(None);
                Ok(Vec::new())
            }
            _ => return None,
        };
        match sent {
            Ok(b) => out.extend(b),
            Err(e) => return Some(Err(e)),
        }
    }
    Some(Ok(Value::Array(
        out.iter().map(Broadcast::to_value).collect(),
    )))
}

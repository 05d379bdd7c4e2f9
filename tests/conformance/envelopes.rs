//! envelopes.json: the broadcast adapter, every config, checked twice: in
//! `compat` mode against the reference's envelopes as recorded, and with the
//! fixes (true UTC timestamps; truncation at character boundaries) against the
//! expectation adjusted accordingly.

use stepline::envelope::config::Dialect;
use stepline::envelope::{BroadcastConfig, Encoder};
use stepline::json::Value;
use stepline::model::time::{format_utc_millis, Timestamp};

use crate::compare::matches;

/// The offsets of the default timezones the vectors use, at the vectors' instant (January 2026).
fn offset_minutes(zone: Option<&str>) -> Option<i32> {
    match zone {
        None | Some("UTC") => Some(0),
        Some("Europe/Warsaw") => Some(60),
        Some("America/New_York") => Some(-300),
        Some("Asia/Kolkata") => Some(330),
        Some(_) => None,
    }
}

pub fn check(_name: &str, case: &Value) -> Option<Result<(), String>> {
    check_as(case, Dialect::V1_22, offset_minutes)
}

/// Runs an envelopes.json case through the encoder in `dialect`; `offsets`
/// gives the UTC offset (minutes) of the vector's PHP default timezone at the
/// vector's instant.
pub fn check_as(
    case: &Value,
    dialect: Dialect,
    offsets: fn(Option<&str>) -> Option<i32>,
) -> Option<Result<(), String>> {
    let input = &case["input"];
    let now: Timestamp = chrono::DateTime::parse_from_rfc3339(input["now"].as_str()?).ok()?;
    let base = BroadcastConfig {
        dialect,
        ..BroadcastConfig::from_reference(&input["config"])?
    };
    let offset =
        chrono::FixedOffset::east_opt(offsets(input["phpDefaultTimezone"].as_str())? * 60)?;
    let run = |config: BroadcastConfig| -> Result<Value, String> {
        let mut encoder = Encoder::new(
            input["sessionId"].as_str().unwrap_or(""),
            input["executionId"].as_str().unwrap_or(""),
            config,
        );
        let mut out = Vec::new();
        for op in input["ops"].as_array().into_iter().flatten() {
            if let Some(event) = op["event"].as_str() {
                let sent = encoder
                    .push(event, &op["args"], &now)
                    .map_err(|e| format!("unexpected error: {e}"))?;
                out.extend(sent.iter().map(|b| b.to_value()));
            } else if op["call"] == "reset" {
                encoder.reset(None);
            } else if op["call"] == "onAgentStatusChanged" {
                let a = &op["args"];
                let b = encoder.set_status(
                    a["status"].as_str().unwrap_or(""),
                    a["error"].as_str(),
                    a["lastResponse"].as_str(),
                    &now,
                );
                out.push(b.map_err(|e| e.to_string())?.to_value());
            } else {
                return Err(format!("unknown op {op}"));
            }
        }
        Ok(Value::Array(out))
    };
    let expected = &case["expected"];
    let outcome = (|| {
        let compat = run(BroadcastConfig {
            compat: Some(offset),
            ..base
        })?;
        matches(expected, &compat).map_err(|e| format!("compat mode: {e}"))?;
        let fixed = run(base)?;
        matches(
            &fixed_expectation(expected, case, &format_utc_millis(&now)),
            &fixed,
        )
        .map_err(|e| format!("fixed mode: {e}"))
    })();
    Some(outcome)
}

/// The reference's envelopes with the fixes: timestamps in true UTC, and cuts
/// that split a character moved back to the character boundary.
fn fixed_expectation(expected: &Value, case: &Value, utc: &str) -> Value {
    let mut fixed = expected.clone();
    for item in fixed.as_array_mut().into_iter().flatten() {
        if let Some(t) = item.pointer_mut("/envelope/timestamp") {
            *t = Value::from(utc);
        }
    }
    for entry in case["invalid_utf8"].as_array().into_iter().flatten() {
        let (Some(path), Some(hex)) = (entry["path"].as_str(), entry["hex"].as_str()) else {
            continue;
        };
        if let Some(slot) = fixed.pointer_mut(&crate::slim::pointer(path)) {
            *slot = Value::String(crate::slim::cut_at_boundary(&crate::slim::decode_hex(hex)));
        }
    }
    fixed
}

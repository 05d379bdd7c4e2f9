//! The v2 dialect of the envelope layer: every envelope the v2.7 producer
//! broadcast in the corpus decodes with no error and no warning; v2's
//! continuation payload (`{step_number, should_stop, stop_reason, resolved_by}`)
//! reads into the one continuation vocabulary; the encoder in the v2 dialect
//! keeps the 10 KB cap.

use stepline::envelope::cap::{encoded_len, DEFAULT_MAX_MESSAGE_BYTES};
use stepline::envelope::config::Dialect;
use stepline::envelope::decode::decode_value;
use stepline::envelope::{BroadcastConfig, Encoder};
use stepline::json::Value;
use stepline::ErrorCode;

mod common;
use common::{vectors_of, Corpus::V2_7};

/// Every `{channel, envelope}` the corpus records, with where it is.
fn every_v2_envelope() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut push = |name: String, list: &Value| {
        for (i, b) in list.as_array().into_iter().flatten().enumerate() {
            out.push((format!("{name} #{i}"), b["envelope"].clone()));
        }
    };
    for c in vectors_of(V2_7, "agent-runs.json") {
        for (t, turn) in c["expected"].as_array().unwrap().iter().enumerate() {
            push(format!("{} turn {t}", c["name"]), &turn["envelopes"]);
        }
    }
    for c in vectors_of(V2_7, "envelopes.json") {
        push(c["name"].to_string(), &c["expected"]);
    }
    for c in vectors_of(V2_7, "continuation.json") {
        if c["name"].as_str().unwrap().starts_with("f.") {
            push(c["name"].to_string(), &c["expected"]);
        }
    }
    out
}

#[test]
fn every_v2_envelope_decodes_without_error_or_warning() {
    let all = every_v2_envelope();
    assert!(all.len() > 400, "only {} envelopes", all.len());
    for (name, env) in all {
        let d = decode_value(&env).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(d.warnings.is_empty(), "{name}: {:?}", d.warnings);
    }
}

#[test]
fn a_v2_continuation_reads_as_should_continue_the_negation_of_should_stop() {
    let mut seen = [false, false];
    for (name, env) in every_v2_envelope() {
        if env["type"] != "agent.continuation" {
            continue;
        }
        let p = &decode_value(&env).unwrap().envelope["payload"];
        let stop = env["payload"]["should_stop"].as_bool().unwrap();
        assert_eq!(p["should_stop"], Value::Bool(stop), "{name}");
        assert_eq!(p["should_continue"], Value::Bool(!stop), "{name}");
        assert_eq!(p["stop_reason"], env["payload"]["stop_reason"], "{name}");
        assert_eq!(p["resolved_by"], env["payload"]["resolved_by"], "{name}");
        seen[usize::from(stop)] = true;
    }
    assert_eq!(
        seen,
        [true, true],
        "both a continuing and a stopping continuation"
    );
}

#[test]
fn a_continuation_with_neither_flag_is_a_missing_field() {
    let env = stepline::json::from_str(
        r#"{"type": "agent.continuation", "session_id": "s", "payload": {"step_number": 1, "stop_reason": null}}"#,
    )
    .unwrap();
    let err = decode_value(&env).unwrap_err();
    assert_eq!(err.code, ErrorCode::MissingField);
    assert_eq!(err.path.as_deref(), Some("/payload/should_continue"));
}

fn v2_encoder() -> Encoder {
    let options = stepline::json::from_str(r#"{"preset": "debug", "dialect": "v2"}"#).unwrap();
    let config = BroadcastConfig::from_options(options.as_object().unwrap(), "/options").unwrap();
    assert_eq!(config.dialect, Dialect::V2);
    Encoder::new("sess-1", "exec-1", config)
}

#[test]
fn the_v2_encoder_splits_a_long_delta_into_chunks_within_the_cap() {
    let mut enc = v2_encoder();
    let text = "żółw 🐢 ".repeat(4000); // ~48 KB, multibyte throughout
    let args = stepline::json::obj([("contentDelta", Value::from(text.as_str()))]);
    let sent = enc
        .push("PartialInferenceDeltaCreated", &args, &V2_7.now())
        .unwrap();
    assert!(sent.len() > 4, "{} chunks", sent.len());
    let mut joined = String::new();
    for (i, b) in sent.iter().enumerate() {
        assert!(encoded_len(&b.envelope) <= DEFAULT_MAX_MESSAGE_BYTES);
        assert_eq!(b.envelope["payload"]["chunk_index"], Value::from(i));
        joined.push_str(b.envelope["payload"]["content"].as_str().unwrap());
    }
    assert_eq!(joined, text);
}

#[test]
fn the_v2_encoder_shortens_a_huge_failure_message_within_the_cap() {
    let mut enc = v2_encoder();
    let message = "x".repeat(50_000);
    let args = stepline::json::obj([("message", Value::from(message.as_str()))]);
    let sent = enc
        .push("AgentExecutionFailed", &args, &V2_7.now())
        .unwrap();
    assert_eq!(sent.len(), 1);
    let env = &sent[0].envelope;
    assert!(encoded_len(env) <= DEFAULT_MAX_MESSAGE_BYTES);
    assert_eq!(env["payload"]["status"], "failed");
    assert_eq!(env["payload"]["truncated"], Value::Bool(true));
    decode_value(env).unwrap();
}

#[test]
fn an_unknown_dialect_is_refused_with_its_path() {
    let options = stepline::json::from_str(r#"{"dialect": "v3"}"#).unwrap();
    let err = BroadcastConfig::from_options(options.as_object().unwrap(), "/options").unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidValue);
    assert_eq!(err.path.as_deref(), Some("/options/dialect"));
}

/// v2's `AgentStepCompleted` computes `durationMs` from the step's
/// `startedAt` when none is given (`packages/agents/src/Events/AgentStepCompleted.php`
/// lines 34 and 50-53 at v2.7.0: the interval's seconds and fraction only, the
/// v1.22 quirk 4 rule; item 12 of the v2.7 vectors). The encoder measures it
/// too: the producer's reading in compat mode, the real interval otherwise.
#[test]
fn a_v2_step_completed_without_duration_is_measured_from_its_start() {
    let now = V2_7.now(); // 12:00:00.250
    let args = |started: &str| {
        stepline::json::obj([
            ("stepNumber", Value::from(1)),
            ("startedAt", Value::from(started)),
        ])
    };
    let duration = |compat: bool, started: &str| {
        let mut enc = v2_encoder();
        if compat {
            enc.config.compat = Some(chrono::FixedOffset::east_opt(0).unwrap());
        }
        let sent = enc
            .push("AgentStepCompleted", &args(started), &now)
            .unwrap();
        sent[0].envelope["payload"]["duration_ms"].clone()
    };
    // 1.2505 s before now: both modes agree, and the value is a float.
    assert_eq!(
        duration(true, "2026-08-10T11:59:58.999500+00:00"),
        Value::from(1250.5)
    );
    assert_eq!(
        duration(false, "2026-08-10T11:59:58.999500+00:00"),
        Value::from(1250.5)
    );
    // Two minutes more: the producer drops whole minutes, the fix does not.
    assert_eq!(
        duration(true, "2026-08-10T11:57:58.999500+00:00"),
        Value::from(1250.5)
    );
    assert_eq!(
        duration(false, "2026-08-10T11:57:58.999500+00:00"),
        Value::from(121_250.5)
    );
    // A given duration still wins.
    let mut enc = v2_encoder();
    let mut given = args("2026-08-10T11:57:58.999500+00:00");
    given
        .as_object_mut()
        .unwrap()
        .insert("durationMs", Value::from(7.5));
    let sent = enc.push("AgentStepCompleted", &given, &now).unwrap();
    assert_eq!(sent[0].envelope["payload"]["duration_ms"], Value::from(7.5));
    // An unreadable start is refused with its path, not read as 0.
    let mut enc = v2_encoder();
    let err = enc
        .push("AgentStepCompleted", &args("yesterday-ish"), &now)
        .unwrap_err();
    assert_eq!(err.path.as_deref(), Some("/args/startedAt"));
}

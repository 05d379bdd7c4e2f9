//! What each fuzz target checks, as plain functions over the input bytes.
//!
//! Shared by the libFuzzer targets (`fuzz/fuzz_targets/*.rs`, through
//! `stepline_fuzz::checks`) and by the regression test
//! (`tests/fuzz_regressions.rs`, through `#[path]`), so a committed seed is
//! replayed through exactly the code that found it. Only `stepline`,
//! `chrono` and `serde_json` are used here: the main package has them (serde_json
//! as a native dev-dependency, with the same features).
//!
//! Every check panics (with a message) on a broken invariant; a typed
//! `SteplineError` is never a failure.

#![allow(dead_code)]

use stepline::envelope::decode::{decode_lines, decode_text, decode_value, ENVELOPE_LIMITS};
use stepline::error::SteplineError;
use stepline::json::{parse_bytes, Limits};
use stepline::json::{Map, Value};
use stepline::model::time::Timestamp;
use stepline::model::view::agent_state_view;
use stepline::model::AgentState;
use stepline::session::recording::Recording;
use stepline::session::runlog::RunLog;
use stepline::session::Session;
use stepline::snapshot::budget::slim_within;
use stepline::snapshot::restore::restore;
use stepline::snapshot::serialize::{continuation_form, slim, slim_state};
use stepline::snapshot::source::SlimSource;
use stepline::snapshot::SlimConfig;
use stepline::state_formats::validate_snapshot as validate;

/// The fixed `now` every check uses.
pub fn now() -> Timestamp {
    chrono::DateTime::parse_from_rfc3339("2026-01-20T12:00:00.250+00:00").expect("valid now")
}

/// A typed error is fine; it must still be well formed.
pub fn check_error(e: &SteplineError) {
    if let Some(p) = &e.path {
        assert!(p.is_empty() || p.starts_with('/'), "bad error path {p:?}");
    }
    assert!(
        !e.message.is_empty(),
        "empty error message for {:?}",
        e.code
    );
}

fn check_pointer(p: &str) {
    assert!(p.is_empty() || p.starts_with('/'), "bad pointer {p:?}");
}

// ---- envelope_decode ---------------------------------------------------------

/// One envelope from bytes: decoding never panics; success is a normalised
/// envelope object, failure a typed error with a JSON-pointer path; decoding
/// the text and ingesting it into a session agree.
pub fn envelope_decode(data: &[u8]) {
    let parsed = parse_bytes(data, &ENVELOPE_LIMITS);
    let Ok(text) = std::str::from_utf8(data) else {
        let e = parsed.expect_err("invalid UTF-8 must not parse");
        check_error(&e);
        return;
    };
    // The hand-written date parser sees every short text too.
    if text.len() <= 64 {
        let _ = stepline::model::time::parse(text, &now());
        let _ = stepline::model::time::is_rfc3339(text);
    }
    let decoded = decode_text(text);
    match &decoded {
        Ok(d) => {
            let env = d.envelope.as_object().expect("envelope is an object");
            assert!(env.get("type").is_some_and(Value::is_string), "type kept");
            assert!(
                env.get("payload").is_some_and(Value::is_object),
                "payload object"
            );
            for k in ["session_id", "execution_id", "timestamp"] {
                let v = env.get(k).expect("normalised key present");
                assert!(v.is_null() || v.is_string(), "{k} is a string or null");
            }
            for w in &d.warnings {
                check_pointer(&w.path);
                let _ = w.to_value();
            }
            stepline::json::to_string(&d.envelope);
        }
        Err(e) => check_error(e),
    }
    // Value path and text path agree.
    if let Ok(v) = &parsed {
        assert_eq!(
            decode_value(v).map(|d| d.envelope),
            decoded.clone().map(|d| d.envelope)
        );
    }
    let mut s = Session::new(None);
    match s.ingest_text(text) {
        Ok(o) => {
            assert!(decoded.is_ok(), "ingest accepted what decode refused");
            assert!(o.applied || o.duplicate || o.rejected.is_some());
            let _ = s.view();
            let _ = s.collect();
        }
        Err(e) => {
            check_error(&e);
            assert!(decoded.is_err(), "ingest refused what decode accepted: {e}");
        }
    }
}

// ---- jsonl_batch -------------------------------------------------------------

/// A JSONL batch: every non-blank line is either decoded or reported by its
/// number; a session, a run log and the recording reader take the same text
/// without panicking; a run log saves and loads back to the same summary.
pub fn jsonl_batch(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();
    let (ok, errors) = decode_lines(text);
    // A leading byte order mark is not part of the first line.
    let lines: Vec<usize> = text
        .strip_prefix('\u{feff}')
        .unwrap_or(text)
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(
        ok.len() as u64 + errors.count,
        lines.len() as u64,
        "every line accounted for"
    );
    assert_eq!(
        errors.len() as u64,
        errors.count.min(stepline::error::LineErrors::LISTED as u64),
        "the first errors listed, all counted"
    );
    for w in errors.windows(2) {
        assert!(w[0].0 < w[1].0, "error lines ascend");
    }
    for (n, e) in &errors {
        assert!(lines.contains(n), "error on a real line");
        check_error(e);
    }

    let mut s = Session::new(None);
    let out = s.ingest_jsonl(text);
    let error_lines: Vec<usize> = out.errors.iter().map(|(n, _)| *n).collect();
    let decode_error_lines: Vec<usize> = errors.iter().map(|(n, _)| *n).collect();
    assert_eq!(error_lines, decode_error_lines, "session and decoder agree");
    assert_eq!(out.errors.count, errors.count);
    assert_eq!(
        out.applied + out.duplicates + out.rejected,
        ok.len() as u64,
        "every decoded line counted once"
    );
    let _ = stepline::json::to_text(&out.view());
    let _ = s.view();
    let _ = s.collect();
    recording_round_trip(&s);

    let mut log = RunLog::new();
    let batch = log.ingest_jsonl(text);
    let _ = stepline::json::to_text(&batch.view());
    let summary = log.summary();
    let saved = log.save();
    let back = RunLog::load(&saved).unwrap_or_else(|e| panic!("saved run log reloads: {e}"));
    assert_eq!(
        back.summary(),
        summary,
        "run log save/load keeps the summary"
    );

    if let Ok(rec) = Recording::parse(text) {
        let _ = rec.to_jsonl();
    }
    if let Ok((s, snapshots)) = Session::from_recording(text) {
        let _ = s.view();
        for snap in snapshots.iter().take(4) {
            let _ = s.reconcile(snap).to_value(&s);
        }
    }
    if let Ok(log) = RunLog::load(text) {
        let _ = log.summary();
    }
}

/// The view a recording must rebuild: everything but what is not recorded
/// (counters and other sessions' rejected envelopes).
pub fn replayable_view(s: &Session) -> Value {
    let mut v = s.view();
    if let Some(m) = v.as_object_mut() {
        m.remove("counts");
        m.remove("rejected_sessions");
    }
    v
}

/// `to_recording` → `from_recording` rebuilds the view, and doing it again
/// changes nothing.
pub fn recording_round_trip(s: &Session) {
    let text = s.to_recording();
    let (back, snapshots) = Session::from_recording(&text)
        .unwrap_or_else(|e| panic!("a session's own recording replays: {e}\n{text}"));
    assert!(snapshots.is_empty());
    assert_eq!(
        replayable_view(&back),
        replayable_view(s),
        "recording replays to the same view"
    );
    let again = back.to_recording();
    let (twice, _) = Session::from_recording(&again)
        .unwrap_or_else(|e| panic!("a replayed session's recording replays: {e}\n{again}"));
    assert_eq!(
        replayable_view(&twice),
        replayable_view(s),
        "second replay, same view"
    );
}

// ---- snapshot_validate -------------------------------------------------------

/// Untrusted snapshot: validation reports (never panics), every issue has a
/// pointer path; restore never panics, and a snapshot that validates restores.
pub fn snapshot_validate(data: &[u8]) {
    let value = match parse_bytes(data, &Limits::default()) {
        Ok(v) => v,
        Err(e) => return check_error(&e),
    };
    let report = validate(&value);
    for issue in report.errors.iter().chain(&report.warnings) {
        check_pointer(&issue.path);
    }
    let _ = stepline::json::to_text(&report.view());
    match restore(&value, &now()) {
        Ok(state) => {
            let _ = agent_state_view(&state);
            let _ = state.to_value();
        }
        Err(e) => {
            check_error(&e);
            assert!(
                !report.valid(),
                "a snapshot that validates must restore, got {e}"
            );
        }
    }
    let empty = Session::new(None);
    let _ = empty.reconcile(&value).to_value(&empty);
}

// ---- state_parse -------------------------------------------------------------

/// `parseAgentState`'s native path: parse, the JS view, and the reference's
/// `toArray`, which reads back to the same value.
pub fn state_parse(data: &[u8]) {
    let value = match parse_bytes(data, &Limits::default()) {
        Ok(v) => v,
        Err(e) => return check_error(&e),
    };
    let now = now();
    let state = match AgentState::from_value(&value, &now) {
        Ok(s) => s,
        Err(e) => return check_error(&e),
    };
    let _ = agent_state_view(&state);
    let written = state.to_value();
    let back = match AgentState::from_value(&written, &now) {
        Ok(back) => back,
        // The reference's own quirk: a message role of "0" is kept, and
        // `toArray`'s array_filter drops it as falsy; the message without a
        // role does not read back (`Message::isMessage` needs one), there
        // as here.
        Err(e)
            if has_role_zero(&value)
                && e.code == stepline::ErrorCode::MissingField
                && e.path.as_deref().is_some_and(|p| p.ends_with("/role")) =>
        {
            return;
        }
        Err(e) => panic!("toArray output reads back: {e}\n{written}"),
    };
    let again = back.to_value();
    assert_eq!(again, written, "toArray is stable through a read");
}

/// Whether some object in `v` has `"role": "0"`.
fn has_role_zero(v: &Value) -> bool {
    match v {
        Value::Object(m) => {
            m.get("role").and_then(Value::as_str) == Some("0") || m.values().any(has_role_zero)
        }
        Value::Array(items) => items.iter().any(has_role_zero),
        _ => false,
    }
}

// ---- slim_serialize ----------------------------------------------------------

/// Input: a first line of slim options (`{"preset":…,"maxBytes":…}`, anything
/// else means the defaults), then the state's JSON text.
pub fn split_options(data: &[u8]) -> (Map, &[u8]) {
    let (head, rest) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&[][..], data),
    };
    let opts = std::str::from_utf8(head)
        .ok()
        .and_then(|h| stepline::json::from_str(h).ok())
        .and_then(|v| v.as_object().cloned())
        .unwrap_or_default();
    (opts, rest)
}

/// State text → slim: the snapshot validates against the slim schema and
/// restores; reading selectively from the document gives the same snapshot
/// as reading the whole state; a byte budget is respected or refused with
/// `too_large`; the reported size is the compact encoding's.
///
///
/// Negative token counts (`usage.cacheRead: -1`, which the reference reads
/// and keeps) once failed this check; they are now valid with a warning, so
/// no error is allowed for.
pub fn slim_serialize(data: &[u8]) {
    slim_serialize_with(data)
}

/// The validation errors of our own snapshot.
fn own_errors(snapshot: &Value) -> Vec<stepline::snapshot::validate::Issue> {
    validate(snapshot).errors
}

fn slim_serialize_with(data: &[u8]) {
    let (opts, text) = split_options(data);
    let (config, max_bytes) = match SlimConfig::from_options(&opts, "/options") {
        Ok(c) => c,
        Err(e) => {
            check_error(&e);
            (SlimConfig::standard(), None)
        }
    };
    let value = match parse_bytes(text, &Limits::default()) {
        Ok(v) => v,
        Err(e) => return check_error(&e),
    };
    let now = now();
    let from_doc = SlimSource::from_doc(&&value, &config, &now);
    let state = AgentState::from_value(&value, &now);
    if let Ok(state) = &state {
        let snapshot = slim_state(state, &config);
        let errors = own_errors(&snapshot);
        assert!(
            errors.is_empty(),
            "own snapshot validates: {errors:?}\n{snapshot}"
        );
        let restored = restore(&snapshot, &now)
            .unwrap_or_else(|e| panic!("own snapshot restores: {e}\n{snapshot}"));
        let _ = slim_state(&restored, &config);
        let _ = continuation_form(state, &config);
        match &from_doc {
            Ok(source) => {
                // A missing agent id is generated afresh by each reading.
                let generated = value.get("agentId").is_none_or(Value::is_null);
                let strip = |mut v: Value| {
                    if generated {
                        v.as_object_mut().map(|m| m.remove("agent_id"));
                    }
                    v
                };
                assert_eq!(
                    strip(slim(source, &config)),
                    strip(snapshot),
                    "from_doc = from_state"
                );
            }
            // The producer's redaction `TypeError` (a tool call that is not
            // an array): the state's own source is refused the same way.
            Err(e) => {
                let state_source = SlimSource::from_state(state, &config);
                let also = slim_within(&state_source, &config, None);
                assert!(
                    config.redact_tool_args
                        && e.code == stepline::ErrorCode::InvalidType
                        && also.is_err_and(|f| f.code == e.code),
                    "the document failed where the state parsed: {e}"
                );
            }
        }
    }
    let source = match from_doc {
        Ok(s) => s,
        Err(e) => return check_error(&e),
    };
    match slim_within(&source, &config, max_bytes) {
        Ok(f) => {
            let text = stepline::json::to_string(&f.snapshot);
            assert_eq!(f.bytes, text.len(), "bytes is the compact size");
            if let Some(b) = max_bytes {
                assert!(f.bytes <= b, "within maxBytes {b}: {}", f.bytes);
            } else {
                assert!(f.truncation.is_none());
            }
            if state.is_ok() {
                let errors = own_errors(&f.snapshot);
                assert!(errors.is_empty(), "fitted snapshot validates: {errors:?}");
            }
        }
        Err(e) => {
            check_error(&e);
            assert!(max_bytes.is_some(), "only a budget can fail: {e}");
        }
    }
}

// ---- session_ingest ----------------------------------------------------------

/// A session script: what the `session_ingest` target builds from its
/// structured input, and what its regression seeds store as JSON:
/// `{"session_id": null | "…", "ops": [op, …]}` with each op one of
/// `{"value": envelope}`, `{"text": "…"}`, `{"jsonl": "…"}`,
/// `{"redeliver": n}` (the n-th ingested envelope again), `{"patch": true}`,
/// `{"reconcile": snapshot}`.
pub fn session_script(script: &Value) {
    let session_id = script
        .get("session_id")
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut s = Session::new(session_id);
    let mut mirror = Value::Null;
    let mut sent: Vec<Value> = Vec::new();
    let mut ok_ingests = 0u64;
    let ops = script
        .get("ops")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for op in &ops {
        if let Some(v) = op.get("value") {
            match s.ingest_value(v) {
                Ok(o) => {
                    ok_ingests += 1;
                    one_outcome(&o);
                    sent.push(v.clone());
                    ok_ingests += redelivery_is_duplicate(&mut s, v, &o);
                }
                Err(e) => check_error(&e),
            }
        } else if let Some(t) = op.get("text").and_then(Value::as_str) {
            match s.ingest_text(t) {
                Ok(o) => {
                    ok_ingests += 1;
                    one_outcome(&o);
                }
                Err(e) => check_error(&e),
            }
        } else if let Some(t) = op.get("jsonl").and_then(Value::as_str) {
            let out = s.ingest_jsonl(t);
            ok_ingests += out.applied + out.duplicates + out.rejected;
            for (_, e) in &out.errors {
                check_error(e);
            }
        } else if let Some(n) = op.get("redeliver").and_then(Value::as_u64) {
            if !sent.is_empty() {
                let v = sent[n as usize % sent.len()].clone();
                let o = s
                    .ingest_value(&v)
                    .expect("an envelope that decoded once decodes again");
                ok_ingests += 1;
                one_outcome(&o);
            }
        } else if op.get("patch").is_some() {
            let patch = take_patch(&mut s);
            apply_patch(&mut mirror, &patch);
            assert_eq!(mirror, s.view(), "patches rebuild the view\npatch: {patch}");
        } else if let Some(snap) = op.get("reconcile") {
            let r = s.reconcile(snap);
            for d in &r.differences {
                check_pointer(&d.path);
            }
            let _ = r.to_value(&s);
        }
    }
    let c = s.counts();
    assert_eq!(
        c.applied + c.duplicates + c.rejected,
        ok_ingests,
        "counts add up"
    );
    let _ = s.view();
    let _ = s.collect();
    let patch = take_patch(&mut s);
    apply_patch(&mut mirror, &patch);
    assert_eq!(mirror, s.view(), "patches rebuild the view\npatch: {patch}");
    recording_round_trip(&s);
}

fn one_outcome(o: &stepline::session::IngestOutcome) {
    let n = u8::from(o.applied) + u8::from(o.duplicate) + u8::from(o.rejected.is_some());
    assert_eq!(n, 1, "exactly one of applied/duplicate/rejected: {o:?}");
    for w in &o.warnings {
        check_pointer(&w.path);
    }
}

/// Envelopes the wire gives an identity (everything but unindexed chunks
/// and deltas) are duplicates when delivered again at once. Returns how many
/// ingests it made (0 or 1).
fn redelivery_is_duplicate(
    s: &mut Session,
    v: &Value,
    first: &stepline::session::IngestOutcome,
) -> u64 {
    if !first.applied {
        return 0;
    }
    let Ok(d) = decode_value(v) else { return 0 };
    let kind = d.envelope["type"].as_str().unwrap_or_default();
    let payload = &d.envelope["payload"];
    let unindexed = match kind {
        "agent.stream.chunk" => payload.get("chunk_index").is_none(),
        "agent.llm.output_text.delta" | "agent.tool.output" => true,
        _ => false,
    };
    if unindexed {
        return 0;
    }
    let view = replayable_view(s);
    let o = s.ingest_value(v).expect("decodes again");
    assert!(o.duplicate, "an immediate redelivery is a duplicate: {v}");
    assert_eq!(
        replayable_view(s),
        view,
        "a duplicate changes nothing but the counter"
    );
    1
}

/// The session's next patch, which must be JSON text.
pub fn take_patch(s: &mut Session) -> Value {
    let text = s.take_patch();
    stepline::json::from_str(&text)
        .unwrap_or_else(|e| panic!("the patch is not JSON ({e}): {text}"))
}

/// What the JavaScript `Session` does with a patch (`pkg-template/view.js`),
/// on plain values. The patch is `[session, warnings,
/// ...executions]`, each execution `[index, header, steps, text, replaced]`
/// (see `Session::take_patch`); objects carry only the fields that changed,
/// on top of the previous ones.
pub fn apply_patch(view: &mut Value, patch: &Value) {
    let parts = patch.as_array().expect("a patch is an array");
    let mut next = view.as_object().cloned().unwrap_or_default();
    for (k, v) in parts[0].as_object().into_iter().flatten() {
        next.insert(k.clone(), v.clone());
    }
    let mut warnings = view
        .get("warnings")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    warnings.extend(parts[1].as_array().cloned().unwrap_or_default());
    let mut execs = view
        .get("executions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for change in &parts[2..] {
        let index = change[0].as_u64().expect("index") as usize;
        if execs.len() <= index {
            execs.resize(index + 1, Value::Null);
        }
        let old = execs[index].clone();
        let mut exec = old.as_object().cloned().unwrap_or_default();
        for (k, v) in change[1].as_object().into_iter().flatten() {
            exec.insert(k.clone(), v.clone());
        }
        let mut steps = old["steps"].as_array().cloned().unwrap_or_default();
        // Each `[number, fields, text, reasoning]`: the fields on top of the
        // step as it was, its texts appended to (or replaced by `[whole]`).
        for change in change[2].as_array().into_iter().flatten() {
            let n = change[0].as_i64();
            let at = steps.iter().position(|s| s["number"].as_i64() >= n);
            let was = at
                .filter(|&i| steps[i]["number"].as_i64() == n)
                .map(|i| steps[i].clone());
            let mut step = was
                .as_ref()
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            for (k, v) in change[1].as_object().into_iter().flatten() {
                step.insert(k.clone(), v.clone());
            }
            for (k, part) in [("text", &change[2]), ("reasoning", &change[3])] {
                let now = match (part.as_str(), part.as_array()) {
                    (Some(tail), _) => format!(
                        "{}{tail}",
                        step.get(k).and_then(Value::as_str).unwrap_or("")
                    ),
                    (None, Some(whole)) => whole[0].as_str().expect("a whole text").to_string(),
                    _ => continue,
                };
                step.insert(k, Value::from(now));
            }
            let step = Value::Object(step);
            match (at, was.is_some()) {
                (Some(i), true) => steps[i] = step,
                (Some(i), false) => steps.insert(i, step),
                (None, _) => steps.push(step),
            }
        }
        exec.insert("steps", Value::Array(steps));
        let text = match (change[3].as_str(), change[4].as_bool()) {
            (None, _) => old["text"].as_str().unwrap_or("").to_string(),
            (Some(all), Some(true)) => all.to_string(),
            (Some(tail), _) => format!("{}{tail}", old["text"].as_str().unwrap_or("")),
        };
        exec.insert("text", Value::from(text));
        execs[index] = Value::Object(exec);
    }
    next.insert("warnings", Value::Array(warnings));
    next.insert("executions", Value::Array(execs));
    *view = Value::Object(next);
}

// ---- json_differential -------------------------------------------------------

/// The core's hand-written JSON parser and writers against serde_json on the
/// same bytes: both accept or both refuse (no documented exception: the
/// nesting limits agree, lone surrogate escapes are refused by both, invalid
/// UTF-8 too); what both accept, the core writes back byte for byte as
/// serde_json does; what the core writes, serde_json reads back to the same
/// value (PHP's `json_encode` form too, up to PHP's arrays: an empty or
/// `"0".."n-1"` object is a list). Then the bytes cut into keys (any UTF-8:
/// quotes, backslashes, controls, long keys; duplicates) and values, as an
/// object written by both writers and read back by serde_json.
pub fn json_differential(data: &[u8]) {
    let reference = serde_json::from_slice::<serde_json::Value>(data);
    let ours = std::str::from_utf8(data)
        .map_err(|_| ())
        .and_then(|text| stepline::json::from_str(text).map_err(|_| ()));
    match (&ours, &reference) {
        (Ok(v), Ok(r)) => {
            let written = stepline::json::to_string(v);
            assert_eq!(
                written,
                serde_json::to_string(r).expect("serde_json writes its value"),
                "the core writes what serde_json writes, for {:?}",
                String::from_utf8_lossy(data)
            );
            written_reads_back(v);
        }
        (Err(()), Err(_)) => {}
        (Ok(_), Err(e)) => panic!(
            "the core accepts what serde_json refuses ({e}): {:?}",
            String::from_utf8_lossy(data)
        ),
        (Err(()), Ok(_)) => panic!(
            "the core refuses what serde_json accepts: {:?}",
            String::from_utf8_lossy(data)
        ),
    }
    written_reads_back(&keyed_object(data));
}

/// An object from the input: its lossy text cut at every `\x00` and `=` into
/// keys and values, any key at all; a value that reads as JSON (by the core)
/// is kept as that value, otherwise as the string.
fn keyed_object(data: &[u8]) -> Value {
    let text = String::from_utf8_lossy(data);
    let mut pieces = text.split(['\u{0}', '=']);
    let mut m = Map::new();
    while let Some(key) = pieces.next() {
        let raw = pieces.next().unwrap_or_default();
        let value = stepline::json::from_str(raw).unwrap_or_else(|_| Value::from(raw));
        m.insert(key.to_string(), value);
    }
    Value::Object(m)
}

/// The core's writers, read back by serde_json.
fn written_reads_back(v: &Value) {
    let written = stepline::json::to_string(v);
    let read: serde_json::Value = serde_json::from_str(&written)
        .unwrap_or_else(|e| panic!("serde_json refuses the core's {written:?}: {e}"));
    assert_eq!(
        serde_json::to_string(&read).expect("serde_json writes its value"),
        written,
        "serde_json reads the core's text back to another value"
    );
    let php = stepline::php::json_encode(v);
    assert!(
        php.is_ascii(),
        "json_encode escapes every non-ASCII char: {php:?}"
    );
    let read_php: serde_json::Value = serde_json::from_str(&php)
        .unwrap_or_else(|e| panic!("serde_json refuses json_encode's {php:?}: {e}"));
    assert!(
        same_as_php_reads(&read, &read_php),
        "json_encode {php:?} reads back as another value than {written:?}"
    );
}

/// Whether `php` (json_encode's output, read) is `v` as PHP arrays write it:
/// an empty object or one keyed `"0".."n-1"` in order is a list; a float is
/// the same float (json_encode writes integral ones with `.0`).
fn same_as_php_reads(v: &serde_json::Value, php: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match (v, php) {
        (J::Object(m), J::Array(a)) => {
            m.len() == a.len()
                && m.iter()
                    .zip(a)
                    .enumerate()
                    .all(|(i, ((k, x), y))| *k == i.to_string() && same_as_php_reads(x, y))
        }
        (J::Object(m), J::Object(p)) => {
            !m.is_empty()
                && m.len() == p.len()
                && m.iter()
                    .zip(p)
                    .all(|((k, x), (pk, y))| k == pk && same_as_php_reads(x, y))
        }
        (J::Array(a), J::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_as_php_reads(x, y))
        }
        (J::Number(a), J::Number(b)) if a.is_f64() => b.as_f64() == a.as_f64(),
        _ => v == php,
    }
}

// ---- dialect_laravel_ai, dialect_ag_ui, dialect_ai_sdk -----------------------

/// The lines of `text` a dialect target feeds: blank lines, lines of JSON
/// another dialect (or instructor-php) would take, and lines the batch reader
/// would take for a JSON array or a byte order mark are left out, so every
/// line kept is an event of `dialect` or bad input.
fn dialect_lines<'a>(text: &'a str, dialect: &str) -> Vec<&'a str> {
    let dialects = stepline::dialects::Dialects::built_in();
    text.lines()
        .filter(|l| {
            let t = l.trim();
            if t.is_empty() || t.starts_with('[') || t.starts_with('\u{feff}') {
                return false;
            }
            match stepline::json::from_str(t) {
                Ok(v) => dialects.claim(&v).is_some_and(|d| d.name() == dialect),
                Err(_) => true,
            }
        })
        .collect()
}

/// JSONL events of one foreign dialect through the session: never a panic;
/// every refused line is a typed error with a pointer path; the counts add
/// up; the recording replays to the same view; event by event gives the
/// batch's view, counts and refused lines (when no line repeats: a batch
/// counts a repeat as a second occurrence, a second delivery as a redelivery).
pub fn dialect_events(data: &[u8], dialect: &str) {
    let text = String::from_utf8_lossy(data);
    let lines = dialect_lines(&text, dialect);
    let joined = lines.join("\n");

    let mut batch = Session::new(None);
    let out = batch.ingest_jsonl(&joined);
    for (n, e) in &out.errors {
        assert!(*n >= 1 && *n <= lines.len(), "error on a real line");
        check_error(e);
    }
    for (_, w) in &out.warnings {
        check_pointer(&w.path);
    }
    assert_eq!(
        out.applied + out.duplicates + out.rejected + out.errors.count,
        lines.len() as u64,
        "every line counted once"
    );
    let c = batch.counts();
    assert_eq!(
        c.applied + c.duplicates + c.rejected,
        out.applied + out.duplicates + out.rejected,
        "the session's counts are the batch's"
    );
    let _ = stepline::json::to_text(&out.view());
    let _ = batch.collect();
    recording_round_trip(&batch);

    let mut single = Session::new(None);
    let mut refused = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        match single.ingest_text(line) {
            Ok(o) => one_outcome(&o),
            Err(e) => {
                check_error(&e);
                refused.push(i + 1);
            }
        }
    }
    recording_round_trip(&single);
    let distinct: std::collections::HashSet<&str> = lines.iter().map(|l| l.trim()).collect();
    if distinct.len() == lines.len()
        && out.errors.count <= stepline::error::LineErrors::LISTED as u64
    {
        let batch_refused: Vec<usize> = out.errors.iter().map(|(n, _)| *n).collect();
        assert_eq!(refused, batch_refused, "the same lines are refused");
        assert_eq!(
            single.view(),
            batch.view(),
            "event by event and batch give the same view"
        );
    }
}

pub fn dialect_laravel_ai(data: &[u8]) {
    dialect_events(data, "laravel-ai")
}

pub fn dialect_ag_ui(data: &[u8]) {
    dialect_events(data, "ag-ui")
}

pub fn dialect_ai_sdk(data: &[u8]) {
    dialect_events(data, "ai-sdk")
}

// ---- json_patch --------------------------------------------------------------

/// The state's value in an AG-UI session's view (`None` when not shown).
fn shown_state(s: &Session) -> Option<Value> {
    s.view()
        .get("executions")?
        .as_array()?
        .first()?
        .get("data")?
        .get("state")
        .cloned()
}

/// Input: JSON lines, the first a document, the rest RFC 6902 patches (the
/// lines that are not JSON are skipped). In place against a small limit:
/// a failing patch leaves the document as it was, the size held is the
/// document's and never past the limit, success is what the copying
/// `apply` gives. Then as AG-UI `STATE_SNAPSHOT` + `STATE_DELTA` events in one
/// run: the view's state is the mirror's (a failed or over-limit delta
/// changes nothing), and the session still takes a message and the run's end.
pub fn json_patch(data: &[u8]) {
    use stepline::dialects::ag_ui::STATE_LIMIT;
    use stepline::json::patch::{apply, apply_in_place, size, PatchFailure};
    let text = String::from_utf8_lossy(data);
    let mut values = text
        .lines()
        .filter_map(|l| stepline::json::from_str(l).ok());
    let Some(doc) = values.next() else { return };
    let patches: Vec<Value> = values.take(32).collect();

    let limit = 2 * size(&doc) + 64 + data.len() % 512;
    let mut held = size(&doc);
    let mut cur = doc.clone();
    for p in &patches {
        let before = cur.clone();
        let copied = apply(&cur, p, "/delta");
        match apply_in_place(&mut cur, p, "/delta", &mut held, limit) {
            Ok(()) => {
                let copied = copied.unwrap_or_else(|e| {
                    panic!("in place applied what apply refused: {}", e.error())
                });
                assert_eq!(cur, copied, "in place = copied");
                assert!(held <= limit, "size {held} within the limit {limit}");
            }
            Err(f) => {
                check_error(f.error());
                assert_eq!(cur, before, "a failing patch leaves the document as it was");
                match (&f, &copied) {
                    (PatchFailure::LimitExceeded(_), _) => {}
                    (_, Ok(_)) => panic!("apply applied what in place refused: {}", f.error()),
                    (PatchFailure::Malformed(_), Err(c)) => {
                        assert!(matches!(c, PatchFailure::Malformed(_)), "same failure")
                    }
                    (PatchFailure::NotApplicable(_), Err(c)) => {
                        assert!(!matches!(c, PatchFailure::Malformed(_)), "same failure")
                    }
                }
            }
        }
        assert_eq!(held, size(&cur), "the size held is the document's");
    }

    let event = |v: Value| stepline::json::to_string(&v);
    let mut s = Session::new(None);
    let start = stepline::json::from_str(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#)
        .expect("JSON");
    s.ingest_text(&event(start)).expect("RUN_STARTED");
    let mut snap = Map::new();
    snap.insert("type", Value::from("STATE_SNAPSHOT"));
    snap.insert("snapshot", doc.clone());
    let mut mirror: Option<Value> = None;
    let mut suspended = false;
    match s.ingest_text(&event(Value::Object(snap))) {
        Ok(o) => {
            one_outcome(&o);
            if size(&doc) > STATE_LIMIT {
                suspended = true;
            } else {
                mirror = Some(doc.clone());
            }
        }
        Err(e) => check_error(&e),
    }
    let mut mirror_size = mirror.as_ref().map_or(1, size);
    for p in &patches {
        let mut delta = Map::new();
        delta.insert("type", Value::from("STATE_DELTA"));
        delta.insert("delta", p.clone());
        let shown = shown_state(&s);
        match s.ingest_text(&event(Value::Object(delta))) {
            Ok(o) => one_outcome(&o),
            Err(e) => {
                check_error(&e);
                assert_eq!(shown_state(&s), shown, "a refused delta changes nothing");
            }
        }
        if suspended {
            continue;
        }
        let state = mirror.get_or_insert_with(|| {
            mirror_size = 1;
            Value::Object(Map::new())
        });
        if let Err(PatchFailure::LimitExceeded(_)) =
            apply_in_place(state, p, "/delta", &mut mirror_size, STATE_LIMIT)
        {
            suspended = true;
        }
        assert!(mirror_size <= STATE_LIMIT);
    }
    if let Some(m) = &mirror {
        assert_eq!(
            shown_state(&s).as_ref(),
            Some(m),
            "the view's state is the mirror's"
        );
    }
    for line in [
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m-after","role":"assistant"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-after","delta":"still here"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m-after"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
    ] {
        let o = s
            .ingest_text(line)
            .unwrap_or_else(|e| panic!("the session takes {line} after the deltas: {e}"));
        one_outcome(&o);
    }
    let view = s.view();
    assert_eq!(view["executions"][0]["status"], Value::from("completed"));
    recording_round_trip(&s);
}

// ---- state_v2 ----------------------------------------------------------------

/// A stored state of either version as `parseAgentState` reads it: the
/// version is recognised from the keys, and the reader of that version
/// accepts exactly what `state_formats::read` accepts. A v2 state: the JS view;
/// its stored `toArray` reads back to the same value; the reference form
/// reads back; its slim snapshot validates, restores (`restore_v2`, as an
/// execution-less state), is what `state_formats::slim` gives, and keeps its budget;
/// the v1.22 snapshot reader refuses the v2 snapshot or the version check
/// flags it.
pub fn state_v2(data: &[u8]) {
    use stepline::model::v2::{AgentState as V2State, Form};
    use stepline::snapshot::v2::{restore_v2, slim_v2, slim_v2_within};
    use stepline::state_formats::{slim as slim_any, StateFormats};
    let (opts, text) = split_options(data);
    let value = match parse_bytes(text, &Limits::default()) {
        Ok(v) => v,
        Err(e) => return check_error(&e),
    };
    let now = now();
    let any = stepline::state_formats::read(&value, &now, false);
    let version = match StateFormats::built_in().of(&value) {
        Ok(v) => v.name(),
        Err(e) => {
            check_error(&e);
            let e2 = any.expect_err("an unknown version is refused");
            assert_eq!(e2.code, e.code);
            return;
        }
    };
    if version == "v1.22" {
        let own = AgentState::from_value(&value, &now);
        assert_eq!(own.is_ok(), any.is_ok(), "the v1.22 reader agrees");
        if let Err(e) = any {
            check_error(&e);
        }
        return;
    }
    let own = V2State::from_value(&value, &now);
    let state = match (own, any) {
        // Not compared: a missing id is generated afresh by each reading.
        (Ok(s), Ok(any)) if any.format().name() == "v2" => s,
        (Err(e), Err(a)) => {
            check_error(&e);
            assert_eq!(e.code, a.code);
            assert_eq!(e.path, a.path);
            return;
        }
        (o, a) => panic!("the v2 reader and parseAgentState disagree: {o:?} / {a:?}"),
    };
    let _ = stepline::json::to_text(&stepline::model::v2::view::view(&state, &now));
    let _ = state.check_restorable();
    let stored = state.to_value(Form::Stored);
    let back = V2State::from_value(&stored, &now)
        .unwrap_or_else(|e| panic!("the stored form reads back: {e}\n{stored}"));
    // The producer's quirk: dates are written in ATOM (whole seconds) while a
    // step's `duration` is computed from the dates read, fractions included,
    // so a stored state whose dates had fractions writes another duration
    // once. Stable from the second round.
    let second = back.to_value(Form::Stored);
    let third = V2State::from_value(&second, &now)
        .unwrap_or_else(|e| panic!("the stored form reads back: {e}\n{second}"))
        .to_value(Form::Stored);
    assert_eq!(
        third, second,
        "the stored form is stable from its second round"
    );
    // A date the state lacks is read as `now`, which has a fraction
    // (`now()`: .250): the same quirk. Stable from the first round when
    // neither the state's dates nor the clock have one.
    if !has_fractional_date(&value) {
        let whole_now =
            chrono::DateTime::parse_from_rfc3339("2026-01-20T12:00:00+00:00").expect("valid now");
        if let Ok(state) = V2State::from_value(&value, &whole_now) {
            let stored = state.to_value(Form::Stored);
            let second = V2State::from_value(&stored, &whole_now)
                .unwrap_or_else(|e| panic!("the stored form reads back: {e}\n{stored}"))
                .to_value(Form::Stored);
            assert_eq!(second, stored, "the stored form is stable");
        }
    }
    assert_eq!(
        StateFormats::built_in().of(&stored).ok().map(|f| f.name()),
        Some("v2"),
        "the stored form is a v2 state"
    );
    let reference = state.to_value(Form::Reference);
    V2State::from_value(&reference, &now)
        .unwrap_or_else(|e| panic!("the reference form reads back: {e}\n{reference}"));

    let (config, max_bytes) = match SlimConfig::from_options(&opts, "/options") {
        Ok(c) => c,
        Err(e) => {
            check_error(&e);
            (SlimConfig::standard(), None)
        }
    };
    let snapshot = slim_v2(&state, &config);
    let errors = own_errors(&snapshot);
    assert!(
        errors.is_empty(),
        "own v2 snapshot validates: {errors:?}\n{snapshot}"
    );
    let restored = restore_v2(&snapshot, &now)
        .unwrap_or_else(|e| panic!("own v2 snapshot restores: {e}\n{snapshot}"));
    assert!(restored.execution.is_none(), "restored between executions");
    let _ = slim_v2(&restored, &config);
    let _ = restore(&snapshot, &now).map_err(|e| check_error(&e));
    let _ = Session::new(None).reconcile(&snapshot);
    match (
        slim_v2_within(&state, &config, max_bytes),
        slim_any(&value, &config, max_bytes, &now),
    ) {
        (Ok(f), Ok(g)) => {
            // The v2 reader generates a uuid for every absent or null id
            // (`uuid_or_new` in src/model/v2/mod.rs: agent, execution,
            // messages, steps, tool executions) and `slim_any` reads the
            // value again, so those ids differ between the two; ids the
            // input gave must not.
            let given = strings_in(&value);
            let strip = |mut v: Value| {
                blank_generated_ids(&mut v, &given);
                v
            };
            assert_eq!(
                strip(f.snapshot.clone()),
                strip(g.snapshot),
                "slim_any = slim_v2_within"
            );
            let text = stepline::json::to_string(&f.snapshot);
            assert_eq!(f.bytes, text.len(), "bytes is the compact size");
            if let Some(b) = max_bytes {
                assert!(f.bytes <= b, "within maxBytes {b}: {}", f.bytes);
            }
            let errors = own_errors(&f.snapshot);
            assert!(
                errors.is_empty(),
                "fitted v2 snapshot validates: {errors:?}"
            );
        }
        (Err(e), Err(g)) => {
            check_error(&e);
            assert_eq!(e.code, g.code);
            assert!(max_bytes.is_some(), "only a budget can fail: {e}");
        }
        (f, g) => panic!("slim_v2_within and slim_any disagree: {f:?} / {g:?}"),
    }
}

/// Every string in `v`, keys included.
fn strings_in(v: &Value) -> std::collections::BTreeSet<String> {
    fn walk(v: &Value, out: &mut std::collections::BTreeSet<String>) {
        match v {
            Value::String(s) => {
                out.insert(s.clone());
            }
            Value::Object(m) => {
                for (k, v) in m.iter() {
                    out.insert(k.to_string());
                    walk(v, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut out = std::collections::BTreeSet::new();
    walk(v, &mut out);
    out
}

/// Replaces each uuid in `v` that is not one of `given` (so the reader
/// generated it) with `"<generated>"`.
fn blank_generated_ids(v: &mut Value, given: &std::collections::BTreeSet<String>) {
    match v {
        Value::String(s) if stepline::model::v2::is_uuid(s) && !given.contains(s.as_str()) => {
            *v = Value::from("<generated>");
        }
        Value::Object(m) => {
            for (_, v) in m.iter_mut() {
                blank_generated_ids(v, given);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| blank_generated_ids(v, given)),
        _ => {}
    }
}

/// Whether some string in `v` is a date with a fraction of a second.
fn has_fractional_date(v: &Value) -> bool {
    match v {
        Value::String(s) => {
            s.len() >= 20 && s.as_bytes()[4] == b'-' && s.as_bytes().get(19) == Some(&b'.')
        }
        Value::Object(m) => m.values().any(has_fractional_date),
        Value::Array(items) => items.iter().any(has_fractional_date),
        _ => false,
    }
}

// ---- recording_final_state ---------------------------------------------------

/// A recording with final-state lines (`stepline_snapshot`): read, replayed
/// and reconciled against each of its snapshots without a panic; the
/// replayed session's recording replays to a session whose recording is the
/// same bytes; `Recording::parse` → `to_jsonl` is stable from its first round.
pub fn recording_final_state(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();
    if let Ok(rec) = Recording::parse(text) {
        let once = rec.to_jsonl();
        let again = Recording::parse(&once)
            .unwrap_or_else(|e| panic!("to_jsonl output parses: {e}\n{once}"));
        assert_eq!(again.to_jsonl(), once, "to_jsonl is stable");
    }
    let (s, snapshots) = match Session::from_recording(text) {
        Ok(r) => r,
        Err(e) => return check_error(&e),
    };
    for snap in snapshots.iter().take(8) {
        let r = s.reconcile(snap);
        for d in &r.differences {
            check_pointer(&d.path);
        }
        let _ = r.to_value(&s);
    }
    let _ = s.collect();
    let written = s.to_recording();
    let (back, kept) = Session::from_recording(&written)
        .unwrap_or_else(|e| panic!("a session's own recording replays: {e}\n{written}"));
    // Not every line: a later final state of the same execution replaces
    // the earlier one (`Session::ingest_final_state`'s documented rule,
    // which `from_recording` follows), so the recording writes the ones
    // the session holds, in file order, the file's last among them.
    let held: Vec<Value> = s.final_states().map(|f| f.snapshot.clone()).collect();
    assert_eq!(
        kept, held,
        "the final-state lines the session holds are kept"
    );
    let mut rest = snapshots.iter();
    assert!(
        kept.iter().all(|k| rest.any(|s| s == k)),
        "the kept lines are the file's, in its order"
    );
    assert_eq!(
        kept.last(),
        snapshots.last(),
        "the last final state is kept"
    );
    assert_eq!(
        back.to_recording(),
        written,
        "the recording round-trips byte for byte"
    );
    assert_eq!(replayable_view(&back), replayable_view(&s), "same view");
}

// ---- timeline_view_at --------------------------------------------------------

/// Input: a first line of positions (a JSON array of numbers; anything else
/// means none), then JSONL of any dialect. The timeline of the session
/// never panics at any position; `at(len)` (and past it) is the session's
/// view; position 0 is empty; a position reached forward equals the same
/// position reached by a jump back; a timeline read half-way and updated
/// holds the same lines; `envelopes_of` with `before` never panics, and past
/// the end is the whole run's.
pub fn timeline_view_at(data: &[u8]) {
    use stepline::session::timeline::Timeline;
    let (head, rest) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&[][..], data),
    };
    let positions: Vec<usize> = std::str::from_utf8(head)
        .ok()
        .and_then(|h| stepline::json::from_str(h).ok())
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .take(16)
        .map(|p| p.as_u64().map_or(usize::MAX, |n| n as usize))
        .collect();
    let text = String::from_utf8_lossy(rest);
    let mut half = text.len() / 2;
    while !text.is_char_boundary(half) {
        half -= 1;
    }
    let (first, second) = text.split_at(half);
    let mut s = Session::new(None);
    s.ingest_jsonl(first);
    let mut t = Timeline::new(&s);
    s.ingest_jsonl(second);
    t.update(&s);
    let whole = Timeline::new(&s);
    assert_eq!(t.len(), whole.len(), "update reads the new lines");
    assert_eq!(t.len(), s.log().count(), "one position per log line");
    let len = t.len();
    let last = replayable_view(t.at(len));
    assert_eq!(
        strip_counts(last.clone()),
        strip_counts(replayable_view(&s)),
        "viewAt(length) is the view"
    );
    assert_eq!(
        replayable_view(t.at(len.saturating_add(7))),
        last,
        "past the end is the end"
    );
    let empty = t.at(0).view();
    assert_eq!(
        empty["executions"].as_array().map(Vec::len),
        Some(0),
        "viewAt(0) is empty"
    );
    for &p in &positions {
        let forward = t.at(p).view();
        let mut fresh = whole.clone();
        assert_eq!(fresh.at(p).view(), forward, "the same position either way");
        let _ = stepline::json::to_text(&forward);
        let at = t.at(p);
        let execs = at.executions().len();
        for e in 0..execs.min(3) {
            for step in 0..3 {
                let before = s.envelopes_of(e, step, Some(p));
                if p >= len {
                    assert_eq!(
                        before.map(|b| stepline::json::to_value_of(&b)),
                        s.envelopes_of(e, step, None)
                            .map(|b| stepline::json::to_value_of(&b)),
                        "before past the end is the whole run"
                    );
                }
            }
        }
    }
}

/// A view without `counts` (a replay counts no duplicates).
fn strip_counts(mut v: Value) -> Value {
    if let Some(m) = v.as_object_mut() {
        m.remove("counts");
    }
    v
}

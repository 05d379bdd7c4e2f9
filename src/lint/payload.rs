//! Payload lint: what a broadcaster would do to an envelope, and what an
//! envelope should not carry. Reverb and Pusher reject a message over 10 KB by
//! default ([`DEFAULT_MAX_MESSAGE_BYTES`]), so an envelope near that size is
//! one longer tool argument away from being dropped, and one over it was
//! never delivered by a default server; the encoder marks a payload it had to
//! shorten with `truncated: true` (src/envelope/cap.rs), so the text a reader
//! sees is not the whole text; and any payload can carry a credential (the
//! secrets detector, over every envelope's payload).

use crate::envelope::cap::{encoded_len, DEFAULT_MAX_MESSAGE_BYTES};
use crate::json::Value;

use super::{Diagnostic, Envelope, Severity, Slots};
use crate::secrets;

/// An envelope at or above 90% of Reverb's 10,000-byte message limit.
pub const ENVELOPE_NEAR_SIZE_LIMIT: &str = "envelope_near_size_limit";
/// An envelope over Reverb's 10,000-byte message limit: a default server drops it.
pub const ENVELOPE_OVER_SIZE_LIMIT: &str = "envelope_over_size_limit";
/// A payload the encoder shortened to fit the limit (`truncated: true`).
pub const TEXT_TRUNCATED: &str = "text_truncated";
/// An envelope payload that carries an API key or another credential.
pub const SECRET_IN_PAYLOAD: &str = "secret_in_payload";

/// Where "near" starts: 90% of the limit.
const NEAR_PERCENT: usize = 90;

/// Runs the payload detectors. `raw` holds each envelope's size as received
/// (bytes of its JSON line), by index; an envelope without one is measured
/// as its compact JSON encoding.
pub(super) fn check(
    envelopes: &[Envelope<'_>],
    raw: &[Value],
    sizes: &[usize],
    out: &mut Vec<Diagnostic>,
) {
    let steps = steps(envelopes);
    let envelopes: Vec<Placed<'_, '_>> = envelopes
        .iter()
        .zip(steps)
        .map(|(e, step)| Placed { e, step })
        .collect();
    for p in &envelopes {
        let e = p.e;
        let bytes = sizes
            .get(e.index)
            .copied()
            .or_else(|| raw.get(e.index).map(encoded_len))
            .unwrap_or(0);
        size(p, bytes, out);
    }
    for p in &envelopes {
        let e = p.e;
        if e.payload.get("truncated").and_then(Value::as_bool) == Some(true) {
            out.push(Diagnostic {
                code: TEXT_TRUNCATED,
                severity: Severity::Warning,
                path: e.path("/payload/truncated"),
                message: format!(
                    "envelope {} ({}{}) was shortened to fit the broadcaster's message limit: its texts end early (the full text is only in the state or snapshot)",
                    e.index,
                    e.kind,
                    step_text(p)
                ),
                evidence: evidence(p, None),
            });
        }
    }
    for p in &envelopes {
        let e = p.e;
        for found in secrets::find(e.payload, &e.path("/payload")) {
            let what = format!("envelope {} ({}{})", e.index, e.kind, step_text(p));
            out.push(Diagnostic {
                code: SECRET_IN_PAYLOAD,
                severity: Severity::Error,
                message: secrets::describe(&found, &what),
                evidence: crate::json::obj([
                    ("index", Value::from(e.index)),
                    ("type", Value::from(e.kind)),
                    ("step", p.step.map_or(Value::Null, Value::from)),
                    (
                        "name",
                        found.name.clone().map_or(Value::Null, Value::String),
                    ),
                    ("chars", Value::from(found.chars)),
                    ("redacted", Value::from(secrets::REDACTED)),
                ]),
                path: found.path,
            });
        }
    }
}

/// An envelope and the step it belongs to.
struct Placed<'a, 'b> {
    e: &'a Envelope<'b>,
    step: Option<i64>,
}

/// The step each envelope belongs to: its own `step_number`, or else the
/// last step its run started (tool and stream envelopes carry no number).
fn steps(envelopes: &[Envelope<'_>]) -> Vec<Option<i64>> {
    // Slots, not a map of its own: each map type is kilobytes of wasm.
    let mut current: Slots<i64> = Slots::new();
    envelopes
        .iter()
        .map(|e| match e.step_number() {
            Some(n) => {
                *current.get_or_insert_with(e.run_key(None), || n) = n;
                Some(n)
            }
            None => current.get_mut(&e.run_key(None)).map(|n| *n),
        })
        .collect()
}

fn size(p: &Placed<'_, '_>, bytes: usize, out: &mut Vec<Diagnostic>) {
    let e = p.e;
    let limit = DEFAULT_MAX_MESSAGE_BYTES;
    let (code, severity, how) = if bytes > limit {
        (ENVELOPE_OVER_SIZE_LIMIT, Severity::Error, "over")
    } else if bytes * 100 >= limit * NEAR_PERCENT {
        (ENVELOPE_NEAR_SIZE_LIMIT, Severity::Warning, "near")
    } else {
        return;
    };
    out.push(Diagnostic {
        code,
        severity,
        path: e.path(""),
        message: format!(
            "envelope {} ({}{}) is {bytes} bytes, {how} Reverb's message limit of {limit} bytes{}",
            e.index,
            e.kind,
            step_text(p),
            if how == "over" {
                ": a server with the default limit drops it"
            } else {
                ": a little more text and a server with the default limit drops it"
            }
        ),
        evidence: evidence(p, Some(bytes)),
    });
}

fn step_text(p: &Placed<'_, '_>) -> String {
    p.step.map_or(String::new(), |n| format!(", step {n}"))
}

fn evidence(p: &Placed<'_, '_>, bytes: Option<usize>) -> Value {
    let e = p.e;
    let mut v = crate::json::obj([
        ("index", Value::from(e.index)),
        ("type", Value::from(e.kind)),
        ("step", p.step.map_or(Value::Null, Value::from)),
    ]);
    if let (Some(bytes), Value::Object(m)) = (bytes, &mut v) {
        m.insert("bytes", Value::from(bytes));
        m.insert("limit", Value::from(DEFAULT_MAX_MESSAGE_BYTES));
    }
    v
}

//! Raw provider frames broadcast as stream text: instructor-php v2.7's
//! wiretapped broadcaster, with a real streaming HTTP driver, sends every SSE
//! frame's raw provider JSON as an `agent.stream.chunk` between the text
//! deltas (its vectors' README, item 15). The decoder marks such a chunk
//! (`provider_frame`, see [`crate::envelope::frames`]); one finding per run
//! names the first, with the count.

use crate::json::{obj, Value};

use super::{Diagnostic, Envelope, Severity, RAW_PROVIDER_FRAMES_IN_STREAM};

pub(super) fn check(envelopes: &[Envelope], out: &mut Vec<Diagnostic>) {
    // (run, first frame's envelope, provider, count), in order of first frame.
    let mut runs: Vec<(String, usize, &str, u64)> = Vec::new();
    for (i, e) in envelopes.iter().enumerate() {
        if e.kind != "agent.stream.chunk" {
            continue;
        }
        let Some(provider) = e.payload.get("provider_frame").and_then(Value::as_str) else {
            continue;
        };
        let key = e.run_key(None);
        match runs.iter_mut().find(|r| r.0 == key) {
            Some(r) => r.3 += 1,
            None => runs.push((key, i, provider, 1)),
        }
    }
    for (_, i, provider, count) in runs {
        let Some(e) = envelopes.get(i) else { continue };
        out.push(Diagnostic {
            code: RAW_PROVIDER_FRAMES_IN_STREAM,
            severity: Severity::Warning,
            path: e.path("/payload/content"),
            message: format!(
                "{count} stream chunks of this run are raw {provider} stream frames, not text: \
                 the broadcaster forwards the HTTP driver's parsed SSE events (kept out of the streamed text)"
            ),
            evidence: obj([
                ("execution_id", e.execution.map_or(Value::Null, Value::from)),
                ("provider", Value::from(provider)),
                ("frames", Value::from(count)),
                (
                    "chunk_index",
                    e.payload.get("chunk_index").cloned().unwrap_or(Value::Null),
                ),
            ]),
        });
    }
}

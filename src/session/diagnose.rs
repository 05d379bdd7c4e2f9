//! `Session::diagnose`: the producer-bug detectors (src/lint/mod.rs) over
//! the session's own log, so a caller holds the stream once (in the session)
//! and lines that never decoded cannot reach the detectors.

use crate::dialects::decode_envelope;
use crate::envelope::decode::ENVELOPE_LIMITS;
use crate::error::Result;
use crate::json::Value;
use crate::lint::{diagnose_sized, Diagnostic};
use crate::session::Session;

impl Session {
    /// Diagnoses the envelopes this session applied, in arrival order, with
    /// `{snapshot?, state?, includeToolResults?}` (or `null`): the final slim
    /// snapshot, the full reference state, and whether the snapshot was
    /// taken with tool results. An envelope's evidence path is
    /// `/envelopes/<i>`, `i` counting the session's log (`log()`): applied
    /// envelopes only, so redeliveries, other sessions' envelopes and lines
    /// that failed to decode are not counted.
    ///
    /// Errors: options of the wrong shape (`invalid_type`, `invalid_value`),
    /// as `diagnose_value` reports them.
    ///
    /// ```
    /// use stepline::json;
    /// use stepline::session::Session;
    /// let mut s = Session::new(None);
    /// let out = s.ingest_jsonl(concat!(
    ///     r#"{"type":"agent.step.started","session_id":"s","execution_id":"e","timestamp":"2026-01-20T12:00:00Z","payload":{"step_number":1}}"#,
    ///     "\nnot json\n",
    /// ));
    /// assert_eq!(out.errors.count, 1);
    /// let found = s.diagnose(&json!(null)).unwrap();
    /// assert_eq!(found[0].code, "final_status_missing");
    /// assert_eq!(found[0].path, "/envelopes/0");
    /// ```
    pub fn diagnose(&self, options: &Value) -> Result<Vec<Diagnostic>> {
        self.require_recording("diagnose()")?;
        // Each line decoded when it was ingested; one that no longer would
        // (it cannot) is left out rather than failing the diagnosis.
        // Each envelope's size is its line's, as received: what the
        // broadcaster's message limit applies to.
        let (envelopes, sizes): (Vec<Value>, Vec<usize>) = self
            .log()
            .filter_map(|line| {
                let parsed = crate::json::parse_text(&line, &ENVELOPE_LIMITS).ok()?;
                decode_envelope(parsed.value)
                    .ok()
                    .map(|d| (d.envelope, line.len()))
            })
            .unzip();
        diagnose_sized(&envelopes, &sizes, options)
    }
}

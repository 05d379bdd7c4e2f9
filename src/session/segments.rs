//! Chunk indexes that restart within one execution. instructor-php v2.7's
//! broadcaster resets its chunk counter to 0 when a run ends (the
//! continuation's stop transition, a failure, the closing `stopped`) and on
//! `reset()` (its vectors' README, item 15), so chunks streamed under the
//! same execution id after an ending status number from 0 again (a turn
//! the session cannot tell apart: no `processing` status opens it, as with
//! `autoStatusTracking: false`). Indexes are kept per segment: a chunk sent
//! after an ending status (its timestamp is later) whose index falls at or
//! below the highest one seen starts a new segment above it, so it is new
//! text, not a replacement of the earlier chunk of that index. Chunks sent
//! before the ending status keep their index whenever they arrive, so
//! out-of-order delivery of one segment still converges.
//!
//! The limits: it takes timestamps (chunks sent in the ending status's
//! millisecond, or without timestamps, stay in its segment), and a chunk of
//! the new segment that arrives before the ending status replaces the
//! earlier chunk of its index.
//!
//! ```
//! use stepline::session::Session;
//! let mut s = Session::new(None);
//! let at = |ms: u32| format!(r#""timestamp":"2026-08-10T12:00:00.{ms:03}Z","#);
//! let env = |t: &str, ms, p: &str| format!(r#"{{"type":"{t}","session_id":"s","execution_id":"e",{}"payload":{p}}}"#, at(ms));
//! s.ingest_text(&env("agent.stream.chunk", 1, r#"{"content":"Hi","chunk_index":0}"#)).unwrap();
//! s.ingest_text(&env("agent.status", 2, r#"{"status":"failed","previous_status":"processing"}"#)).unwrap();
//! s.ingest_text(&env("agent.stream.chunk", 3, r#"{"content":" again","chunk_index":0}"#)).unwrap();
//! assert_eq!(s.view()["executions"][0]["text"], "Hi again");
//! ```

use crate::session::text::StreamText;

/// Where the current segment's indexes start, and when (epoch ms) the
/// latest ending status not yet followed by a chunk was sent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChunkSegments {
    base: i64,
    ended_at: Option<i64>,
}

impl ChunkSegments {
    /// An ending status sent at `at` arrived: a chunk sent after it may
    /// start a new segment.
    pub fn ended(&mut self, at: Option<i64>) {
        if let Some(at) = at {
            self.ended_at = Some(self.ended_at.map_or(at, |e| e.max(at)));
        }
    }

    /// The key chunk `index`, sent at `at`, is kept under in `stream`.
    pub fn key(&mut self, index: i64, at: Option<i64>, stream: &StreamText) -> i64 {
        let after = matches!((self.ended_at, at), (Some(e), Some(a)) if a > e);
        if after {
            self.ended_at = None;
            let next = stream.next_index();
            if self.base.saturating_add(index) < next {
                self.base = next;
            }
        }
        self.base.saturating_add(index)
    }
}

//! Chunk indexes that restart within one execution. instructor-php v2.7's
//! broadcaster resets its chunk counter to 0 when a run ends (the
//! continuation's stop transition, a failure, the closing `stopped`) and on
//! `reset()` (its vectors' README, item 15), so chunks streamed under the
//! same execution id after an ending status number from 0 again. Indexes
//! are kept per segment: a chunk after an ending status whose index falls
//! at or below the highest one seen starts a new segment above it, so it
//! is new text, not a replacement of the earlier chunk of that index.
//!
//! The limit: a chunk of the earlier segment that arrives after the ending
//! status is taken for the new segment's.
//!
//! ```
//! use stepline::session::Session;
//! let mut s = Session::new(None);
//! let env = |t: &str, p: &str| format!(r#"{{"type":"{t}","session_id":"s","execution_id":"e","payload":{p}}}"#);
//! s.ingest_text(&env("agent.stream.chunk", r#"{"content":"Hi","chunk_index":0}"#)).unwrap();
//! s.ingest_text(&env("agent.status", r#"{"status":"failed","previous_status":"processing"}"#)).unwrap();
//! s.ingest_text(&env("agent.stream.chunk", r#"{"content":" again","chunk_index":0}"#)).unwrap();
//! assert_eq!(s.view()["executions"][0]["text"], "Hi again");
//! ```

use crate::session::text::StreamText;

/// Where the current segment's indexes start, and whether an ending status
/// arrived since the last chunk.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChunkSegments {
    base: i64,
    ended: bool,
}

impl ChunkSegments {
    /// An ending status arrived: the next chunk may start a new segment.
    pub fn ended(&mut self) {
        self.ended = true;
    }

    /// The key chunk `index` is kept under in `stream`.
    pub fn key(&mut self, index: i64, stream: &StreamText) -> i64 {
        if std::mem::take(&mut self.ended) {
            let next = stream.next_index();
            if self.base.saturating_add(index) < next {
                self.base = next;
            }
        }
        self.base.saturating_add(index)
    }
}

//! The session as it stood after its first `i` envelopes, in arrival order:
//! what a time slider shows. A [`Timeline`] keeps the log's lines and one
//! replayed session, the cursor: moving forward applies only the lines
//! between the cursor and `i`, moving back replays from the start. A slider
//! dragged forward (or played) therefore costs what the run costs once, and
//! a jump back costs one replay of the prefix (about 0.6 s for 60,000
//! envelopes; bench/findings.md). Copies of the session at intervals would
//! make jumps back cheaper, but a session copy holds its whole log and
//! redelivery table, so memory would grow with the run times the copies.
//!
//! The lines replayed are the session's log ([`Session::log`]): envelopes
//! whose streamed text the text limit dropped are not in it, so a prefix of
//! such a session shows the text the log kept. They are delivered as the
//! session received them ([`Session::log_delivered`]): the lines of one
//! JSONL text as one batch, an envelope received on its own on its own.
//! Where a delivery ended decides what a redelivery is (two identical lines
//! of one batch are two occurrences; a line repeated in the next batch is
//! judged against what that batch has seen), so a replay that delivered the
//! lines otherwise could end on another view than the session's.

use crate::session::Session;

/// Prefixes of one session's log, replayed on demand.
#[derive(Clone, Debug)]
pub struct Timeline {
    /// The empty session every replay starts from (same id and text limit).
    empty: Session,
    /// The log lines read so far, as received, each with its delivery
    /// (0: on its own).
    lines: Vec<(u32, Option<i64>, Box<str>)>,
    /// How many lines `cursor` has applied.
    at: usize,
    /// The session after the first `at` lines.
    cursor: Session,
    /// The delivery the cursor is replaying, and what it delivered so far.
    batch: Delivery,
}

/// A replay's current delivery: its number in the log and its batch.
#[derive(Clone, Debug, Default)]
pub(crate) struct Delivery(u32, crate::session::dedup::Batch);

impl Delivery {
    /// Ingests log line `line` of delivery `delivery` into `replay`, as the
    /// session received it: in the same batch as the line before it when
    /// that was of the same delivery, in a new one when not, on its own
    /// when it came on its own. Not settled. A line the session applied
    /// applies again; an error cannot happen, and would only leave the
    /// replay without it.
    /// `arrival` is the step the session placed the line by in its batch
    /// (a tool event without a step number), which the replay uses.
    pub(crate) fn replay(
        &mut self,
        replay: &mut Session,
        delivery: u32,
        arrival: Option<i64>,
        line: &str,
    ) {
        replay.replaying_log = true;
        replay.replay_arrival = arrival;
        if delivery == 0 {
            let _ = replay.ingest_text_deferred(line);
        } else {
            if self.0 != delivery {
                *self = Delivery(delivery, Default::default());
            }
            let _ = replay.ingest_text_in(line, Some(&mut self.1));
        }
        replay.replay_arrival = None;
    }
}

impl Timeline {
    /// The timeline of `session`'s log so far.
    ///
    /// ```
    /// use stepline::session::{Session, timeline::Timeline};
    /// let mut s = Session::new(None);
    /// s.ingest_text(r#"{"type":"agent.status","session_id":"s","execution_id":"e","payload":{"status":"processing"}}"#).unwrap();
    /// s.ingest_text(r#"{"type":"agent.status","session_id":"s","execution_id":"e","payload":{"status":"completed","previous_status":"processing"}}"#).unwrap();
    /// let mut t = Timeline::new(&s);
    /// assert_eq!(t.len(), 2);
    /// assert_eq!(t.at(2).view(), s.view());
    /// assert_eq!(t.at(1).view()["executions"][0]["status"], "processing");
    /// assert_eq!(t.at(0).view()["executions"].as_array().map(Vec::len), Some(0));
    /// ```
    pub fn new(session: &Session) -> Timeline {
        // The id the session was created with, not the one it adopted from
        // its first envelope: before that envelope the session had none, and
        // a timeline made later must show position 0 as one made at once.
        let empty =
            Session::with_text_limit(session.given_id().map(String::from), session.text_limit());
        let mut t = Timeline {
            cursor: empty.clone(),
            empty,
            lines: Vec::new(),
            at: 0,
            batch: Default::default(),
        };
        t.update(session);
        t
    }

    /// Reads the envelopes `session` applied since the last read (a live
    /// run grows; its earlier lines are the same). Returns how many.
    pub fn update(&mut self, session: &Session) -> usize {
        let before = self.lines.len();
        self.lines.extend(
            session
                .log_replay()
                .skip(before)
                .map(|(d, a, l)| (d, a, l.into_boxed_str())),
        );
        self.lines.len() - before
    }

    /// How many envelopes the timeline holds (the log's length when last read).
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether it holds no envelope.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The session after its first `i` envelopes (all of them when `i` is
    /// past the end).
    pub fn at(&mut self, i: usize) -> &Session {
        let i = i.min(self.lines.len());
        if i < self.at {
            self.cursor = self.empty.clone();
            self.batch = Default::default();
            self.at = 0;
        }
        for (delivery, arrival, line) in self.lines.get(self.at..i).unwrap_or_default() {
            self.batch
                .replay(&mut self.cursor, *delivery, *arrival, line);
        }
        self.at = i;
        self.cursor.settle();
        &self.cursor
    }
}

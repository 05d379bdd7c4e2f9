//! The session as it stood after its first `i` envelopes, in arrival order:
//! what a time slider shows. Replaying a long run from the start at every
//! slider move would cost the whole run each time, so a [`Timeline`] keeps a
//! copy of the session every `every` envelopes and rebuilds a prefix from the
//! nearest copy before it. The copies are at most [`MAX_CHECKPOINTS`]: when
//! there would be more, every other one is dropped and the spacing doubles,
//! so memory stays bounded however long the run (and a rebuild replays at
//! most `every` envelopes).
//!
//! The lines replayed are the session's log ([`Session::log`]): envelopes
//! whose streamed text the text limit dropped are not in it, so a prefix of
//! such a session shows the text the log kept.

use std::borrow::Cow;

use crate::session::Session;

/// At most this many copies of the session are kept.
pub const MAX_CHECKPOINTS: usize = 32;

/// The first spacing between copies, in envelopes.
const FIRST_EVERY: usize = 64;

/// Prefixes of one session's log, rebuilt from kept copies.
#[derive(Clone, Debug)]
pub struct Timeline {
    /// The empty session every replay starts from (same id and text limit).
    empty: Session,
    /// The log lines read so far, as received.
    lines: Vec<Box<str>>,
    /// `(envelopes applied, the session then)`, ascending; the first is at 0.
    checkpoints: Vec<(usize, Session)>,
    /// The session after every line read (where the next lines go).
    tip: Session,
    every: usize,
}

impl Timeline {
    /// The timeline of `session`'s log so far.
    ///
    /// ```
    /// use stepline::session::{Session, timeline::Timeline};
    /// let mut s = Session::new(None);
    /// s.ingest_text(r#"{"type":"agent.status","session_id":"s","execution_id":"e","payload":{"status":"processing"}}"#).unwrap();
    /// s.ingest_text(r#"{"type":"agent.status","session_id":"s","execution_id":"e","payload":{"status":"completed","previous_status":"processing"}}"#).unwrap();
    /// let t = Timeline::new(&s);
    /// assert_eq!(t.len(), 2);
    /// assert_eq!(t.at(2).view(), s.view());
    /// assert_eq!(t.at(1).view()["executions"][0]["status"], "processing");
    /// assert_eq!(t.at(0).view()["executions"].as_array().map(Vec::len), Some(0));
    /// ```
    pub fn new(session: &Session) -> Timeline {
        let empty =
            Session::with_text_limit(session.session_id().map(String::from), session.text_limit());
        let mut t = Timeline {
            checkpoints: vec![(0, empty.clone())],
            tip: empty.clone(),
            empty,
            lines: Vec::new(),
            every: FIRST_EVERY,
        };
        t.update(session);
        t
    }

    /// Reads the envelopes `session` applied since the last read (a live
    /// run grows; its earlier lines are the same). Returns how many.
    pub fn update(&mut self, session: &Session) -> usize {
        let before = self.lines.len();
        for line in session.log().skip(before) {
            // A line the session applied applies again here; an error
            // cannot happen, and would only leave the prefix without it.
            let _ = self.tip.ingest_text_deferred(&line);
            self.lines.push(line.into_boxed_str());
            if self.lines.len() % self.every == 0 {
                self.tip.settle();
                self.checkpoint();
            }
        }
        self.tip.settle();
        self.lines.len() - before
    }

    fn checkpoint(&mut self) {
        self.checkpoints.push((self.lines.len(), self.tip.clone()));
        if self.checkpoints.len() > MAX_CHECKPOINTS {
            self.every *= 2;
            let every = self.every;
            self.checkpoints.retain(|(n, _)| n % every == 0);
        }
    }

    /// How many envelopes the timeline holds (the log's length when last read).
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// How many copies of the session it keeps (at most [`MAX_CHECKPOINTS`]).
    pub fn checkpoint_count(&self) -> usize {
        self.checkpoints.len()
    }

    /// Whether it holds no envelope.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The session after its first `i` envelopes (all of them when `i` is
    /// past the end).
    pub fn at(&self, i: usize) -> Cow<'_, Session> {
        let i = i.min(self.lines.len());
        if i == self.lines.len() {
            return Cow::Borrowed(&self.tip);
        }
        let (from, base) = self
            .checkpoints
            .iter()
            .rev()
            .find(|(n, _)| *n <= i)
            .map_or((0, &self.empty), |(n, s)| (*n, s));
        let mut s = base.clone();
        for line in self.lines.get(from..i).unwrap_or_default() {
            let _ = s.ingest_text_deferred(line);
        }
        s.settle();
        Cow::Owned(s)
    }
}

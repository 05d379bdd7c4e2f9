//! Why a run ended, and runs that resume: what `agent.status` says beyond
//! its status word.
//!
//! The seed-000 status payload is `{status, step_count, error_message,
//! last_response}` (v2.7 broadcasts `failed` with `error_message` too). The
//! view keeps, per field, the latest non-null value by envelope timestamp
//! (by arrival when timestamps are equal or missing), so a later status that
//! leaves the field out or null keeps the earlier reason.
//!
//! Seed 000 sends no `previous_status`, so a run that resumes under the same
//! execution id (`in_progress` again after `completed`) repeats a transition
//! the status chain already holds. [`StatusTimes`] keeps when each such
//! status word was first and last broadcast: a non-terminal word broadcast
//! after the last terminal one is where the execution stands now. That needs
//! timestamps; without them the chain decides as before (a terminal status
//! wins), which is the limit of the rule.
//!
//! ```
//! use stepline::session::Session;
//! let mut s = Session::new(None);
//! for (t, status, error) in [("00", "in_progress", "null"), ("05", "failed", "\"driver threw\"")] {
//!     s.ingest_text(&format!(
//!         r#"{{"type":"agent.status","session_id":"s","execution_id":"e","timestamp":"2026-01-16T10:00:{t}.000Z","payload":{{"status":"{status}","error_message":{error}}}}}"#
//!     )).unwrap();
//! }
//! let e = &s.view()["executions"][0];
//! assert_eq!((e["status"].as_str(), e["error_message"].as_str()), (Some("failed"), Some("driver threw")));
//! ```

use crate::session::view::TERMINAL;

/// A value with the time of the envelope that said it.
#[derive(Clone, Debug, PartialEq)]
pub struct Said<T> {
    /// When it was said (epoch ms), when the envelope had a timestamp.
    pub at: Option<i64>,
    /// What was said.
    pub value: T,
}

/// `error_message`, `last_response` and `step_count` of an execution's
/// `agent.status` envelopes (each the latest non-null one).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StatusDetail {
    /// The latest `error_message`.
    pub error_message: Option<Said<String>>,
    /// The latest `last_response`.
    pub last_response: Option<Said<String>>,
    /// The latest `step_count`.
    pub step_count: Option<Said<i64>>,
}

impl StatusDetail {
    /// Takes the fields of one `agent.status` event sent at `at` (epoch ms).
    pub fn absorb(&mut self, s: &crate::event::Status, at: Option<i64>) {
        newer(&mut self.error_message, s.error_message.clone(), at);
        newer(&mut self.last_response, s.last_response.clone(), at);
        let count = s.step_count;
        // An execution's step count only grows, so of two said at the same
        // time (or without times) the larger is the later one, whatever the
        // arrival order (redelivery, shuffled recordings).
        let tied = match (&self.step_count, count) {
            (Some(kept), Some(new)) => {
                (kept.at.is_none() || at.is_none() || kept.at == at).then_some(kept.value > new)
            }
            _ => None,
        };
        if tied != Some(true) {
            newer(&mut self.step_count, count, at);
        }
    }

    /// The latest `error_message` text.
    pub fn error_message(&self) -> Option<&str> {
        self.error_message.as_ref().map(|s| s.value.as_str())
    }

    /// The latest `last_response` text.
    pub fn last_response(&self) -> Option<&str> {
        self.last_response.as_ref().map(|s| s.value.as_str())
    }

    /// The latest `step_count`.
    pub fn step_count(&self) -> Option<i64> {
        self.step_count.as_ref().map(|s| s.value)
    }
}

/// Replaces `slot` with `value` unless `slot` was said later.
fn newer<T>(slot: &mut Option<Said<T>>, value: Option<T>, at: Option<i64>) {
    let Some(value) = value else {
        return;
    };
    let older = match (slot.as_ref().and_then(|s| s.at), at) {
        (Some(kept), Some(new)) => kept > new,
        _ => false,
    };
    if !older {
        *slot = Some(Said { at, value });
    }
}

/// When each status word without a `previous_status` was first and last
/// broadcast (epoch ms).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StatusTimes(Vec<(String, i64, i64)>);

impl StatusTimes {
    /// Notes that `status` was broadcast at `at` (epoch ms).
    pub fn note(&mut self, status: &str, at: i64) {
        match self.0.iter_mut().find(|(s, _, _)| s == status) {
            Some((_, first, last)) => {
                *first = (*first).min(at);
                *last = (*last).max(at);
            }
            None => self.0.push((status.to_string(), at, at)),
        }
    }

    /// The non-terminal status broadcast after the last terminal one (the
    /// latest such), if the run resumed; `None` while it has not ended, or
    /// ended for good.
    pub fn resumed(&self) -> Option<&str> {
        self.resume().0
    }

    /// Whether a non-terminal status followed a terminal one at any time
    /// (the run resumed, whether or not it ended again).
    pub fn ever_resumed(&self) -> bool {
        self.resume().1
    }

    /// Both of the above in two passes over the (few) status words.
    fn resume(&self) -> (Option<&str>, bool) {
        // The first and last terminal broadcast.
        let mut ended: Option<(i64, i64)> = None;
        for (s, first, last) in &self.0 {
            if TERMINAL.contains(&s.as_str()) {
                let (f, l) = ended.unwrap_or((*first, *last));
                ended = Some((f.min(*first), l.max(*last)));
            }
        }
        let Some((first_end, last_end)) = ended else {
            return (None, false);
        };
        let mut now: Option<(&str, i64)> = None;
        let mut ever = false;
        for (s, _, last) in &self.0 {
            if TERMINAL.contains(&s.as_str()) {
                continue;
            }
            ever |= *last > first_end;
            if *last > last_end && now.is_none_or(|(_, t)| *last > t) {
                now = Some((s.as_str(), *last));
            }
        }
        (now.map(|(s, _)| s), ever)
    }
}

/// Unix epoch milliseconds of an RFC 3339 timestamp (what the decoder
/// accepts in envelopes); `None` for anything else. The one hand-written
/// timestamp reader is the session's `attribution::instant` (µs).
///
/// ```
/// use stepline::session::status::epoch_ms;
/// assert_eq!(epoch_ms("1970-01-02T00:00:01.5Z"), Some(86_401_500));
/// assert_eq!(epoch_ms("2026-01-20T13:00:00.250+01:00"), epoch_ms("2026-01-20T12:00:00.250Z"));
/// assert_eq!(epoch_ms("tomorrow"), None);
/// ```
pub fn epoch_ms(ts: &str) -> Option<i64> {
    crate::session::attribution::instant(ts).map(|us| us.div_euclid(1000))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_after_the_last_terminal_one_is_a_resume_in_any_order() {
        let events = [("in_progress", 1), ("completed", 5), ("in_progress", 9)];
        let mut forward = StatusTimes::default();
        let mut backward = StatusTimes::default();
        for (s, t) in events {
            forward.note(s, t);
        }
        for (s, t) in events.iter().rev() {
            backward.note(s, *t);
        }
        assert_eq!(forward.resumed(), Some("in_progress"));
        assert_eq!(backward.resumed(), Some("in_progress"));
        forward.note("completed", 12);
        assert_eq!(forward.resumed(), None);
        assert!(forward.ever_resumed());
    }

    #[test]
    fn epoch_ms_reads_rfc3339_as_the_general_date_reader_does() {
        let utc = chrono::DateTime::<chrono::FixedOffset>::default();
        for ts in [
            "2026-01-20T12:00:00.250Z",
            "2026-01-20T12:00:00Z",
            "2024-02-29T23:59:59.999999-05:30",
            "1969-12-31T23:59:59.9Z",
            "0001-03-01T00:00:00+14:00",
            "9999-12-31T23:59:59.12Z",
        ] {
            let general = crate::model::time::parse(ts, &utc).map(|t| t.timestamp_millis());
            assert_eq!(epoch_ms(ts), general, "{ts}");
        }
        assert_eq!(epoch_ms("2026-01-20 12:00:00"), None);
    }

    #[test]
    fn the_latest_non_null_detail_wins_whatever_the_arrival_order() {
        let late = crate::event::Status {
            error_message: Some("late".into()),
            step_count: Some(3),
            ..Default::default()
        };
        let early = crate::event::Status {
            error_message: Some("early".into()),
            ..Default::default()
        };
        let mut d = StatusDetail::default();
        d.absorb(&late, Some(10));
        d.absorb(&early, Some(5));
        assert_eq!((d.error_message(), d.step_count()), (Some("late"), Some(3)));
    }
}

//! Runs that never end. The v1.22 producer broadcasts no final status when
//! the driver throws (its exception path), so without more the view shows
//! `processing` forever. With a silence limit (`staleAfterMs`), an
//! execution that has not ended and has been silent for at least that long
//! is marked `stale: true`. Its status is left as broadcast: stale says
//! "nothing heard for a while", never "failed".
//!
//! The core reads no clock. The session's clock is the latest of the
//! envelope timestamps it has seen and the `now` values its caller gave
//! ([`Session::set_now`]); it never goes back. An execution's silence is
//! that clock minus its own latest envelope timestamp, so in a recording one
//! turn goes stale when the others carry on long enough, and the last turn
//! only once the caller says what time it is. An execution without any
//! timestamp is never stale. Limit: the reference prints local time with a
//! literal `Z` (v1.22 quirk 5, fixed by the encoder, not by old recordings), so a
//! `now` from `Date.now()` is off by the producer's UTC offset against
//! such timestamps.
//!
//! ```
//! use stepline::session::Session;
//! let mut s = Session::new(None);
//! s.set_stale_after(Some(60_000));
//! s.ingest_text(r#"{"type":"agent.status","session_id":"s","execution_id":"e","timestamp":"2026-01-16T10:00:00.000Z","payload":{"status":"processing","previous_status":"idle"}}"#).unwrap();
//! assert_eq!(s.view()["executions"][0]["stale"], false);
//! s.set_now(stepline::session::status::epoch_ms("2026-01-16T10:01:00.000Z").unwrap());
//! let e = &s.view()["executions"][0];
//! assert_eq!((e["stale"].as_bool(), e["status"].as_str()), (Some(true), Some("processing")));
//! ```

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{Map, Value};
use crate::session::apply::Touched;
use crate::session::view::{Execution, TERMINAL};
use crate::session::Session;

/// The silence limit and the clock it is measured with.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Staleness {
    /// Milliseconds of silence after which an execution that has not ended
    /// is stale; `None`: never.
    after_ms: Option<i64>,
    /// The latest envelope timestamp or caller's `now` (epoch ms).
    clock_ms: Option<i64>,
    /// No execution can become stale before the clock reaches this: the
    /// executions are only walked when it does.
    next_deadline: Option<i64>,
}

impl Staleness {
    /// Milliseconds of silence after which an unfinished execution is stale; `None`: never.
    pub fn after_ms(&self) -> Option<i64> {
        self.after_ms
    }

    /// The session's clock: the latest envelope timestamp or the caller's `now` (epoch ms).
    pub fn clock_ms(&self) -> Option<i64> {
        self.clock_ms
    }
}

/// Reads a silence limit option (`key` in `m`: whole milliseconds, 0 or
/// more; `None` when absent or null).
pub fn stale_after_option(m: &Map, key: &str, path: &str) -> Result<Option<i64>> {
    match crate::model::read::opt_i64(m, key, path)? {
        Some(n) if n < 0 => Err(SteplineError::at(
            ErrorCode::OutOfRange,
            &crate::json::child(path, key),
            format!("expected `{key}` to be 0 or more milliseconds, found {n}"),
        )),
        n => Ok(n),
    }
}

/// Reads a `now` value (epoch milliseconds or an RFC 3339 string) into
/// epoch milliseconds. Relative words (`now`, `tomorrow`) are refused: the
/// core has no clock to read them against.
pub fn now_ms(v: &Value, path: &str) -> Result<i64> {
    let refused = |found: String| {
        SteplineError::at(
            ErrorCode::InvalidTimestamp,
            path,
            format!("expected an RFC 3339 timestamp or epoch milliseconds, found {found}"),
        )
    };
    match v {
        Value::String(s) => {
            crate::session::status::epoch_ms(s).ok_or_else(|| refused(crate::json::quote(s)))
        }
        Value::Number(n) => match n.as_f64() {
            // Within ±2^53 ms (±285,000 years): exact as an integer.
            Some(ms) if ms.is_finite() && ms.abs() <= 9_007_199_254_740_992.0 => {
                Ok(ms.floor() as i64)
            }
            _ => Err(refused(crate::json::number_text(n))),
        },
        other => Err(SteplineError::at(
            ErrorCode::InvalidType,
            path,
            format!(
                "expected `now` as an RFC 3339 string or epoch milliseconds, found {}",
                crate::json::type_name(other)
            ),
        )),
    }
}

/// Whether `e` is stale at `clock` with the limit `after`.
fn is_stale(e: &Execution, after: i64, clock: Option<i64>) -> bool {
    let ended = e.status().is_some_and(|s| TERMINAL.contains(&s));
    match (e.last_ms, clock) {
        (Some(last), Some(now)) if !ended => now.saturating_sub(last) >= after,
        _ => false,
    }
}

impl Session {
    /// Sets the silence limit in milliseconds (`None`: executions are never
    /// marked stale) and re-marks every execution.
    pub fn set_stale_after(&mut self, after_ms: Option<i64>) {
        self.staleness.after_ms = after_ms;
        // Timestamps are read only while a limit is set (a bulk replay
        // without one parses none): catch up on those already applied.
        for e in &mut self.executions {
            if e.last_ms.is_none() {
                e.last_ms = e
                    .last_at
                    .as_deref()
                    .and_then(crate::session::status::epoch_ms);
            }
            if let Some(last) = e.last_ms {
                let clock = &mut self.staleness.clock_ms;
                *clock = Some(clock.map_or(last, |c| c.max(last)));
            }
        }
        self.remark_stale();
    }

    /// The silence limit in milliseconds, if any.
    pub fn stale_after(&self) -> Option<i64> {
        self.staleness.after_ms
    }

    /// Tells the session the time (Unix epoch milliseconds). An earlier
    /// time than the clock already shows changes nothing. Returns whether
    /// any execution's `stale` flag changed.
    pub fn set_now(&mut self, now_ms: i64) -> bool {
        if self.staleness.clock_ms.is_some_and(|c| c >= now_ms) {
            return false;
        }
        self.staleness.clock_ms = Some(now_ms);
        self.due_stale()
    }

    /// After an envelope was applied to execution `pos` at `ts`: its own
    /// silence restarts, and the clock may have moved on for the others.
    pub(crate) fn stale_after_apply(&mut self, pos: usize, ts: Option<&str>) {
        let Some(after) = self.staleness.after_ms else {
            return;
        };
        let at = ts.and_then(crate::session::status::epoch_ms);
        if let Some(at) = at {
            if self.staleness.clock_ms.is_none_or(|c| at > c) {
                self.staleness.clock_ms = Some(at);
            }
        }
        let clock = self.staleness.clock_ms;
        if let Some(e) = self.executions.get_mut(pos) {
            if let Some(at) = at {
                e.last_ms = Some(e.last_ms.map_or(at, |l| l.max(at)));
            }
            let stale = is_stale(e, after, clock);
            if stale != e.stale {
                e.stale = stale;
                self.dirty.touch(pos, Touched::Header);
            }
            if let Some(last) = e.last_ms.filter(|_| !e.stale) {
                let deadline = last.saturating_add(after);
                self.staleness.next_deadline = Some(
                    self.staleness
                        .next_deadline
                        .map_or(deadline, |d| d.min(deadline)),
                );
            }
        }
        self.due_stale();
    }

    /// Re-marks every execution when the clock reached the next deadline.
    fn due_stale(&mut self) -> bool {
        let (Some(clock), Some(deadline)) = (self.staleness.clock_ms, self.staleness.next_deadline)
        else {
            return false;
        };
        if clock < deadline {
            return false;
        }
        self.remark_stale()
    }

    /// Marks every execution stale or not, and finds the next deadline.
    fn remark_stale(&mut self) -> bool {
        let clock = self.staleness.clock_ms;
        let mut next: Option<i64> = None;
        let mut changed = false;
        for pos in 0..self.executions.len() {
            let Some(e) = self.executions.get_mut(pos) else {
                continue;
            };
            let stale = match self.staleness.after_ms {
                Some(after) => {
                    let stale = is_stale(e, after, clock);
                    let ended = e.status().is_some_and(|s| TERMINAL.contains(&s));
                    if let Some(last) = e.last_ms.filter(|_| !stale && !ended) {
                        let deadline = last.saturating_add(after);
                        next = Some(next.map_or(deadline, |d| d.min(deadline)));
                    }
                    stale
                }
                None => false,
            };
            if stale != e.stale {
                e.stale = stale;
                changed = true;
                self.dirty.touch(pos, Touched::Header);
            }
        }
        self.staleness.next_deadline = next;
        changed
    }
}

//! Span times, from envelope timestamps only. A step or tool that lacks a
//! start or end borrows it from its neighbours (the previous step's end, the
//! next step's start, its step's or execution's bounds); nothing reads a
//! clock. A span with no timestamp anywhere in its execution gets `0`, which
//! OTLP reads as "unknown".

use crate::session::attribution::instant;
use crate::session::view::Execution;

/// Nanoseconds since the Unix epoch of an envelope timestamp (µs precision).
pub fn nanos(ts: Option<&str>) -> Option<i64> {
    ts.and_then(instant).map(|us| us.saturating_mul(1000))
}

/// `[start, end]` of a span, `end` never before `start`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Interval {
    /// Start, ns since the epoch (0: unknown).
    pub start: i64,
    /// End, ns since the epoch (0: unknown).
    pub end: i64,
}

impl Interval {
    /// From optional ends, each falling back to the other, then to `outer`.
    pub fn of(start: Option<i64>, end: Option<i64>, outer: Interval) -> Interval {
        let s = start.or(end).unwrap_or(outer.start);
        let e = end.or(start).unwrap_or(outer.end);
        Interval {
            start: s,
            end: e.max(s),
        }
    }
}

/// The execution's interval: its first and last envelope timestamps.
pub fn execution(e: &Execution) -> Interval {
    Interval::of(
        nanos(e.first_at.as_deref()),
        nanos(e.last_at.as_deref()),
        Interval::default(),
    )
}

/// Each step's interval, in step order: a missing start is the previous
/// step's end (or the execution's start), a missing end the next step's
/// start (or the execution's end).
pub fn steps(e: &Execution, run: Interval) -> Vec<Interval> {
    let steps: Vec<_> = e.steps.values().collect();
    let mut out = Vec::with_capacity(steps.len());
    let mut prev_end = run.start;
    for (i, s) in steps.iter().enumerate() {
        let next_start = steps
            .get(i + 1)
            .and_then(|n| nanos(n.started_at.as_deref()))
            .unwrap_or(run.end);
        let start = nanos(s.started_at.as_deref()).unwrap_or(prev_end);
        let end = nanos(s.completed_at.as_deref()).unwrap_or(next_start.max(start));
        let iv = Interval {
            start,
            end: end.max(start),
        };
        prev_end = iv.end;
        out.push(iv);
    }
    out
}

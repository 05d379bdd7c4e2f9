//! Which step a tool event belongs to.
//!
//! v1.22 tool events carry neither a step number nor a call id, so the wire
//! alone does not say which step ran them. Placing each at "the step that
//! started last when it arrived" is right only for in-order delivery: a
//! resync that replays a finished run, or envelopes published by several
//! workers at once, put them on whatever step arrived last. So:
//!
//! - An event with its own `step_number` / `step_index` goes there
//!   (`attribution: "step_number"` in the view).
//! - Else, when its timestamp decides, it goes to the step running at that
//!   instant: the step that started last at or before it, provided that
//!   step had not already completed before it and no other step's
//!   started..completed interval also holds it (`"timestamp"`). Whenever a
//!   step's start or completion arrives (or changes), the events whose
//!   instant lies near it are placed again, so delivery order does not matter.
//! - Where timestamps cannot decide — a frozen clock, or two steps started
//!   (or one completed and the next started) in the same instant as the
//!   event — it stays on the step that was last started when it arrived
//!   (`"arrival"`). So does an event whose step has not arrived yet
//!   (its instant is after the last known step completed, or before every
//!   known start); it moves once that step arrives.
//!
//! Each step's tool runs are assembled from its events in timestamp order
//! (arrival order among equal timestamps), so a start and its completion
//! pair the same way whatever order they came in. Instants are compared at
//! microsecond precision (producers send milliseconds).
//!
//! ```
//! use stepline::session::Session;
//! let env = |t: &str, ts: &str, p: &str| format!(
//!     r#"{{"type":"{t}","session_id":"s","execution_id":"e","timestamp":"2026-01-20T12:00:{ts}Z","payload":{p}}}"#);
//! let mut s = Session::new(None);
//! // Step 2's tool call arrives before step 2's start (two publishers).
//! s.ingest_text(&env("agent.step.started", "01.000", r#"{"step_number":1}"#)).unwrap();
//! s.ingest_text(&env("agent.step.completed", "02.000", r#"{"step_number":1}"#)).unwrap();
//! s.ingest_text(&env("agent.tool.started", "03.500", r#"{"tool_name":"search"}"#)).unwrap();
//! s.ingest_text(&env("agent.step.started", "03.000", r#"{"step_number":2}"#)).unwrap();
//! let steps = &s.view()["executions"][0]["steps"];
//! assert_eq!(steps[0]["tools"].as_array().map(Vec::len), Some(0));
//! assert_eq!(steps[1]["tools"][0]["attribution"], "timestamp");
//! ```

use std::collections::{BTreeMap, BTreeSet};

use crate::json::Map;
use crate::model::time::Timestamp;
use crate::session::apply::tool_event;
use crate::session::dedup::Fingerprint;
use crate::session::view::StepView;

/// How a tool run was placed in its step (the view's `attribution`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Attribution {
    /// The events carried the step number.
    #[default]
    StepNumber,
    /// The timestamps placed it inside the step's started..completed interval.
    Timestamp,
    /// Timestamps could not decide: the step last started when it arrived.
    Arrival,
}

impl Attribution {
    pub fn as_str(self) -> &'static str {
        match self {
            Attribution::StepNumber => "step_number",
            Attribution::Timestamp => "timestamp",
            Attribution::Arrival => "arrival",
        }
    }
}

/// Where a tool event goes, and whether timestamps tied (several steps
/// could hold it), which is when a repeat of an event can be a new call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub step: i64,
    pub attribution: Attribution,
    pub tie: bool,
}

/// A step's known start and completion instants (µs since the epoch).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Bounds {
    start: Option<i64>,
    end: Option<i64>,
}

/// One tool event as received: kept so that a step's runs can be assembled
/// again when an event moves in or out of it.
#[derive(Clone, Debug, PartialEq)]
struct Half {
    seq: u64,
    at: Option<i64>,
    ts: Option<String>,
    kind: &'static str,
    payload: Map,
    /// The envelope's content fingerprint (without occurrence).
    content: Option<Fingerprint>,
    own_step: bool,
    arrival: i64,
    step: i64,
    attribution: Attribution,
}

impl Half {
    /// Timestamp order, arrival order among equals (and after timed ones
    /// when it has no timestamp).
    fn key(&self) -> (i64, u64) {
        (self.at.unwrap_or(i64::MAX), self.seq)
    }
}

/// The context of the next tool event, set by the session before `apply`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pending {
    /// The step last started in the delivering batch (a replay's own order),
    /// used instead of the session's when timestamps cannot decide.
    pub arrival: Option<i64>,
    pub content: Option<Fingerprint>,
}

/// An execution's tool events and step intervals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolPlacement {
    halves: Vec<Half>,
    /// Per step, its events' positions in `halves`, in [`Half::key`] order.
    per_step: BTreeMap<i64, Vec<usize>>,
    /// Events without a step number that have a timestamp: `(at, seq, position)`.
    timed: BTreeSet<(i64, u64, usize)>,
    /// Step starts `(at, step)`.
    starts: BTreeSet<(i64, i64)>,
    /// Completions `(at, step)` of steps whose start never arrived.
    startless: BTreeSet<(i64, i64)>,
    bounds: BTreeMap<i64, Bounds>,
    /// Steps whose runs changed by a move, for the next patch.
    moved: Vec<i64>,
    pub pending: Pending,
}

/// An envelope timestamp as µs since the epoch (the decoder checked its
/// RFC 3339 shape; anything else is `None`).
pub fn instant(ts: &str) -> Option<i64> {
    static ORIGIN: std::sync::OnceLock<Option<Timestamp>> = std::sync::OnceLock::new();
    let origin = ORIGIN.get_or_init(|| crate::model::time::from_epoch_millis(0.0));
    crate::model::time::parse(ts, origin.as_ref()?).map(|t| t.timestamp_micros())
}

impl ToolPlacement {
    fn end(&self, step: i64) -> Option<i64> {
        self.bounds.get(&step).and_then(|b| b.end)
    }

    /// The previous step's last known instant (its completion, else its start).
    fn before(&self, step: i64) -> Option<i64> {
        self.bounds
            .range(..step)
            .next_back()
            .and_then(|(_, b)| b.end.or(b.start))
    }

    /// Where an event at `at` goes, given the step it would take by arrival.
    ///
    /// The steps that could hold it: the step started last at or before it
    /// (unless that one completed before it), any other step started in the
    /// same instant, earlier-started steps that completed at or after it,
    /// and steps whose start never arrived that completed at or after it
    /// while the step before them ended at or before it.
    pub fn place(&self, at: Option<i64>, arrival: i64) -> Placement {
        let by_arrival = |tie| Placement {
            step: arrival,
            attribution: Attribution::Arrival,
            tie,
        };
        let Some(t) = at else {
            return by_arrival(true);
        };
        let mut cands: Vec<i64> = Vec::new();
        let mut tied = false;
        let latest = self.starts.range(..=(t, i64::MAX)).next_back().copied();
        if let Some((m, k)) = latest {
            tied = self.starts.range((m, i64::MIN)..(m, k)).next().is_some();
            if tied || self.end(k).is_none_or(|e| e >= t) {
                cands.push(k);
            }
            for &(_, j) in self.starts.range(..(m, i64::MIN)).rev() {
                match self.end(j) {
                    Some(e) if e >= t && cands.len() < 2 => cands.push(j),
                    _ => break,
                }
            }
        }
        for &(_, j) in self.startless.range((t, i64::MIN)..) {
            if cands.len() >= 2 || self.before(j).is_some_and(|p| p > t) {
                break;
            }
            cands.push(j);
        }
        match (tied, cands.as_slice()) {
            (false, []) => by_arrival(false),
            (false, [j]) => Placement {
                step: *j,
                attribution: Attribution::Timestamp,
                tie: false,
            },
            _ => {
                let holds = |s: i64| {
                    cands.contains(&s)
                        || (tied
                            && latest.is_some_and(|(m, _)| {
                                self.bounds.get(&s).and_then(|b| b.start) == Some(m)
                            }))
                };
                let fallback = latest.map_or(cands.first().copied(), |(_, k)| Some(k));
                Placement {
                    step: if holds(arrival) {
                        arrival
                    } else {
                        fallback.unwrap_or(arrival)
                    },
                    attribution: Attribution::Arrival,
                    tie: true,
                }
            }
        }
    }

    /// Whether a repeat of an event already applied (same content) is a new
    /// call rather than a redelivery. Only when timestamps tie (a frozen
    /// clock) and the step it would join has no event of that content yet;
    /// then, if that step completed, only when it may still hold this call:
    /// it did not say it made no tool calls, and it holds no run of that
    /// tool yet or one waiting for this half (the producer sends a step's
    /// tool events before its completion; a step whose runs are all whole
    /// takes a late copy of an earlier step's event as the redelivery it is).
    pub fn repeat_is_new(
        &self,
        steps: &BTreeMap<i64, StepView>,
        at: Option<i64>,
        arrival: i64,
        content: Fingerprint,
        kind: &str,
        name: &str,
    ) -> bool {
        let p = self.place(at, arrival);
        if !p.tie {
            return false;
        }
        let has = self.per_step.get(&p.step).is_some_and(|l| {
            l.iter()
                .any(|&i| self.halves.get(i).and_then(|h| h.content) == Some(content))
        });
        if has {
            return false;
        }
        let Some(step) = steps.get(&p.step) else {
            return true;
        };
        if !step.seen_completed {
            return true;
        }
        if step.has_tool_calls == Some(false) {
            return false;
        }
        let mut runs = step.tools.iter().filter(|t| t.name == name).peekable();
        let none = runs.peek().is_none();
        let waiting = runs.any(|t| match kind {
            "agent.tool.started" => !t.seen_started,
            "agent.tool.completed" | "agent.tool.failed" => !t.seen_completed,
            _ => true,
        });
        none || waiting
    }

    /// Adds a tool event and builds its run; returns the step it went to.
    /// `own` is the step number the event carries, `arrival` the step it
    /// takes when timestamps cannot decide.
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        steps: &mut BTreeMap<i64, StepView>,
        kind: &'static str,
        ts: Option<String>,
        payload: Map,
        own: Option<i64>,
        arrival: i64,
        seq: u64,
        limit: usize,
    ) -> i64 {
        let pending = std::mem::take(&mut self.pending);
        let arrival = pending.arrival.unwrap_or(arrival);
        let at = ts.as_deref().and_then(instant);
        let p = match own {
            Some(step) => Placement {
                step,
                attribution: Attribution::StepNumber,
                tie: false,
            },
            None => self.place(at, arrival),
        };
        let i = self.halves.len();
        self.halves.push(Half {
            seq,
            at,
            ts,
            kind,
            payload,
            content: pending.content,
            own_step: own.is_some(),
            arrival,
            step: p.step,
            attribution: p.attribution,
        });
        if let (None, Some(a)) = (own, at) {
            self.timed.insert((a, seq, i));
        }
        let key = self.halves[i].key();
        let list = self.per_step.entry(p.step).or_default();
        let last = list.last().and_then(|&j| self.halves.get(j)).map(Half::key);
        if last.is_none_or(|l| l < key) {
            // In order (the usual case): this event's run only.
            list.push(i);
            let step = steps.entry(p.step).or_insert_with(|| StepView::new(p.step));
            apply_half(step, &self.halves[i], limit);
        } else {
            let at = list.partition_point(|&j| self.halves.get(j).map(Half::key) < Some(key));
            list.insert(at, i);
            self.rebuild(steps, p.step, limit);
        }
        p.step
    }

    /// Reads step `n`'s start and completion from the view after an event
    /// changed it, and places again the events whose step that may change.
    pub fn step_changed(&mut self, steps: &mut BTreeMap<i64, StepView>, n: i64, limit: usize) {
        let Some(s) = steps.get(&n) else {
            return;
        };
        let new = Bounds {
            start: s.started_at.as_deref().and_then(instant),
            end: s.completed_at.as_deref().and_then(instant),
        };
        let old = self.bounds.get(&n).copied().unwrap_or_default();
        if new == old {
            return;
        }
        let index = |b: Bounds| match (b.start, b.end) {
            (Some(a), _) => (true, Some(a)),
            (None, e) => (false, e),
        };
        for (b, add) in [(old, false), (new, true)] {
            let set = match index(b) {
                (true, Some(a)) => Some((&mut self.starts, a)),
                (false, Some(e)) => Some((&mut self.startless, e)),
                _ => None,
            };
            if let Some((set, a)) = set {
                if add {
                    set.insert((a, n));
                } else {
                    set.remove(&(a, n));
                }
            }
        }
        self.bounds.insert(n, new);
        // The step can take or give up events from where the step before it
        // ended up to the next start (or its own end, if later).
        let lo = [self.before(n), old.start, new.start, old.end, new.end]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(i64::MIN);
        let top = old.start.max(new.start).unwrap_or(lo);
        let next = self
            .starts
            .range((top, i64::MAX)..)
            .map(|&(a, _)| a)
            .find(|&a| a > top);
        let hi = [next, old.end, new.end]
            .into_iter()
            .flatten()
            .max()
            .filter(|_| next.is_some())
            .unwrap_or(i64::MAX);
        self.replace(steps, lo, hi, limit);
    }

    /// Places again the events timed within `lo..=hi`.
    fn replace(&mut self, steps: &mut BTreeMap<i64, StepView>, lo: i64, hi: i64, limit: usize) {
        let within: Vec<usize> = self
            .timed
            .range((lo, 0, 0)..=(hi, u64::MAX, usize::MAX))
            .map(|&(_, _, i)| i)
            .collect();
        let mut changed = Vec::new();
        for i in within {
            let Some(h) = self.halves.get(i) else {
                continue;
            };
            let p = self.place(h.at, h.arrival);
            if p.step == h.step && p.attribution == h.attribution {
                continue;
            }
            let (from, key) = (h.step, h.key());
            if let Some(list) = self.per_step.get_mut(&from) {
                list.retain(|&j| j != i);
            }
            let list = self.per_step.entry(p.step).or_default();
            let at = list.partition_point(|&j| self.halves.get(j).map(Half::key) < Some(key));
            list.insert(at, i);
            if let Some(h) = self.halves.get_mut(i) {
                h.step = p.step;
                h.attribution = p.attribution;
            }
            changed.extend([from, p.step]);
        }
        crate::sort::sort(&mut changed);
        changed.dedup();
        for n in changed {
            self.rebuild(steps, n, limit);
            self.moved.push(n);
        }
    }

    /// Assembles step `n`'s runs again from its events.
    fn rebuild(&mut self, steps: &mut BTreeMap<i64, StepView>, n: i64, limit: usize) {
        let step = steps.entry(n).or_insert_with(|| StepView::new(n));
        step.tools.clear();
        for &i in self.per_step.get(&n).map_or(&[][..], Vec::as_slice) {
            if let Some(h) = self.halves.get(i) {
                apply_half(step, h, limit);
            }
        }
    }

    /// The steps whose runs moved since the last call.
    pub fn take_moved(&mut self) -> Vec<i64> {
        std::mem::take(&mut self.moved)
    }

    /// How many tool events carried no step number (for tests and summaries).
    pub fn anonymous(&self) -> usize {
        self.halves.iter().filter(|h| !h.own_step).count()
    }
}

fn apply_half(step: &mut StepView, h: &Half, limit: usize) {
    let run = tool_event(step, h.kind, h.ts.clone(), &mut h.payload.clone(), limit);
    if let Some(r) = step.tools.get_mut(run) {
        r.attribution = r.attribution.max(h.attribution);
    }
}

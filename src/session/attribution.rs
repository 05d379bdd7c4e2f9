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

use std::num::NonZeroU64;

use crate::event::{ToolEvent, ToolKind};
use crate::session::apply::tool_event;
use crate::session::blocks::Blocks;
use crate::session::dedup::{seen_key, Fingerprint};
use crate::session::kept_tool_event::{KeptToolEvent, Names};
use crate::session::stamp::Stamp;
use crate::session::view::{StepMap, StepView};

/// How a tool run was placed in its step (the view's `attribution`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
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
    /// The view's value: `step_number`, `timestamp` or `arrival`.
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
    /// The envelope's timestamp when [`written`] of `at` does not give it
    /// back: the producers' usual form is left out, since the tool run
    /// built from the event holds it already (a copy per event was about
    /// 36 bytes, bench/findings.md, issue 27's sixth pass).
    ts: Option<Box<str>>,
    event: KeptToolEvent,
    /// The envelope's content fingerprint (without occurrence), as its
    /// [`Content`].
    content: Option<Content>,
    /// [`Pending::repeated`] when it was added.
    repeated: bool,
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

    /// The envelope's timestamp as a tool run keeps it.
    fn stamp(&self) -> Option<Stamp> {
        match (&self.ts, self.at) {
            (Some(t), _) => Some(Stamp::Text(t.clone())),
            (None, Some(at)) => Some(Stamp::At(at)),
            (None, None) => None,
        }
    }
}

/// A content fingerprint as a [`Half`] compares it: the 64 bits of it the
/// session's redelivery set keeps (src/json/seen.rs), in 8 bytes where an
/// optional fingerprint took 24 in wasm32 (bench/findings.md).
type Content = NonZeroU64;

fn content_of(fp: Fingerprint) -> Content {
    NonZeroU64::new(seen_key(fp)).unwrap_or(NonZeroU64::MIN)
}

/// The timestamp `ts` (whose instant is `at`) as a [`Half`] keeps it:
/// nothing when [`written`] gives it back.
fn kept_ts(ts: Option<&str>, at: Option<i64>) -> Option<Box<str>> {
    let ts = ts?;
    match at {
        Some(at) if written_bytes(at).as_slice() == ts.as_bytes() => None,
        _ => Some(ts.into()),
    }
}

/// Instant `at` (µs since the epoch) as `YYYY-MM-DDTHH:MM:SS.mmmZ` (six
/// digits of fraction when it has microseconds): [`instant`] read backwards
/// for the form producers send.
pub(crate) fn written(at: i64) -> String {
    String::from_utf8_lossy(written_bytes(at).as_slice()).into_owned()
}

/// The bytes of [`written`], on the stack: each tool event is compared with
/// them, and formatting machinery cost about 2,700 instructions an event.
pub(crate) struct Written {
    bytes: [u8; 27],
    len: usize,
}

impl Written {
    pub(crate) fn as_slice(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or_default()
    }
}

pub(crate) fn written_bytes(at: i64) -> Written {
    // H. Hinnant's civil-from-days, the inverse of `instant`'s days-from-civil.
    let (secs, micros) = (at.div_euclid(1_000_000), at.rem_euclid(1_000_000));
    let (days, day_secs) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let mut w = Written {
        bytes: [0; 27],
        len: 0,
    };
    // A half leaves its timestamp out only when these bytes equal it, and
    // `instant` of the timestamp is `at`: a year outside 0..=9999 (an
    // offset can carry one over) writes other text, so that text is kept.
    let mut put = |v: i64, width: u32, after: u8| {
        for k in (0..width).rev() {
            let digit = (v / 10i64.pow(k)).rem_euclid(10) as u8;
            if let Some(b) = w.bytes.get_mut(w.len) {
                *b = b'0' + digit;
            }
            w.len += 1;
        }
        if let Some(b) = w.bytes.get_mut(w.len) {
            *b = after;
        }
        w.len += 1;
    };
    put(y, 4, b'-');
    put(m, 2, b'-');
    put(d, 2, b'T');
    put(day_secs / 3600, 2, b':');
    put(day_secs / 60 % 60, 2, b':');
    put(day_secs % 60, 2, b'.');
    if micros % 1000 == 0 {
        put(micros / 1000, 3, b'Z');
    } else {
        put(micros, 6, b'Z');
    }
    w.len = w.len.min(w.bytes.len());
    w
}

/// The context of the next tool event, set by the session before `apply`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pending {
    /// The step last started in the delivering batch (a replay's own order),
    /// used instead of the session's when timestamps cannot decide.
    pub arrival: Option<i64>,
    pub content: Option<Fingerprint>,
    /// Whether an envelope of the same content was applied before (its
    /// occurrence number is above 1): only such an event can be a
    /// completion told apart from an identical one by count.
    pub repeated: bool,
}

/// One step's known bounds and its events' positions in `halves`, in
/// [`Half::key`] order. (Sorted vectors rather than trees: each tree type
/// is kilobytes of the live entry's wasm.)
#[derive(Clone, Debug, Default, PartialEq)]
struct Slot {
    step: i64,
    bounds: Bounds,
    events: Vec<usize>,
}

fn insert_sorted<T: Ord>(v: &mut Vec<T>, x: T) {
    if let Err(i) = v.binary_search(&x) {
        v.insert(i, x);
    }
}

fn remove_sorted<T: Ord>(v: &mut Vec<T>, x: &T) {
    if let Ok(i) = v.binary_search(x) {
        v.remove(i);
    }
}

/// Tool events per block of [`ToolPlacement`]'s list: 36 KiB in wasm32. A
/// doubling vector of them was the largest buffer of a long run after its
/// text (1.1 MiB for 4,000 events, and half that again while it grew).
const HALVES_BLOCK: usize = 128;

/// An execution's tool events and step intervals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolPlacement {
    halves: Blocks<Half, HALVES_BLOCK>,
    /// The tool names the halves' events use.
    names: Names,
    /// Per step (by number), its bounds and its events.
    slots: Vec<Slot>,
    /// Events without a step number that have a timestamp: `(at, seq, position)`, sorted.
    timed: Vec<(i64, u64, usize)>,
    /// Step starts `(at, step)`, sorted.
    starts: Vec<(i64, i64)>,
    /// Completions `(at, step)` of steps whose start never arrived, sorted.
    startless: Vec<(i64, i64)>,
    /// Steps whose runs changed by a move, for the next patch.
    moved: Vec<i64>,
    pub pending: Pending,
}

/// An envelope timestamp (`YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, the
/// shape the decoder checked) as µs since the epoch; anything else is `None`.
/// Read by hand: the calendar code of a date library was kilobytes of the
/// live entry's wasm.
pub fn instant(ts: &str) -> Option<i64> {
    // The fixed-width head taken apart in one pattern, each digit checked
    // as it is read: a bounds-checked slice and a fold per field cost about
    // 300 instructions a call, once or twice for every envelope of a bulk
    // replay (bench/findings.md).
    let (head, rest) = ts.as_bytes().split_first_chunk::<19>()?;
    let [y0, y1, y2, y3, b'-', mo0, mo1, b'-', d0, d1, b'T' | b't' | b' ', h0, h1, b':', mi0, mi1, b':', s0, s1] =
        *head
    else {
        return None;
    };
    let digit = |c: u8| {
        let d = c.wrapping_sub(b'0');
        (d < 10).then_some(i64::from(d))
    };
    let two = |a: u8, b: u8| Some(digit(a)? * 10 + digit(b)?);
    let y = two(y0, y1)? * 100 + two(y2, y3)?;
    let (mo, d) = (two(mo0, mo1)?, two(d0, d1)?);
    let (h, mi, s) = (two(h0, h1)?, two(mi0, mi1)?, two(s0, s1)?);
    let mut rest = rest;
    let mut micros = 0i64;
    if let [b'.', frac @ ..] = rest {
        let digits = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        let (read, after) = frac.split_at(digits);
        // Digits past the sixth are read and dropped (below a microsecond).
        let mut scale = 100_000;
        for &c in read.iter().take(6) {
            micros += i64::from(c - b'0') * scale;
            scale /= 10;
        }
        rest = after;
    }
    let offset = match *rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), oh0, oh1, b':', om0, om1] => {
            let o = two(oh0, oh1)? * 3600 + two(om0, om1)? * 60;
            if sign == b'-' {
                -o
            } else {
                o
            }
        }
        _ => return None,
    };
    Some(epoch_micros([y, mo, d, h, mi, s], offset, micros))
}

/// µs since the epoch of a civil date and time (`[year, month, day, hour,
/// minute, second]`) at `offset` seconds east of UTC, plus `micros`.
fn epoch_micros([y, mo, d, h, mi, s]: [i64; 6], offset: i64, micros: i64) -> i64 {
    // Days from the civil date (proleptic Gregorian, H. Hinnant's algorithm).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((mo + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + mi * 60 + s - offset;
    secs * 1_000_000 + micros
}

/// Up to two steps, in the order pushed (a third push is dropped; the
/// callers never make one).
#[derive(Default)]
struct Two {
    items: [i64; 2],
    len: usize,
}

impl Two {
    fn push(&mut self, step: i64) {
        if let Some(slot) = self.items.get_mut(self.len) {
            *slot = step;
            self.len += 1;
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn as_slice(&self) -> &[i64] {
        self.items.get(..self.len).unwrap_or_default()
    }

    fn contains(&self, step: &i64) -> bool {
        self.as_slice().contains(step)
    }

    fn first(&self) -> Option<&i64> {
        self.as_slice().first()
    }
}

impl ToolPlacement {
    fn slot(&self, step: i64) -> Option<&Slot> {
        let i = self.slots.binary_search_by_key(&step, |s| s.step).ok()?;
        self.slots.get(i)
    }

    #[expect(clippy::indexing_slicing, reason = "`i` was found, or inserted at")]
    fn slot_mut(&mut self, step: i64) -> &mut Slot {
        let i = match self.slots.binary_search_by_key(&step, |s| s.step) {
            Ok(i) => i,
            Err(i) => {
                self.slots.insert(
                    i,
                    Slot {
                        step,
                        ..Slot::default()
                    },
                );
                i
            }
        };
        &mut self.slots[i]
    }

    fn bounds(&self, step: i64) -> Bounds {
        self.slot(step).map(|s| s.bounds).unwrap_or_default()
    }

    fn events(&self, step: i64) -> &[usize] {
        self.slot(step).map_or(&[][..], |s| s.events.as_slice())
    }

    fn end(&self, step: i64) -> Option<i64> {
        self.bounds(step).end
    }

    /// The previous step's last known instant (its completion, else its start).
    fn before(&self, step: i64) -> Option<i64> {
        let i = self.slots.partition_point(|s| s.step < step);
        self.slots
            .get(..i)
            .unwrap_or_default()
            .iter()
            .rev()
            .map(|s| s.bounds)
            .find(|b| b.start.is_some() || b.end.is_some())
            .and_then(|b| b.end.or(b.start))
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
        // At most two candidates (the loops below stop there): kept on the
        // stack, where a `Vec` was an allocation and a free per placement,
        // and tool events are placed again whenever a step's bounds move.
        let mut cands = Two::default();
        let mut tied = false;
        let upto = self.starts.partition_point(|&x| x <= (t, i64::MAX));
        let latest = upto
            .checked_sub(1)
            .and_then(|i| self.starts.get(i))
            .copied();
        if let Some((m, k)) = latest {
            tied = upto >= 2 && self.starts.get(upto - 2).is_some_and(|x| x.0 == m);
            if tied || self.end(k).is_none_or(|e| e >= t) {
                cands.push(k);
            }
            let below = self.starts.partition_point(|&x| x < (m, i64::MIN));
            for &(_, j) in self.starts.get(..below).unwrap_or_default().iter().rev() {
                match self.end(j) {
                    Some(e) if e >= t && cands.len() < 2 => cands.push(j),
                    _ => break,
                }
            }
        }
        let from = self.startless.partition_point(|&x| x < (t, i64::MIN));
        for &(_, j) in self.startless.get(from..).unwrap_or_default() {
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
                        || (tied && latest.is_some_and(|(m, _)| self.bounds(s).start == Some(m)))
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
        steps: &StepMap,
        at: Option<i64>,
        arrival: i64,
        content: Fingerprint,
        kind: ToolKind,
        name: &str,
    ) -> bool {
        let p = self.place(at, arrival);
        if self.absorbs(steps, p.step, at, content, kind, name) {
            return true;
        }
        if !p.tie {
            return false;
        }
        let has = self
            .events(p.step)
            .iter()
            .any(|&i| self.halves.get(i).and_then(|h| h.content) == Some(content_of(content)));
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
            ToolKind::Started => !t.seen_started,
            ToolKind::Completed | ToolKind::Failed => !t.seen_completed,
            ToolKind::Approval | ToolKind::Output => true,
        });
        none || waiting
    }

    /// Whether step `n` can take one more completion identical to those it
    /// holds (content `content`): calls without ids finishing in the same
    /// millisecond with the same outcome send byte-identical completions
    /// (v2.7: `tool_call_id` is always null, v2.7 quirks 13 and 14). It
    /// can while a call of that tool is open there (started, not completed,
    /// at or before the completion's instant) and the step holds fewer
    /// completions of this content than starts of that tool; otherwise the
    /// repeat is a redelivery. A whole run delivered again finds every call
    /// completed, so it changes nothing.
    fn absorbs(
        &self,
        steps: &StepMap,
        n: i64,
        at: Option<i64>,
        content: Fingerprint,
        kind: ToolKind,
        name: &str,
    ) -> bool {
        if !kind.ends() {
            return false;
        }
        let Some(step) = steps.get(&n) else {
            return false;
        };
        let runs = || {
            step.tools
                .iter()
                .filter(|t| t.name == name && t.seen_started)
        };
        let open = runs().any(|t| {
            let began = t.started_at.as_ref().and_then(Stamp::instant);
            !t.seen_completed && !matches!((began, at), (Some(b), Some(a)) if b > a)
        });
        if !open {
            return false;
        }
        let same = self
            .events(n)
            .iter()
            .filter(|&&i| {
                self.halves
                    .get(i)
                    .is_some_and(|h| h.event.kind == kind && h.content == Some(content_of(content)))
            })
            .count();
        same < runs().count()
    }

    /// Adds a tool event and builds its run; returns the step it went to.
    /// `own` is the step number the event carries, `arrival` the step it
    /// takes when timestamps cannot decide.
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        steps: &mut StepMap,
        event: ToolEvent,
        ts: Option<&str>,
        own: Option<i64>,
        arrival: i64,
        seq: u64,
        limit: usize,
    ) -> i64 {
        let pending = std::mem::take(&mut self.pending);
        let arrival = pending.arrival.unwrap_or(arrival);
        let at = ts.and_then(instant);
        let p = match own {
            Some(step) => Placement {
                step,
                attribution: Attribution::StepNumber,
                tie: false,
            },
            None => self.place(at, arrival),
        };
        let i = self.halves.len();
        let half = Half {
            seq,
            at,
            ts: kept_ts(ts, at),
            event: KeptToolEvent::new(&event, &mut self.names),
            content: pending.content.map(content_of),
            repeated: pending.repeated,
            arrival,
            step: p.step,
            attribution: p.attribution,
        };
        let key = half.key();
        self.halves.push(half);
        if let (None, Some(a)) = (own, at) {
            insert_sorted(&mut self.timed, (a, seq, i));
        }
        let last = self
            .events(p.step)
            .last()
            .and_then(|&j| self.halves.get(j))
            .map(Half::key);
        if last.is_none_or(|l| l < key) {
            // In order (the usual case): this event's run only.
            let earlier = self.events(p.step);
            let repeat = self.halves.get(i).is_some_and(|h| self.repeats(earlier, h));
            self.slot_mut(p.step).events.push(i);
            // The latest step (most events) without the tree's search.
            let step = match steps.last_entry() {
                Some(e) if *e.key() == p.step => e.into_mut(),
                _ => steps
                    .entry(p.step)
                    .or_insert_with(|| Box::new(StepView::new(p.step))),
            };
            if let Some(half) = self.halves.get(i) {
                apply_event(step, &event, half.stamp(), half, repeat, limit);
            }
        } else {
            self.insert_event(p.step, i);
            self.rebuild(steps, p.step, limit);
        }
        p.step
    }

    /// Reads step `n`'s start and completion from the view after an event
    /// changed it, and places again the events whose step that may change.
    pub fn step_changed(&mut self, steps: &mut StepMap, n: i64, limit: usize) {
        let latest = steps.last_key_value().filter(|(&last, _)| last == n);
        let Some(s) = latest.map(|(_, s)| s).or_else(|| steps.get(&n)) else {
            return;
        };
        let new = Bounds {
            start: s.started_at.as_deref().and_then(instant),
            end: s.completed_at.as_deref().and_then(instant),
        };
        let old = self.bounds(n);
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
                    insert_sorted(set, (a, n));
                } else {
                    remove_sorted(set, &(a, n));
                }
            }
        }
        self.slot_mut(n).bounds = new;
        if self.tie_unchanged(steps, n, old, new, limit) {
            return;
        }
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
            .get(self.starts.partition_point(|&x| x <= (top, i64::MAX)))
            .map(|&(a, _)| a);
        let hi = [next, old.end, new.end]
            .into_iter()
            .flatten()
            .max()
            .filter(|_| next.is_some())
            .unwrap_or(i64::MAX);
        self.replace(steps, lo, hi, limit);
    }

    /// Fast paths for a step that starts in the same instant as another (a
    /// frozen clock, where every step event would otherwise place every
    /// event again): returns whether `step_changed` is done.
    ///
    /// A step joining a tie: the events whose latest start is that instant
    /// were tied before and stay tied; only the fallback for events whose
    /// arrival step is not in the tie can change, and those sit on the
    /// tie's highest step. A tied step's completion: ties ignore it, and it
    /// matters to later-started steps' events only if a start lies between.
    fn tie_unchanged(
        &mut self,
        steps: &mut StepMap,
        n: i64,
        old: Bounds,
        new: Bounds,
        limit: usize,
    ) -> bool {
        // A step whose start never arrived is placed by the step before it.
        let (Some(b), true) = (new.start, self.startless.is_empty()) else {
            return false;
        };
        let lo = self.starts.partition_point(|&x| x < (b, i64::MIN));
        let hi = self.starts.partition_point(|&x| x <= (b, i64::MAX));
        let partner = self
            .starts
            .get(lo..hi)
            .unwrap_or_default()
            .iter()
            .rev()
            .map(|&(_, j)| j)
            .find(|&j| j != n);
        let Some(k) = partner else {
            return false;
        };
        let next = self.starts.get(hi).map(|&(a, _)| a);
        if old.start.is_none() && old.end.is_none() && new.end.is_none() {
            let within: Vec<usize> = self
                .events(k)
                .iter()
                .copied()
                .filter(|&i| {
                    self.halves.get(i).is_some_and(|h| {
                        h.attribution != Attribution::StepNumber
                            && h.at.is_some_and(|t| t >= b && next.is_none_or(|x| t < x))
                    })
                })
                .collect();
            self.replace_these(steps, within, limit);
            return true;
        }
        let end = old.end.max(new.end).unwrap_or(b);
        old.start == new.start && next.is_none_or(|x| x > end)
    }

    /// Places again the events timed within `lo..=hi`.
    fn replace(&mut self, steps: &mut StepMap, lo: i64, hi: i64, limit: usize) {
        let from = self.timed.partition_point(|&x| x < (lo, 0, 0));
        let to = self
            .timed
            .partition_point(|&x| x <= (hi, u64::MAX, usize::MAX));
        let within: Vec<usize> = self
            .timed
            .get(from..to.max(from))
            .unwrap_or_default()
            .iter()
            .map(|&(_, _, i)| i)
            .collect();
        self.replace_these(steps, within, limit);
    }

    /// Places the events at these positions again.
    fn replace_these(&mut self, steps: &mut StepMap, within: Vec<usize>, limit: usize) {
        let mut changed = Vec::new();
        for i in within {
            let Some(h) = self.halves.get(i) else {
                continue;
            };
            let p = self.place(h.at, h.arrival);
            if p.step == h.step && p.attribution == h.attribution {
                continue;
            }
            let from = h.step;
            self.slot_mut(from).events.retain(|&j| j != i);
            self.insert_event(p.step, i);
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
    fn rebuild(&mut self, steps: &mut StepMap, n: i64, limit: usize) {
        let step = match steps.last_entry() {
            Some(e) if *e.key() == n => e.into_mut(),
            _ => steps.entry(n).or_insert_with(|| Box::new(StepView::new(n))),
        };
        step.tools.clear();
        let events = self.events(n);
        for (k, &i) in events.iter().enumerate() {
            if let Some(h) = self.halves.get(i) {
                let repeat = self.repeats(events.get(..k).unwrap_or_default(), h);
                apply_event(
                    step,
                    &h.event.event(&self.names),
                    h.stamp(),
                    h,
                    repeat,
                    limit,
                );
            }
        }
    }

    /// Whether event `h` is a completion identical to one of `earlier` (the
    /// step's events before it, in key order): the run it completes was
    /// told apart by count, not identity (`matched_by_count`). An identical
    /// envelope has the same timestamp, so only the events of that instant
    /// just before it are looked at.
    fn repeats(&self, earlier: &[usize], h: &Half) -> bool {
        // Content seen for the first time repeats nothing: the scan below is
        // paid only by the rare repeated completion, keeping ingest linear.
        if !h.repeated || !h.event.kind.ends() || h.content.is_none() {
            return false;
        }
        earlier
            .iter()
            .rev()
            .map_while(|&j| self.halves.get(j).filter(|e| e.at == h.at))
            .any(|e| e.event.kind == h.event.kind && e.content == h.content)
    }

    /// Puts event `i` into step `n`'s list at its place in key order.
    fn insert_event(&mut self, n: i64, i: usize) {
        let key = self.halves.get(i).map(Half::key);
        let at = self
            .events(n)
            .partition_point(|&j| self.halves.get(j).map(Half::key) < key);
        self.slot_mut(n).events.insert(at, i);
    }

    /// The steps whose runs moved since the last call.
    pub fn take_moved(&mut self) -> Vec<i64> {
        std::mem::take(&mut self.moved)
    }
}

/// Applies half `h`, whose event is `event` at timestamp `ts`, to its step's runs.
fn apply_event(
    step: &mut StepView,
    event: &ToolEvent,
    ts: Option<Stamp>,
    h: &Half,
    repeat: bool,
    limit: usize,
) {
    let run = tool_event(step, event, ts, limit);
    if let Some(r) = step.tools.get_mut(run) {
        r.attribution = r.attribution.max(h.attribution);
        r.matched_by_count |= repeat;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_placement_keeps_each_event_in_less_than_a_whole_tool_event() {
        // Each kept event held a whole ToolEvent (thirteen optional fields,
        // most absent) beside the tool run built from it (bench/findings.md,
        // issue 27's fourth pass); now its present fields only.
        use crate::event::ToolEvent;
        use crate::session::attribution::Half;
        let (half, event) = (
            std::mem::size_of::<Half>(),
            std::mem::size_of::<ToolEvent>(),
        );
        assert!(
            half < event,
            "{half} bytes a kept event, {event} a ToolEvent"
        );
    }

    #[test]
    fn many_tool_events_reserve_at_most_a_block_more_than_they_hold() {
        // A doubling list of events reserved up to twice what it held and
        // held both buffers while growing; the wasm memory keeps that peak
        // (bench/findings.md, issue 27's fourth pass).
        use crate::event::{ToolEvent, ToolKind};
        use crate::session::attribution::{ToolPlacement, HALVES_BLOCK};
        let mut p = ToolPlacement::default();
        let mut steps = std::collections::BTreeMap::new();
        let n = 2 * HALVES_BLOCK + 5;
        for i in 0..n {
            let kind = if i % 2 == 0 {
                ToolKind::Started
            } else {
                ToolKind::Completed
            };
            let ts = format!("2026-01-20T12:00:{:02}.{:03}Z", i / 1000, i % 1000);
            let step = i64::try_from(i / 10).unwrap();
            p.add(
                &mut steps,
                ToolEvent::new(kind, "search"),
                Some(&ts),
                Some(step),
                step,
                i as u64,
                usize::MAX,
            );
        }
        assert_eq!(p.halves.len(), n);
        assert!(
            p.halves.reserved() < n + HALVES_BLOCK,
            "{} reserved for {n}",
            p.halves.reserved()
        );
        let runs: usize = steps.values().map(|s| s.tools.len()).sum();
        assert_eq!(runs, n.div_ceil(2));
    }

    #[test]
    fn a_kept_event_leaves_out_the_timestamp_its_instant_writes_back() {
        // Each kept event held a copy of its envelope's timestamp, which
        // the tool run built from it holds too (bench/findings.md, issue
        // 27's sixth pass): now only a timestamp its instant does not give
        // back (another offset, precision or letter case) is kept.
        use crate::session::attribution::{instant, kept_ts, written};
        for ts in [
            "2026-01-20T12:00:01.560Z",
            "2026-01-20T12:00:01.000Z",
            "1970-01-01T00:00:00.000Z",
            "2000-02-29T23:59:59.999Z",
            "2100-03-01T00:00:00.001Z",
            "0001-01-01T00:00:00.000Z",
            "9999-12-31T23:59:59.123456Z",
            "1969-12-31T23:59:59.999Z",
        ] {
            let at = instant(ts);
            assert_eq!(written(at.unwrap()), ts);
            assert_eq!(kept_ts(Some(ts), at), None, "{ts}");
        }
        for ts in [
            "2026-01-20T12:00:01Z",
            "2026-01-20T12:00:01.5Z",
            "2026-01-20T12:00:01.560z",
            "2026-01-20 12:00:01.560Z",
            "2026-01-20T13:00:01.560+01:00",
            "2026-01-20T12:00:01.560000Z",
            "2026-01-20T12:00:01.5601234Z",
            "9999-12-31T23:30:00.000-01:00",
            "0000-01-01T00:30:00.000+01:00",
            "yesterday",
        ] {
            assert_eq!(kept_ts(Some(ts), instant(ts)).as_deref(), Some(ts));
        }
        assert_eq!(kept_ts(None, None), None);
    }

    #[test]
    fn runs_rebuilt_from_kept_events_give_back_each_timestamp_and_name_as_sent() {
        // The usual timestamps and repeated names are not kept per event
        // any more; a rebuild (an event out of timestamp order) writes them
        // back: the runs equal those of the same events in order.
        use crate::event::{ToolEvent, ToolKind};
        use crate::session::attribution::ToolPlacement;
        let events = [
            (ToolKind::Started, "search", "2026-01-20T12:00:01.100Z"),
            (ToolKind::Completed, "search", "2026-01-20T12:00:01.2Z"),
            (ToolKind::Started, "fetch", "2026-01-20T13:00:01.300+01:00"),
            (ToolKind::Completed, "fetch", "2026-01-20T12:00:01.400Z"),
            (ToolKind::Started, "search", "2026-01-20T12:00:01.500001Z"),
            (ToolKind::Completed, "search", "2026-01-20T12:00:01.600Z"),
        ];
        let run = |order: &[usize]| {
            let mut p = ToolPlacement::default();
            let mut steps = std::collections::BTreeMap::new();
            for &i in order {
                let (kind, name, ts) = events[i];
                p.add(
                    &mut steps,
                    ToolEvent::new(kind, name),
                    Some(ts),
                    Some(1),
                    1,
                    i as u64,
                    usize::MAX,
                );
            }
            (p, steps)
        };
        let (p, in_order) = run(&[0, 1, 2, 3, 4, 5]);
        let kept: Vec<bool> = p.halves.iter().map(|h| h.ts.is_some()).collect();
        assert_eq!(kept, [false, true, true, false, false, false]);
        let (_, rebuilt) = run(&[5, 4, 3, 2, 1, 0]);
        assert_eq!(rebuilt, in_order);
        let at = |k: usize| {
            in_order[&1].tools[k]
                .started_at
                .as_ref()
                .map(crate::session::stamp::Stamp::as_str)
        };
        assert_eq!(at(1).as_deref(), Some("2026-01-20T13:00:01.300+01:00"));
        assert_eq!(
            in_order[&1].tools[2]
                .completed_at
                .as_ref()
                .map(crate::session::stamp::Stamp::as_str)
                .as_deref(),
            Some("2026-01-20T12:00:01.600Z")
        );
        assert_eq!(in_order[&1].tools[2].name, "search");
    }

    #[test]
    fn instants_read_any_offset_and_refuse_other_text() {
        use crate::session::attribution::instant;
        assert_eq!(instant("1970-01-01T00:00:01.5Z"), Some(1_500_000));
        assert_eq!(
            instant("2026-01-20T13:00:00.250+01:00"),
            instant("2026-01-20T12:00:00.250Z")
        );
        assert_eq!(instant("yesterday"), None);
    }

    /// The reader as it was before it was made faster (byte ranges folded
    /// one by one), kept to check the new one against.
    fn reference(ts: &str) -> Option<i64> {
        let b = ts.as_bytes();
        let num = |r: std::ops::Range<usize>| {
            b.get(r)?.iter().try_fold(0i64, |n, &c| {
                c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0'))
            })
        };
        let sep = |i: usize, c: u8| b.get(i) == Some(&c);
        if !(sep(4, b'-')
            && sep(7, b'-')
            && matches!(b.get(10), Some(b'T' | b't' | b' '))
            && sep(13, b':')
            && sep(16, b':'))
        {
            return None;
        }
        let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
        let mut i = 19;
        let mut micros = 0i64;
        if sep(i, b'.') {
            i += 1;
            let mut scale = 100_000;
            while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
                micros += i64::from(c - b'0') * scale;
                scale /= 10;
                i += 1;
            }
        }
        let offset = match b.get(i) {
            Some(b'Z' | b'z') if i + 1 == b.len() => 0,
            Some(&c @ (b'+' | b'-')) if i + 6 == b.len() && sep(i + 3, b':') => {
                let o = num(i + 1..i + 3)? * 3600 + num(i + 4..i + 6)? * 60;
                if c == b'-' {
                    -o
                } else {
                    o
                }
            }
            _ => return None,
        };
        // The reading is what is checked here; the calendar is shared.
        Some(super::epoch_micros([y, mo, d, h, mi, s], offset, micros))
    }

    #[test]
    fn instants_read_as_the_range_by_range_reader_did_for_every_variant_of_a_timestamp() {
        use crate::session::attribution::instant;
        let bases = [
            "2026-01-20T12:00:00.250Z",
            "2026-01-20t12:00:00Z",
            "2026-01-20 12:00:00.1234567z",
            "2024-02-29T23:59:59.999999-05:30",
            "1969-12-31T23:59:59.9+14:00",
            "0001-03-01T00:00:00.Z",
            "9999-12-31T23:59:59.12Z",
        ];
        let mut n = 0;
        for base in bases {
            assert_eq!(instant(base), reference(base), "{base}");
            // Every byte replaced by each byte the shape tells apart, every
            // byte cut off, and a byte added at the end.
            let b = base.as_bytes();
            for i in 0..b.len() {
                for c in *b"0959-:.TtZz+ x\xff" {
                    let mut v = b.to_vec();
                    v[i] = c;
                    let v = String::from_utf8_lossy(&v).into_owned();
                    assert_eq!(instant(&v), reference(&v), "{v}");
                    n += 1;
                }
                let cut = &base[..i];
                assert_eq!(instant(cut), reference(cut), "{cut}");
            }
            for extra in ["0", "Z", ":00", "é"] {
                let v = format!("{base}{extra}");
                assert_eq!(instant(&v), reference(&v), "{v}");
            }
        }
        assert!(n > 1000);
    }
}

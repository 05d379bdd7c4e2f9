//! Per-execution checks over the envelope stream: the final status that was
//! never broadcast (v1.22 quirk 7), and execution time limits measured from the
//! session's start instead of the execution's (seed 004, v1.22 quirk 3).

use crate::json::Value;

use super::{
    instant, items, millis, ms_text, text, Diagnostic, Envelope, Severity, Slots,
    FINAL_STATUS_MISSING, TIME_LIMIT_FROM_SESSION_START,
};
use crate::json::{child, index, obj, quote};

/// Broadcast statuses that end an execution (v1.22 quirk 8: the reference maps every
/// stop to one of these).
const TERMINAL: [&str; 4] = ["completed", "failed", "cancelled", "stopped"];
/// Envelopes that mean the agent is doing work.
const ACTIVITY: [&str; 3] = [
    "agent.step.started",
    "agent.tool.started",
    "agent.llm.started",
];

/// One user turn of one execution id (of one session), while walking the stream.
struct Turn {
    /// Position (in the envelope list) where the turn's clock starts.
    start: usize,
    /// A terminal status (or `agent.run.completed|failed`) was seen.
    ended: bool,
    /// The first work envelope, if the turn did any work before it ended.
    work: Option<usize>,
    /// The turn's latest envelope.
    last: usize,
    /// The latest `agent.step.started`.
    last_step: Option<usize>,
}

impl Turn {
    fn new(pos: usize) -> Self {
        Turn {
            start: pos,
            ended: false,
            work: None,
            last: pos,
            last_step: None,
        }
    }
}

/// Whether `e` (an `agent.step.started`) starts the step count over after the
/// step started at `last`: a number not above the last one, not stamped before
/// it (that is a late arrival), and not the same envelope delivered again.
fn restarts(e: &Envelope, last: &Envelope) -> bool {
    let (Some(n), Some(last_n)) = (e.step_number(), last.step_number()) else {
        return false;
    };
    let redelivered = e.stamp == last.stamp && e.payload == last.payload;
    let late = matches!((&e.at, &last.at), (Some(a), Some(b)) if a < b);
    n <= last_n && !redelivered && !late
}

/// The turns of the stream: where each envelope's turn started, and the turns
/// that did work but never ended, as `(first work, last envelope)` positions.
struct Turns {
    start_of: Vec<usize>,
    unfinished: Vec<(usize, usize)>,
}

fn walk(envs: &[Envelope]) -> Turns {
    let mut open = Slots::new();
    let mut start_of = Vec::with_capacity(envs.len());
    let mut unfinished = Vec::new();
    for (pos, e) in envs.iter().enumerate() {
        let t = open.get_or_insert_with(e.run_key(None), || Turn::new(pos));
        let status = match e.kind {
            "agent.status" => e.payload.get("status").and_then(Value::as_str),
            _ => None,
        };
        // A new user turn: `processing` after the end, or the step count starting
        // over. The latter catches the reference's exception path, after which the
        // status stays `processing` and is not broadcast again (only changes are).
        // Work after the end alone is not a new turn: v1.22 quirk 6 and late arrivals.
        let restarted = e.kind == "agent.step.started"
            && t.last_step
                .and_then(|p| envs.get(p))
                .is_some_and(|p| restarts(e, p));
        if (t.ended && status == Some("processing")) || restarted {
            if let (false, Some(first)) = (t.ended, t.work) {
                unfinished.push((first, t.last));
            }
            *t = Turn::new(pos);
        }
        t.last = pos;
        if status.is_some_and(|s| TERMINAL.contains(&s))
            || matches!(e.kind, "agent.run.completed" | "agent.run.failed")
        {
            t.ended = true;
        } else if ACTIVITY.contains(&e.kind) && !t.ended && t.work.is_none() {
            t.work = Some(pos);
        }
        if e.kind == "agent.step.started" {
            t.last_step = Some(pos);
        }
        start_of.push(t.start);
    }
    for t in open.values() {
        if let (false, Some(first)) = (t.ended, t.work) {
            unfinished.push((first, t.last));
        }
    }
    crate::sort::sort(&mut unfinished);
    Turns {
        start_of,
        unfinished,
    }
}

/// Runs both detectors over one walk of the stream: time limits, then final statuses.
pub(super) fn check(
    envs: &[Envelope],
    snapshot: Option<&Value>,
    state: Option<&Value>,
    out: &mut Vec<Diagnostic>,
) {
    let turns = walk(envs);
    time_limit_from_session_start(envs, &turns, state, out);
    final_status_missing(envs, &turns, snapshot, out);
}

/// Flags turns that did work but never broadcast a terminal status. Warning
/// only: the reference's exception path (a throwing driver or tool) does exactly
/// this (v1.22 quirk 7), so it is a producer limitation to know about, not corruption.
fn final_status_missing(
    envs: &[Envelope],
    turns: &Turns,
    snapshot: Option<&Value>,
    out: &mut Vec<Diagnostic>,
) {
    let snapshot_status = snapshot
        .and_then(|s| s.get("status"))
        .and_then(Value::as_str);
    for &(first, last) in &turns.unfinished {
        let (Some(work), Some(end)) = (envs.get(first), envs.get(last)) else {
            continue;
        };
        let mut message = format!(
            "execution {} started work ({} at /envelopes/{}) but never broadcast a final status; \
             its last envelope is {} (/envelopes/{}). The reference does this when the driver or \
             a tool throws (quirk 7).",
            quote(end.execution.unwrap_or("")),
            work.kind,
            work.index,
            end.kind,
            end.index
        );
        // The snapshot describes the end of the stream, so only the turn that ends it.
        let ends_stream = last + 1 == envs.len();
        let ended_status = snapshot_status.filter(|s| {
            ends_stream
                && matches!(
                    *s,
                    "completed" | "failed" | "error" | "cancelled" | "stopped"
                )
        });
        if let Some(s) = ended_status {
            message.push_str(&format!(
                " The snapshot's status is {}: the run did end.",
                quote(s)
            ));
        }
        out.push(Diagnostic {
            code: FINAL_STATUS_MISSING,
            severity: Severity::Warning,
            path: end.path(""),
            message,
            evidence: obj([
                (
                    "execution_id",
                    end.execution.map_or(Value::Null, Value::from),
                ),
                ("first_work_index", Value::from(work.index)),
                ("last_index", Value::from(end.index)),
                ("last_type", Value::from(end.kind)),
                (
                    "snapshot_status",
                    if ends_stream {
                        text(snapshot.and_then(|s| s.get("status")))
                    } else {
                        Value::Null
                    },
                ),
            ]),
        });
    }
}

/// Flags execution-time evaluations whose elapsed time is far more than the
/// time since the execution started: the limit was measured from the session's
/// start. In envelopes, the execution starts at its first envelope (or the
/// `processing` status that opens a later turn); in a state, at
/// `executionStartedAt`, evaluated no later than the step's `completedAt` or the
/// state's `updatedAt`.
fn time_limit_from_session_start(
    envs: &[Envelope],
    turns: &Turns,
    state: Option<&Value>,
    out: &mut Vec<Diagnostic>,
) {
    for (pos, e) in envs.iter().enumerate() {
        if e.kind != "agent.continuation" {
            continue;
        }
        let Some(start) = turns.start_of.get(pos).and_then(|&s| envs.get(s)) else {
            continue;
        };
        let (Some(a), Some(b)) = (&start.at, &e.at) else {
            continue;
        };
        let real = millis(a, b);
        for (j, ev) in items(e.payload.get("evaluations")).iter().enumerate() {
            let reason = ev.get("reason").and_then(Value::as_str);
            let Some(elapsed) = reason
                .filter(|_| is_time_limit(ev))
                .and_then(elapsed_seconds)
            else {
                continue;
            };
            if !measured_from_earlier(elapsed, real) {
                continue;
            }
            out.push(Diagnostic {
                code: TIME_LIMIT_FROM_SESSION_START,
                severity: Severity::Error,
                path: e.path(&format!("/payload/evaluations/{j}/reason")),
                message: too_long(elapsed, real, "the execution's first envelope"),
                evidence: obj([
                    ("execution_id", e.execution.map_or(Value::Null, Value::from)),
                    ("reason", text(ev.get("reason"))),
                    ("reported_elapsed_seconds", Value::from(elapsed)),
                    ("elapsed_since_start_ms", Value::from(real)),
                    ("execution_start_index", Value::from(start.index)),
                    (
                        "execution_started_at",
                        start.stamp.map_or(Value::Null, Value::from),
                    ),
                ]),
            });
        }
    }
    if let Some(s) = state {
        state_time_limit(s, out);
    }
}

/// The state's latest continuation (the only one evaluated in the current
/// execution: `executionStartedAt` is per user query).
fn state_time_limit(state: &Value, out: &mut Vec<Diagnostic>) {
    let results = items(state.get("stepResults"));
    let Some((i, result)) = results.iter().enumerate().next_back() else {
        return;
    };
    let Some(origin) = instant(state.get("executionStartedAt")) else {
        return;
    };
    if instant(result.get("startedAt")).is_some_and(|t| t < origin) {
        return; // an earlier execution's step
    }
    let bound = instant(result.get("completedAt"))
        .or_else(|| instant(state.get("stateInfo").and_then(|s| s.get("updatedAt"))));
    let Some(bound) = bound else {
        return;
    };
    let real = millis(&origin, &bound).max(0.0);
    let path = child(&index("/state/stepResults", i), "outcome");
    let evaluations = items(result.get("outcome").and_then(|o| o.get("evaluations")));
    for (j, ev) in evaluations.iter().enumerate() {
        if !is_time_limit(ev) {
            continue;
        }
        let ev_path = index(&child(&path, "evaluations"), j);
        let from_context = ev
            .get("context")
            .and_then(|c| c.get("elapsedSeconds"))
            .and_then(Value::as_f64);
        let (elapsed, at) = match from_context {
            Some(s) => (s, format!("{ev_path}/context/elapsedSeconds")),
            None => match ev
                .get("reason")
                .and_then(Value::as_str)
                .and_then(elapsed_seconds)
            {
                Some(s) => (s, format!("{ev_path}/reason")),
                None => continue,
            },
        };
        if !measured_from_earlier(elapsed, real) {
            continue;
        }
        out.push(Diagnostic {
            code: TIME_LIMIT_FROM_SESSION_START,
            severity: Severity::Error,
            path: at,
            message: too_long(elapsed, real, "executionStartedAt"),
            evidence: obj([
                ("reason", text(ev.get("reason"))),
                ("reported_elapsed_seconds", Value::from(elapsed)),
                ("elapsed_since_start_ms", Value::from(real)),
                (
                    "execution_started_at",
                    text(state.get("executionStartedAt")),
                ),
                (
                    "session_started_at",
                    text(state.get("stateInfo").and_then(|s| s.get("startedAt"))),
                ),
            ]),
        });
    }
}

/// Whether `ev` is an `ExecutionTimeLimit` evaluation (short or full class
/// name; not the cumulative limit, which spans sessions by design).
fn is_time_limit(ev: &Value) -> bool {
    let criterion = ev.get("criterion").and_then(Value::as_str).unwrap_or("");
    criterion.rsplit('\\').next() == Some("ExecutionTimeLimit")
}

/// The elapsed seconds in a reason such as `Execution time under limit: 12s/300s`
/// or `Execution time limit reached: 301s/300s`: the first number written with
/// an `s` unit.
fn elapsed_seconds(reason: &str) -> Option<f64> {
    reason
        .split(|c: char| c.is_whitespace() || matches!(c, '/' | ':' | ',' | '(' | ')'))
        .filter_map(|word| word.strip_suffix('s'))
        .filter(|n| n.starts_with(|c: char| c.is_ascii_digit() || c == '-'))
        .find_map(|n| crate::json::parse_f64(n).filter(|f| f.is_finite()))
}

/// Far more than the real interval: over twice it, and over a minute more
/// (whole-second rounding and clock skew stay well below that).
fn measured_from_earlier(elapsed_seconds: f64, real_ms: f64) -> bool {
    let reported = elapsed_seconds * 1000.0;
    reported > 2.0 * real_ms && reported - real_ms > 60_000.0
}

fn too_long(elapsed_seconds: f64, real_ms: f64, origin: &str) -> String {
    format!(
        "the execution time limit reports {} ms elapsed, but only {} ms passed since {}: the \
         limit was measured from the session's start (seed 004)",
        ms_text(elapsed_seconds * 1000.0),
        ms_text(real_ms),
        origin
    )
}

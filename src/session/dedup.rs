//! Redelivery detection. An envelope's content is a 128-bit fingerprint of
//! its normalised form, computed by walking the value: nothing is serialised
//! and nothing of the envelope is kept. Its identity is that content plus
//! which occurrence of it the envelope is ([`occurrence`]; the rule and its
//! limit are in `Session`'s `dedup_key`, and a [`Batch`] numbers occurrences
//! by its own order). A long session costs 8 bytes per envelope here (and
//! 8 more per envelope of a turn that reuses an execution id), where keeping
//! each envelope's text as its key cost its whole size again; the first
//! occurrence of a chunk held at its index by the latest turn of its id has
//! its key in that turn's stream text instead (src/session/text.rs), which
//! keeps it anyway (`Session::ingest_in`).
//! The fingerprint itself is src/json/fingerprint.rs.

pub use crate::json::fingerprint::{Fingerprint, Fingerprinter};
pub use crate::json::seen::{seen_key, Seen, SeenKey};
use crate::json::Value;
use crate::session::head::Head;

/// The key of the `k`-th occurrence (from 1) of an envelope with content
/// `f`: the first is `f` itself, so a run without repeats costs nothing more.
pub fn occurrence(f: Fingerprint, k: u32) -> Fingerprint {
    if k <= 1 {
        return f;
    }
    let mut m = Fingerprinter::new();
    m.bytes(b'k', &[]);
    m.word(f.0);
    m.word(f.1);
    m.word(u64::from(k));
    m.finish()
}

/// The key recording that content `f` was applied in the turn at position
/// `turn` (kept only for turns that reuse an earlier turn's execution id).
pub fn turn_mark(f: Fingerprint, turn: usize) -> Fingerprint {
    let mut m = Fingerprinter::new();
    m.bytes(b't', &[]);
    m.word(f.0);
    m.word(f.1);
    m.word(turn as u64);
    m.finish()
}

/// What a batch (a JSONL text, a recording) has delivered so far, so that
/// a replay is judged by its own order, not by where the live session has
/// got to: per content, the contexts it occurred in (the batch's turn of
/// its execution id and, for a tool event without a step number, the step
/// the batch last started); per execution id, that turn and step and the
/// instant each began.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// Contents seen in the batch, and each with the context it first
    /// occurred in (as `context_key`): most contents occur once, so only
    /// the rare repeated ones in other contexts are listed in `more`.
    any: Seen,
    firsts: Seen,
    more: Vec<(Fingerprint, Vec<(u32, i64)>)>,
    /// Per execution id: the batch's turn and step (a few ids per batch:
    /// a list, not a tree type, which would be kilobytes of wasm).
    execs: Vec<(Option<String>, Context)>,
    /// Per stepless tool and context (execution id, turn, step, name): how
    /// many starts and completions the batch numbered as new occurrences,
    /// so an identical completion is a new one only while the context has
    /// a call of that tool open (see [`Batch::occurrence`]).
    tools: Vec<(ToolKey, u32, u32)>,
    /// The keys in `tools`, so a new context is pushed without a scan.
    tool_keys: Seen,
    /// The delivery number the session's log gives this batch's lines (0:
    /// none yet; see [`Batch::delivery`]).
    delivery: u32,
}

/// A stepless tool's context: its execution id, turn, step and name, hashed.
type ToolKey = Fingerprint;

#[derive(Clone, Copy, Debug, Default)]
struct Context {
    turn: u32,
    turn_began: Option<i64>,
    /// The highest step started and the instant of its event.
    step: Option<(i64, Option<i64>)>,
    /// Whether this batch opened the execution id's current turn (its
    /// restart was new): the turn is being delivered, so a content an
    /// earlier turn applied is that turn's own (see `Session::ingest_in`).
    opened: bool,
}

/// A stepless tool start or completion's context key and whether it is a
/// completion (`None` for other tool events).
fn tool_half(h: &Head<'_>, here: (u32, i64)) -> Option<(ToolKey, bool)> {
    let ending = match h.kind {
        "agent.tool.started" => false,
        "agent.tool.completed" | "agent.tool.failed" => true,
        _ => return None,
    };
    let name = h.tool_name();
    let mut m = Fingerprinter::new();
    m.bytes(b'x', h.execution_id.unwrap_or_default().as_bytes());
    m.word(u64::from(h.has_execution_id));
    m.word(u64::from(here.0));
    m.word(here.1 as u64);
    m.bytes(b'n', name.as_bytes());
    Some((m.finish(), ending))
}

fn context_key(f: Fingerprint, c: (u32, i64)) -> Fingerprint {
    let mut m = Fingerprinter::new();
    m.bytes(b'c', &[]);
    m.word(f.0);
    m.word(f.1);
    m.word(u64::from(c.0));
    m.word(c.1 as u64);
    m.finish()
}

impl Batch {
    fn context(&self, id: Option<&str>) -> Context {
        self.execs
            .iter()
            .find(|(i, _)| i.as_deref() == id)
            .map(|(_, c)| *c)
            .unwrap_or_default()
    }

    #[expect(clippy::indexing_slicing, reason = "`i` was found, or just pushed")]
    fn context_mut(&mut self, id: Option<&str>) -> &mut Context {
        let i = match self.execs.iter().position(|(i, _)| i.as_deref() == id) {
            Some(i) => i,
            None => {
                self.execs
                    .push((id.map(str::to_string), Context::default()));
                self.execs.len() - 1
            }
        };
        &mut self.execs[i].1
    }

    /// The occurrence number (from 1) of content `f` in this batch. A repeat
    /// in a context it already occurred in is that occurrence again (a
    /// redelivery within the batch); a repeat in a new context is a new
    /// occurrence only when that context (turn, step) began at or before
    /// its timestamp, so a real clock tells a redelivery from a new event
    /// and a frozen one cannot. A stepless tool completion repeated in its
    /// own context is a new occurrence while the batch has started more
    /// calls of that tool there than it completed (identical completions
    /// of calls without ids, see `Session`'s `dedup_key`).
    pub(crate) fn occurrence(&mut self, f: Fingerprint, h: &Head<'_>) -> u32 {
        let c = self.context(h.execution_id);
        let (step, step_began) = match c.step {
            Some(s) if h.stepless_tool => s,
            _ => (0, None),
        };
        let here = (c.turn, step);
        let tool = h.stepless_tool.then(|| tool_half(h, here)).flatten();
        if self.any.insert(f) {
            self.firsts.insert(context_key(f, here));
            self.count(tool);
            return 1;
        }
        let first_here = self.firsts.contains(context_key(f, here));
        if first_here || self.occurred_in(f, here) {
            // A repeat where the content occurred: a redelivery, unless it is
            // a completion the context's open calls of that tool can take
            // (identical completions of calls without ids).
            if let Some(t) = tool.as_ref().filter(|t| t.1 && self.open(&t.0)).cloned() {
                let list = self.contexts_mut(f);
                list.push(here);
                let k = list.len() as u32 + 1;
                self.count(Some(t));
                return k;
            }
            if first_here {
                return 1;
            }
        }
        let i = match self.more.iter().position(|(g, _)| *g == f) {
            Some(i) => i,
            None => {
                self.more.push((f, Vec::new()));
                self.more.len() - 1
            }
        };
        let Some((_, list)) = self.more.get_mut(i) else {
            // `i` was found, or just pushed.
            return 1;
        };
        if let Some(j) = list.iter().position(|&x| x == here) {
            return j as u32 + 2;
        }
        let began = c.turn_began.into_iter().chain(step_began).max();
        if matches!((began, h.at()), (Some(b), Some(a)) if b <= a) {
            list.push(here);
            let k = list.len() as u32 + 1;
            self.count(tool);
            return k;
        }
        1
    }

    /// Whether content `f` occurred in context `here` after its first occurrence.
    fn occurred_in(&self, f: Fingerprint, here: (u32, i64)) -> bool {
        self.more
            .iter()
            .find(|(g, _)| *g == f)
            .is_some_and(|(_, list)| list.contains(&here))
    }

    /// The contexts of content `f`'s later occurrences, in order.
    #[expect(clippy::indexing_slicing, reason = "`i` was found, or just pushed")]
    fn contexts_mut(&mut self, f: Fingerprint) -> &mut Vec<(u32, i64)> {
        let i = match self.more.iter().position(|(g, _)| *g == f) {
            Some(i) => i,
            None => {
                self.more.push((f, Vec::new()));
                self.more.len() - 1
            }
        };
        &mut self.more[i].1
    }

    /// Counts a new occurrence of a stepless tool start or completion.
    fn count(&mut self, tool: Option<(ToolKey, bool)>) {
        let Some((key, ending)) = tool else {
            return;
        };
        if self.tool_keys.insert(key) {
            self.tools
                .push((key, u32::from(!ending), u32::from(ending)));
            return;
        }
        // From the end: a batch's tool events are mostly in its latest context.
        match self.tools.iter_mut().rev().find(|(k, _, _)| *k == key) {
            Some((_, starts, ends)) => *(if ending { ends } else { starts }) += 1,
            None => self
                .tools
                .push((key, u32::from(!ending), u32::from(ending))),
        }
    }

    /// Whether the context has a call of the tool started and not completed.
    fn open(&self, key: &ToolKey) -> bool {
        if !self.tool_keys.contains(*key) {
            return false;
        }
        self.tools
            .iter()
            .rev()
            .find(|(k, _, _)| k == key)
            .is_some_and(|(_, starts, ends)| ends < starts)
    }

    /// Follows the batch's turn and step with every envelope, redelivered or
    /// not (before its [`occurrence`](Batch::occurrence) is asked): a restart
    /// repeated within the batch opens no further turn.
    pub(crate) fn observe(&mut self, h: &Head<'_>, content: Option<Fingerprint>) {
        let get = |k: &str| h.payload.get(k);
        match h.kind {
            "agent.step.started" | "agent.step.completed" | "agent.llm.started" => {
                if let Some(n) = h.step() {
                    let when = h.at();
                    let c = self.context_mut(h.execution_id);
                    if c.step.is_none_or(|(s, _)| n > s) {
                        c.step = Some((n, when));
                    }
                }
            }
            // A new turn under the same id numbers its steps from 1 again.
            "agent.status"
                if get("status").and_then(Value::as_str) == Some("processing")
                    && get("previous_status")
                        .and_then(Value::as_str)
                        .is_some_and(|s| crate::session::view::TERMINAL.contains(&s))
                    && content.is_none_or(|f| !self.any.contains(f)) =>
            {
                let when = h.at();
                let c = self.context_mut(h.execution_id);
                *c = Context {
                    turn: c.turn + 1,
                    turn_began: when,
                    step: None,
                    opened: false,
                };
            }
            _ => {}
        }
    }

    /// The batch's delivery number in a session's log, taken from the
    /// session's counter `last` the first time it is asked (never 0, which
    /// marks an envelope delivered on its own).
    pub fn delivery(&mut self, last: &mut u32) -> u32 {
        if self.delivery == 0 {
            *last = last.checked_add(1).unwrap_or(1);
            self.delivery = *last;
        }
        self.delivery
    }

    /// Records that the batch opened a new turn for the envelope's execution id.
    pub(crate) fn opened(&mut self, h: &Head<'_>) {
        self.context_mut(h.execution_id).opened = true;
    }

    /// Whether the batch opened the current turn of the envelope's execution id.
    pub(crate) fn is_opened(&self, h: &Head<'_>) -> bool {
        self.context(h.execution_id).opened
    }

    /// The step last started in this batch for the envelope's execution.
    pub(crate) fn arrival(&self, h: &Head<'_>) -> Option<i64> {
        self.context(h.execution_id).step.map(|s| s.0)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_repeated_envelope_has_the_same_fingerprint() {
        use crate::json;
        use crate::session::dedup::{Fingerprinter, Seen};
        let fp = |v| {
            let mut f = Fingerprinter::new();
            f.value(&v);
            f.finish()
        };
        let mut seen = Seen::default();
        assert!(seen.insert(fp(
            json!({"type": "agent.status", "payload": {"status": "processing"}})
        )));
        assert!(!seen.insert(fp(
            json!({"type": "agent.status", "payload": {"status": "processing"}})
        )));
        assert!(seen.insert(fp(
            json!({"type": "agent.status", "payload": {"status": "completed"}})
        )));
        assert_ne!(fp(json!({"n": 1})), fp(json!({"n": 1.0})));
    }
}

//! Change lists for cheap reads: after each ingest the JS side asks for what
//! changed since its last read and rebuilds only those parts of its
//! immutable snapshot, so unchanged steps stay the same JS objects.
//!
//! The patch is written as JSON text directly (the JS side parses it once):
//! building it as `crate::json::Value`s first allocated every key and value
//! of both headers on every read, which cost more than the ingest itself.
//! Headers go field by field: each field's text is kept as last sent, and
//! only the fields whose text changed are sent (a streamed chunk changes the
//! counts, `last_at` and the text, nothing else).

use crate::json::Value;

use crate::model::usage::Usage;
use crate::session::apply::Touched;
use crate::session::view::{state_status, Execution, StepView, ToolRun};
use crate::session::Session;

/// What changed since the last patch, per execution position.
#[derive(Clone, Debug, Default)]
pub struct Dirty {
    pub header: bool,
    /// Per execution position, what changed (`Default` when nothing did).
    execs: Vec<ExecDirty>,
    /// The positions in `execs` that changed, each once, in no order.
    /// (A vector rather than a sorted map: this runs on every ingest, and
    /// each map type is kilobytes of wasm.)
    touched: Vec<usize>,
    /// Warnings already sent.
    warnings_sent: usize,
    /// Per execution, how much of the text was already sent.
    text_sent: Vec<usize>,
    /// The top-level header's fields as last sent.
    session_sent: Sent,
    /// Per execution, its header's fields as last sent.
    exec_sent: Vec<Sent>,
}

/// One header's fields as last sent: each as JSON text, in order, and the
/// usage also as numbers (compared before it is written: writing its six
/// numbers on every read cost more than the rest of the header).
#[derive(Clone, Debug, Default)]
struct Sent {
    fields: Vec<String>,
    usage: Option<(Usage, i64)>,
}

#[derive(Clone, Debug, Default)]
struct ExecDirty {
    /// Added since the last patch (sent whole).
    added: bool,
    /// Listed in `Dirty::touched`.
    listed: bool,
    /// The step numbers touched, possibly repeated (sorted and deduplicated
    /// when the patch is taken).
    steps: Vec<i64>,
    text: bool,
    text_replaced: bool,
}

impl Dirty {
    pub fn execution_added(&mut self, pos: usize) {
        self.exec(pos).added = true;
        self.header = true;
    }

    pub fn touch(&mut self, pos: usize, t: Touched) {
        self.header = true;
        let e = self.exec(pos);
        match t {
            Touched::Header => {}
            // Consecutive events mostly touch the same step.
            Touched::Step(n) if e.steps.last() != Some(&n) => e.steps.push(n),
            Touched::Step(_) => {}
            Touched::Text { replaced } => {
                e.text = true;
                e.text_replaced |= replaced;
            }
        }
    }

    /// The change record of the execution at `pos`, listed as touched.
    #[expect(
        clippy::indexing_slicing,
        reason = "the list was extended to hold `pos`"
    )]
    fn exec(&mut self, pos: usize) -> &mut ExecDirty {
        if self.execs.len() <= pos {
            self.execs.resize_with(pos + 1, ExecDirty::default);
        }
        let e = &mut self.execs[pos];
        if !e.listed {
            e.listed = true;
            self.touched.push(pos);
        }
        e
    }

    /// The changed executions in position order, each with its steps
    /// sorted and deduplicated; the records are reset.
    fn take_touched(&mut self) -> Vec<(usize, ExecDirty)> {
        let mut touched = std::mem::take(&mut self.touched);
        crate::sort::sort(&mut touched);
        touched
            .into_iter()
            .filter_map(|pos| {
                let mut d = std::mem::take(self.execs.get_mut(pos)?);
                crate::sort::sort(&mut d.steps);
                d.steps.dedup();
                Some((pos, d))
            })
            .collect()
    }
}

impl Session {
    /// The changes since the previous call as JSON text, then forgets them:
    /// `[session, warnings, ...executions]`, each execution
    /// `[index, header, steps, text, replaced]`. `session` is an object of
    /// the top-level fields that changed (all of them in the first patch),
    /// `warnings` the warnings added; `header` the execution's own fields
    /// that changed (all of them for a new execution), `steps` the changed
    /// steps in step order (each to be placed by `number`; all of them for a
    /// new execution), `text` the text appended, or the whole text when
    /// `replaced` is true (a chunk landed inside it), or `null`. `0` stands for
    /// "nothing changed" in place of an object or a list. Arrays rather than
    /// objects with named keys: `JSON.parse` builds them faster, and a
    /// streamed chunk's read is mostly this parse.
    pub fn take_patch(&mut self) -> String {
        // Taken out for the length of the call (the fields read the session).
        let mut taken = std::mem::take(&mut self.dirty);
        let dirty = &mut taken;
        let mut out = String::with_capacity(256);
        out.push('[');
        let mut fields = Fields::open(&mut out, &mut dirty.session_sent);
        header_fields(self, &mut fields);
        fields.close();
        out.push(',');
        match self
            .warnings
            .get(dirty.warnings_sent..)
            .filter(|w| !w.is_empty())
        {
            Some(new) => value(&mut out, &Value::Array(new.to_vec())),
            None => out.push('0'),
        }
        dirty.warnings_sent = self.warnings.len();
        dirty.text_sent.resize(self.executions.len(), 0);
        dirty
            .exec_sent
            .resize_with(self.executions.len(), Sent::default);
        for (pos, d) in dirty.take_touched() {
            let (Some(exec), Some(sent), Some(sent_text)) = (
                self.executions.get(pos),
                dirty.exec_sent.get_mut(pos),
                dirty.text_sent.get_mut(pos),
            ) else {
                continue;
            };
            out.push_str(",[");
            uint(&mut out, pos as u64);
            out.push(',');
            if d.added {
                *sent = Sent::default();
            }
            let mut fields = Fields::open(&mut out, sent);
            exec_header_fields(exec, &mut fields);
            fields.close();
            out.push(',');
            let mark = out.len();
            out.push('[');
            if d.added {
                exec.steps.values().for_each(|step| {
                    sep(&mut out);
                    step_text(&mut out, step);
                });
            } else {
                // The changed ones only: walking every step per read would
                // make a long run's reads grow with its length.
                for step in d.steps.iter().filter_map(|n| exec.steps.get(n)) {
                    sep(&mut out);
                    step_text(&mut out, step);
                }
            }
            if out.ends_with('[') {
                out.truncate(mark);
                out.push('0');
            } else {
                out.push(']');
            }
            out.push(',');
            let tail = exec.text.get(*sent_text..);
            match tail {
                Some(tail) if !d.added && !d.text_replaced => {
                    if d.text || !tail.is_empty() {
                        string(&mut out, tail);
                        out.push_str(",false]");
                    } else {
                        out.push_str("null,false]");
                    }
                }
                _ => {
                    string(&mut out, &exec.text);
                    out.push_str(",true]");
                }
            }
            *sent_text = exec.text.len();
        }
        out.push(']');
        dirty.header = false;
        self.dirty = taken;
        out
    }
}

/// The fields of [`Session::header_value`], in its order.
fn header_fields(s: &Session, f: &mut Fields) {
    let status = s.status();
    let usage = s.usage_total;
    f.field("session_id", |o| opt_string(o, s.session_id.as_deref()));
    f.field("status", |o| opt_string(o, status));
    f.field("state_status", |o| {
        opt_string(o, status.and_then(state_status))
    });
    f.usage(usage, s.usage_total_value());
    f.field("counts", |o| {
        let c = s.counts;
        o.push_str("{\"applied\":");
        uint(o, c.applied);
        o.push_str(",\"duplicates\":");
        uint(o, c.duplicates);
        o.push_str(",\"rejected\":");
        uint(o, c.rejected);
        o.push('}');
    });
    f.field("rejected_sessions", |o| {
        o.push('{');
        for (id, n) in &s.foreign {
            sep(o);
            string(o, id);
            o.push(':');
            uint(o, *n);
        }
        o.push('}');
    });
    f.field("warning_count", |o| uint(o, s.warning_count));
}

/// The fields of [`Execution::header_value`], in its order.
fn exec_header_fields(e: &Execution, f: &mut Fields) {
    let status = e.status();
    f.field("execution_id", |o| opt_string(o, e.id.as_deref()));
    f.field("status", |o| opt_string(o, status));
    f.field("state_status", |o| {
        opt_string(o, status.and_then(state_status))
    });
    f.field("first_at", |o| opt_string(o, e.first_at.as_deref()));
    f.field("last_at", |o| opt_string(o, e.last_at.as_deref()));
    f.usage(e.usage(), e.usage_total_value());
    f.field("stream_complete", |o| {
        o.push_str(if e.stream_complete { "true" } else { "false" })
    });
    f.field("final_answer", |o| opt_string(o, e.final_answer.as_deref()));
    f.field("error", |o| opt_string(o, e.run_error.as_deref()));
    f.field("missing_steps", |o| ints(o, &e.missing_steps()));
    f.field("missing_step_count", |o| uint(o, e.step_gaps.count()));
    f.field("missing_chunks", |o| ints(o, &e.missing_chunks()));
    f.field("missing_chunk_count", |o| uint(o, e.stream.missing().1));
    let dropped = e.text_dropped_bytes();
    f.field("text_truncated", |o| {
        o.push_str(if dropped > 0 { "true" } else { "false" })
    });
    f.field("text_dropped_bytes", |o| uint(o, dropped));
    let d = &e.status_detail;
    f.field("error_message", |o| opt_string(o, d.error_message()));
    f.field("last_response", |o| opt_string(o, d.last_response()));
    f.field("step_count", |o| opt_int(o, d.step_count()));
    let resumed = e.status_times.ever_resumed();
    f.field("resumed", |o| {
        o.push_str(if resumed { "true" } else { "false" })
    });
    let stale = e.is_stale();
    f.field("stale", |o| {
        o.push_str(if stale { "true" } else { "false" })
    });
    f.field("closing_status", |o| opt_string(o, e.closing_status()));
    f.field("never_ran_step", |o| opt_int(o, e.never_ran_step()));
    f.field("dialect", |o| string(o, e.dialect.as_str()));
    f.field("provider_frames", |o| uint(o, e.provider_frames));
}

/// [`StepView::to_value`] as text, without copying the step's values
/// (arguments and continuation traces are the bulk of a step).
fn step_text(out: &mut String, s: &StepView) {
    out.push_str("{\"number\":");
    int(out, s.number);
    key(out, "step_id");
    opt_string(out, s.step_id.as_deref());
    key(out, "type");
    opt_string(out, s.step_type());
    key(out, "started_at");
    opt_string(out, s.started_at.as_deref());
    key(out, "completed_at");
    opt_string(out, s.completed_at.as_deref());
    key(out, "duration_ms");
    opt_value(out, s.duration_ms.as_ref());
    key(out, "message_count");
    opt_int(out, s.message_count);
    key(out, "tools_available");
    opt_int(out, s.tools_available);
    key(out, "has_tool_calls");
    opt_bool(out, s.has_tool_calls);
    key(out, "finish_reason");
    opt_string(out, s.finish_reason.as_deref());
    key(out, "usage");
    match (&s.usage, s.usage_total()) {
        (Some(u), Some(t)) => usage_text_total(out, u, t),
        _ => out.push_str("null"),
    }
    key(out, "errors");
    opt_int(out, s.errors);
    key(out, "error");
    opt_string(out, s.error.as_deref());
    key(out, "continuation");
    opt_value(out, s.continuation.as_ref());
    key(out, "tools");
    out.push('[');
    for t in &s.tools {
        sep(out);
        tool_text(out, t);
    }
    out.push(']');
    key(out, "text");
    string(out, &s.text);
    key(out, "seen");
    seen_text(out, s.seen_started, s.seen_completed);
    key(out, "annotations");
    value(out, &s.annotations_value());
    key(out, "attempt_failed");
    out.push_str(if s.attempt_failed { "true" } else { "false" });
    out.push('}');
}

/// [`ToolRun::to_value`] as text.
fn tool_text(out: &mut String, t: &ToolRun) {
    out.push_str("{\"name\":");
    string(out, &t.name);
    key(out, "call_id");
    opt_string(out, t.call_id.as_deref());
    key(out, "status");
    string(out, t.status().as_str());
    key(out, "args_summary");
    opt_string(out, t.args_summary.as_deref());
    key(out, "args");
    opt_value(out, t.args.as_ref());
    key(out, "started_at");
    opt_string(out, t.started_at.as_deref());
    key(out, "completed_at");
    opt_string(out, t.completed_at.as_deref());
    key(out, "error");
    opt_string(out, t.error.as_deref());
    key(out, "duration_ms");
    opt_value(out, t.duration_ms.as_ref());
    key(out, "result_summary");
    opt_string(out, t.result_summary.as_deref());
    key(out, "output");
    string(out, &t.output);
    key(out, "output_dropped_bytes");
    uint(out, t.output_dropped_bytes);
    key(out, "seen");
    seen_text(out, t.seen_started, t.seen_completed);
    key(out, "attribution");
    string(out, t.attribution.as_str());
    out.push('}');
}

fn seen_text(out: &mut String, started: bool, completed: bool) {
    out.push_str("{\"started\":");
    out.push_str(if started { "true" } else { "false" });
    out.push_str(",\"completed\":");
    out.push_str(if completed { "true" } else { "false" });
    out.push('}');
}

/// One header's fields written into the patch as an object, each
/// compared with its text as last sent (`sent`, one entry per field in
/// order) and taken back out when it did not change.
struct Fields<'a> {
    out: &'a mut String,
    sent: &'a mut Sent,
    /// Where the object starts, to remove it when no field changed.
    mark: usize,
    next: usize,
    any: bool,
}

impl<'a> Fields<'a> {
    fn open(out: &'a mut String, sent: &'a mut Sent) -> Fields<'a> {
        let mark = out.len();
        out.push('{');
        Fields {
            out,
            sent,
            mark,
            next: 0,
            any: false,
        }
    }

    fn field(&mut self, name: &str, write: impl FnOnce(&mut String)) {
        let (before, start) = self.begin(name);
        write(self.out);
        self.end(before, start);
    }

    /// Writes the field's name; returns where the field and its value
    /// start. Not generic (nor is `end`), so the one copy of `field` per
    /// closure stays a few instructions.
    #[inline(never)]
    fn begin(&mut self, name: &str) -> (usize, usize) {
        let out = &mut *self.out;
        let before = out.len();
        if self.any {
            out.push(',');
        }
        out.push('"');
        out.push_str(name);
        out.push_str("\":");
        (before, out.len())
    }

    /// Takes the field back out when its text is the one last sent.
    #[inline(never)]
    fn end(&mut self, before: usize, start: usize) {
        let out = &mut *self.out;
        let fields = &mut self.sent.fields;
        if fields.len() <= self.next {
            fields.resize_with(self.next + 1, String::new);
        }
        let (Some(sent), Some(text)) = (fields.get_mut(self.next), out.get(start..)) else {
            return;
        };
        self.next += 1;
        if sent == text {
            out.truncate(before);
        } else {
            sent.clear();
            sent.push_str(text);
            self.any = true;
        }
    }

    /// The `usage` field, written only when its numbers changed.
    fn usage(&mut self, now: Usage, total: i64) {
        if self.sent.usage == Some((now, total)) && self.sent.fields.len() > self.next {
            self.next += 1;
            return;
        }
        self.field("usage", |o| usage_text_total(o, &now, total));
        self.sent.usage = Some((now, total));
    }

    /// Ends the object, or puts `0` in its place when no field changed.
    fn close(self) {
        if self.any {
            self.out.push('}');
        } else {
            self.out.truncate(self.mark);
            self.out.push('0');
        }
    }
}

/// An integer's decimal text. (`write!` goes through `core::fmt`, which
/// took a quarter of the patch's time for the counters alone.)
fn int(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    uint(out, n.unsigned_abs());
}

fn uint(out: &mut String, n: u64) {
    crate::json::write_u64(out, n);
}

/// A comma unless `out` is just after an opening bracket.
fn sep(out: &mut String) {
    if !(out.ends_with('{') || out.ends_with('[')) {
        out.push(',');
    }
}

/// `,"name":` (the comma when needed); `name` is one of this file's
/// field names, which need no escaping.
fn key(out: &mut String, name: &str) {
    sep(out);
    out.push('"');
    out.push_str(name);
    out.push_str("\":");
}

fn value(out: &mut String, v: &Value) {
    crate::json::write_value(out, v);
}

fn opt_value(out: &mut String, v: Option<&Value>) {
    match v {
        Some(v) => value(out, v),
        None => out.push_str("null"),
    }
}

fn opt_int(out: &mut String, n: Option<i64>) {
    match n {
        Some(n) => int(out, n),
        None => out.push_str("null"),
    }
}

fn opt_bool(out: &mut String, b: Option<bool>) {
    out.push_str(match b {
        Some(true) => "true",
        Some(false) => "false",
        None => "null",
    });
}

fn opt_string(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => string(out, s),
        None => out.push_str("null"),
    }
}

fn ints(out: &mut String, list: &[i64]) {
    out.push('[');
    for n in list {
        sep(out);
        int(out, *n);
    }
    out.push(']');
}

/// [`crate::session::view::usage_value_total`] as text.
fn usage_text_total(out: &mut String, u: &Usage, total: i64) {
    let fields = [
        ("{\"input\":", u.input),
        (",\"output\":", u.output),
        (",\"cacheWrite\":", u.cache_write),
        (",\"cacheRead\":", u.cache_read),
        (",\"reasoning\":", u.reasoning),
        (",\"total\":", total),
    ];
    for (name, n) in fields {
        out.push_str(name);
        int(out, n);
    }
    out.push('}');
}

/// A JSON string literal (the JSON writer's: `JSON.parse` reads back the same string).
fn string(out: &mut String, s: &str) {
    crate::json::write_str(out, s);
}

#[cfg(test)]
mod tests {
    use super::{int, string, uint};

    #[test]
    fn integers_are_written_as_decimal_text() {
        for n in [0, 7, -7, 10, 1_000_000, i64::MAX, i64::MIN] {
            let mut out = String::new();
            int(&mut out, n);
            assert_eq!(out, n.to_string());
        }
        let mut out = String::new();
        uint(&mut out, u64::MAX);
        assert_eq!(out, u64::MAX.to_string());
    }

    #[test]
    fn strings_are_escaped_as_json_reads_them_back() {
        for s in [
            "",
            "plain",
            "a\"b\\c",
            "line\nbreak\r\ttab",
            "\u{0}\u{1f}x",
            "é😀\u{2028}",
        ] {
            let mut out = String::new();
            string(&mut out, s);
            assert_eq!(crate::json::from_str(&out).unwrap(), *s, "{out}");
        }
    }
}

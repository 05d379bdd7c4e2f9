//! Change lists for cheap reads: after each ingest the JS side asks for what
//! changed since its last read and rebuilds only those parts of its
//! immutable snapshot, so unchanged steps stay the same JS objects.
//!
//! The patch is written as JSON text directly (the JS side parses it once):
//! building it as `serde_json::Value`s first allocated every key and value
//! of both headers on every read, which cost more than the ingest itself.
//! Headers go field by field: each field's text is kept as last sent, and
//! only the fields whose text changed are sent (a streamed chunk changes the
//! counts, `last_at` and the text, nothing else).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::model::usage::Usage;
use crate::session::apply::Touched;
use crate::session::view::{add_usage, state_status, Execution};
use crate::session::Session;

/// What changed since the last patch, per execution position.
#[derive(Clone, Debug, Default)]
pub struct Dirty {
    pub header: bool,
    /// Executions added since the last patch (sent whole).
    added: BTreeSet<usize>,
    execs: BTreeMap<usize, ExecDirty>,
    /// Warnings already sent.
    warnings_sent: usize,
    /// Per execution, how much of the text was already sent.
    text_sent: Vec<usize>,
    /// The top-level header's fields as last sent.
    session_sent: Vec<String>,
    /// Per execution, its header's fields as last sent.
    exec_sent: Vec<Vec<String>>,
}

#[derive(Clone, Debug, Default)]
struct ExecDirty {
    steps: BTreeSet<i64>,
    text: bool,
    text_replaced: bool,
}

impl Dirty {
    pub fn execution_added(&mut self, pos: usize) {
        self.added.insert(pos);
        self.header = true;
    }

    pub fn touch(&mut self, pos: usize, t: Touched) {
        self.header = true;
        let e = self.execs.entry(pos).or_default();
        match t {
            Touched::Header => {}
            Touched::Step(n) => {
                e.steps.insert(n);
            }
            Touched::Text { replaced } => {
                e.text = true;
                e.text_replaced |= replaced;
            }
        }
    }
}

impl Session {
    /// The changes since the previous call as JSON text, then forgets them:
    /// `{session?, warnings_added?, executions?: [{index, whole} | {index,
    /// header?, steps?, text?}]}`. A key is left out when nothing under it
    /// changed (`{}` when nothing did). `session` holds the top-level fields
    /// that changed (all of them in the first patch); an execution is either
    /// `whole` (new) or the header fields that changed, the changed steps
    /// (in step order, each to be placed by `number`) and its text as
    /// `{append}` or `{replace}`.
    pub fn take_patch(&mut self) -> String {
        let mut dirty = std::mem::take(&mut self.dirty);
        let mut out = String::from("{");
        let mut fields = Fields::new(&mut dirty.session_sent);
        self.header_fields(&mut fields);
        fields.finish(&mut out, "session");
        if let Some(new) = self
            .warnings
            .get(dirty.warnings_sent..)
            .filter(|w| !w.is_empty())
        {
            key(&mut out, "warnings_added");
            value(&mut out, &Value::Array(new.to_vec()));
        }
        dirty.warnings_sent = self.warnings.len();
        dirty.text_sent.resize(self.executions.len(), 0);
        dirty.exec_sent.resize_with(self.executions.len(), Vec::new);
        let positions: BTreeSet<usize> = dirty
            .added
            .iter()
            .chain(dirty.execs.keys())
            .copied()
            .collect();
        let mark = out.len();
        key(&mut out, "executions");
        out.push('[');
        for pos in positions {
            let (Some(exec), Some(sent)) = (self.executions.get(pos), dirty.exec_sent.get_mut(pos))
            else {
                continue;
            };
            sep(&mut out);
            out.push_str("{\"index\":");
            uint(&mut out, pos as u64);
            let sent_text = dirty.text_sent.get(pos).copied().unwrap_or(0);
            if dirty.added.contains(&pos) {
                key(&mut out, "whole");
                sent.clear();
                let mut fields = Fields::new(sent);
                exec_header_fields(exec, &mut fields);
                out.push('{');
                out.push_str(&fields.changed);
                key(&mut out, "steps");
                out.push('[');
                for step in exec.steps.values() {
                    sep(&mut out);
                    value(&mut out, &step.to_value());
                }
                out.push(']');
                key(&mut out, "text");
                string(&mut out, &exec.text);
                out.push('}');
            } else {
                let d = dirty.execs.get(&pos).cloned().unwrap_or_default();
                let mut fields = Fields::new(sent);
                exec_header_fields(exec, &mut fields);
                fields.finish(&mut out, "header");
                let mut steps = d.steps.iter().filter_map(|n| exec.steps.get(n)).peekable();
                if steps.peek().is_some() {
                    key(&mut out, "steps");
                    out.push('[');
                    for step in steps {
                        sep(&mut out);
                        value(&mut out, &step.to_value());
                    }
                    out.push(']');
                }
                if d.text || exec.text.len() != sent_text {
                    key(&mut out, "text");
                    match exec.text.get(sent_text..) {
                        Some(tail) if !d.text_replaced => {
                            out.push_str("{\"append\":");
                            string(&mut out, tail);
                        }
                        _ => {
                            out.push_str("{\"replace\":");
                            string(&mut out, &exec.text);
                        }
                    }
                    out.push('}');
                }
            }
            out.push('}');
            if let Some(n) = dirty.text_sent.get_mut(pos) {
                *n = exec.text.len();
            }
        }
        if out.ends_with('[') {
            out.truncate(mark);
        } else {
            out.push(']');
        }
        out.push('}');
        self.dirty = Dirty {
            warnings_sent: dirty.warnings_sent,
            text_sent: dirty.text_sent,
            session_sent: dirty.session_sent,
            exec_sent: dirty.exec_sent,
            ..Dirty::default()
        };
        out
    }

    /// The fields of [`Session::header_value`], in its order.
    fn header_fields(&self, f: &mut Fields) {
        let status = self.status();
        let usage = self
            .executions
            .iter()
            .fold(Usage::default(), |a, e| add_usage(&a, &e.usage()));
        f.field("session_id", |o| opt_string(o, self.session_id.as_deref()));
        f.field("status", |o| opt_string(o, status));
        f.field("state_status", |o| {
            opt_string(o, status.and_then(state_status))
        });
        f.field("usage", |o| usage_text(o, &usage));
        f.field("counts", |o| {
            let c = self.counts;
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
            for (id, n) in &self.foreign {
                sep(o);
                string(o, id);
                o.push(':');
                uint(o, *n);
            }
            o.push('}');
        });
    }
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
    f.field("usage", |o| usage_text(o, &e.usage()));
    f.field("stream_complete", |o| {
        o.push_str(if e.stream_complete { "true" } else { "false" })
    });
    f.field("final_answer", |o| opt_string(o, e.final_answer.as_deref()));
    f.field("error", |o| opt_string(o, e.run_error.as_deref()));
    f.field("missing_steps", |o| ints(o, &e.missing_steps()));
    f.field("missing_step_count", |o| uint(o, e.step_gaps.count()));
    f.field("missing_chunks", |o| ints(o, &e.missing_chunks()));
    f.field("missing_chunk_count", |o| uint(o, e.chunk_gaps.count()));
}

/// One header's fields, each written as JSON text and compared with its
/// text as last sent (`sent`, one entry per field in order).
struct Fields<'a> {
    sent: &'a mut Vec<String>,
    /// `"key":value` pairs of the fields that changed, comma-separated.
    changed: String,
    next: usize,
    scratch: String,
}

impl<'a> Fields<'a> {
    fn new(sent: &'a mut Vec<String>) -> Fields<'a> {
        Fields {
            sent,
            changed: String::new(),
            next: 0,
            scratch: String::new(),
        }
    }

    fn field(&mut self, name: &str, write: impl FnOnce(&mut String)) {
        self.scratch.clear();
        write(&mut self.scratch);
        if self.sent.len() <= self.next {
            self.sent.resize_with(self.next + 1, String::new);
        }
        let Some(sent) = self.sent.get_mut(self.next) else {
            return;
        };
        self.next += 1;
        if *sent != self.scratch {
            if !self.changed.is_empty() {
                self.changed.push(',');
            }
            self.changed.push('"');
            self.changed.push_str(name);
            self.changed.push_str("\":");
            self.changed.push_str(&self.scratch);
            std::mem::swap(sent, &mut self.scratch);
        }
    }

    /// `,"name":{changed fields}` into `out`, or nothing when none changed.
    fn finish(self, out: &mut String, name: &str) {
        if !self.changed.is_empty() {
            key(out, name);
            out.push('{');
            out.push_str(&self.changed);
            out.push('}');
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

fn uint(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(&digits[i..]).unwrap_or_default());
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
    out.push_str(&serde_json::to_string(v).unwrap_or_else(|_| "null".into()));
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

/// [`crate::session::view::usage_value`] as text.
fn usage_text(out: &mut String, u: &Usage) {
    let fields = [
        ("{\"input\":", u.input),
        (",\"output\":", u.output),
        (",\"cacheWrite\":", u.cache_write),
        (",\"cacheRead\":", u.cache_read),
        (",\"reasoning\":", u.reasoning),
        (",\"total\":", u.total()),
    ];
    for (name, n) in fields {
        out.push_str(name);
        int(out, n);
    }
    out.push('}');
}

/// A JSON string literal: `"`, `\` and control characters escaped, the
/// rest copied in runs (what `JSON.parse` reads back is the same string).
fn string(out: &mut String, s: &str) {
    out.push('"');
    if !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        out.push_str(s);
        out.push('"');
        return;
    }
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        // Only ASCII bytes end a run, so `start..i` is on char boundaries.
        out.push_str(s.get(start..i).unwrap_or_default());
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(s.get(start..).unwrap_or_default());
    out.push('"');
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
            assert_eq!(serde_json::from_str::<String>(&out).unwrap(), s, "{out}");
        }
    }
}

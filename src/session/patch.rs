//! Change lists for cheap reads: after each ingest the JS side asks for what
//! changed since its last read and rebuilds only those parts of its
//! immutable snapshot, so unchanged steps stay the same JS objects.
//!
//! The patch is written as JSON text directly (the JS side parses it once):
//! building it as `crate::json::Value`s first allocated every key and value
//! of both headers on every read, which cost more than the ingest itself.
//! Steps, warnings and headers are written through their declared view
//! types (`StepShape`, `SessionWarning`, `SessionHeader`, `ExecutionHeader`),
//! so the patch and the schemas cannot disagree. Headers and steps go field
//! by field: each field's value is fingerprinted as last sent (without
//! writing it when it is a scalar, `json::scalar_fingerprint`), and only the fields whose value
//! changed are written (a streamed chunk changes the counts,
//! `last_at` and the text, nothing else). Texts that grow (an execution's,
//! a step's text and reasoning) are sent as what was appended, and an
//! execution's `data` is written only when a value in it was set: a read
//! costs what changed, not the size of what is held.

use serde::ser::{self, Impossible, Serialize};

use crate::json::fingerprint::{Fingerprint, Fingerprinter};
use crate::json::scalar_fingerprint;
use crate::model::usage::UsageWithTotal;
use crate::session::apply::Touched;
use crate::session::view::StepView;
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
    /// Per execution, its steps as last sent, by step number.
    steps_sent: Vec<Vec<StepSent>>,
}

/// One header's fields as last sent: each as the fingerprint of its value
/// (a scalar) or of its JSON text (a container), in order (the text itself would be a second copy of every step's
/// tool runs and of the data), and the usage also as numbers (compared
/// before it is written: writing its six numbers on every read cost more
/// than the rest of the header).
#[derive(Clone, Debug, Default)]
struct Sent {
    fields: Vec<Fingerprint>,
    usage: Option<UsageWithTotal>,
    /// An execution's `data` as last sent, by its count of values set
    /// (`DataIndex::changes`): the map itself is not written to be compared.
    data: Option<u64>,
}

/// A step as last sent: its fields (but its text and reasoning, which are
/// sent as what was appended to them) and how much of each text.
#[derive(Clone, Debug, Default)]
struct StepSent {
    number: i64,
    fields: Sent,
    text: usize,
    reasoning: usize,
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

    /// The executions whose steps changed, with those step numbers; the
    /// records are reset (for [`crate::session::step_envelopes`]).
    pub(crate) fn take_steps(&mut self) -> Vec<(usize, Vec<i64>)> {
        self.take_touched()
            .into_iter()
            .map(|(pos, d)| (pos, d.steps))
            .collect()
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
    /// steps in step order, each `[number, fields, text, reasoning]`:
    /// `fields` the step's fields that changed (all of them, `text` and
    /// `reasoning` as `""`, for a step not sent before), `text` and
    /// `reasoning` what was appended to them, or the whole of it as a
    /// one-element list when it was not appended to, or `0`; `text` the
    /// execution's text appended, or the whole text when `replaced` is true
    /// (a chunk landed inside it), or `null`. `0` stands for "nothing
    /// changed" in place of an object or a list. Arrays rather than
    /// objects with named keys: `JSON.parse` builds them faster, and a
    /// streamed chunk's read is mostly this parse.
    pub fn take_patch(&mut self) -> String {
        // Taken out for the length of the call (the fields read the session).
        let mut taken = std::mem::take(&mut self.dirty);
        let dirty = &mut taken;
        let mut out = String::with_capacity(256);
        out.push('[');
        let header = self.header();
        Fields::open(&mut out, &mut dirty.session_sent).write(&header, Some(header.usage));
        out.push(',');
        match self
            .warnings
            .get(dirty.warnings_sent..)
            .filter(|w| !w.is_empty())
        {
            Some(new) => crate::json::write_ascii_text(&mut out, new),
            None => out.push('0'),
        }
        dirty.warnings_sent = self.warnings.len();
        dirty.text_sent.resize(self.executions.len(), 0);
        dirty
            .exec_sent
            .resize_with(self.executions.len(), Sent::default);
        dirty
            .steps_sent
            .resize_with(self.executions.len(), Vec::new);
        for (pos, d) in dirty.take_touched() {
            let (Some(exec), Some(sent), Some(sent_text), Some(steps_sent)) = (
                self.executions.get(pos),
                dirty.exec_sent.get_mut(pos),
                dirty.text_sent.get_mut(pos),
                dirty.steps_sent.get_mut(pos),
            ) else {
                continue;
            };
            out.push_str(",[");
            uint(&mut out, pos as u64);
            out.push(',');
            if d.added {
                *sent = Sent::default();
                steps_sent.clear();
            }
            let header = exec.header();
            let data = exec.data_index.changes();
            let mut fields = Fields::open(&mut out, sent);
            fields.keep_data = fields.sent.data == Some(data);
            fields.sent.data = Some(data);
            if d.added {
                // The object the JS side keeps as the execution's working
                // copy has every field from the start: fields added to it
                // later would turn it into a slow dictionary-mode object
                // (pkg-template/view.js).
                fields.closing = ",\"steps\":0,\"text\":0";
            }
            fields.write(&header, Some(header.usage));
            out.push(',');
            let mark = out.len();
            out.push('[');
            let id = exec.id.as_deref();
            if d.added {
                for step in exec.steps.values() {
                    write_step(&mut out, step, id, steps_sent);
                }
            } else {
                // The changed ones only: walking every step per read would
                // make a long run's reads grow with its length.
                for step in d.steps.iter().filter_map(|n| exec.steps.get(n)) {
                    write_step(&mut out, step, id, steps_sent);
                }
            }
            if out.ends_with('[') {
                out.truncate(mark);
                out.push('0');
            } else {
                out.push(']');
            }
            out.push(',');
            let tail = exec.text.tail_str(*sent_text);
            match tail {
                Some(tail) if !d.added && !d.text_replaced => {
                    if d.text || !tail.is_empty() {
                        string(&mut out, &tail);
                        out.push_str(",false]");
                    } else {
                        out.push_str("null,false]");
                    }
                }
                _ => {
                    string(&mut out, &exec.text.as_str());
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

/// One header's fields written into the patch as an object, each
/// compared with the fingerprint of its value as last sent (`sent`, one entry per field in
/// order) and taken back out when it did not change.
struct Fields<'a> {
    out: &'a mut String,
    sent: &'a mut Sent,
    /// The usage is the one last sent: its field is not written again.
    keep_usage: bool,
    /// The `data` is the one last sent (no value set since): not written again.
    keep_data: bool,
    /// Where the object starts, to remove it when no field changed.
    mark: usize,
    next: usize,
    any: bool,
    /// Written before the closing brace of an object with fields.
    closing: &'static str,
}

impl<'a> Fields<'a> {
    fn open(out: &'a mut String, sent: &'a mut Sent) -> Fields<'a> {
        let mark = out.len();
        out.push('{');
        Fields {
            out,
            sent,
            keep_usage: false,
            keep_data: false,
            mark,
            next: 0,
            any: false,
            closing: "",
        }
    }

    /// Writes `value` as the field `name` unless its fingerprint is the
    /// one last sent. A scalar's fingerprint is taken without writing it
    /// (most fields do not change between two reads); a container is
    /// written and its text fingerprinted, and taken back out if unchanged.
    fn field<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) {
        match scalar_fingerprint(value) {
            Some(print) => {
                if self.changed(print) {
                    self.name(name);
                    crate::json::write_ascii_text(self.out, value);
                }
            }
            None => {
                let before = self.out.len();
                let any = self.any;
                self.name(name);
                let start = self.out.len();
                crate::json::write_ascii_text(self.out, value);
                self.any = any;
                self.keep_if_changed(before, start);
            }
        }
    }

    /// Takes the field written from `before` (its value from `start`) back
    /// out when its text's fingerprint is the one last sent.
    #[inline(never)]
    fn keep_if_changed(&mut self, before: usize, start: usize) {
        let print = {
            let mut f = Fingerprinter::new();
            // Tagged apart from a scalar string's fingerprint: a value that
            // turns from an object into a string of the same text changed.
            f.bytes(b'T', self.out.get(start..).unwrap_or_default().as_bytes());
            f.finish()
        };
        if self.changed(print) {
            self.any = true;
        } else {
            self.out.truncate(before);
        }
    }

    /// Whether the next field's fingerprint differs from the one last sent
    /// (kept as the one sent now). Not generic (nor is `name`), so the one
    /// copy of `field` per field type stays a few instructions.
    #[inline(never)]
    fn changed(&mut self, print: Fingerprint) -> bool {
        let at = self.next;
        self.next += 1;
        match self.sent.fields.get_mut(at) {
            Some(sent) if *sent == print => false,
            Some(sent) => {
                *sent = print;
                true
            }
            None => {
                // Fields are met in order: this is the next one.
                self.sent.fields.push(print);
                true
            }
        }
    }

    /// Writes a field's name (and the comma before it).
    #[inline(never)]
    fn name(&mut self, name: &str) {
        let out = &mut *self.out;
        if self.any {
            out.push(',');
        }
        out.push('"');
        out.push_str(name);
        out.push_str("\":");
        self.any = true;
    }

    /// Writes `header`'s fields (a struct of the view: [`SessionHeader`] or
    /// [`ExecutionHeader`]) as its declaration writes them, each compared
    /// with its fingerprint as last sent; its `usage` is compared as numbers first.
    /// Then ends the object.
    ///
    /// [`SessionHeader`]: crate::session::SessionHeader
    /// [`ExecutionHeader`]: crate::session::view::ExecutionHeader
    fn write<H: Serialize>(mut self, header: &H, usage: Option<UsageWithTotal>) {
        self.keep_usage = usage.is_some() && self.sent.usage == usage;
        // A header is a struct of fields, which `HeaderWriter` takes; it
        // refuses nothing the view's headers hold.
        let _ = header.serialize(HeaderWriter { fields: &mut self });
        self.sent.usage = usage;
        self.close();
    }

    /// Ends the object, or puts `0` in its place when no field changed.
    fn close(self) -> bool {
        let any = self.any;
        if self.any {
            self.out.push_str(self.closing);
            self.out.push('}');
        } else {
            self.out.truncate(self.mark);
            self.out.push('0');
        }
        any
    }
}

/// One changed step, `[number, fields, text, reasoning]` (see
/// [`Session::take_patch`]), with a comma before it unless it is the first;
/// nothing when nothing of it changed since it was last sent.
fn write_step(out: &mut String, step: &StepView, exec_id: Option<&str>, sent: &mut Vec<StepSent>) {
    let found = sent.binary_search_by_key(&step.number, |s| s.number);
    if found.is_err() && step.seen_completed {
        // Not remembered, and not to be (below): sent whole, without the
        // fingerprints a remembered step's fields are kept as (a replay's
        // first read sends every step this way).
        let mut shape = step.view(exec_id);
        shape.text = "";
        shape.reasoning = "";
        sep(out);
        out.push('[');
        crate::json::write_ascii_text(out, &step.number);
        out.push(',');
        crate::json::write_ascii_text(out, &shape);
        out.push(',');
        appended(out, &step.text, &mut 0);
        out.push(',');
        appended(out, &step.reasoning, &mut 0);
        out.push(']');
        return;
    }
    let at = match found {
        Ok(at) => at,
        Err(at) => {
            let new = StepSent {
                number: step.number,
                ..StepSent::default()
            };
            sent.insert(at, new);
            at
        }
    };
    let Some(entry) = sent.get_mut(at) else {
        return;
    };
    let start = out.len();
    sep(out);
    out.push('[');
    crate::json::write_ascii_text(out, &step.number);
    out.push(',');
    let mut shape = step.view(exec_id);
    // The texts follow as what was appended; as fields they stay `""`.
    shape.text = "";
    shape.reasoning = "";
    let usage = shape.usage;
    let fields = {
        let mut f = Fields::open(out, &mut entry.fields);
        f.keep_usage = false;
        let _ = shape.serialize(HeaderWriter { fields: &mut f });
        f.sent.usage = usage;
        f.close()
    };
    out.push(',');
    let text = appended(out, &step.text, &mut entry.text);
    out.push(',');
    let reasoning = appended(out, &step.reasoning, &mut entry.reasoning);
    out.push(']');
    if !(fields || text || reasoning) {
        out.truncate(start);
    }
    if step.seen_completed {
        // A completed step seldom changes again: it is not remembered, and
        // if it does change it is sent whole (its fields carry `text: ""`,
        // which the JS side starts the texts again from).
        sent.remove(at);
    }
}

/// What was appended to `text` since `sent` bytes of it were sent (`0` when
/// nothing), or the whole text as a one-element list when the sent part is
/// not its start; whether anything was written.
fn appended(out: &mut String, text: &str, sent: &mut usize) -> bool {
    let wrote = match text.get(*sent..) {
        Some("") if text.len() == *sent => {
            out.push('0');
            false
        }
        Some(tail) if text.len() > *sent => {
            string(out, tail);
            true
        }
        _ => {
            out.push('[');
            string(out, text);
            out.push(']');
            true
        }
    };
    *sent = text.len();
    wrote
}

/// An integer's decimal text. (`write!` goes through `core::fmt`, which
/// took a quarter of the patch's time for the counters alone.)
fn uint(out: &mut String, n: u64) {
    crate::json::write_u64(out, n);
}

/// A comma unless `out` is just after an opening bracket.
fn sep(out: &mut String) {
    if !(out.ends_with('{') || out.ends_with('[')) {
        out.push(',');
    }
}

/// A JSON string literal in ASCII (`JSON.parse` reads back the same string).
fn string(out: &mut String, s: &str) {
    crate::json::write_str_ascii(out, s);
}

/// The serializer [`Fields::write`] hands a header to: each field of the
/// struct goes through [`Fields::field`], written by the shared JSON writer.
struct HeaderWriter<'f, 'a> {
    fields: &'f mut Fields<'a>,
}

impl ser::SerializeStruct for HeaderWriter<'_, '_> {
    type Ok = ();
    type Error = NotAStruct;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), NotAStruct> {
        let f = &mut *self.fields;
        let kept = match name {
            "usage" => f.keep_usage,
            "data" => f.keep_data,
            _ => false,
        };
        if kept && f.sent.fields.len() > f.next {
            f.next += 1;
        } else {
            f.field(name, value);
        }
        Ok(())
    }

    fn end(self) -> Result<(), NotAStruct> {
        Ok(())
    }
}

/// A header that is not a struct of fields: nothing is written.
#[derive(Debug)]
struct NotAStruct;

impl std::fmt::Display for NotAStruct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a patch header is a struct of fields")
    }
}

impl std::error::Error for NotAStruct {}

impl ser::Error for NotAStruct {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        NotAStruct
    }
}

/// The serializer methods a header never calls.
macro_rules! refuse {
    ($($method:ident($($arg:ty),*)),* $(,)?) => {
        $(fn $method(self, $(_: $arg),*) -> Result<(), NotAStruct> {
            Err(NotAStruct)
        })*
    };
}

impl<'f, 'a> ser::Serializer for HeaderWriter<'f, 'a> {
    type Ok = ();
    type Error = NotAStruct;
    type SerializeSeq = Impossible<(), NotAStruct>;
    type SerializeTuple = Impossible<(), NotAStruct>;
    type SerializeTupleStruct = Impossible<(), NotAStruct>;
    type SerializeTupleVariant = Impossible<(), NotAStruct>;
    type SerializeMap = Impossible<(), NotAStruct>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), NotAStruct>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, NotAStruct> {
        Ok(self)
    }

    refuse!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, NotAStruct> {
        Err(NotAStruct)
    }
}

#[cfg(test)]
mod tests {
    use super::{string, uint, Fields, Sent};
    use crate::json;
    use crate::json::Value;

    /// One header write of `{"v": value}` against what `sent` holds.
    fn written(sent: &mut Sent, value: Value) -> String {
        #[derive(serde::Serialize)]
        struct Header {
            v: Value,
        }
        let mut out = String::new();
        Fields::open(&mut out, sent).write(&Header { v: value }, None);
        out
    }

    #[test]
    fn a_field_is_sent_again_when_its_value_changes_kind_but_not_its_text() {
        let mut sent = Sent::default();
        assert_eq!(written(&mut sent, json!({"a": 1})), r#"{"v":{"a":1}}"#);
        assert_eq!(written(&mut sent, json!({"a": 1})), "0", "unchanged");
        // The string whose text is the object's JSON is another value.
        assert_eq!(
            written(&mut sent, Value::from(r#"{"a":1}"#)),
            r#"{"v":"{\"a\":1}"}"#
        );
        assert_eq!(written(&mut sent, Value::from(r#"{"a":1}"#)), "0");
        assert_eq!(written(&mut sent, json!(1)), r#"{"v":1}"#);
        assert_eq!(written(&mut sent, json!("1")), r#"{"v":"1"}"#);
    }

    #[test]
    fn integers_are_written_as_decimal_text() {
        for n in [0, 7, 10, 1_000_000, u64::MAX] {
            let mut out = String::new();
            uint(&mut out, n);
            assert_eq!(out, n.to_string());
        }
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

//! A tool event as the tool placement keeps it, to assemble a step's runs
//! again when an event moves in or out of the step.
//!
//! A [`ToolEvent`] has thirteen optional fields and any one event carries
//! few of them: the struct was about 200 of the 288 bytes (wasm32) the
//! placement held per event, 1.1 MiB over the 4,000 events of the 100k live
//! run (bench/findings.md, issue 27's fourth pass). Kept here are the kind,
//! the name (its place in the placement's [`Names`]: a stream calls a few
//! tools over and over, and a copy of the name per event was an allocation
//! each) and the fields present.

use crate::event::{ToolEvent, ToolKind};
use crate::json::Value;

/// A [`ToolEvent`] without its absent fields; [`KeptToolEvent::event`]
/// gives back the same event.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct KeptToolEvent {
    pub(crate) kind: ToolKind,
    /// The name's place in the placement's [`Names`].
    name: usize,
    fields: Box<[Field]>,
}

/// How many of the latest names a new event's name is looked for among:
/// a stream of ever-new names then costs a few comparisons an event, not a
/// scan of every name (it keeps a copy per event, as before).
const RECENT_NAMES: usize = 16;

/// The tool names of an execution's kept events, each kept once while a
/// stream keeps using it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Names(Vec<Box<str>>);

impl Names {
    /// The place of `name`, added when it is not among the latest.
    fn id(&mut self, name: &str) -> usize {
        let n = self.0.len();
        let found = self
            .0
            .iter()
            .rev()
            .take(RECENT_NAMES)
            .position(|x| **x == *name);
        match found {
            Some(back) => n - 1 - back,
            None => {
                self.0.push(name.into());
                n
            }
        }
    }

    fn get(&self, id: usize) -> &str {
        self.0.get(id).map_or("", |x| x)
    }
}

/// One present field of a [`ToolEvent`].
#[derive(Clone, Debug, PartialEq)]
enum Field {
    CallId(String),
    ArgsSummary(String),
    Args(Value),
    /// The arguments as their JSON text (see [`text_or_value`]).
    ArgsText(Box<str>),
    Success(bool),
    Error(String),
    DurationMs(Value),
    ResultSummary(String),
    Result(Value),
    ResultText(Box<str>),
    ResultDurationMs(Value),
    ResultCallId(String),
    Output(String),
    Approval(String),
    TextDelta(String),
}

impl KeptToolEvent {
    /// A copy of `e`'s present fields, each of its exact size (the
    /// decoder's strings and values can hold more room than they use).
    pub(crate) fn new(e: &ToolEvent, names: &mut Names) -> KeptToolEvent {
        // Destructured, so that a field added to ToolEvent fails to compile here.
        let ToolEvent {
            kind,
            name,
            call_id,
            args_summary,
            args,
            success,
            error,
            duration_ms,
            result_summary,
            result,
            result_duration_ms,
            result_call_id,
            output,
            approval,
            text_delta,
        } = e;
        let mut fields = Vec::new();
        let text = |v: &Option<String>, f: fn(String) -> Field| v.as_ref().map(|v| f(v.clone()));
        let json = |v: &Option<Value>, f: fn(Value) -> Field| v.as_ref().map(|v| f(v.clone()));
        let tree = |v: &Option<Value>, f: fn(Value) -> Field, t: fn(Box<str>) -> Field| {
            v.as_ref().map(|v| text_or_value(v, f, t))
        };
        fields.extend(text(call_id, Field::CallId));
        fields.extend(text(args_summary, Field::ArgsSummary));
        fields.extend(tree(args, Field::Args, Field::ArgsText));
        fields.extend(success.map(Field::Success));
        fields.extend(text(error, Field::Error));
        fields.extend(json(duration_ms, Field::DurationMs));
        fields.extend(text(result_summary, Field::ResultSummary));
        fields.extend(tree(result, Field::Result, Field::ResultText));
        fields.extend(json(result_duration_ms, Field::ResultDurationMs));
        fields.extend(text(result_call_id, Field::ResultCallId));
        fields.extend(text(output, Field::Output));
        fields.extend(text(approval, Field::Approval));
        fields.extend(text(text_delta, Field::TextDelta));
        KeptToolEvent {
            kind: *kind,
            name: names.id(name),
            fields: fields.into_boxed_slice(),
        }
    }

    /// The event as it was given (`names`: the table it was kept with).
    pub(crate) fn event(&self, names: &Names) -> ToolEvent {
        let mut e = ToolEvent::new(self.kind, names.get(self.name));
        for f in self.fields.iter().cloned() {
            match f {
                Field::CallId(v) => e.call_id = Some(v),
                Field::ArgsSummary(v) => e.args_summary = Some(v),
                Field::Args(v) => e.args = Some(v),
                Field::ArgsText(t) => e.args = read_back(&t),
                Field::Success(v) => e.success = Some(v),
                Field::Error(v) => e.error = Some(v),
                Field::DurationMs(v) => e.duration_ms = Some(v),
                Field::ResultSummary(v) => e.result_summary = Some(v),
                Field::Result(v) => e.result = Some(v),
                Field::ResultText(t) => e.result = read_back(&t),
                Field::ResultDurationMs(v) => e.result_duration_ms = Some(v),
                Field::ResultCallId(v) => e.result_call_id = Some(v),
                Field::Output(v) => e.output = Some(v),
                Field::Approval(v) => e.approval = Some(v),
                Field::TextDelta(v) => e.text_delta = Some(v),
            }
        }
        e
    }
}

/// An array or object as its compact JSON text when reading that text
/// back gives the same value (a zero's sign too: the writer keeps it, and
/// the test below checks it); else the value. The
/// tool run built from the event holds the value already, and a tree of
/// members and strings costs about four times its text (the 100k live
/// run's `{"query":"agent 1","limit":1}`: bench/findings.md, issue 27's
/// sixth pass). Checked, not assumed, so that a rebuild gives the run the
/// value it had.
fn text_or_value(v: &Value, value: fn(Value) -> Field, text: fn(Box<str>) -> Field) -> Field {
    if matches!(v, Value::Array(_) | Value::Object(_)) {
        let t = crate::json::to_string(v);
        let same = crate::json::from_str(&t).is_ok_and(|back| back == *v);
        if same {
            return text(t.into_boxed_str());
        }
    }
    value(v.clone())
}

/// The value of a text [`text_or_value`] kept (which reads back).
fn read_back(t: &str) -> Option<Value> {
    let v = crate::json::from_str(t).ok();
    debug_assert!(v.is_some(), "kept JSON text that does not read back");
    v
}

#[cfg(test)]
mod tests {
    use super::{KeptToolEvent, Names, RECENT_NAMES};
    use crate::event::{ToolEvent, ToolKind};

    #[test]
    fn a_kept_tool_event_gives_back_every_field_it_was_given_and_keeps_only_those() {
        let names = &mut Names::default();
        let bare = ToolEvent::new(ToolKind::Started, "search");
        let kept = KeptToolEvent::new(&bare, names);
        assert!(kept.fields.is_empty());
        assert_eq!(kept.event(names), bare);
        let s = |t: &str| Some(t.to_string());
        let full = ToolEvent {
            kind: ToolKind::Completed,
            name: "search".into(),
            call_id: s("c1"),
            args_summary: s("q=1"),
            args: Some(crate::json!({"q": 1})),
            success: Some(false),
            error: s("boom"),
            duration_ms: Some(crate::json!(12.5)),
            result_summary: s("none"),
            result: Some(crate::json!([1, "two", null])),
            result_duration_ms: Some(crate::json!(13)),
            result_call_id: s("c1'"),
            output: s("out"),
            approval: s("approved"),
            text_delta: s("td"),
        };
        let kept = KeptToolEvent::new(&full, names);
        assert_eq!(kept.fields.len(), 13);
        assert_eq!(kept.event(names), full);
        let mut some = ToolEvent::new(ToolKind::Failed, "fetch");
        some.success = Some(true);
        some.duration_ms = Some(crate::json!(7));
        let kept = KeptToolEvent::new(&some, names);
        assert_eq!(kept.fields.len(), 2);
        assert_eq!(kept.event(names), some);
    }

    #[test]
    fn kept_tool_events_keep_arguments_and_results_as_text_that_reads_back() {
        // The arguments were a second tree beside the tool run's (bench/
        // findings.md, issue 27's sixth pass); now their JSON text, when
        // reading it back gives the same value.
        use super::Field;
        use crate::json::Value;
        let names = &mut Names::default();
        let mut e = ToolEvent::new(ToolKind::Started, "search");
        e.args = Some(
            crate::json!({"query": "agent 1", "limit": 1, "f": 1.0, "n": [-0.5, "\u{e9}\n", -0.0]}),
        );
        e.result = Some(crate::json!([1, {"a": null}]));
        let kept = KeptToolEvent::new(&e, names);
        assert!(matches!(
            &kept.fields[..],
            [Field::ArgsText(a), Field::ResultText(_)] if a.starts_with(r#"{"query":"agent 1""#)
        ));
        assert_eq!(kept.event(names), e);
        let zero = &kept.event(names).args.unwrap()["n"][2];
        assert!(zero
            .as_f64()
            .is_some_and(|z| z == 0.0 && z.is_sign_negative()));
        // Deeper than the reader takes: kept as the value.
        let mut deep = Value::Null;
        for _ in 0..=crate::json::MAX_NESTING {
            deep = Value::Array(vec![deep]);
        }
        e.args = Some(deep);
        e.result = Some(crate::json!(7));
        let kept = KeptToolEvent::new(&e, names);
        assert!(matches!(
            &kept.fields[..],
            [Field::Args(_), Field::Result(_)]
        ));
        assert_eq!(kept.event(names), e);
    }

    #[test]
    fn kept_tool_events_keep_a_name_the_stream_repeats_once() {
        // Each kept event held its own copy of the tool's name, an
        // allocation per event (bench/findings.md, issue 27's sixth pass).
        let names = &mut Names::default();
        let tools = ["search", "fetch_page", "get_time", "", "search"];
        let kept: Vec<KeptToolEvent> = (0..400)
            .map(|i| KeptToolEvent::new(&ToolEvent::new(ToolKind::Started, tools[i % 5]), names))
            .collect();
        assert_eq!(names.0.len(), 4);
        for (i, k) in kept.iter().enumerate() {
            assert_eq!(k.event(names).name, tools[i % 5]);
        }
        // A name not among the latest is kept again, not looked for among
        // all of them: a stream of ever-new names costs no scan.
        for i in 0..RECENT_NAMES {
            KeptToolEvent::new(&ToolEvent::new(ToolKind::Started, &format!("t{i}")), names);
        }
        let again = KeptToolEvent::new(&ToolEvent::new(ToolKind::Started, "search"), names);
        assert_eq!(names.0.len(), 4 + RECENT_NAMES + 1);
        assert_eq!(again.event(names).name, "search");
    }
}

//! A tool event as the tool placement keeps it, to assemble a step's runs
//! again when an event moves in or out of the step.
//!
//! A [`ToolEvent`] has thirteen optional fields and any one event carries
//! few of them: the struct was about 200 of the 288 bytes (wasm32) the
//! placement held per event, 1.1 MiB over the 4,000 events of the 100k live
//! run (bench/findings.md, issue 27's fourth pass). Kept here are the kind,
//! the name and the fields present.

use crate::event::{ToolEvent, ToolKind};
use crate::json::Value;

/// A [`ToolEvent`] without its absent fields; [`KeptToolEvent::event`]
/// gives back the same event.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct KeptToolEvent {
    pub(crate) kind: ToolKind,
    name: String,
    fields: Box<[Field]>,
}

/// One present field of a [`ToolEvent`].
#[derive(Clone, Debug, PartialEq)]
enum Field {
    CallId(String),
    ArgsSummary(String),
    Args(Value),
    Success(bool),
    Error(String),
    DurationMs(Value),
    ResultSummary(String),
    Result(Value),
    ResultDurationMs(Value),
    ResultCallId(String),
    Output(String),
    Approval(String),
    TextDelta(String),
}

impl KeptToolEvent {
    /// A copy of `e`'s present fields, each of its exact size (the
    /// decoder's strings and values can hold more room than they use).
    pub(crate) fn new(e: &ToolEvent) -> KeptToolEvent {
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
        fields.extend(text(call_id, Field::CallId));
        fields.extend(text(args_summary, Field::ArgsSummary));
        fields.extend(json(args, Field::Args));
        fields.extend(success.map(Field::Success));
        fields.extend(text(error, Field::Error));
        fields.extend(json(duration_ms, Field::DurationMs));
        fields.extend(text(result_summary, Field::ResultSummary));
        fields.extend(json(result, Field::Result));
        fields.extend(json(result_duration_ms, Field::ResultDurationMs));
        fields.extend(text(result_call_id, Field::ResultCallId));
        fields.extend(text(output, Field::Output));
        fields.extend(text(approval, Field::Approval));
        fields.extend(text(text_delta, Field::TextDelta));
        KeptToolEvent {
            kind: *kind,
            name: name.clone(),
            fields: fields.into_boxed_slice(),
        }
    }

    /// The event as it was given.
    pub(crate) fn event(&self) -> ToolEvent {
        let mut e = ToolEvent::new(self.kind, "");
        e.name.clone_from(&self.name);
        for f in self.fields.iter().cloned() {
            match f {
                Field::CallId(v) => e.call_id = Some(v),
                Field::ArgsSummary(v) => e.args_summary = Some(v),
                Field::Args(v) => e.args = Some(v),
                Field::Success(v) => e.success = Some(v),
                Field::Error(v) => e.error = Some(v),
                Field::DurationMs(v) => e.duration_ms = Some(v),
                Field::ResultSummary(v) => e.result_summary = Some(v),
                Field::Result(v) => e.result = Some(v),
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

#[cfg(test)]
mod tests {
    use super::KeptToolEvent;
    use crate::event::{ToolEvent, ToolKind};

    #[test]
    fn a_kept_tool_event_gives_back_every_field_it_was_given_and_keeps_only_those() {
        let bare = ToolEvent::new(ToolKind::Started, "search");
        let kept = KeptToolEvent::new(&bare);
        assert!(kept.fields.is_empty());
        assert_eq!(kept.event(), bare);
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
        let kept = KeptToolEvent::new(&full);
        assert_eq!(kept.fields.len(), 13);
        assert_eq!(kept.event(), full);
        let mut some = ToolEvent::new(ToolKind::Failed, "fetch");
        some.success = Some(true);
        some.duration_ms = Some(crate::json!(7));
        let kept = KeptToolEvent::new(&some);
        assert_eq!(kept.fields.len(), 2);
        assert_eq!(kept.event(), some);
    }
}

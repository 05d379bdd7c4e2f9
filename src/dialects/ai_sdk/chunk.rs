//! The AI SDK 6 UI message chunks as `ai@6.0.324` declares them
//! (`uiMessageChunkSchema` in the package's `ui-message-chunks.ts`, in its
//! `src/ui-message-stream` folder):
//! each chunk type's fields, which are required, and readers that refuse a
//! wrong type with a JSON pointer into the chunk.

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, quote, type_name, Map, Value};

/// What a chunk field must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ty {
    /// A string.
    Str,
    /// A boolean.
    Bool,
    /// An object (`providerMetadata`, `toolMetadata`).
    Object,
    /// Any JSON value (`input`, `output`, `data`, `messageMetadata`).
    Any,
}

/// One field of a chunk type: its name, type and whether the schema requires
/// it. zod 4 requires the key of a `z.unknown()` member (`input`, `output`,
/// `data`, `message-metadata`'s `messageMetadata`) while taking any value,
/// `null` too; `.optional()` members may be left out.
pub(super) type Field = (&'static str, Ty, bool);

const PROVIDER_METADATA: Field = ("providerMetadata", Ty::Object, false);
const TOOL_META: [Field; 4] = [
    ("providerExecuted", Ty::Bool, false),
    PROVIDER_METADATA,
    ("toolMetadata", Ty::Object, false),
    ("dynamic", Ty::Bool, false),
];

const PART: &[Field] = &[("id", Ty::Str, true), PROVIDER_METADATA];
const DELTA: &[Field] = &[
    ("id", Ty::Str, true),
    ("delta", Ty::Str, true),
    PROVIDER_METADATA,
];
const ERROR: &[Field] = &[("errorText", Ty::Str, true)];
const TOOL_INPUT_START: &[Field] = &[
    ("toolCallId", Ty::Str, true),
    ("toolName", Ty::Str, true),
    ("inputEncoding", Ty::Str, false),
    TOOL_META[0],
    TOOL_META[1],
    TOOL_META[2],
    TOOL_META[3],
    ("title", Ty::Str, false),
];
const TOOL_INPUT_DELTA: &[Field] = &[
    ("toolCallId", Ty::Str, true),
    ("inputTextDelta", Ty::Str, true),
];
const TOOL_INPUT_AVAILABLE: &[Field] = &[
    ("toolCallId", Ty::Str, true),
    ("toolName", Ty::Str, true),
    ("input", Ty::Any, true),
    TOOL_META[0],
    TOOL_META[1],
    TOOL_META[2],
    TOOL_META[3],
    ("title", Ty::Str, false),
];
const TOOL_INPUT_ERROR: &[Field] = &[
    ("toolCallId", Ty::Str, true),
    ("toolName", Ty::Str, true),
    ("input", Ty::Any, true),
    TOOL_META[0],
    TOOL_META[1],
    TOOL_META[2],
    TOOL_META[3],
    ("errorText", Ty::Str, true),
    ("title", Ty::Str, false),
];
const TOOL_APPROVAL_REQUEST: &[Field] = &[
    ("approvalId", Ty::Str, true),
    ("toolCallId", Ty::Str, true),
    ("approvalDescriptor", Ty::Any, false),
    ("inputSchemaInput", Ty::Any, false),
    ("signature", Ty::Str, false),
];
const TOOL_OUTPUT_AVAILABLE: &[Field] = &[
    ("toolCallId", Ty::Str, true),
    ("output", Ty::Any, true),
    TOOL_META[0],
    TOOL_META[1],
    TOOL_META[2],
    TOOL_META[3],
    ("preliminary", Ty::Bool, false),
];
const TOOL_OUTPUT_ERROR: &[Field] = &[
    ("toolCallId", Ty::Str, true),
    ("errorText", Ty::Str, true),
    TOOL_META[0],
    TOOL_META[1],
    TOOL_META[2],
    TOOL_META[3],
];
const TOOL_OUTPUT_DENIED: &[Field] = &[("toolCallId", Ty::Str, true)];
const SOURCE_URL: &[Field] = &[
    ("sourceId", Ty::Str, true),
    ("url", Ty::Str, true),
    ("title", Ty::Str, false),
    PROVIDER_METADATA,
];
const SOURCE_DOCUMENT: &[Field] = &[
    ("sourceId", Ty::Str, true),
    ("mediaType", Ty::Str, true),
    ("title", Ty::Str, true),
    ("filename", Ty::Str, false),
    PROVIDER_METADATA,
];
const FILE: &[Field] = &[
    ("url", Ty::Str, true),
    ("mediaType", Ty::Str, true),
    PROVIDER_METADATA,
];
const DATA: &[Field] = &[
    ("id", Ty::Str, false),
    ("data", Ty::Any, true),
    ("transient", Ty::Bool, false),
];
const NONE: &[Field] = &[];
const START: &[Field] = &[
    ("messageId", Ty::Str, false),
    ("messageMetadata", Ty::Any, false),
];
const FINISH: &[Field] = &[
    ("finishReason", Ty::Str, false),
    ("messageMetadata", Ty::Any, false),
];
const ABORT: &[Field] = &[("reason", Ty::Str, false)];
const MESSAGE_METADATA: &[Field] = &[("messageMetadata", Ty::Any, true)];

/// A chunk type, read once per chunk: the translator's checks and its
/// dispatch then match a number, not the type's text four times over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Start,
    Finish,
    StartStep,
    FinishStep,
    TextStart,
    TextEnd,
    TextDelta,
    ReasoningStart,
    ReasoningEnd,
    ReasoningDelta,
    Error,
    Abort,
    ToolInputStart,
    ToolInputDelta,
    ToolInputAvailable,
    ToolInputError,
    ToolApprovalRequest,
    ToolOutputAvailable,
    ToolOutputError,
    ToolOutputDenied,
    SourceUrl,
    SourceDocument,
    File,
    MessageMetadata,
    /// `data-<name>`.
    Data,
}

impl Kind {
    /// The chunk type `kind` names, if the schema has it.
    pub(super) fn of(kind: &str) -> Option<Kind> {
        Some(match kind {
            "start" => Kind::Start,
            "finish" => Kind::Finish,
            "start-step" => Kind::StartStep,
            "finish-step" => Kind::FinishStep,
            "text-start" => Kind::TextStart,
            "text-end" => Kind::TextEnd,
            "text-delta" => Kind::TextDelta,
            "reasoning-start" => Kind::ReasoningStart,
            "reasoning-end" => Kind::ReasoningEnd,
            "reasoning-delta" => Kind::ReasoningDelta,
            "error" => Kind::Error,
            "abort" => Kind::Abort,
            "tool-input-start" => Kind::ToolInputStart,
            "tool-input-delta" => Kind::ToolInputDelta,
            "tool-input-available" => Kind::ToolInputAvailable,
            "tool-input-error" => Kind::ToolInputError,
            "tool-approval-request" => Kind::ToolApprovalRequest,
            "tool-output-available" => Kind::ToolOutputAvailable,
            "tool-output-error" => Kind::ToolOutputError,
            "tool-output-denied" => Kind::ToolOutputDenied,
            "source-url" => Kind::SourceUrl,
            "source-document" => Kind::SourceDocument,
            "file" => Kind::File,
            "message-metadata" => Kind::MessageMetadata,
            k if k.starts_with("data-") => Kind::Data,
            _ => return None,
        })
    }

    /// The fields of a chunk of this type (`type` aside).
    pub(super) fn fields(self) -> &'static [Field] {
        match self {
            Kind::TextStart | Kind::TextEnd | Kind::ReasoningStart | Kind::ReasoningEnd => PART,
            Kind::TextDelta | Kind::ReasoningDelta => DELTA,
            Kind::Error => ERROR,
            Kind::ToolInputStart => TOOL_INPUT_START,
            Kind::ToolInputDelta => TOOL_INPUT_DELTA,
            Kind::ToolInputAvailable => TOOL_INPUT_AVAILABLE,
            Kind::ToolInputError => TOOL_INPUT_ERROR,
            Kind::ToolApprovalRequest => TOOL_APPROVAL_REQUEST,
            Kind::ToolOutputAvailable => TOOL_OUTPUT_AVAILABLE,
            Kind::ToolOutputError => TOOL_OUTPUT_ERROR,
            Kind::ToolOutputDenied => TOOL_OUTPUT_DENIED,
            Kind::SourceUrl => SOURCE_URL,
            Kind::SourceDocument => SOURCE_DOCUMENT,
            Kind::File => FILE,
            Kind::StartStep | Kind::FinishStep => NONE,
            Kind::Start => START,
            Kind::Finish => FINISH,
            Kind::Abort => ABORT,
            Kind::MessageMetadata => MESSAGE_METADATA,
            Kind::Data => DATA,
        }
    }

    /// Whether a chunk of this type after the run ended continues it: a new
    /// step, text, reasoning or a tool chunk does (the next response of the
    /// same message); late metadata, data parts, files, sources and a
    /// repeated end do not (`createUIMessageStream` writers send those after
    /// a `finish`, and after a provider `error` streamText still closes the
    /// step).
    pub(super) fn reopens(self) -> bool {
        matches!(
            self,
            Kind::StartStep
                | Kind::TextStart
                | Kind::TextEnd
                | Kind::TextDelta
                | Kind::ReasoningStart
                | Kind::ReasoningEnd
                | Kind::ReasoningDelta
                | Kind::ToolInputStart
                | Kind::ToolInputDelta
                | Kind::ToolInputAvailable
                | Kind::ToolInputError
                | Kind::ToolApprovalRequest
                | Kind::ToolOutputAvailable
                | Kind::ToolOutputError
                | Kind::ToolOutputDenied
        )
    }
}

/// Checks `chunk` against `fields`: a required field absent, or any field of
/// the wrong type, is an error at its path; a field the schema does not name
/// is returned (the schema's objects are loose: kept, warned about).
pub(super) fn check<'a>(chunk: &'a Map, fields: &[Field]) -> Result<Vec<&'a str>> {
    for &(name, ty, required) in fields {
        match chunk.get(name) {
            // zod's `.optional()` takes `undefined`, which JSON writes by
            // leaving the key out; a `null` is a wrong type, as there.
            None if required => {
                return Err(SteplineError::at(
                    ErrorCode::MissingField,
                    &child("", name),
                    format!("expected {} ({})", what(ty), quote(name)),
                ))
            }
            None => {}
            Some(v) if !fits(ty, v) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidType,
                    &child("", name),
                    format!("expected {}, found {}", what(ty), type_name(v)),
                ))
            }
            Some(_) => {}
        }
    }
    Ok(chunk
        .keys()
        .map(|k| k.as_ref())
        .filter(|k| *k != "type" && !fields.iter().any(|f| f.0 == *k))
        .collect())
}

fn fits(ty: Ty, v: &Value) -> bool {
    match ty {
        Ty::Str => v.is_string(),
        Ty::Bool => v.is_boolean(),
        Ty::Object => v.is_object(),
        Ty::Any => true,
    }
}

fn what(ty: Ty) -> &'static str {
    match ty {
        Ty::Str => "a string",
        Ty::Bool => "a boolean",
        Ty::Object => "an object",
        Ty::Any => "a value",
    }
}

/// A string field [`check`] has seen (absent gives `None`).
pub(super) fn str_of<'a>(chunk: &'a Map, name: &str) -> Option<&'a str> {
    chunk.get(name).and_then(Value::as_str)
}

/// A boolean field [`check`] has seen (absent is `false`).
pub(super) fn flag(chunk: &Map, name: &str) -> bool {
    chunk.get(name).and_then(Value::as_bool) == Some(true)
}

/// A string field that must be one of `allowed` (`finishReason`, `inputEncoding`).
pub(super) fn one_of<'a>(chunk: &'a Map, name: &str, allowed: &[&str]) -> Result<Option<&'a str>> {
    match str_of(chunk, name) {
        Some(v) if !allowed.contains(&v) => Err(SteplineError::at(
            ErrorCode::InvalidValue,
            &child("", name),
            format!(
                "expected one of {}, found {}",
                allowed
                    .iter()
                    .map(|a| quote(a))
                    .collect::<Vec<_>>()
                    .join(", "),
                quote(v)
            ),
        )),
        v => Ok(v),
    }
}

/// Deep-merges `overrides` into `base` as the AI SDK's `mergeObjects` does
/// for message metadata: objects merge key by key, anything else (arrays
/// too) replaces, and `__proto__`, `constructor` and `prototype` keys are
/// skipped. A non-object on either side replaces the whole value.
pub(super) fn merge_objects(base: &mut Value, overrides: Value) {
    match (base, overrides) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                if matches!(k.as_ref(), "__proto__" | "constructor" | "prototype") {
                    continue;
                }
                match b.get_mut(&k) {
                    Some(existing) if existing.is_object() && v.is_object() => {
                        merge_objects(existing, v)
                    }
                    _ => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (b, o) => *b = o,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::from_str;

    #[test]
    fn a_chunk_type_continues_an_ended_run_when_it_is_a_step_text_reasoning_or_tool_chunk() {
        let every = [
            "start",
            "finish",
            "start-step",
            "finish-step",
            "text-start",
            "text-end",
            "text-delta",
            "reasoning-start",
            "reasoning-end",
            "reasoning-delta",
            "error",
            "abort",
            "tool-input-start",
            "tool-input-delta",
            "tool-input-available",
            "tool-input-error",
            "tool-approval-request",
            "tool-output-available",
            "tool-output-error",
            "tool-output-denied",
            "source-url",
            "source-document",
            "file",
            "message-metadata",
            "data-weather",
        ];
        for kind in every {
            let k = Kind::of(kind).expect("a type the schema declares");
            // The rule as the type's text states it.
            let by_name = kind == "start-step"
                || kind.starts_with("text-")
                || kind.starts_with("reasoning-")
                || kind.starts_with("tool-");
            assert_eq!(k.reopens(), by_name, "{kind}");
        }
        assert_eq!(Kind::of("tool-result"), None, "no such type in ai@6");
    }

    fn obj(text: &str) -> Map {
        match from_str(text) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn missing_required_field_is_located() {
        let chunk = obj(r#"{"type":"text-delta","id":"t"}"#);
        let e = check(&chunk, DELTA).unwrap_err();
        assert_eq!(e.code, ErrorCode::MissingField);
        assert_eq!(e.path.as_deref(), Some("/delta"));
    }

    #[test]
    fn null_optional_field_is_a_wrong_type() {
        let chunk = obj(r#"{"type":"source-url","sourceId":"s","url":"u","title":null}"#);
        let e = check(&chunk, SOURCE_URL).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidType);
        assert_eq!(e.path.as_deref(), Some("/title"));
    }

    #[test]
    fn unknown_fields_are_returned_not_refused() {
        let chunk = obj(r#"{"type":"finish-step","extra":1}"#);
        assert_eq!(check(&chunk, NONE).unwrap(), vec!["extra"]);
    }

    #[test]
    fn metadata_merges_deeply_and_replaces_arrays() {
        let mut base = from_str(r#"{"a":{"x":1,"y":[1,2]},"b":1}"#).unwrap();
        let over = from_str(r#"{"a":{"y":[3],"z":2},"__proto__":{"p":1},"c":null}"#).unwrap();
        merge_objects(&mut base, over);
        assert_eq!(
            crate::json::to_string(&base),
            r#"{"a":{"x":1,"y":[3],"z":2},"b":1,"c":null}"#
        );
    }
}

//! Decoding envelopes from any producer into one model. Known types are
//! strict (a wrong type or a missing required field is an error with a path);
//! unknown types and unknown fields are kept and reported as warnings, so a
//! newer producer never breaks an older UI.

use crate::json::{Map, Value};

use crate::envelope::dialect::{detect, failed_attempt, WireDialect};
use crate::envelope::schema::{fields, Field, Kind};
use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, index, obj, type_name, Limits, Whole};
use crate::model::time::is_rfc3339;

/// A non-fatal finding: something kept but not understood.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "EnvelopeWarning"))]
pub struct Warning {
    /// JSON pointer of what was not understood, within the envelope.
    pub path: String,
    /// `unknown_type`, `unknown_field`, `gap` (a foreign event whose
    /// other half or whose run never arrived), or `limit_exceeded` (what an
    /// execution accumulates reached a size limit: past it, values are not
    /// kept; src/session/limits.rs says which, once per execution).
    #[cfg_attr(feature = "schema", schemars(schema_with = "warning_code_schema"))]
    pub code: &'static str,
    /// What was kept, for a person.
    pub message: String,
}

#[cfg(feature = "schema")]
fn warning_code_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "enum": ["unknown_type", "unknown_field", "gap", "limit_exceeded"] })
}

impl Warning {
    /// The JSON form the JavaScript API returns.
    pub fn to_value(&self) -> Value {
        obj([
            ("path", Value::from(self.path.as_str())),
            ("code", Value::from(self.code)),
            ("message", Value::from(self.message.as_str())),
        ])
    }
}

/// A decoded envelope in the normalised form, and what was kept unread.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    /// `{type, session_id, execution_id, timestamp, payload, extra?}` with the
    /// payload's fields under their normalised names (unknown ones in `payload.extra`).
    pub envelope: Value,
    /// What was kept but not understood (unknown type or fields).
    pub warnings: Vec<Warning>,
    /// Which producer's dialect the envelope is in (see [`crate::envelope::dialect`]).
    pub dialect: WireDialect,
}

/// `truncated: true`: the payload was shortened to fit the broadcaster's limit.
const TRUNCATED: &str = "truncated";

/// Limits for one envelope: far above what a broadcaster delivers (10 KB by
/// default), far below what would hurt a browser tab.
pub const ENVELOPE_LIMITS: Limits = Limits {
    max_bytes: 1024 * 1024,
    max_depth: 64,
};

/// Decodes JSON text holding one envelope. Another producer's event is not
/// told apart here: the dialect layer does that first (`crate::dialects`'s
/// `decode_envelope`, what the JavaScript API's decoders use).
pub fn decode_text(text: &str) -> Result<Decoded> {
    decode_owned(crate::json::parse(text, &ENVELOPE_LIMITS)?)
}

/// Decodes one envelope. The seed-003 native form (`event_type`, fields at the
/// top level, no session) is accepted too. [`decode_owned`] does the same
/// without copying the input.
pub fn decode_value(v: &Value) -> Result<Decoded> {
    decode_owned(v.clone())
}

/// [`decode_value`], taking the parsed envelope: its values move into the
/// normalised form instead of being copied (copies were a third of a bulk
/// replay's decoding).
pub fn decode_owned(v: Value) -> Result<Decoded> {
    let members = envelope_object(v)?;
    let mut warnings = Vec::new();
    // The envelope's own members, taken in one pass over the members moved
    // out of the parsed map, each placed by one comparison; the rest
    // (unknown fields, or the native form's payload fields) kept in order.
    // Whether the envelope is in the native form is read from what was taken
    // (two searches of the members before).
    let mut top: [Option<Value>; 6] = Default::default();
    let mut m = Map::new();
    for (k, v) in members {
        match top_place(&k).and_then(|i| top.get_mut(i)) {
            Some(slot) => *slot = Some(v),
            None => m.push(k, v),
        }
    }
    let [ty, event_type, session_id, execution_id, timestamp, payload] = top;
    let native = ty.is_none() && event_type.is_some();
    let type_key = if native { "event_type" } else { "type" };
    let kind = take_type(if native { event_type } else { ty }, type_key)?;
    let session_id = take_session_id(session_id, native)?;
    let execution_id = take_execution_id(execution_id)?;
    let timestamp = take_timestamp(timestamp)?;
    let (payload_in, payload_path) = take_payload(&mut m, payload, native)?;
    let (payload, dialect) =
        decode_payload_of(&kind, native, payload_in, payload_path, &mut warnings)?;
    let mut out = Map::with_capacity(6);
    out.push("type", Value::String(kind));
    out.push("session_id", session_id);
    out.push("execution_id", execution_id);
    out.push("timestamp", timestamp);
    out.push("payload", payload);
    // `m` now holds only unknown top-level fields (empty in the native form).
    keep_unknown(&mut out, m, "", "envelope field", "extra", &mut warnings);
    Ok(Decoded {
        envelope: Value::Object(out),
        warnings,
        dialect,
    })
}

/// The payload of an envelope of type `kind` as [`decode_owned`] takes it:
/// its dialect read from it as it arrived, then normalised and checked
/// (`path`: where the payload is in the envelope). The line reader
/// (src/envelope/fast_line.rs) calls it on a payload it parsed on its own.
pub(crate) fn decode_payload_of(
    kind: &str,
    native: bool,
    payload: Map,
    path: &str,
    warnings: &mut Vec<Warning>,
) -> Result<(Value, WireDialect)> {
    let dialect = detect(kind, native, &payload);
    let type_key = if native { "event_type" } else { "type" };
    let payload = decode_payload(kind, type_key, payload, path, warnings)?;
    Ok((payload, dialect))
}

/// The envelope's members, or `invalid_type` at the root.
fn envelope_object(v: Value) -> Result<Map> {
    match v {
        Value::Object(m) => Ok(m),
        other => Err(wrong_type("", "an envelope object", &other)),
    }
}

/// The envelope's own members, in the order [`decode_owned`] takes them.
const TOP: [&str; 6] = [
    "type",
    "event_type",
    "session_id",
    "execution_id",
    "timestamp",
    "payload",
];

/// Where `key` is in [`TOP`]: one comparison, the place told by the length
/// (and the first byte of the two ten-byte names).
fn top_place(key: &str) -> Option<usize> {
    let i = match (key.len(), key.as_bytes().first()) {
        (4, _) => 0,
        (10, Some(b'e')) => 1,
        (10, _) => 2,
        (12, _) => 3,
        (9, _) => 4,
        (7, _) => 5,
        _ => return None,
    };
    TOP.get(i)
        .filter(|name| crate::json::same_key(name, key))
        .map(|_| i)
}

/// The event type, under `type` (or the native form's `event_type`).
fn take_type(v: Option<Value>, type_key: &str) -> Result<String> {
    match v {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(wrong_type(
            &child("", type_key),
            "the event type as a string",
            &other,
        )),
        None => Err(SteplineError::at(
            ErrorCode::MissingField,
            "/type",
            "expected `type` (or seed 003's `event_type`)",
        )),
    }
}

/// `session_id`: required, except in the native form, which has none.
fn take_session_id(v: Option<Value>, native: bool) -> Result<Value> {
    match v {
        Some(s @ Value::String(_)) => Ok(s),
        None | Some(Value::Null) if native => Ok(Value::Null),
        None | Some(Value::Null) => Err(SteplineError::at(
            ErrorCode::MissingField,
            "/session_id",
            "expected `session_id`",
        )),
        Some(other) => Err(wrong_type(
            "/session_id",
            "`session_id` as a string",
            &other,
        )),
    }
}

/// `execution_id`: a string or absent (null).
fn take_execution_id(v: Option<Value>) -> Result<Value> {
    match v {
        None | Some(Value::Null) => Ok(Value::Null),
        Some(s @ Value::String(_)) => Ok(s),
        Some(other) => Err(wrong_type(
            "/execution_id",
            "`execution_id` as a string",
            &other,
        )),
    }
}

/// `timestamp`: an RFC 3339 string or absent (null).
fn take_timestamp(v: Option<Value>) -> Result<Value> {
    match v {
        None | Some(Value::Null) => Ok(Value::Null),
        Some(Value::String(s)) if is_rfc3339(&s) => Ok(Value::String(s)),
        Some(Value::String(s)) => Err(SteplineError::at(
            ErrorCode::InvalidTimestamp,
            "/timestamp",
            format!(
                "expected an RFC 3339 timestamp, found {}",
                crate::json::quote(&s)
            ),
        )),
        Some(other) => Err(wrong_type("/timestamp", "`timestamp` as a string", &other)),
    }
}

/// The payload's members and their path: what is left of the top level `m`
/// in the native form (its `payload` dropped), `payload` otherwise (an
/// empty array or null reads as `{}`, as PHP writes an empty map). What
/// stays in `m` is the dialects' unknown top-level fields.
fn take_payload(m: &mut Map, payload: Option<Value>, native: bool) -> Result<(Map, &'static str)> {
    if native {
        return Ok((std::mem::take(m), ""));
    }
    match payload {
        Some(Value::Object(p)) => Ok((p, "/payload")),
        Some(Value::Array(a)) if a.is_empty() => Ok((Map::new(), "/payload")),
        None | Some(Value::Null) => Ok((Map::new(), "/payload")),
        Some(other) => Err(wrong_type("/payload", "the payload as an object", &other)),
    }
}

/// `invalid_type` at `path`: "expected {what}, found {the JSON type}" (one
/// function for every such error, so the message is written once in the wasm).
fn wrong_type(path: &str, what: &str, found: &Value) -> SteplineError {
    SteplineError::at(
        ErrorCode::InvalidType,
        path,
        format!("expected {what}, found {}", type_name(found)),
    )
}

/// A known type's payload, normalised and checked; an unknown type's, kept
/// as it is with an `unknown_type` warning.
fn decode_payload(
    kind: &str,
    type_key: &str,
    payload: Map,
    path: &str,
    warnings: &mut Vec<Warning>,
) -> Result<Value> {
    let Some(spec) = fields(kind) else {
        warnings.push(Warning {
            path: child("", type_key),
            code: "unknown_type",
            message: format!(
                "unknown event type {} (kept as is)",
                crate::json::quote(kind)
            ),
        });
        return Ok(Value::Object(payload));
    };
    let p = normalise_kind(kind, payload, spec, path, warnings)?;
    check_annotations(&p, path)?;
    Ok(p)
}

/// Seed-003 annotations (an event's own, and its `step` object's) are read
/// into the view, so a malformed one is refused here, with its path.
fn check_annotations(payload: &Value, path: &str) -> Result<()> {
    if let Some(a) = payload.get("annotations").filter(|a| !a.is_null()) {
        crate::model::annotations::Annotations::from_value(a, &child(path, "annotations"))?;
    }
    if let Some(a) = payload
        .get("step")
        .and_then(|s| s.get("annotations"))
        .filter(|a| !a.is_null())
    {
        let at = child(&child(path, "step"), "annotations");
        crate::model::annotations::Annotations::from_value(a, &at)?;
    }
    Ok(())
}

/// A JSONL batch: every line decoded, failures collected with their line
/// number (the first 1,000 listed, all counted). A leading byte order mark is
/// not part of the first line.
pub fn decode_lines(text: &str) -> (Vec<Decoded>, crate::error::LineErrors) {
    decode_lines_with(text, decode_text)
}

/// [`decode_lines`] with another decoder of one line.
pub fn decode_lines_with(
    text: &str,
    decode: impl Fn(&str) -> Result<Decoded>,
) -> (Vec<Decoded>, crate::error::LineErrors) {
    let mut ok = Vec::new();
    let mut errors = crate::error::LineErrors::default();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match decode(line) {
            Ok(d) => ok.push(d),
            Err(e) => errors.push(i + 1, e),
        }
    }
    (ok, errors)
}

/// Checks a payload of a known type with the rules [`decode_value`] applies,
/// without keeping the result (the encoder's guard on what it copies). Paths
/// are relative to the payload (`/step_number`).
pub fn check_payload(kind: &str, payload: &Map) -> Result<()> {
    match fields(kind) {
        Some(spec) => normalise_kind(kind, payload.clone(), spec, "", &mut Vec::new()).map(drop),
        None => Ok(()),
    }
}

/// [`normalise`], then what one field cannot say on its own, by type.
fn normalise_kind(
    kind: &str,
    input: Map,
    spec: &[Field],
    path: &str,
    warnings: &mut Vec<Warning>,
) -> Result<Value> {
    let out = match kind {
        "agent.step.completed" => step_completed(input, spec, path, warnings)?,
        "agent.continuation" => continuation(input, spec, path, warnings)?,
        "agent.stream.chunk" => stream_chunk(input, spec, path, warnings)?,
        _ => normalise(input, spec, path, warnings)?,
    };
    Ok(Value::Object(out))
}

/// v2.7's numbering by recorded steps (see `dialect::failed_attempt`), read
/// once: a normalised envelope already carries `recorded_steps`.
fn step_completed(
    input: Map,
    spec: &[Field],
    path: &str,
    warnings: &mut Vec<Warning>,
) -> Result<Map> {
    let renumber = !input.contains_key("recorded_steps") && failed_attempt(&input);
    let mut m = normalise(input, spec, path, warnings)?;
    if renumber {
        renumber_by_recorded_steps(&mut m);
    }
    Ok(m)
}

/// A continuation carries v1.22's `should_continue` or v2's `should_stop`,
/// and reads into the one vocabulary with both (`should_continue` = not
/// `should_stop`). v2 numbers it by recorded steps, as a step completion.
fn continuation(
    input: Map,
    spec: &[Field],
    path: &str,
    warnings: &mut Vec<Warning>,
) -> Result<Map> {
    let renumber = !input.contains_key("recorded_steps")
        && input.contains_key("should_stop")
        && input.get("step_number").and_then(Value::as_i64) == Some(0);
    let mut m = normalise(input, spec, path, warnings)?;
    if renumber {
        renumber_by_recorded_steps(&mut m);
    }
    let flag = |k: &str| m.get(k).and_then(Value::as_bool);
    match (flag("should_continue"), flag("should_stop")) {
        (Some(_), _) => {}
        (None, Some(stop)) => {
            m.insert("should_continue", Value::Bool(!stop));
        }
        (None, None) => {
            return Err(SteplineError::at(
                ErrorCode::MissingField,
                &child(path, "should_continue"),
                "expected `should_continue` (v1.22) or `should_stop` (v2)",
            ))
        }
    }
    Ok(m)
}

/// A chunk's `provider_frame` is decided here from the content, whatever the
/// wire said.
fn stream_chunk(
    input: Map,
    spec: &[Field],
    path: &str,
    warnings: &mut Vec<Warning>,
) -> Result<Map> {
    let mut m = normalise(input, spec, path, warnings)?;
    m.remove("provider_frame");
    let frame = m
        .get("content")
        .and_then(Value::as_str)
        .and_then(crate::envelope::frames::provider_frame);
    if let Some(provider) = frame {
        m.insert("provider_frame", Value::from(provider));
    }
    Ok(m)
}

/// `step_number` counted from the recorded steps (v2.7) becomes the attempt's
/// number, the recorded count kept as `recorded_steps`.
fn renumber_by_recorded_steps(m: &mut Map) {
    if let Some(n) = m.get("step_number").and_then(Value::as_i64) {
        m.insert("recorded_steps", Value::from(n));
        m.insert("step_number", Value::from(n.saturating_add(1)));
    }
}

/// The payload's known fields under their normalised names, in `spec` order,
/// then `extra` with the fields left over (in the order they came). A
/// member read is marked, not removed (a removal shifted the members after
/// it, once per field: a sixteenth of a bulk replay, bench/findings.md);
/// a payload of more members than a mark has bits is read by removal.
/// A type's field names are distinct, so they are appended without a
/// search for an existing key (`Map::push`; debug builds check).
fn normalise(
    mut input: Map,
    spec: &[Field],
    path: &str,
    warnings: &mut Vec<Warning>,
) -> Result<Map> {
    if in_normal_form(&input, spec) {
        check_in_place(&mut input, spec, path)?;
        return Ok(input);
    }
    let marks = input.len() <= 64;
    let mut read = 0u64;
    let mut take = |input: &mut Map, key: &str| -> Option<Value> {
        if !marks {
            return input.remove(key);
        }
        let i = input.position(key).filter(|&i| read & (1 << i) == 0)?;
        read |= 1 << i;
        input.take_at(i)
    };
    let mut out = Map::with_capacity(spec.len() + 1);
    for f in spec {
        // The first spelling present is read; the other spellings are dropped.
        let mut found = None;
        for key in std::iter::once(f.name).chain(f.aliases.iter().copied()) {
            if let Some(v) = take(&mut input, key) {
                found = found.or(Some((key, v)));
            }
        }
        match found {
            None | Some((_, Value::Null)) if f.required => {
                return Err(SteplineError::at(
                    ErrorCode::MissingField,
                    &child(path, f.name),
                    format!("expected `{}`", f.name),
                ))
            }
            None => {}
            Some((_, Value::Null)) => {
                out.push(f.name, Value::Null);
            }
            Some((key, v)) => {
                let at = At { path, key };
                match f.kind {
                    Kind::ToolCount => match v {
                        Value::Array(names) => {
                            out.push(f.name, Value::from(names.len()));
                            out.push("available_tool_names", Value::Array(names));
                        }
                        v => {
                            out.push(f.name, checked(v, Kind::Int, at)?);
                        }
                    },
                    kind => {
                        out.push(f.name, checked(v, kind, at)?);
                    }
                }
            }
        }
    }
    // The encoder's cap (`cap::fit`) marks a shortened payload of any type.
    match take(&mut input, TRUNCATED) {
        None => {}
        Some(Value::Null) => {
            out.push(TRUNCATED, Value::Null);
        }
        Some(v) => {
            let at = At {
                path,
                key: TRUNCATED,
            };
            out.push(TRUNCATED, checked(v, Kind::Bool, at)?);
        }
    }
    // What is left is unknown.
    if marks && read != 0 {
        let mut i = 0;
        input.retain(|_, _| {
            let keep = read & (1 << i) == 0;
            i += 1;
            keep
        });
    }
    keep_unknown(
        &mut out,
        input,
        path,
        "payload field",
        "payload.extra",
        warnings,
    );
    Ok(out)
}

/// Whether `input` is already what [`normalise`] makes of it: every member
/// a field of `spec` under its normalised name, in `spec` order, every
/// required field present and not null, and no tool list to count. That is
/// how a producer writes its own payloads, so nearly every payload is
/// checked where it is instead of moved into a second map. (No field's
/// name is another's alias, `fields_are_not_each_others_aliases` below, so a
/// member under a field's name is that field.)
fn in_normal_form(input: &Map, spec: &[Field]) -> bool {
    let mut members = input.iter().peekable();
    for f in spec {
        match members.peek() {
            Some((k, v)) if crate::json::same_key(k, f.name) => {
                if (f.required && v.is_null()) || (f.kind == Kind::ToolCount && v.is_array()) {
                    return false;
                }
                members.next();
            }
            _ if f.required => return false,
            _ => {}
        }
    }
    members.next().is_none()
}

/// [`normalise`]'s checks of a payload [`in_normal_form`], member by member
/// in place: the same values and the same first error.
fn check_in_place(input: &mut Map, spec: &[Field], path: &str) -> Result<()> {
    let mut fields = spec.iter();
    for (key, v) in input.iter_mut() {
        let Some(f) = fields.find(|f| crate::json::same_key(key, f.name)) else {
            continue;
        };
        if v.is_null() || already_checked(v, f.kind) {
            continue;
        }
        let kind = match f.kind {
            Kind::ToolCount => Kind::Int,
            kind => kind,
        };
        *v = checked(std::mem::take(v), kind, At { path, key: f.name })?;
    }
    Ok(())
}

/// Whether [`checked`] would give `v` back as it is, without moving it: the
/// usual value of the usual kinds (an integer already in its one form, a
/// position not negative).
fn already_checked(v: &Value, kind: Kind) -> bool {
    match (kind, v) {
        (Kind::Str, Value::String(_)) | (Kind::Bool, Value::Bool(_)) | (Kind::Any, _) => true,
        (Kind::Num, Value::Number(_)) => true,
        (Kind::Int, Value::Number(n)) => n.is_i64(),
        (Kind::Index, Value::Number(n)) => n.is_i64() && n.is_u64(),
        _ => false,
    }
}

/// Keeps the fields left in `unknown` under `extra` in `out`, with an
/// `unknown_field` warning each ("unknown {what} \"k\" (kept in {kept_in})").
fn keep_unknown(
    out: &mut Map,
    unknown: Map,
    path: &str,
    what: &str,
    kept_in: &str,
    warnings: &mut Vec<Warning>,
) {
    for k in unknown.keys() {
        warnings.push(Warning {
            path: child(path, k),
            code: "unknown_field",
            message: format!(
                "unknown {what} {} (kept in {kept_in})",
                crate::json::quote(k)
            ),
        });
    }
    if !unknown.is_empty() {
        out.insert("extra", Value::Object(unknown));
    }
}

/// Where a field is: its pointer is only written out for an error, so a valid
/// envelope allocates no paths.
#[derive(Clone, Copy)]
struct At<'a> {
    path: &'a str,
    key: &'a str,
}

impl At<'_> {
    fn pointer(self) -> String {
        child(self.path, self.key)
    }
}

fn checked(v: Value, kind: Kind, at: At) -> Result<Value> {
    let wrong = |expected: &str, v: &Value| wrong_type(&at.pointer(), expected, v);
    Ok(match kind {
        Kind::Str if v.is_string() => v,
        Kind::Str => return Err(wrong("a string", &v)),
        Kind::Int => match &v {
            Value::Number(n) => match crate::json::whole(n) {
                // Rewritten: `-0` arrives as the float -0.0.
                Whole::Int(i) => Value::from(i),
                // Kept as it was always read: counters up to u64::MAX.
                Whole::OutOfRange if n.is_u64() => v,
                Whole::OutOfRange => return Err(out_of_range(n, &at.pointer())),
                Whole::NotWhole => return Err(wrong("an integer", &v)),
            },
            _ => return Err(wrong("an integer", &v)),
        },
        // A producer counts chunks from 0: a negative position would place
        // the text before the stream's start.
        Kind::Index => match checked(v, Kind::Int, at)? {
            Value::Number(n) if n.as_i64().is_some_and(|i| i < 0) => {
                return Err(SteplineError::at(
                    ErrorCode::OutOfRange,
                    &at.pointer(),
                    format!(
                        "expected a position counted from 0, found {}",
                        crate::json::number_text(&n)
                    ),
                ))
            }
            v => v,
        },
        Kind::Num if v.is_number() => v,
        Kind::Num => return Err(wrong("a number", &v)),
        Kind::Bool if v.is_boolean() => v,
        Kind::Bool => return Err(wrong("a boolean", &v)),
        Kind::Object if v.is_object() || matches!(&v, Value::Array(a) if a.is_empty()) => v,
        Kind::Object => return Err(wrong("an object", &v)),
        Kind::Any => v,
        Kind::ToolCount => v,
        Kind::Usage => usage(&v, at)?,
        Kind::Evaluations => {
            evaluations(&v, at)?;
            v
        }
    })
}

/// `{input, output, cacheWrite, cacheRead, reasoning}`, from either usage form.
/// The path is written out only for an error (a valid envelope allocates
/// none: formatting it was a fortieth of a bulk replay, bench/findings.md).
fn usage(v: &Value, at: At) -> Result<Value> {
    let m = match v {
        Value::Object(m) => m,
        Value::Array(a) if a.is_empty() => return Ok(usage_value([0, 0, 0, 0, 0])),
        other => return Err(wrong_type(&at.pointer(), "usage as an object", other)),
    };
    let int = |k: &str| -> Result<i64> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(0),
            Some(Value::Number(n)) => match crate::json::whole(n) {
                Whole::Int(i) => Ok(i),
                Whole::OutOfRange => Err(out_of_range(n, &child(&at.pointer(), k))),
                Whole::NotWhole => Err(SteplineError::at(
                    ErrorCode::InvalidType,
                    &child(&at.pointer(), k),
                    format!(
                        "expected `{k}` as an integer, found {}",
                        crate::json::number_text(n)
                    ),
                )),
            },
            Some(other) => Err(wrong_type(
                &child(&at.pointer(), k),
                &format!("`{k}` as an integer"),
                other,
            )),
        }
    };
    let seed_form =
        !m.contains_key("input") && (m.contains_key("prompt") || m.contains_key("completion"));
    let fields = if seed_form {
        [int("prompt")?, int("completion")?, 0, 0, 0]
    } else {
        [
            int("input")?,
            int("output")?,
            int("cacheWrite")?,
            int("cacheRead")?,
            int("reasoning")?,
        ]
    };
    let mut out = usage_value(fields);
    // The producer's own `total` is kept when it is not the sum of the
    // fields (it may count tokens the fields do not name).
    if m.get("total").is_some_and(|t| !t.is_null()) {
        let total = int("total")?;
        let sum = fields.iter().fold(0i64, |a, n| a.saturating_add(*n));
        if total != sum {
            if let Value::Object(o) = &mut out {
                o.insert("total", Value::from(total));
            }
        }
    }
    Ok(out)
}

fn out_of_range(n: &crate::json::Number, path: &str) -> SteplineError {
    SteplineError::at(
        ErrorCode::OutOfRange,
        path,
        format!(
            "expected an integer from -2^63 to 2^63-1, found {}",
            crate::json::number_text(n)
        ),
    )
}

fn usage_value([input, output, cache_write, cache_read, reasoning]: [i64; 5]) -> Value {
    obj([
        ("input", Value::from(input)),
        ("output", Value::from(output)),
        ("cacheWrite", Value::from(cache_write)),
        ("cacheRead", Value::from(cache_read)),
        ("reasoning", Value::from(reasoning)),
    ])
}

/// A continuation's evaluations, checked; paths written only for an error.
fn evaluations(v: &Value, at: At) -> Result<()> {
    let list = v
        .as_array()
        .ok_or_else(|| wrong_type(&at.pointer(), "evaluations as an array", v))?;
    for (i, e) in list.iter().enumerate() {
        let p = || index(&at.pointer(), i);
        let m = e
            .as_object()
            .ok_or_else(|| wrong_type(&p(), "an evaluation object", e))?;
        for (k, required) in [("criterion", true), ("decision", true), ("reason", false)] {
            match m.get(k) {
                Some(Value::String(_)) => {}
                None | Some(Value::Null) if !required => {}
                None | Some(Value::Null) => {
                    return Err(SteplineError::at(
                        ErrorCode::MissingField,
                        &child(&p(), k),
                        format!("expected `{k}`"),
                    ))
                }
                Some(other) => {
                    return Err(wrong_type(
                        &child(&p(), k),
                        &format!("`{k}` as a string"),
                        other,
                    ))
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_not_each_others_aliases() {
        // `in_normal_form` takes a member under a field's name for that field.
        for kind in crate::envelope::schema::KNOWN_TYPES {
            let spec = crate::envelope::schema::fields(kind).unwrap();
            for f in spec {
                for other in spec {
                    assert!(!other.aliases.contains(&f.name), "{kind}: {}", f.name);
                }
            }
        }
    }

    /// The envelope of `payload` (a JSON object's members) of type `kind`.
    fn payload_of(kind: &str, members: &str) -> Result<Decoded> {
        decode_text(&format!(
            r#"{{"type":"{kind}","session_id":"s","payload":{{{members}}}}}"#
        ))
    }

    #[test]
    fn a_payload_in_normal_form_decodes_as_the_same_payload_out_of_order() {
        // In order, the payload is checked in place; out of order it is
        // moved into a new map. Both give the same envelope and warnings.
        for (kind, in_order, out_of_order) in [
            (
                "agent.stream.chunk",
                r#""content":"hi","is_complete":false,"chunk_index":3"#,
                r#""chunk_index":3,"content":"hi","is_complete":false"#,
            ),
            (
                "agent.stream.chunk",
                r#""content":"{}","chunk_index":-0,"tokens_delta":2"#,
                r#""tokens_delta":2,"chunk_index":-0,"content":"{}""#,
            ),
            (
                "agent.step.started",
                r#""step_number":1,"message_count":null,"available_tools":4"#,
                r#""available_tools":4,"step_number":1,"message_count":null"#,
            ),
            (
                "agent.tool.completed",
                r#""tool_name":"t","tool_call_id":"c","success":true,"error":null,"duration_ms":5"#,
                r#""duration_ms":5,"tool_name":"t","success":true,"tool_call_id":"c","error":null"#,
            ),
        ] {
            let a = payload_of(kind, in_order).unwrap();
            let b = payload_of(kind, out_of_order).unwrap();
            assert_eq!(a.envelope, b.envelope, "{kind}: {in_order}");
            assert_eq!(
                crate::json::to_string(&a.envelope),
                crate::json::to_string(&b.envelope),
                "{kind}: the members' order"
            );
            assert_eq!(a.warnings.len(), b.warnings.len());
        }
    }

    #[test]
    fn a_payload_in_normal_form_fails_as_the_same_payload_out_of_order() {
        for (kind, in_order, out_of_order) in [
            (
                "agent.stream.chunk",
                r#""content":"hi","is_complete":"no","chunk_index":-1"#,
                r#""chunk_index":-1,"is_complete":"no","content":"hi""#,
            ),
            (
                "agent.stream.chunk",
                r#""content":"hi","chunk_index":-1"#,
                r#""chunk_index":-1,"content":"hi""#,
            ),
            (
                "agent.stream.chunk",
                r#""content":null,"chunk_index":1"#,
                r#""chunk_index":1,"content":null"#,
            ),
            (
                "agent.step.started",
                r#""step_number":1.5"#,
                r#""step_number":1.5"#,
            ),
        ] {
            let a = payload_of(kind, in_order).unwrap_err();
            let b = payload_of(kind, out_of_order).unwrap_err();
            assert_eq!(
                (a.code, &a.path, &a.message),
                (b.code, &b.path, &b.message),
                "{in_order}"
            );
        }
    }

    #[test]
    fn a_field_is_read_under_its_first_spelling_and_the_others_dropped() {
        let d = decode_text(
            r#"{"type":"agent.step.started","session_id":"s","payload":{"step_index":2,"x":1,"step_number":3}}"#,
        )
        .unwrap();
        assert_eq!(d.envelope["payload"]["step_number"], 3);
        assert!(d.envelope["payload"].get("step_index").is_none());
        assert_eq!(d.envelope["payload"]["extra"]["x"], 1);
        assert_eq!(d.warnings.len(), 1);
        assert_eq!(d.warnings[0].path, "/payload/x");
    }

    #[test]
    fn envelope_members_are_placed_in_any_order_and_look_alike_names_are_unknown() {
        // Names of the envelope's own lengths (and first bytes) that are
        // not its members stay unknown, in the order they came.
        let d = decode_text(
            r#"{"timestamp":"2026-01-20T12:00:00Z","tipe":1,"payload":{"status":"idle"},"sessionXid":2,"execution_id":"e","paylode":3,"session_id":"s","eventXtype":4,"type":"agent.status","execution_ix":5,"event_type":"agent.step.started"}"#,
        )
        .unwrap();
        assert_eq!(d.envelope["type"], "agent.status");
        assert_eq!(d.envelope["session_id"], "s");
        assert_eq!(d.envelope["execution_id"], "e");
        assert_eq!(d.envelope["payload"]["status"], "idle");
        let extra: Vec<&str> = d.envelope["extra"]
            .as_object()
            .unwrap()
            .keys()
            .map(|k| &**k)
            .collect();
        assert_eq!(
            extra,
            [
                "tipe",
                "sessionXid",
                "paylode",
                "eventXtype",
                "execution_ix"
            ]
        );
        // `event_type` beside `type` is not the native form: it is dropped.
        assert!(d.envelope["payload"].get("event_type").is_none());
        assert_eq!(d.warnings.len(), 5);
    }

    #[test]
    fn a_wrong_type_under_an_alias_is_reported_at_the_alias() {
        let e = decode_text(
            r#"{"type":"agent.step.started","session_id":"s","payload":{"step_index":"2"}}"#,
        )
        .unwrap_err();
        assert_eq!(e.path.as_deref(), Some("/payload/step_index"));
        assert_eq!(e.message, "expected an integer, found a string");
    }

    #[test]
    fn the_native_form_drops_payload_and_reads_its_top_level_fields() {
        let d = decode_text(
            r#"{"event_type":"agent.stream.chunk","content":"hi","payload":{"a":1},"zz":true}"#,
        )
        .unwrap();
        assert_eq!(d.envelope["payload"]["content"], "hi");
        assert_eq!(d.envelope["payload"]["extra"]["zz"], true);
        assert!(d.envelope.get("extra").is_none());
        assert!(d.envelope["session_id"].is_null());
    }

    #[test]
    fn wrong_types_at_the_top_level_name_the_field_and_what_was_found() {
        for (text, path, message) in [
            ("[]", "", "expected an envelope object, found an array"),
            (
                r#"{"type":1}"#,
                "/type",
                "expected the event type as a string, found a number",
            ),
            (
                r#"{"type":"x","session_id":true}"#,
                "/session_id",
                "expected `session_id` as a string, found a boolean",
            ),
            (
                r#"{"type":"x","session_id":"s","execution_id":{}}"#,
                "/execution_id",
                "expected `execution_id` as a string, found an object",
            ),
            (
                r#"{"type":"x","session_id":"s","timestamp":5}"#,
                "/timestamp",
                "expected `timestamp` as a string, found a number",
            ),
            (
                r#"{"type":"x","session_id":"s","payload":"p"}"#,
                "/payload",
                "expected the payload as an object, found a string",
            ),
        ] {
            let e = decode_text(text).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidType, "{text}");
            assert_eq!(e.path.as_deref(), Some(path), "{text}");
            assert_eq!(e.message, message, "{text}");
        }
    }
}

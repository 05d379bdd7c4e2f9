//! Other producers' agent streams, read into the one model: laravel/ai's
//! broadcast stream events, AG-UI events and the AI SDK's UI message stream,
//! each one folder (its [`Dialect`], translator and final form) and one line
//! of the registry ([`BUILT_IN`], src/dialects/registry.rs).
//!
//! A session asks its [`Dialects`] which producer an event is in; that
//! dialect's [`Translator`] turns the event into zero or more normalised
//! envelopes (the vocabulary of [`crate::envelope::schema`]), which go through
//! the decoder and the session exactly as instructor-php's envelopes do, so
//! every dialect has the same view, reconcile and panel. An instructor
//! envelope's type always starts with `agent.` (or it is seed 003's
//! `event_type` form), and no dialect is asked about those.

// The live entry leaves the translators out (see `Dialects::claim`).
#![cfg_attr(not(feature = "full"), allow(dead_code))]

pub mod ag_ui;
pub mod ai_sdk;
pub mod final_form;
pub mod laravel_ai;
pub(crate) mod line;
mod registry;

pub use registry::{Dialect, Dialects, FinalForm, LineRead, Translator, BUILT_IN};

use std::collections::BTreeMap;

use crate::envelope::decode::{Decoded, Warning};
#[cfg(feature = "schema")]
use crate::envelope::dialect::WireDialect;
use crate::envelope::schema::fields;
use crate::envelope::transport::without_echo_dot;
use crate::envelope::EventNames;
use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::fingerprint::{Fingerprint, Fingerprinter};
use crate::json::{Map, Value};

/// The built-in dialect an event is in, or `None` for an instructor-php
/// envelope (or anything else, which the envelope decoder then judges).
pub(crate) fn foreign_dialect(event: &Value) -> Option<&'static dyn Dialect> {
    Dialects::default().claim(event)
}

/// The error for a foreign event given where one envelope is expected: its
/// meaning depends on the events before it (an AG-UI tool call's arguments
/// arrive in pieces), so only a session can read it.
fn not_an_envelope(dialect: &dyn Dialect) -> SteplineError {
    SteplineError::at(
        ErrorCode::InvalidValue,
        "/type",
        format!(
            "a {} event, not an envelope: ingest it into a Session, which translates each dialect's stream",
            dialect.name()
        ),
    )
}

/// Decodes one envelope, refusing another producer's event with a typed
/// error (the envelope decoder itself knows no other producer).
pub fn decode_envelope(v: Value) -> Result<Decoded> {
    match foreign_dialect(&v) {
        Some(dialect) => Err(not_an_envelope(dialect)),
        None => crate::envelope::decode::decode_owned(v),
    }
}

/// [`decode_envelope`] of JSON text.
#[cfg(feature = "full")]
pub fn decode_envelope_text(text: &str) -> Result<Decoded> {
    decode_envelope(crate::json::parse(
        text,
        &crate::envelope::decode::ENVELOPE_LIMITS,
    )?)
}

/// A JSONL batch of envelopes, each line as [`decode_envelope_text`] reads it.
#[cfg(feature = "full")]
pub fn decode_envelope_lines(text: &str) -> (Vec<Decoded>, crate::error::LineErrors) {
    crate::envelope::decode::decode_lines_with(text, decode_envelope_text)
}

// The live entry reads no foreign event: its decoders are the envelope's own.
#[cfg(not(feature = "full"))]
pub use crate::envelope::decode::{
    decode_lines as decode_envelope_lines, decode_text as decode_envelope_text,
};

/// Whether an event arriving under `name` with `data` is one stepline
/// reads: a name that carries an envelope ([`EventNames::carries_envelope`]),
/// or a name equal to the `type` of an event of a foreign dialect stepline
/// reads. laravel/ai broadcasts every stream event under its own type
/// (`StreamEvent::broadcast`: `Broadcast::on($channels)->as($this->type())`),
/// so `stream_start`, `text_delta`, … `stream_end`, and provider tool
/// events under whatever type the provider gave them, arrive this way on
/// whatever channel the app chose.
pub fn carries_event(names: &EventNames, name: &str, data: &Value) -> bool {
    if names.carries_envelope(name) {
        return true;
    }
    let name = without_echo_dot(name);
    data.get("type").and_then(Value::as_str) == Some(name) && foreign_dialect(data).is_some()
}

/// What translating one foreign event produced: the envelopes a
/// [`Translator`] emits in the session's vocabulary, its findings, and
/// whether the event was a redelivery.
#[derive(Debug, Default)]
pub struct Out {
    /// The normalised envelopes, `session_id` still unset.
    envelopes: Vec<Emitted>,
    /// What was kept but not understood, or a gap in the stream.
    warnings: Vec<Warning>,
    /// The event was a redelivery: nothing to apply.
    duplicate: bool,
    /// The dialect's own session id (AG-UI `threadId`), if the event named one.
    session_hint: Option<String>,
    /// RFC 6902 patches to the value an `agent.data` envelope names, by the
    /// envelope's place in `envelopes` (see [`Out::emit_data_patch`]).
    patches: Vec<(usize, Value)>,
}

impl Out {
    /// Adds a normalised envelope of type `kind`. `step_number` is moved to
    /// the name the type reads (`step_index` for `agent.llm.*` and
    /// `agent.tool.*`), so translators name a step one way.
    pub fn emit(
        &mut self,
        kind: &str,
        execution_id: Option<&str>,
        timestamp: Option<String>,
        mut payload: Map,
    ) {
        let takes_number = fields(kind).is_some_and(|f| f.iter().any(|f| f.name == "step_number"));
        if !takes_number {
            payload.rename_last("step_number", "step_index");
        }
        let mut env = Map::with_capacity(5);
        env.push("type", Value::from(kind));
        env.push("session_id", Value::Null);
        env.push(
            "execution_id",
            execution_id.map_or(Value::Null, Value::from),
        );
        env.push("timestamp", timestamp.map_or(Value::Null, Value::String));
        env.push("payload", Value::Object(payload));
        self.envelopes.push(Emitted::Envelope(env));
    }

    /// Adds a text delta (`reasoning`: a reasoning delta) to step `step`:
    /// the `agent.llm.output_text.delta` (or `agent.llm.reasoning.delta`)
    /// envelope `{text_delta, step_index}` that [`emit`](Out::emit) would
    /// write, kept typed. Most of a foreign stream is such deltas, which the
    /// session then applies without reading an envelope's tree.
    pub fn emit_delta(
        &mut self,
        reasoning: bool,
        execution_id: Option<&str>,
        timestamp: Option<String>,
        step: i64,
        text: String,
    ) {
        self.envelopes.push(Emitted::Delta(Delta {
            reasoning,
            execution_id: execution_id.map(str::to_string),
            timestamp,
            step,
            text,
        }));
    }

    /// Adds an `agent.data` envelope that changes the value held under
    /// `name` by the RFC 6902 `patch` rather than replacing it: a large
    /// value changed by many small patches (AG-UI's state) then costs what
    /// the patches hold, not a copy of the value each. The translator must
    /// have sent the whole value under `name` in this execution before, and
    /// checked that the patch applies to it.
    pub(crate) fn emit_data_patch(
        &mut self,
        execution_id: Option<&str>,
        timestamp: Option<String>,
        name: &str,
        patch: Value,
    ) {
        let mut p = Map::with_capacity(1);
        p.insert("name", Value::from(name));
        self.emit("agent.data", execution_id, timestamp, p);
        self.patches.push((self.envelopes.len() - 1, patch));
    }

    /// Keeps a finding: `code` is `unknown_type`, `unknown_field`, `gap` or
    /// `limit_exceeded` (a value past a size limit was not kept)
    /// (an event whose other half or whose run never arrived); `path` points
    /// into the foreign event.
    pub fn warn(&mut self, path: &str, code: &'static str, message: impl Into<String>) {
        self.warnings.push(Warning {
            path: path.to_string(),
            code,
            message: message.into(),
        });
    }

    /// Marks the event a redelivery of one already translated.
    pub fn duplicate(&mut self) {
        self.duplicate = true;
    }

    /// The dialect's own id for the session (used when the session has none).
    pub fn session_hint(&mut self, id: &str) {
        self.session_hint = Some(id.to_string());
    }
}

/// One envelope a translation emitted, in the order emitted.
#[derive(Clone, Debug)]
pub(crate) enum Emitted {
    /// A normalised envelope (its `session_id` set once translated).
    Envelope(Map),
    /// A text or reasoning delta ([`Out::emit_delta`]).
    Delta(Delta),
}

/// A text or reasoning delta as a translator emits it: the envelope
/// `{"type":"agent.llm.output_text.delta" | "agent.llm.reasoning.delta",
/// "session_id":…,"execution_id":…,"timestamp":…,"payload":{"text_delta":…,
/// "step_index":…}}`, typed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Delta {
    pub reasoning: bool,
    pub execution_id: Option<String>,
    pub timestamp: Option<String>,
    pub step: i64,
    pub text: String,
}

impl Delta {
    /// The envelope's type.
    pub(crate) fn kind(&self) -> &'static str {
        match self.reasoning {
            true => "agent.llm.reasoning.delta",
            false => "agent.llm.output_text.delta",
        }
    }

    /// The normalised envelope it stands for, under the session `session_id`
    /// (debug builds check the typed way against it; the live entry, which
    /// has no translators, would apply a delta this way).
    pub(crate) fn envelope(&self, session_id: &str) -> Map {
        let mut payload = Map::with_capacity(2);
        payload.insert("text_delta", Value::from(self.text.as_str()));
        payload.insert("step_number", Value::from(self.step));
        let mut out = Out::default();
        out.emit(
            self.kind(),
            self.execution_id.as_deref(),
            self.timestamp.clone(),
            payload,
        );
        let Some(Emitted::Envelope(mut env)) = out.envelopes.pop() else {
            unreachable!("emit adds an envelope");
        };
        env.insert("session_id", Value::from(session_id));
        env
    }
}

/// One foreign event, translated.
#[derive(Debug, Default)]
pub(crate) struct Translated {
    /// What it was translated into, in order; the envelopes with the
    /// session's id.
    pub envelopes: Vec<Emitted>,
    /// The session's id as set on the envelopes, a delta's: `None` where the
    /// session gave its own.
    pub session_id: Option<String>,
    /// Patches to `agent.data` values, by envelope (see `envelope::event::DATA_PATCH`).
    pub patches: Vec<(usize, Value)>,
    /// Findings about the foreign event (paths point into it).
    pub warnings: Vec<Warning>,
    /// The `type` of the event each warning is about: the event's own, or
    /// that of a held event translated with it.
    pub warning_types: Vec<String>,
    /// The event was a redelivery (or is held as one, see [`Redelivery`]).
    pub duplicate: bool,
    /// The lines to log, as received, of the events held before this one
    /// and now translated (none, nearly always: no list is made then).
    pub held_lines: Vec<String>,
    /// The event's own line, logged after `held_lines` (`None` when the
    /// event was no JSON object, or a redelivery).
    pub line: Option<String>,
    /// How many held events (counted as duplicates when they arrived) this
    /// translation released as new.
    pub released: u64,
}

/// The translation state of one session: a translator per dialect that
/// spoke, and the run redelivery rule.
#[derive(Clone, Default)]
pub(crate) struct Translators {
    dialects: Dialects,
    /// By dialect name, in order of first event.
    running: Vec<(&'static str, Box<dyn Translator>)>,
    redelivery: Redelivery,
    /// An empty list to emit into, given back once a translation applied
    /// (`take_back`): one list for a run of deltas, not one an event (a line
    /// every translator declines drops it; keeping it then cost more wasm
    /// than it saved).
    spare: Vec<Emitted>,
}

/// Whole runs sent again in the dialects whose events carry no id of their
/// own (AG-UI, the AI SDK): a run whose start arrives a second time (the same
/// `runId` or `messageId`) may be a redelivery, or the same run going on (an
/// AI SDK response after a tool approval reuses its `messageId`). Its events
/// are held while they repeat, in order, the ones already translated: if they
/// repeat the run to its last event, they were a redelivery and are dropped;
/// from the first event that differs, the held ones and it are translated, in
/// order, as new. Inside a run first received, equal events are never merged
/// (two equal text deltas are both text).
#[derive(Clone, Debug, Default)]
struct Redelivery {
    /// Each run's events, fingerprinted, in arrival order, by the run's
    /// place in `keys` (runs are named by index: every event's bookkeeping
    /// then copies a number, not its run's key).
    runs: Vec<Vec<Fingerprint>>,
    /// Each run's place in `runs`, by the run's key (`u64`, the value type
    /// of the other id maps: one B-tree fewer in the wasm).
    keys: BTreeMap<String, u64>,
    /// The run being received, and how far a repetition of it matches.
    current: Option<(usize, Option<usize>)>,
    /// The events of the repetition so far, with their lines as received.
    held: Vec<(Map, String)>,
    /// The run of the last event translated: a repetition dropped whole
    /// leaves the rule there, as it was for a replay, which never sees it.
    logged: Option<usize>,
}

/// What [`Redelivery::observe`] made of an event.
enum Verdict {
    /// New: translate the held events (if any) and then this one.
    New(Vec<(Map, String)>),
    /// It repeats the run so far: held until the repetition ends or differs.
    Held,
    /// It completed a repetition of the whole run: the held ones and it were a redelivery.
    Redelivered,
}

/// The fingerprint of one foreign event, member by member.
fn fingerprint(event: &Map) -> Fingerprint {
    let mut f = Fingerprinter::new();
    for (k, v) in event {
        f.str(k);
        f.value(v);
    }
    f.finish()
}

/// What [`Redelivery::observe`] may change for an event it finds new, kept
/// to put back if the event is refused or taken for a redelivery
/// ([`Redelivery::undo`]).
struct Mark {
    current: Option<(usize, Option<usize>)>,
    /// The repetition a run start cuts short (only a start clears it).
    held: Option<Vec<(Map, String)>>,
}

impl Redelivery {
    /// What observing an event (starting a run, if `starts`) may change:
    /// cheap, but for the repetition a start cuts short.
    fn mark(&self, starts: bool) -> Mark {
        Mark {
            current: self.current,
            held: starts.then(|| self.held.clone()),
        }
    }

    /// Puts back what observing an event changed when it is refused or
    /// taken for a redelivery: `held` are the events its verdict released
    /// (held again).
    fn undo(&mut self, mark: Mark, held: Vec<(Map, String)>) {
        self.current = mark.current;
        self.held = mark.held.unwrap_or(held);
    }

    /// Whether an event that starts no run is new without a look at it:
    /// no repetition of a run is being held (see [`Redelivery::observe`],
    /// which then changes nothing).
    fn takes_without_looking(&self) -> bool {
        matches!(self.current, None | Some((_, None))) && self.held.is_empty()
    }

    /// Places `event` (received as `line`); `start` is the run key when the
    /// event starts a run. An event found new is not yet part of its run:
    /// [`Redelivery::record`] adds it once translated, so a run holds the
    /// events its recording holds (a refused line and one the translator
    /// takes for a redelivery are not logged, and a replay never sees them).
    fn observe(&mut self, start: Option<&str>, event: &Map, line: &str) -> Verdict {
        if let Some(key) = start {
            // A repetition cut short by the next run was a partial redelivery.
            self.held.clear();
            let run = match self.keys.get(key) {
                Some(&run) => run as usize,
                None => {
                    self.keys.insert(key.to_string(), self.runs.len() as u64);
                    self.runs.push(Vec::new());
                    self.runs.len() - 1
                }
            };
            // A run none of whose events was translated yet is not seen again.
            let again = self.runs.get(run).is_some_and(|seen| !seen.is_empty());
            self.current = Some((run, again.then_some(0)));
        }
        let Some((run, replay)) = self.current.as_mut() else {
            return Verdict::New(std::mem::take(&mut self.held));
        };
        if let Some(pos) = replay.as_mut() {
            let seen = self.runs.get(*run).map_or(&[][..], Vec::as_slice);
            if seen.get(*pos) == Some(&fingerprint(event)) {
                *pos += 1;
                if *pos == seen.len() {
                    self.held.clear();
                    self.current = self.logged.map(|run| (run, None));
                    return Verdict::Redelivered;
                }
                self.held.push((event.clone(), line.to_string()));
                return Verdict::Held;
            }
            *replay = None;
        }
        Verdict::New(std::mem::take(&mut self.held))
    }

    /// Adds a translated event (its fingerprint) to the run being received.
    fn record(&mut self, f: Fingerprint) {
        if let Some((run, _)) = self.current {
            if let Some(seen) = self.runs.get_mut(run) {
                seen.push(f);
            }
            self.logged = Some(run);
        }
    }
}

/// `envelopes` with the session's id: `session`'s, else the one the
/// dialect's events named (`hint`), else the dialect's name; and that id
/// when it is not `session`'s.
fn stamped(
    dialect: &dyn Dialect,
    mut envelopes: Vec<Emitted>,
    hint: Option<String>,
    session: Option<&str>,
) -> (Vec<Emitted>, Option<String>) {
    let id = session
        .or(hint.as_deref())
        .unwrap_or_else(|| dialect.name());
    for env in &mut envelopes {
        if let Emitted::Envelope(env) = env {
            env.insert("session_id", Value::from(id));
        }
    }
    (envelopes, session.is_none().then(|| id.to_string()))
}

/// Names only: a translator's state is not printed (deriving `Debug` for
/// every dialect's state would put its formatting code in the wasm).
impl std::fmt::Debug for Translators {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Translators")
            .field("dialects", &self.dialects)
            .field(
                "running",
                &self.running.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Translators {
    /// Translators for the events of `dialects`.
    #[cfg_attr(not(feature = "full"), allow(dead_code))]
    pub(crate) fn new(dialects: Dialects) -> Translators {
        Translators {
            dialects,
            ..Translators::default()
        }
    }

    /// The dialect `event` is in, of those this session reads.
    pub(crate) fn claim(&self, event: &Value) -> Option<&'static dyn Dialect> {
        self.dialects.claim(event)
    }

    /// The dialects this session reads.
    pub(crate) fn dialects(&self) -> &Dialects {
        &self.dialects
    }

    /// Translates one event with this session's translator of `dialect`,
    /// made on its first event.
    fn translate_one(
        &mut self,
        dialect: &'static dyn Dialect,
        event: Map,
        out: &mut Out,
    ) -> Result<()> {
        let name = dialect.name();
        if let Some((_, t)) = self.running.iter_mut().find(|(n, _)| *n == name) {
            return t.translate(event, out);
        }
        let mut t = dialect.translator();
        let done = t.translate(event, out);
        self.running.push((name, t));
        done
    }

    /// Translates the event written as `line` when a translator already
    /// running reads it from its bytes ([`Translator::translate_line`]; a
    /// text delta, most of a foreign stream), as [`Translators::translate`]
    /// would translate it parsed: its dialect and the translation (its
    /// `line` left to the caller, who has it), or `None`, nothing changed,
    /// for the line to be parsed. Not while a run's repetition is held (the
    /// held events need the parsed event).
    pub(crate) fn translate_line(
        &mut self,
        line: &str,
        session: Option<&str>,
    ) -> Option<(&'static dyn Dialect, Translated)> {
        if !self.redelivery.takes_without_looking() {
            return None;
        }
        let mut out = Out {
            envelopes: std::mem::take(&mut self.spare),
            ..Out::default()
        };
        let (name, read) = self
            .running
            .iter_mut()
            .find_map(|(name, t)| Some((*name, t.translate_line(line, &mut out)?)))?;
        let dialect = self.dialects.named(name)?;
        #[cfg(debug_assertions)]
        {
            let parsed = crate::json::parse(line, &crate::envelope::decode::ENVELOPE_LIMITS);
            let claimed = parsed.ok().and_then(|v| self.dialects.claim(&v));
            debug_assert!(
                claimed.is_some_and(|d| d.name() == name),
                "{name} read a line it would not be asked to translate: {line}"
            );
        }
        if out.duplicate {
            return Some((
                dialect,
                Translated {
                    duplicate: true,
                    ..Translated::default()
                },
            ));
        }
        if !dialect.events_carry_ids() {
            self.redelivery.record(read.fingerprint);
        }
        Some((dialect, Self::finish(dialect, out, read.kind, session)))
    }

    /// Keeps `list`, emptied, for the next translation to emit into.
    pub(crate) fn take_back(&mut self, mut list: Vec<Emitted>) {
        list.clear();
        if list.capacity() > self.spare.capacity() {
            self.spare = list;
        }
    }

    /// What a translation that took one event (of type `kind`) produced;
    /// its line is the caller's.
    fn finish(
        dialect: &'static dyn Dialect,
        out: Out,
        kind: &str,
        session: Option<&str>,
    ) -> Translated {
        let (envelopes, session_id) = stamped(dialect, out.envelopes, out.session_hint, session);
        Translated {
            envelopes,
            session_id,
            patches: out.patches,
            warning_types: vec![kind.to_string(); out.warnings.len()],
            warnings: out.warnings,
            duplicate: false,
            held_lines: Vec::new(),
            line: None,
            released: 0,
        }
    }

    /// Translates `event` (of `dialect`, from [`Translators::claim`]) for the
    /// session `session` (its id; `None` adopts the dialect's own, else the
    /// dialect's name).
    pub(crate) fn translate(
        &mut self,
        dialect: &'static dyn Dialect,
        event: Value,
        line: String,
        session: Option<&str>,
    ) -> Result<Translated> {
        #[cfg_attr(not(feature = "full"), allow(unused_mut))]
        let mut out = Out::default();
        let Value::Object(event) = event else {
            return Ok(Translated::default());
        };
        let mut events = Vec::new();
        let mut mark = None;
        if !dialect.events_carry_ids() {
            let start = dialect.run_start(&event);
            let before = self.redelivery.mark(start.is_some());
            match self.redelivery.observe(start, &event, &line) {
                Verdict::New(held) => {
                    events = held;
                    mark = Some(before);
                }
                Verdict::Held | Verdict::Redelivered => {
                    return Ok(Translated {
                        duplicate: true,
                        ..Translated::default()
                    })
                }
            }
        }
        let held = events.len();
        // A refused line changes nothing: the run redelivery rule forgets it,
        // and the events held before it stay held, untranslated (a translator
        // leaves itself as it was when it refuses an event, but not the held
        // events it took before it). Cloned only where a repetition ends.
        let restore = (held > 0).then(|| (self.running.clone(), events.clone()));
        let mut held_lines = Vec::new();
        let mut own_line = None;
        let mut kinds = Vec::new();
        // Joins the run only once the whole group is translated (a refused
        // event puts its held ones back, untranslated): the held events'
        // fingerprints, then the event's.
        let mut recorded = Vec::new();
        let mut own_fingerprint = None;
        let mut released = 0;
        // The held events (none, nearly always: no list is made for the
        // event alone), then the event.
        let group = events.into_iter().chain(std::iter::once((event, line)));
        for (i, (event, line)) in group.enumerate() {
            // A translator marks a held event a redelivery (an AG-UI start
            // of the run still open); the others translated with it are new,
            // and the translator's state already took them, so only the
            // marked event's output is dropped, never the group's: otherwise
            // the session and its recording miss events the translator saw
            // (tests/fuzz_regressions.rs, #13).
            let (envelopes, patches, warnings) =
                (out.envelopes.len(), out.patches.len(), out.warnings.len());
            let kind = event
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let seen = mark.is_some().then(|| fingerprint(&event));
            out.duplicate = false;
            let done = self.translate_one(dialect, event, &mut out);
            // The event itself refused, or taken for a redelivery: not logged,
            // so it releases nothing either (a replay would not see it).
            if done.is_err() || (out.duplicate && i == held) {
                let held = match restore {
                    Some((running, held)) => {
                        self.running = running;
                        held
                    }
                    None => Vec::new(),
                };
                if let Some(mark) = mark {
                    self.redelivery.undo(mark, held);
                }
                done?;
                return Ok(Translated {
                    duplicate: true,
                    ..Translated::default()
                });
            }
            if out.duplicate {
                out.envelopes.truncate(envelopes);
                out.patches.truncate(patches);
                out.warnings.truncate(warnings);
            } else {
                released += u64::from(i < held);
                if i < held {
                    held_lines.push(line);
                    recorded.extend(seen);
                } else {
                    own_line = Some(line);
                    own_fingerprint = seen;
                }
                kinds.resize(out.warnings.len(), kind);
            }
        }
        for f in recorded.into_iter().chain(own_fingerprint) {
            self.redelivery.record(f);
        }
        let (envelopes, session_id) = stamped(dialect, out.envelopes, out.session_hint, session);
        Ok(Translated {
            envelopes,
            session_id,
            patches: out.patches,
            warnings: out.warnings,
            warning_types: kinds,
            duplicate: false,
            held_lines,
            line: own_line,
            released,
        })
    }
}

#[cfg(all(test, feature = "full"))]
mod tests {
    use super::*;

    /// A translator made by its dialect's first event (parsed, as the
    /// session does), then the delta line given: what the line reader made
    /// of it.
    fn read_after(first: &[&str], line: &str) -> Option<(&'static str, Translated)> {
        let mut t = Translators::new(Dialects::built_in());
        for event in first {
            let v = crate::json::from_str(event).expect("JSON");
            let dialect = t.claim(&v).expect("a dialect's event");
            t.translate(dialect, v, event.to_string(), Some("s"))
                .expect("translated");
        }
        t.translate_line(line, Some("s"))
            .map(|(d, out)| (d.name(), out))
    }

    /// The one typed delta of a translation: (reasoning, execution, text).
    fn delta_of(t: &Translated) -> (bool, Option<&str>, &str) {
        match t.envelopes.as_slice() {
            [Emitted::Delta(d)] => (d.reasoning, d.execution_id.as_deref(), d.text.as_str()),
            other => panic!("expected one typed delta, found {other:?}"),
        }
    }

    #[test]
    fn each_dialects_deltas_are_read_from_their_lines_once_its_run_is_open() {
        let laravel = [
            r#"{"id":"evt_1","invocation_id":"inv-1","type":"stream_start","provider":"openai","model":"gpt-5","timestamp":1795168800,"metadata":null}"#,
            r#"{"id":"evt_2","invocation_id":"inv-1","type":"text_start","message_id":"msg_1","timestamp":1795168800}"#,
        ];
        let (name, t) = read_after(
            &laravel,
            r#"{"id":"evt_3","invocation_id":"inv-1","type":"text_delta","message_id":"msg_1","delta":"Gr\u00fcezi","timestamp":1795168800}"#,
        )
        .expect("read");
        assert_eq!(
            (name, delta_of(&t)),
            ("laravel-ai", (false, Some("inv-1"), "Grüezi"))
        );
        let ai_sdk = [
            r#"{"type":"start","messageId":"run-1"}"#,
            r#"{"type":"start-step"}"#,
        ];
        let (name, t) = read_after(
            &ai_sdk,
            r#"{"type":"reasoning-delta","id":"r-1","delta":"hm"}"#,
        )
        .expect("read");
        assert_eq!(
            (name, delta_of(&t)),
            ("ai-sdk", (true, Some("run-1"), "hm"))
        );
        // A tool's input accumulates: read, nothing emitted yet.
        let (name, t) = read_after(
            &ai_sdk,
            r#"{"type":"tool-input-delta","toolCallId":"c-1","inputTextDelta":"{\"q\""}"#,
        )
        .expect("read");
        assert_eq!((name, t.envelopes.len()), ("ai-sdk", 0));
        let ag_ui = [
            r#"{"type":"RUN_STARTED","threadId":"t-1","runId":"run-1","timestamp":1795168800000}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m-1","role":"assistant","timestamp":1795168800010}"#,
        ];
        let (name, t) = read_after(
            &ag_ui,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"Hi","timestamp":1795168800020}"#,
        )
        .expect("read");
        assert_eq!(
            (name, delta_of(&t)),
            ("ag-ui", (false, Some("run-1"), "Hi"))
        );
        assert_eq!(t.envelopes.len(), 1);
        // Declined: no translator running yet, a departure from the layout,
        // an AI SDK delta after its run's finish (which reopens the run).
        let finished = [
            r#"{"type":"start","messageId":"run-1"}"#,
            r#"{"type":"finish","finishReason":"stop"}"#,
        ];
        for (first, line) in [
            (&[][..], r#"{"type":"text-delta","id":"t-1","delta":"x"}"#),
            (
                &ag_ui[..],
                r#"{"type":"TEXT_MESSAGE_CONTENT","delta":"Hi","messageId":"m-1"}"#,
            ),
            (
                &laravel[..],
                r#"{"id":"evt_3","invocation_id":"inv-1","type":"text_delta","message_id":"msg_1","delta":"x","timestamp":1795168800.5}"#,
            ),
            (
                &finished[..],
                r#"{"type":"text-delta","id":"t-1","delta":"x"}"#,
            ),
        ] {
            assert!(read_after(first, line).is_none(), "{line}");
        }
    }

    #[test]
    fn a_laravel_ai_event_is_read_under_its_own_type_and_no_other_name() {
        let names = EventNames::default();
        // As laravel/ai's TextDelta::toArray() writes it (src/Streaming/Events/TextDelta.php).
        let delta = crate::json::parse(
            r#"{"id":"evt_1","invocation_id":"inv_1","type":"text_delta","message_id":"msg_1","delta":"Grüezi","timestamp":1763632800}"#,
            &crate::json::Limits::default(),
        )
        .unwrap();
        assert!(carries_event(&names, ".text_delta", &delta));
        assert!(carries_event(&names, "text_delta", &delta));
        assert!(
            !carries_event(&names, ".text_end", &delta),
            "another type's name"
        );
        assert!(!carries_event(&names, "App\\Events\\Chat", &delta));
        // Envelope names need no data to match.
        assert!(carries_event(&names, ".agent.status", &Value::Null));
        // A name equal to a `type` no dialect reads is not an agent event.
        let other = crate::json::parse(
            r#"{"type":"order_shipped","id":1}"#,
            &crate::json::Limits::default(),
        )
        .unwrap();
        assert!(!carries_event(&names, "order_shipped", &other));
    }
}

/// The names an envelope's `dialect` can take: instructor-php's shapes and
/// every built-in dialect's (the schema of `EnvelopeDialect`).
#[cfg(feature = "schema")]
impl schemars::JsonSchema for WireDialect {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "EnvelopeDialect".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let instructor = [
            WireDialect::Instructor,
            WireDialect::Seed000,
            WireDialect::Seed003,
            WireDialect::V1_22,
            WireDialect::V2,
        ];
        let names: Vec<&str> = instructor
            .iter()
            .map(|d| d.as_str())
            .chain(BUILT_IN.iter().map(|d| d.name()))
            .collect();
        schemars::json_schema!({
            "description": "Which producer's dialect an envelope is in, decided from what it carries: `\"instructor\"` is a shape instructor-php v1.22 and v2.7 both send (the run's other envelopes tell which).",
            "type": "string",
            "enum": names,
        })
    }
}

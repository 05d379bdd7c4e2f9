//! Producers as plug-ins. A producer stepline reads besides instructor-php
//! is one [`Dialect`]: how its events are told from every other producer's,
//! a [`Translator`] per session that turns them into the session's
//! vocabulary, how a whole run sent again is recognised, and the
//! [`FinalForm`] it keeps once a run is over. [`Dialects`] is the registry:
//! the built-in ones, plus any a caller adds with [`Dialects::with`].
//!
//! Adding a producer is one folder under src/dialects/ (its `Dialect`, its
//! translator, its final form) and one line in [`BUILT_IN`]. Nothing else
//! branches on a producer: detection, redelivery, the view, reconcile and
//! recordings ask the registry.

use std::fmt;

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::fingerprint::Fingerprint;
use crate::json::{Map, Value};

use super::final_form::FinalTurn;
use super::Out;

/// One producer's event stream.
///
/// ```
/// use stepline::dialects::{Dialect, Dialects};
/// let names: Vec<&str> = Dialects::built_in().iter().map(|d| d.name()).collect();
/// assert_eq!(names, ["ag-ui", "ai-sdk", "laravel-ai"]);
/// ```
pub trait Dialect: fmt::Debug + Sync {
    /// The producer's name in every output (`"laravel-ai"`): an ingest's
    /// and a view's `dialect`, a final form's, a `dialect` option's value.
    fn name(&self) -> &'static str;

    /// Whether `event` (an object whose `type` does not start with
    /// `agent.`, which is instructor-php's) is this producer's. Dialects are
    /// asked in registry order, so claims must not overlap.
    fn claims(&self, event: &Map) -> bool;

    /// A translator for one session's stream of this producer's events.
    fn translator(&self) -> Box<dyn Translator>;

    /// Whether every event carries an id of its own, so that the translator
    /// tells a redelivered event itself (laravel/ai's `id`; the default).
    /// A producer whose events carry none (AG-UI, the AI SDK) says `false`
    /// and names the runs its events start ([`Dialect::run_start`]).
    fn events_carry_ids(&self) -> bool {
        true
    }

    /// For a producer whose events carry no id: the key of the run `event`
    /// starts, if it starts one. A run that starts again under a key already
    /// seen is held while its events repeat the first delivery's, and
    /// dropped as a redelivery if they repeat it to the end (see
    /// `Redelivery` in src/dialects/mod.rs).
    fn run_start<'a>(&self, event: &'a Map) -> Option<&'a str> {
        let _ = event;
        None
    }

    /// What the producer keeps once a run is over, if stepline reads it.
    fn final_form(&self) -> Option<&dyn FinalForm> {
        None
    }

    /// Whether its translator writes envelopes already in the decoder's
    /// normalised form (known fields under their normalised names, of the
    /// right kinds, nothing unknown), so the session applies them without
    /// decoding them again. The default, `false`, decodes them as any
    /// envelope. The built-in dialects say `true`; debug builds (every
    /// test) decode each of their envelopes anyway and fail if the
    /// decoder would have changed it.
    fn emits_normalised(&self) -> bool {
        false
    }
}

/// One session's translation of a producer's stream into the session's
/// vocabulary (the normalised envelopes of src/envelope/schema.rs).
pub trait Translator {
    /// Translates one event (its producer's [`Dialect::claims`] accepted it;
    /// paths in errors and warnings are JSON pointers into it).
    fn translate(&mut self, event: Map, out: &mut Out) -> Result<()>;

    /// Translates the event written as `line` without parsing it into a
    /// tree, when it is one this translator reads from its bytes (its
    /// producer's text deltas, in the state most of a stream is in); the
    /// session asks before it parses a line. The result must be exactly what
    /// [`translate`](Translator::translate) of the parsed line would do, and
    /// the line one its [`Dialect::claims`] (and no dialect asked before
    /// it) accepts. `None`, having changed nothing, for anything else (the
    /// default): the line is then parsed and translated as any other.
    fn translate_line(&mut self, line: &str, out: &mut Out) -> Option<LineRead> {
        let _ = (line, out);
        None
    }

    /// A copy of the translation state (a session is cloned with it).
    fn boxed_clone(&self) -> Box<dyn Translator>;
}

/// What [`Translator::translate_line`] read of a line besides what it
/// emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineRead {
    /// The event's `type`.
    pub kind: &'static str,
    /// The event's redelivery fingerprint, member by member, as the session
    /// takes it of the parsed event (`fingerprint` in src/dialects/mod.rs;
    /// asked only of a dialect whose events carry no ids).
    pub fingerprint: Fingerprint,
}

impl Clone for Box<dyn Translator> {
    fn clone(&self) -> Self {
        self.boxed_clone()
    }
}

/// What a producer keeps once a run is over (an array of messages), read
/// into the neutral turns reconciliation compares a session with.
pub trait FinalForm: Sync {
    /// Whether `message` is one only this producer writes: the first such
    /// message of a form decides the form's dialect.
    fn marks(&self, message: &Map) -> bool;

    /// Whether a form none of whose messages any producer marks is this
    /// producer's anyway (AG-UI's plain `{id, role, content}` conversation).
    fn claims_unmarked(&self, messages: &[Value]) -> bool {
        let _ = messages;
        false
    }

    /// The form's turns: one per run, each the non-user messages after a
    /// user message. `prefix` is the JSON pointer of the message array.
    fn turns(&self, messages: &[Value], prefix: &str) -> Result<Vec<FinalTurn>>;
}

/// The built-in dialects, in the order they are asked.
#[cfg(feature = "full")]
pub static BUILT_IN: &[&dyn Dialect] = &[
    &super::ag_ui::AgUi,
    &super::ai_sdk::AiSdk,
    &super::laravel_ai::LaravelAi,
];

/// The live entry (`stepline/live`, built without the `full` feature) reads
/// instructor-php envelopes only.
#[cfg(not(feature = "full"))]
pub static BUILT_IN: &[&dyn Dialect] = &[];

/// The dialects a session reads: the built-in ones, then any added.
#[derive(Clone, Default)]
pub struct Dialects {
    added: Vec<&'static dyn Dialect>,
}

impl fmt::Debug for Dialects {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|d| d.name()))
            .finish()
    }
}

impl Dialects {
    /// The built-in dialects (none in the live entry).
    pub fn built_in() -> Dialects {
        Dialects::default()
    }

    /// These dialects and `dialect`, asked after them.
    ///
    /// ```
    /// # use stepline::dialects::{Dialect, Dialects, Out, Translator};
    /// # use stepline::json::Map;
    /// #[derive(Debug)]
    /// struct Toy;
    /// #[derive(Clone, Debug)]
    /// struct ToyRun;
    /// impl Translator for ToyRun {
    ///     fn translate(&mut self, _: Map, _: &mut Out) -> stepline::error::Result<()> { Ok(()) }
    ///     fn boxed_clone(&self) -> Box<dyn Translator> { Box::new(self.clone()) }
    /// }
    /// impl Dialect for Toy {
    ///     fn name(&self) -> &'static str { "toy" }
    ///     fn claims(&self, e: &Map) -> bool { e.get("type").and_then(|t| t.as_str()) == Some("toy.say") }
    ///     fn translator(&self) -> Box<dyn Translator> { Box::new(ToyRun) }
    /// }
    /// static TOY: Toy = Toy;
    /// let dialects = Dialects::built_in().with(&TOY);
    /// assert_eq!(dialects.named("toy").map(|d| d.name()), Some("toy"));
    /// ```
    #[cfg(feature = "full")]
    pub fn with(mut self, dialect: &'static dyn Dialect) -> Dialects {
        self.added.push(dialect);
        self
    }

    /// Every dialect, in the order they are asked.
    pub fn iter(&self) -> impl Iterator<Item = &'static dyn Dialect> + '_ {
        BUILT_IN.iter().copied().chain(self.added.iter().copied())
    }

    /// The dialect named `name`.
    pub fn named(&self, name: &str) -> Option<&'static dyn Dialect> {
        self.iter().find(|d| d.name() == name)
    }

    /// The dialect an event is in, or `None` for an instructor-php envelope
    /// (or anything else, which the envelope decoder then judges).
    #[cfg(feature = "full")]
    pub fn claim(&self, event: &Value) -> Option<&'static dyn Dialect> {
        let m = event.as_object()?;
        let kind = m.get("type")?.as_str()?;
        if kind.starts_with("agent.") {
            return None;
        }
        self.iter().find(|d| d.claims(m))
    }

    /// The live entry reads instructor-php envelopes only: no event is
    /// foreign there. Inlined, so the callers' foreign branches, and with
    /// them the translators, leave its wasm.
    #[cfg(not(feature = "full"))]
    #[inline(always)]
    pub fn claim(&self, _event: &Value) -> Option<&'static dyn Dialect> {
        None
    }

    /// The dialect with a final form named `name`; another name is
    /// `invalid_value` at `path`, listing the names there are.
    pub fn final_form_named(&self, name: &str, path: &str) -> Result<&'static dyn Dialect> {
        let forms = || self.iter().filter(|d| d.final_form().is_some());
        if let Some(found) = forms().find(|d| d.name() == name) {
            return Ok(found);
        }
        let mut known = String::new();
        let count = forms().count();
        for (i, d) in forms().enumerate() {
            known.push_str(match i {
                0 => "",
                i if i + 1 == count => " or ",
                _ => ", ",
            });
            known.push('"');
            known.push_str(d.name());
            known.push('"');
        }
        Err(SteplineError::at(
            ErrorCode::InvalidValue,
            path,
            format!(
                "expected the dialect {known}, found {}",
                crate::json::quote(name)
            ),
        ))
    }
}

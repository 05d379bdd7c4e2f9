//! Other producers' agent streams, read into the one model: laravel/ai's
//! broadcast stream events, AG-UI events and the AI SDK's UI message stream.
//!
//! Each dialect is a small state machine ([`Translators`]) that turns one
//! foreign event into zero or more normalised envelopes (the vocabulary of
//! [`crate::envelope::schema`]); those go through the decoder and the
//! session exactly as instructor-php's envelopes do, so every dialect has the
//! same view, reconcile and panel. The dialect is recognised per event from
//! its `type` and fields; an instructor envelope's type always starts with
//! `agent.` (or it is seed 003's `event_type` form), so the two never meet.

pub(crate) mod ag_ui;
pub(crate) mod ai_sdk;
pub mod final_form;
pub mod json_patch;
pub(crate) mod laravel_ai;
pub mod reconcile;

use std::collections::BTreeMap;

use crate::envelope::decode::Warning;
use crate::envelope::dialect::WireDialect;
use crate::envelope::schema::fields;
use crate::error::Result;
use crate::json::{Map, Value};
use crate::session::dedup::{Fingerprint, Fingerprinter};

/// The foreign dialect an event is in, or `None` for an instructor-php
/// envelope (or anything else, which the envelope decoder then judges).
pub(crate) fn foreign_dialect(event: &Value) -> Option<WireDialect> {
    let m = event.as_object()?;
    let kind = m.get("type")?.as_str()?;
    if kind.starts_with("agent.") {
        return None;
    }
    if ag_ui::claims(m) {
        Some(WireDialect::AgUi)
    } else if ai_sdk::claims(m) {
        Some(WireDialect::AiSdk)
    } else if laravel_ai::claims(m) {
        Some(WireDialect::LaravelAi)
    } else {
        None
    }
}

/// What translating one foreign event produced.
#[derive(Debug, Default)]
pub(crate) struct Out {
    /// The normalised envelopes, `session_id` still unset.
    envelopes: Vec<Map>,
    /// What was kept but not understood, or a gap in the stream.
    warnings: Vec<Warning>,
    /// The event was a redelivery: nothing to apply.
    duplicate: bool,
    /// The dialect's own session id (AG-UI `threadId`), if the event named one.
    session_hint: Option<String>,
}

impl Out {
    /// Adds a normalised envelope of type `kind`. `step_number` is moved to
    /// the name the type reads (`step_index` for `agent.llm.*` and
    /// `agent.tool.*`), so translators name a step one way.
    pub(crate) fn emit(
        &mut self,
        kind: &str,
        execution_id: Option<&str>,
        timestamp: Option<String>,
        mut payload: Map,
    ) {
        let takes_number = fields(kind).is_some_and(|f| f.iter().any(|f| f.name == "step_number"));
        if !takes_number {
            if let Some(n) = payload.remove("step_number") {
                payload.insert("step_index", n);
            }
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
        self.envelopes.push(env);
    }

    /// Keeps a finding: `code` is `unknown_type`, `unknown_field` or `gap`
    /// (an event whose other half or whose run never arrived); `path` points
    /// into the foreign event.
    pub(crate) fn warn(&mut self, path: &str, code: &'static str, message: impl Into<String>) {
        self.warnings.push(Warning {
            path: path.to_string(),
            code,
            message: message.into(),
        });
    }

    /// Marks the event a redelivery of one already translated.
    pub(crate) fn duplicate(&mut self) {
        self.duplicate = true;
    }

    /// The dialect's own id for the session (used when the session has none).
    pub(crate) fn session_hint(&mut self, id: &str) {
        self.session_hint = Some(id.to_string());
    }
}

/// One foreign event, translated.
#[derive(Debug, Default)]
pub(crate) struct Translated {
    /// The normalised envelopes, each with the session's id.
    pub envelopes: Vec<Value>,
    /// Findings about the foreign event (paths point into it).
    pub warnings: Vec<Warning>,
    /// The event was a redelivery.
    pub duplicate: bool,
}

/// The translation state of one session, per dialect.
#[derive(Clone, Debug, Default)]
pub(crate) struct Translators {
    laravel_ai: laravel_ai::State,
    ag_ui: ag_ui::State,
    ai_sdk: ai_sdk::State,
    redelivery: Redelivery,
}

/// Whole runs sent again in the dialects whose events carry no id of their
/// own (AG-UI, the AI SDK): a run whose start arrives a second time (the same
/// `runId` or `messageId`) is a redelivery while its events repeat, in order,
/// the ones already translated; from the first event that differs, or past
/// the last one, the events are new. Inside a run first received, equal
/// events are never merged (two equal text deltas are both text).
#[derive(Clone, Debug, Default)]
struct Redelivery {
    /// Each run's events, fingerprinted, in arrival order, by the run's key.
    runs: BTreeMap<String, Vec<Fingerprint>>,
    /// The run being received, and how far a redelivery of it matches.
    current: Option<(String, Option<usize>)>,
}

impl Redelivery {
    /// Whether `event` repeats one already translated; recorded otherwise.
    /// `start` is the run key when the event starts a run.
    fn repeats(&mut self, start: Option<&str>, event: &Map) -> bool {
        if let Some(key) = start {
            let again = self.runs.contains_key(key);
            self.current = Some((key.to_string(), again.then_some(0)));
        }
        let Some((key, replay)) = self.current.as_mut() else {
            return false;
        };
        let mut f = Fingerprinter::new();
        for (k, v) in event {
            f.str(k);
            f.value(v);
        }
        let f = f.finish();
        let seen = self.runs.entry(key.clone()).or_default();
        if let Some(pos) = replay.as_mut() {
            if seen.get(*pos) == Some(&f) {
                *pos += 1;
                return true;
            }
            *replay = None;
        }
        seen.push(f);
        false
    }
}

impl Translators {
    /// Translates `event` (of `dialect`, from [`foreign_dialect`]) for the
    /// session `session` (its id; `None` adopts the dialect's own, else the
    /// dialect's name).
    pub(crate) fn translate(
        &mut self,
        dialect: WireDialect,
        event: Value,
        session: Option<&str>,
    ) -> Result<Translated> {
        let mut out = Out::default();
        let Value::Object(event) = event else {
            return Ok(Translated::default());
        };
        let start = match dialect {
            WireDialect::AgUi => ag_ui::run_start(&event),
            WireDialect::AiSdk => ai_sdk::run_start(&event),
            _ => None,
        };
        if matches!(dialect, WireDialect::AgUi | WireDialect::AiSdk) {
            let start = start.map(str::to_string);
            if self.redelivery.repeats(start.as_deref(), &event) {
                return Ok(Translated {
                    duplicate: true,
                    ..Translated::default()
                });
            }
        }
        match dialect {
            WireDialect::AgUi => self.ag_ui.translate(event, &mut out)?,
            WireDialect::AiSdk => self.ai_sdk.translate(event, &mut out)?,
            _ => self.laravel_ai.translate(event, &mut out)?,
        }
        let id = session
            .map(str::to_string)
            .or(out.session_hint)
            .unwrap_or_else(|| dialect.as_str().to_string());
        let envelopes = out
            .envelopes
            .into_iter()
            .map(|mut env| {
                env.insert("session_id", Value::from(id.as_str()));
                Value::Object(env)
            })
            .collect();
        Ok(Translated {
            envelopes,
            warnings: out.warnings,
            duplicate: out.duplicate,
        })
    }
}

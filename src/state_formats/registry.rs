//! The stored-state formats as plug-ins: what one instructor-php release's
//! `AgentState::toArray()` is ([`StateFormat`]), a state read in one
//! ([`State`]), and the registry that tells them apart ([`StateFormats`]):
//! the one version check of stepline.

use std::fmt;

use crate::error::{ErrorCode, Result, SteplineError};
#[cfg(feature = "full")]
use crate::json::Map;
use crate::json::Value;

// What a format does with a state: the full package's. The live entry
// (`stepline/live`, without the `full` feature) reads no stored state; its
// recordings' snapshot lines only ask which format a snapshot is of, and a
// trait object's vtable would link every method it holds into its wasm.
#[cfg(feature = "full")]
use crate::model::time::Timestamp;
#[cfg(feature = "full")]
use crate::snapshot::budget::Fitted;
#[cfg(feature = "full")]
use crate::snapshot::validate::Report;
#[cfg(feature = "full")]
use crate::snapshot::SlimConfig;
#[cfg(feature = "full")]
use std::any::Any;

/// One producer release's stored agent state.
///
/// ```
/// use stepline::state_formats::StateFormats;
/// let names: Vec<&str> = StateFormats::built_in().iter().map(|f| f.name()).collect();
/// assert_eq!(names, ["v1.22", "v2"]);
/// ```
pub trait StateFormat: Sync {
    /// The format's name in errors and outputs (`"v1.22"`, `"v2"`).
    fn name(&self) -> &'static str;

    /// The top-level keys only this format's `toArray()` writes: a state
    /// with keys of one format only is that format. No two formats may share
    /// one (`agentId` and `parentAgentId`, which every instructor-php state
    /// has, are none's).
    #[cfg(feature = "full")]
    fn keys(&self) -> &'static [&'static str];

    /// A few of [`StateFormat::keys`], as an error names the format
    /// (`"messageStore, steps, status, …"`).
    #[cfg(feature = "full")]
    fn key_hint(&self) -> &'static str;

    /// The `state_version` its slim snapshots carry; `None` for the one
    /// format whose snapshots carry none (v1.22, which predates the field).
    fn snapshot_version(&self) -> Option<&'static str>;

    /// The statuses its slim snapshots may carry (what its producer's
    /// `deserialize` restores).
    fn snapshot_statuses(&self) -> &'static [&'static str];

    /// Reads a stored state as `parseAgentState` does. Unless `compat`, the
    /// steps are read as the slim snapshot summarises them (v1.22's seed 001
    /// reading); `compat` reads them exactly as stored.
    #[cfg(feature = "full")]
    fn read(&self, state: &Value, now: &Timestamp, compat: bool) -> Result<Box<dyn State>>;

    /// The slim snapshot of a stored state, within `max_bytes` when given.
    #[cfg(feature = "full")]
    fn slim(
        &self,
        state: &Value,
        config: &SlimConfig,
        max_bytes: Option<usize>,
        now: &Timestamp,
    ) -> Result<Fitted>;

    /// Whether its states have v1.22's shape, which `slimSnapshot` and
    /// [`StateFormats::slim`] read part by part with the selective reader
    /// (`SlimSource::from_doc` of src/snapshot/source.rs: the parts a
    /// snapshot drops are neither read nor checked) instead of whole through
    /// [`StateFormat::slim`]. The default reads whole.
    #[cfg(feature = "full")]
    fn slims_selectively(&self) -> bool {
        false
    }

    /// Rebuilds a state from one of its slim snapshots to resume the
    /// conversation (`restoreState`).
    #[cfg(feature = "full")]
    fn restore(&self, snapshot: &Value, now: &Timestamp) -> Result<Box<dyn State>>;

    /// The checks of one of its snapshots that only this format makes
    /// (`validateSnapshot`); the shape's own checks are every format's.
    #[cfg(feature = "full")]
    fn check_snapshot(&self, snapshot: &Value, report: &mut Report) {
        let _ = (snapshot, report);
    }

    /// `Ok` when its limits are continuation criteria, which
    /// `evaluateContinuation` / `replayContinuation` evaluate (v1.22's);
    /// otherwise the error that says where they are evaluated.
    #[cfg(feature = "full")]
    fn criteria(&self) -> Result<()> {
        Err(SteplineError::at(
            ErrorCode::InvalidValue,
            "",
            format!(
                "expected a v1.22 agent state, found a {} one, whose limits are not continuation criteria",
                self.name()
            ),
        ))
    }

    /// `Ok` when its limits are guards, which `evaluateGuards` /
    /// `replayGuards` evaluate (v2's); otherwise the error that says where
    /// they are evaluated.
    #[cfg(feature = "full")]
    fn guards(&self) -> Result<()> {
        Err(SteplineError::at(
            ErrorCode::InvalidValue,
            "",
            format!(
                "expected an instructor-php v2 agent state (context, execution, …), found a {} one, whose limits are not guards",
                self.name()
            ),
        ))
    }

    /// `Ok` when it stores the prices of its model (v2's
    /// `llmConfig.pricing`, which `pricesFromState` reads); otherwise the
    /// error that says it stores none.
    #[cfg(feature = "full")]
    fn prices(&self) -> Result<()> {
        Err(SteplineError::at(
            ErrorCode::UnknownStateVersion,
            "",
            format!(
                "expected an instructor-php v2 state (with llmConfig.pricing); this is a {} state, which stores no prices",
                self.name()
            ),
        ))
    }
}

/// The format's name only (not a supertrait: its vtable entry would be in
/// every build).
impl fmt::Debug for dyn StateFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A stored state read by its format's reader.
///
/// ```
/// use stepline::state_formats::StateFormats;
/// let now = chrono::DateTime::parse_from_rfc3339("2026-08-10T12:00:00Z").unwrap();
/// let v = stepline::json::from_str(r#"{"agentId": "a0000000-0000-4000-8000-000000000001", "execution": null}"#).unwrap();
/// let state = StateFormats::built_in().read(&v, &now, false).unwrap();
/// assert_eq!(state.format().name(), "v2");
/// assert!(state.downcast_ref::<stepline::model::v2::AgentState>().is_some());
/// ```
#[cfg(feature = "full")]
pub trait State: Any {
    /// The format it was read in.
    fn format(&self) -> &'static dyn StateFormat;

    /// The JSON text of what `parseAgentState` and `restoreState` return
    /// for it: the state with the producer's derived values.
    fn view_text(&self, now: &Timestamp) -> String;

    /// Its slim snapshot under `config`, with no byte budget.
    fn slim(&self, config: &SlimConfig) -> Value;

    /// Itself as `Any`, which `<dyn State>::downcast_ref` reads.
    fn as_any(&self) -> &dyn Any;
}

/// The format's name only: a `Debug` supertrait would link every model type's
/// `Debug` into the package through the states' vtables (about 18 KB).
#[cfg(feature = "full")]
impl fmt::Debug for dyn State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "State({})", self.format().name())
    }
}

#[cfg(feature = "full")]
impl dyn State {
    /// The state as its format's own type (`model::AgentState` for v1.22,
    /// `model::v2::AgentState` for v2), if it is one.
    pub fn downcast_ref<T: State>(&self) -> Option<&T> {
        self.as_any().downcast_ref::<T>()
    }
}

/// The built-in formats, in the order errors name them.
pub static BUILT_IN: &[&dyn StateFormat] = &[&super::v1_22::V1_22, &super::v2::V2];

/// The format that reads a state holding no format's keys (`{}`, a bare
/// `agentId`) and a value that is not an object (which its reader refuses),
/// as v1.22 always has; and a snapshot's whose `state_version` no format
/// carries, where reconciliation reads one.
static BARE: &dyn StateFormat = &super::v1_22::V1_22;

/// Keys every instructor-php state writes, whatever its format.
#[cfg(feature = "full")]
const COMMON_KEYS: [&str; 2] = ["agentId", "parentAgentId"];

/// The state formats stepline reads: the built-in ones, then any added.
#[derive(Clone, Default)]
pub struct StateFormats {
    /// Formats a caller added (the live entry reads none).
    #[cfg(feature = "full")]
    added: Vec<&'static dyn StateFormat>,
}

impl fmt::Debug for StateFormats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|s| s.name()))
            .finish()
    }
}

impl StateFormats {
    /// The built-in formats.
    pub fn built_in() -> StateFormats {
        StateFormats::default()
    }

    /// These formats and `format`, whose keys must be no other's.
    ///
    /// ```
    /// # use stepline::state_formats::{StateFormat, StateFormats, State};
    /// # use stepline::json::Value;
    /// # use stepline::model::time::Timestamp;
    /// # use stepline::snapshot::{budget::Fitted, SlimConfig};
    /// #[derive(Debug)]
    /// struct Toy;
    /// impl StateFormat for Toy {
    ///     fn name(&self) -> &'static str { "toy" }
    ///     fn keys(&self) -> &'static [&'static str] { &["toyTurns"] }
    ///     fn key_hint(&self) -> &'static str { "toyTurns" }
    ///     fn snapshot_version(&self) -> Option<&'static str> { Some("toy") }
    ///     fn snapshot_statuses(&self) -> &'static [&'static str] { &["done"] }
    ///     fn read(&self, _: &Value, _: &Timestamp, _: bool) -> stepline::error::Result<Box<dyn State>> { unimplemented!() }
    ///     fn slim(&self, _: &Value, _: &SlimConfig, _: Option<usize>, _: &Timestamp) -> stepline::error::Result<Fitted> { unimplemented!() }
    ///     fn restore(&self, _: &Value, _: &Timestamp) -> stepline::error::Result<Box<dyn State>> { unimplemented!() }
    /// }
    /// static TOY: Toy = Toy;
    /// let formats = StateFormats::built_in().with(&TOY);
    /// let state = stepline::json::from_str(r#"{"toyTurns": []}"#).unwrap();
    /// assert_eq!(formats.of(&state).unwrap().name(), "toy");
    /// ```
    #[cfg(feature = "full")]
    pub fn with(mut self, format: &'static dyn StateFormat) -> StateFormats {
        self.added.push(format);
        self
    }

    /// Every format, built-in first.
    #[cfg(feature = "full")]
    pub fn iter(&self) -> impl Iterator<Item = &'static dyn StateFormat> + '_ {
        BUILT_IN.iter().copied().chain(self.added.iter().copied())
    }

    /// Every format: the built-in ones (the live entry adds none).
    #[cfg(not(feature = "full"))]
    pub fn iter(&self) -> impl Iterator<Item = &'static dyn StateFormat> + '_ {
        BUILT_IN.iter().copied()
    }

    /// The format named `name`.
    pub fn named(&self, name: &str) -> Option<&'static dyn StateFormat> {
        self.iter().find(|f| f.name() == name)
    }

    /// The format that reads a state holding no format's keys ([`BARE`]).
    fn fallback(&self) -> &'static dyn StateFormat {
        BARE
    }

    /// The format of a stored state, from its top-level keys.
    ///
    /// A state with keys of one format only is that format. One with keys
    /// of two, or with keys of none beyond `agentId`/`parentAgentId`, is
    /// `unknown_state_version`. `{}` (and a bare `agentId`) holds nothing
    /// any format would read differently in substance, and reads as v1.22,
    /// as it always has. A value that is not an object is left to the v1.22
    /// reader, which refuses it with its own error.
    ///
    /// ```
    /// use stepline::state_formats::StateFormats;
    /// let formats = StateFormats::built_in();
    /// let v2 = stepline::json::from_str(r#"{"agentId": "a", "execution": null, "executionCount": 0}"#).unwrap();
    /// assert_eq!(formats.of(&v2).unwrap().name(), "v2");
    /// let mixed = stepline::json::from_str(r#"{"execution": null, "steps": []}"#).unwrap();
    /// assert_eq!(formats.of(&mixed).unwrap_err().code.as_str(), "unknown_state_version");
    /// ```
    #[cfg(feature = "full")]
    pub fn of(&self, state: &Value) -> Result<&'static dyn StateFormat> {
        match state {
            Value::Object(m) => self.of_map(m),
            _ => Ok(self.fallback()),
        }
    }

    /// [`StateFormats::of`] from the top-level keys alone (what a selective
    /// reader has before it reads anything).
    #[cfg(feature = "full")]
    pub fn of_keys(&self, keys: &[String]) -> Result<&'static dyn StateFormat> {
        let probe = Map::from_entries(
            keys.iter()
                .map(|k| (k.clone().into(), Value::Null))
                .collect(),
        );
        self.of_map(&probe)
    }

    #[cfg(feature = "full")]
    fn of_map(&self, m: &Map) -> Result<&'static dyn StateFormat> {
        let found: Vec<(&'static dyn StateFormat, Vec<String>)> = self
            .iter()
            .map(|f| {
                let keys = m
                    .keys()
                    .filter(|k| f.keys().contains(&&***k))
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>();
                (f, keys)
            })
            .filter(|(_, keys)| !keys.is_empty())
            .collect();
        match found.as_slice() {
            [(one, _)] => Ok(*one),
            [] => match m.keys().find(|k| !COMMON_KEYS.contains(&&***k)) {
                None => Ok(self.fallback()),
                Some(k) => Err(SteplineError::at(
                    ErrorCode::UnknownStateVersion,
                    "",
                    format!(
                        "expected {}, found {} (first unknown key {})",
                        self.each_with_hint(),
                        if self.iter().count() == 2 {
                            "neither"
                        } else {
                            "none of them"
                        },
                        crate::json::quote(k)
                    ),
                )),
            },
            several => {
                let names: Vec<String> = self.iter().map(|f| format!("a {}", f.name())).collect();
                let keys: Vec<String> = several
                    .iter()
                    .map(|(f, keys)| format!("{} {}", f.name(), keys.join(", ")))
                    .collect();
                Err(SteplineError::at(
                    ErrorCode::UnknownStateVersion,
                    "",
                    format!(
                        "expected {} agent state, found keys of {}: {}",
                        alternatives(&names),
                        if several.len() == 2 {
                            "both"
                        } else {
                            "several"
                        },
                        alternatives_and(&keys)
                    ),
                ))
            }
        }
    }

    /// `a v1.22 agent state (messageStore, …) or a v2 one (context, …)`.
    #[cfg(feature = "full")]
    fn each_with_hint(&self) -> String {
        let each: Vec<String> = self
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let what = if i == 0 { "agent state" } else { "one" };
                format!("a {} {what} ({})", f.name(), f.key_hint())
            })
            .collect();
        alternatives(&each)
    }

    /// The format of a slim snapshot, from its `state_version`: absent or
    /// null is the format whose snapshots carry none (v1.22).
    ///
    /// ```
    /// use stepline::state_formats::StateFormats;
    /// let snap = stepline::json::from_str(r#"{"state_version": "v2"}"#).unwrap();
    /// assert_eq!(StateFormats::built_in().of_snapshot(&snap).unwrap().name(), "v2");
    /// ```
    pub fn of_snapshot(&self, snapshot: &Value) -> Result<&'static dyn StateFormat> {
        self.of_snapshot_version(snapshot.get("state_version"))
    }

    /// [`StateFormats::of_snapshot`] from the snapshot's `state_version`
    /// member (`None` when it has none).
    pub fn of_snapshot_version(&self, version: Option<&Value>) -> Result<&'static dyn StateFormat> {
        if let Some(found) = self.snapshot_format(version) {
            return Ok(found);
        }
        let marked: Vec<String> = self
            .iter()
            .filter_map(|f| f.snapshot_version())
            .map(crate::json::quote)
            .collect();
        let unmarked = self
            .iter()
            .find(|f| f.snapshot_version().is_none())
            .map_or(String::new(), |f| {
                format!(" (or none, for a {} snapshot)", f.name())
            });
        Err(SteplineError::at(
            ErrorCode::UnknownStateVersion,
            "/state_version",
            format!(
                "expected state_version {}{unmarked}, found {}",
                alternatives(&marked),
                crate::json::type_name(version.unwrap_or(&Value::Null))
            ),
        ))
    }

    /// The format whose snapshots carry `version` as their `state_version`
    /// (`None` when there is none), if one does.
    pub fn snapshot_format(&self, version: Option<&Value>) -> Option<&'static dyn StateFormat> {
        let wanted = match version {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(_) => return None,
        };
        self.iter().find(|f| f.snapshot_version() == wanted)
    }

    /// The format of a snapshot as reconciliation reads one: a
    /// `state_version` no format carries is v1.22's, as it always was there.
    pub fn of_snapshot_or_first(&self, version: Option<&Value>) -> &'static dyn StateFormat {
        self.snapshot_format(version)
            .unwrap_or_else(|| self.fallback())
    }

    /// Reads a stored state with its format's reader ([`StateFormat::read`]).
    #[cfg(feature = "full")]
    pub fn read(&self, state: &Value, now: &Timestamp, compat: bool) -> Result<Box<dyn State>> {
        self.of(state)?.read(state, now, compat)
    }

    /// Slims a stored state with its format's writer ([`StateFormat::slim`]).
    #[cfg(feature = "full")]
    pub fn slim(
        &self,
        state: &Value,
        config: &SlimConfig,
        max_bytes: Option<usize>,
        now: &Timestamp,
    ) -> Result<Fitted> {
        let format = self.of(state)?;
        if format.slims_selectively() {
            // As `slimSnapshot` reads it: the parts a snapshot drops are not read.
            let source = crate::snapshot::source::SlimSource::from_doc(&state, config, now)?;
            return crate::snapshot::budget::slim_within(&source, config, max_bytes);
        }
        format.slim(state, config, max_bytes, now)
    }

    /// Restores a slim snapshot with its format's reader ([`StateFormat::restore`]).
    #[cfg(feature = "full")]
    pub fn restore(&self, snapshot: &Value, now: &Timestamp) -> Result<Box<dyn State>> {
        self.of_snapshot(snapshot)?.restore(snapshot, now)
    }

    /// Checks a snapshot against the slim schema, its consistency and its
    /// format's own rules ([`StateFormat::check_snapshot`]), and flags every
    /// credential it carries.
    #[cfg(feature = "full")]
    pub fn validate_snapshot(&self, snapshot: &Value) -> Report {
        crate::snapshot::validate::validate_with(snapshot, |snapshot, report| {
            if let Ok(format) = self.of_snapshot(snapshot) {
                format.check_snapshot(snapshot, report);
            }
        })
    }
}

/// `a`, `a or b`, `a, b or c`.
fn alternatives(items: &[String]) -> String {
    joined(items, " or ")
}

/// `a`, `a and b`, `a, b and c`.
#[cfg(feature = "full")]
fn alternatives_and(items: &[String]) -> String {
    joined(items, " and ")
}

fn joined(items: &[String], last: &str) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(if i + 1 == items.len() { last } else { ", " });
        }
        out.push_str(item);
    }
    out
}

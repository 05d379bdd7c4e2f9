//! Stored-state formats are plug-ins: a third format
//! (tests/fixtures/toy-state-format/) is its own `StateFormat` here and one
//! registry line; the registry then detects its states and snapshots, reads,
//! slims and restores them, the built-in formats refuse them, and a state
//! with keys of two formats stays `unknown_state_version`. Nothing in src/
//! names it.

use std::any::Any;
use std::path::PathBuf;

use stepline::error::{ErrorCode, Result, SteplineError};
use stepline::json::{self, obj, Value};
use stepline::model::time::Timestamp;
use stepline::snapshot::budget::Fitted;
use stepline::snapshot::SlimConfig;
use stepline::state_formats::{State, StateFormat, StateFormats};

// --- the toy format: what its own folder would hold ---------------------

#[derive(Debug)]
struct Toy;

/// A toy state: its status and its turns (role, text).
#[derive(Debug, PartialEq)]
struct ToyState {
    agent_id: Option<String>,
    status: String,
    turns: Vec<(String, String)>,
}

fn invalid(path: &str, message: &str) -> SteplineError {
    SteplineError::at(ErrorCode::InvalidType, path, message.to_string())
}

impl ToyState {
    fn from_value(v: &Value) -> Result<ToyState> {
        let m = v
            .as_object()
            .ok_or_else(|| invalid("", "a toy state is an object"))?;
        let status = m
            .get("toyStatus")
            .and_then(Value::as_str)
            .unwrap_or("running")
            .to_string();
        let mut turns = Vec::new();
        if let Some(list) = m.get("toyTurns") {
            let list = list
                .as_array()
                .ok_or_else(|| invalid("/toyTurns", "toyTurns is an array"))?;
            for (i, t) in list.iter().enumerate() {
                let field = |k: &str| {
                    t.get(k)
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .ok_or_else(|| {
                            invalid(
                                &format!("/toyTurns/{i}/{k}"),
                                "a turn's role and text are strings",
                            )
                        })
                };
                turns.push((field("role")?, field("text")?));
            }
        }
        Ok(ToyState {
            agent_id: m.get("agentId").and_then(Value::as_str).map(str::to_string),
            status,
            turns,
        })
    }

    /// The snapshot of the newest `keep` turns, each cut to `max_chars`.
    fn snapshot(&self, keep: usize, max_chars: usize) -> Value {
        let first = self.turns.len().saturating_sub(keep);
        let messages = self.turns[first..]
            .iter()
            .map(|(role, text)| {
                let content: String = text.chars().take(max_chars).collect();
                obj([
                    ("role", Value::from(role.as_str())),
                    ("content", Value::from(content)),
                ])
            })
            .collect();
        obj([
            ("state_version", Value::from("toy")),
            (
                "agent_id",
                self.agent_id.as_deref().map_or(Value::Null, Value::from),
            ),
            ("status", Value::from(self.status.as_str())),
            ("messages", Value::Array(messages)),
        ])
    }
}

impl State for ToyState {
    fn format(&self) -> &'static dyn StateFormat {
        &TOY
    }

    fn view_text(&self, _now: &Timestamp) -> String {
        json::to_string(&obj([
            ("stateVersion", Value::from("toy")),
            ("status", Value::from(self.status.as_str())),
            ("turnCount", Value::from(self.turns.len() as i64)),
        ]))
    }

    fn slim(&self, config: &SlimConfig) -> Value {
        self.snapshot(
            usize::try_from(config.max_messages).unwrap_or(0),
            usize::try_from(config.max_content_length).unwrap_or(usize::MAX),
        )
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl StateFormat for Toy {
    fn name(&self) -> &'static str {
        "toy"
    }

    fn keys(&self) -> &'static [&'static str] {
        &["toyTurns", "toyStatus"]
    }

    fn key_hint(&self) -> &'static str {
        "toyTurns, toyStatus"
    }

    fn snapshot_version(&self) -> Option<&'static str> {
        Some("toy")
    }

    fn snapshot_statuses(&self) -> &'static [&'static str] {
        &["running", "done"]
    }

    fn read(&self, state: &Value, _now: &Timestamp, _compat: bool) -> Result<Box<dyn State>> {
        Ok(Box::new(ToyState::from_value(state)?))
    }

    /// Drops the oldest turns until the snapshot fits.
    fn slim(
        &self,
        state: &Value,
        config: &SlimConfig,
        max_bytes: Option<usize>,
        _now: &Timestamp,
    ) -> Result<Fitted> {
        let state = ToyState::from_value(state)?;
        let max_chars = usize::try_from(config.max_content_length).unwrap_or(usize::MAX);
        let mut keep = usize::try_from(config.max_messages).unwrap_or(0);
        loop {
            let snapshot = state.snapshot(keep, max_chars);
            let bytes = json::to_string(&snapshot).len();
            if max_bytes.is_none_or(|b| bytes <= b) {
                return Ok(Fitted {
                    snapshot,
                    bytes,
                    truncation: None,
                });
            }
            if keep == 0 {
                return Err(SteplineError::at(
                    ErrorCode::TooLarge,
                    "",
                    format!("a toy snapshot without turns is {bytes} bytes"),
                ));
            }
            keep -= 1;
        }
    }

    fn restore(&self, snapshot: &Value, _now: &Timestamp) -> Result<Box<dyn State>> {
        let mut turns = Vec::new();
        for m in snapshot
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let s = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            turns.push((s("role"), s("content")));
        }
        Ok(Box::new(ToyState {
            agent_id: snapshot
                .get("agent_id")
                .and_then(Value::as_str)
                .map(str::to_string),
            status: snapshot
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            turns,
        }))
    }
}

static TOY: Toy = Toy;

// --- the tests -----------------------------------------------------------

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/toy-state-format")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    json::from_str(&text).unwrap()
}

fn now() -> Timestamp {
    chrono::DateTime::parse_from_rfc3339("2026-08-10T12:00:00Z").unwrap()
}

fn with_toy() -> StateFormats {
    StateFormats::built_in().with(&TOY)
}

#[test]
fn a_registered_toy_format_is_detected_read_slimmed_and_restored_through_the_registry() {
    let formats = with_toy();
    let state = fixture("state.json");
    assert_eq!(formats.of(&state).unwrap().name(), "toy");
    let keys: Vec<String> = state
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.to_string())
        .collect();
    assert_eq!(formats.of_keys(&keys).unwrap().name(), "toy");

    let read = formats.read(&state, &now(), false).unwrap();
    assert_eq!(read.format().name(), "toy");
    let toy = read
        .downcast_ref::<ToyState>()
        .expect("read as the toy's own type");
    assert_eq!((toy.status.as_str(), toy.turns.len()), ("done", 4));
    assert_eq!(
        json::from_str(&read.view_text(&now())).unwrap(),
        stepline::json!({"stateVersion": "toy", "status": "done", "turnCount": 4})
    );

    let mut config = SlimConfig::standard();
    config.max_messages = 2;
    let fitted = formats.slim(&state, &config, None, &now()).unwrap();
    assert_eq!(fitted.snapshot, fixture("snapshot.json"));
    assert_eq!(read.slim(&config), fitted.snapshot);
    // A budget the toy's own writer meets by dropping the oldest turn.
    let tight = formats
        .slim(&state, &config, Some(fitted.bytes - 1), &now())
        .unwrap();
    assert_eq!(tight.snapshot["messages"].as_array().unwrap().len(), 1);

    let snapshot = fixture("snapshot.json");
    assert_eq!(formats.of_snapshot(&snapshot).unwrap().name(), "toy");
    let restored = formats.restore(&snapshot, &now()).unwrap();
    let restored = restored.downcast_ref::<ToyState>().unwrap();
    assert_eq!(
        restored.turns[1],
        ("assistant".to_string(), "Rome.".to_string())
    );
    // The built-in formats still read their own.
    let v2 =
        stepline::json!({"agentId": "a0000000-0000-4000-8000-000000000001", "execution": null});
    assert_eq!(formats.of(&v2).unwrap().name(), "v2");
    assert_eq!(
        formats.of(&stepline::json!({"steps": []})).unwrap().name(),
        "v1.22"
    );
}

#[test]
fn the_built_in_formats_refuse_a_toy_state_and_snapshot() {
    let state = fixture("state.json");
    let err = stepline::state_formats::read(&state, &now(), false).unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownStateVersion);
    assert_eq!(err.path.as_deref(), Some(""));
    assert_eq!(
        err.message,
        "expected a v1.22 agent state (messageStore, steps, status, …) or a v2 one (context, execution, executionCount, …), found neither (first unknown key \"toyStatus\")"
    );
    let slim = stepline::state_formats::slim(&state, &SlimConfig::standard(), None, &now());
    assert_eq!(slim.unwrap_err().code, ErrorCode::UnknownStateVersion);

    let err = stepline::state_formats::restore(&fixture("snapshot.json"), &now()).unwrap_err();
    assert_eq!(
        (err.code, err.path.as_deref(), err.message.as_str()),
        (
            ErrorCode::UnknownStateVersion,
            Some("/state_version"),
            "expected state_version \"v2\" (or none, for a v1.22 snapshot), found a string"
        )
    );
    // With the toy registered, the error lists it among the formats.
    let err = with_toy().of(&stepline::json!({"foo": 1})).unwrap_err();
    assert_eq!(
        err.message,
        "expected a v1.22 agent state (messageStore, steps, status, …), a v2 one (context, execution, executionCount, …) or a toy one (toyTurns, toyStatus), found none of them (first unknown key \"foo\")"
    );
}

#[test]
fn a_state_with_keys_of_two_formats_is_still_unknown_state_version() {
    let formats = with_toy();
    let err = formats.of(&fixture("mixed.json")).unwrap_err();
    assert_eq!(
        (err.code, err.path.as_deref(), err.message.as_str()),
        (
            ErrorCode::UnknownStateVersion,
            Some(""),
            "expected a v1.22, a v2 or a toy agent state, found keys of both: v2 execution and toy toyTurns"
        )
    );
    let err = formats
        .read(&fixture("mixed.json"), &now(), false)
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownStateVersion);
    // v1.22 and v2 keys together, the toy registered or not.
    let both = stepline::json!({"execution": null, "steps": []});
    for formats in [StateFormats::built_in(), with_toy()] {
        assert_eq!(
            formats.of(&both).unwrap_err().code,
            ErrorCode::UnknownStateVersion,
            "{formats:?}"
        );
    }
}

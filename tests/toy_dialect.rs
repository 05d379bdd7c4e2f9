//! Producers are plug-ins: a sixth producer (tests/fixtures/toy-dialect/)
//! is its own `Dialect`, translator and final form here, and one registry
//! line; a session then shows its run and reconciles it against its final
//! form, and nothing in src/ names it.

use std::path::PathBuf;

use stepline::dialects::final_form::{FinalDialect, FinalStep, FinalTool, FinalTurn};
use stepline::dialects::{Dialect, Dialects, FinalForm, Out, Translator};
use stepline::error::{ErrorCode, Result, SteplineError};
use stepline::json::{self, Limits, Map, Value};
use stepline::session::reconcile_messages::ReconcileMessagesOptions;
use stepline::session::Session;

// --- the toy producer: what its own folder would hold -------------------

#[derive(Debug)]
struct Toy;

impl Dialect for Toy {
    fn name(&self) -> &'static str {
        "toy"
    }

    fn claims(&self, event: &Map) -> bool {
        event
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.starts_with("toy."))
    }

    fn translator(&self) -> Box<dyn Translator> {
        Box::new(ToyRun::default())
    }

    fn final_form(&self) -> Option<&dyn FinalForm> {
        Some(&ToyMessages)
    }
}

/// One session's toy stream: the step being streamed and the text so far.
#[derive(Clone, Debug, Default)]
struct ToyRun {
    step: i64,
    open: bool,
    called: bool,
    text: String,
    /// Call id and tool name of every call made.
    calls: Vec<(String, String)>,
}

fn str_at<'a>(event: &'a Map, key: &str) -> Result<&'a str> {
    event.get(key).and_then(Value::as_str).ok_or_else(|| {
        SteplineError::at(
            ErrorCode::MissingField,
            &format!("/{key}"),
            format!("a toy event carries `{key}`"),
        )
    })
}

impl ToyRun {
    fn open_step(&mut self, out: &mut Out, run: &str, at: Option<String>) {
        if self.open && !self.called {
            return;
        }
        if self.open {
            self.close_step(out, run, at.clone());
        }
        self.step += 1;
        self.open = true;
        self.called = false;
        let mut p = Map::new();
        p.insert("step_number", Value::from(self.step));
        out.emit("agent.step.started", Some(run), at, p);
    }

    fn close_step(&mut self, out: &mut Out, run: &str, at: Option<String>) {
        let mut p = Map::new();
        p.insert("step_number", Value::from(self.step));
        p.insert("has_tool_calls", Value::Bool(self.called));
        out.emit("agent.step.completed", Some(run), at, p);
        self.open = false;
    }
}

impl Translator for ToyRun {
    fn translate(&mut self, event: Map, out: &mut Out) -> Result<()> {
        let run = str_at(&event, "run")?.to_string();
        let at = event.get("at").and_then(Value::as_str).map(str::to_string);
        match str_at(&event, "type")? {
            "toy.turn" => {
                let mut p = Map::new();
                p.insert("status", Value::from("processing"));
                p.insert("previous_status", Value::from("idle"));
                out.emit("agent.status", Some(&run), at.clone(), p);
                self.open_step(out, &run, at);
            }
            "toy.say" => {
                self.open_step(out, &run, at.clone());
                let text = str_at(&event, "text")?;
                self.text.push_str(text);
                let mut p = Map::new();
                p.insert("text_delta", Value::from(text));
                p.insert("step_number", Value::from(self.step));
                out.emit("agent.llm.output_text.delta", Some(&run), at, p);
            }
            "toy.call" => {
                self.called = true;
                let (id, tool) = (str_at(&event, "id")?, str_at(&event, "tool")?);
                self.calls.push((id.to_string(), tool.to_string()));
                let mut p = Map::new();
                p.insert("tool_name", Value::from(tool));
                p.insert("tool_call_id", Value::from(id));
                p.insert("args", event.get("args").cloned().unwrap_or(Value::Null));
                p.insert("step_number", Value::from(self.step));
                out.emit("agent.tool.started", Some(&run), at, p);
            }
            "toy.result" => {
                let id = str_at(&event, "id")?;
                let Some((_, tool)) = self.calls.iter().find(|(c, _)| c == id) else {
                    out.warn("/id", "gap", "a result of a call that was not seen");
                    return Ok(());
                };
                let mut p = Map::new();
                p.insert("tool_name", Value::from(tool.as_str()));
                p.insert("tool_call_id", Value::from(id));
                p.insert("success", Value::Bool(true));
                p.insert("output", Value::from(str_at(&event, "output")?));
                p.insert("step_number", Value::from(self.step));
                out.emit("agent.tool.completed", Some(&run), at, p);
            }
            "toy.done" => {
                self.close_step(out, &run, at.clone());
                let mut p = Map::new();
                p.insert("final_answer", Value::from(self.text.as_str()));
                p.insert("reason", Value::from("stop"));
                out.emit("agent.run.completed", Some(&run), at, p);
            }
            other => out.warn("/type", "unknown_type", format!("a toy event {other:?}")),
        }
        Ok(())
    }

    fn boxed_clone(&self) -> Box<dyn Translator> {
        Box::new(self.clone())
    }
}

/// The toy producer's final form: assistant messages with `toy_steps`.
struct ToyMessages;

impl FinalForm for ToyMessages {
    fn marks(&self, message: &Map) -> bool {
        message.contains_key("toy_steps")
    }

    fn turns(&self, messages: &[Value], prefix: &str) -> Result<Vec<FinalTurn>> {
        let mut turns = Vec::new();
        for (i, m) in messages.iter().enumerate() {
            let Some(steps) = m.get("toy_steps").and_then(Value::as_array) else {
                continue;
            };
            let path = format!("{prefix}/{i}");
            let steps = steps
                .iter()
                .enumerate()
                .map(|(k, s)| FinalStep {
                    text: s["text"].as_str().unwrap_or_default().to_string(),
                    text_path: Some(format!("{path}/toy_steps/{k}/text")),
                    tools: s["calls"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .enumerate()
                        .map(|(c, call)| FinalTool {
                            call_id: call["id"].as_str().unwrap_or_default().to_string(),
                            name: call["tool"].as_str().unwrap_or_default().to_string(),
                            args: call.get("args").cloned(),
                            result: call.get("output").cloned(),
                            finished: call.get("output").is_some(),
                            failure_known: true,
                            path: format!("{path}/toy_steps/{k}/calls/{c}"),
                            ..FinalTool::default()
                        })
                        .collect(),
                    path: format!("{path}/toy_steps/{k}"),
                    ..FinalStep::default()
                })
                .collect();
            turns.push(FinalTurn {
                path,
                steps,
                steps_known: true,
                keeps_reasoning: true,
                ..FinalTurn::default()
            });
        }
        Ok(turns)
    }
}

// --- the one registry line ------------------------------------------------

static TOY: Toy = Toy;

fn toy_session() -> Session {
    Session::new(None).with_dialects(Dialects::built_in().with(&TOY))
}

// --- what a user sees -----------------------------------------------------

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/toy-dialect")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn final_form() -> Value {
    json::parse(&fixture("final.json"), &Limits::default()).unwrap()
}

fn ingest_run(session: &mut Session) {
    for line in fixture("run.jsonl").lines() {
        let out = session.ingest_text(line).unwrap();
        assert!(out.applied, "{line}: {out:?}");
    }
}

#[test]
fn a_registered_sixth_dialect_shows_its_run_in_the_view() {
    let mut s = toy_session();
    ingest_run(&mut s);
    let view = s.view();
    let exec = &view["executions"][0];
    assert_eq!(exec["execution_id"], "r1");
    assert_eq!(exec["status"], "completed");
    assert_eq!(exec["dialect"], "toy");
    assert_eq!(exec["text"], "Checking the weather. It is sunny in Bern.");
    let steps = exec["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{steps:?}");
    assert_eq!(steps[0]["tools"][0]["name"], "weather");
    assert_eq!(steps[0]["tools"][0]["call_id"], "c1");
    assert_eq!(steps[0]["tools"][0]["status"], "succeeded");
    assert!(steps.iter().all(|s| s["seen"]["completed"] == true));
    assert_eq!(s.session_id(), Some("toy"));
}

#[test]
fn a_registered_sixth_dialect_is_reconciled_against_its_final_form() {
    let mut s = toy_session();
    ingest_run(&mut s);
    let report = s
        .reconcile_messages(&final_form(), &ReconcileMessagesOptions::default())
        .unwrap();
    assert_eq!(report.dialect, FinalDialect("toy"));
    assert!(report.consistent, "{:?}", report.differences);
    assert_eq!(report.turns.len(), 1);

    // The same form with another answer is a difference at its path.
    let changed = json::parse(
        &fixture("final.json").replace("It is sunny in Bern.", "It is raining in Bern."),
        &Limits::default(),
    )
    .unwrap();
    let report = s
        .reconcile_messages(&changed, &ReconcileMessagesOptions::default())
        .unwrap();
    assert!(!report.consistent);
    let d = report.to_value();
    assert!(
        d["differences"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["path"]
                .as_str()
                .unwrap_or("")
                .starts_with("/1/toy_steps/1")),
        "{d:?}"
    );
}

#[test]
fn a_session_without_the_registry_line_does_not_read_the_toy_events() {
    let mut s = Session::new(None);
    let line = fixture("run.jsonl").lines().next().unwrap().to_string();
    // Not claimed by any built-in dialect, it is judged as an envelope, which
    // it is not: a typed error, nothing applied.
    let err = s.ingest_text(&line).unwrap_err();
    assert_eq!(err.code, ErrorCode::MissingField, "{err:?}");
    assert!(s.view()["executions"].as_array().unwrap().is_empty());
    // And the toy's final form is no known one.
    let err = s
        .reconcile_messages(&final_form(), &ReconcileMessagesOptions::default())
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidValue);
}

#[test]
fn a_named_final_form_dialect_is_looked_up_in_the_sessions_registry() {
    let mut s = toy_session();
    ingest_run(&mut s);
    let options = ReconcileMessagesOptions {
        dialect: Some(FinalDialect("toy")),
    };
    assert!(
        s.reconcile_messages(&final_form(), &options)
            .unwrap()
            .consistent
    );
    let options = ReconcileMessagesOptions {
        dialect: Some(FinalDialect("nope")),
    };
    let err = s.reconcile_messages(&final_form(), &options).unwrap_err();
    assert_eq!(err.path.as_deref(), Some("/options/dialect"));
    assert!(err.message.contains("\"toy\""), "{}", err.message);
}

//! Reconciling a session with a foreign producer's final form: AG-UI
//! messages, the AI SDK's `UIMessage[]` and laravel/ai's stored rows.
//! Vectors: tests/vectors/dialects/final-forms (written by
//! scripts/gen-final-form-vectors.mjs from scripts/lib/dialects/run.mjs and
//! the producers' message declarations; see its PROVENANCE.md).

use std::path::PathBuf;

use stepline::dialects::Dialects;
use stepline::json::{self, Limits, Value};
use stepline::session::final_form::{self, FinalDialect};
use stepline::session::reconcile_messages::ReconcileMessagesOptions;
use stepline::session::Session;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/dialects/final-forms")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn value(name: &str) -> Value {
    json::parse(&read(name), &Limits::default()).unwrap()
}

fn cases() -> Value {
    value("cases.json")
}

fn session(name: &str) -> Session {
    let mut s = Session::new(None);
    let out = s.ingest_jsonl(&read(name));
    assert!(out.errors.is_empty(), "{name}: {:?}", out.errors);
    s
}

fn options(dialect: &Value) -> ReconcileMessagesOptions {
    let opts = json::obj([("dialect", dialect.clone())]);
    ReconcileMessagesOptions::from_value(Some(&opts), "/options").unwrap()
}

/// `(kind, step, execution_id, path)` of each difference.
fn summary(differences: &Value) -> Vec<Value> {
    differences
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            json::obj([
                ("kind", d["kind"].clone()),
                ("step", d["step"].clone()),
                ("execution_id", d["execution_id"].clone()),
                ("path", d["path"].clone()),
            ])
        })
        .collect()
}

#[test]
fn every_case_reports_exactly_the_differences_its_change_makes() {
    let cases = cases();
    let list = cases["cases"].as_array().unwrap();
    assert!(list.len() >= 30, "{} cases", list.len());
    for c in list {
        let name = c["name"].as_str().unwrap();
        let s = session(c["session"].as_str().unwrap());
        let form = value(c["form"].as_str().unwrap());
        let report = s
            .reconcile_messages(&form, &options(&c["dialect"]))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = report.to_value();
        let expect = &c["expect"];
        assert_eq!(
            summary(&got["differences"]),
            summary(&expect["differences"]),
            "{name}: {}",
            json::to_string(&got["differences"])
        );
        assert_eq!(got["consistent"], expect["consistent"], "{name}");
        if let Some(turns) = c.get("turns").and_then(Value::as_array) {
            let paired: Vec<Value> = got["turns"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["execution_index"].clone())
                .collect();
            assert_eq!(&paired, turns, "{name}");
        }
    }
}

#[test]
fn the_dialect_is_detected_from_the_messages() {
    let cases = cases();
    let mut seen = [0usize; 3];
    for c in cases["cases"].as_array().unwrap() {
        let form_name = c["form"].as_str().unwrap();
        let names = ["ag-ui", "ai-sdk", "laravel-ai"];
        let Some(k) = names
            .iter()
            .position(|d| form_name.contains(&format!(".{d}.")))
        else {
            continue;
        };
        let run = final_form::parse(&value(form_name), &Dialects::built_in(), None).unwrap();
        assert_eq!(run.dialect, FinalDialect(names[k]), "{form_name}");
        seen[k] += 1;
    }
    assert!(seen.iter().all(|n| *n >= 5), "{seen:?}");
}

#[test]
fn a_form_of_no_known_shape_is_a_typed_error_at_its_path() {
    let cases = cases();
    let list = cases["errors"].as_array().unwrap();
    assert!(list.len() >= 10);
    for c in list {
        let name = c["name"].as_str().unwrap();
        let opts = json::obj([("dialect", c["dialect"].clone())]);
        let err = ReconcileMessagesOptions::from_value(Some(&opts), "/options")
            .and_then(|o| Session::new(None).reconcile_messages(&c["form"], &o))
            .expect_err(name);
        assert_eq!(c["error"]["code"], err.code.as_str(), "{name}: {err}");
        assert_eq!(
            err.path.as_deref(),
            c["error"]["path"].as_str(),
            "{name}: {err}"
        );
    }
}

#[test]
fn each_difference_names_the_run_step_and_what_each_side_says() {
    let s = session("sessions/canonical.jsonl");
    let form = value("forms/canonical.ai-sdk.result-changed.json");
    let report = s
        .reconcile_messages(&form, &ReconcileMessagesOptions::default())
        .unwrap();
    assert_eq!(report.dialect, FinalDialect("ai-sdk"));
    let [d] = report.differences.as_slice() else {
        panic!("{:?}", report.differences)
    };
    assert_eq!(d.step, Some(1));
    assert_eq!(d.execution_id.as_deref(), Some("run-0001"));
    assert_eq!(d.streamed["sky"], "sonnig");
    assert_eq!(d.final_value["sky"], "bewölkt");
    assert!(d.message.contains("get_weather"), "{}", d.message);
    assert_eq!(report.turns.len(), 1);
    assert_eq!(report.turns[0].execution_index, Some(0));
    assert_eq!(report.turns[0].step_count, 3);
}

#[test]
fn a_session_that_never_streamed_the_run_leaves_it_uncompared() {
    let form = value("forms/canonical.ag-ui.json");
    let report = Session::new(None)
        .reconcile_messages(&form, &ReconcileMessagesOptions::default())
        .unwrap();
    assert!(report.consistent);
    assert_eq!(report.turns.len(), 1);
    assert_eq!(report.turns[0].execution_index, None);
}

#[test]
fn the_explicit_dialect_wins_over_detection() {
    // UIMessages read as laravel/ai rows: the user message is skipped as
    // rows are, the assistant one has no `content` column.
    let form = value("forms/canonical.ai-sdk.json");
    let dialects = Dialects::built_in();
    let laravel = dialects.named("laravel-ai");
    let err = final_form::parse(&form, &dialects, laravel).unwrap_err();
    assert_eq!(err.code.as_str(), "missing_field");
    assert_eq!(err.path.as_deref(), Some("/1/content"));
}

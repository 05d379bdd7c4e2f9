//! Shared by the integration tests: the reference producer's conformance
//! vectors as committed under `tests/vectors/cognesy-v1.22` (the conformance
//! runner alone honours `STEPLINE_VECTORS`), and the session helpers the
//! session tests and the property tests share.

// Each test crate compiles this module whole and uses part of it.
#![allow(dead_code)]

use stepline::json::Value;
use stepline::session::Session;

/// The cases of one vector file, e.g. `vectors("agent-runs.json")`.
pub fn vectors(file: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/vectors/cognesy-v1.22/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    match stepline::json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}")) {
        Value::Array(cases) => cases,
        other => panic!("{path}: expected an array of cases, found {other}"),
    }
}

/// A session (adopting the first session id it sees) fed `envelopes` in order.
pub fn session_of(envelopes: &[Value]) -> Session {
    let mut s = Session::new(None);
    for e in envelopes {
        s.ingest_value(e).unwrap();
    }
    s
}

/// The view without what legitimately depends on arrival: the counters,
/// and the order of a step's tool runs, which without call ids is the order
/// they arrived in (reconcile puts them in the final state's order).
pub fn view_of(s: &Session) -> Value {
    let mut v = s.view();
    v.as_object_mut().unwrap().remove("counts");
    for exec in v["executions"].as_array_mut().unwrap() {
        for step in exec["steps"].as_array_mut().unwrap() {
            let tools = step["tools"].as_array_mut().unwrap();
            tools.sort_by_key(|t| t.to_string());
        }
    }
    v
}

//! Shared by the integration tests: the reference producer's conformance
//! vectors as committed under `tests/vectors/cognesy-v1.22` (the conformance
//! runner alone honours `STEPLINE_VECTORS`).

use serde_json::Value;

/// The cases of one vector file, e.g. `vectors("agent-runs.json")`.
pub fn vectors(file: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/vectors/cognesy-v1.22/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

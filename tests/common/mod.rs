//! Shared by the integration tests: the reference producers' conformance
//! vectors as committed under `tests/vectors/` (the conformance runner alone
//! honours `STEPLINE_VECTORS`), each corpus' frozen instant, and the session
//! helpers the session tests and the property tests share.

// Each test crate compiles this module whole and uses part of it.
#![allow(dead_code)]

pub mod reader_on_off;

use stepline::json;
use stepline::json::Value;
use stepline::model::time::Timestamp;
use stepline::session::Session;

/// A reference producer's corpus under `tests/vectors/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Corpus {
    /// cognesy instructor-php v1.22 (`tests/vectors/cognesy-v1.22`).
    V1_22,
    /// instructor-php v2.7 (`tests/vectors/instructor-php-v2.7`).
    V2_7,
}

impl Corpus {
    /// The corpus' folder under `tests/vectors/`.
    pub fn folder(self) -> &'static str {
        match self {
            Corpus::V1_22 => "cognesy-v1.22",
            Corpus::V2_7 => "instructor-php-v2.7",
        }
    }

    /// The instant the corpus' producer was frozen at when it recorded the
    /// vectors: what "now" is for anything computed from them.
    pub fn now(self) -> Timestamp {
        let at = match self {
            Corpus::V1_22 => "2026-01-20T12:00:00.250+00:00",
            Corpus::V2_7 => "2026-08-10T12:00:00.250+00:00",
        };
        chrono::DateTime::parse_from_rfc3339(at).unwrap()
    }
}

/// The cases of one vector file of `corpus`,
/// e.g. `vectors_of(Corpus::V2_7, "agent-runs.json")`.
pub fn vectors_of(corpus: Corpus, file: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/vectors/{}/{file}",
        env!("CARGO_MANIFEST_DIR"),
        corpus.folder()
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    match stepline::json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}")) {
        Value::Array(cases) => cases,
        other => panic!("{path}: expected an array of cases, found {other}"),
    }
}

/// The cases of one vector file of the v1.22 corpus, e.g. `vectors("agent-runs.json")`.
pub fn vectors(file: &str) -> Vec<Value> {
    vectors_of(Corpus::V1_22, file)
}

/// The first case of `file` in `corpus` whose name starts with `prefix`.
pub fn case_starting(corpus: Corpus, file: &str, prefix: &str) -> Value {
    vectors_of(corpus, file)
        .into_iter()
        .find(|c| c["name"].as_str().unwrap().starts_with(prefix))
        .unwrap_or_else(|| panic!("{file}: no case named {prefix}..."))
}

/// The corpus shows the ids the producer generated as `"<uuid>"`; a stored
/// state has real ones, so each placeholder gets a distinct valid uuid.
pub fn with_ids(v: &Value) -> Value {
    fn walk(v: &mut Value, n: &mut u32) {
        match v {
            Value::String(s) if s == "<uuid>" => {
                *n += 1;
                *s = format!("9e000000-0000-4000-8000-{:012}", n);
            }
            Value::Array(a) => a.iter_mut().for_each(|x| walk(x, n)),
            Value::Object(m) => m.values_mut().for_each(|x| walk(x, n)),
            _ => {}
        }
    }
    let mut out = v.clone();
    walk(&mut out, &mut 0);
    out
}

/// `(name, final state with ids, derived values)` of every turn of every
/// v2.7 agent run: all the v2 final states the corpus records.
pub fn v2_final_states() -> Vec<(String, Value, Value)> {
    let mut out = Vec::new();
    for case in vectors_of(Corpus::V2_7, "agent-runs.json") {
        for (t, turn) in case["expected"].as_array().unwrap().iter().enumerate() {
            out.push((
                format!("{} turn {t}", case["name"].as_str().unwrap()),
                with_ids(&turn["finalState"]),
                turn["derived"].clone(),
            ));
        }
    }
    out
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
    for exec in v.get_mut("executions").unwrap().as_array_mut().unwrap() {
        for step in exec.get_mut("steps").unwrap().as_array_mut().unwrap() {
            let tools = step.get_mut("tools").unwrap().as_array_mut().unwrap();
            tools.sort_by_key(|t| t.to_string());
        }
    }
    v
}

/// A v2.7 continuation case's hook and its parameters as the guard spec
/// stepline takes (`{kind, max}` / `{kind, stopReasons}`); `None` for a hook
/// that is not a guard.
pub fn guard_spec(hook: &str, params: &Value) -> Option<Value> {
    Some(match hook {
        "StepsLimitHook" => json!({"kind": "steps_limit", "max": params["maxSteps"].clone()}),
        "TokenUsageLimitHook" => {
            json!({"kind": "token_usage_limit", "max": params["maxTotalTokens"].clone()})
        }
        "ExecutionTimeLimitHook" => {
            json!({"kind": "execution_time_limit", "max": params["maxSeconds"].clone()})
        }
        "FinishReasonHook" => {
            json!({"kind": "finish_reason", "stopReasons": params["stopReasons"].clone()})
        }
        _ => return None,
    })
}

/// Envelopes as a JSONL batch (one line each), as `ingest_jsonl` reads a
/// recording or a server's event log.
pub fn jsonl(envelopes: &[Value]) -> String {
    envelopes
        .iter()
        .map(json::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every turn's envelopes of a reference run (an `agent-runs.json` case), in
/// dispatch order.
pub fn case_envelopes(case: &Value) -> Vec<Value> {
    case["expected"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|turn| turn["envelopes"].as_array().cloned().unwrap_or_default())
        .map(|item| item.get("envelope").cloned().unwrap_or(item))
        .collect()
}

/// The session of every turn of the corpus run named `name`.
pub fn corpus_session(corpus: Corpus, name: &str) -> Session {
    let case = vectors_of(corpus, "agent-runs.json")
        .into_iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no run named {name}"));
    session_of(&case_envelopes(&case))
}

fn kind_of(e: &Value) -> &str {
    e["type"].as_str().unwrap_or_default()
}

/// Reorders `events` as the wire may: within each step's segment (from one
/// `agent.step.started` to the next) in any order, except that a step's
/// tool events stay behind its start or completion (v1.22 tool events carry
/// no step number, so arrival is all that places them); status and
/// continuation events anywhere. `next(n)` picks a number below `n` for
/// every choice.
pub fn shuffle_within_steps(events: &[Value], mut next: impl FnMut(usize) -> usize) -> Vec<Value> {
    let mut segments: Vec<Vec<Value>> = vec![vec![]];
    let mut floating = vec![];
    for e in events {
        match kind_of(e) {
            "agent.step.started" => segments.push(vec![e.clone()]),
            "agent.status" | "agent.continuation" => floating.push(e.clone()),
            _ => segments.last_mut().unwrap().push(e.clone()),
        }
    }
    let mut out = vec![];
    for mut seg in segments {
        for i in (1..seg.len()).rev() {
            seg.swap(i, next(i + 1));
        }
        let first_tool = seg
            .iter()
            .position(|e| kind_of(e).starts_with("agent.tool."));
        let anchor = seg
            .iter()
            .position(|e| matches!(kind_of(e), "agent.step.started" | "agent.step.completed"));
        if let (Some(t), Some(a)) = (first_tool, anchor) {
            if a > t {
                let anchor = seg.remove(a);
                seg.insert(t, anchor);
            }
        }
        out.extend(seg);
    }
    for e in floating {
        let at = next(out.len() + 1);
        out.insert(at, e);
    }
    out
}

/// A small deterministic generator for shuffles (xorshift; the seed must not be 0).
pub struct Rng(pub u64);
impl Rng {
    /// A number below `n`.
    pub fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
    /// Fisher–Yates over `v`.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.next(i + 1));
        }
    }
}

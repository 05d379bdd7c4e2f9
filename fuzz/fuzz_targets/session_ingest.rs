#![no_main]
//! Arbitrary envelope sequences into a `Session`: structured envelopes of
//! every known type (and unknown ones), in both dialects, with random fields,
//! step numbers, chunk indexes, sessions, executions and timestamps; raw text
//! lines; JSONL batches; redeliveries; patches; reconciliations. The input is
//! turned into a script (JSON) and run by `stepline_fuzz::checks::session_script`.
//!
//! `STEPLINE_FUZZ_SCRIPT=path` writes the script of the input being run to
//! `path`: that file is what `fuzz/regressions/session_ingest/` keeps.

use std::sync::OnceLock;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use stepline::json::{Map, Value};
use stepline::envelope::schema::KNOWN_TYPES;

/// Every payload field name and alias the schema knows, and a few it does not.
const FIELDS: &[&str] = &[
    "status",
    "previous_status",
    "step_count",
    "error_message",
    "last_response",
    "step_number",
    "step_index",
    "message_count",
    "available_tools",
    "step_id",
    "has_tool_calls",
    "errors",
    "finish_reason",
    "usage",
    "duration_ms",
    "continuation",
    "step",
    "tool_name",
    "tool",
    "tool_call_id",
    "args_summary",
    "args",
    "tool_call",
    "success",
    "error",
    "result_summary",
    "tool_result",
    "content",
    "chunk",
    "is_complete",
    "chunk_index",
    "tokens_delta",
    "should_continue",
    "stop_reason",
    "resolved_by",
    "evaluations",
    "text_delta",
    "llm_delta",
    "final_answer",
    "extra",
    "truncated",
    "__proto__",
];

const STATUSES: &[&str] = &[
    "idle",
    "processing",
    "completed",
    "failed",
    "cancelled",
    "stopped",
    "weird",
];

#[derive(Arbitrary, Debug)]
enum Val {
    /// A value of the field's own kind, chosen by the seed.
    Natural(u16),
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    Null,
    List(Vec<Val>),
    Object(Vec<(u8, Val)>),
}

#[derive(Arbitrary, Debug)]
enum Sess {
    Same,
    Other(u8),
    Missing,
    Null,
    Number,
}

#[derive(Arbitrary, Debug)]
enum Stamp {
    Valid(u16),
    Missing,
    Raw(String),
}

#[derive(Arbitrary, Debug)]
struct Env {
    kind: u8,
    unknown_kind: Option<String>,
    native: bool,
    session: Sess,
    execution: Option<u8>,
    timestamp: Stamp,
    fields: Vec<(u8, Val)>,
    top_extra: Option<(String, Val)>,
}

#[derive(Arbitrary, Debug)]
enum Line {
    Env(Env),
    Raw(String),
    Blank,
}

#[derive(Arbitrary, Debug)]
enum Snap {
    Recorded(u8),
    Built {
        status: u8,
        step_count: u8,
        steps: Vec<(u8, bool, Vec<u8>)>,
        text: Option<String>,
    },
    Any(Val),
}

/// A change to a recorded run's envelope list.
#[derive(Arbitrary, Debug)]
enum Edit {
    Swap(u8, u8),
    Drop(u8),
    Dup(u8, u8),
    Set(u8, u8, Val),
    Foreign(u8),
}

#[derive(Arbitrary, Debug)]
enum Op {
    /// A turn of one of the reference's recorded runs, edited.
    Recorded {
        run: u8,
        edits: Vec<Edit>,
    },
    Value(Env),
    Text(Env),
    Raw(String),
    Jsonl(Vec<Line>),
    Redeliver(u8),
    Patch,
    Reconcile(Snap),
}

#[derive(Arbitrary, Debug)]
struct Input {
    fixed_session: bool,
    ops: Vec<Op>,
}

fn natural(field: &str, seed: u16) -> Value {
    let n = u64::from(seed);
    let pick = |list: &[&str]| Value::from(list[seed as usize % list.len()]);
    match field {
        "step_number" | "step_index" | "step_count" => Value::from(n % 6),
        "chunk_index" => Value::from(n % 8),
        "message_count" | "errors" | "tokens_delta" => Value::from(n % 3),
        "available_tools" if seed.is_multiple_of(2) => Value::from(n % 4),
        "available_tools" => Value::Array(vec![Value::from("search"), Value::from("fetch")]),
        "status" | "previous_status" => pick(STATUSES),
        "tool_name" | "tool" => pick(&["search", "fetch", "ünï", ""]),
        "tool_call_id" | "step_id" => Value::from(format!("id{}", seed % 4)),
        "has_tool_calls" | "success" | "is_complete" | "should_continue" | "truncated" => {
            Value::Bool(seed.is_multiple_of(2))
        }
        "finish_reason" => pick(&["stop", "tool_calls", "length", "error"]),
        "stop_reason" => pick(&["completed", "steps_limit", "error", ""]),
        "usage" if seed.is_multiple_of(3) => {
            stepline::json!({"prompt": n % 50, "completion": n % 7})
        }
        "usage" => stepline::json!({"input": n % 100, "output": n % 13, "cacheRead": n % 5}),
        "duration_ms" if seed.is_multiple_of(2) => Value::from(n * 7),
        "duration_ms" => Value::from(f64::from(seed) / 3.0),
        "evaluations" => stepline::json!([
            {"criterion": "StepsLimit", "decision": pick(&["allow_continuation", "forbid_continuation"]), "reason": "r"}
        ]),
        "continuation" => {
            stepline::json!({"should_continue": seed.is_multiple_of(2), "stop_reason": "completed"})
        }
        "step" => stepline::json!({
            "step_id": format!("id{}", seed % 4),
            "llm_response": {"text": "answer", "finish_reason": "stop",
                             "usage": {"prompt_tokens": n % 9, "completion_tokens": 2},
                             "tool_calls": if seed.is_multiple_of(2) { vec![stepline::json!({"id": "c1", "name": "search"})] } else { vec![] }}
        }),
        "tool_call" => {
            stepline::json!({"id": format!("c{}", seed % 3), "name": "search", "arguments": {"q": "x"}})
        }
        "tool_result" => {
            stepline::json!({"output": "out", "error": if seed.is_multiple_of(2) { Value::Null } else { Value::from("boom") }})
        }
        "args" => stepline::json!({"query": "x".repeat(seed as usize % 40)}),
        "content" | "chunk" | "text_delta" | "llm_delta" => {
            pick(&["Hel", "lo ", "wörld", "🚀", "", "\u{2028}", "a\nb"])
        }
        _ => Value::from(format!("v{}", seed % 5)),
    }
}

/// Any finite float (non-finite ones are not JSON). Every float must read back
/// from JSON text exactly; serde_json without `float_roundtrip`, the parser
/// then, read about 1 in 8 back 1 ULP off (fuzz/README.md, finding 5).
fn float(f: f64) -> Value {
    stepline::json::Number::from_f64(f).map_or(Value::Null, Value::Number)
}

fn value(field: &str, v: &Val, depth: usize) -> Value {
    match v {
        Val::Natural(seed) => natural(field, *seed),
        Val::Int(n) => Value::from(*n),
        Val::Float(f) => float(*f),
        Val::Str(s) => Value::from(s.as_str()),
        Val::Bool(b) => Value::Bool(*b),
        Val::Null => Value::Null,
        Val::List(items) if depth < 8 => Value::Array(
            items
                .iter()
                .take(8)
                .map(|x| value(field, x, depth + 1))
                .collect(),
        ),
        Val::Object(pairs) if depth < 8 => {
            let mut m = Map::new();
            for (k, x) in pairs.iter().take(8) {
                let name = FIELDS[*k as usize % FIELDS.len()];
                m.insert(name, value(name, x, depth + 1));
            }
            Value::Object(m)
        }
        _ => Value::Null,
    }
}

fn envelope(e: &Env, fixed: Option<&str>) -> Value {
    let kind = match &e.unknown_kind {
        Some(k) if e.kind >= 240 => k.clone(),
        _ => KNOWN_TYPES[e.kind as usize % KNOWN_TYPES.len()].to_string(),
    };
    let mut payload = Map::new();
    for (k, v) in e.fields.iter().take(12) {
        let name = FIELDS[*k as usize % FIELDS.len()];
        payload.insert(name, value(name, v, 0));
    }
    let mut m = Map::new();
    m.insert(
        if e.native { "event_type" } else { "type" },
        Value::from(kind),
    );
    let own = fixed.unwrap_or("sess-e2e");
    match &e.session {
        Sess::Same => {
            m.insert("session_id", Value::from(own));
        }
        Sess::Other(n) => {
            m.insert("session_id", Value::from(format!("s{}", n % 3)));
        }
        Sess::Missing => {}
        Sess::Null => {
            m.insert("session_id", Value::Null);
        }
        Sess::Number => {
            m.insert("session_id", Value::from(1));
        }
    }
    if let Some(x) = e.execution {
        m.insert(
            "execution_id",
            Value::from(format!("exec-{}", x % 3 + 1)),
        );
    }
    match &e.timestamp {
        Stamp::Valid(n) => {
            m.insert(
                "timestamp",
                Value::from(format!(
                    "2026-01-20T12:{:02}:{:02}.{:03}Z",
                    n % 60,
                    n / 60 % 60,
                    n % 1000
                )),
            );
        }
        Stamp::Missing => {}
        Stamp::Raw(s) => {
            m.insert("timestamp", Value::from(s.as_str()));
        }
    }
    if e.native {
        for (k, v) in payload {
            m.entry(k).or_insert(v);
        }
    } else {
        m.insert("payload", Value::Object(payload));
    }
    if let Some((k, v)) = &e.top_extra {
        m.entry(k.clone()).or_insert_with(|| value(k, v, 0));
    }
    Value::Object(m)
}

/// The reference's recorded runs: every turn's envelopes, and the final slim
/// snapshots (`slim`, `slimFull`) of every turn.
struct Runs {
    turns: Vec<Vec<Value>>,
    slims: Vec<Value>,
}

fn runs() -> &'static Runs {
    static RUNS: OnceLock<Runs> = OnceLock::new();
    RUNS.get_or_init(|| {
        let runs: Value = stepline::json::from_str(include_str!(
            "../../tests/vectors/cognesy-v1.22/agent-runs.json"
        ))
        .expect("agent-runs.json");
        let mut out = Runs {
            turns: Vec::new(),
            slims: Vec::new(),
        };
        for run in runs.as_array().into_iter().flatten() {
            for turn in run["expected"].as_array().into_iter().flatten() {
                out.turns.push(
                    turn["envelopes"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|e| e["envelope"].clone())
                        .collect(),
                );
                out.slims.push(turn["slim"].clone());
                out.slims.push(turn["slimFull"].clone());
            }
        }
        out
    })
}

fn recorded(run: u8, edits: &[Edit]) -> Vec<Value> {
    let all = &runs().turns;
    let mut list = all[run as usize % all.len()].clone();
    for edit in edits.iter().take(16) {
        if list.is_empty() {
            break;
        }
        let at = |i: &u8| *i as usize % list.len();
        match edit {
            Edit::Swap(a, b) => {
                let (a, b) = (at(a), at(b));
                list.swap(a, b);
            }
            Edit::Drop(a) => {
                let a = at(a);
                list.remove(a);
            }
            Edit::Dup(a, b) => {
                let (a, b) = (at(a), at(b));
                let e = list[a].clone();
                list.insert(b, e);
            }
            Edit::Set(a, k, v) => {
                let a = at(a);
                let name = FIELDS[*k as usize % FIELDS.len()];
                let v = value(name, v, 0);
                if let Some(p) = list[a].get_mut("payload").and_then(Value::as_object_mut) {
                    p.insert(name, v);
                }
            }
            Edit::Foreign(a) => {
                let a = at(a);
                if let Some(env) = list[a].as_object_mut() {
                    env.insert("session_id", Value::from("someone-else"));
                }
            }
        }
    }
    list
}

fn snapshot(s: &Snap) -> Value {
    match s {
        Snap::Recorded(n) => {
            let all = &runs().slims;
            all[*n as usize % all.len()].clone()
        }
        Snap::Built {
            status,
            step_count,
            steps,
            text,
        } => {
            let steps: Vec<Value> = steps
                .iter()
                .take(8)
                .enumerate()
                .map(|(i, (fr, tools, names))| {
                    stepline::json!({
                        "step_number": i + 1,
                        "type": if *tools { "tool_execution" } else { "final_response" },
                        "has_tool_calls": tools,
                        "finish_reason": (["stop", "tool_calls", "length"])[*fr as usize % 3],
                        "errors": 0,
                        "usage": {"total": 3},
                        "tool_calls": names.iter().take(4).map(|n| stepline::json!({"id": format!("c{n}"), "name": (["search", "fetch"])[*n as usize % 2]})).collect::<Vec<_>>(),
                    })
                })
                .collect();
            let messages = match text {
                Some(t) => {
                    stepline::json!([{"role": "assistant", "content": t, "_metadata": []}])
                }
                None => stepline::json!([]),
            };
            stepline::json!({
                "agent_id": "a", "parent_agent_id": null,
                "status": (["in_progress", "completed", "failed"])[*status as usize % 3],
                "step_count": step_count, "usage": {"input": 1, "output": 2, "cacheWrite": 0, "cacheRead": 0, "reasoning": 0},
                "execution": {"started_at": "2026-01-20T12:00:00+00:00", "updated_at": "2026-01-20T12:00:00+00:00", "cumulative_seconds": 1.5},
                "messages": messages, "steps": steps, "last_continuation": null, "metadata": []
            })
        }
        Snap::Any(v) => value("", v, 0),
    }
}

fn script(input: &Input) -> Value {
    // The recorded runs' session.
    let fixed = input.fixed_session.then_some("sess-e2e");
    let mut ops: Vec<Value> = Vec::new();
    for op in input.ops.iter().take(64) {
        if let Op::Recorded { run, edits } = op {
            for e in recorded(*run, edits) {
                ops.push(stepline::json!({ "value": e }));
            }
            continue;
        }
        ops.push(match op {
            Op::Recorded { .. } => unreachable!(),
            Op::Value(e) => stepline::json!({"value": envelope(e, fixed)}),
            Op::Text(e) => stepline::json!({"text": envelope(e, fixed).to_string()}),
            Op::Raw(s) => stepline::json!({"text": s}),
            Op::Jsonl(lines) => {
                let text: Vec<String> = lines
                    .iter()
                    .take(16)
                    .map(|l| match l {
                        Line::Env(e) => envelope(e, fixed).to_string(),
                        Line::Raw(s) => s.clone(),
                        Line::Blank => String::new(),
                    })
                    .collect();
                stepline::json!({"jsonl": text.join("\n")})
            }
            Op::Redeliver(n) => stepline::json!({"redeliver": n}),
            Op::Patch => stepline::json!({"patch": true}),
            Op::Reconcile(s) => stepline::json!({"reconcile": snapshot(s)}),
        });
    }
    stepline::json!({"session_id": fixed, "ops": ops})
}

fuzz_target!(|input: Input| {
    // Through text once, exactly as the seed files are read back.
    let script: Value = stepline::json::from_str(&script(&input).to_string()).unwrap_or(Value::Null);
    if let Ok(path) = std::env::var("STEPLINE_FUZZ_SCRIPT") {
        let _ = std::fs::write(
            path,
            stepline::json::to_string(&script),
        );
    }
    stepline_fuzz::checks::session_script(&script);
});

//! Turns that share one execution id (the v1.22 adapter keeps one id for
//! every turn it broadcasts): which delivery orders converge to the
//! in-order view. Nothing on the v1.22 wire names the turn an envelope
//! belongs to (no turn number; `agent.step.completed` of turn 2's step 1
//! looks like turn 1's but for its usage; on the reference's frozen clock
//! every timestamp ties), so a session places an envelope in the turn open
//! when it arrives. docs/web/rendering-steps.md states the orders that converge;
//! these tests pin exactly that sentence on the corpus' multi-turn run
//! (`two turns on one adapter (multi-turn)`).

#![cfg(not(target_arch = "wasm32"))]

use stepline::json::Value;
use stepline::session::Session;

mod common;
use common::{jsonl, session_of, shuffle_within_steps, vectors, view_of, Rng};

const MULTI_TURN: &str = "two turns on one adapter (multi-turn)";

fn kind(e: &Value) -> &str {
    e["type"].as_str().unwrap_or_default()
}

/// The multi-turn run's envelopes, one list per turn, in dispatch order.
fn turns() -> Vec<Vec<Value>> {
    let case = vectors("agent-runs.json")
        .into_iter()
        .find(|c| {
            c["name"]
                .as_str()
                .unwrap_or_default()
                .starts_with(MULTI_TURN)
        })
        .expect("the corpus' multi-turn run");
    case["expected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            t["envelopes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["envelope"].clone())
                .collect()
        })
        .collect()
}

fn batch_of(envelopes: &[Value]) -> Session {
    let mut s = Session::new(None);
    let out = s.ingest_jsonl(&jsonl(envelopes));
    assert_eq!(out.errors.len(), 0, "{:?}", out.errors);
    s
}

/// One turn reordered as the docs' within-turn rules allow
/// ([`shuffle_within_steps`]: status and continuation events anywhere in the turn).
fn shuffle_within_turn(turn: &[Value], rng: &mut Rng) -> Vec<Value> {
    shuffle_within_steps(turn, |n| rng.next(n))
}

/// The turn's opening `processing` status (the one whose `previous_status`
/// is terminal, or `idle` for the first turn).
fn is_opening(e: &Value) -> bool {
    kind(e) == "agent.status" && e["payload"]["status"] == "processing"
}

#[test]
fn multi_turn_runs_shuffled_within_turns_in_turn_order_converge_batch_and_one_by_one() {
    let turns = turns();
    assert_eq!(turns.len(), 2);
    let all: Vec<Value> = turns.concat();
    let clean = session_of(&all);
    assert_eq!(clean.view()["executions"].as_array().unwrap().len(), 2);
    let mut rng = Rng(0x5eed_0028);
    for round in 0..20 {
        let mut events = vec![];
        for (t, turn) in turns.iter().enumerate() {
            let mut shuffled = shuffle_within_turn(turn, &mut rng);
            if t > 0 {
                // A later turn opens with its `processing` status.
                let at = shuffled.iter().position(is_opening).unwrap();
                let opening = shuffled.remove(at);
                shuffled.insert(0, opening);
            }
            events.extend(shuffled);
        }
        assert_eq!(
            view_of(&session_of(&events)),
            view_of(&clean),
            "round {round}"
        );
        assert_eq!(
            view_of(&batch_of(&events)),
            view_of(&clean),
            "round {round}"
        );
    }
}

/// The docs' caveat: a shuffle across the turns of one execution id
/// (here the whole run, event by event and as one batch) does not converge,
/// because no envelope names its turn (the information is absent, not
/// ignored). Ten seeded whole-run shuffles: each one differs.
#[test]
fn multi_turn_runs_shuffled_across_turns_do_not_converge_and_the_readme_says_so() {
    let all: Vec<Value> = turns().concat();
    let clean = view_of(&session_of(&all));
    let mut rng = Rng(7);
    let mut differ = (0, 0);
    for _ in 0..10 {
        let mut events = all.clone();
        rng.shuffle(&mut events);
        differ.0 += usize::from(view_of(&session_of(&events)) != clean);
        differ.1 += usize::from(view_of(&batch_of(&events)) != clean);
    }
    assert_eq!(differ, (10, 10));
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/web/rendering-steps.md"
    ))
    .unwrap();
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        readme.contains("turns sharing an execution id converge when delivered turn by turn"),
        "the ordering sentence of docs/web/rendering-steps.md states which orders converge"
    );
}

/// The same on a real clock (every envelope a millisecond after the one
/// before): timestamps could order the turns, but a session tells turns
/// apart by arrival alone, as the docs say; ten seeded whole-run shuffles,
/// each differs.
#[test]
fn multi_turn_runs_on_a_real_clock_shuffled_across_turns_do_not_converge_either() {
    let mut all: Vec<Value> = turns().concat();
    for (i, e) in all.iter_mut().enumerate() {
        *e.get_mut("timestamp").unwrap() =
            Value::from(format!("2026-01-20T12:00:00.{:03}Z", 100 + i));
    }
    let clean = view_of(&session_of(&all));
    assert_eq!(clean["executions"].as_array().unwrap().len(), 2);
    let mut rng = Rng(7);
    let mut differ = 0;
    for _ in 0..10 {
        let mut events = all.clone();
        rng.shuffle(&mut events);
        differ += usize::from(view_of(&session_of(&events)) != clean);
    }
    assert_eq!(differ, 10);
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/web/rendering-steps.md"
    ))
    .unwrap();
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(readme.contains("does not converge, on a frozen or a real clock"));
}

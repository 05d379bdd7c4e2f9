//! Cost: usage priced as instructor-php v2.7's FlatRateCostCalculator does,
//! on the reference's own runs; prices read from v2 states' llmConfig.pricing.

use stepline::cost::prices::{price_table, prices_from_state};
use stepline::cost::run_cost;
use stepline::json::{from_str, Value};

mod common;
use common::{case_envelopes, session_of, v2_final_states, vectors};

const TOOL_RUN: &str = "tool call then final answer [debug]";

fn case(name: &str) -> Value {
    vectors("agent-runs.json")
        .into_iter()
        .find(|c| c["name"].as_str() == Some(name))
        .unwrap()
}

/// Every envelope of every turn of `name` (steps use 120/30 and 150/12 tokens).
fn envelopes(name: &str) -> Vec<Value> {
    case_envelopes(&case(name))
}

fn table(text: &str) -> stepline::cost::prices::PriceTable {
    price_table(&from_str(text).unwrap(), "/prices").unwrap()
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-12)
}

#[test]
fn each_step_and_the_run_are_priced_per_million_tokens() {
    let s = session_of(&envelopes(TOOL_RUN));
    let c = run_cost(
        s.executions(),
        &table(r#"{"gpt-4o": {"input": 2.5, "output": 10}}"#),
        None,
    );
    assert_eq!(c.model.as_deref(), Some("gpt-4o"));
    let steps = &c.executions[0].steps;
    // 120 × 2.5 + 30 × 10 per million; then 150 × 2.5 + 12 × 10.
    assert!(close(steps[0].cost, 0.0006), "{:?}", steps[0]);
    assert!(close(steps[1].cost, 0.000495), "{:?}", steps[1]);
    let b = steps[0].breakdown.unwrap();
    assert!(close(Some(b.input), 0.0003) && close(Some(b.output), 0.0003));
    assert!(close(c.executions[0].cost, 0.001095));
    assert!(close(c.cost, 0.001095));
    assert_eq!(c.currency, "USD");
    assert_eq!(c.reason, None);
}

#[test]
fn cache_and_reasoning_default_to_the_input_price_unless_set() {
    let mut env = envelopes(TOOL_RUN);
    let done = env
        .iter_mut()
        .find(|e| e["type"].as_str() == Some("agent.step.completed"))
        .unwrap();
    let usage = done
        .pointer_mut("/payload/usage")
        .unwrap()
        .as_object_mut()
        .unwrap();
    usage.insert("cacheRead", Value::from(1000));
    usage.insert("reasoning", Value::from(2000));
    let s = session_of(&env);
    let default = run_cost(
        s.executions(),
        &table(r#"{"m": {"input": 2, "output": 10}}"#),
        None,
    );
    let b = default.executions[0].steps[0].breakdown.unwrap();
    assert!(
        close(Some(b.cache_read), 0.002) && close(Some(b.reasoning), 0.004),
        "{b:?}"
    );
    let set = run_cost(
        s.executions(),
        &table(r#"{"m": {"inputPerMToken": 2, "output": 10, "cacheRead": 0.5, "reasoning": "8"}}"#),
        None,
    );
    let b = set.executions[0].steps[0].breakdown.unwrap();
    assert!(
        close(Some(b.cache_read), 0.0005) && close(Some(b.reasoning), 0.016),
        "{b:?}"
    );
}

#[test]
fn no_applicable_price_is_null_with_a_reason_never_zero() {
    let s = session_of(&envelopes(TOOL_RUN));
    let two = table(r#"{"a": {"input": 1, "output": 1}, "b": {"input": 2, "output": 2}}"#);
    let unknown = run_cost(s.executions(), &two, Some("claude"));
    assert_eq!(unknown.cost, None);
    assert_eq!(unknown.reason.as_deref(), Some("no price for model claude"));
    let step = &unknown.executions[0].steps[0];
    assert_eq!((step.cost, step.breakdown), (None, None));
    assert!(run_cost(s.executions(), &two, None)
        .reason
        .unwrap()
        .contains("model"));
    let empty = run_cost(s.executions(), &table("[]"), None);
    assert_eq!(empty.reason.as_deref(), Some("the price table is empty"));
}

#[test]
fn a_bad_price_is_an_error_at_its_path() {
    let e = price_table(&from_str(r#"{"a/b": {"input": -1}}"#).unwrap(), "/prices").unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.path.as_deref().unwrap()),
        ("out_of_range", "/prices/a~1b/input")
    );
    let e = price_table(
        &from_str(r#"{"m": {"output": "lots"}}"#).unwrap(),
        "/prices",
    )
    .unwrap_err();
    assert_eq!(e.path.as_deref().unwrap(), "/prices/m/output");
}

#[test]
fn the_v2_vectors_store_no_pricing_and_say_so() {
    let states = v2_final_states();
    assert!(!states.is_empty());
    for (name, state, _) in states {
        let p = prices_from_state(&state).unwrap();
        assert!(p.prices.is_empty(), "{name}");
        let reason = p.reason.unwrap();
        // A run whose driver threw stores no llmConfig at all.
        match p.model.as_deref() {
            Some(m) => assert!(
                reason.contains(&format!("no prices were configured for {m}")),
                "{name}"
            ),
            None => assert_eq!(reason, "the state stores no llmConfig", "{name}"),
        }
    }
}

#[test]
fn a_priced_v2_state_gives_its_models_price_table() {
    let (_, mut state, _) = v2_final_states().remove(0);
    let priced = from_str(r#"{"input": 3, "output": 15, "cacheWrite": 3.75}"#).unwrap();
    state
        .pointer_mut("/llmConfig")
        .unwrap()
        .as_object_mut()
        .unwrap()
        .insert("pricing", priced);
    let p = prices_from_state(&state).unwrap();
    assert_eq!(p.reason, None);
    let m = p.prices.get("fake-model").unwrap();
    assert_eq!(
        (m.input, m.output, m.cache_write, m.cache_read),
        (3.0, 15.0, 3.75, 3.0)
    );
    // Priced onto a recorded stream, the state's one model is the default.
    let s = session_of(&envelopes(TOOL_RUN));
    let c = run_cost(s.executions(), &p.prices, None);
    assert_eq!(c.model.as_deref(), Some("fake-model"));
    assert!(close(c.cost, (270.0 * 3.0 + 42.0 * 15.0) / 1e6));
}

#[test]
fn a_v1_22_state_is_an_error_not_an_empty_table() {
    let state = case(TOOL_RUN)["expected"][0]["finalState"].clone();
    let e = prices_from_state(&state).unwrap_err();
    assert_eq!(e.code.as_str(), "unknown_state_version");
    assert!(e.message.contains("v1.22"));
}

//! Every streamed continuation gets one sentence saying why the loop went on
//! or stopped (`StepView.explanation`), built by the core so the panel shows
//! it as is. Pinned over the runs of both reference corpora.

use std::collections::BTreeSet;

use stepline::json::Value;
use stepline::session::Session;

mod common;
use common::{vectors_of, Corpus};

/// `(run name, step number, explanation)` of every step with a continuation
/// in the corpus' runs (each turn of each run replayed into its own session).
fn explanations(corpus: Corpus) -> Vec<(String, i64, String)> {
    let mut out = Vec::new();
    for case in vectors_of(corpus, "agent-runs.json") {
        let name = case["name"].as_str().unwrap().to_string();
        for turn in case["expected"].as_array().unwrap() {
            let mut s = Session::new(None);
            for b in turn["envelopes"].as_array().unwrap() {
                let e = if b.get("envelope").is_some() {
                    &b["envelope"]
                } else {
                    b
                };
                s.ingest_value(e).unwrap();
            }
            for exec in s.view()["executions"].as_array().unwrap() {
                for step in exec["steps"].as_array().unwrap() {
                    if step["continuation"].is_null() {
                        assert_eq!(
                            step["explanation"],
                            Value::Null,
                            "{name}: a step without a continuation has no explanation"
                        );
                        continue;
                    }
                    let why = step["explanation"].as_str().unwrap_or_else(|| {
                        panic!("{name}: no explanation for {}", step["continuation"])
                    });
                    out.push((
                        name.clone(),
                        step["number"].as_i64().unwrap(),
                        why.to_string(),
                    ));
                }
            }
        }
    }
    out
}

/// The distinct sentences of a corpus.
fn sentences(corpus: Corpus) -> BTreeSet<String> {
    explanations(corpus)
        .into_iter()
        .map(|(_, _, why)| why)
        .collect()
}

/// The sentence of step `number` of the run named `run`.
fn of(corpus: Corpus, run: &str, number: i64) -> String {
    explanations(corpus)
        .into_iter()
        .find(|(name, n, _)| name == run && *n == number)
        .unwrap_or_else(|| panic!("{run}: no step {number} with a continuation"))
        .2
}

#[test]
fn v1_22_continuations_say_which_criterion_decided_and_why() {
    let all = sentences(Corpus::V1_22);
    let expected = [
        "Stopped (completed): nothing requested another step, so the run ended.",
        "Stopped (error) by ErrorPolicyCriterion: Tool error after 1 consecutive failures (max: 0).",
        "Went on: ToolCallPresenceCheck requested another step: Tool calls present, requesting continuation.",
    ];
    assert_eq!(all, expected.iter().map(|s| s.to_string()).collect());
    assert_eq!(
        of(Corpus::V1_22, "tool call then final answer [debug]", 1),
        expected[2]
    );
    assert_eq!(
        of(Corpus::V1_22, "tool call then final answer [debug]", 2),
        expected[0]
    );
}

#[test]
fn v2_7_continuations_name_the_stop_signal_or_say_there_was_none() {
    let all = sentences(Corpus::V2_7);
    for s in [
        "Stopped (completed): no stop signal and nothing more to do, so the run ended.",
        "Went on: no stop signal, so the loop took another step.",
        "Stopped (steps_limit) by StepsLimitHook.",
        "Stopped (token_limit) by TokenUsageLimitHook.",
        "Stopped (time_limit) by ExecutionTimeLimitHook.",
        "Stopped (finish_reason) by FinishReasonHook.",
        "Stopped (stop_requested) by tool:halt.",
        "Stopped (user_requested) by InMemoryCancellationSource.",
    ] {
        assert!(all.contains(s), "missing: {s}");
    }
    assert_eq!(all.len(), 8, "{all:?}");
    assert_eq!(
        of(
            Corpus::V2_7,
            "steps limit 2 reached (model always calls tools) [debug]",
            2
        ),
        "Stopped (steps_limit) by StepsLimitHook."
    );
}

#[test]
fn a_decider_without_a_stop_reason_or_trace_entry_still_reads() {
    use stepline::model::continuation::explain::streamed_explanation;
    let c = stepline::json!({"should_continue": false, "resolved_by": "A\\B", "evaluations": []});
    assert_eq!(
        streamed_explanation(&c).as_deref(),
        Some("Stopped (unknown) by B.")
    );
    let agg = stepline::json!({"should_continue": false, "resolved_by": "aggregate", "stop_reason": null});
    assert_eq!(
        streamed_explanation(&agg).as_deref(),
        Some("Stopped (completed): nothing requested another step, so the run ended.")
    );
    assert_eq!(streamed_explanation(&Value::from("x")), None);
}

//! Comparing two runs: steps paired by number, usage deltas, and the first
//! step where they diverge, on the reference's own runs.

use stepline::json::Value;
use stepline::session::compare::compare_runs;

mod common;
use common::{case_envelopes, session_of, vectors};

/// The envelopes of every turn of the reference run named `name`.
fn envelopes(name: &str) -> Vec<Value> {
    let case = vectors("agent-runs.json")
        .into_iter()
        .find(|c| c["name"].as_str() == Some(name))
        .unwrap();
    case_envelopes(&case)
}

const TOOL_RUN: &str = "tool call then final answer [debug]";

#[test]
fn a_run_against_itself_does_not_diverge() {
    let s = session_of(&envelopes(TOOL_RUN));
    let c = compare_runs(s.executions(), s.executions());
    assert_eq!(c.divergence, None);
    assert!(c.steps.len() >= 2);
    assert!(c
        .steps
        .iter()
        .all(|p| p.differs.is_empty() && p.usage_delta == Some(0)));
    assert_eq!(c.totals.usage_delta, 0);
    assert!(c.totals.usage_a > 0);
}

#[test]
fn different_runs_diverge_at_the_first_differing_step() {
    let a = session_of(&envelopes(TOOL_RUN));
    let b = session_of(&envelopes("direct final answer (1 step) [default]"));
    let c = compare_runs(a.executions(), b.executions());
    let d = c.divergence.unwrap();
    assert_eq!((d.execution, d.step), (0, 1));
    assert!(d.differs.contains(&"tools".to_string()), "{:?}", d.differs);
    // The tool run has a second step the direct answer does not.
    let second = c.steps.iter().find(|p| p.step == 2).unwrap();
    assert!(second.a.is_some() && second.b.is_none());
    assert_eq!(second.differs, vec!["missing".to_string()]);
    assert_eq!(c.totals.usage_delta, c.totals.usage_b - c.totals.usage_a);
}

#[test]
fn a_copy_with_one_tool_failing_diverges_at_that_tools_step() {
    let good = envelopes(TOOL_RUN);
    let mut bad = good.clone();
    let completed = bad
        .iter_mut()
        .find(|e| e["type"].as_str() == Some("agent.tool.completed"))
        .unwrap();
    let payload = completed
        .pointer_mut("/payload")
        .unwrap()
        .as_object_mut()
        .unwrap();
    payload.insert("success", Value::Bool(false));
    payload.insert("error", Value::String("boom".into()));
    let (a, b) = (session_of(&good), session_of(&bad));
    let c = compare_runs(a.executions(), b.executions());
    let d = c.divergence.unwrap();
    assert_eq!(d.step, 1);
    assert!(d.differs.contains(&"tools".to_string()), "{:?}", d.differs);
    let first = &c.steps[0];
    assert!(first
        .a
        .as_ref()
        .unwrap()
        .tools
        .iter()
        .all(|t| t.ends_with(":succeeded")));
    assert!(first
        .b
        .as_ref()
        .unwrap()
        .tools
        .iter()
        .any(|t| t.ends_with(":failed")));
}

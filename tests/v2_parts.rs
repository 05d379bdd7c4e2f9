//! Derived values on every part of a v2 state, as the producer's part classes
//! give them (instructor-php v2.7.0, `packages/agents/src/Data/`), in the view
//! `parseAgentState` returns: the execution's usage (recorded steps plus the
//! current one) with its total, each step's type, finish reason and usage
//! with its total; `lastStepType` from completed steps only; empty dates as
//! the producer reads them.

use stepline::json::Value;
use stepline::model::v2::{view::view, AgentState};

mod common;
use common::{case_starting, Corpus::V2_7};

/// The corpus's two-step state with its second step still in progress: the
/// final-answer step moved to `currentStep`, the execution running, and
/// both of its optional dates stored as empty strings.
fn in_progress() -> Value {
    let mut state = case_starting(
        V2_7,
        "state-model.json",
        "edge two steps, tool step then final",
    )["input"]["state"]
        .clone();
    let exec = state.get_mut("execution").unwrap().as_object_mut().unwrap();
    let steps = exec
        .get_mut("stepExecutions")
        .unwrap()
        .as_array_mut()
        .unwrap();
    let second = steps.pop().unwrap();
    exec.insert("currentStep", second["step"].clone());
    exec.insert("status", Value::from("in_progress"));
    exec.insert("completedAt", Value::from(""));
    exec.insert("currentStepStartedAt", Value::from(""));
    state
}

fn view_of(state: &Value) -> Value {
    let now = V2_7.now();
    view(&AgentState::from_value(state, &now).unwrap(), &now)
}

/// `AgentState::lastStepType()` is `lastStepExecution()?->step()->stepType()`
/// (`packages/agents/src/Data/AgentState.php` lines 340-342 and 361-363 at
/// v2.7.0): the current step is not a completed one.
#[test]
fn last_step_type_comes_from_completed_steps_while_a_step_is_in_progress() {
    let v = view_of(&in_progress());
    assert_eq!(v["derived"]["lastStepType"], "tool_execution");
    let mut fresh = in_progress();
    *fresh.pointer_mut("/execution/stepExecutions").unwrap() = Value::Array(Vec::new());
    assert_eq!(view_of(&fresh)["derived"]["lastStepType"], Value::Null);
}

/// `ExecutionState::makeDateTime` returns its default for an empty string
/// (`packages/agents/src/Data/ExecutionState.php` lines 296-300 at v2.7.0):
/// `completedAt` and `currentStepStartedAt` default to null.
#[test]
fn empty_execution_dates_read_as_null_not_as_now() {
    let v = view_of(&in_progress());
    assert_eq!(v["execution"]["completedAt"], Value::Null);
    assert_eq!(v["execution"]["currentStepStartedAt"], Value::Null);
}

/// `ExecutionState::usage()` sums the recorded steps and the current one
/// (`ExecutionState.php` lines 154-158 at v2.7.0); `InferenceUsage::total()`
/// adds every count (`packages/polyglot/src/Inference/Data/InferenceUsage.php`
/// lines 57-63). Each step's usage is `inferenceResponse.usage`.
#[test]
fn the_execution_and_each_step_carry_their_usage_with_its_total() {
    let v = view_of(&in_progress());
    let exec = &v["execution"]["derived"];
    assert_eq!(exec["usage"]["total"], 36);
    assert_eq!(exec["usage"]["input"], 20);
    assert_eq!(exec["stepCount"], 2);
    assert_eq!(exec["currentStep"]["stepType"], "final_response");
    assert_eq!(exec["currentStep"]["usage"]["total"], 18);
    let step = &v["execution"]["stepExecutions"][0]["derived"];
    assert_eq!(step["stepType"], "tool_execution");
    assert_eq!(step["finishReason"], "tool_calls");
    assert_eq!(step["hasToolCalls"], true);
    assert_eq!(step["usage"]["total"], 18);
    assert_eq!(step["usage"]["reasoning"], 1);
}

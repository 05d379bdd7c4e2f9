//! Class 4 of issue 28: the producer's number kinds survive. An int the
//! producer hands on stays an int in stepline's output, a float stays a
//! float (`600` and `600.0` differ in the producer's JSON, see the v1.22
//! vectors' README on floats).

use stepline::json::{self, Number, Value};
use stepline::model::continuation::{evaluate_all, Criterion, Observation};
use stepline::model::time::parse;

fn cumulative_evaluation(seconds: Number) -> Value {
    let now = parse("2026-01-20T12:00:00Z", &chrono::DateTime::default()).unwrap();
    let mut obs = Observation::empty(now);
    obs.cumulative_seconds = seconds;
    let outcome = evaluate_all(
        &[Criterion::CumulativeExecutionTimeLimit { max_seconds: 600 }],
        &obs,
    );
    json::to_value_of(&outcome.evaluations[0])
}

/// instructor-php v1.22.0
/// `packages/addons/src/StepByStep/Continuation/Criteria/CumulativeExecutionTimeLimit.php`
/// lines 41–57: `$cumulativeSeconds = ($this->cumulativeTimeResolver)($state);`
/// goes into the context unconverted, so a resolver returning the int 600
/// gives `"cumulativeSeconds": 600` (the message's `%.1f` still writes
/// `600.0`). stepline wrote `600.0` (the observation held an f64).
#[test]
fn an_int_cumulative_seconds_stays_an_int_in_the_evaluation_context() {
    let e = cumulative_evaluation(Number::from(600u32));
    assert_eq!(
        json::to_string(&e["context"]),
        r#"{"cumulativeSeconds":600,"maxSeconds":600}"#
    );
    assert_eq!(
        e["reason"],
        "Cumulative execution time 600.0s exceeded limit 600s"
    );
    assert_eq!(e["decision"], "forbid");
}

/// The same criterion with the producer's float (a state's
/// `cumulativeExecutionSeconds`, typed `float` in v1.22.0
/// `packages/addons/src/StepByStep/State/StateInfo.php` line 14) keeps the
/// fraction mark.
#[test]
fn a_float_cumulative_seconds_stays_a_float_in_the_evaluation_context() {
    let e = cumulative_evaluation(Number::from_f64(600.0).unwrap());
    assert_eq!(
        json::to_string(&e["context"]),
        r#"{"cumulativeSeconds":600.0,"maxSeconds":600}"#
    );
}

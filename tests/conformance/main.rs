//! Conformance runner: checks every case of every vector file this build covers.
//!
//! Vectors come from `$STEPLINE_VECTORS` (one folder), else from every corpus
//! folder under `tests/vectors/`. Each folder holds one producer's output; the
//! runner tells which from the folder's name or its README's provenance
//! (`corpus.rs`) and runs that producer's handlers. It prints
//! `<producer> <file>: N passed, M failed` per file and the names of failing
//! cases, and exits non-zero when any case fails.

mod agent_runs;
#[path = "../common/mod.rs"]
mod common;
mod compare;
mod continuation;
mod corpus;
mod envelopes;
mod runner_checks;
mod slim;
mod state_model;
mod v2;

use std::path::PathBuf;
use std::process::ExitCode;

use stepline::json::Value;

/// What a case handler computes: the value, or the error the core raised.
pub type Outcome = Result<Value, stepline::SteplineError>;

/// The value of a core call inside a handler returning `Option<Outcome>`;
/// its error is the case's outcome (judged against a `throws` expectation),
/// never "no handler".
#[macro_export]
macro_rules! or_outcome {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        }
    };
}

/// How one file's cases are checked: `Some(Ok(()))` pass, `Some(Err(why))`
/// fail, `None` no handler for the case (a failure too).
type Check = fn(name: &str, case: &Value) -> Option<Result<(), String>>;

pub struct Suite {
    file: &'static str,
    check: Check,
}

/// The instructor-php v1.22 (`packages/addons`) handlers; v2.7's are in `v2/`.
const SUITES: &[Suite] = &[
    Suite {
        file: "state-model.json",
        check: |n, c| by_value(state_model::run, n, c),
    },
    Suite {
        file: "continuation.json",
        check: |n, c| by_value(continuation::run, n, c),
    },
    Suite {
        file: "slim-serializer.json",
        check: slim::check,
    },
    Suite {
        file: "envelopes.json",
        check: envelopes::check,
    },
    Suite {
        file: "agent-runs.json",
        check: agent_runs::check,
    },
];

fn main() -> ExitCode {
    let folders = match std::env::var("STEPLINE_VECTORS") {
        Ok(dir) => vec![PathBuf::from(dir)],
        Err(_) => corpus::committed_folders(),
    };
    let mut total_passed = 0;
    let mut total_failed = 0;
    for dir in &folders {
        let producer = match corpus::Producer::of_folder(dir) {
            Ok(p) => p,
            Err(why) => {
                println!("{}: {why}", dir.display());
                total_failed += 1;
                continue;
            }
        };
        if let Err(why) = corpus::same_as_shared(dir) {
            println!("{} {why}", producer.label());
            total_failed += 1;
        }
        let suites = match producer {
            corpus::Producer::V1_22 => SUITES,
            corpus::Producer::V2_7 => v2::SUITES,
        };
        for file in corpus::unchecked_files(dir, suites.iter().map(|s| s.file)) {
            println!(
                "{} {file}: not checked (no handlers for it yet)",
                producer.label()
            );
        }
        for suite in suites {
            let (passed, failed) = run_suite(producer.label(), dir, suite);
            total_passed += passed;
            total_failed += failed;
        }
    }
    let (passed, failed) = runner_checks::run();
    total_passed += passed;
    total_failed += failed;
    // Same shape as libtest's summary so scripts can add conformance to their counts.
    let status = if total_failed == 0 { "ok" } else { "FAILED" };
    println!("test result: {status}. {total_passed} passed; {total_failed} failed; 0 ignored; 0 measured; 0 filtered out");
    if total_failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Runs one file's cases; prints its line and its failures; `(passed, failed)`.
fn run_suite(label: &str, dir: &std::path::Path, suite: &Suite) -> (usize, usize) {
    let path = dir.join(suite.file);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            println!(
                "{label} {}: cannot read {}: {e}",
                suite.file,
                path.display()
            );
            return (0, 1);
        }
    };
    let cases: Vec<Value> = match stepline::json::from_str(&text) {
        Ok(Value::Array(cases)) => cases,
        _ => {
            println!("{label} {}: not a JSON array of cases", suite.file);
            return (0, 1);
        }
    };
    let mut failures = Vec::new();
    let mut passed = 0;
    for case in &cases {
        let name = case["name"].as_str().unwrap_or("<unnamed>");
        match (suite.check)(name, case).unwrap_or_else(|| Err("no handler for this case".into())) {
            Ok(()) => passed += 1,
            Err(why) => failures.push(format!("  FAIL {name}\n       {why}")),
        }
    }
    println!(
        "{label} {}: {} passed, {} failed",
        suite.file,
        passed,
        failures.len()
    );
    for f in &failures {
        println!("{f}");
    }
    (passed, failures.len())
}

/// Compares a handler's computed value with `expected`, or, when the reference
/// threw, checks that the core failed in the same situation.
fn by_value(
    run: fn(&str, &Value) -> Option<Outcome>,
    name: &str,
    case: &Value,
) -> Option<Result<(), String>> {
    let outcome = run(name, &case["input"])?;
    Some(judge(&case["expected"], outcome))
}

/// `Ok` when `outcome` is `expected`, or, when the reference threw, when the
/// core failed in the same situation.
fn judge(expected: &Value, outcome: Outcome) -> Result<(), String> {
    // A method the reference threw from while the rest was recorded (its
    // value in `expected` is `{"throws": …}`): the core, which derives every
    // value when it reads, must refuse the input in the same situation.
    let throws = expected
        .get("throws")
        .filter(|_| expected.as_object().is_some_and(|o| o.len() == 1))
        .or_else(|| nested_throws(expected));
    match (throws, outcome) {
        (Some(t), Err(e)) => same_situation(t["class"].as_str().unwrap_or(""), &e),
        (Some(t), Ok(v)) => Err(format!("expected an error ({}), got {}", t["message"], v)),
        (None, Err(e)) => Err(format!("unexpected error: {e}")),
        (None, Ok(actual)) => compare::matches(expected, &actual),
    }
}

/// The first `{"throws": {class, message}}` member below the top of `v`.
fn nested_throws(v: &Value) -> Option<&Value> {
    let is_throws = |x: &Value| {
        x.as_object().is_some_and(|o| {
            o.len() == 1 && o.get("throws").is_some_and(|t| t.get("class").is_some())
        })
    };
    match v {
        Value::Object(m) => m.values().find_map(|x| {
            if is_throws(x) {
                x.get("throws")
            } else {
                nested_throws(x)
            }
        }),
        Value::Array(a) => a.iter().find_map(|x| {
            if is_throws(x) {
                x.get("throws")
            } else {
                nested_throws(x)
            }
        }),
        _ => None,
    }
}

/// The reference's exception class and our error code must describe the same
/// situation (the class itself need not match).
fn same_situation(class: &str, err: &stepline::SteplineError) -> Result<(), String> {
    use stepline::ErrorCode::*;
    let allowed: &[stepline::ErrorCode] = match class.rsplit('\\').next().unwrap_or(class) {
        "ValueError" => &[InvalidValue],
        "TypeError" => &[MissingField, InvalidType],
        "ToolExecutionException" => &[MissingField],
        "InvalidArgumentException" => &[InvalidType, InvalidValue, MissingField, OutOfRange],
        "Exception" => &[InvalidTimestamp, InvalidValue],
        // v2.7 cannot rebuild a stored ToolExecutionException (its README, item 25).
        "ArgumentCountError" => &[InvalidValue],
        _ => return Ok(()),
    };
    if allowed.contains(&err.code) {
        Ok(())
    } else {
        Err(format!(
            "the reference threw {class}; expected one of {allowed:?}, got {err}"
        ))
    }
}

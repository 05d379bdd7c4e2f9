//! Conformance runner: checks every case of every vector file this build covers.
//!
//! Vectors come from `$STEPLINE_VECTORS` (default `tests/vectors/cognesy-v1.22`),
//! so the same runner checks any folder of vectors in this format. It prints
//! `<file>: N passed, M failed` per file and the names of failing cases, and
//! exits non-zero when any case fails.

mod agent_runs;
mod compare;
mod continuation;
mod envelopes;
mod slim;
mod state_model;

use std::path::PathBuf;
use std::process::ExitCode;

use stepline::json::Value;

/// What a case handler computes: the value, or the error the core raised.
pub type Outcome = Result<Value, stepline::SteplineError>;

/// How one file's cases are checked: `Some(Ok(()))` pass, `Some(Err(why))`
/// fail, `None` no handler for the case (a failure too).
type Check = fn(name: &str, case: &Value) -> Option<Result<(), String>>;

struct Suite {
    file: &'static str,
    check: Check,
}

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
    let dir = std::env::var("STEPLINE_VECTORS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/cognesy-v1.22")
        });
    let mut total_passed = 0;
    let mut total_failed = 0;
    for suite in SUITES {
        let path = dir.join(suite.file);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                println!("{}: cannot read {}: {e}", suite.file, path.display());
                total_failed += 1;
                continue;
            }
        };
        let cases: Vec<Value> = match stepline::json::from_str(&text) {
            Ok(Value::Array(cases)) => cases,
            _ => {
                println!("{}: not a JSON array of cases", suite.file);
                total_failed += 1;
                continue;
            }
        };
        let mut failures = Vec::new();
        let mut passed = 0;
        for case in &cases {
            let name = case["name"].as_str().unwrap_or("<unnamed>");
            match (suite.check)(name, case)
                .unwrap_or_else(|| Err("no handler for this case".into()))
            {
                Ok(()) => passed += 1,
                Err(why) => failures.push(format!("  FAIL {name}\n       {why}")),
            }
        }
        println!(
            "{}: {} passed, {} failed",
            suite.file,
            passed,
            failures.len()
        );
        for f in &failures {
            println!("{f}");
        }
        total_passed += passed;
        total_failed += failures.len();
    }
    // Same shape as libtest's summary so scripts can add conformance to their counts.
    let status = if total_failed == 0 { "ok" } else { "FAILED" };
    println!("test result: {status}. {total_passed} passed; {total_failed} failed; 0 ignored; 0 measured; 0 filtered out");
    if total_failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Compares a handler's computed value with `expected`, or, when the reference
/// threw, checks that the core failed in the same situation.
fn by_value(
    run: fn(&str, &Value) -> Option<Outcome>,
    name: &str,
    case: &Value,
) -> Option<Result<(), String>> {
    let outcome = run(name, &case["input"])?;
    let expected = &case["expected"];
    let throws = expected
        .get("throws")
        .filter(|_| expected.as_object().is_some_and(|o| o.len() == 1));
    Some(match (throws, outcome) {
        (Some(t), Err(e)) => same_situation(t["class"].as_str().unwrap_or(""), &e),
        (Some(t), Ok(v)) => Err(format!("expected an error ({}), got {}", t["message"], v)),
        (None, Err(e)) => Err(format!("unexpected error: {e}")),
        (None, Ok(actual)) => compare::matches(expected, &actual),
    })
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

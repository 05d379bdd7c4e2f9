//! Compares a computed value with a vector's `expected`, under the corpus
//! conventions: `"<uuid>"` means "an id is present"; `[]` and `{}` are equal;
//! object key order is irrelevant; floats and ints are distinct (`1500.0` ≠ `1500`).

use stepline::json::Value;

/// `Ok(())` when `actual` matches `expected`, else the first difference with its path.
pub fn matches(expected: &Value, actual: &Value) -> Result<(), String> {
    walk(expected, actual, "")
}

fn walk(expected: &Value, actual: &Value, path: &str) -> Result<(), String> {
    let here = || {
        if path.is_empty() {
            "/".to_string()
        } else {
            path.to_string()
        }
    };
    match (expected, actual) {
        (Value::String(e), Value::String(a)) if e == "<uuid>" => {
            if is_uuid(a) {
                Ok(())
            } else {
                Err(format!(
                    "{}: expected a generated uuid, found {a:?}",
                    here()
                ))
            }
        }
        (Value::Array(e), Value::Object(a)) | (Value::Object(a), Value::Array(e))
            if e.is_empty() && a.is_empty() =>
        {
            Ok(())
        }
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                match a.get(k) {
                    Some(av) => walk(ev, av, &format!("{path}/{k}"))?,
                    None => return Err(format!("{}: missing key {k:?}", here())),
                }
            }
            if let Some(extra) = a.keys().find(|k| !e.contains_key(k)) {
                return Err(format!("{}: unexpected key {extra:?}", here()));
            }
            Ok(())
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                return Err(format!(
                    "{}: expected {} items, found {}",
                    here(),
                    e.len(),
                    a.len()
                ));
            }
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                walk(ev, av, &format!("{path}/{i}"))?;
            }
            Ok(())
        }
        (Value::Number(e), Value::Number(a)) => {
            if e.is_f64() == a.is_f64() && e.as_f64() == a.as_f64() {
                Ok(())
            } else {
                Err(format!("{}: expected {e}, found {a}", here()))
            }
        }
        (e, a) if e == a => Ok(()),
        // A v2 state's llmConfig holds the API key: a mismatch there is
        // reported without the values (no secret in test output).
        _ if path.ends_with("/apiKey") => Err(format!("{}: the API key differs", here())),
        (e, a) => Err(format!(
            "{}: expected {}, found {}",
            here(),
            short(e),
            short(a)
        )),
    }
}

fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.chars().enumerate().all(|(i, c)| {
            if [8, 13, 18, 23].contains(&i) {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

/// A value for a failure message: at most 160 characters, API keys hidden.
fn short(v: &Value) -> String {
    let s = redacted(v).to_string();
    if s.len() > 160 {
        format!(
            "{}…",
            &s[..s
                .char_indices()
                .take_while(|(i, _)| *i < 160)
                .last()
                .map_or(0, |(i, c)| i + c.len_utf8())]
        )
    } else {
        s
    }
}

/// `v` with every `apiKey` member's value replaced.
fn redacted(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    let x = if &**k == "apiKey" {
                        Value::from("<redacted>")
                    } else {
                        redacted(x)
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(redacted).collect()),
        other => other.clone(),
    }
}

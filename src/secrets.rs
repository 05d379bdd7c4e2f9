//! Credentials in stored data. A v2 state stores the resolved `llmConfig`,
//! API key included (README of the v2.7 vectors, item 27), and a state or a
//! snapshot can carry other credentials an application put in its metadata.
//! This module finds them — by the member's name (`apiKey`, `Authorization`,
//! …) or by the shape of a provider key (`sk-…`, `Bearer …`) — and replaces
//! them. A finding names where the value is and how long it is, never the
//! value itself: a diagnostic is shown and logged (src/lint/secrets.rs).

use crate::json::{At, Value};

/// A snapshot or state that carries an API key or another credential.
pub const SECRET_IN_STATE: &str = "secret_in_state";

/// What replaces a credential in every view and snapshot.
pub const REDACTED: &str = "[redacted]";

/// Member names (lowercase, `-` and `_` removed) whose string value is a credential.
const SECRET_NAMES: &[&str] = &[
    "apikey",
    "xapikey",
    "apisecret",
    "authorization",
    "proxyauthorization",
    "accesstoken",
    "refreshtoken",
    "sessiontoken",
    "bearertoken",
    "secretkey",
    "secretaccesskey",
    "clientsecret",
    "privatekey",
    "password",
];

/// Shortest run of key characters after `sk-` or `Bearer ` that counts as a
/// key: provider keys are far longer, words such as `sk-learn` far shorter.
const MIN_KEY_CHARS: usize = 20;

/// Whether a member of this name holds a credential.
///
/// ```
/// use stepline::secrets::is_secret_name;
/// assert!(is_secret_name("apiKey") && is_secret_name("x-api-key") && is_secret_name("Authorization"));
/// assert!(!is_secret_name("maxTokens"));
/// ```
pub fn is_secret_name(name: &str) -> bool {
    // Every name is folded on the stack first: this runs on every key of every
    // snapshot validated. A non-ASCII character can lowercase into ASCII (the
    // Kelvin sign into `k`), so such a name takes the general fold.
    let mut folded = [0u8; LONGEST_FOLDED];
    let mut len = 0;
    for &b in name.as_bytes() {
        if !b.is_ascii() {
            return is_secret_name_unicode(name);
        }
        if b == b'-' || b == b'_' {
            continue;
        }
        let Some(slot) = folded.get_mut(len) else {
            return false;
        };
        *slot = b.to_ascii_lowercase();
        len += 1;
    }
    folded
        .get(..len)
        .is_some_and(|f| SECRET_NAMES.iter().any(|n| n.as_bytes() == f))
}

/// Bytes in the longest of [`SECRET_NAMES`]: a longer folded name is none of them.
const LONGEST_FOLDED: usize = {
    let (mut names, mut longest) = (SECRET_NAMES, 0);
    while let [name, rest @ ..] = names {
        if name.len() > longest {
            longest = name.len();
        }
        names = rest;
    }
    longest
};

fn is_secret_name_unicode(name: &str) -> bool {
    let folded: String = name
        .chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect();
    SECRET_NAMES.contains(&folded.as_str())
}

/// Whether `text` contains something shaped like a provider key: `sk-`
/// (OpenAI, Anthropic, …) or `Bearer ` followed by at least 20 key characters.
///
/// ```
/// use stepline::secrets::looks_like_key;
/// assert!(looks_like_key("key: sk-proj-AbCdEfGhIjKlMnOpQrStUv"));
/// assert!(!looks_like_key("pip install scikit-learn sk-learn"));
/// ```
pub fn looks_like_key(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() < "sk-".len() + MIN_KEY_CHARS {
        return false;
    }
    // This reads every string of every snapshot validated, so it looks for the
    // rare bytes (`-` of `sk-`, `B` of `Bearer `) eight at a time, and only
    // around those for a whole key.
    let mut chunks = bytes.chunks_exact(8);
    let mut base = 0;
    for chunk in chunks.by_ref() {
        let word = u64::from_le_bytes(<[u8; 8]>::try_from(chunk).unwrap_or_default());
        if (has_byte(word, b'-') || has_byte(word, b'B'))
            && (base..base + 8).any(|at| key_at(bytes, at))
        {
            return true;
        }
        base += 8;
    }
    (base..bytes.len()).any(|at| key_at(bytes, at))
}

/// Whether a byte of `word` is `b` (the classic zero-byte test on `word ^ b…b`).
fn has_byte(word: u64, b: u8) -> bool {
    const LOW: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let x = word ^ (LOW * u64::from(b));
    x.wrapping_sub(LOW) & !x & HIGH != 0
}

/// Whether the byte at `at` ends `sk-` or starts `Bearer `, after a boundary
/// and followed by at least [`MIN_KEY_CHARS`] key characters.
fn key_at(bytes: &[u8], at: usize) -> bool {
    let key_char = |b: &u8| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_';
    let (start, prefix): (usize, &[u8]) = match bytes.get(at) {
        Some(b'-') if at >= 2 => (at - 2, b"sk-"),
        Some(b'B') => (at, b"Bearer "),
        _ => return false,
    };
    let Some(rest) = bytes.get(start..).and_then(|r| r.strip_prefix(prefix)) else {
        return false;
    };
    let boundary = start == 0 || bytes.get(start - 1).is_some_and(|b| !key_char(b));
    boundary && rest.iter().take_while(|b| key_char(b)).count() >= MIN_KEY_CHARS
}

/// One credential found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// JSON pointer of the value.
    pub path: String,
    /// The member's name (`apiKey`), or `None` when the value's shape gave it away.
    pub name: Option<String>,
    /// Characters in the value (shown instead of it).
    pub chars: usize,
}

/// A credential value: a non-empty string that is not already redacted.
fn is_credential_value(v: &Value) -> Option<&str> {
    v.as_str()
        .filter(|s| !s.trim().is_empty() && *s != REDACTED)
}

/// Every credential in `v`, in document order, with pointers under `path`.
pub fn find(v: &Value, path: &str) -> Vec<Found> {
    let mut out = Vec::new();
    walk(v, &At::Root(path), &mut out);
    out
}

fn walk(v: &Value, at: &At, out: &mut Vec<Found>) {
    match v {
        Value::Object(m) => {
            for (k, item) in m.iter() {
                // The name first: cheaper than trimming every string member.
                let secret = item.is_string() && is_secret_name(k);
                match is_credential_value(item).filter(|_| secret) {
                    Some(s) => out.push(Found {
                        path: at.key(k).pointer(),
                        name: Some(k.to_string()),
                        chars: s.chars().count(),
                    }),
                    None => walk(item, &at.key(k), out),
                }
            }
        }
        Value::Array(list) => {
            for (i, item) in list.iter().enumerate() {
                walk(item, &at.item(i), out);
            }
        }
        Value::String(s) if looks_like_key(s) => out.push(Found {
            path: at.pointer(),
            name: None,
            chars: s.chars().count(),
        }),
        _ => {}
    }
}

/// A copy of `v` with every member named like a credential (see
/// [`is_secret_name`]) holding a non-empty string replaced by [`REDACTED`].
pub fn redact(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut out = m.clone();
            for (k, item) in out.iter_mut() {
                *item = if is_secret_name(k) && is_credential_value(item).is_some() {
                    Value::from(REDACTED)
                } else {
                    redact(item)
                };
            }
            Value::Object(out)
        }
        Value::Array(list) => Value::Array(list.iter().map(redact).collect()),
        other => other.clone(),
    }
}

/// What a finding says (never the value).
pub fn describe(found: &Found, what: &str) -> String {
    match &found.name {
        Some(name) => format!(
            "{what} carries a credential in `{name}` ({} characters, value not shown): store and share it without one (stepline redacts it in every view and slim snapshot)",
            found.chars
        ),
        None => format!(
            "{what} carries a string shaped like an API key ({} characters, value not shown): store and share it without one",
            found.chars
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_credentials_by_name_and_by_shape_and_never_shows_them() {
        let v = crate::json::from_str(
            r#"{"llmConfig": {"apiKey": "sk-test-SEEDED-0123456789abcdef", "model": "gpt"},
                "metadata": {"x-api-key": "abc", "token_count": 5, "apiKey": "[redacted]", "password": ""},
                "messages": [{"content": "use Bearer abcdefghijklmnopqrstuvwxyz0123"}]}"#,
        )
        .unwrap();
        let found = find(&v, "");
        let paths: Vec<&str> = found.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/llmConfig/apiKey",
                "/metadata/x-api-key",
                "/messages/0/content"
            ]
        );
        let text = crate::json::to_string(&redact(&v));
        assert!(!text.contains("SEEDED") && !text.contains("\"abc\""));
        assert!(text.contains("\"model\":\"gpt\""));
        assert!(!describe(&found[0], "the state").contains("SEEDED"));
    }

    #[test]
    fn names_fold_case_and_separators_and_unicode_like_the_general_fold() {
        assert!(is_secret_name("PROXY_AUTHORIZATION") && is_secret_name("Proxy-Authorization"));
        assert!(is_secret_name("secret__access--key") && is_secret_name("-api_key-"));
        // U+212A KELVIN SIGN lowercases to an ASCII `k`.
        assert!(is_secret_name("api\u{212A}ey"));
        assert!(
            !is_secret_name("proxyauthorizations")
                && !is_secret_name("")
                && !is_secret_name("apikeý")
        );
    }

    #[test]
    fn a_key_shape_needs_a_boundary_and_twenty_key_characters() {
        assert!(looks_like_key("sk-abcdefghijklmnopqrst"));
        assert!(looks_like_key("xsk-short sk-abcdefghijklmnopqrst"));
        assert!(looks_like_key("auth: Bearer abcdefghijklmnopqrst"));
        assert!(!looks_like_key("task-abcdefghijklmnopqrstuvw"));
        assert!(!looks_like_key("sk-abcdefghijklmnopqrs"));
        assert!(!looks_like_key("Bearer  abcdefghijklmnopqrstuvw"));
        assert!(!looks_like_key("s") && !looks_like_key("B") && !looks_like_key(""));
        // Every offset against the eight-byte chunks, and a key at the very end.
        for pad in 0..17 {
            let text = format!("{}sk-abcdefghijklmnopqrst", "x ".repeat(pad));
            assert!(looks_like_key(&text), "{text}");
            assert!(!looks_like_key(&text[..text.len() - 1]), "{text}");
            assert!(looks_like_key(&format!(
                "{}Bearer abcdefghijklmnopqrst.",
                "é".repeat(pad)
            )));
        }
        assert!(looks_like_key("sk-ABCDEFGHIJKLMNOPQRST\u{7f}"));
    }

    /// The definition, read naively: every occurrence of either prefix.
    fn looks_like_key_naive(text: &str) -> bool {
        let key_char = |b: &u8| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_';
        let bytes = text.as_bytes();
        ["sk-", "Bearer "].iter().any(|prefix| {
            text.match_indices(prefix).any(|(start, _)| {
                let boundary = start == 0 || !key_char(&bytes[start - 1]);
                let run = bytes[start + prefix.len()..]
                    .iter()
                    .take_while(|b| key_char(b))
                    .count();
                boundary && run >= MIN_KEY_CHARS
            })
        })
    }

    #[test]
    fn the_chunked_key_scan_agrees_with_the_naive_one() {
        // Strings drawn from pieces that make and break keys at every offset.
        let pieces = [
            "sk-",
            "Bearer ",
            "B",
            "-",
            "s",
            "k",
            "abcdefghij",
            "é",
            "_",
            " ",
            "x",
            "\u{ad}",
            "\u{2d}\u{42}",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..(seed % 12) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                text.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            }
            seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
            assert_eq!(
                looks_like_key(&text),
                looks_like_key_naive(&text),
                "{text:?}"
            );
        }
    }
}

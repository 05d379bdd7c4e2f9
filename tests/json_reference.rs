//! The core's own JSON parser and writer (src/json/) against serde_json, the
//! parser the core used before and the one Rust readers know: for any text, both
//! accept or both refuse, and what they accept they write back byte for byte the
//! same (key order, duplicate keys, number kinds, float digits, escapes).
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use stepline::json::{self, Value};

fn reference(text: &str) -> Option<String> {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .map(|v| serde_json::to_string(&v).unwrap())
}

fn ours(text: &str) -> Option<String> {
    json::from_str(text).ok().map(|v| json::to_string(&v))
}

fn agree(text: &str) {
    assert_eq!(ours(text), reference(text), "text: {text:?}");
}

/// JSON-ish text: valid documents built from pieces that exercise every
/// branch, with whitespace, duplicate keys and numbers at the edges.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|i| i.to_string()),
        any::<u64>().prop_map(|u| u.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:?}")),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
        Just("-0".to_string()),
        Just("-0.0".to_string()),
        Just("1E400".to_string()),
        Just("-1e-400".to_string()),
        Just("18446744073709551616".to_string()),
        Just("-9223372036854775808".to_string()),
        Just("-9223372036854775809".to_string()),
        Just("123456789012345678901234567890".to_string()),
        Just("0.1e1".to_string()),
        Just("1e+2".to_string()),
        "[0-9]{1,25}(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?",
    ]
}

fn string() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{0,6}".prop_map(|s| format!("\"{s}\"")),
        any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap()),
        "(\\\\[\"\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4}|[a-zé€😀 ]){0,8}".prop_map(|s| format!("\"{s}\"")),
        Just("\"\\ud83d\\ude00\"".to_string()),
        Just("\"\\ud83d\"".to_string()),
        Just("\"\\ude00\"".to_string()),
        Just("\"\\ud83d\\u0041\"".to_string()),
    ]
}

fn document() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        number(),
        string(),
        Just("null".to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6)
                .prop_map(|items| format!("[{}]", items.join(","))),
            prop::collection::vec(("[a-c]{1,2}", inner), 0..8).prop_map(|members| {
                let body: Vec<String> = members
                    .iter()
                    .map(|(k, v)| format!("\"{k}\" : {v}"))
                    .collect();
                format!("{{ {} }}", body.join(" ,\n"))
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn documents_read_and_write_as_serde_json_does(doc in document()) {
        agree(&doc);
    }

    /// Damaged text: a byte dropped, doubled or replaced anywhere.
    #[test]
    fn damaged_documents_are_refused_exactly_when_serde_json_refuses_them(
        doc in document(), at in any::<prop::sample::Index>(), what in 0..3u8, byte in prop::sample::select(b"{}[],:\"\\0-.eE tn ".to_vec()),
    ) {
        let mut bytes = doc.into_bytes();
        let i = at.index(bytes.len());
        match what {
            0 => { bytes.remove(i); }
            1 => { let b = bytes[i]; bytes.insert(i, b); }
            _ => bytes[i] = byte,
        }
        if let Ok(text) = String::from_utf8(bytes) {
            agree(&text);
        }
    }
}

#[test]
fn edge_texts_agree() {
    for text in [
        "",
        " ",
        "\u{feff}{}",
        "01",
        "-",
        "1.",
        ".5",
        "+1",
        "1e",
        "1e+",
        "[1,]",
        "{\"a\":1,}",
        "{\"a\" 1}",
        "{1:2}",
        "[\"\u{1}\"]",
        "\"\\x\"",
        "\"\\u12\"",
        "nul",
        "truex",
        "[1] [2]",
        "{\"a\":1,\"b\":2,\"a\":3}",
        "{\"a\":{\"x\":1},\"a\":{\"y\":2}}",
        "\"\\u0000\\u001f\\u007f\"",
        "1.7976931348623157e308",
        "2.2250738585072014e-308",
        "5e-324",
        "1e-400",
        "[1e21, 1e20, 1.5e-7, 0.000001, 1e16, 123456789012345680000.0]",
        " \t\r\n[ \t\r\n] \t\r\n",
    ] {
        agree(text);
    }
}

#[test]
fn nesting_limit_matches_serde_json() {
    for depth in [126, 127, 128, 129] {
        let text = "[".repeat(depth) + &"]".repeat(depth);
        agree(&text);
        let text = "{\"a\":".repeat(depth) + "1" + &"}".repeat(depth);
        agree(&text);
    }
}

#[test]
fn large_objects_with_repeated_keys_keep_first_place_and_last_value() {
    let mut text = String::from("{");
    for i in 0..3000 {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!("\"k{}\":{i}", i % 1000));
    }
    text.push('}');
    agree(&text);
    let v = json::from_str(&text).unwrap();
    let m = v.as_object().unwrap();
    assert_eq!(m.len(), 1000);
    assert_eq!(m.keys().next().map(|k| &**k), Some("k0"));
    assert_eq!(v["k0"], 2000);
}

#[test]
fn objects_compare_by_members_not_by_order() {
    let a = json::from_str(r#"{"a":1,"b":[1,{"x":null}]}"#).unwrap();
    let b = json::from_str(r#"{"b":[1,{"x":null}],"a":1}"#).unwrap();
    assert_eq!(a, b);
    assert_ne!(
        a,
        json::from_str(r#"{"b":[1,{"x":null}],"a":1.0}"#).unwrap()
    );
    assert_ne!(a, Value::Null);
}

#[test]
fn large_reordered_objects_compare_equal_and_differences_are_seen() {
    let members: Vec<String> = (0..500)
        .map(|i| format!("\"k{i}\":[{i},{{\"n\":{i}}}]"))
        .collect();
    let forward = json::from_str(&format!("{{{}}}", members.join(","))).unwrap();
    let mut reversed = members.clone();
    reversed.reverse();
    let backward = json::from_str(&format!("{{{}}}", reversed.join(","))).unwrap();
    assert_eq!(forward, backward);
    let mut changed = reversed;
    changed[250] = "\"k249\":[249,{\"n\":-1}]".into();
    assert_ne!(
        forward,
        json::from_str(&format!("{{{}}}", changed.join(","))).unwrap()
    );
}

#[test]
fn pointers_read_as_serde_json_reads_them() {
    let text = r#"{"a":{"b/c":[10,{"m~n":true}],"":1},"0":[null]}"#;
    let ours = json::from_str(text).unwrap();
    let reference: serde_json::Value = serde_json::from_str(text).unwrap();
    for pointer in [
        "",
        "/a",
        "/a/b~1c",
        "/a/b~1c/1/m~0n",
        "/a/b~1c/01",
        "/a/b~1c/2",
        "/a/",
        "/0/0",
        "a",
        "/x/y",
    ] {
        assert_eq!(
            ours.pointer(pointer).map(json::to_string),
            reference
                .pointer(pointer)
                .map(|v| serde_json::to_string(v).unwrap()),
            "{pointer:?}"
        );
    }
    let mut ours = ours;
    *ours.pointer_mut("/a/b~1c/0").unwrap() = stepline::json!(11);
    assert_eq!(ours["a"]["b/c"][0], 11);
}

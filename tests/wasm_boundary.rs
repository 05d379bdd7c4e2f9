//! The JavaScript boundary, tested inside a real wasm instance under Node
//! (wasm-bindgen-test). Pins the null/undefined contract, plain-object output,
//! error values and prototype safety.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Object, Reflect, JSON};
use stepline::wasm::inference::{normalize_inference_response, InferenceStreamAccumulator};
use stepline::wasm::roles::{has_role, is_system, is_user};
use stepline::wasm::state::parse_agent_state;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

fn parse(text: &str) -> JsValue {
    JSON::parse(text).unwrap()
}

#[wasm_bindgen_test]
fn errors_are_js_errors_with_code_and_path() {
    let err = parse_agent_state(JsValue::from_str(r#"{"status": "idle"}"#), None).unwrap_err();
    assert!(err.is_instance_of::<js_sys::Error>());
    assert_eq!(get(&err, "name"), "SteplineError");
    assert_eq!(get(&err, "code"), "invalid_value");
    assert_eq!(get(&err, "path"), "/status");
    assert!(get(&err, "message")
        .as_string()
        .unwrap()
        .contains("\"idle\""));
}

#[wasm_bindgen_test]
fn whole_input_errors_have_a_null_path_not_undefined() {
    let err = parse_agent_state(JsValue::from_str("{"), None).unwrap_err();
    assert_eq!(get(&err, "code"), "invalid_json");
    assert!(get(&err, "path").is_null());
    let err = parse_agent_state(JsValue::UNDEFINED, None).unwrap_err();
    assert_eq!(get(&err, "code"), "invalid_type");
}

#[wasm_bindgen_test]
fn objects_and_strings_are_both_accepted_and_give_plain_objects() {
    let from_text = parse_agent_state(
        JsValue::from_str(r#"{"agentId": "a1", "metadata": {"k": 1}}"#),
        None,
    )
    .unwrap();
    let from_object =
        parse_agent_state(parse(r#"{"agentId": "a1", "metadata": {"k": 1}}"#), None).unwrap();
    for state in [&from_text, &from_object] {
        assert_eq!(get(state, "agentId"), "a1");
        let metadata = get(state, "metadata");
        // json-compatible output: a plain object, never a Map.
        assert!(!metadata.is_instance_of::<js_sys::Map>());
        assert_eq!(
            Object::get_prototype_of(&metadata),
            Object::get_prototype_of(&Object::new())
        );
        assert_eq!(get(&metadata, "k"), 1.0);
    }
}

#[wasm_bindgen_test]
fn null_fields_are_null_and_absent_optional_fields_are_absent() {
    let state = parse_agent_state(
        JsValue::from_str(r#"{"agentId": "a"}"#),
        Some(parse(r#"{"now": "2026-01-20T12:00:00Z"}"#).unchecked_into()),
    )
    .unwrap();
    assert!(get(&state, "parentAgentId").is_null());
    assert!(get(&state, "executionStartedAt").is_null());
    assert!(get(&state, "currentStep").is_null());
    assert_eq!(
        get(&get(&state, "stateInfo"), "startedAt"),
        "2026-01-20T12:00:00+00:00"
    );
    assert!(!Reflect::has(&state, &"annotations".into()).unwrap());
}

#[wasm_bindgen_test]
fn proto_keys_in_payloads_stay_own_properties() {
    let state = parse_agent_state(
        JsValue::from_str(r#"{"metadata": {"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}}"#),
        None,
    )
    .unwrap();
    let metadata = get(&state, "metadata");
    assert_eq!(
        Object::get_prototype_of(&metadata),
        Object::get_prototype_of(&Object::new())
    );
    let object_prototype: Object = Object::get_prototype_of(&Object::new()).unchecked_into();
    assert!(!Object::has_own(&object_prototype, &"polluted".into()));
    let metadata_object: Object = metadata.clone().unchecked_into();
    assert!(Object::has_own(&metadata_object, &"__proto__".into()));
    assert!(Object::has_own(&metadata_object, &"constructor".into()));
    assert!(get(&Object::new().into(), "polluted").is_undefined());
}

#[wasm_bindgen_test]
fn unknown_options_are_rejected() {
    let err = parse_agent_state(
        JsValue::from_str("{}"),
        Some(parse(r#"{"nwo": 1}"#).unchecked_into()),
    )
    .unwrap_err();
    assert_eq!(get(&err, "code"), "invalid_value");
}

#[wasm_bindgen_test]
fn steps_carry_derived_values() {
    let state = parse_agent_state(
        JsValue::from_str(
            r#"{"steps": [{"inferenceResponse": {"finishReason": "tool_use", "toolCalls": [{"id": "c", "name": "f", "arguments": "{}"}],
                 "responseData": {"statusCode": 200, "body": "", "headers": [], "isStreamed": false}}, "usage": {"input": 3, "output": 4}}]}"#,
        ),
        None,
    )
    .unwrap();
    let step = Array::from(&get(&state, "steps")).get(0);
    assert_eq!(get(&step, "stepType"), "tool_execution");
    assert_eq!(get(&step, "finishReason"), "tool_calls");
    assert_eq!(get(&get(&step, "usage"), "total"), 7.0);
    assert_eq!(Array::from(&get(&step, "requestedToolCalls")).length(), 1);
    assert!(get(&step, "durationMs").is_null());
}

#[wasm_bindgen_test]
fn normalize_keeps_tool_arguments_out_of_content() {
    let payload = r#"{"choices": [{"message": {"content": null, "tool_calls": [{"id": "c1", "type": "function",
        "function": {"name": "search", "arguments": "{\"q\":\"x\"}"}}]}, "finish_reason": "tool_calls"}]}"#;
    let n = normalize_inference_response(JsValue::from_str(payload), None).unwrap();
    assert_eq!(get(&get(&n, "response"), "content"), "");
    assert!(get(&n, "assistantMessage").is_null());
    let compat = normalize_inference_response(
        JsValue::from_str(payload),
        Some(parse(r#"{"compat": {"toolArgsAsContent": true}}"#).unchecked_into()),
    )
    .unwrap();
    assert_eq!(get(&get(&compat, "response"), "content"), r#"{"q":"x"}"#);
}

#[wasm_bindgen_test]
fn stream_accumulator_accepts_sse_lines_and_objects() {
    let mut acc = InferenceStreamAccumulator::new(None).unwrap();
    let d = acc
        .push(JsValue::from_str(
            r#"data: {"choices": [{"delta": {"content": "Hi"}}]}"#,
        ))
        .unwrap();
    assert_eq!(get(&d, "content"), "Hi");
    acc.push(parse(
        r#"{"choices": [{"delta": {"content": " there"}, "finish_reason": "stop"}]}"#,
    ))
    .unwrap();
    let done = acc.push(JsValue::from_str("data: [DONE]")).unwrap();
    assert_eq!(get(&done, "done"), true);
    assert_eq!(acc.content(), "Hi there");
    let n = acc.finish().unwrap();
    assert_eq!(get(&n, "finishReason"), "stop");
    assert_eq!(get(&get(&n, "assistantMessage"), "content"), "Hi there");
}

#[wasm_bindgen_test]
fn role_helpers_follow_the_producer() {
    assert!(is_user(parse(r#"{"role": "wizard"}"#)).unwrap());
    assert!(is_system(parse(r#"{"role": "developer"}"#)).unwrap());
    assert!(!is_system(parse(r#"{"role": "System"}"#)).unwrap());
    // As the producer reads it: a role that is not a known string is `user`.
    assert!(is_user(parse(r#"{"role": 5}"#)).unwrap());
    assert!(has_role(parse(r#"{"role": "tool"}"#), parse(r#"["user", "tool"]"#)).unwrap());
    let err = has_role(parse(r#"{"role": "tool"}"#), JsValue::from_str("robot")).unwrap_err();
    assert_eq!(get(&err, "path"), "/roles/0");
}

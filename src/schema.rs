//! JSON Schemas of every shape the API reads and returns, generated from the
//! Rust types that declare them (`#[derive(Serialize, JsonSchema)]`): one
//! declaration per shape. `npm run gen` (scripts/gen-types.mjs) writes them to
//! `schemas/stepline.schema.json` and turns them into the package's
//! TypeScript declarations; the shape test (tests/js/shapes.test.mjs) checks
//! what every public function returns against them with Ajv.
//!
//! Native only (feature `schema`): nothing here reaches the wasm.
//!
//! Objects are closed (`additionalProperties: false` unless a type says
//! otherwise), so a field written in Rust but not declared fails the shape
//! test, as does a declared field no run ever returns.

use schemars::generate::SchemaSettings;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde_json::{json, Value as JsonValue};

use crate::json::{Number, Value};

/// The bundle: `{"$schema", "$id", "$defs": {Name: schema, ...}}`, every
/// shape of the API under its TypeScript name.
///
/// ```
/// let bundle = stepline::schema::bundle();
/// assert!(bundle["$defs"]["SessionView"].is_object());
/// ```
pub fn bundle() -> JsonValue {
    let mut g = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    session(&mut g);
    reports(&mut g);
    model(&mut g);
    envelopes(&mut g);
    let mut defs = g.take_definitions(true);
    for schema in defs.values_mut() {
        close_objects(schema);
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://stepline.dev/schemas/stepline.schema.json",
        "title": "stepline",
        "description": "Every shape stepline's API reads and returns, generated from its Rust declarations.",
        "$defs": defs,
    })
}

/// The live view and what a session's methods return.
fn session(g: &mut SchemaGenerator) {
    g.subschema_for::<crate::session::IngestOutcome>();
    g.subschema_for::<crate::session::SessionView<'static>>();
}

/// Reconcile, continuation and run-log reports.
fn reports(g: &mut SchemaGenerator) {
    use crate::continuation::{self, v2};
    g.subschema_for::<crate::session::reconcile::ReconcileReport>();
    g.subschema_for::<crate::session::causes::Cause>();
    g.subschema_for::<continuation::Decision>();
    g.subschema_for::<continuation::Evaluation>();
    g.subschema_for::<continuation::outcome::OutcomeView>();
    g.subschema_for::<continuation::outcome::ExplainedOutcome>();
    g.subschema_for::<continuation::replay::ContinuationReplay>();
    g.subschema_for::<continuation::inputs::CriteriaInput>();
    g.subschema_for::<continuation::inputs::EvaluateOptions>();
    g.subschema_for::<continuation::inputs::ContinuationEvaluationInput>();
    g.subschema_for::<v2::StopReason>();
    g.subschema_for::<v2::StopSignal>();
    g.subschema_for::<v2::signal::StopSignalInput>();
    g.subschema_for::<v2::ExecutionContinuation>();
    g.subschema_for::<v2::data::StopReasonInfo>();
    g.subschema_for::<v2::data::StopSignalResolution>();
    g.subschema_for::<v2::data::ContinuationExplanation>();
    g.subschema_for::<v2::replay::GuardCheckView>();
    g.subschema_for::<v2::replay::GuardReplayView>();
    g.subschema_for::<v2::guard::Guard>();
    g.subschema_for::<v2::guard::GuardOptions>();
}

/// The producer's state, messages and slim snapshots.
fn model(_g: &mut SchemaGenerator) {}

/// Envelopes, their payloads and the encoder's input.
fn envelopes(_g: &mut SchemaGenerator) {}

/// Sets `additionalProperties: false` on every object schema that lists its
/// properties and says nothing about others, recursively.
fn close_objects(schema: &mut JsonValue) {
    match schema {
        JsonValue::Object(m) => {
            if m.contains_key("properties") && !m.contains_key("additionalProperties") {
                m.insert("additionalProperties".into(), JsonValue::Bool(false));
            }
            for v in m.values_mut() {
                close_objects(v);
            }
        }
        JsonValue::Array(items) => items.iter_mut().for_each(close_objects),
        _ => {}
    }
}

impl JsonSchema for Value {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "JsonValue".into()
    }
    fn inline_schema() -> bool {
        true
    }
    /// Any JSON value.
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        Schema::from(true)
    }
}

impl JsonSchema for crate::json::Map {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "JsonObject".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "object" })
    }
}

impl JsonSchema for Number {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "number".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "number" })
    }
}

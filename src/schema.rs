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
        wrap_annotated_refs(schema);
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://stepline.dev/schemas/stepline.schema.json",
        "title": "stepline",
        "description": "Every shape stepline's API reads and returns, generated from its Rust declarations.",
        "$defs": defs,
    })
}

/// The published JSON Schema of a slim snapshot (`snapshotSchema()`, the
/// package's `schemas/snapshot.schema.json`), generated from
/// [`crate::snapshot::shape::SlimSnapshot`]: what stepline writes, with only
/// the members the validator requires required, the older spellings it reads
/// (seed 000's usage and `metadata`) declared, and unknown properties allowed
/// (the validator warns about them). `npm run gen` writes it to
/// `schemas/snapshot.schema.json`, which `snapshotSchema()` returns.
///
/// ```
/// let schema = stepline::schema::snapshot();
/// assert_eq!(schema["properties"]["steps"]["items"]["properties"]["step_number"]["minimum"], 1);
/// ```
pub fn snapshot() -> JsonValue {
    use crate::snapshot::rules::{SNAPSHOT, V1_STATUSES};
    let mut settings = SchemaSettings::draft2020_12().for_serialize();
    settings.inline_subschemas = true;
    let generated = settings
        .into_generator()
        .into_root_schema_for::<crate::snapshot::shape::SlimSnapshot>();
    let mut body = generated.to_value();
    strip_number_formats(&mut body);
    accept_as_validator(&mut body, SNAPSHOT);
    let mut root = serde_json::Map::new();
    root.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    root.insert(
        "$id".into(),
        json!("https://stepline.dev/schemas/snapshot.schema.json"),
    );
    root.insert("title".into(), json!("stepline slim agent-state snapshot"));
    root.insert("description".into(), json!("The bounded form of an instructor-php AgentState (SlimAgentStateSerializer, seed 000). Unknown properties are allowed."));
    if let JsonValue::Object(m) = body {
        for (k, v) in m {
            if !matches!(k.as_str(), "$schema" | "title" | "description") {
                root.insert(k, v);
            }
        }
    }
    // A v1.22 snapshot (no state_version) has one of v1.22's statuses, never null.
    root.insert(
        "if".into(),
        json!({ "not": { "required": ["state_version"] } }),
    );
    root.insert(
        "then".into(),
        json!({ "properties": { "status": { "enum": V1_STATUSES } } }),
    );
    JsonValue::Object(root)
}

/// Drops the integer and float `format`s schemars writes (`int64`, `uint`,
/// `double`): validators that check formats do not know them. A whole float
/// (`0.0`) is written as an integer, as JavaScript writes it back.
fn strip_number_formats(schema: &mut JsonValue) {
    match schema {
        JsonValue::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) && n.is_f64() => {
            if let Some(whole) = n.as_f64().map(|f| f as i64) {
                *schema = json!(whole);
            }
        }
        JsonValue::Object(m) => {
            if m.get("format").is_some_and(|f| f != "date-time") {
                m.remove("format");
            }
            m.values_mut().for_each(strip_number_formats);
        }
        JsonValue::Array(items) => items.iter_mut().for_each(strip_number_formats),
        _ => {}
    }
}

/// Makes the object schema `schema` (or the object branch of it) accept what
/// the validator's `fields` accept: their required members only, null where
/// they allow it, and the members stepline does not write but reads.
fn accept_as_validator(schema: &mut JsonValue, fields: &[crate::snapshot::rules::Field]) {
    use crate::snapshot::rules::Kind;
    let Some(object) = object_branch(schema) else {
        return;
    };
    let required: Vec<&str> = fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.name)
        .collect();
    object.insert("required".into(), json!(required));
    let Some(JsonValue::Object(properties)) = object.get_mut("properties") else {
        return;
    };
    for f in fields {
        let Some(property) = properties.get_mut(f.name) else {
            let declared = crate::snapshot::schema::field_schema(f);
            let text = crate::json::to_string(&declared);
            properties.insert(
                f.name.into(),
                serde_json::from_str(&text).unwrap_or(JsonValue::Bool(true)),
            );
            continue;
        };
        match f.kind {
            Kind::Object(inner) => accept_as_validator(property, inner),
            Kind::Array(Kind::Object(inner)) => {
                if let Some(items) = property.get_mut("items") {
                    accept_as_validator(items, inner);
                }
            }
            _ => {}
        }
        if f.nullable && !allows_null(property) {
            let inner = property.take();
            *property = json!({ "anyOf": [inner, { "type": "null" }] });
        }
    }
}

/// The object schema in `schema`: itself, or its first branch that lists properties.
fn object_branch(schema: &mut JsonValue) -> Option<&mut serde_json::Map<String, JsonValue>> {
    if schema.get("properties").is_some() {
        return schema.as_object_mut();
    }
    let key = BRANCHES.into_iter().find(|k| {
        schema
            .get(*k)
            .and_then(JsonValue::as_array)
            .is_some_and(|b| b.iter().any(has_object))
    })?;
    let branches = schema.get_mut(key)?.as_array_mut()?;
    let i = branches.iter().position(has_object)?;
    branches.get_mut(i).and_then(object_branch)
}

const BRANCHES: [&str; 3] = ["anyOf", "allOf", "oneOf"];

/// True when `schema` lists properties, itself or in a branch.
fn has_object(schema: &JsonValue) -> bool {
    schema.get("properties").is_some()
        || BRANCHES.iter().any(|k| {
            schema
                .get(*k)
                .and_then(JsonValue::as_array)
                .is_some_and(|b| b.iter().any(has_object))
        })
}

/// True when `schema` names `null` among its types or values.
fn allows_null(schema: &JsonValue) -> bool {
    let text = schema.to_string();
    text.contains("\"null\"") || text.contains("null]") || text.contains("[null")
}

/// The live view and what a session's methods return.
fn session(g: &mut SchemaGenerator) {
    g.subschema_for::<crate::session::IngestOutcome>();
    g.subschema_for::<crate::session::SessionView<'static>>();
    g.subschema_for::<crate::session::SessionOptions>();
    g.subschema_for::<crate::session::IngestBatchResult<'static>>();
    g.subschema_for::<crate::session::collect::CollectedResponse<'static>>();
    g.subschema_for::<crate::session::runlog::RunLogBatchResult<'static>>();
    g.subschema_for::<crate::session::runlog::RunLogSummary>();
    g.subschema_for::<crate::lint::Diagnostic>();
    g.subschema_for::<crate::otel::shape::OtlpTraceRequest>();
    g.subschema_for::<crate::lint::DiagnoseRequest<'static>>();
    g.subschema_for::<crate::lint::DiagnoseOptions<'static>>();
}

/// Reconcile, continuation and run-log reports.
fn reports(g: &mut SchemaGenerator) {
    use crate::model::continuation::{self, v2};
    g.subschema_for::<crate::session::reconcile::ReconcileReport>();
    g.subschema_for::<crate::session::reconcile::MessagesReconcileReport>();
    g.subschema_for::<crate::session::reconcile::ReconcileMessagesOptions>();
    g.subschema_for::<crate::session::causes::Cause>();
    g.subschema_for::<continuation::Decision>();
    g.subschema_for::<continuation::Evaluation>();
    g.subschema_for::<continuation::outcome::OutcomeView>();
    g.subschema_for::<continuation::outcome::ExplainedOutcome>();
    g.subschema_for::<continuation::replay::ContinuationReplay>();
    g.subschema_for::<crate::session::streamed_replay::StreamedContinuationReplay>();
    g.subschema_for::<crate::session::step_envelopes::StepEnvelopes>();
    g.subschema_for::<crate::session::compare::RunComparison>();
    g.subschema_for::<crate::cost::RunCost>();
    g.subschema_for::<crate::cost::prices::StatePrices>();
    g.subschema_for::<crate::cost::prices::Pricing>();
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
fn model(g: &mut SchemaGenerator) {
    use crate::model;
    g.subschema_for::<model::Role>();
    g.subschema_for::<model::FinishReason>();
    g.subschema_for::<model::StepType>();
    g.subschema_for::<model::AgentStatus>();
    g.subschema_for::<model::Usage>();
    g.subschema_for::<model::UsageWithTotal>();
    g.subschema_for::<model::ToolCall>();
    g.subschema_for::<model::message::MessageView>();
    g.subschema_for::<model::message::ContentPart>();
    g.subschema_for::<model::inference::InferenceResponse>();
    g.subschema_for::<model::provider::NormalizedInference>();
    g.subschema_for::<model::provider::openai::StreamDelta>();
    g.subschema_for::<crate::snapshot::budget::Fitted>();
    g.subschema_for::<crate::snapshot::shape::SnapshotValidation>();
    g.subschema_for::<model::shape::ParseAgentStateOptions>();
    g.subschema_for::<model::provider::NormalizeInferenceOptions>();
    g.subschema_for::<crate::snapshot::config::SlimOptions>();
    g.subschema_for::<model::role::MessageLike>();
    g.subschema_for::<model::view::AgentStateView>();
    g.subschema_for::<model::v2::execution::ExecutionStatus>();
    g.subschema_for::<model::v2::view::AgentStateV2View>();
}

/// Envelopes, their payloads and the encoder's input.
fn envelopes(g: &mut SchemaGenerator) {
    crate::envelope::schema::json_schema::register(g);
    g.subschema_for::<crate::envelope::results::TryDecodeResult>();
    g.subschema_for::<crate::envelope::results::DecodedBatch>();
    g.subschema_for::<crate::envelope::Broadcast>();
    g.subschema_for::<crate::error::ErrorCode>();
    g.subschema_for::<crate::envelope::config::EncoderOptions>();
    g.subschema_for::<crate::envelope::config::AgentEventInput>();
}

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

/// Rewrites `{"$ref": r, "description": …}` (a field's doc next to the
/// reference to its type) as `{"allOf": [{"$ref": r}], "description": …}`:
/// json-schema-to-typescript declares a `$ref` with siblings again, as a copy
/// under a new name (`StopReasonV21`), once per field.
fn wrap_annotated_refs(schema: &mut JsonValue) {
    match schema {
        JsonValue::Object(m) => {
            if m.len() > 1 {
                if let Some(r) = m.remove("$ref") {
                    m.insert("allOf".into(), json!([{ "$ref": r }]));
                }
            }
            m.values_mut().for_each(wrap_annotated_refs);
        }
        JsonValue::Array(items) => items.iter_mut().for_each(wrap_annotated_refs),
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

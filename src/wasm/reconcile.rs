//! `Session.reconcile`: the streamed view against the final slim snapshot.
//! Full package only: it needs the snapshot reader, which the live package
//! leaves out.

use wasm_bindgen::prelude::*;

use crate::error::SteplineError;
use crate::session::causes::CAUSES;
use crate::session::final_state::FinalState;

use crate::json::Value;
use crate::session::reconcile::ReconcileMessagesOptions;

use super::convert::{clock, from_js, options_map, out_with, to_js_of};
use super::session::Session;

#[wasm_bindgen]
impl Session {
    /// The latest execution's stream against its final state (the state
    /// wins): `{ consistent, differences: [{ kind, path, step, streamed,
    /// final, message, cause, execution_id }], window, view }`. Not in
    /// `stepline/live`.
    ///
    /// The final state may be a slim snapshot, a stored agent state
    /// (`AgentState->toArray()` of either producer version: slimmed here with
    /// every step kept, and its last step's error text says why a failed run
    /// failed, which a slim snapshot does not keep), or a recording's
    /// `{ stepline_snapshot, error? }` line. In the reconciled view a failed
    /// execution whose stream sent no error gets one (`error`): the state's
    /// own words, else which step counted errors.
    ///
    /// Steps before the snapshot's window (it lists the run's last N) are
    /// outside it, never differences: see `SnapshotWindow`. `reconcile`
    /// only reads; `ingestFinalState` also keeps the state for `toRecording`.
    ///
    /// @example
    /// ```js
    /// const report = session.reconcile(await (await fetch(`/runs/${id}/snapshot`)).json());
    /// for (const d of report.differences) console.warn(d.kind, d.path, d.step, d.message, d.cause);
    /// // 30 steps, standard snapshot: { first_step: 11, last_step: 30, outside_step_count: 10, … }
    /// console.log(report.window, report.view.executions.at(-1).steps[0].snapshot_window); // "outside"
    /// ```
    #[wasm_bindgen(unchecked_return_type = "ReconcileReport")]
    pub fn reconcile(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SlimSnapshot | object | string")] state: JsValue,
    ) -> Result<JsValue, JsValue> {
        let inner = self.inner.borrow();
        let report = read_final_state(&state).map(|s| inner.core.reconcile_final(&s));
        out_with(report, |r| to_js_of(&r.view(&inner.core)))
    }

    /// `reconcile(state)`, and the session keeps the final state: `toRecording()`
    /// writes it as a snapshot line where it arrived (with its error text), so
    /// the exported run re-opens reconciled, and `recordedSnapshots()` lists it.
    /// A later final state of the same execution replaces it. Not in `stepline/live`.
    ///
    /// @example
    /// ```js
    /// const report = session.ingestFinalState(await (await fetch(`/agents/${id}/state`)).json());
    /// report.view.executions.at(-1).error;   // "Connection refused": the stored state's words
    /// fs.writeFileSync('run.jsonl', session.toRecording()); // re-opens with the same ending
    /// ```
    #[wasm_bindgen(js_name = ingestFinalState, unchecked_return_type = "ReconcileReport")]
    pub fn ingest_final_state(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SlimSnapshot | object | string")] state: JsValue,
    ) -> Result<JsValue, JsValue> {
        let value = from_js(&state, "the final state");
        let report = value.and_then(|v| {
            let mut inner = self.inner.borrow_mut();
            inner.core.ingest_final_state(&v, &clock())
        });
        let inner = self.inner.borrow();
        out_with(report, |r| to_js_of(&r.view(&inner.core)))
    }

    /// The session against a producer's final form: an AG-UI message array
    /// (or its `MESSAGES_SNAPSHOT` event), an AI SDK `UIMessage[]`, or
    /// laravel/ai's stored `agent_conversation_messages` rows (JSON columns
    /// decoded or as stored text). `{ consistent, dialect, differences,
    /// turns, unpaired_executions }`: the differences have `reconcile()`'s
    /// kinds, each with its `execution_id` and run `step`. The dialect is
    /// detected when `options.dialect` is absent; a form of no known shape
    /// throws a `SteplineError` with the path that decided it. Not in
    /// `stepline/live`.
    ///
    /// @example
    /// ```js
    /// const session = new Session();
    /// session.ingestJsonl(recordedEvents);            // AI SDK UI stream chunks, one a line
    /// const report = session.reconcileMessages(await loadChat(chatId)); // UIMessage[]
    /// report.dialect;                                  // "ai-sdk"
    /// for (const d of report.differences) console.warn(d.execution_id, d.step, d.kind, d.message);
    /// session.reconcileMessages(rows, { dialect: 'laravel-ai' }); // rows of agent_conversation_messages
    /// ```
    #[wasm_bindgen(js_name = reconcileMessages, unchecked_return_type = "MessagesReconcileReport")]
    pub fn reconcile_messages(
        &self,
        #[wasm_bindgen(
            unchecked_param_type = "readonly object[] | { type: \"MESSAGES_SNAPSHOT\"; messages: readonly object[] } | string"
        )]
        final_form: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "ReconcileMessagesOptions | null")]
        options: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        let inner = self.inner.borrow();
        let report = options_map(&options)
            .and_then(|m| ReconcileMessagesOptions::from_value(Some(&Value::Object(m)), "/options"))
            .and_then(|o| {
                let form = from_js(&final_form, "the final form")?;
                inner.core.reconcile_messages(&form, &o)
            });
        out_with(report, to_js_of)
    }
}

/// The producer behaviours a reconciliation names in `Difference.cause`:
/// `[{ name, producer, items, description }]`, the one list (the v1.22
/// exception path, and v2's failed state after a failing tool, aborted steps,
/// guard-stopped steps and unforced stops). Not in `stepline/live`.
///
/// @example
/// ```js
/// const why = new Map(reconcileCauses().map((c) => [c.name, c.description]));
/// for (const d of session.reconcile(snapshot).differences) {
///   console.log(d.kind, d.cause ? `by design: ${why.get(d.cause)}` : 'unexplained');
/// }
/// ```
#[wasm_bindgen(js_name = reconcileCauses, unchecked_return_type = "ReconcileCause[]")]
pub fn reconcile_causes() -> Result<JsValue, JsValue> {
    to_js_of(&CAUSES)
}

/// A final state from JavaScript (an object, or its JSON text).
fn read_final_state(state: &JsValue) -> Result<FinalState, SteplineError> {
    let value = from_js(state, "the final state")?;
    FinalState::read(&value, &clock())
}

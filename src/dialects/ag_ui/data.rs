//! State, activities and subagents: what AG-UI carries that is `agent.data`.

use super::read::{missing, obj, opt_str, req_str, wrong};
use super::{Ev, State};
use crate::error::Result;
use crate::json::patch::{self as json_patch, PatchFailure};
use crate::json::{Map, Value};

/// The most the agent state may hold, as [`json_patch::size`] counts it
/// (one per value plus the bytes of its strings and keys: about its JSON
/// text's length): 8 Mi, the session's default text limit. A snapshot or
/// delta that would take the state past it is not applied: the state is
/// left as it was, one `limit_exceeded` warning says so, and the deltas
/// after it are not applied either (they patch a state this session no
/// longer holds) until a `STATE_SNAPSHOT` within the limit arrives.
pub const STATE_LIMIT: usize = json_patch::SIZE_LIMIT;

impl State {
    pub(super) fn state_snapshot(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let snapshot = event.get("snapshot").ok_or_else(|| missing("snapshot"))?;
        let size = json_patch::size(snapshot);
        if size > STATE_LIMIT {
            self.state_over_limit(
                "/snapshot",
                format!("the state snapshot's size is {size}, past the limit of {STATE_LIMIT}"),
                ev,
            );
            return Ok(());
        }
        self.state = Some(snapshot.clone());
        self.state_size = size;
        self.state_suspended = false;
        self.show_state(ev);
        Ok(())
    }

    /// The whole state as `agent.data` `state`: at a snapshot, and at the
    /// first delta of a run (a new execution holds no state yet); the other
    /// deltas send only their patch.
    fn show_state(&mut self, ev: &mut Ev<'_>) {
        let state = self.state.clone().unwrap_or(Value::Object(Map::new()));
        self.data("state", state, ev);
        self.state_shown = Some(self.exec());
    }

    /// Stops following the state (once: later deltas are skipped silently
    /// until a snapshot, as this warning says).
    fn state_over_limit(&mut self, at: &str, why: String, ev: &mut Ev<'_>) {
        if self.state_suspended {
            return;
        }
        self.state_suspended = true;
        ev.out.warn(
            at,
            "limit_exceeded",
            format!(
                "{why}: the state is left as it was, and state deltas are not applied until a STATE_SNAPSHOT within the limit"
            ),
        );
    }

    pub(super) fn state_delta(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let delta = event.get("delta").ok_or_else(|| missing("delta"))?;
        if self.state_suspended {
            // Not applied, but still read for shape: a malformed delta is bad input.
            return match json_patch::apply(&Value::Object(Map::new()), delta, "/delta") {
                Err(PatchFailure::Malformed(e)) => Err(e),
                _ => Ok(()),
            };
        }
        let state = match &mut self.state {
            Some(s) => s,
            None => {
                self.state_size = 1;
                self.state.insert(Value::Object(Map::new()))
            }
        };
        match json_patch::apply_in_place(state, delta, "/delta", &mut self.state_size, STATE_LIMIT)
        {
            Ok(()) => {
                if self.state_shown.as_ref() == Some(&self.exec()) {
                    let exec = self.exec();
                    ev.out
                        .emit_data_patch(exec.as_deref(), ev.ts.clone(), "state", delta.clone());
                } else {
                    self.show_state(ev);
                }
                Ok(())
            }
            Err(PatchFailure::Malformed(e)) => Err(e),
            Err(PatchFailure::NotApplicable(e)) => {
                ev.out.warn(
                    e.path.as_deref().unwrap_or("/delta"),
                    "gap",
                    format!(
                        "the state delta does not apply to the state held (a snapshot or delta before it is missing): {}; the state is unchanged",
                        e.message
                    ),
                );
                Ok(())
            }
            Err(PatchFailure::LimitExceeded(e)) => {
                let at = e.path.clone().unwrap_or_else(|| "/delta".to_string());
                self.state_over_limit(&at, e.message, ev);
                Ok(())
            }
        }
    }

    pub(super) fn activity_snapshot(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let id = req_str(event, "messageId")?;
        let activity_type = req_str(event, "activityType")?;
        let content = event.get("content").ok_or_else(|| missing("content"))?;
        if !content.is_object() {
            return Err(wrong("content", "an object", content));
        }
        let replace = match event.get("replace") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(wrong("replace", "a boolean", other)),
        };
        if replace || !self.activities.contains_key(id) {
            let entry = obj([
                ("activityType", activity_type.into()),
                ("content", content.clone()),
            ]);
            self.activities.insert(id.to_string(), entry);
        }
        self.data_activity(id, ev);
        Ok(())
    }

    /// `agent.data` `activity:<messageId>`: the activity's type and content.
    pub(super) fn data_activity(&self, id: &str, ev: &mut Ev<'_>) {
        let entry = self.activities.get(id).cloned().unwrap_or(Value::Null);
        self.data(&format!("activity:{id}"), entry, ev);
    }

    pub(super) fn activity_delta(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let id = req_str(event, "messageId")?;
        let activity_type = req_str(event, "activityType")?;
        let patch = event.get("patch").ok_or_else(|| missing("patch"))?;
        let Some(entry) = self.activities.get_mut(id).and_then(Value::as_object_mut) else {
            // Checked for shape even though there is nothing to apply it to.
            json_patch::apply(&Value::Object(Map::new()), patch, "/patch").or_else(
                |f| match f {
                    PatchFailure::Malformed(e) => Err(e),
                    PatchFailure::NotApplicable(_) | PatchFailure::LimitExceeded(_) => {
                        Ok(Value::Null)
                    }
                },
            )?;
            ev.out.warn(
                "/messageId",
                "gap",
                format!("activity `{id}` changed, but its ACTIVITY_SNAPSHOT never arrived: the change is not applied"),
            );
            return Ok(());
        };
        let content = entry
            .get("content")
            .cloned()
            .unwrap_or(Value::Object(Map::new()));
        match json_patch::apply(&content, patch, "/patch") {
            Ok(next) => {
                entry.insert("activityType", Value::from(activity_type));
                entry.insert("content", next);
            }
            Err(PatchFailure::Malformed(e)) => return Err(e),
            Err(PatchFailure::LimitExceeded(e)) => {
                ev.out.warn(
                    e.path.as_deref().unwrap_or("/patch"),
                    "limit_exceeded",
                    format!("{}: activity `{id}` is left as it was", e.message),
                );
                return Ok(());
            }
            Err(PatchFailure::NotApplicable(e)) => {
                ev.out.warn(
                    e.path.as_deref().unwrap_or("/patch"),
                    "gap",
                    format!(
                        "the activity delta does not apply to activity `{id}` as held: {}; it is unchanged",
                        e.message
                    ),
                );
                return Ok(());
            }
        }
        self.data_activity(id, ev);
        Ok(())
    }

    pub(super) fn subagent(&mut self, kind: &str, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let id = req_str(event, "subagentRunId")?;
        let entry = match kind {
            "SUBAGENT_STARTED" => {
                let name = req_str(event, "name")?;
                let mut m = Map::with_capacity(4);
                m.insert("name", Value::from(name));
                m.insert("status", Value::from("running"));
                for key in [
                    "description",
                    "parentSubagentRunId",
                    "parentToolCallId",
                    "parentMessageId",
                ] {
                    if let Some(v) = opt_str(event, key)? {
                        m.insert(key.to_string(), Value::from(v));
                    }
                }
                m
            }
            "SUBAGENT_FINISHED" => {
                let mut m = self
                    .subagents
                    .get(id)
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                let status = match event.get("outcome") {
                    Some(Value::Object(o)) => o
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or("success")
                        .to_string(),
                    None | Some(Value::Null) => "success".to_string(),
                    Some(other) => return Err(wrong("outcome", "an object", other)),
                };
                m.insert("status", Value::from(status));
                if let Some(r) = event.get("result").filter(|v| !v.is_null()) {
                    m.insert("result", r.clone());
                }
                m
            }
            _ => {
                let message = req_str(event, "message")?;
                let mut m = self
                    .subagents
                    .get(id)
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                m.insert("status", Value::from("failed"));
                m.insert("error", Value::from(message));
                if let Some(code) = opt_str(event, "code")? {
                    m.insert("code", Value::from(code));
                }
                m
            }
        };
        self.subagents.insert(id.to_string(), Value::Object(entry));
        self.data("subagents", Value::Object(self.subagents.clone()), ev);
        Ok(())
    }
}

//! Role helpers on message objects (seed 004, issue 4).
//!
//! A message's role is read exactly as the producer does: case-sensitive, and
//! any unknown role string counts as `user`.

use wasm_bindgen::prelude::*;

use crate::error::{ErrorCode, SteplineError};
use crate::model::Role;

use super::errors::to_js_error;
use super::walk;

const ROLES: &str = "/roles";

/// One entry of `hasRole`'s `roles`: a role name, or an `invalid_value` error.
fn role_named(value: &JsValue, i: u32) -> Result<Role, SteplineError> {
    let name = value.as_string().unwrap_or_default();
    Role::try_from_str(&name).ok_or_else(|| {
        SteplineError::at(
            ErrorCode::InvalidValue,
            &format!("{ROLES}/{i}"),
            format!(
                "expected a role (system, developer, user, assistant, tool), found {}",
                crate::json::quote(&name)
            ),
        )
    })
}

/// The message's role. A message that is not an object, or whose role is not
/// a string, has no role string and counts as `user` like any unknown role (as
/// in the producer). A role that cannot be read at all (a getter or Proxy trap
/// that throws, a revoked Proxy) is an `invalid_value` error at `/role`, as an
/// unreadable `roles` list is for `hasRole`: answering `user` for it would be a
/// silently wrong value. What was thrown never reaches the wasm frames
/// (`walk::get` catches).
fn role_of(message: &JsValue) -> Result<Role, JsValue> {
    let raw = if message.is_object() {
        walk::get(message, "role", "")
            .map_err(to_js_error)?
            .as_string()
    } else {
        None
    };
    Ok(Role::from_str_or_user(raw.as_deref().unwrap_or("")))
}

/// True for a `user` message (and, as in the producer, for unknown roles).
/// Like every role helper, throws {@link SteplineError} (`invalid_value`, path
/// `/role`) when reading the role throws (a getter, a Proxy trap).
///
/// @example
/// ```js
/// isUser({ role: 'user', content: 'hi' }); // true
/// ```
#[wasm_bindgen(js_name = isUser)]
pub fn is_user(
    #[wasm_bindgen(unchecked_param_type = "MessageLike")] message: JsValue,
) -> Result<bool, JsValue> {
    Ok(role_of(&message)?.is_user())
}

/// True for an `assistant` message.
///
/// @example
/// ```js
/// state.messageStore.sections[0].messages.filter(isAssistant);
/// ```
#[wasm_bindgen(js_name = isAssistant)]
pub fn is_assistant(
    #[wasm_bindgen(unchecked_param_type = "MessageLike")] message: JsValue,
) -> Result<bool, JsValue> {
    Ok(role_of(&message)?.is_assistant())
}

/// True for a `tool` (tool result) message.
///
/// @example
/// ```js
/// isTool({ role: 'tool', content: '{"temp":21}' }); // true
/// ```
#[wasm_bindgen(js_name = isTool)]
pub fn is_tool(
    #[wasm_bindgen(unchecked_param_type = "MessageLike")] message: JsValue,
) -> Result<bool, JsValue> {
    Ok(role_of(&message)?.is_tool())
}

/// True for `system` **and** `developer` messages (both instruct the model).
///
/// @example
/// ```js
/// isSystem({ role: 'developer', content: 'Be terse.' }); // true
/// ```
#[wasm_bindgen(js_name = isSystem)]
pub fn is_system(
    #[wasm_bindgen(unchecked_param_type = "MessageLike")] message: JsValue,
) -> Result<bool, JsValue> {
    Ok(role_of(&message)?.is_system())
}

/// True for a `developer` message only.
///
/// @example
/// ```js
/// isDeveloper({ role: 'system', content: '…' }); // false
/// ```
#[wasm_bindgen(js_name = isDeveloper)]
pub fn is_developer(
    #[wasm_bindgen(unchecked_param_type = "MessageLike")] message: JsValue,
) -> Result<bool, JsValue> {
    Ok(role_of(&message)?.is_developer())
}

/// True when the message has any of `roles` (one role or a list).
/// Throws {@link SteplineError} (`invalid_value`) for a string that is not a role,
/// for a list whose items cannot be read (a throwing getter or Proxy trap), or
/// when the message's role cannot be read (path `/role`).
///
/// @example
/// ```js
/// hasRole(message, ['user', 'assistant']);
/// ```
#[wasm_bindgen(js_name = hasRole)]
pub fn has_role(
    #[wasm_bindgen(unchecked_param_type = "MessageLike")] message: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Role | Role[]")] roles: JsValue,
) -> Result<bool, JsValue> {
    let parsed = roles_of(&roles).map_err(to_js_error)?;
    Ok(role_of(&message)?.has_role(&parsed))
}

/// `hasRole`'s `roles`: one role or a list, read item by item (not `Array.from`,
/// whose iteration runs a Proxy's traps outside a `catch` import).
fn roles_of(roles: &JsValue) -> Result<Vec<Role>, SteplineError> {
    if !walk::is_array(roles, ROLES)? {
        return Ok(vec![role_named(roles, 0)?]);
    }
    let mut parsed = Vec::new();
    for i in 0..walk::length(roles, ROLES)? {
        parsed.push(role_named(&walk::get_index(roles, i, ROLES)?, i)?);
    }
    Ok(parsed)
}

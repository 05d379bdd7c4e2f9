//! An execution's `agent.data`: the latest value under each name, kept in
//! [`Execution::data`] (in first-seen order, as the view shows it) and found
//! through an index, since the object's own lookup scans its members: a
//! stream of distinct names (AG-UI `CUSTOM` events, AI SDK `data-*` parts
//! with distinct ids or none) cost the square of their number.
//!
//! What one execution holds under all its names is at most [`DATA_LIMIT`],
//! counted as [`crate::json::patch::size`] counts (one per value plus the
//! bytes of its strings and keys, about its JSON text's length). A value
//! that would take it past the limit is not kept (a name seen before keeps
//! its earlier value), and the first such value raises the execution's one
//! `limit_exceeded` warning for data (src/session/limits.rs).
//!
//! A translated `agent.data` envelope may carry a patch instead of a value
//! (`crate::envelope::event::DATA_PATCH`: AG-UI's state deltas); it is applied in
//! place to the value held, which the translator sent whole before.

use std::collections::BTreeMap;

#[cfg(feature = "full")]
use crate::json::patch::apply_in_place;
use crate::json::patch::size;
use crate::json::Value;
use crate::session::limits::Cap;
use crate::session::view::Execution;

/// The most one execution keeps under all its `agent.data` names: 16 Mi in
/// [`size`] (twice an AG-UI state's own limit, `crate::dialects::ag_ui::STATE_LIMIT`,
/// so a state at its limit still leaves room for the rest).
pub const DATA_LIMIT: usize = 16 << 20;

/// Where each name's value is in `Execution::data`, and its size. (A map
/// of `String` to `u64`, the session's other maps' type: one more key or
/// value type is one more copy of the tree's code in the wasm.)
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct DataIndex {
    /// Each name's place in `Execution::data`.
    places: BTreeMap<String, u64>,
    /// By place, the size of the name and its value.
    sizes: Vec<usize>,
    /// The sizes summed.
    held: usize,
    /// How many times a value was set: the live patch sends the data again
    /// only when this moved (src/session/patch.rs), so a large AG-UI state
    /// is not written out on every read.
    changes: u64,
}

impl DataIndex {
    /// The place of `name`'s value and its size.
    fn get(&self, name: &str) -> Option<(usize, usize)> {
        let i = usize::try_from(*self.places.get(name)?).ok()?;
        Some((i, *self.sizes.get(i)?))
    }

    /// Records `name`'s value at place `i` with its size.
    fn set(&mut self, name: String, i: usize, size: usize) {
        self.changes = self.changes.wrapping_add(1);
        if self.sizes.len() <= i {
            self.sizes.resize(i + 1, 0);
        }
        if let Some(s) = self.sizes.get_mut(i) {
            *s = size;
        }
        self.places.insert(name, i as u64);
    }
}

impl DataIndex {
    /// How many times a value was set (see [`DataIndex::changes`]'s field).
    pub(crate) fn changes(&self) -> u64 {
        self.changes
    }
}

/// Sets the value under `name` (within the limit).
pub(crate) fn put(exec: &mut Execution, name: String, value: Value) {
    let grow = size(&value) + name.len();
    match exec.data_index.get(&name) {
        Some((i, old)) => {
            let next = exec.data_index.held - old + grow;
            if next > DATA_LIMIT {
                exec.limits.reached(Cap::Data);
                return;
            }
            if let Some(slot) = exec.data.value_at_mut(i) {
                *slot = value;
            }
            exec.data_index.held = next;
            exec.data_index.set(name, i, grow);
        }
        None => {
            let next = exec.data_index.held + grow;
            if next > DATA_LIMIT {
                exec.limits.reached(Cap::Data);
                return;
            }
            let i = exec.data.len();
            exec.data_index.set(name.clone(), i, grow);
            exec.data_index.held = next;
            // The index says the name is new: no scan of the members.
            exec.data.push_indexed(name, value);
        }
    }
}

/// Applies `patch` to the value under `name`. A name with no value (one the
/// limit refused) stays without one: the warning was given.
#[cfg(feature = "full")]
pub(crate) fn patch(exec: &mut Execution, name: &str, patch: &Value) {
    let Some((i, old)) = exec.data_index.get(name) else {
        return;
    };
    let Some(slot) = exec.data.value_at_mut(i) else {
        return;
    };
    let others = exec.data_index.held - old;
    let mut held = old - name.len();
    let room = DATA_LIMIT.saturating_sub(others + name.len());
    // The translator applied the same patch to the same value: it applies
    // here too, unless the limit of all the execution's data refuses it.
    if apply_in_place(slot, patch, "", &mut held, room).is_err() {
        exec.limits.reached(Cap::Data);
        return;
    }
    let grow = held + name.len();
    exec.data_index.held = others + grow;
    exec.data_index.set(name.to_string(), i, grow);
}

/// The size of all the execution's data (for tests and accounting).
pub fn held(exec: &Execution) -> usize {
    exec.data_index.held
}

//! The messages, reasoning messages and tool calls of a stream, by id.

use std::cell::Cell;
use std::collections::BTreeMap;

/// Values by id, for the lookups an AG-UI stream makes: nearly every event
/// names the message or call the event before it named (a message's content
/// arrives delta by delta), so the last id found is compared first, once,
/// before the B-tree's several comparisons (in the wasm each comparison of
/// two ids is a byte loop as long as they share a prefix). Nothing is ever
/// removed.
#[derive(Debug, Clone, Default)]
pub(super) struct Ids<V> {
    /// Each value with its id, in order of first insert.
    slots: Vec<(String, V)>,
    /// Each id's place in `slots`.
    index: BTreeMap<String, usize>,
    /// The place of the id found last.
    last: Cell<usize>,
}

impl<V> Ids<V> {
    /// The place of `id` in `slots`, if it has one.
    fn find(&self, id: &str) -> Option<usize> {
        let last = self.last.get();
        // Lengths first, then eight bytes at a time (`==` is a byte loop in the wasm).
        if self
            .slots
            .get(last)
            .is_some_and(|(k, _)| crate::json::same_key(k, id))
        {
            return Some(last);
        }
        let at = *self.index.get(id)?;
        self.last.set(at);
        Some(at)
    }

    pub(super) fn get(&self, id: &str) -> Option<&V> {
        let at = self.find(id)?;
        self.slots.get(at).map(|(_, v)| v)
    }

    pub(super) fn get_mut(&mut self, id: &str) -> Option<&mut V> {
        let at = self.find(id)?;
        self.slots.get_mut(at).map(|(_, v)| v)
    }

    pub(super) fn contains_key(&self, id: &str) -> bool {
        self.find(id).is_some()
    }

    /// Sets the value of `id` (replacing the one it had).
    pub(super) fn insert(&mut self, id: &str, value: V) {
        match self.get_mut(id) {
            Some(slot) => *slot = value,
            None => self.push(id, value),
        }
    }

    fn push(&mut self, id: &str, value: V) {
        let at = self.slots.len();
        self.index.insert(id.to_string(), at);
        self.slots.push((id.to_string(), value));
        self.last.set(at);
    }
}

#[cfg(test)]
mod tests {
    use super::Ids;

    #[test]
    fn ids_find_every_value_whichever_was_found_last() {
        let mut ids = Ids::default();
        ids.insert("msg-1", 1);
        ids.insert("msg-2", 2);
        assert_eq!(ids.get("msg-1"), Some(&1));
        assert_eq!(ids.get("msg-2"), Some(&2));
        assert_eq!(ids.get("msg-2"), Some(&2));
        assert_eq!(ids.get("msg-3"), None);
        assert_eq!(ids.get("msg-2"), Some(&2), "a miss leaves the last found");
        ids.insert("msg-1", 10);
        assert_eq!(ids.get("msg-1"), Some(&10), "insert replaces");
        ids.insert("msg-3", 3);
        if let Some(v) = ids.get_mut("msg-2") {
            *v += 5;
        }
        assert_eq!(ids.get("msg-3"), Some(&3));
        assert_eq!(ids.get("msg-2"), Some(&7));
        assert!(ids.contains_key("msg-1") && !ids.contains_key(""));
        if let Some(v) = ids.get_mut("msg-1") {
            *v = 11;
        }
        assert_eq!(ids.get("msg-1"), Some(&11));
    }
}

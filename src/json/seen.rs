//! A set of fingerprints (src/json/fingerprint.rs): the session's
//! redelivery identities (src/session/dedup.rs) and a dialect's event ids
//! (src/dialects/laravel_ai/mod.rs) are kept as these, 8 bytes each.

use crate::json::fingerprint::{avalanche, Fingerprint};

/// The fingerprints seen so far: an open-addressing set (linear probing,
/// backward-shift removal). A fingerprint is already a uniform hash, so it
/// needs no hasher, only a per-set random seed: without it a producer could
/// pick envelopes whose fingerprints crowd one run of slots and make every
/// insert slow. Not a `BTreeSet`: walking the tree cost bulk replays time and
/// its code wasm bytes (bench/findings.md).
///
/// A slot keeps 64 bits of the 128-bit fingerprint (its two lanes folded),
/// half the table's memory: two different envelopes are taken for one with
/// probability about n²/2⁶⁵ after n envelopes, 3·10⁻⁸ at a million.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    /// Capacity a power of two (or none yet); `EMPTY` marks a free slot.
    slots: Vec<u64>,
    len: usize,
    /// Drawn with the first slots (`grow`): a step's citation index is a set
    /// that usually stays empty, and drawing randomness crosses into
    /// JavaScript in the wasm.
    seed: u64,
    /// Whether a fingerprint folding to `EMPTY` was inserted (it cannot sit in a slot).
    has_empty: bool,
}

const EMPTY: u64 = 0;

/// The 64 bits of a fingerprint a [`Seen`] slot keeps: all that is needed
/// to take it out of the set again, so a holder that may have to (a chunk
/// of the stream text, src/session/text.rs) keeps this instead of the
/// 16-byte fingerprint.
pub type SeenKey = u64;

/// The key a fingerprint has in a [`Seen`].
pub fn seen_key(fp: Fingerprint) -> SeenKey {
    fp.0 ^ fp.1
}

/// Two sets are equal when they hold the same fingerprints (their seeds,
/// and so their slots' order, differ).
impl PartialEq for Seen {
    fn eq(&self, other: &Seen) -> bool {
        self.len == other.len
            && self.has_empty == other.has_empty
            && self
                .slots
                .iter()
                .filter(|&&k| k != EMPTY)
                .all(|&k| other.holds(k))
    }
}

impl Seen {
    /// Whether a slot holds `key` (not `EMPTY`).
    fn holds(&self, key: u64) -> bool {
        !self.slots.is_empty() && self.at(self.find(key)) == key
    }

    fn home(&self, key: u64) -> usize {
        avalanche(key ^ self.seed) as usize & (self.slots.len() - 1)
    }

    /// What slot `i` holds (`EMPTY` past the end).
    fn at(&self, i: usize) -> u64 {
        self.slots.get(i).copied().unwrap_or(EMPTY)
    }

    fn put(&mut self, i: usize, key: u64) {
        if let Some(slot) = self.slots.get_mut(i) {
            *slot = key;
        }
    }

    /// The slot holding `key`, or the free slot ending its probe run.
    fn find(&self, key: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        while self.at(i) != key && self.at(i) != EMPTY {
            i = (i + 1) & mask;
        }
        i
    }

    /// Whether `fp` was inserted (and not removed since).
    pub fn contains(&self, fp: Fingerprint) -> bool {
        let key = seen_key(fp);
        if key == EMPTY {
            return self.has_empty;
        }
        self.holds(key)
    }

    /// Adds `fp`; `false` when it was there already.
    pub fn insert(&mut self, fp: Fingerprint) -> bool {
        self.insert_key(seen_key(fp))
    }

    /// Adds a fingerprint by its [`seen_key`]; `false` when it was there already.
    pub fn insert_key(&mut self, key: SeenKey) -> bool {
        if key == EMPTY {
            let new = !self.has_empty;
            self.has_empty = true;
            self.len += usize::from(new);
            return new;
        }
        // Grown at three quarters full: probe runs stay short.
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let i = self.find(key);
        if self.at(i) == key {
            return false;
        }
        self.put(i, key);
        self.len += 1;
        true
    }

    /// Forgets a fingerprint (of an envelope whose text was dropped) by
    /// its [`seen_key`].
    pub fn remove(&mut self, key: SeenKey) {
        if key == EMPTY {
            self.len -= usize::from(self.has_empty);
            self.has_empty = false;
            return;
        }
        if self.slots.is_empty() {
            return;
        }
        let mut hole = self.find(key);
        if self.at(hole) != key {
            return;
        }
        // Backward shift: pull later members of the run into the hole when
        // their home is not between the hole and where they sit.
        let mask = self.slots.len() - 1;
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let here = self.at(j);
            if here == EMPTY {
                break;
            }
            let home = self.home(here);
            let stays = if hole <= j {
                hole < home && home <= j
            } else {
                hole < home || home <= j
            };
            if !stays {
                self.put(hole, here);
                hole = j;
            }
        }
        self.put(hole, EMPTY);
        self.len -= 1;
    }

    fn grow(&mut self) {
        if self.slots.is_empty() {
            self.seed = uuid::Uuid::new_v4().as_u64_pair().0;
        }
        let capacity = (self.slots.len() * 2).max(16);
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; capacity]);
        for key in old.into_iter().filter(|&k| k != EMPTY) {
            let i = self.find(key);
            self.put(i, key);
        }
    }

    /// How many fingerprints it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::fingerprint::K2;

    /// Against a sorted set: any sequence of inserts and removals, with
    /// fingerprints drawn from a small pool so runs collide and wrap.
    #[test]
    fn seen_behaves_as_a_set_under_inserts_and_removals() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for round in 0..40 {
            let pool: Vec<Fingerprint> = (0..(8 + round * 13))
                .map(|i| if i == 0 { (0, 0) } else { (next(), next()) })
                .collect();
            let mut seen = Seen::default();
            let mut model = std::collections::BTreeSet::new();
            for _ in 0..4000 {
                let fp = pool[next() as usize % pool.len()];
                if next() % 3 == 0 {
                    seen.remove(seen_key(fp));
                    model.remove(&fp);
                } else {
                    assert_eq!(seen.insert(fp), model.insert(fp));
                }
                assert_eq!(seen.len(), model.len());
            }
            for fp in &pool {
                // Present exactly when the model has it: inserting reports so.
                let mut probe = seen.clone();
                assert_eq!(probe.insert(*fp), !model.contains(fp));
            }
        }
    }

    #[test]
    fn a_hundred_thousand_fingerprints_are_each_seen_once() {
        let mut seen = Seen::default();
        for i in 0..100_000u64 {
            let fp = (avalanche(i), avalanche(i ^ K2));
            assert!(seen.insert(fp));
            assert!(!seen.insert(fp));
        }
        assert_eq!(seen.len(), 100_000);
    }
}

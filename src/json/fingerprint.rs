//! A 128-bit fingerprint of a JSON value, computed by walking it: nothing is
//! serialised and nothing of the value is kept. What redelivery detection
//! keys on (src/session/dedup.rs, and the dialects' run-redelivery rule).
//!
//! Two 64-bit multiply-rotate lanes with different constants, each finished
//! with a full avalanche, give 128 bits: for two different values to be taken
//! for one, both halves must collide. The hash is not keyed: it guards against
//! accidents, not against a producer that forges collisions. These lanes read
//! eight bytes per step, where SipHash was much slower on bulk ingest
//! (bench/findings.md).

use crate::json::Value;

/// A 128-bit identity of a value.
pub type Fingerprint = (u64, u64);

/// Feeds a value's structure into two independent hash lanes.
#[derive(Clone)]
pub struct Fingerprinter {
    a: u64,
    b: u64,
}

pub(crate) const K1: u64 = 0x9e37_79b9_7f4a_7c15;
pub(crate) const K2: u64 = 0xc2b2_ae3d_27d4_eb4f;

/// The last `tail.len()` (1 to 7) bytes of `bytes`, little-endian, zero
/// above: of a run of eight or more, its last eight bytes read in one load
/// and shifted (a byte at a time showed in bulk replay profiles,
/// bench/findings.md); of a shorter run, byte by byte.
fn tail_word(bytes: &[u8], tail: &[u8]) -> u64 {
    let last8 = bytes
        .len()
        .checked_sub(8)
        .and_then(|from| bytes.get(from..))
        .and_then(|b| <[u8; 8]>::try_from(b).ok());
    match last8 {
        Some(word) => u64::from_le_bytes(word) >> ((8 - tail.len()) * 8),
        None => tail.iter().rev().fold(0u64, |w, &b| w << 8 | u64::from(b)),
    }
}

/// splitmix64's finaliser: every input bit affects every output bit.
pub(crate) fn avalanche(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Default for Fingerprinter {
    fn default() -> Self {
        Self::new()
    }
}

impl Fingerprinter {
    /// A fingerprinter with nothing fed yet.
    pub fn new() -> Fingerprinter {
        Fingerprinter {
            a: 0x243f_6a88_85a3_08d3,
            b: 0x1319_8a2e_0370_7344,
        }
    }

    pub(crate) fn word(&mut self, w: u64) {
        self.a = (self.a ^ w).wrapping_mul(K1).rotate_left(31);
        self.b = (self.b ^ w.rotate_left(17))
            .wrapping_mul(K2)
            .rotate_left(29);
    }

    /// A tagged, length-prefixed run of bytes, eight at a time.
    pub(crate) fn bytes(&mut self, tag: u8, bytes: &[u8]) {
        self.word(u64::from(tag) << 56 | bytes.len() as u64);
        let mut chunks = bytes.chunks_exact(8);
        // `try_into` is one load; `copy_from_slice` called memcpy per word in the wasm.
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let tail = chunks.remainder();
        if !tail.is_empty() {
            self.word(tail_word(bytes, tail));
        }
    }

    /// A string (length-prefixed, so `"ab","c"` and `"a","bc"` differ).
    pub fn str(&mut self, s: &str) {
        self.bytes(b's', s.as_bytes());
    }

    /// A member's value: a string, most of an envelope's values, fed here,
    /// anything else through [`value`](Fingerprinter::value). The same as
    /// `value`, without its call per member (about a sixth of the
    /// fingerprint walk of a bulk replay, bench/findings.md); only the walk's
    /// own loops use it, so the string's feeding is not copied into every
    /// caller of `value` (wasm size).
    pub(crate) fn member(&mut self, v: &Value) {
        match v {
            Value::String(s) => self.str(s),
            _ => self.value(v),
        }
    }

    /// The whole value. Object members are taken in their order (the
    /// normalised envelope's), numbers by kind so `1` and `1.0` differ.
    pub fn value(&mut self, v: &Value) {
        match v {
            Value::Null => self.bytes(b'n', &[]),
            Value::Bool(b) => self.bytes(b'b', &[u8::from(*b)]),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    self.bytes(b'i', &i.to_le_bytes());
                } else if let Some(u) = n.as_u64() {
                    self.bytes(b'u', &u.to_le_bytes());
                } else {
                    let f = n.as_f64().unwrap_or(f64::NAN);
                    self.bytes(b'f', &f.to_bits().to_le_bytes());
                }
            }
            Value::String(s) => self.str(s),
            Value::Array(items) => {
                self.bytes(b'[', &items.len().to_le_bytes());
                for item in items {
                    self.member(item);
                }
            }
            Value::Object(m) => {
                self.bytes(b'{', &m.len().to_le_bytes());
                for (k, item) in m {
                    self.str(k);
                    self.member(item);
                }
            }
        }
    }

    /// The fingerprint of everything fed so far.
    pub fn finish(&self) -> Fingerprint {
        (avalanche(self.a), avalanche(self.b ^ K1))
    }
}

#[cfg(test)]
mod tests {
    use super::tail_word;

    #[test]
    fn a_runs_tail_reads_as_its_bytes_little_endian_whatever_the_run_length() {
        let bytes: Vec<u8> = (1..=40u8).map(|b| b.wrapping_mul(37) ^ 0x5a).collect();
        for len in 1..bytes.len() {
            let run = &bytes[..len];
            let tail = &run[len - len % 8..];
            if tail.is_empty() {
                continue;
            }
            let byte_by_byte = tail.iter().rev().fold(0u64, |w, &b| w << 8 | u64::from(b));
            assert_eq!(tail_word(run, tail), byte_by_byte, "length {len}");
        }
    }
}

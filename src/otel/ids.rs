//! Deterministic trace and span ids: the same recording exports the same
//! spans, so a re-export replaces rather than duplicates them in a backend.
//! FNV-1a (64 bit) over a domain word and the ids that name the span; two
//! differently seeded hashes make the 128-bit trace id.

const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

fn fnv(seed: u64, parts: &[&str]) -> u64 {
    let mut h = FNV_OFFSET ^ seed;
    for part in parts {
        for b in part.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(FNV_PRIME);
        }
        // A separator, so ("ab", "c") and ("a", "bc") differ.
        h ^= 0xff;
        h = h.wrapping_mul(FNV_PRIME);
    }
    // All-zero ids are invalid in OTLP.
    if h == 0 {
        1
    } else {
        h
    }
}

/// A 16-character lowercase hex span id of `parts`.
pub fn span_id(parts: &[&str]) -> String {
    format!("{:016x}", fnv(0, parts))
}

/// A 32-character lowercase hex trace id of `parts`.
pub fn trace_id(parts: &[&str]) -> String {
    format!(
        "{:016x}{:016x}",
        fnv(0x5452_4143_4500_0001, parts),
        fnv(0x5452_4143_4500_0002, parts)
    )
}

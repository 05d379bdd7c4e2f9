//! A text block packed for keeping: the LZ77 family's simplest form.
//!
//! A long run's streamed text is the largest thing a session keeps, and the
//! published view holds it as well, so each block the stream has moved past
//! is kept packed (src/session/text_blocks.rs). Model text repeats itself
//! (words, markup, the phrases of a tool loop): prose packs to about half,
//! a run that repeats its phrases further (bench/findings.md).
//!
//! The packed form is a list of steps, each some bytes copied as they are
//! (the literals) followed by a copy of earlier output:
//!
//! ```text
//! step := token literal-bytes [distance (u16, little-endian)]
//! ```
//!
//! The last step has no copy; the unpacked length, kept beside the packed
//! bytes, says where the output ends. Copies reach back at most 65,535 bytes.

/// Bits of the hash that finds earlier occurrences of four bytes.
const HASH_BITS: u32 = 12;
/// The shortest copy worth its three or more bytes.
const MIN_COPY: usize = 4;
/// Earlier occurrences of a hash kept.
const WAYS: usize = 4;
const MAX_DISTANCE: usize = u16::MAX as usize;
/// An empty place in the hash table, which remembers the first 65,535
/// positions of a block (a block holds 64 KiB unless one piece is longer).
const NOWHERE: u16 = u16::MAX;

fn four(src: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(*src.get(at..)?.first_chunk::<4>()?))
}

fn hash(v: u32) -> usize {
    (v.wrapping_mul(2_654_435_761) >> (32 - HASH_BITS)) as usize
}

/// `n` past a token's nibble: 255s, then the rest (LZ4's count).
fn put_count(out: &mut Vec<u8>, mut n: usize) {
    while n >= 255 {
        out.push(255);
        n -= 255;
    }
    out.push(n as u8);
}

fn count(src: &[u8], at: &mut usize, nibble: u8) -> Option<usize> {
    let mut n = usize::from(nibble);
    if nibble == 15 {
        loop {
            let b = *src.get(*at)?;
            *at += 1;
            n = n.checked_add(usize::from(b))?;
            if b < 255 {
                break;
            }
        }
    }
    Some(n)
}

/// One step: a token (literal count, copy length - 4, a nibble each, 15
/// meaning "more follows"), the literals, and the copy's distance.
fn put_step(out: &mut Vec<u8>, literals: &[u8], copy: Option<(usize, usize)>) {
    let lit = literals.len().min(15) as u8;
    let len = copy.map_or(0, |(len, _)| (len - MIN_COPY).min(15) as u8);
    out.push(lit << 4 | len);
    if lit == 15 {
        put_count(out, literals.len() - 15);
    }
    out.extend_from_slice(literals);
    if let Some((len, distance)) = copy {
        out.extend_from_slice(&(distance as u16).to_le_bytes());
        if len - MIN_COPY >= 15 {
            put_count(out, len - MIN_COPY - 15);
        }
    }
}

/// How long the bytes at `at` and at `from` (before it) agree, compared
/// eight at a time.
fn agree(src: &[u8], from: usize, at: usize) -> usize {
    let (a, b) = (
        src.get(at..).unwrap_or_default(),
        src.get(from..).unwrap_or_default(),
    );
    let mut n = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let (Some(x), Some(y)) = (x.first_chunk::<8>(), y.first_chunk::<8>()) else {
            break;
        };
        let differ = u64::from_le_bytes(*x) ^ u64::from_le_bytes(*y);
        if differ != 0 {
            return n + (differ.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    let (a, b) = (
        a.get(n..).unwrap_or_default(),
        b.get(n..).unwrap_or_default(),
    );
    n + a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// `src` packed; [`unpack`] with `src.len()` gives it back.
pub fn pack(src: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(src.len() / 2);
    // Where each hashed four bytes began, the latest WAYS: the longest of several copies is often a word longer
    // than the latest (2.8 times smaller than the text against 2.5 on the
    // bench's run, bench/findings.md).
    let mut last = vec![[NOWHERE; WAYS]; 1 << HASH_BITS];
    let remember = |last: &mut Vec<[u16; WAYS]>, v: u32, at: usize| {
        if let (Some(ways), Ok(at)) = (last.get_mut(hash(v)), u16::try_from(at)) {
            ways.rotate_right(1);
            if let Some(w) = ways.first_mut() {
                *w = at;
            }
        }
    };
    let (mut literals, mut at) = (0, 0);
    while let Some(v) = four(src, at) {
        let ways = last.get(hash(v)).copied().unwrap_or_default();
        remember(&mut last, v, at);
        let best = ways
            .iter()
            .filter(|&&w| w != NOWHERE)
            .map(|&w| usize::from(w))
            .filter(|&from| from < at && at - from <= MAX_DISTANCE && four(src, from) == Some(v))
            .map(|from| (agree(src, from, at), from))
            .max_by_key(|&(len, from)| (len, from));
        let Some((len, from)) = best.filter(|&(len, _)| len >= MIN_COPY) else {
            at += 1;
            continue;
        };
        put_step(
            &mut out,
            src.get(literals..at).unwrap_or_default(),
            Some((len, at - from)),
        );
        // The copy's last fours, so that a copy can start inside it.
        for k in (at + len).saturating_sub(2)..at + len {
            if let Some(v) = four(src, k) {
                remember(&mut last, v, k);
            }
        }
        at += len;
        literals = at;
    }
    put_step(&mut out, src.get(literals..).unwrap_or_default(), None);
    out
}

/// The `len` bytes [`pack`] packed into `packed`; `None` when `packed` is
/// not such a form (it always is: the session packs its own text).
pub fn unpack(packed: &[u8], len: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(len);
    let mut at = 0;
    loop {
        let token = *packed.get(at)?;
        at += 1;
        let n = count(packed, &mut at, token >> 4)?;
        out.extend_from_slice(packed.get(at..at.checked_add(n)?)?);
        at += n;
        if out.len() >= len {
            return (out.len() == len && at == packed.len()).then_some(out);
        }
        let distance = usize::from(u16::from_le_bytes(*packed.get(at..)?.first_chunk::<2>()?));
        at += 2;
        let copy = count(packed, &mut at, token & 15)?.checked_add(MIN_COPY)?;
        let from = out.len().checked_sub(distance).filter(|_| distance > 0)?;
        if out.len() + copy > len {
            return None;
        }
        if distance >= copy {
            out.extend_from_within(from..from + copy);
            continue;
        }
        // A copy that overlaps what it writes (a run of one repeated byte):
        // byte by byte, each read after the one before it was written.
        for k in from..from + copy {
            let b = *out.get(k)?;
            out.push(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{pack, unpack};

    fn round_trip(src: &[u8]) -> usize {
        let packed = pack(src);
        assert_eq!(unpack(&packed, src.len()).as_deref(), Some(src));
        packed.len()
    }

    /// `len` bytes of a seeded linear congruential sequence: nothing repeats.
    fn noise(mut seed: u32, len: usize) -> Vec<u8> {
        (0..len)
            .map(|_| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (seed >> 16) as u8
            })
            .collect()
    }

    #[test]
    fn any_bytes_come_back_as_they_went_in() {
        round_trip(b"");
        round_trip(b"a");
        round_trip(b"abcd");
        round_trip(b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
        round_trip("晴朗 ✅ gęślą 🌤️ ".repeat(500).as_bytes());
        let noise = noise(9, 70_000);
        round_trip(&noise);
        // Copies that reach back the longest distance, and just past it.
        let mut far = noise.get(..40).unwrap_or_default().to_vec();
        far.extend(std::iter::repeat_n(b'.', 65_535 - 40));
        far.extend_from_slice(noise.get(..40).unwrap_or_default());
        far.extend_from_slice(noise.get(..40).unwrap_or_default());
        round_trip(&far);
    }

    #[test]
    fn repeated_text_packs_smaller_and_noise_grows_by_little() {
        let prose = "The tool returned three results; the agent summarised them. ".repeat(200);
        assert!(round_trip(prose.as_bytes()) < prose.len() / 10);
        let noise = noise(3, 10_000);
        assert!(round_trip(&noise) <= noise.len() + noise.len() / 200 + 8);
    }

    // proptest is a native dev-dependency only (Cargo.toml).
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #[test]
        fn any_text_of_repeated_words_comes_back_as_it_went_in(
            words in proptest::collection::vec("[a-zé晴✅ .]{1,9}", 1..60),
            picks in proptest::collection::vec(0usize..60, 0..3000),
        ) {
            let text: String = picks
                .iter()
                .map(|&i| words.get(i % words.len()).map_or("", String::as_str))
                .collect();
            round_trip(text.as_bytes());
        }
    }

    #[test]
    fn a_damaged_form_reads_as_none_not_a_panic() {
        let src = "abcabcabcabc hello hello hello".as_bytes();
        let packed = pack(src);
        for cut in 0..packed.len() {
            let _ = unpack(packed.get(..cut).unwrap_or_default(), src.len());
        }
        assert_eq!(unpack(&packed, src.len() + 1), None);
        assert_eq!(unpack(&[0xff; 12], 4), None);
        assert_eq!(
            unpack(&[0, 0, 1, 0], 8),
            None,
            "a copy from before the start"
        );
    }
}

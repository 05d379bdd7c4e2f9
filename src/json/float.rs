//! Decimal text to `f64`, correctly rounded, for every reader in the core
//! (JSON numbers, PHP numeric strings, epoch seconds).
//!
//! In the wasm the host's `Number()` reads it (src/host.rs): Rust's
//! own reader carries a table of powers of ten that is about a tenth of the
//! live entry, and every JavaScript engine already holds a correctly rounding
//! reader. Natively, Rust's reader. Only text in the decimal grammar
//! `[+-]digits[.digits][(e|E)[+-]digits]` (either side of the point may be
//! empty, not both) reaches either reader, and on that language the two agree:
//! both give the nearest double (tests/js/float-reader.test.mjs holds the
//! built package to `JSON.parse` on generated numbers, hard cases included).

/// The double nearest to `text`, or `None` when `text` is not decimal
/// number text. Overflow reads as an infinity, as both readers give it.
///
/// ```
/// use stepline::json::parse_f64;
/// assert_eq!(parse_f64("-1.5e3"), Some(-1500.0));
/// assert_eq!(parse_f64(".5"), Some(0.5));
/// assert_eq!(parse_f64("0.30000000000000004"), Some(0.1 + 0.2));
/// assert_eq!(parse_f64("inf"), None);
/// assert_eq!(parse_f64("0x10"), None);
/// ```
pub fn parse_f64(text: &str) -> Option<f64> {
    is_decimal(text).then(|| read(text))
}

#[cfg(target_arch = "wasm32")]
fn read(text: &str) -> f64 {
    crate::host::read(text)
}

#[cfg(not(target_arch = "wasm32"))]
fn read(text: &str) -> f64 {
    // The grammar was checked: Rust's reader accepts all of it.
    text.parse().unwrap_or(f64::NAN)
}

/// Whether `text` is in the decimal grammar both readers read alike.
fn is_decimal(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let whole = digits(&mut i);
    let mut fraction = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        fraction = digits(&mut i);
    }
    if whole + fraction == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_decimal_number_text_is_read() {
        for good in [
            "0", "-0", "+1", "1.", ".5", "1e5", "1E-5", "-2.5e+10", "00012",
        ] {
            assert_eq!(parse_f64(good), good.parse().ok(), "{good}");
        }
        for bad in [
            "", "-", ".", "e5", "1e", "1e+", "inf", "NaN", "0x10", " 1", "1 ", "1_0", "1.2.3",
        ] {
            assert_eq!(parse_f64(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn overflow_reads_as_infinity_as_both_readers_give_it() {
        assert_eq!(parse_f64("1e400"), Some(f64::INFINITY));
        assert_eq!(parse_f64("-1e400"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_f64("1e-400"), Some(0.0));
    }
}

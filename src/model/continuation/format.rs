//! PHP string formatting the reason strings depend on.

/// `sprintf('%.1f', $x)`: the exact binary value rounded to one decimal, ties to
/// even (599.95 is stored as 599.9500000000000455 and prints `600.0`; 0.25 is an
/// exact tie and prints `0.2`), as Rust's `{:.1}` does. Done in integer
/// arithmetic on the float's bits: `{:.1}` pulls exact-float formatting into the wasm.
pub fn one_decimal(x: f64) -> String {
    decimals(x, 1)
}

/// `sprintf('%.2f', $x)` (v2's time guard message), rounded as [`one_decimal`].
pub fn two_decimals(x: f64) -> String {
    decimals(x, 2)
}

/// `sprintf('%.{places}f', $x)` for 1 ≤ `places` ≤ 3, rounded as [`one_decimal`].
fn decimals(x: f64, places: u32) -> String {
    let scale: u128 = 10u128.pow(places);
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let bits = x.to_bits();
    let negative = bits >> 63 == 1;
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mantissa, exp2) = if exponent == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), exponent - 1075)
    };
    // x * 10^places = mantissa * 10^places * 2^exp2, rounded to an integer, ties to even.
    let scaled = u128::from(mantissa) * scale;
    let tenths: u128 = if exp2 >= 0 {
        match scaled
            .checked_shl(exp2 as u32)
            .filter(|v| v >> exp2 as u32 == scaled)
        {
            Some(v) => v,
            None => return crate::php::format_php_float(x),
        }
    } else {
        let shift = (-exp2) as u32;
        if shift >= 128 {
            0
        } else {
            let q = scaled >> shift;
            let rest = scaled - (q << shift);
            let half = 1u128 << (shift - 1);
            if rest > half || (rest == half && q % 2 == 1) {
                q + 1
            } else {
                q
            }
        }
    };
    // Beyond ~1.8e18 (never a real duration) PHP would print every digit; we
    // print the shortest exponent form instead.
    let Ok(mut rest) = u64::try_from(tenths) else {
        return crate::php::format_php_float(x);
    };
    let mut digits = Vec::new();
    loop {
        digits.push(b'0' + (rest % 10) as u8);
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    while digits.len() <= places as usize {
        digits.push(b'0');
    }
    let mut out = String::with_capacity(digits.len() + 2);
    if negative {
        out.push('-');
    }
    for (i, d) in digits.iter().rev().enumerate() {
        if i == digits.len() - places as usize {
            out.push('.');
        }
        out.push(*d as char);
    }
    out
}

/// PHP `ucfirst` (ASCII): `rate_limit` → `Rate_limit`.
pub fn ucfirst(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// The short class name the way the producer's `fromDecision` computes it:
/// `substr($class, strrpos($class, '\\') + 1)`. Quirk kept: with no backslash
/// `strrpos` is false (0), so the first character is dropped (`Foo` → `oo`).
pub fn reason_class_name(class: &str) -> &str {
    match class.rfind('\\') {
        Some(i) => &class[i + 1..],
        None => class.get(1..).unwrap_or(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_decimals_pads_and_rounds_like_sprintf() {
        assert_eq!(two_decimals(0.0), "0.00");
        assert_eq!(two_decimals(-1.0), "-1.00");
        assert_eq!(two_decimals(0.001), "0.00");
        assert_eq!(two_decimals(300.0), "300.00");
        assert_eq!(two_decimals(31.256), "31.26");
    }

    #[test]
    fn one_decimal_rounds_the_binary_value() {
        assert_eq!(one_decimal(599.95), "600.0");
        assert_eq!(one_decimal(599.94), "599.9");
        assert_eq!(one_decimal(0.25), "0.2");
        assert_eq!(one_decimal(0.75), "0.8");
        assert_eq!(one_decimal(12.345), "12.3");
        assert_eq!(one_decimal(1000.25), "1000.2");
        assert_eq!(one_decimal(0.05), "0.1");
        assert_eq!(one_decimal(-0.04), "-0.0");
        assert_eq!(one_decimal(0.0), "0.0");
        assert_eq!(one_decimal(5e-324), "0.0");
        assert_eq!(one_decimal(1e17), "100000000000000000.0");
        // Past u64 tenths (~1.8e18 s) the shortest exponent form is printed instead.
        assert_eq!(one_decimal(1e20), "1.0e+20");
        assert_eq!(one_decimal(0.96), "1.0");
    }

    #[test]
    fn one_decimal_agrees_with_rust_exact_formatting() {
        let mut x = 0.001f64;
        while x < 1e7 {
            for v in [x, -x, x * 1.000_000_1, x + 0.05, x * 3.3] {
                assert_eq!(one_decimal(v), format!("{v:.1}"), "{v}");
            }
            x *= 1.37;
        }
    }

    #[test]
    fn class_names_follow_the_producer_quirk() {
        assert_eq!(reason_class_name("A\\B"), "B");
        assert_eq!(reason_class_name("\\Leading"), "Leading");
        assert_eq!(reason_class_name("Foo"), "oo");
        assert_eq!(reason_class_name(""), "");
    }
}

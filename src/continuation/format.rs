//! PHP string formatting the reason strings depend on.

/// `sprintf('%.1f', $x)`: the exact binary value rounded to one decimal, ties to
/// even (599.95 is stored as 599.9500000000000455 and prints `600.0`; 0.25 is an
/// exact tie and prints `0.2`), which is what Rust's `{:.1}` does too.
pub fn one_decimal(x: f64) -> String {
    format!("{x:.1}")
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
    fn one_decimal_rounds_the_binary_value() {
        assert_eq!(one_decimal(599.95), "600.0");
        assert_eq!(one_decimal(599.94), "599.9");
        assert_eq!(one_decimal(0.25), "0.2");
        assert_eq!(one_decimal(0.75), "0.8");
        assert_eq!(one_decimal(12.345), "12.3");
    }

    #[test]
    fn class_names_follow_the_producer_quirk() {
        assert_eq!(reason_class_name("A\\B"), "B");
        assert_eq!(reason_class_name("\\Leading"), "Leading");
        assert_eq!(reason_class_name("Foo"), "oo");
        assert_eq!(reason_class_name(""), "");
    }
}

//! Content truncation. The reference cuts bytes (`substr($s, 0, $max) . '...'`),
//! which can split a UTF-8 character; stepline cuts at the last character
//! boundary within the limit unless `compat` (v1.22 quirk 1).

/// Cuts `s` to at most `max` bytes plus `...` when it is longer than `max`
/// bytes. `compat` reproduces the reference's byte cut; a split character then
/// shows as U+FFFD, since a JSON string cannot carry the broken bytes.
pub fn truncate(s: &str, max: i64, compat: bool) -> Option<String> {
    let max = crate::snapshot::config::limit(max);
    if s.len() <= max {
        return None;
    }
    let mut out = if compat {
        String::from_utf8_lossy(s.as_bytes().get(..max).unwrap_or_default()).into_owned()
    } else {
        let mut end = max;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s[..end].to_string()
    };
    out.push_str("...");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_the_last_character_boundary() {
        assert_eq!(
            truncate("日本語テキスト", 10, false).as_deref(),
            Some("日本語...")
        );
        assert_eq!(
            truncate("Zażółć gęślą jaźń", 10, false).as_deref(),
            Some("Zażółć...")
        );
        assert_eq!(truncate("0123456789", 10, false), None);
        assert_eq!(
            truncate("0123456789A", 10, false).as_deref(),
            Some("0123456789...")
        );
    }

    #[test]
    fn compat_reproduces_the_byte_cut() {
        assert_eq!(
            truncate("日本語テキスト", 10, true).as_deref(),
            Some("日本語\u{FFFD}...")
        );
    }

    #[test]
    fn negative_limits_cut_everything() {
        assert_eq!(truncate("abc", -1, false).as_deref(), Some("..."));
    }
}

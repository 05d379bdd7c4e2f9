//! Timestamps as the reference producer reads and writes them.
//!
//! The reference parses with `new DateTimeImmutable($value)` (so relative words
//! such as `tomorrow` and `@epoch` work, and a missing value means "now") and
//! writes `DATE_ATOM` (`Y-m-d\TH:i:sP`): whole seconds, keeping the offset of the
//! parsed value. The core never reads a clock itself: callers pass `now`.

use crate::json::Value;
use chrono::{
    DateTime, Datelike, Duration, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeZone,
    Timelike,
};

use crate::error::{ErrorCode, Result, SteplineError};

/// An instant with the UTC offset it was written in.
pub type Timestamp = DateTime<FixedOffset>;

/// `DATE_ATOM`: `2026-01-20T12:00:00+00:00` (sub-seconds dropped, offset kept).
pub fn format_atom(t: &Timestamp) -> String {
    let mut out = date_time(&t.naive_local());
    push_offset(&mut out, t.offset().local_minus_utc());
    ascii(out)
}

// Hand-written formatting: chrono's strftime engine would grow the wasm, and
// `format!` was a tenth of a foreign dialect's bulk replay (each event's
// timestamp is written once). Written as bytes and made a `String` once: a
// `push` per character, or a `push_str` per field, was most of what writing
// a timestamp cost.
fn date_time(n: &NaiveDateTime) -> Vec<u8> {
    let mut out = Vec::with_capacity(32);
    let year = n.year();
    if year < 0 {
        out.push(b'-');
    }
    push_digits(&mut out, year.unsigned_abs(), 4);
    let pair = |v: u32| [digit(v / 10), digit(v)];
    let [m0, m1] = pair(n.month());
    let [d0, d1] = pair(n.day());
    let [h0, h1] = pair(n.hour());
    let [i0, i1] = pair(n.minute());
    let [s0, s1] = pair(n.second());
    out.extend_from_slice(&[
        b'-', m0, m1, b'-', d0, d1, b'T', h0, h1, b':', i0, i1, b':', s0, s1,
    ]);
    out
}

/// The last decimal digit of `v`, as ASCII.
fn digit(v: u32) -> u8 {
    b'0' + (v % 10) as u8
}

/// The text the formatters wrote (digits and ASCII separators only).
fn ascii(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_default()
}

/// `v` in decimal, zero-padded to at least `width` digits (`{:0width$}`).
fn push_digits(out: &mut Vec<u8>, v: u32, width: usize) {
    let mut buf = [b'0'; 10];
    let mut at = buf.len();
    let mut rest = v;
    loop {
        at -= 1;
        if let Some(d) = buf.get_mut(at) {
            *d = digit(rest);
        }
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let start = at.min(buf.len().saturating_sub(width));
    out.extend_from_slice(buf.get(start..).unwrap_or_default());
}

fn push_offset(out: &mut Vec<u8>, seconds: i32) {
    out.push(if seconds < 0 { b'-' } else { b'+' });
    let abs = seconds.unsigned_abs();
    push_digits(out, abs / 3600, 2);
    out.push(b':');
    push_digits(out, abs % 3600 / 60, 2);
}

/// RFC 3339 with microseconds, offset kept. Used for stepline's own step timing
/// fields, where whole seconds would lose the durations they exist for.
pub fn format_precise(t: &Timestamp) -> String {
    let n = t.naive_local();
    let mut out = date_time(&n);
    out.push(b'.');
    push_digits(&mut out, n.nanosecond() % 1_000_000_000 / 1000, 6);
    push_offset(&mut out, t.offset().local_minus_utc());
    ascii(out)
}

/// ISO 8601 with milliseconds in UTC and a `Z`: `2026-01-20T12:00:00.250Z`.
pub fn format_utc_millis(t: &Timestamp) -> String {
    let n = t.naive_utc();
    let mut out = date_time(&n);
    out.push(b'.');
    push_digits(&mut out, n.nanosecond() % 1_000_000_000 / 1_000_000, 3);
    out.push(b'Z');
    ascii(out)
}

/// Builds a UTC timestamp from Unix epoch milliseconds (what `Date.now()` gives).
pub fn from_epoch_millis(ms: f64) -> Option<Timestamp> {
    if !ms.is_finite() {
        return None;
    }
    let secs = (ms / 1000.0).floor();
    let nanos = ((ms - secs * 1000.0) * 1_000_000.0)
        .round()
        .clamp(0.0, 999_999_999.0) as u32;
    let utc = DateTime::from_timestamp(secs as i64, nanos)?;
    Some(utc.fixed_offset())
}

/// The current time from the operating system. Not available in WebAssembly,
/// where the boundary passes `Date.now()` instead.
#[cfg(not(target_arch = "wasm32"))]
pub fn system_now() -> Timestamp {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    from_epoch_millis(ms).unwrap_or_default()
}

/// Reads an optional timestamp field: absent or null means `now`, as in the reference.
pub fn read_or_now(v: Option<&Value>, now: &Timestamp, path: &str) -> Result<Timestamp> {
    match v {
        None | Some(Value::Null) => Ok(*now),
        Some(value) => read(value, now, path),
    }
}

/// Reads a timestamp string the way `new DateTimeImmutable($value)` does.
pub fn read(v: &Value, now: &Timestamp, path: &str) -> Result<Timestamp> {
    match v {
        Value::String(s) => parse(s, now).ok_or_else(|| {
            SteplineError::at(
                ErrorCode::InvalidTimestamp,
                path,
                format!(
                    "expected a date/time such as \"2026-01-20T12:00:00+00:00\", found {}",
                    crate::json::quote(s)
                ),
            )
        }),
        other => Err(SteplineError::at(
            ErrorCode::InvalidType,
            path,
            format!(
                "expected a date/time string, found {}",
                crate::json::type_name(other)
            ),
        )),
    }
}

/// Parses the subset of PHP's date formats that agent states contain: ISO 8601
/// with or without `T`, fractional seconds and offset (`Z`, `+02:00`, `+0200`),
/// a bare date, `@<epoch>`, and the words `now`, `today`, `midnight`,
/// `tomorrow`, `yesterday`. Values without an offset are read in `now`'s offset
/// (the producer's default timezone). Anything else is `None`.
pub fn parse(input: &str, now: &Timestamp) -> Option<Timestamp> {
    let s = input.trim();
    let lower = s.to_ascii_lowercase();
    let midnight = |days: i64| {
        let date = now.date_naive() + Duration::days(days);
        now.offset()
            .from_local_datetime(&date.and_time(NaiveTime::MIN))
            .single()
    };
    match lower.as_str() {
        "" | "now" => return Some(*now).filter(in_atom_range),
        "today" | "midnight" => return midnight(0).filter(in_atom_range),
        "tomorrow" => return midnight(1).filter(in_atom_range),
        "yesterday" => return midnight(-1).filter(in_atom_range),
        _ => {}
    }
    let parsed = if let Some(epoch) = s.strip_prefix('@') {
        let secs = crate::json::parse_f64(epoch)?;
        from_epoch_millis(secs * 1000.0)?
    } else {
        parse_iso(s, now.offset())?
    };
    Some(parsed).filter(in_atom_range)
}

/// Whether `format_atom` writes `t` with a four-digit year, which is all
/// [`parse`] reads back: an instant outside (`@-621325596800`, `tomorrow`
/// after 9999-12-31) would be stored as a date no reader accepts.
pub fn in_atom_range(t: &Timestamp) -> bool {
    (0..=9999).contains(&t.naive_local().year())
}

fn parse_iso(s: &str, default_offset: &FixedOffset) -> Option<Timestamp> {
    let b = s.as_bytes();
    if b.len() < 10 {
        return None;
    }
    let date = parse_date(s.get(..10)?)?;
    let mut rest = &s[10..];
    let mut time = NaiveTime::MIN;
    if let Some(r) = rest.strip_prefix(['T', 't', ' ']) {
        let (t, after) = split_time(r)?;
        time = t;
        rest = after;
    }
    let offset = parse_offset(rest.trim_start(), default_offset)?;
    offset
        .from_local_datetime(&NaiveDateTime::new(date, time))
        .single()
}

/// `YYYY-MM-DD`.
fn parse_date(s: &str) -> Option<NaiveDate> {
    let b = s.as_bytes();
    if b.len() != 10 || b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = s.get(r)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    NaiveDate::from_ymd_opt(num(0..4)? as i32, num(5..7)?, num(8..10)?)
}

/// Splits `HH:MM[:SS[.frac]]` off the front of `s`.
fn split_time(s: &str) -> Option<(NaiveTime, &str)> {
    let b = s.as_bytes();
    let digits = |from: usize, n: usize| -> Option<u32> {
        let part = s.get(from..from + n)?;
        if part.bytes().all(|c| c.is_ascii_digit()) {
            part.parse().ok()
        } else {
            None
        }
    };
    let hour = digits(0, 2)?;
    if b.get(2) != Some(&b':') {
        return None;
    }
    let minute = digits(3, 2)?;
    let mut i = 5;
    let mut second = 0;
    let mut nanos = 0u32;
    if b.get(i) == Some(&b':') {
        second = digits(6, 2)?;
        i = 8;
        if b.get(i) == Some(&b'.') || b.get(i) == Some(&b',') {
            let start = i + 1;
            let mut end = start;
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
            if end == start {
                return None;
            }
            let frac = &s[start..end.min(start + 9)];
            let scale = 10u32.pow(9 - frac.len() as u32);
            nanos = frac.parse::<u32>().ok()? * scale;
            i = end;
        }
    }
    let time = NaiveTime::from_hms_nano_opt(hour, minute, second, nanos)?;
    Some((time, &s[i..]))
}

fn parse_offset(s: &str, default_offset: &FixedOffset) -> Option<FixedOffset> {
    match s {
        "" => return Some(*default_offset),
        "Z" | "z" | "UTC" | "GMT" | "utc" | "gmt" => return FixedOffset::east_opt(0),
        _ => {}
    }
    let sign = match s.as_bytes().first() {
        Some(b'+') => 1,
        Some(b'-') => -1,
        _ => return None,
    };
    let body: String = s[1..].chars().filter(|c| *c != ':').collect();
    if !body.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let (h, m) = match body.len() {
        1 | 2 => (body.parse::<i32>().ok()?, 0),
        4 => (
            body[..2].parse::<i32>().ok()?,
            body[2..].parse::<i32>().ok()?,
        ),
        _ => return None,
    };
    if h > 23 || m > 59 {
        return None;
    }
    FixedOffset::east_opt(sign * (h * 3600 + m * 60))
}

#[cfg(test)]
mod tests {
    /// What `is_rfc3339` was before it checked in place: the shape, then the
    /// ISO reader. The two must agree on every text.
    fn rfc3339_by_reading(s: &str) -> bool {
        let b = s.as_bytes();
        if b.len() < 20 || b[10] != b'T' {
            return false;
        }
        let Some(tail) = s.get(19..) else {
            return false;
        };
        let tail = match tail.strip_prefix('.') {
            Some(rest) => {
                let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                if digits == 0 {
                    return false;
                }
                &rest[digits..]
            }
            None => tail,
        };
        let t = tail.as_bytes();
        let offset_ok = tail == "Z"
            || (t.len() == 6
                && matches!(t[0], b'+' | b'-')
                && t[3] == b':'
                && [t[1], t[2], t[4], t[5]].iter().all(u8::is_ascii_digit));
        offset_ok
            && super::parse(s, &super::Timestamp::default())
                .is_some_and(|t| super::in_atom_range(&t))
    }

    /// The digit writer replaced `format!`: every formatter must still write
    /// what the `format!` spelling wrote, offsets and sub-seconds included.
    #[test]
    fn formatters_write_what_format_wrote() {
        use chrono::{Datelike, Timelike};
        let by_format = |t: &super::Timestamp| {
            let n = t.naive_local();
            let y = n.year();
            let off = t.offset().local_minus_utc();
            let (sign, abs) = (if off < 0 { '-' } else { '+' }, off.unsigned_abs());
            let base = format!(
                "{}{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
                if y < 0 { "-" } else { "" },
                y.unsigned_abs(),
                n.month(),
                n.day(),
                n.hour(),
                n.minute(),
                n.second()
            );
            let offset = format!("{sign}{:02}:{:02}", abs / 3600, abs % 3600 / 60);
            let micros = format!(".{:06}", n.nanosecond() % 1_000_000_000 / 1000);
            let u = t.naive_utc();
            let utc = format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
                u.year(),
                u.month(),
                u.day(),
                u.hour(),
                u.minute(),
                u.second(),
                u.nanosecond() % 1_000_000_000 / 1_000_000
            );
            (
                format!("{base}{offset}"),
                format!("{base}{micros}{offset}"),
                utc,
            )
        };
        let now = super::Timestamp::default();
        for text in [
            "2026-01-20T12:00:00Z",
            "0001-02-03T04:05:06.000007+05:30",
            "9999-12-31T23:59:59.999999-11:45",
            "2026-11-29T00:00:00.250+00:00",
            "0000-01-01T00:00:00Z",
        ] {
            let t = super::parse(text, &now).expect(text);
            let (atom, precise, utc) = by_format(&t);
            assert_eq!(super::format_atom(&t), atom, "{text}");
            assert_eq!(super::format_precise(&t), precise, "{text}");
            assert_eq!(super::format_utc_millis(&t), utc, "{text}");
        }
        for ms in [
            0.0,
            1.0,
            999.0,
            1_769_000_000_123.0,
            -1.0,
            253_402_300_799_999.0,
            // Past year 9999: more than four digits.
            400_000_000_000_000.0,
        ] {
            let t = super::from_epoch_millis(ms).expect("in range");
            assert_eq!(super::format_utc_millis(&t), by_format(&t).2, "{ms}");
        }
        // Before year 0: a sign, then at least four digits.
        let t = super::from_epoch_millis(-62_198_755_200_000.0).expect("in range");
        assert_eq!(super::format_utc_millis(&t), "-0001-01-01T00:00:00.000Z");
    }

    #[test]
    fn rfc3339_check_in_place_agrees_with_reading_the_instant() {
        let bases = [
            "2026-01-20T12:00:00Z",
            "2026-01-20T12:00:00.123456Z",
            "2024-02-29T23:59:59+14:00",
            "2023-02-28T00:00:00.5-23:59",
            "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999999999999+00:00",
            "2026-04-30T10:20:30,5Z",
        ];
        let swaps = "0123456789-:T.Z+ zx,é";
        let mut checked = 0;
        for base in bases {
            let mut cases = vec![base.to_string()];
            for (i, _) in base.char_indices() {
                for c in swaps.chars() {
                    let mut t = base.to_string();
                    let width = t[i..].chars().next().map_or(1, char::len_utf8);
                    t.replace_range(i..i + width, &c.to_string());
                    cases.push(t);
                }
                cases.push(base[..i].to_string());
                let mut t = base.to_string();
                t.remove(i);
                cases.push(t);
            }
            for c in swaps.chars() {
                cases.push(format!("{base}{c}"));
            }
            for digits in [
                "00", "13", "19", "23", "24", "29", "30", "31", "32", "59", "60", "99",
            ] {
                for range in [5..7, 8..10, 11..13, 14..16, 17..19] {
                    let mut t = base.to_string();
                    t.replace_range(range, digits);
                    cases.push(t);
                }
            }
            for case in cases {
                assert_eq!(
                    super::is_rfc3339(&case),
                    rfc3339_by_reading(&case),
                    "{case:?}"
                );
                checked += 1;
            }
        }
        assert!(checked > 2000, "{checked}");
    }
    use super::*;

    fn now() -> Timestamp {
        DateTime::parse_from_rfc3339("2026-01-20T12:00:00.250+00:00").unwrap()
    }

    fn atom(s: &str) -> String {
        format_atom(&parse(s, &now()).unwrap_or_else(|| panic!("{s} should parse")))
    }

    #[test]
    fn reads_the_formats_found_in_agent_states() {
        assert_eq!(
            atom("2026-01-20T11:59:55+00:00"),
            "2026-01-20T11:59:55+00:00"
        );
        assert_eq!(
            atom("2026-01-20 10:00:00.987654"),
            "2026-01-20T10:00:00+00:00"
        );
        assert_eq!(atom("@1768903200"), "2026-01-20T10:00:00+00:00");
        assert_eq!(
            atom("2026-01-20T13:30:00.5+02:00"),
            "2026-01-20T13:30:00+02:00"
        );
        assert_eq!(
            atom("2026-01-20T10:00:00.123Z"),
            "2026-01-20T10:00:00+00:00"
        );
        assert_eq!(
            atom("2026-01-20T12:00:00-03:00"),
            "2026-01-20T12:00:00-03:00"
        );
        assert_eq!(atom("2026-01-20"), "2026-01-20T00:00:00+00:00");
        assert_eq!(atom("tomorrow"), "2026-01-21T00:00:00+00:00");
        assert_eq!(atom("now"), "2026-01-20T12:00:00+00:00");
    }

    #[test]
    fn rejects_what_php_would_reject() {
        for bad in [
            "not a date",
            "2026-13-01",
            "2026-01-20T25:00:00",
            "2026-01-20T10:00:00+99:00",
            "@x",
        ] {
            assert!(parse(bad, &now()).is_none(), "{bad} should not parse");
        }
    }

    #[test]
    fn utc_millis_format_is_true_utc() {
        let t = parse("2026-01-20T13:30:00.5+02:00", &now()).unwrap();
        assert_eq!(format_utc_millis(&t), "2026-01-20T11:30:00.500Z");
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)` with a real calendar date and time
/// (RFC 3339, what `DATE_ATOM` and the envelope timestamps are).
///
/// Checked in place, byte by byte, without building the instant: every
/// envelope's timestamp goes through here. It accepts
/// exactly what [`parse`] reads in this shape (a unit test holds the two together).
pub fn is_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 20 {
        return false;
    }
    let num = |t: Option<&[u8]>| {
        t?.iter().try_fold(0u32, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
        })
    };
    let at = |i: usize, c: u8| b.get(i) == Some(&c);
    if !(at(4, b'-') && at(7, b'-') && at(10, b'T') && at(13, b':') && at(16, b':')) {
        return false;
    }
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = (
        num(b.get(0..4)),
        num(b.get(5..7)),
        num(b.get(8..10)),
        num(b.get(11..13)),
        num(b.get(14..16)),
        num(b.get(17..19)),
    ) else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 59 {
        return false;
    }
    if NaiveDate::from_ymd_opt(year as i32, month, day).is_none() {
        return false;
    }
    let mut i = 19;
    if at(i, b'.') {
        let start = i + 1;
        i = start;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    let t = b.get(i..).unwrap_or_default();
    t == b"Z"
        || (t.len() == 6
            && matches!(t.first(), Some(b'+' | b'-'))
            && t.get(3) == Some(&b':')
            && num(t.get(1..3)).is_some_and(|h| h <= 23)
            && num(t.get(4..6)).is_some_and(|m| m <= 59))
}

/// How a caller names "now": a date/time string or Unix epoch milliseconds.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum NowSpec {
    /// Unix epoch milliseconds.
    EpochMillis(f64),
    /// A date/time string (ISO 8601, or what the producer's `DateTime` reads).
    Text(String),
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for NowSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NowSpec".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": ["string", "number"] })
    }
}

impl NowSpec {
    /// Reads a `now` option: a number (epoch ms) or a string.
    pub fn from_value(v: &Value, path: &str) -> Result<NowSpec> {
        match v {
            Value::Number(n) => Ok(NowSpec::EpochMillis(n.as_f64().unwrap_or(f64::NAN))),
            Value::String(s) => Ok(NowSpec::Text(s.clone())),
            other => Err(SteplineError::at(
                ErrorCode::InvalidType,
                path,
                format!(
                    "expected `now` as an ISO date string or epoch milliseconds, found {}",
                    crate::json::type_name(other)
                ),
            )),
        }
    }
}

/// Resolves an optional caller-supplied `now` (relative words are read against `clock`).
pub fn resolve_now(spec: Option<&NowSpec>, clock: Timestamp, path: &str) -> Result<Timestamp> {
    match spec {
        None => Ok(clock),
        Some(NowSpec::EpochMillis(ms)) => {
            from_epoch_millis(*ms).filter(in_atom_range).ok_or_else(|| {
                SteplineError::at(
                    ErrorCode::InvalidTimestamp,
                    path,
                    format!(
                        "expected epoch milliseconds within the years 0000 to 9999, found {}",
                        crate::php::format_php_float(*ms)
                    ),
                )
            })
        }
        Some(NowSpec::Text(s)) => read(&Value::String(s.clone()), &clock, path),
    }
}

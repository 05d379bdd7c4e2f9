//! An envelope timestamp as a tool run keeps it.
//!
//! A tool run's start and completion timestamps were a `String` each, an
//! allocation apiece beside the run (about 0.1 MiB of the wasm after the
//! 100k live loop, bench/findings.md). Producers write the form
//! `YYYY-MM-DDTHH:MM:SS.mmmZ`, which its instant writes back byte for byte;
//! such a timestamp is kept as the instant, any other as sent.
//!
//! ```
//! use stepline::session::stamp::Stamp;
//! let usual = Stamp::new("2026-01-20T12:00:01.695Z");
//! assert!(matches!(usual, Stamp::At(_)));
//! assert_eq!(usual.as_str(), "2026-01-20T12:00:01.695Z");
//! let offset = Stamp::new("2026-01-20T13:00:01+01:00");
//! assert_eq!(offset.as_str(), "2026-01-20T13:00:01+01:00");
//! assert_eq!(offset.instant(), Stamp::new("2026-01-20T12:00:01.000Z").instant());
//! ```

use std::borrow::Cow;

use crate::session::attribution::{instant, written, written_bytes};

/// A timestamp, as its instant (µs since the epoch) when the usual form
/// writes it back, else as sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stamp {
    /// The instant of a timestamp in the usual form.
    At(i64),
    /// Any other timestamp, as sent.
    Text(Box<str>),
}

impl Stamp {
    /// The timestamp `ts` as kept.
    pub fn new(ts: &str) -> Stamp {
        match instant(ts) {
            Some(at) if written_bytes(at).as_slice() == ts.as_bytes() => Stamp::At(at),
            _ => Stamp::Text(ts.into()),
        }
    }

    /// The timestamp as it was sent.
    pub fn as_str(&self) -> Cow<'_, str> {
        match self {
            Stamp::At(at) => Cow::Owned(written(*at)),
            Stamp::Text(t) => Cow::Borrowed(t),
        }
    }

    /// Its instant (µs since the epoch), when it has the shape of one.
    pub fn instant(&self) -> Option<i64> {
        match self {
            Stamp::At(at) => Some(*at),
            Stamp::Text(t) => instant(t),
        }
    }
}

impl From<&str> for Stamp {
    fn from(ts: &str) -> Stamp {
        Stamp::new(ts)
    }
}

/// Written as the timestamp sent, without a `String` between.
impl serde::Serialize for Stamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Stamp::At(at) => {
                let written = written_bytes(*at);
                s.serialize_str(std::str::from_utf8(written.as_slice()).unwrap_or_default())
            }
            Stamp::Text(t) => s.serialize_str(t),
        }
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Stamp {
    fn schema_name() -> Cow<'static, str> {
        "Stamp".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(g)
    }
}

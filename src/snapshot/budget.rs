//! `maxBytes`: a slim snapshot that fits a byte budget, tightened
//! deterministically, saying what it dropped.

use crate::json::Value;

use crate::error::{ErrorCode, Result, SteplineError};
use crate::snapshot::config::SlimConfig;
use crate::snapshot::serialize::slim_snapshot;
use crate::snapshot::shape::SlimSnapshot;
use crate::snapshot::source::SlimSource;

/// What `maxBytes` gave up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "SlimTruncation"))]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    /// Messages the options would have kept but the budget did not.
    pub messages_dropped: usize,
    /// Steps the options would have kept but the budget did not.
    pub steps_dropped: usize,
    /// The content length limit finally used.
    pub content_limit: i64,
}

/// A slim snapshot with its encoded size and what, if anything, was dropped.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "SlimResult"))]
pub struct Fitted {
    /// The snapshot.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::snapshot::shape::slim_snapshot")
    )]
    pub snapshot: Value,
    /// Bytes of the compact JSON encoding (UTF-8), what a database or socket sees.
    pub bytes: usize,
    /// What `maxBytes` gave up, or `null` when nothing was.
    pub truncation: Option<Truncation>,
}

/// The smallest content limit tried before dropping whole messages.
const CONTENT_FLOOR: i64 = 16;

/// Serializes `source` and, when `max_bytes` is set, tightens until it fits:
/// first the content limit (halving down to 16 bytes), then the number of
/// messages kept (dropping the oldest), then the number of steps. The same
/// input always gives the same result. Fails with `too_large` when even a
/// snapshot without messages and steps is over budget, and with
/// `invalid_type` when a kept message's tool calls cannot be redacted (see
/// `SlimSource::from_doc`, which names the entry in the input; a source
/// built from a parsed state is checked here, at the snapshot's path).
pub fn slim_within(
    source: &SlimSource,
    config: &SlimConfig,
    max_bytes: Option<usize>,
) -> Result<Fitted> {
    if config.redact_tool_args {
        let kept = crate::snapshot::serialize::last(&source.messages, config.max_messages);
        for (i, m) in kept.iter().enumerate() {
            crate::snapshot::source::redactable(m, &format!("/messages/{i}"))?;
        }
    }
    fit(&|c| slim_snapshot(source, c), config, max_bytes)
}

/// The budget loop of [`slim_within`] over any snapshot writer (`render`
/// writes the snapshot under a config): v1.22 and v2 snapshots are tightened alike.
#[inline(never)]
pub fn fit(
    render: &dyn Fn(&SlimConfig) -> SlimSnapshot,
    config: &SlimConfig,
    max_bytes: Option<usize>,
) -> Result<Fitted> {
    let size = |c: &SlimConfig| -> (SlimSnapshot, usize) {
        let s = render(c);
        let bytes = crate::json::to_text(&s).len();
        (s, bytes)
    };
    let (snapshot, bytes) = size(config);
    let whole = |(snapshot, bytes): (SlimSnapshot, usize)| Fitted {
        snapshot: crate::json::to_value_of(&snapshot),
        bytes,
        truncation: None,
    };
    let Some(budget) = max_bytes else {
        return Ok(whole((snapshot, bytes)));
    };
    if bytes <= budget {
        return Ok(whole((snapshot, bytes)));
    }
    let full_messages = snapshot.messages.len();
    let full_steps = snapshot.steps.len();
    let fitted = |c: &SlimConfig, (snapshot, bytes): (SlimSnapshot, usize)| Fitted {
        truncation: Some(Truncation {
            messages_dropped: full_messages - snapshot.messages.len(),
            steps_dropped: full_steps - snapshot.steps.len(),
            content_limit: c.max_content_length,
        }),
        snapshot: crate::json::to_value_of(&snapshot),
        bytes,
    };

    let mut c = *config;
    if c.max_content_length <= 0 {
        // No content limit (the reference's meaning of ≤ 0): tightening
        // starts from the longest content the snapshot holds.
        c.max_content_length = longest_content(&snapshot);
    }
    while c.max_content_length > CONTENT_FLOOR {
        c.max_content_length = (c.max_content_length / 2).max(CONTENT_FLOOR);
        let probe = size(&c);
        if probe.1 <= budget {
            return Ok(fitted(&c, probe));
        }
    }
    // Keep as many of the newest messages as fit (size grows with the count),
    // and when even none is too many, as many of the newest steps.
    let with_messages = |k: usize| SlimConfig {
        max_messages: k as i64,
        ..c
    };
    if let Some(k) = largest_fitting(full_messages, |k| size(&with_messages(k)).1 <= budget) {
        let c = with_messages(k);
        return Ok(fitted(&c, size(&c)));
    }
    c.max_messages = 0;
    let with_steps = |k: usize| SlimConfig {
        max_steps: k as i64,
        ..c
    };
    if let Some(k) = largest_fitting(full_steps, |k| size(&with_steps(k)).1 <= budget) {
        let c = with_steps(k);
        return Ok(fitted(&c, size(&c)));
    }
    c.max_steps = 0;
    let (_, smallest) = size(&c);
    Err(SteplineError::new(
        ErrorCode::TooLarge,
        None,
        format!("expected a snapshot within maxBytes {budget}, but even one without messages and steps takes {smallest} bytes"),
    ))
}

/// The byte length of the longest string content among the snapshot's messages.
fn longest_content(snapshot: &SlimSnapshot) -> i64 {
    let longest = snapshot
        .messages
        .iter()
        .filter_map(|m| m.content.as_str())
        .map(str::len)
        .max()
        .unwrap_or(0);
    i64::try_from(longest).unwrap_or(i64::MAX)
}

/// The largest `k` in `0..=max` with `fits(k)`, assuming `fits` is monotone
/// (true up to some point, then false); `None` when even 0 does not fit.
fn largest_fitting(max: usize, fits: impl Fn(usize) -> bool) -> Option<usize> {
    if !fits(0) {
        return None;
    }
    let (mut lo, mut hi) = (0usize, max);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo)
}

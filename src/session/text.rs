//! An execution's streamed text, held within a byte limit.
//!
//! The text is the concatenation of the stream chunks in index order, cut
//! to the first `limit` bytes (at a character boundary). Because that is a
//! function of the set of chunks, any arrival order gives the same text.
//! Memory stays near `limit`: a chunk that starts at or past the limit can
//! never show (a chunk that arrives later only pushes it further out), so
//! its text is dropped and only its size counted. Every chunk still counts
//! as arrived for gap detection, which keeps ranges, not chunks.
//!
//! A chunk below the highest one (out of index order) makes the text stale
//! instead of rebuilding it at once: rebuilding per chunk made chunks in
//! reverse order cost the square of their number. [`StreamText::settle`]
//! rebuilds it once, before anything reads it.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::session::blocks::Blocks;
use crate::session::chunk_key::{chunk_key, ChunkIds};
use crate::session::dedup::SeenKey;
use crate::session::gaps::Gaps;
use crate::session::text_blocks::TextBlocks;

/// Streamed text kept per execution unless the session says otherwise: 8 MiB of UTF-8.
pub const DEFAULT_TEXT_LIMIT: usize = 8 * 1024 * 1024;

/// Reads a text limit option (`key` in `m`, a non-negative integer of
/// bytes; [`DEFAULT_TEXT_LIMIT`] when absent or null). Read as every other
/// whole-number option is: a fraction is `invalid_type`, a whole number out
/// of range (negative, or beyond 2^63) `out_of_range`; a limit beyond the
/// address space means no limit.
pub fn limit_option(m: &crate::json::Map, key: &str, path: &str) -> crate::error::Result<usize> {
    match crate::model::read::opt_i64(m, key, path)? {
        None => Ok(DEFAULT_TEXT_LIMIT),
        Some(n) => u64::try_from(n)
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
            .map_err(|_| {
                crate::error::SteplineError::at(
                    crate::error::ErrorCode::OutOfRange,
                    &crate::json::child(path, key),
                    format!("expected `{key}` to be a non-negative number of bytes, found {n}"),
                )
            }),
    }
}

/// An envelope that delivered a chunk: its place in the session's log and
/// its redelivery fingerprint's key in the session's set of them, both given
/// up when the chunk is dropped.
pub type Arrival = (u64, Option<SeenKey>);

#[derive(Clone, Debug, Default, PartialEq)]
struct Chunk {
    text: Piece,
    arrivals: Arrivals,
}

/// The envelopes that delivered a chunk. Almost every chunk has exactly
/// one, kept in place rather than in a list per chunk, which would cost an
/// allocation per chunk. In place, the log number is a u32 and the
/// fingerprint's key two u32 halves, keeping the chunk small and 4-byte
/// aligned in wasm32 (sizes: bench/findings.md); an arrival numbered past
/// u32 goes to the list, as does a second one.
#[derive(Clone, Debug, Default, PartialEq)]
enum Arrivals {
    #[default]
    None,
    /// One arrival without a fingerprint (a chunk without an index).
    Bare(u32),
    /// One arrival with its fingerprint's key.
    One(u32, [u32; 2]),
    /// Anything else: several arrivals, or one numbered past u32.
    Many(Vec<Arrival>),
}

impl Arrivals {
    fn add(&mut self, a: Arrival) {
        match std::mem::take(self) {
            Arrivals::None => *self = Arrivals::packed(a),
            Arrivals::Many(mut list) => {
                list.push(a);
                *self = Arrivals::Many(list);
            }
            one => {
                let mut list = Vec::with_capacity(2);
                one.drain_into(&mut list);
                list.push(a);
                *self = Arrivals::Many(list);
            }
        }
    }

    /// `a` in place when its number fits, else as a list of one.
    fn packed(a: Arrival) -> Arrivals {
        let Ok(n) = u32::try_from(a.0) else {
            return Arrivals::Many(vec![a]);
        };
        match a.1 {
            None => Arrivals::Bare(n),
            Some(key) => Arrivals::One(n, halves(key)),
        }
    }

    /// The fingerprint keys of the arrivals.
    fn keys(&self) -> impl Iterator<Item = SeenKey> + '_ {
        let (one, many) = match self {
            Arrivals::One(_, key) => (Some(joined(*key)), &[][..]),
            Arrivals::Many(list) => (None, &list[..]),
            Arrivals::None | Arrivals::Bare(_) => (None, &[][..]),
        };
        one.into_iter().chain(many.iter().filter_map(|a| a.1))
    }

    /// Moves the arrivals to the end of `out`.
    fn drain_into(self, out: &mut Vec<Arrival>) {
        match self {
            Arrivals::None => {}
            Arrivals::Bare(n) => out.push((u64::from(n), None)),
            Arrivals::One(n, key) => out.push((u64::from(n), Some(joined(key)))),
            Arrivals::Many(list) => out.extend(list),
        }
    }
}

/// A chunk's text: where it sits in the execution's text when all of it is
/// there (the usual case: chunks in order, below the limit), else its own
/// copy. Keeping every chunk's copy next to the text they make doubled the
/// text's memory.
#[derive(Clone, Debug, PartialEq)]
enum Piece {
    /// Bytes `start..start + len` of the text as last settled.
    At {
        start: usize,
        len: usize,
    },
    Owned(String),
}

impl Default for Piece {
    fn default() -> Self {
        Piece::Owned(String::new())
    }
}

impl Piece {
    fn len(&self) -> usize {
        match self {
            Piece::At { len, .. } => *len,
            Piece::Owned(s) => s.len(),
        }
    }

    /// The chunk's text, read from `text` (the execution's text, unchanged
    /// since the piece was placed in it) when it is there.
    fn as_str<'a>(&'a self, text: &'a TextBlocks) -> Cow<'a, str> {
        match self {
            Piece::At { start, len } => {
                let piece = text.get(*start, *len);
                // Only chunk() and settle() write pieces and the text, together.
                debug_assert!(piece.is_some(), "a piece outside the text");
                piece.unwrap_or_default()
            }
            Piece::Owned(s) => Cow::Borrowed(s),
        }
    }
}

/// A key split into two u32 halves, so that what holds it stays 4-byte
/// aligned in wasm32 (a u64 there is 8-byte aligned).
fn halves(key: SeenKey) -> [u32; 2] {
    [key as u32, (key >> 32) as u32]
}

fn joined([lo, hi]: [u32; 2]) -> SeenKey {
    u64::from(lo) | (u64::from(hi) << 32)
}

/// Chunks that arrived in index order, one after another, each wholly at
/// the end of the text and each with its fingerprint: nearly every chunk of
/// a stream. Two bytes a chunk: its length and how long after the chunk
/// before it was sent. Its redelivery key is made again from those, its
/// text and the stream's ids when asked (src/session/chunk_key.rs), where
/// the run kept the key's eight bytes (bench/findings.md, "Issue 27: a
/// chunk's key from its parts"); a chunk whose key is not its parts' keeps
/// it in `keyed`. Anything else (a chunk out of order, a replacement, the
/// limit reached, a rebuild) first moves the run into the tree, so the
/// tree's rules stay the only ones.
#[derive(Clone, Debug, Default, PartialEq)]
struct Run {
    /// The first chunk's index.
    first: i64,
    /// Where the first chunk starts in the text.
    start: usize,
    /// Where the last chunk ends in the text.
    end: usize,
    links: Blocks<Link, BLOCK>,
    /// The lengths of the chunks of [`LONG`] bytes or more, in order.
    long: Vec<usize>,
    /// The chunks' log numbers, as `(position in the run, number)` where
    /// they stop following one another: a chunk's number is the last such
    /// entry's at or before it plus the chunks between. A step's chunks
    /// arrive one after another, so a run holds about one entry a step.
    seqs: Vec<(usize, u32)>,
    /// Per [`GROUP`] chunks, where to start reading one of them.
    anchors: Vec<Anchor>,
    /// The keys of the chunks whose key is not made from their parts, by
    /// position ([`KEYED`]).
    keyed: Vec<(u32, [u32; 2])>,
    /// The instants of the chunks whose step does not fit a byte, by
    /// position ([`ABSOLUTE`]).
    times: Vec<(u32, i64)>,
    /// The instant of the last chunk whose key is made from its parts
    /// ([`NO_INSTANT`] before one).
    last_at: i64,
}

/// A chunk of the run: its length in bytes, or [`LONG`] for one the run
/// lists in `long`; and its step, the milliseconds since the instant of the
/// chunk before it whose key is made from its parts (0 to [`MAX_STEP`]),
/// else [`ABSOLUTE`] or [`KEYED`]. Bytes, so that nothing pads it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Link([u8; 2]);

impl Link {
    fn len_byte(self) -> u8 {
        self.0[0]
    }

    fn step(self) -> u8 {
        self.0[1]
    }
}

/// The length byte of a chunk whose length the run lists in `long`.
const LONG: u8 = u8::MAX;

/// The step of a chunk whose instant the run lists in `times`.
const ABSOLUTE: u8 = u8::MAX;

/// The step of a chunk whose key the run lists in `keyed`.
const KEYED: u8 = u8::MAX - 1;

/// The largest step in milliseconds a link holds.
const MAX_STEP: i64 = KEYED as i64 - 1;

/// `Run::last_at` before any chunk whose key is made from its parts.
const NO_INSTANT: i64 = i64::MIN;

/// Chunks per block of the run's links: 8 KiB.
const BLOCK: usize = 4096;

/// Chunks per anchor: a chunk's text and instant are read from its
/// group's anchor on, at most this many links.
const GROUP: usize = 64;

/// Where a group of the run starts: its first chunk's start in the text,
/// the run's `last_at` before it, and how many of `long` come before it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Anchor {
    start: usize,
    last_at: i64,
    long_before: usize,
}

/// A chunk of the run as [`Walk`] reads it.
struct Linked {
    position: usize,
    start: usize,
    len: usize,
    /// The instant its key is made with, or `None` when it keeps its key.
    at: Option<i64>,
    /// The key it keeps.
    keyed: Option<SeenKey>,
}

/// The run's chunks read in order from one anchor on.
struct Walk<'r> {
    run: &'r Run,
    position: usize,
    start: usize,
    long: usize,
    last_at: i64,
    keyed: usize,
    times: usize,
}

impl Iterator for Walk<'_> {
    type Item = Linked;

    fn next(&mut self) -> Option<Linked> {
        let run = self.run;
        let link = *run.links.get(self.position)?;
        let len = match link.len_byte() {
            LONG => {
                let len = run.long.get(self.long).copied().unwrap_or(0);
                self.long += 1;
                len
            }
            n => usize::from(n),
        };
        let (at, keyed) = match link.step() {
            KEYED => {
                let key = run.keyed.get(self.keyed).map(|&(_, k)| joined(k));
                self.keyed += 1;
                (None, key)
            }
            ABSOLUTE => {
                let at = run.times.get(self.times).map_or(0, |&(_, at)| at);
                self.times += 1;
                self.last_at = at;
                (Some(at), None)
            }
            ms => {
                self.last_at = self.last_at.saturating_add(i64::from(ms) * 1000);
                (Some(self.last_at), None)
            }
        };
        let linked = Linked {
            position: self.position,
            start: self.start,
            len,
            at,
            keyed,
        };
        self.position += 1;
        self.start += len;
        Some(linked)
    }
}

impl Run {
    fn len(&self) -> usize {
        self.links.len()
    }

    /// The index a chunk extending the run has.
    fn next(&self) -> Option<i64> {
        (!self.links.is_empty()).then(|| self.first.saturating_add(self.len() as i64))
    }

    fn last_index(&self) -> Option<i64> {
        self.next().map(|n| n - 1)
    }

    /// Where the run ends in the text.
    fn end(&self) -> Option<usize> {
        (!self.links.is_empty()).then_some(self.end)
    }

    /// Whether a chunk can extend the run: its position must fit the lists' u32.
    fn has_room(&self) -> bool {
        u32::try_from(self.links.len()).is_ok()
    }

    /// Adds a chunk of `len` bytes at the run's end, with its log number
    /// and key; `at` is the instant its key is made with from its parts
    /// (`None`: the run keeps the key).
    fn push(&mut self, len: usize, seq: u32, key: SeenKey, at: Option<i64>) {
        let at_position = self.links.len();
        let position = u32::try_from(at_position).unwrap_or(u32::MAX);
        if at_position % GROUP == 0 {
            self.anchors.push(Anchor {
                start: self.end,
                last_at: self.last_at,
                long_before: self.long.len(),
            });
        }
        let follows = self
            .seqs
            .last()
            .is_some_and(|&(p, n)| u64::from(n) + (at_position - p) as u64 == u64::from(seq));
        if !follows {
            self.seqs.push((at_position, seq));
        }
        let byte = match u8::try_from(len) {
            Ok(byte) if byte < LONG => byte,
            _ => {
                self.long.push(len);
                LONG
            }
        };
        let step = match at {
            None => {
                self.keyed.push((position, halves(key)));
                KEYED
            }
            Some(at) => {
                let ms = at
                    .checked_sub(self.last_at)
                    .filter(|d| self.last_at != NO_INSTANT && d % 1000 == 0)
                    .map(|d| d / 1000)
                    .filter(|d| (0..=MAX_STEP).contains(d));
                self.last_at = at;
                match ms.and_then(|ms| u8::try_from(ms).ok()) {
                    Some(ms) => ms,
                    None => {
                        self.times.push((position, at));
                        ABSOLUTE
                    }
                }
            }
        };
        self.links.push(Link([byte, step]));
        self.end += len;
    }

    /// The chunks from the start of the group that holds `position`.
    fn walk_from(&self, position: usize) -> Walk<'_> {
        let group = position / GROUP;
        let anchor = self.anchors.get(group).copied().unwrap_or(Anchor {
            start: self.start,
            last_at: NO_INSTANT,
            long_before: 0,
        });
        let first = group * GROUP;
        let before = |p: u32| (p as usize) < first;
        Walk {
            run: self,
            position: first,
            start: anchor.start,
            long: anchor.long_before,
            last_at: anchor.last_at,
            keyed: self.keyed.partition_point(|&(p, _)| before(p)),
            times: self.times.partition_point(|&(p, _)| before(p)),
        }
    }

    /// The key of a chunk read by [`Walk`].
    fn key_of(&self, c: &Linked, text: &TextBlocks, ids: Option<&ChunkIds>) -> Option<SeenKey> {
        if c.keyed.is_some() {
            return c.keyed;
        }
        let content = text.get(c.start, c.len)?;
        let index = self.first.saturating_add(c.position as i64);
        Some(chunk_key(ids?, c.at?, &content, index))
    }

    /// The key of the chunk at `position`.
    fn key_at(
        &self,
        position: usize,
        text: &TextBlocks,
        ids: Option<&ChunkIds>,
    ) -> Option<SeenKey> {
        let c = self.walk_from(position).find(|c| c.position == position)?;
        self.key_of(&c, text, ids)
    }

    /// The chunks as the tree holds them, in index order, each with its
    /// key (made again from its parts, from `text` and `ids`, where the run
    /// did not keep it).
    fn drain(&mut self, text: &TextBlocks, ids: Option<&ChunkIds>) -> Vec<(i64, Chunk)> {
        let run = std::mem::take(self);
        run.walk_from(0)
            .map(|c| {
                let entry = run.seqs.partition_point(|&(p, _)| p <= c.position);
                let seq = entry
                    .checked_sub(1)
                    .and_then(|e| run.seqs.get(e))
                    .map_or(0, |&(p, n)| u64::from(n) + (c.position - p) as u64);
                let mut arrivals = Arrivals::None;
                arrivals.add((seq, run.key_of(&c, text, ids)));
                let piece = Piece::At {
                    start: c.start,
                    len: c.len,
                };
                (
                    run.first + c.position as i64,
                    Chunk {
                        text: piece,
                        arrivals,
                    },
                )
            })
            .collect()
    }

    /// The chunks' texts, in index order, read from `text`.
    fn pieces<'a>(&'a self, text: &'a TextBlocks) -> impl Iterator<Item = Cow<'a, str>> + 'a {
        self.walk_from(0)
            .map(move |c| text.get(c.start, c.len).unwrap_or_default())
    }

    /// Bytes the run has reserved for its chunks (tests check it).
    #[cfg(test)]
    fn reserved_bytes(&self) -> usize {
        self.links.reserved() * std::mem::size_of::<Link>()
            + self.long.capacity() * std::mem::size_of::<usize>()
            + self.anchors.capacity() * std::mem::size_of::<Anchor>()
            + self.keyed.capacity() * std::mem::size_of::<(u32, [u32; 2])>()
            + self.times.capacity() * std::mem::size_of::<(u32, i64)>()
    }
}

/// The chunks that can still show, and what the limit dropped.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamText {
    /// Bytes of text kept at most.
    limit: usize,
    /// Chunks starting below the limit, by index, except those in `run`
    /// (all of whose indexes are above these).
    chunks: BTreeMap<i64, Chunk>,
    /// The latest chunks that arrived in order, compactly.
    run: Run,
    /// Their bytes.
    bytes: usize,
    /// The lowest index dropped whole: every index from it up that arrived
    /// was dropped, and every later one will be.
    cut_from: Option<i64>,
    /// Bytes dropped whole (chunks past the limit, deltas past it): their
    /// envelopes leave the log, so a recording must say how many.
    dropped_whole: u64,
    /// Bytes cut off the end of a delta that crossed the limit (its
    /// envelope stays in the log, so a replay cuts it again).
    dropped_cut: u64,
    /// Chunks seen, by index, for gap detection (indexes start at 0).
    pub gaps: Gaps,
    /// A chunk landed inside the text; `settle` rebuilds it.
    stale: bool,
    /// Arrivals of chunks dropped since the session last took them.
    evicted: Vec<Arrival>,
    /// The ids of the chunks whose keys the run makes from their parts:
    /// those of the first such chunk.
    ids: Option<ChunkIds>,
    /// The instant the next chunk's key is made with, when the session
    /// vouched for it ([`StreamText::vouch`]).
    pending: Option<i64>,
    /// The index and key of the chunk last added to the run.
    last_pushed: Option<(i64, SeenKey)>,
}

impl Default for StreamText {
    fn default() -> Self {
        StreamText::with_limit(DEFAULT_TEXT_LIMIT)
    }
}

/// What a chunk did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkOutcome {
    /// Kept: the text grew at its end (`replaced: false`) or will be rebuilt.
    Kept { replaced: bool },
    /// Past the limit: only its size was counted.
    Dropped,
}

impl StreamText {
    /// No text yet; at most `limit` bytes of it will be kept.
    pub fn with_limit(limit: usize) -> StreamText {
        StreamText {
            limit,
            chunks: BTreeMap::new(),
            run: Run::default(),
            bytes: 0,
            cut_from: None,
            dropped_whole: 0,
            dropped_cut: 0,
            gaps: Gaps::default(),
            stale: false,
            evicted: Vec::new(),
            ids: None,
            pending: None,
            last_pushed: None,
        }
    }

    /// Vouches that the next chunk's key is [`chunk_key`] of its parts
    /// with these ids and instant `at` (its envelope has the layout of
    /// src/session/chunk_key.rs and is its content's first occurrence);
    /// the chunk then keeps no key where the run holds it. Not taken when
    /// the ids are not the stream's (those of the first chunk vouched for).
    pub(crate) fn vouch(&mut self, session_id: &str, execution_id: &str, at: i64) {
        let ids = self.ids.get_or_insert_with(|| ChunkIds {
            session_id: session_id.into(),
            execution_id: execution_id.into(),
        });
        let same = *ids.session_id == *session_id && *ids.execution_id == *execution_id;
        self.pending = same.then_some(at);
    }

    /// The instant of the chunk the session vouched for, until it is added.
    pub(crate) fn vouched_instant(&self) -> Option<i64> {
        self.pending
    }

    /// Forgets a vouch no chunk took.
    pub(crate) fn clear_vouch(&mut self) {
        self.pending = None;
    }

    /// Bytes of text kept at most.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Whether any chunk arrived.
    pub fn is_empty(&self) -> bool {
        self.gaps.highest().is_none()
    }

    /// The index a chunk without one gets: after the highest seen.
    pub fn next_index(&self) -> i64 {
        self.gaps.highest().map_or(0, |h| h.saturating_add(1))
    }

    /// Whether chunk `i` lies past the cut (so its text cannot show), and
    /// whether it arrived before. Decided before redelivery checks, since a
    /// dropped chunk keeps no fingerprint.
    pub fn past_cut(&self, i: i64) -> Option<bool> {
        let from = self.cut_from?;
        (i >= from).then(|| self.gaps.contains(i))
    }

    /// Adds chunk `index` (a second chunk under one index replaces the
    /// first). `text` is the execution's text, appended to when the chunk
    /// extends it and nothing is stale.
    pub fn chunk(
        &mut self,
        index: i64,
        content: String,
        text: &mut TextBlocks,
        arrival: Option<Arrival>,
    ) -> ChunkOutcome {
        let at = self.pending.take();
        let limit = self.limit;
        let appends = self.gaps.highest().is_none_or(|h| index > h);
        self.gaps.arrived(index, 0);
        if self.cut_from.is_some_and(|c| index >= c) || (appends && self.bytes >= limit) {
            self.cut_from = Some(self.cut_from.map_or(index, |c| c.min(index)));
            self.dropped_whole = self.dropped_whole.saturating_add(content.len() as u64);
            self.evicted.extend(arrival);
            return ChunkOutcome::Dropped;
        }
        let appends = appends && !self.stale;
        if appends && self.extend_run(index, &content, text, arrival, at) {
            return ChunkOutcome::Kept { replaced: false };
        }
        self.spill(text);
        let piece = if appends {
            let start = text.len();
            let kept = text.push_within(&content, limit).len();
            if kept == content.len() {
                Piece::At { start, len: kept }
            } else {
                Piece::Owned(content)
            }
        } else {
            self.stale = true;
            Piece::Owned(content)
        };
        let c = self.chunks.entry(index).or_default();
        self.bytes = self.bytes - c.text.len() + piece.len();
        c.text = piece;
        if let Some(a) = arrival {
            c.arrivals.add(a);
        }
        self.evict();
        ChunkOutcome::Kept { replaced: !appends }
    }

    /// Adds a chunk that arrived in order to the run, when it can go there:
    /// it follows the run (or starts one above every chunk of the tree), all
    /// of it fits below the limit, and its arrival packs.
    fn extend_run(
        &mut self,
        index: i64,
        content: &str,
        text: &mut TextBlocks,
        arrival: Option<Arrival>,
        at: Option<i64>,
    ) -> bool {
        let Some((seq, Some(key))) = arrival else {
            return false;
        };
        if !self.run.has_room() {
            return false;
        }
        let Ok(seq) = u32::try_from(seq) else {
            return false;
        };
        if text.len() + content.len() > self.limit || self.bytes >= self.limit {
            return false;
        }
        // Text that came between (deltas) ends the run: its chunks' starts
        // are its ends.
        if self.run.end().is_some_and(|end| end != text.len()) {
            self.spill(text);
        }
        let follows = match self.run.next() {
            Some(next) => next == index,
            None => self.chunks.keys().next_back().is_none_or(|&k| k < index),
        };
        if !follows {
            return false;
        }
        if self.run.links.is_empty() {
            self.run.first = index;
            self.run.start = text.len();
            self.run.end = text.len();
        }
        text.push_str(content);
        #[cfg(debug_assertions)]
        if let (Some(at), Some(ids)) = (at, &self.ids) {
            debug_assert_eq!(
                chunk_key(ids, at, content, index),
                key,
                "a chunk vouched for whose key is not its parts'"
            );
        }
        self.run.push(content.len(), seq, key, at);
        self.last_pushed = Some((index, key));
        self.bytes += content.len();
        true
    }

    /// Moves the run into the tree (`text`: the text it lies in).
    fn spill(&mut self, text: &TextBlocks) {
        if self.run.links.is_empty() {
            return;
        }
        let chunks = self.run.drain(text, self.ids.as_ref());
        self.chunks.extend(chunks);
    }

    /// Drops the highest chunks while they start at or past the limit.
    fn evict(&mut self) {
        let limit = self.limit;
        while let Some(entry) = self.chunks.last_entry() {
            let len = entry.get().text.len();
            if self.bytes - len < limit {
                break;
            }
            let index = *entry.key();
            let c = entry.remove();
            self.bytes -= len;
            self.dropped_whole = self.dropped_whole.saturating_add(len as u64);
            self.cut_from = Some(index);
            c.arrivals.drain_into(&mut self.evicted);
            self.stale = true;
        }
    }

    /// Text that arrives without an index (seed-003 deltas): appended up to
    /// the limit, the rest counted. Returns the part kept.
    pub fn delta<'a>(&mut self, delta: &'a str, text: &mut TextBlocks) -> &'a str {
        let kept = text.push_within(delta, self.limit);
        let dropped = (delta.len() - kept.len()) as u64;
        if kept.is_empty() {
            self.dropped_whole = self.dropped_whole.saturating_add(dropped);
        } else {
            self.dropped_cut = self.dropped_cut.saturating_add(dropped);
        }
        kept
    }

    /// Rebuilds a stale text from the chunks; each chunk then points into
    /// the new text when all of it is there, and holds its own copy if not.
    /// The chunks already in their place keep the text up to where the
    /// first one out of place begins, so a chunk that arrives late costs the
    /// text after it, not all of it (the text behind is packed, and packing
    /// it again per late chunk made a resync of a long run quadratic).
    pub fn settle(&mut self, text: &mut TextBlocks) {
        if !self.stale {
            return;
        }
        self.spill(text);
        let mut placed = 0;
        let mut first_moved = None;
        for (&index, c) in &self.chunks {
            match c.text {
                Piece::At { start, len } if start == placed => placed += len,
                _ => {
                    first_moved = Some(index);
                    break;
                }
            }
        }
        // The chunks from there on, copied out before the text they may
        // point into is cut back.
        let mut rest = String::new();
        let mut pieces = Vec::new();
        for (&index, c) in self.chunks.range(first_moved.unwrap_or(i64::MAX)..) {
            let s = c.text.as_str(text);
            pieces.push((index, rest.len(), s.len()));
            rest.push_str(&s);
        }
        text.truncate(placed);
        let mut full = true;
        for (index, from, len) in pieces {
            let s = rest.get(from..from + len).unwrap_or_default();
            let start = text.len();
            let kept = if full {
                text.push_within(s, self.limit).len()
            } else {
                0
            };
            let piece = if kept == s.len() {
                Piece::At { start, len: kept }
            } else {
                full = false;
                Piece::Owned(s.to_string())
            };
            if let Some(c) = self.chunks.get_mut(&index) {
                c.text = piece;
            }
        }
        self.stale = false;
    }

    /// The text the chunks make, cut at the limit (`text` is the
    /// execution's text as it stands, which the chunks may point into).
    pub fn rebuilt(&self, text: &TextBlocks) -> String {
        let mut out = String::with_capacity(self.bytes.min(self.limit));
        let tree = self.chunks.values().map(|c| c.text.as_str(text));
        for s in tree.chain(self.run.pieces(text)) {
            if push_within(&mut out, &s, self.limit).len() < s.len() {
                break;
            }
        }
        out
    }

    /// Whether any text was past the limit (dropped whole, cut, or held
    /// past it until the text is rebuilt).
    pub fn over_limit(&self) -> bool {
        self.dropped_whole > 0 || self.dropped_cut > 0 || self.bytes > self.limit
    }

    /// Whether the text is out of date until `settle`.
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// Bytes of streamed text not in the view: whole chunks and deltas
    /// past the limit, plus the cut-off end of the chunk that crosses it.
    /// `text_len` is the settled text's length.
    pub fn dropped_bytes(&self, text_len: usize) -> u64 {
        let tail = self.bytes.saturating_sub(text_len) as u64;
        self.dropped_whole
            .saturating_add(self.dropped_cut)
            .saturating_add(tail)
    }

    /// The bytes dropped whole, which a recording cannot replay (those
    /// chunks are not in it).
    pub fn dropped_whole(&self) -> u64 {
        self.dropped_whole
    }

    /// Adds bytes a recording says were dropped whole.
    pub fn add_dropped(&mut self, bytes: u64) {
        self.dropped_whole = self.dropped_whole.saturating_add(bytes);
    }

    /// Chunk indexes below the highest one kept that never arrived (below
    /// the highest seen while nothing was dropped). Past the cut, a missing
    /// chunk could not have shown, and a recording does not hold those
    /// indexes, so they are not listed: the first
    /// [`LISTED`](crate::session::gaps::LISTED), and the count.
    pub fn missing(&self) -> (Vec<i64>, u64) {
        let below = self.cut_from.map(|_| {
            self.run
                .last_index()
                .or_else(|| self.chunks.keys().next_back().copied())
                .map_or(0, |h| h.saturating_add(1))
        });
        (self.gaps.list_below(below), self.gaps.count_below(below))
    }

    /// Whether chunk `index` was delivered by an envelope whose fingerprint
    /// has `key` (the session keeps such keys here rather than in its set
    /// of them too, see `Session::ingest_in`).
    /// `text` is the execution's text, which the run's keys are made from.
    pub fn holds(&self, index: i64, key: SeenKey, text: &TextBlocks) -> bool {
        // The chunk just added (the session asks of every chunk it applies):
        // its key without making it again.
        if self.last_pushed == Some((index, key)) && self.run.last_index() == Some(index) {
            return true;
        }
        let in_run = self
            .run
            .next()
            .filter(|&next| self.run.first <= index && index < next)
            .and_then(|_| usize::try_from(index - self.run.first).ok());
        match in_run {
            Some(i) => self.run.key_at(i, text, self.ids.as_ref()) == Some(key),
            None => self
                .chunks
                .get(&index)
                .is_some_and(|c| c.arrivals.keys().any(|k| k == key)),
        }
    }

    /// The fingerprint keys of every chunk held (`text`: as for [`holds`](StreamText::holds)).
    pub fn keys(&self, text: &TextBlocks) -> Vec<SeenKey> {
        let mut keys: Vec<SeenKey> = self
            .chunks
            .values()
            .flat_map(|c| c.arrivals.keys())
            .collect();
        let ids = self.ids.as_ref();
        keys.extend(
            self.run
                .walk_from(0)
                .filter_map(|c| self.run.key_of(&c, text, ids)),
        );
        keys
    }

    /// Hands back an arrival whose text was dropped whole at once.
    pub fn drop_arrival(&mut self, arrival: Arrival) {
        self.evicted.push(arrival);
    }

    /// The arrivals of chunks dropped since the last call.
    pub fn take_evicted(&mut self) -> Vec<Arrival> {
        std::mem::take(&mut self.evicted)
    }
}

/// Appends as much of `s` as fits in `limit` bytes of `text`, cut back to a
/// character boundary; returns the part appended.
pub fn push_within<'a>(text: &mut String, s: &'a str, limit: usize) -> &'a str {
    let room = limit.saturating_sub(text.len());
    let mut end = room.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let kept = &s[..end];
    text.push_str(kept);
    kept
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_text_limit_cuts_at_a_character_boundary() {
        use crate::session::text::StreamText;
        use crate::session::text_blocks::TextBlocks;
        let mut t = StreamText::with_limit(3);
        let mut text = TextBlocks::default();
        for (i, c) in [(2, "cd"), (0, "ab"), (3, "ef"), (1, "é")] {
            t.chunk(i, c.to_string(), &mut text, None);
        }
        t.settle(&mut text);
        assert_eq!(text, "ab"); // "abé" is 4 bytes: the cut backs off to a boundary
        assert_eq!(t.dropped_bytes(text.len()), 6); // "é", then "cd" and "ef" dropped whole
    }

    use super::*;

    fn run(order: &[(i64, &str)], limit: usize) -> (String, u64, Vec<i64>) {
        let mut t = StreamText::with_limit(limit);
        let mut text = TextBlocks::default();
        for (i, c) in order {
            t.chunk(*i, c.to_string(), &mut text, None);
        }
        t.settle(&mut text);
        let dropped = t.dropped_bytes(text.len());
        (text.as_str().into_owned(), dropped, t.missing().0)
    }

    #[test]
    fn any_order_gives_the_same_capped_text() {
        let chunks = [
            (0, "aaaa"),
            (1, "bbbb"),
            (2, "cccc"),
            (3, "dddd"),
            (4, "eeee"),
        ];
        let forward = run(&chunks, 10);
        assert_eq!(forward, ("aaaabbbbcc".to_string(), 10, vec![]));
        let mut reverse = chunks;
        reverse.reverse();
        assert_eq!(run(&reverse, 10), forward);
        assert_eq!(
            run(
                &[
                    (2, "cccc"),
                    (0, "aaaa"),
                    (4, "eeee"),
                    (1, "bbbb"),
                    (3, "dddd")
                ],
                10
            ),
            forward
        );
    }

    #[test]
    fn chunks_wholly_in_the_text_point_into_it_instead_of_keeping_a_copy() {
        let mut t = StreamText::with_limit(10);
        let mut text = TextBlocks::default();
        for (i, c) in [(0, "abc"), (1, "def"), (3, "jk")] {
            t.chunk(i, c.to_string(), &mut text, None);
        }
        let owned = |t: &StreamText| -> Vec<i64> {
            t.chunks
                .iter()
                .filter(|(_, c)| matches!(c.text, Piece::Owned(_)))
                .map(|(i, _)| *i)
                .collect()
        };
        assert_eq!(owned(&t), Vec::<i64>::new());
        // A late chunk inside the text is held until the text is rebuilt;
        // then only the chunk the limit cuts keeps a copy.
        t.chunk(2, "ghi".to_string(), &mut text, None);
        assert_eq!(owned(&t), [2]);
        assert_eq!(t.rebuilt(&text), "abcdefghij");
        t.settle(&mut text);
        assert_eq!(text, "abcdefghij");
        assert_eq!(owned(&t), [3]);
        assert_eq!(t.dropped_bytes(text.len()), 1);
        // A replaced chunk reads its new text, the others theirs from the new text.
        t.chunk(1, "DEF".to_string(), &mut text, None);
        t.settle(&mut text);
        assert_eq!(text, "abcDEFghij");
    }

    #[test]
    fn the_cut_never_splits_a_character() {
        assert_eq!(run(&[(0, "ab"), (1, "€x")], 4).0, "ab");
        assert_eq!(run(&[(0, "ab"), (1, "€x")], 5).0, "ab€");
    }

    #[test]
    fn chunks_past_the_limit_keep_no_text() {
        let mut t = StreamText::with_limit(1000);
        let mut text = TextBlocks::default();
        for i in (0..1000).rev() {
            t.chunk(i, "x".repeat(100), &mut text, Some((i as u64, None)));
        }
        t.settle(&mut text);
        assert_eq!(text.len(), 1000);
        assert_eq!(t.chunks.len(), 10, "only what can show is held");
        assert_eq!(t.take_evicted().len(), 990);
        assert_eq!(t.dropped_bytes(text.len()), 99_000);
    }

    #[test]
    fn arrivals_come_back_as_given_whether_kept_in_place_or_listed() {
        let fp = Some(u64::MAX - 1 - (7 << 32));
        let past_u32 = u64::from(u32::MAX) + 1;
        let [a0, a1, a2, a3]: [Arrival; 4] = [(3, fp), (past_u32, fp), (9, None), (5, None)];
        let mut t = StreamText::with_limit(3);
        let mut text = TextBlocks::default();
        t.chunk(0, "a".into(), &mut text, None);
        t.chunk(1, "b".into(), &mut text, Some(a0));
        t.chunk(2, "c".into(), &mut text, Some(a2));
        // Chunk 1 began a run (in order, with a fingerprint); 2 has none.
        assert_eq!(t.run.len(), 0, "moved into the tree by chunk 2");
        assert_eq!(
            t.chunks[&1].arrivals,
            Arrivals::One(3, [u32::MAX - 1, u32::MAX - 7])
        );
        assert_eq!(t.chunks[&2].arrivals, Arrivals::Bare(9));
        t.chunk(3, "d".into(), &mut text, Some(a3));
        assert_eq!(t.take_evicted(), [a3], "past the limit at once");
        // A chunk delivered again under its index keeps both arrivals.
        t.chunk(1, "B".into(), &mut text, Some(a1));
        assert_eq!(t.chunks[&1].arrivals, Arrivals::Many(vec![a0, a1]));
        t.chunk(0, "xy".into(), &mut text, None);
        assert_eq!(t.take_evicted(), [a2]);
        t.chunk(0, "xyz".into(), &mut text, None);
        assert_eq!(t.take_evicted(), [a0, a1]);
        // One numbered past u32 is listed from the start.
        t.chunk(0, "x".into(), &mut text, Some(a1));
        assert_eq!(t.chunks[&0].arrivals, Arrivals::Many(vec![a1]));
    }

    #[test]
    fn chunks_in_order_are_kept_as_a_run_and_read_as_the_tree_would() {
        let fp = |i: u64| Some(i << 32 | (i + 1));
        let mut t = StreamText::with_limit(12);
        let mut text = TextBlocks::default();
        for (i, c) in [(0, "ab"), (1, "cd"), (2, "ef")] {
            t.chunk(i, c.to_string(), &mut text, Some((i as u64, fp(i as u64))));
        }
        assert_eq!((t.run.len(), t.chunks.len()), (3, 0));
        assert_eq!(text, "abcdef");
        assert_eq!(t.rebuilt(&text), "abcdef");
        // Text between chunks (a delta) ends the run; the next starts another.
        t.delta("+", &mut text);
        t.chunk(3, "gh".into(), &mut text, Some((3, fp(3))));
        assert_eq!((t.run.len(), t.chunks.len()), (1, 3));
        assert_eq!(t.rebuilt(&text), "abcdefgh", "the delta is not a chunk");
        // A chunk out of order moves the run into the tree and the text is rebuilt.
        t.chunk(5, "kl".into(), &mut text, Some((5, fp(5))));
        t.chunk(4, "ij".into(), &mut text, Some((4, fp(4))));
        assert_eq!(t.run.len(), 0);
        t.settle(&mut text);
        assert_eq!(text, "abcdefghijkl");
        // Past the limit: the highest chunks leave with their arrivals.
        t.chunk(6, "mn".into(), &mut text, Some((6, fp(6))));
        assert_eq!(t.take_evicted(), [(6, fp(6))]);
        assert_eq!(t.missing(), (vec![], 0));
    }

    #[test]
    fn a_long_stream_keeps_its_text_in_blocks_not_one_buffer_and_rebuilds_the_same() {
        // One doubling String was the wasm memory's high-water mark after
        // the 100k live loop (bench/findings.md, issue 27's fourth pass).
        let block = 64 * 1024;
        let mut t = StreamText::with_limit(usize::MAX);
        let mut text = TextBlocks::default();
        let mut want = String::new();
        let n = 30_000;
        for i in 0..n {
            let c = format!("w{i} ");
            want.push_str(&c);
            t.chunk(i, c, &mut text, Some((i as u64, Some(i as u64))));
        }
        assert_eq!(text, want.as_str());
        let (reserved, largest) = text.reserved();
        assert!(largest <= block, "one buffer of {largest} bytes");
        assert!(
            reserved < want.len() + block,
            "{reserved} reserved for {}",
            want.len()
        );
        // A late chunk makes the text stale; the rebuilt text is in blocks too.
        t.chunk(n + 1, "late".into(), &mut text, None);
        t.chunk(n, "gap ".into(), &mut text, None);
        assert!(t.is_stale());
        t.settle(&mut text);
        want.push_str("gap late");
        assert_eq!(text, want.as_str());
        assert!(text.reserved().1 <= block);
        assert_eq!(t.rebuilt(&text), want);
    }

    #[test]
    fn a_long_run_reserves_at_most_a_block_more_and_spills_whole_with_its_log_numbers() {
        // Memory: a doubling list would reserve up to twice the chunks it
        // holds and, while growing, hold both buffers (bench/findings.md,
        // issue 27's third pass). Log numbers jump every 100 chunks (other
        // envelopes between); the run keeps one per jump.
        let n = 2 * BLOCK + 5;
        let key = |i: usize| Some((i as u64) << 32 | 0xabc);
        let seq = |i: usize| (i + 3 * (i / 100)) as u64;
        let mut t = StreamText::with_limit(usize::MAX);
        let mut text = TextBlocks::default();
        for i in 0..n {
            t.chunk(i as i64, format!("{i},"), &mut text, Some((seq(i), key(i))));
        }
        assert_eq!(t.run.len(), n);
        assert_eq!(t.run.seqs.len(), n.div_ceil(100));
        let reserved = t.run.links.reserved();
        assert!(reserved < n + BLOCK, "{reserved} reserved for {n} chunks");
        assert_eq!(t.rebuilt(&text), text.as_str());
        // Out of order: every chunk of the run goes to the tree with its arrival.
        t.chunk(
            n as i64 + 1,
            "x".into(),
            &mut text,
            Some((n as u64 + 1, key(n + 1))),
        );
        assert_eq!((t.run.len(), t.chunks.len()), (0, n + 1));
        for i in [0, 99, 100, 101, BLOCK - 1, BLOCK, n - 1] {
            let c = &t.chunks[&(i as i64)];
            assert_eq!(c.arrivals, Arrivals::packed((seq(i), key(i))));
            assert_eq!(c.text.as_str(&text), format!("{i},"));
        }
    }

    #[test]
    fn a_run_keeps_two_bytes_a_chunk_and_makes_each_key_again_from_its_parts() {
        // Memory: the 8-byte key kept per chunk beside its length byte was
        // 0.8 MiB of the 100k live loop's wasm memory (bench/findings.md,
        // "Issue 27: a chunk's key from its parts").
        let lens = |i: usize| match i % 1000 {
            7 => 254,
            8 => 255,
            9 => 256,
            10 => 70_000,
            11 => 0,
            _ => 1 + i % 20,
        };
        // Steps of 0 to 253 ms fit the link; a longer one, one back in
        // time and one with microseconds are listed with their instants.
        let step = |i: usize| match i % 500 {
            13 => 254_000,
            14 => 1_000_000,
            15 => -5_000,
            16 => 1_234,
            _ => (i % 254) as i64 * 1000,
        };
        // Every 97th chunk's envelope was not vouched for: it keeps its key.
        let vouched = |i: usize| i % 97 != 5;
        let ids = ChunkIds {
            session_id: "sess".into(),
            execution_id: "exec".into(),
        };
        let n = 3 * BLOCK;
        let mut t = StreamText::with_limit(usize::MAX);
        let mut text = TextBlocks::default();
        let mut want = Vec::new();
        let mut keys = Vec::new();
        let mut at = 1_768_910_400_000_000i64;
        for i in 0..n {
            let c = char::from(b'a' + (i % 26) as u8)
                .to_string()
                .repeat(lens(i));
            at += step(i);
            let key = if vouched(i) {
                t.vouch("sess", "exec", at);
                chunk_key(&ids, at, &c, i as i64)
            } else {
                (i as u64) << 32 | 0x5eed
            };
            want.push(c.clone());
            keys.push(key);
            t.chunk(i as i64, c, &mut text, Some((i as u64, Some(key))));
        }
        assert_eq!(t.run.len(), n, "every chunk in the run, long or empty");
        assert_eq!(t.run.long.len(), 3 * n.div_ceil(1000));
        assert_eq!(t.run.keyed.len(), (0..n).filter(|&i| !vouched(i)).count());
        let per_chunk = t.run.reserved_bytes() as f64 / n as f64;
        // Two bytes of link; the anchors, the kept keys and instants and
        // their lists' spare room about one more (natively: 64-bit sizes).
        assert!(per_chunk < 3.5, "{per_chunk} bytes a chunk");
        assert_eq!(t.rebuilt(&text), want.concat());
        assert!(t.run.pieces(&text).eq(want.iter().map(String::as_str)));
        assert_eq!(t.keys(&text), keys);
        for i in (0..n)
            .step_by(7)
            .chain([5, 63, 64, 65, 1010, 1013, 1014, 1015, 1016, n - 1])
        {
            assert!(t.holds(i as i64, keys[i], &text), "chunk {i}");
            assert!(!t.holds(i as i64, keys[i] ^ 1, &text), "chunk {i}");
        }
        // A chunk vouched for under other ids keeps its key.
        t.vouch("other", "exec", at);
        t.chunk(n as i64, "o".into(), &mut text, Some((n as u64, Some(7))));
        assert!(t.holds(n as i64, 7, &text));
        want.push("o".into());
        keys.push(7);
        // Moved into the tree, each chunk keeps its own text and arrival.
        t.chunk(n as i64 + 2, "z".into(), &mut text, Some((0, Some(9))));
        assert_eq!((t.run.len(), t.chunks.len()), (0, n + 2));
        for (i, w) in want.iter().enumerate() {
            let c = &t.chunks[&(i as i64)];
            assert_eq!(c.text.as_str(&text), w.as_str(), "chunk {i}");
            assert_eq!(c.arrivals, Arrivals::packed((i as u64, Some(keys[i]))));
        }
        t.settle(&mut text);
        assert_eq!(text, (want.concat() + "z").as_str());
    }

    #[test]
    fn a_run_reaching_the_limit_evicts_as_the_tree_does() {
        let run = |order: &[i64]| {
            let mut t = StreamText::with_limit(7);
            let mut text = TextBlocks::default();
            for &i in order {
                t.chunk(
                    i,
                    "abc".into(),
                    &mut text,
                    Some((i as u64, Some(9 << 32 | i as u64))),
                );
            }
            t.settle(&mut text);
            let mut evicted = t.take_evicted();
            evicted.sort();
            let dropped = t.dropped_bytes(text.len());
            (text, dropped, evicted)
        };
        let forward = run(&[0, 1, 2, 3]);
        assert_eq!(forward.0, "abcabca");
        assert_eq!(run(&[3, 2, 1, 0]), forward);
        assert_eq!(run(&[1, 0, 3, 2]), forward);
    }

    #[test]
    fn gaps_past_the_cut_are_not_listed() {
        let (_, _, missing) = run(&[(0, "aaaa"), (2, "cccc"), (3, "dddd"), (9, "z")], 6);
        assert_eq!(
            missing,
            [1],
            "3 and 9 lie past the cut, so 4..9 are not missing text"
        );
        let (_, _, missing) = run(&[(0, "aa"), (2, "cc")], 100);
        assert_eq!(missing, [1]);
    }
}

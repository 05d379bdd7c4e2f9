//! An execution's streamed text, held in blocks rather than one buffer.
//!
//! One `String` that doubles was the wasm memory's high-water mark after a
//! long run: 1.29 MB of text in a 2.25 MiB buffer, placed above everything
//! else because no hole could hold it, beside the 1.125 MiB buffer it was
//! copied from (bench/findings.md, issue 27's fourth pass). Blocks of at
//! most [`BLOCK`] bytes never copy what they hold and leave at most a block
//! unused.
//!
//! A piece of text is appended whole to one block (a piece longer than a
//! block gets a block of its own size), so a chunk's text is always one
//! slice ([`TextBlocks::get`]), which the stream text's pieces rely on.
//!
//! The text is the largest thing a long run keeps, and the published view
//! holds it too, so blocks the stream has moved past are kept packed
//! (src/session/text_pack.rs): all but the one being written, which the
//! live view's reads and a redelivery of recent chunks touch. A read of a
//! packed block unpacks it once into a one-block cache, so a walk over the
//! text or a resync of a whole run unpacks each block once.

use std::borrow::Cow;
use std::sync::{Mutex, PoisonError};

use crate::session::text_pack::{pack, unpack};

/// Bytes per block, once the first block has doubled up to it: a short text
/// costs what it holds.
const BLOCK: usize = 64 * 1024;

/// Blocks at the end kept as text: the one being written (a text of one
/// block is never packed). Keeping the one before it too cost 64 KiB of the
/// wasm after the 100k live loop (bench/findings.md).
const PLAIN_BLOCKS: usize = 1;

/// One block of the text.
#[derive(Clone, Debug)]
enum Block {
    Plain(String),
    /// [`pack`]ed, with the length of the text it holds.
    Packed {
        bytes: Box<[u8]>,
        len: usize,
    },
}

impl Block {
    /// The block's text as a `String` of its own (a plain one's, room kept).
    fn into_text(self) -> String {
        match self {
            Block::Plain(s) => s,
            Block::Packed { bytes, len } => unpacked(&bytes, len),
        }
    }

    /// The block's text (unpacked into a new string when packed).
    fn text(&self) -> Cow<'_, str> {
        match self {
            Block::Plain(s) => Cow::Borrowed(s),
            Block::Packed { bytes, len } => Cow::Owned(unpacked(bytes, *len)),
        }
    }
}

/// The text of a packed block. The session packed it from a `String`, so
/// it unpacks to the same UTF-8; anything else is a bug, and reads as
/// empty rather than as other text.
fn unpacked(bytes: &[u8], len: usize) -> String {
    let text = unpack(bytes, len).and_then(|b| String::from_utf8(b).ok());
    debug_assert!(text.is_some(), "a packed text block that does not unpack");
    text.unwrap_or_default()
}

/// Text in blocks, compared by content.
#[derive(Debug, Default)]
pub struct TextBlocks {
    blocks: Vec<Block>,
    /// Where each block starts in the text.
    starts: Vec<usize>,
    len: usize,
    /// The packed block read last, unpacked: `(index, text)`.
    unpacked: Mutex<Option<(usize, String)>>,
}

impl Clone for TextBlocks {
    fn clone(&self) -> Self {
        TextBlocks {
            blocks: self.blocks.clone(),
            starts: self.starts.clone(),
            len: self.len,
            unpacked: Mutex::default(),
        }
    }
}

impl TextBlocks {
    /// Bytes of text.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no text.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `s` to the last block if it fits there, else to a new block.
    pub fn push_str(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        match self.blocks.last_mut() {
            Some(Block::Plain(b)) if b.capacity() - b.len() >= s.len() => b.push_str(s),
            Some(Block::Plain(b)) if b.len() + s.len() <= BLOCK => {
                // The first block doubles up to a block's size.
                let want = (b.capacity() * 2).clamp(b.len() + s.len(), BLOCK);
                b.reserve_exact(want - b.len());
                b.push_str(s);
            }
            last => {
                let size = if last.is_some() { BLOCK } else { 0 };
                // The block falling behind is packed first, so that the new
                // block can take the room it gives back.
                self.pack_behind();
                let mut b = String::with_capacity(size.max(s.len()));
                b.push_str(s);
                self.starts.push(self.len);
                self.blocks.push(Block::Plain(b));
            }
        }
        self.len += s.len();
    }

    /// Packs the block that falls behind the last [`PLAIN_BLOCKS`] when a
    /// new block is added.
    fn pack_behind(&mut self) {
        let Some(i) = self.blocks.len().checked_sub(PLAIN_BLOCKS) else {
            return;
        };
        if let Some(block) = self.blocks.get_mut(i) {
            if let Block::Plain(text) = block {
                let bytes = pack(text.as_bytes()).into_boxed_slice();
                *block = Block::Packed {
                    bytes,
                    len: text.len(),
                };
            }
        }
    }

    /// Cuts the text back to its first `at` bytes (nothing when the text is
    /// no longer; the callers cut between pieces, at a character boundary).
    pub fn truncate(&mut self, at: usize) {
        if at >= self.len {
            return;
        }
        *self
            .unpacked
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner) = None;
        let i = self.block_of(at);
        let start = self.starts.get(i).copied().unwrap_or(0);
        self.blocks.truncate(i + 1);
        self.starts.truncate(i + 1);
        let Some(mut kept) = self.blocks.pop().map(Block::into_text) else {
            return;
        };
        let cut = at - start;
        debug_assert!(kept.is_char_boundary(cut), "a cut inside a character");
        let cut = (0..=cut)
            .rev()
            .find(|&c| kept.is_char_boundary(c))
            .unwrap_or(0);
        kept.truncate(cut);
        self.starts.pop();
        self.len = start + kept.len();
        if !kept.is_empty() {
            self.blocks.push(Block::Plain(kept));
            self.starts.push(start);
        }
    }

    /// Appends as much of `s` as fits in `limit` bytes of text, cut back to
    /// a character boundary; returns the part appended.
    pub fn push_within<'a>(&mut self, s: &'a str, limit: usize) -> &'a str {
        let room = limit.saturating_sub(self.len);
        let mut end = room.min(s.len());
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        let kept = s.get(..end).unwrap_or_default();
        self.push_str(kept);
        kept
    }

    /// The block holding byte `at` (the last block for the end of the text).
    fn block_of(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at).saturating_sub(1)
    }

    /// Bytes `start..start + len` when they lie in one block (every piece
    /// appended whole does).
    pub fn get(&self, start: usize, len: usize) -> Option<Cow<'_, str>> {
        // An empty piece at the end is in the text too, also when no block
        // holds its place (an empty text, or a chunk with no content).
        if len == 0 {
            return (start <= self.len).then_some(Cow::Borrowed(""));
        }
        let i = self.block_of(start);
        let from = start.checked_sub(*self.starts.get(i)?)?;
        match self.blocks.get(i)? {
            Block::Plain(b) => b.get(from..from + len).map(Cow::Borrowed),
            Block::Packed { bytes, len: all } => {
                let piece = |text: &str| text.get(from..from + len).map(str::to_string);
                // Another thread reading the same text unpacks its own copy.
                let Ok(mut cache) = self.unpacked.try_lock() else {
                    return piece(&unpacked(bytes, *all)).map(Cow::Owned);
                };
                if cache.as_ref().is_none_or(|(at, _)| *at != i) {
                    *cache = Some((i, unpacked(bytes, *all)));
                }
                cache
                    .as_ref()
                    .and_then(|(_, text)| piece(text))
                    .map(Cow::Owned)
            }
        }
    }

    /// The text from byte `from` to the end, in pieces; `None` when `from`
    /// is past the end or not at a character boundary.
    pub fn tail(&self, from: usize) -> Option<impl Iterator<Item = Cow<'_, str>> + '_> {
        if from > self.len {
            return None;
        }
        let i = self.block_of(from);
        let offset = from - self.starts.get(i).copied().unwrap_or(0);
        let first = match self.blocks.get(i).map(Block::text) {
            Some(Cow::Borrowed(b)) => Cow::Borrowed(b.get(offset..)?),
            Some(Cow::Owned(b)) => Cow::Owned(b.get(offset..)?.to_string()),
            None => Cow::Borrowed(""),
        };
        let rest = self.blocks.get(i + 1..).unwrap_or_default();
        Some(std::iter::once(first).chain(rest.iter().map(Block::text)))
    }

    /// The text from byte `from` to the end, as one string (borrowed when
    /// it lies in one plain block, as what arrived since the last read does).
    pub fn tail_str(&self, from: usize) -> Option<Cow<'_, str>> {
        // The live patch's read: what arrived since the last one, in the last block.
        if let (Some(&start), Some(Block::Plain(last))) = (self.starts.last(), self.blocks.last()) {
            if from >= start {
                return last.get(from - start..).map(Cow::Borrowed);
            }
        }
        let mut parts = self.tail(from)?.filter(|p| !p.is_empty());
        let first = parts.next().unwrap_or_default();
        Some(match parts.next() {
            None => first,
            Some(second) => {
                let mut all = String::with_capacity(self.len - from);
                all.push_str(&first);
                all.push_str(&second);
                parts.for_each(|p| all.push_str(&p));
                Cow::Owned(all)
            }
        })
    }

    /// The whole text as one string (borrowed when it is one plain block).
    pub fn as_str(&self) -> Cow<'_, str> {
        self.tail_str(0).unwrap_or_default()
    }

    /// Bytes reserved in all, and the largest single buffer (tests check
    /// what the text holds).
    #[cfg(test)]
    pub(crate) fn reserved(&self) -> (usize, usize) {
        let caps = self.blocks.iter().map(|b| match b {
            Block::Plain(s) => s.capacity(),
            Block::Packed { bytes, .. } => bytes.len(),
        });
        (caps.clone().sum(), caps.max().unwrap_or(0))
    }

    /// The blocks' text, in order.
    pub fn parts(&self) -> impl Iterator<Item = Cow<'_, str>> + '_ {
        self.blocks.iter().map(Block::text)
    }

    /// Whether the text reads `other`, block by block.
    fn reads(&self, other: &[u8]) -> bool {
        let mut at = 0;
        self.len == other.len()
            && self.parts().all(|p| {
                let same = other.get(at..at + p.len()) == Some(p.as_bytes());
                at += p.len();
                same
            })
    }
}

impl PartialEq for TextBlocks {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.reads(other.as_str().as_bytes())
    }
}

impl PartialEq<str> for TextBlocks {
    fn eq(&self, other: &str) -> bool {
        self.reads(other.as_bytes())
    }
}

impl PartialEq<&str> for TextBlocks {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

#[cfg(test)]
mod tests {
    use super::{Block, TextBlocks, BLOCK, PLAIN_BLOCKS};

    #[test]
    fn a_long_text_grows_by_blocks_and_reads_back_whole_and_from_any_boundary() {
        let mut t = TextBlocks::default();
        let word = "chunk é ";
        let mut whole = String::new();
        let mut starts = Vec::new();
        while whole.len() < 5 * BLOCK + 100 {
            starts.push(whole.len());
            t.push_str(word);
            whole.push_str(word);
        }
        assert_eq!(t, whole.as_str());
        assert_eq!(t.len(), whole.len());
        // No buffer of the whole text's size, and at most one block unused.
        let (reserved, largest) = t.reserved();
        assert!(largest <= BLOCK);
        assert!(
            reserved < whole.len() + BLOCK,
            "{reserved} for {}",
            whole.len()
        );
        // Every piece appended is one slice of one block, packed or not.
        for &s in &starts {
            assert_eq!(t.get(s, word.len()).as_deref(), Some(word));
        }
        for from in [
            0,
            1,
            BLOCK - 3,
            BLOCK + 5,
            4 * BLOCK + 1,
            whole.len() - 1,
            whole.len(),
        ] {
            let want = whole.get(from..);
            assert_eq!(t.tail_str(from).as_deref(), want, "from {from}");
        }
        assert!(t.tail(whole.len() + 1).is_none());
        assert_eq!(t.as_str(), whole);
        assert_eq!(t.clone(), t);
    }

    /// A text of `blocks` blocks made of the pieces `piece(0)`, `piece(1)`,
    /// …, and the same text as one string.
    fn text_of_blocks(blocks: usize, piece: impl Fn(usize) -> String) -> (TextBlocks, String) {
        let (mut t, mut whole) = (TextBlocks::default(), String::new());
        for k in 0.. {
            if t.blocks.len() >= blocks {
                break;
            }
            let p = piece(k);
            t.push_str(&p);
            whole.push_str(&p);
        }
        (t, whole)
    }

    #[test]
    fn blocks_behind_the_last_are_kept_packed_and_read_back_the_same() {
        let (t, whole) = text_of_blocks(6, |k| {
            format!("step {k}: the agent called lookup_entity 晴朗 ✅; ")
        });
        let packed = t
            .blocks
            .iter()
            .filter(|b| matches!(b, Block::Packed { .. }))
            .count();
        assert_eq!(packed, 6 - PLAIN_BLOCKS);
        let (reserved, _) = t.reserved();
        assert!(
            reserved < whole.len() / 2,
            "{reserved} bytes kept for {}",
            whole.len()
        );
        assert_eq!(t, whole.as_str());
        // Reads in any order across packed blocks, each through the cache.
        for start in [3 * BLOCK, 10, 2 * BLOCK + 7, 10] {
            let at = (start..).find(|&i| whole.is_char_boundary(i)).unwrap_or(0);
            let len = (20..)
                .find(|&n| whole.is_char_boundary(at + n))
                .unwrap_or(0);
            let want = whole.get(at..at + len);
            if t.block_of(at) == t.block_of(at + len - 1) {
                assert_eq!(t.get(at, len).as_deref(), want, "at {at}");
            }
        }
    }

    #[test]
    fn a_cut_keeps_the_text_before_it_in_a_packed_block_a_plain_one_or_at_a_block_start() {
        let (t, whole) = text_of_blocks(5, |k| format!("piece {k} 晴朗; "));
        let starts = t.starts.clone();
        let boundary = |at: usize| (at..).find(|&i| whole.is_char_boundary(i)).unwrap_or(0);
        for at in [
            whole.len() - 3,
            starts[4],
            boundary(starts[3] + 100),
            boundary(starts[1] + 7),
            5,
            0,
        ] {
            let at = boundary(at);
            let mut cut = t.clone();
            cut.truncate(at);
            let want = whole.get(..at).unwrap_or_default();
            assert_eq!(cut, want, "cut at {at}");
            assert_eq!(cut.len(), at);
            cut.push_str("more");
            assert_eq!(
                cut,
                format!("{want}more").as_str(),
                "cut at {at}, then more"
            );
        }
        let mut same = t.clone();
        same.truncate(whole.len() + 5);
        assert_eq!(same, whole.as_str());
    }

    #[test]
    fn a_piece_longer_than_a_block_gets_its_own_and_the_limit_cuts_at_a_boundary() {
        let mut t = TextBlocks::default();
        t.push_str("ab");
        let big = "x".repeat(BLOCK + 7);
        t.push_str(&big);
        assert_eq!(t.get(2, big.len()).as_deref(), Some(big.as_str()));
        t.push_str("cd");
        assert_eq!(t.get(2 + big.len(), 2).as_deref(), Some("cd"));
        let mut u = TextBlocks::default();
        assert_eq!(u.push_within("aé", 2), "a");
        assert_eq!(u.push_within("zz", 2), "z");
        assert_eq!(u, "az");
        assert_eq!(u.push_within("more", 2), "");
    }

    #[test]
    fn an_empty_piece_reads_as_empty_wherever_the_text_ends() {
        // A chunk with no content (a provider frame's place) at the end of
        // a text that has no block yet, or none past a full one, was read
        // as lying outside the text.
        let mut t = TextBlocks::default();
        assert_eq!(t.get(0, 0).as_deref(), Some(""));
        assert_eq!(t.get(1, 0), None);
        let block = "x".repeat(64 * 1024);
        t.push_str(&block);
        assert_eq!(t.get(block.len(), 0).as_deref(), Some(""));
        assert_eq!(t.get(3, 0).as_deref(), Some(""));
        assert_eq!(t.get(block.len() + 1, 0), None);
        assert_eq!(t.get(block.len() - 1, 1).as_deref(), Some("x"));
    }
}

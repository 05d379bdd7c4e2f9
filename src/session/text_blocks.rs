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

use std::borrow::Cow;

/// Bytes per block, once the first block has doubled up to it: a short text
/// costs what it holds.
const BLOCK: usize = 64 * 1024;

/// Text in blocks, compared by content.
#[derive(Clone, Debug, Default)]
pub struct TextBlocks {
    blocks: Vec<String>,
    /// Where each block starts in the text.
    starts: Vec<usize>,
    len: usize,
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
            Some(b) if b.capacity() - b.len() >= s.len() => b.push_str(s),
            Some(b) if b.len() + s.len() <= BLOCK => {
                // The first block doubles up to a block's size.
                let want = (b.capacity() * 2).clamp(b.len() + s.len(), BLOCK);
                b.reserve_exact(want - b.len());
                b.push_str(s);
            }
            last => {
                let size = if last.is_some() { BLOCK } else { 0 };
                let mut b = String::with_capacity(size.max(s.len()));
                b.push_str(s);
                self.starts.push(self.len);
                self.blocks.push(b);
            }
        }
        self.len += s.len();
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
    pub fn get(&self, start: usize, len: usize) -> Option<&str> {
        // An empty piece at the end is in the text too, also when no block
        // holds its place (an empty text, or a chunk with no content).
        if len == 0 {
            return (start <= self.len).then_some("");
        }
        let i = self.block_of(start);
        let from = start.checked_sub(*self.starts.get(i)?)?;
        self.blocks.get(i)?.get(from..from + len)
    }

    /// The text from byte `from` to the end, in pieces; `None` when `from`
    /// is past the end or not at a character boundary.
    pub fn tail(&self, from: usize) -> Option<impl Iterator<Item = &str> + '_> {
        if from > self.len {
            return None;
        }
        let i = self.block_of(from);
        let offset = from - self.starts.get(i).copied().unwrap_or(0);
        let first = match self.blocks.get(i) {
            Some(b) => b.get(offset..)?,
            None => "",
        };
        let rest = self.blocks.get(i + 1..).unwrap_or_default();
        Some(std::iter::once(first).chain(rest.iter().map(String::as_str)))
    }

    /// The text from byte `from` to the end, as one string (borrowed when
    /// it lies in one block, as what arrived since the last read does).
    pub fn tail_str(&self, from: usize) -> Option<Cow<'_, str>> {
        // The live patch's read: what arrived since the last one, in the last block.
        if let (Some(&start), Some(last)) = (self.starts.last(), self.blocks.last()) {
            if from >= start {
                return last.get(from - start..).map(Cow::Borrowed);
            }
        }
        let mut parts = self.tail(from)?.filter(|p| !p.is_empty());
        let first = parts.next().unwrap_or_default();
        Some(match parts.next() {
            None => Cow::Borrowed(first),
            Some(second) => {
                let mut all = String::with_capacity(self.len - from);
                all.push_str(first);
                all.push_str(second);
                parts.for_each(|p| all.push_str(p));
                Cow::Owned(all)
            }
        })
    }

    /// The whole text as one string (borrowed when it is one block).
    pub fn as_str(&self) -> Cow<'_, str> {
        self.tail_str(0).unwrap_or_default()
    }

    /// Bytes reserved in all, and the largest single buffer (tests check
    /// what the text holds).
    #[cfg(test)]
    pub(crate) fn reserved(&self) -> (usize, usize) {
        let caps = self.blocks.iter().map(String::capacity);
        (caps.clone().sum(), caps.max().unwrap_or(0))
    }

    /// The blocks' text, in order.
    pub fn parts(&self) -> impl Iterator<Item = &str> + '_ {
        self.blocks.iter().map(String::as_str)
    }
}

impl PartialEq for TextBlocks {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len
            && self
                .parts()
                .flat_map(str::bytes)
                .eq(other.parts().flat_map(str::bytes))
    }
}

impl PartialEq<str> for TextBlocks {
    fn eq(&self, other: &str) -> bool {
        self.len == other.len() && self.parts().flat_map(str::bytes).eq(other.bytes())
    }
}

impl PartialEq<&str> for TextBlocks {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

#[cfg(test)]
mod tests {
    use super::{TextBlocks, BLOCK};

    #[test]
    fn a_long_text_grows_by_blocks_and_reads_back_whole_and_from_any_boundary() {
        let mut t = TextBlocks::default();
        let word = "chunk é ";
        let mut whole = String::new();
        let mut starts = Vec::new();
        while whole.len() < 3 * BLOCK + 100 {
            starts.push(whole.len());
            t.push_str(word);
            whole.push_str(word);
        }
        assert_eq!(t, whole.as_str());
        assert_eq!(t.len(), whole.len());
        // No buffer of the whole text's size, and at most one block unused.
        assert!(t.blocks.iter().all(|b| b.capacity() <= BLOCK));
        let reserved: usize = t.blocks.iter().map(String::capacity).sum();
        assert!(
            reserved < whole.len() + BLOCK,
            "{reserved} for {}",
            whole.len()
        );
        // Every piece appended is one slice of one block.
        for &s in &starts {
            assert_eq!(t.get(s, word.len()), Some(word));
        }
        for from in [0, 1, BLOCK - 3, BLOCK + 5, whole.len() - 1, whole.len()] {
            let want = whole.get(from..);
            assert_eq!(t.tail_str(from).as_deref(), want, "from {from}");
        }
        assert!(t.tail(whole.len() + 1).is_none());
        assert_eq!(t.as_str(), whole);
    }

    #[test]
    fn a_piece_longer_than_a_block_gets_its_own_and_the_limit_cuts_at_a_boundary() {
        let mut t = TextBlocks::default();
        t.push_str("ab");
        let big = "x".repeat(BLOCK + 7);
        t.push_str(&big);
        assert_eq!(t.get(2, big.len()), Some(big.as_str()));
        t.push_str("cd");
        assert_eq!(t.get(2 + big.len(), 2), Some("cd"));
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
        assert_eq!(t.get(0, 0), Some(""));
        assert_eq!(t.get(1, 0), None);
        let block = "x".repeat(64 * 1024);
        t.push_str(&block);
        assert_eq!(t.get(block.len(), 0), Some(""));
        assert_eq!(t.get(3, 0), Some(""));
        assert_eq!(t.get(block.len() + 1, 0), None);
        assert_eq!(t.get(block.len() - 1, 1), Some("x"));
    }
}

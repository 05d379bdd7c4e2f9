//! A list that grows by fixed blocks instead of doubling.
//!
//! A doubling vector holds up to twice what it needs, and while it grows it
//! holds the old buffer and the new one at once; the wasm memory keeps its
//! high-water mark, so both count for as long as the instance lives
//! (bench/findings.md, issue 27's third and fourth passes). A list of
//! blocks of `N` items never holds more than one block unused and never
//! copies what it holds. The first block doubles up to `N`, so a short list
//! costs what it holds.

/// Items in blocks of `N` (every block but the last is full).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Blocks<T, const N: usize> {
    blocks: Vec<Vec<T>>,
}

impl<T, const N: usize> Default for Blocks<T, N> {
    fn default() -> Self {
        Blocks { blocks: Vec::new() }
    }
}

impl<T, const N: usize> Blocks<T, N> {
    pub(crate) fn push(&mut self, item: T) {
        match self.blocks.last_mut() {
            Some(block) if block.len() < N => block.push(item),
            last => {
                let mut block = match last {
                    Some(_) => Vec::with_capacity(N),
                    None => Vec::new(),
                };
                block.push(item);
                self.blocks.push(block);
            }
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.blocks.len().saturating_sub(1) * N + self.blocks.last().map_or(0, Vec::len)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The `i`-th item.
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        self.blocks.get(i / N)?.get(i % N)
    }

    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.blocks.get_mut(i / N)?.get_mut(i % N)
    }

    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.blocks.iter().flatten()
    }

    /// Items the list has room for (tests check what it reserves).
    #[cfg(test)]
    pub(crate) fn reserved(&self) -> usize {
        self.blocks.iter().map(Vec::capacity).sum()
    }

    /// Empties the list, handing back its items in order.
    #[cfg(test)]
    pub(crate) fn take(&mut self) -> impl Iterator<Item = T> {
        std::mem::take(&mut self.blocks).into_iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::Blocks;

    #[test]
    fn blocks_index_push_and_take_like_a_vector() {
        let mut b: Blocks<u32, 4> = Blocks::default();
        assert!(b.is_empty() && b.get(0).is_none());
        for i in 0..11 {
            b.push(i);
            assert_eq!(b.len(), i as usize + 1);
            assert_eq!(b.get(i as usize), Some(&i));
        }
        assert_eq!(b.get(5), Some(&5));
        assert_eq!(b.get(11), None);
        *b.get_mut(9).unwrap() = 90;
        assert_eq!(
            b.iter().copied().collect::<Vec<_>>(),
            [0, 1, 2, 3, 4, 5, 6, 7, 8, 90, 10]
        );
        // Full blocks hold exactly N: only the last block can have room left.
        assert!(b
            .blocks
            .iter()
            .rev()
            .skip(1)
            .all(|x| x.len() == 4 && x.capacity() == 4));
        assert!(b.reserved() < 11 + 4);
        assert_eq!(b.take().count(), 11);
        assert!(b.is_empty());
    }
}

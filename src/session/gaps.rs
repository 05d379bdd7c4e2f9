//! Missing numbers below the highest seen (steps from 1, chunks from 0),
//! kept as ranges and updated per arrival: reading them is O(gaps), never
//! O(highest number), so a hostile `chunk_index` of 10^15 costs nothing.

/// At most this many missing numbers are listed in a view (a count of all
/// of them is kept).
pub const LISTED: usize = 1000;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Gaps {
    /// Half-open missing ranges `(start, end)`, disjoint, ascending by start
    /// (a sorted vector: one `BTreeMap` type fewer in the live wasm).
    ranges: Vec<(i64, i64)>,
    highest: Option<i64>,
}

impl Gaps {
    /// Records that `n` arrived; numbers are expected from `base` up.
    pub fn arrived(&mut self, n: i64, base: i64) {
        match self.highest {
            None => {
                if n > base {
                    self.ranges.push((base, n));
                }
                self.highest = Some(n);
            }
            Some(h) if n > h => {
                if n > h.saturating_add(1) {
                    self.ranges.push((h + 1, n));
                }
                self.highest = Some(n);
            }
            Some(_) => {
                let Some(i) = self.at_or_below(n) else {
                    return;
                };
                let Some(&(start, end)) = self.ranges.get(i) else {
                    return;
                };
                if n >= end {
                    return;
                }
                match (start < n, n + 1 < end) {
                    (false, false) => {
                        self.ranges.remove(i);
                    }
                    (true, split) => {
                        if let Some(r) = self.ranges.get_mut(i) {
                            *r = (start, n);
                        }
                        if split {
                            self.ranges.insert(i + 1, (n + 1, end));
                        }
                    }
                    (false, true) => {
                        if let Some(r) = self.ranges.get_mut(i) {
                            *r = (n + 1, end);
                        }
                    }
                }
            }
        }
    }

    /// How many numbers are missing.
    pub fn count(&self) -> u64 {
        self.count_below(None)
    }

    /// The first [`LISTED`] missing numbers, ascending.
    pub fn list(&self) -> Vec<i64> {
        self.list_below(None)
    }

    /// How many numbers below `end` (all with `None`) are missing.
    pub fn count_below(&self, end: Option<i64>) -> u64 {
        self.below(end)
            .fold(0u64, |n, (s, e)| n.saturating_add(e.abs_diff(s)))
    }

    /// The first [`LISTED`] missing numbers below `end` (all with `None`).
    pub fn list_below(&self, end: Option<i64>) -> Vec<i64> {
        self.below(end)
            .flat_map(|(s, e)| s..e)
            .take(LISTED)
            .collect()
    }

    /// The missing ranges, cut at `end`.
    fn below(&self, end: Option<i64>) -> impl Iterator<Item = (i64, i64)> + '_ {
        let end = end.unwrap_or(i64::MAX);
        self.ranges
            .iter()
            .take_while(move |&&(s, _)| s < end)
            .map(move |&(s, e)| (s, e.min(end)))
    }

    /// The index of the last range starting at or below `n`.
    fn at_or_below(&self, n: i64) -> Option<usize> {
        self.ranges.partition_point(|&(s, _)| s <= n).checked_sub(1)
    }

    /// The highest number that arrived.
    pub fn highest(&self) -> Option<i64> {
        self.highest
    }

    /// Whether `n` arrived (for numbers from the base up).
    pub fn contains(&self, n: i64) -> bool {
        if self.highest.is_none_or(|h| n > h) {
            return false;
        }
        match self.at_or_below(n).and_then(|i| self.ranges.get(i)) {
            Some(&(_, end)) => n >= end,
            None => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_open_and_close_in_any_order() {
        let mut g = Gaps::default();
        for n in [0, 3, 1, 7] {
            g.arrived(n, 0);
        }
        assert_eq!(g.list(), [2, 4, 5, 6]);
        g.arrived(5, 0);
        assert_eq!(g.list(), [2, 4, 6]);
        for n in [2, 4, 6, 6] {
            g.arrived(n, 0);
        }
        assert_eq!(g.list(), Vec::<i64>::new());
        assert_eq!(g.count(), 0);
    }

    #[test]
    fn extreme_numbers_neither_overflow_nor_panic() {
        let mut g = Gaps::default();
        for n in [i64::MIN, i64::MAX, 0, i64::MAX - 1] {
            g.arrived(n, 0);
        }
        assert_eq!(g.count(), u64::MAX - 3, "MIN+1..MAX less 0 and MAX-1");
        assert_eq!(g.list().len(), LISTED);
    }

    #[test]
    fn arrival_and_gaps_below_a_bound() {
        let mut g = Gaps::default();
        for n in [0, 3, 7] {
            g.arrived(n, 0);
        }
        assert!(g.contains(3) && !g.contains(4) && !g.contains(8));
        assert_eq!(g.list_below(Some(5)), [1, 2, 4]);
        assert_eq!(g.count_below(Some(5)), 3);
        assert_eq!(g.highest(), Some(7));
    }

    #[test]
    fn a_huge_number_costs_a_range_not_a_list() {
        let mut g = Gaps::default();
        g.arrived(1, 1);
        g.arrived(1_000_000_000_000_000, 1);
        assert_eq!(g.count(), 999_999_999_999_998);
        assert_eq!(g.list().len(), LISTED);
    }
}

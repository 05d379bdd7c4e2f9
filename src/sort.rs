//! One small sort for the core's few sorts of plain keys.
//!
//! Every element type `slice::sort_unstable` is used with compiles its own
//! copy of the standard pattern-defeating quicksort (sizes: bench/findings.md).
//! A heapsort is much smaller per type and still O(n log n) in the worst case; the lists sorted
//! here (change lists per read, status chains, log merges, unfinished
//! turns) are short or already nearly in order, where the difference in speed
//! does not show.

/// Sorts `v` by `key`, ascending (not stable: use it where equal keys are
/// equal values, or where their order does not matter).
pub fn sort_by_key<T, K: Ord>(v: &mut [T], key: impl Fn(&T) -> K) {
    let less = |a: &T, b: &T| key(a) < key(b);
    // Build a max-heap, then move the largest to the end, one by one.
    for start in (0..v.len() / 2).rev() {
        sift_down(v, start, v.len(), &less);
    }
    for end in (1..v.len()).rev() {
        v.swap(0, end);
        sift_down(v, 0, end, &less);
    }
}

/// Sorts `v` ascending; see [`sort_by_key`].
pub fn sort<T: Ord + Copy>(v: &mut [T]) {
    sort_by_key(v, |&x| x);
}

/// Sorts `v` by `key`, ascending, keeping equal keys in their order (a
/// stable sort): the positions go along as a second key.
pub fn stable_sort_by_key<T, K: Ord + Copy>(v: &mut Vec<T>, key: impl Fn(&T) -> K) {
    let mut order: Vec<(K, usize)> = v.iter().enumerate().map(|(i, x)| (key(x), i)).collect();
    sort(&mut order);
    let mut slots: Vec<Option<T>> = v.drain(..).map(Some).collect();
    v.extend(
        order
            .into_iter()
            .filter_map(|(_, i)| slots.get_mut(i)?.take()),
    );
}

/// A key that orders floats as [`f64::total_cmp`] does.
pub fn total_order_key(x: f64) -> i64 {
    let bits = x.to_bits() as i64;
    // Negative floats order backwards by their bits: flip all but the sign.
    bits ^ ((((bits >> 63) as u64) >> 1) as i64)
}

fn sift_down<T>(v: &mut [T], mut root: usize, end: usize, less: &impl Fn(&T, &T) -> bool) {
    loop {
        let mut child = 2 * root + 1;
        if child >= end {
            return;
        }
        if child + 1 < end {
            if let (Some(left), Some(right)) = (v.get(child), v.get(child + 1)) {
                child += usize::from(less(left, right));
            }
        }
        match (v.get(root), v.get(child)) {
            (Some(parent), Some(larger)) if less(parent, larger) => {}
            _ => return,
        }
        v.swap(root, child);
        root = child;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sort_by_key_sorts_ascending() {
        let mut v = vec![(3, "c"), (1, "a"), (2, "b")];
        crate::sort::sort_by_key(&mut v, |&(n, _)| n);
        assert_eq!(v, [(1, "a"), (2, "b"), (3, "c")]);
    }

    #[test]
    fn stable_sort_keeps_equal_keys_in_order() {
        let mut v = vec![("b", 1), ("a", 0), ("c", 1)];
        crate::sort::stable_sort_by_key(&mut v, |&(_, n)| n);
        assert_eq!(v, [("a", 0), ("b", 1), ("c", 1)]);
    }

    use super::*;

    #[test]
    fn sorts_like_the_standard_sort_for_every_shape() {
        // Sorted, reversed, all equal, sawtooth and pseudo-random lists of
        // every length up to 64.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for len in 0..64 {
            let shapes: Vec<Vec<i64>> = vec![
                (0..len).collect(),
                (0..len).rev().collect(),
                vec![7; len as usize],
                (0..len).map(|i| i % 5).collect(),
                (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        (seed % 100) as i64 - 50
                    })
                    .collect(),
            ];
            for shape in shapes {
                let mut ours = shape.clone();
                sort(&mut ours);
                let mut theirs = shape.clone();
                theirs.sort_unstable();
                assert_eq!(ours, theirs, "{shape:?}");
            }
        }
    }

    #[test]
    fn a_stable_sort_keeps_equal_keys_in_order() {
        let mut v: Vec<(i64, usize)> = (0..40).map(|i| ((i * 7) % 3, i as usize)).collect();
        let mut theirs = v.clone();
        stable_sort_by_key(&mut v, |&(k, _)| k);
        theirs.sort_by_key(|&(k, _)| k);
        assert_eq!(v, theirs);
    }

    #[test]
    fn floats_order_as_total_cmp_does() {
        let mut xs = [
            3.5,
            -0.0,
            0.0,
            -1e300,
            f64::INFINITY,
            -2.25,
            1e-300,
            f64::NEG_INFINITY,
        ];
        let mut theirs = xs;
        sort_by_key(&mut xs, |&x| total_order_key(x));
        theirs.sort_by(f64::total_cmp);
        assert_eq!(xs.map(f64::to_bits), theirs.map(f64::to_bits));
    }

    #[test]
    fn sorts_by_a_key() {
        let mut v = vec![("b", 2), ("c", 3), ("a", 1)];
        sort_by_key(&mut v, |&(_, n)| n);
        assert_eq!(v, [("a", 1), ("b", 2), ("c", 3)]);
    }
}

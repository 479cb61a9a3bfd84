//! One sort for the cold code (the doctor, the transcript model).
//!
//! Why: each `sort_by_key` or `sort_unstable` over another element type, or
//! with its own closure, is its own copy of core's sort in the wasm (2.5 to
//! 5 KB after wasm-opt). These helpers sort indices through one comparator
//! type, so the module holds a single copy (issue 24, the size budget).
//! The hot paths (replay, redaction, usage scans) do not use them.
//!
//! The result is the one a std stable sort gives: sorted by the comparator,
//! ties in their original order. For a total order
//! (`sort_unstable` on tuples) that is the one sorted sequence.

use std::cmp::Ordering;

/// The positions of `n` items in sorted order by `cmp`, ties in position
/// order: a bottom-up merge sort (stable, n log n comparisons). Hand-written
/// because core's sort of `usize` unrolls its sorting networks into 9 KB.
#[inline(never)]
fn order(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut from: Vec<usize> = (0..n).collect();
    let mut to = from.clone();
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = n.min(start + width);
            let end = n.min(start + 2 * width);
            let (mut l, mut r) = (start, mid);
            for slot in &mut to[start..end] {
                // The left run's item first unless the right's is smaller: stable.
                let left = l < mid && (r >= end || cmp(from[r], from[l]) != Ordering::Less);
                *slot = if left {
                    l += 1;
                    from[l - 1]
                } else {
                    r += 1;
                    from[r - 1]
                };
            }
            start = end;
        }
        std::mem::swap(&mut from, &mut to);
        width *= 2;
    }
    from
}

/// `v.sort_by(cmp)`: stable, through the one shared sort.
pub(crate) fn sort_by<T>(v: &mut Vec<T>, cmp: impl Fn(&T, &T) -> Ordering) {
    let idx = order(v.len(), &|a, b| cmp(&v[a], &v[b]));
    let mut slots: Vec<Option<T>> = std::mem::take(v).into_iter().map(Some).collect();
    v.extend(idx.into_iter().filter_map(|i| slots.get_mut(i).and_then(Option::take)));
}

/// `v.sort_by_key(key)`: stable, through the one shared sort.
pub(crate) fn sort_by_key<T, K: Ord>(v: &mut Vec<T>, key: impl Fn(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)))
}

#[cfg(test)]
mod tests {
    use super::{sort_by, sort_by_key};

    /// std's own sorts are the oracle, on data with many ties.
    #[test]
    fn same_order_as_std() {
        let mut s = 0x2545f4914f6cdd1du64;
        for n in [0usize, 1, 2, 3, 4, 5, 7, 8, 9, 20, 33, 100, 1000, 1025] {
            let items: Vec<(u64, usize)> = (0..n)
                .map(|i| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    (s % 5, i)
                })
                .collect();
            let (mut ours, mut std) = (items.clone(), items.clone());
            sort_by_key(&mut ours, |x| x.0);
            std.sort_by_key(|x| x.0);
            assert_eq!(ours, std, "stable by key, n = {n}");
            let (mut ours, mut std) = (items.clone(), items);
            sort_by(&mut ours, |a, b| b.0.cmp(&a.0));
            std.sort_by_key(|x| std::cmp::Reverse(x.0));
            assert_eq!(ours, std, "stable by a reversed key, n = {n}");
        }
    }
}

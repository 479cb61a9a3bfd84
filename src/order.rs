//! One sort for the cold code (the doctor, the transcript model).
//!
//! Why: each `sort_by_key` or `sort_unstable` over another element type, or
//! with its own closure, is its own copy of core's sort in the wasm (2.5 to
//! 5 KB after wasm-opt). These helpers sort indices through one comparator
//! type, so the module holds a single copy (issue 24, the size budget).
//! The hot paths (replay, redaction, usage scans) do not use them.
//!
//! The result is the one a std stable sort gives: sorted by the comparator,
//! ties in their original order (the index breaks them). For a total order
//! (`sort_unstable` on tuples) that is the one sorted sequence.

use std::cmp::Ordering;

/// The positions of `n` items in sorted order: by `cmp`, then by position.
#[inline(never)]
fn order(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_unstable_by(|&a, &b| cmp(a, b).then(a.cmp(&b)));
    idx
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
        for n in [0usize, 1, 2, 3, 7, 20, 33, 100, 1000] {
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
            std.sort_by(|a, b| b.0.cmp(&a.0));
            assert_eq!(ours, std, "stable by a reversed key, n = {n}");
        }
    }
}

//! A crowded slot of the wheel: the sort that orders it when it becomes
//! the earliest. (The events scheduled into it after the sort wait in a
//! binary heap: a run kept in order by insertion measured 27
//! instructions an event more at k = 16, as the ACKs' ends of
//! transmission, 8 ns after their starts, do not come in time order.)

use super::Near;

/// The most buckets of [`sort_descending`]: one per 256 ps of a slot's
/// 65.5 ns (the key's top byte, the high byte of the time's offset).
const BUCKETS: usize = 256;

/// A bucket of at most this many entries is put in order by insertion;
/// a larger one (events at one picosecond, which only their random
/// tiebreaks order) by the library's sort. On perm-k16 (cachegrind), 8
/// took 55 million instructions fewer than 24; and buckets as many as
/// the entries (up to 1,024 of 64 ps) took 87 million more than half as
/// many, as events crowd onto the same picoseconds.
const INSERTION_MAX: usize = 8;

/// Sorts a crowded slot's entries by descending key (its minimum last),
/// through `scratch`, whose storage it swaps in: a counting pass on the
/// key's top bits (the time's offset in the slot) deals the entries into
/// buckets in descending order, and each bucket is sorted alone. The
/// buckets are about half as many as the entries, 16 to 256 of them. A
/// fabric's slot holds its events spread over its 65.5 ns, so this is
/// two linear passes and a few compares an entry, where a
/// comparison sort of the whole slot took about 11 levels of compares on
/// keys whose low bits (the model's tiebreaks) are random (87
/// instructions an event at k = 16, cachegrind). Equal keys are
/// interchangeable events ([`Tiebreak`]), so the order is the one a
/// comparison sort gives.
pub(super) fn sort_descending<E: Copy>(v: &mut Vec<Near<E>>, scratch: &mut Vec<Near<E>>) {
    let Some(&fill) = v.first() else {
        return;
    };
    let bits = (v.len().max(2).ilog2() - 1).clamp(4, BUCKETS.ilog2());
    let buckets = 1usize << bits;
    let bucket = |key: u64| buckets - 1 - (key >> (64 - bits)) as usize;
    let mut start = [0u32; BUCKETS + 1];
    for e in v.iter() {
        start[bucket(e.key) + 1] += 1;
    }
    for b in 0..buckets {
        start[b + 1] += start[b];
    }
    scratch.clear();
    scratch.resize(v.len(), fill);
    // `start[b]` moves on to bucket b's end as the entries are dealt,
    // which is where bucket b + 1 starts.
    for e in v.iter() {
        let at = &mut start[bucket(e.key)];
        scratch[*at as usize] = *e;
        *at += 1;
    }
    let mut from = 0;
    for &end in &start[..buckets] {
        let run = &mut scratch[from..end as usize];
        from = end as usize;
        if run.len() <= INSERTION_MAX {
            for i in 1..run.len() {
                let e = run[i];
                let mut j = i;
                while j > 0 && run[j - 1].key < e.key {
                    run[j] = run[j - 1];
                    j -= 1;
                }
                run[j] = e;
            }
        } else {
            run.sort_unstable_by_key(|e| std::cmp::Reverse(e.key));
        }
    }
    std::mem::swap(v, scratch);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    proptest::proptest! {
        /// The bucket sort puts a slot's keys in the order of a comparison
        /// sort, whether they spread over the slot or crowd into a few
        /// buckets (past insertion's bound) or one key.
        #[test]
        fn a_crowded_slot_sorts_as_a_comparison_sort(
            keys in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::num::u64::ANY,
                    (0u64..4, 0u64..8).prop_map(|(hi, lo)| (hi << 56) | lo),
                    proptest::strategy::Just(7u64 << 56),
                ],
                0..400,
            )
        ) {
            let mut v: Vec<Near<u32>> = keys
                .iter()
                .enumerate()
                .map(|(i, &key)| Near { key, event: i as u32 })
                .collect();
            let mut want: Vec<u64> = keys.clone();
            want.sort_unstable_by(|a, b| b.cmp(a));
            let mut scratch = vec![Near { key: 1, event: 9 }; 3];
            sort_descending(&mut v, &mut scratch);
            let got: Vec<u64> = v.iter().map(|e| e.key).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}

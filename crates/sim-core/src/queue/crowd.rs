//! A crowded slot of the wheel: the sort that orders it when it becomes
//! the earliest, and where the events scheduled into it after the sort
//! wait ([`Late`]).

use super::Near;
use std::collections::BinaryHeap;

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

/// log2 of the buckets of [`Late`]: 64 buckets of 1.02 ns over a
/// slot's 65.5 ns (the top 6 bits of a [`Near`] key's time offset).
const LATE_BUCKET_BITS: u32 = 6;
const LATE_BUCKETS: usize = 1 << LATE_BUCKET_BITS;

/// Late events a heap holds before later buckets' go `ahead`: a few
/// dozen late events (a fabric's ACKs' ends of transmission, 8 ns on)
/// cost less in a small heap than in buckets merged one by one (perm-k8:
/// 3.5% more instructions with every later bucket ahead).
#[cfg(not(test))]
const LATE_HEAP_MAX: usize = 256;
/// Small in the unit tests, so that their crowds reach the buckets ahead.
#[cfg(test)]
const LATE_HEAP_MAX: usize = 4;

/// The bucket of 1.02 ns of the slot that a [`Near`] key lies in.
#[inline(always)]
fn late_bucket(key: u64) -> u32 {
    (key >> (64 - LATE_BUCKET_BITS)) as u32
}

/// The events scheduled into the sorted slot after its sort. Those due in
/// the 1.02 ns bucket being drained (or an earlier one: the few
/// scheduled for now or a few hundred picoseconds on) wait in a binary
/// heap; later ones are appended unsorted to their bucket, which is
/// sorted and merged into the slot's run when the drain reaches it. A
/// heap of all of them grew with the links whose next frame ends inside
/// the slot: a GPU's NVLink at 3.6 Tb/s ends a 4 KB frame every 8.9 ns,
/// so 8,192 GPUs in one LP kept thousands of late events in the heap,
/// and its pops took 17-21% of the run (perf). (A run kept in order by
/// insertion measured 27 instructions an event more at k = 16, as the
/// ACKs' ends of transmission, 8 ns after their starts, do not come in
/// time order.)
pub(super) struct Late<E> {
    /// Late events due in the bucket being drained or before it.
    heap: BinaryHeap<Near<E>>,
    /// Later events, unsorted, by bucket; storage kept when merged.
    ahead: Vec<Vec<Near<E>>>,
    /// The non-empty buckets of `ahead`.
    ahead_bits: u64,
}

impl<E: Copy> Late<E> {
    pub(super) fn new() -> Self {
        Late {
            heap: BinaryHeap::new(),
            ahead: (0..LATE_BUCKETS).map(|_| Vec::new()).collect(),
            ahead_bits: 0,
        }
    }

    /// Whether no late event waits.
    #[inline(always)]
    pub(super) fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.ahead_bits == 0
    }

    /// Adds an event scheduled into the sorted slot; `now_key` gives the
    /// key of now's offset in the slot (0 if now lies before the slot),
    /// asked only once the heap is full.
    #[inline(always)]
    pub(super) fn push(&mut self, e: Near<E>, now_key: impl FnOnce() -> u64) {
        if self.heap.len() < LATE_HEAP_MAX {
            self.heap.push(e);
        } else {
            self.push_crowded(e, now_key());
        }
    }

    /// [`Late::push`] past the heap's bound: an event in a bucket after
    /// now's goes ahead.
    #[cold]
    #[inline(never)]
    fn push_crowded(&mut self, e: Near<E>, now_key: u64) {
        let b = late_bucket(e.key);
        if b <= late_bucket(now_key) {
            self.heap.push(e);
        } else {
            self.ahead[b as usize].push(e);
            self.ahead_bits |= 1 << b;
        }
    }

    /// The earliest event of the heap (after [`Late::settle`], the
    /// earliest late event that can precede the run's end).
    #[inline(always)]
    pub(super) fn peek(&self) -> Option<&Near<E>> {
        self.heap.peek()
    }

    /// Takes the heap's earliest event.
    #[inline(always)]
    pub(super) fn pop(&mut self) -> Option<Near<E>> {
        self.heap.pop()
    }

    /// The smallest key of every late event, the buckets ahead included
    /// (a peek that cannot settle first).
    #[inline(always)]
    pub(super) fn min_key(&self) -> Option<u64> {
        let heap = self.heap.peek().map(|e| e.key);
        if self.ahead_bits == 0 {
            return heap;
        }
        let b = self.ahead_bits.trailing_zeros() as usize;
        let ahead = (self.ahead[b].iter().map(|e| e.key).min()).expect("a bucket's bit");
        Some(heap.map_or(ahead, |h| h.min(ahead)))
    }

    /// Merges the first bucket ahead into the descending `run` if the
    /// drain has reached it (the minimum of the run and the heap lies in
    /// it or after it, or both are empty), so that the run's end and the
    /// heap's top hold the slot's earliest event.
    #[inline(always)]
    pub(super) fn settle(&mut self, run: &mut Vec<Near<E>>, scratch: &mut Vec<Near<E>>) {
        if self.ahead_bits == 0 {
            return;
        }
        let next = self.ahead_bits.trailing_zeros();
        let min = match (run.last(), self.heap.peek()) {
            (Some(r), Some(l)) => r.key.min(l.key),
            (Some(r), None) => r.key,
            (None, Some(l)) => l.key,
            (None, None) => u64::MAX,
        };
        if late_bucket(min) >= next {
            self.merge(next, run, scratch);
        }
    }

    /// Sorts bucket `b` and merges it into the run's tail below the
    /// bucket's end, through `scratch`.
    #[cold]
    #[inline(never)]
    fn merge(&mut self, b: u32, run: &mut Vec<Near<E>>, scratch: &mut Vec<Near<E>>) {
        let bucket = &mut self.ahead[b as usize];
        bucket.sort_unstable_by_key(|e| std::cmp::Reverse(e.key));
        // The run descends, and no event of it lies before bucket `b`:
        // its tail within the bucket is all that interleaves.
        let p = run.partition_point(|e| late_bucket(e.key) > b);
        scratch.clear();
        scratch.extend_from_slice(&run[p..]);
        run.truncate(p);
        run.reserve(scratch.len() + bucket.len());
        let (mut i, mut j) = (0, 0);
        while i < scratch.len() && j < bucket.len() {
            if scratch[i].key >= bucket[j].key {
                run.push(scratch[i]);
                i += 1;
            } else {
                run.push(bucket[j]);
                j += 1;
            }
        }
        run.extend_from_slice(&scratch[i..]);
        run.extend_from_slice(&bucket[j..]);
        bucket.clear();
        self.ahead_bits &= !(1 << b);
    }

    /// Moves every late event into `slot` (which stops being sorted).
    pub(super) fn drain_into(&mut self, slot: &mut Vec<Near<E>>) {
        slot.extend(self.heap.drain());
        while self.ahead_bits != 0 {
            let b = self.ahead_bits.trailing_zeros();
            slot.append(&mut self.ahead[b as usize]);
            self.ahead_bits &= !(1 << b);
        }
    }
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

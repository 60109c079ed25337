//! The deterministic event queue.
//!
//! Events are ordered by `(time, seq)`. By default `seq` is a counter that
//! only increases: two events at the same picosecond pop in the order they
//! were scheduled, on every machine (ns-3's and htsim's order). Ordered by
//! the model ([`EventQueue::order_by_model`]), `seq` is a 48-bit tiebreak
//! each event makes of itself ([`Tiebreak`]): what it is and which
//! component it is for, never when or by whom it was scheduled, so that a
//! run cut into several queues (one per logical process) runs each
//! component's events in the one queue's order, for every cut. Two events
//! with equal keys are then the same event (the same kind for the same
//! component at the same time), so their order cannot matter. The payload
//! `E` is a small `Copy` value (ids, never packets: packets live in an
//! arena and travel by id). Scheduling in the past is an invariant
//! breach.
//!
//! Two levels. Events due within the wheel's horizon (`WHEEL_SLOTS` slots of
//! `2^SLOT_SHIFT` ps, about 67 us) go to a timing wheel with a bitmap of
//! non-empty slots. Link, port and packet events are always a few
//! microseconds ahead, so nearly every event lands there. Later events (RTO
//! timers, flow starts) go to a binary heap. A slot's events are appended
//! unsorted. The slot being drained (the one holding `now`) is scanned
//! while it holds a few events (an incast's slots); holding more (a fabric
//! puts thousands of events in one 65 ns slot) it is sorted once, when it
//! becomes the earliest, and then popped from the end of the sorted run,
//! while events scheduled into it after the sort wait in a small heap
//! beside the run, or, past a few hundred, in buckets of 1 ns merged into
//! the run as the drain reaches them ([`crowd::Late`]). Appends and the drain of a sorted run walk memory in
//! order, where a heap per crowded slot outgrew the first-level cache and
//! missed on every sift. Storage freed by an emptied crowded slot is
//! reused by the next, so memory tracks the crowded slots of the moment,
//! not every slot's peak. A pop takes the earliest slot's minimum by the
//! full key and compares it with the far heap's top, so the order is exact
//! whichever level holds an event; the wheel's base only moves forward, to
//! the slot of `now`.
//!
//! Every run is bounded: [`RunLimit`] carries an end time and an event cap,
//! checked by [`EventQueue::pop_within`], so even run-to-completion mode stops.

use crate::time::SimTime;
use crowd::{Late, sort_descending};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

mod crowd;

/// log2 of a wheel slot's width in picoseconds (65.5 ns): about one
/// packet's events a slot at 10-100 Gb/s, so an incast's scans are short
/// (262 ns slots held two to four events whose scan mispredicted; 65 ns
/// ran the 64-to-1 DCQCN incast 4% faster, DCTCP's 1.5%, fabrics the same
/// within noise; 16 ns or 4096 slots were no better).
const SLOT_SHIFT: u32 = 16;
/// Slots in the wheel (a power of two): the horizon is about 67 us, past
/// DCQCN's 55 us timers and every hop's events. Each slot is used once a
/// turn, so the slots are the queue's working set: 4096 slots of 262 ns
/// spilled it from the caches and made scheduling a cache miss (a 64-to-1
/// DCQCN incast ran 20% faster with 1024, the quickstart 14-23%, fabrics
/// the same within noise).
const WHEEL_SLOTS: usize = 1024;
const WORDS: usize = WHEEL_SLOTS / 64;
/// The wheel's horizon in picoseconds.
const HORIZON_PS: u64 = (WHEEL_SLOTS as u64) << SLOT_SHIFT;

/// One pending event and its sort key. Beyond the wheel the key packs
/// `(time, tiebreak)` into a `u128` ([`Far`]). In a wheel slot every event lies
/// in the slot's 65.5 ns, so its key packs the time's offset in the slot
/// (16 bits) and the tiebreak (48 bits) into a `u64` ([`Near`]):
/// 16-byte entries, half the memory a fabric's crowded slots stream
/// through, and an order equal to the full key's within the slot.
#[derive(Clone, Copy)]
struct Entry<K, E> {
    key: K,
    event: E,
}

type Near<E> = Entry<u64, E>;
type Far<E> = Entry<u128, E>;

/// The bits of an event's tiebreak ([`Tiebreak`]): what a [`Near`] key
/// keeps beside the time's offset in its slot.
pub const TIEBREAK_BITS: u32 = 48;
const SEQ_MASK: u64 = (1 << TIEBREAK_BITS) - 1;

/// How an event orders among the events of the same picosecond: a number
/// below 2^[`TIEBREAK_BITS`] made from the event alone (its kind and the id
/// of the component it is for) and the time it is due. Equal tiebreaks at
/// one time must mean interchangeable events: the queue then pops them in
/// either order.
pub trait Tiebreak {
    /// The event's tiebreak when it is due at `at`.
    fn tiebreak(&self, at: SimTime) -> u64;
}

/// The tiebreak of an event of kind `kind` (below 256) for component `id`
/// at `at`, above every tiebreak below 2^40 (which a caller keeps for what
/// must run first in its picosecond): `(kind, id)` XORed with a 40-bit
/// mask drawn from the time. XOR with one mask is a bijection, so distinct
/// events keep distinct tiebreaks; across picoseconds the mask changes, so
/// which of two simultaneous events runs first (a departure or an arrival
/// at one queue, one sender's packet or another's) goes either way over a
/// run, never always one way. A fixed order of kinds and ids locked
/// equal-rate links into phase: with departures first an ACK-clocked
/// sender whose packets arrive at the picosecond of a departure never
/// found its queue full, and a lone flow in one class of a DWRR port took
/// 99% of the link from four flows in the other; with the lower id first
/// a lone flow took 43% of a FIFO shared with four others. The mask is a
/// Fibonacci hash: the product's high bits depend on every bit of the
/// time.
#[inline(always)]
pub fn tiebreak_of(kind: u8, id: u32, at: SimTime) -> u64 {
    let mask = at.ps().wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 24;
    (1 << 40) | ((u64::from(kind) << 32 | u64::from(id)) ^ mask)
}

macro_rules! tiebreak_is_the_value {
    ($($t:ty),*) => {$(
        /// The value itself (tests and benches: distinct values, distinct
        /// events, in the order of their values).
        impl Tiebreak for $t {
            #[inline(always)]
            fn tiebreak(&self, _: SimTime) -> u64 {
                *self as u64
            }
        }
    )*};
}
tiebreak_is_the_value!(u8, u16, u32, u64, usize, char);

/// Every `()` is the same event.
impl Tiebreak for () {
    #[inline(always)]
    fn tiebreak(&self, _: SimTime) -> u64 {
        0
    }
}

impl<K: Ord, E> PartialEq for Entry<K, E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<K: Ord, E> Eq for Entry<K, E> {}
impl<K: Ord, E> PartialOrd for Entry<K, E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<K: Ord, E> Ord for Entry<K, E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// Where the earliest event is.
#[derive(Clone, Copy)]
enum Loc {
    /// At `index` in an unsorted slot.
    Scan { slot: usize, index: usize },
    /// At the end of the sorted slot's run.
    Run,
    /// At the top of the sorted slot's late heap.
    Late,
    /// At the top of the far heap.
    Far,
}

/// A slot holding more events than this is sorted when it becomes the
/// earliest instead of scanned on every pop: scanning a few events is
/// cheaper than sorting them, scanning thousands (a fabric's whole 65 ns of
/// events) is not.
const SCAN_MAX: usize = 16;

/// A slot whose storage grew past this many entries gives it back to the
/// spare list when it empties, for the next crowded slot.
const KEEP_MAX: usize = 64;

/// Swaps a full slot's storage for larger storage from `spare`, if one is
/// there, so that crowded slots reuse each other's storage instead of
/// growing their own.
#[cold]
fn grow_from_spare<E>(slot: &mut Vec<Near<E>>, spare: &mut Vec<Vec<Near<E>>>) {
    if let Some(mut big) = spare.pop() {
        if big.capacity() > slot.capacity() {
            big.append(slot);
            let small = std::mem::replace(slot, big);
            if small.capacity() > KEEP_MAX {
                spare.push(small);
            }
        } else {
            spare.push(big);
        }
    }
}

/// Where a run stops: at `end` (inclusive: events at `end` still run) or after
/// `max_events` events, whichever comes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunLimit {
    /// No event later than this runs.
    pub end: SimTime,
    /// At most this many events run in total.
    pub max_events: u64,
}

impl Default for RunLimit {
    /// No end time but a cap of 10^10 events: a safety net, never a silent stop
    /// (the caller reports which limit ended the run).
    fn default() -> Self {
        RunLimit {
            end: SimTime::MAX,
            max_events: 10_000_000_000,
        }
    }
}

/// Why [`EventQueue::pop_within`] returned `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// No event is pending: the run completed.
    Drained,
    /// The next event lies after the end time.
    EndTime,
    /// The event cap was reached.
    EventLimit,
    /// The next event lies at the end of representable time: a time sum
    /// saturated (e.g. a transmission on a 1 bps link), so the run cannot go on
    /// exactly.
    TimeOverflow,
}

/// A deterministic priority queue of events keyed by simulated time.
pub struct EventQueue<E> {
    /// Each slot's events: unsorted, except the sorted slot's run, which
    /// is in descending key order (its minimum last).
    slots: Vec<Vec<Near<E>>>,
    /// The slot that was sorted when it became the earliest, while it
    /// holds events; it is the slot of `now`.
    sorted: Option<usize>,
    /// Events scheduled into the sorted slot after its sort.
    late: Late<E>,
    /// Empty storage of crowded slots that drained, for the next ones.
    spare: Vec<Vec<Near<E>>>,
    /// Where a crowded slot is sorted into ([`sort_descending`]); the
    /// slot's old storage stays here for the next sort.
    scratch: Vec<Near<E>>,
    occupied: [u64; WORDS],
    /// Start of the slot holding `now`; wheel events lie in `[base, base + horizon)`.
    base: u64,
    in_wheel: usize,
    far: BinaryHeap<Far<E>>,
    now: SimTime,
    popped: u64,
    /// Whether ties go by the events' own tiebreaks ([`Tiebreak`]) rather
    /// than by insertion order ([`EventQueue::order_by_model`]).
    by_model: bool,
    /// The insertion counter of the insertion order.
    next_seq: u64,
}

impl<E: Copy + Tiebreak> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy + Tiebreak> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        Self::with_capacity(1024)
    }

    /// An empty queue; `cap` sizes the far-event heap.
    pub fn with_capacity(cap: usize) -> Self {
        EventQueue {
            slots: (0..WHEEL_SLOTS).map(|_| Vec::new()).collect(),
            sorted: None,
            late: Late::new(),
            spare: Vec::new(),
            scratch: Vec::new(),
            occupied: [0; WORDS],
            base: 0,
            in_wheel: 0,
            far: BinaryHeap::with_capacity(cap),
            now: SimTime::ZERO,
            popped: 0,
            by_model: false,
            next_seq: 0,
        }
    }

    /// The time of the event being processed (the last one popped).
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// How many events have been popped so far.
    #[inline]
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    /// How many events are pending.
    #[inline]
    pub fn len(&self) -> usize {
        self.in_wheel + self.far.len()
    }

    /// Whether no event is pending.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline(always)]
    fn slot_of(time: u64) -> usize {
        ((time >> SLOT_SHIFT) as usize) & (WHEEL_SLOTS - 1)
    }

    /// Orders ties by the events' own tiebreaks ([`Tiebreak`]) from now
    /// on, instead of by insertion (the default, ns-3's and htsim's
    /// order): set before the first event is scheduled.
    pub fn order_by_model(&mut self) {
        assert!(self.is_empty() && self.popped == 0, "set before any event");
        self.by_model = true;
    }

    /// Schedules `event` at `at`, which must not be in the past. Among the
    /// events of its picosecond it comes after those scheduled before it,
    /// or, ordered by the model, by its own tiebreak.
    // Always inlined: a call here cost 17 instructions of prologue and
    // epilogue per event (cachegrind), 1% of the 128-to-1 incast's total.
    #[inline(always)]
    pub fn schedule(&mut self, at: SimTime, event: E) {
        let tiebreak = if self.by_model { event.tiebreak(at) } else { 0 };
        self.schedule_as(at, event, tiebreak);
    }

    /// Schedules `event` at `at`; ordered by the model, with the tiebreak
    /// `tiebreak` of another event it stands for (a packet that crossed
    /// from another LP arrives as the uncut link's delivery would: its
    /// key, not its own). In insertion order the tiebreak is not used.
    #[inline(always)]
    pub fn schedule_as(&mut self, at: SimTime, event: E, tiebreak: u64) {
        assert!(
            at >= self.now,
            "event scheduled in the past: {at:?} < now {:?}",
            self.now
        );
        let seq = if self.by_model {
            debug_assert!(
                tiebreak <= SEQ_MASK,
                "a tiebreak of more than {TIEBREAK_BITS} bits"
            );
            tiebreak
        } else {
            let seq = self.next_seq;
            // 2^48 events at 10^9 a second take three days; a run that
            // long stops here rather than mis-order its events.
            assert!(seq <= SEQ_MASK, "more than 2^48 events scheduled");
            self.next_seq = seq.wrapping_add(1);
            seq
        };
        // The per-event counters cannot overflow (2^64 events at 10^9 a
        // second take 584 years), so they skip the overflow check.
        // `base` <= `now` <= `at`, so the offset is never negative.
        if at.ps() - self.base < HORIZON_PS {
            let s = Self::slot_of(at.ps());
            let offset = at.ps() & ((1 << SLOT_SHIFT) - 1);
            let e = Near {
                key: (offset << TIEBREAK_BITS) | seq,
                event,
            };
            if self.sorted == Some(s) {
                let (base, now) = (self.base, self.now.ps());
                // Now's offset in the slot, if it lies in it.
                let now_key = move || match Self::slot_of(base) == s {
                    true => (now - base) << TIEBREAK_BITS,
                    false => 0,
                };
                self.late.push(e, now_key);
            } else {
                let slot = &mut self.slots[s];
                if slot.len() == slot.capacity() && slot.len() >= SCAN_MAX {
                    grow_from_spare(slot, &mut self.spare);
                }
                slot.push(e);
            }
            self.occupied[s / 64] |= 1 << (s % 64);
            self.in_wheel = self.in_wheel.wrapping_add(1);
        } else {
            self.far.push(Far {
                key: ((at.ps() as u128) << 64) | seq as u128,
                event,
            });
        }
    }

    /// The first non-empty slot at or after the base's slot, in time order.
    #[inline]
    fn first_slot(&self) -> Option<usize> {
        if self.in_wheel == 0 {
            return None;
        }
        let start = Self::slot_of(self.base);
        let (w0, b0) = (start / 64, start % 64);
        let head = self.occupied[w0] & (!0u64 << b0);
        if head != 0 {
            return Some(w0 * 64 + head.trailing_zeros() as usize);
        }
        for k in 1..=WORDS {
            let w = (w0 + k) % WORDS;
            let bits = if w == w0 {
                self.occupied[w] & !(!0u64 << b0)
            } else {
                self.occupied[w]
            };
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
        }
        None
    }

    /// The start time of slot `slot` in the wheel's current turn.
    #[inline(always)]
    fn slot_start(&self, slot: usize) -> u64 {
        let ahead = slot.wrapping_sub(Self::slot_of(self.base)) & (WHEEL_SLOTS - 1);
        self.base + ((ahead as u64) << SLOT_SHIFT)
    }

    /// The full `(time, tiebreak)` key of a [`Near`] key of slot `slot`.
    #[inline(always)]
    fn full_key(&self, slot: usize, key: u64) -> u128 {
        let time = self.slot_start(slot) + (key >> TIEBREAK_BITS);
        ((time as u128) << 64) | (key & SEQ_MASK) as u128
    }

    /// The smallest key of slot `slot` (the full key) and where it is.
    #[inline]
    fn slot_min(&self, slot: usize) -> (Loc, u128) {
        let v = &self.slots[slot];
        let (loc, key) = if self.sorted == Some(slot) {
            self.sorted_min_unsettled(slot)
        } else {
            let mut index = 0;
            for i in 1..v.len() {
                if v[i].key < v[index].key {
                    index = i;
                }
            }
            (Loc::Scan { slot, index }, v[index].key)
        };
        (loc, self.full_key(slot, key))
    }

    /// The smallest key of the sorted slot `slot` (its run's end or its
    /// late heap's top; the key within the slot) and where it is. Its own
    /// match beside [`EventQueue::sorted_min_unsettled`]'s: one helper
    /// for both, taking the late key as an `Option<u64>`, cost 0.6% of
    /// perm-k8's instructions on this, the pop's hot path (cachegrind).
    #[inline(always)]
    fn sorted_min(&self, slot: usize) -> (Loc, u64) {
        match (self.slots[slot].last(), self.late.peek()) {
            (Some(r), Some(l)) if l.key < r.key => (Loc::Late, l.key),
            (Some(r), _) => (Loc::Run, r.key),
            (None, Some(l)) => (Loc::Late, l.key),
            (None, None) => unreachable!("an occupied slot"),
        }
    }

    /// [`EventQueue::sorted_min`] before [`Late::settle`]: the late
    /// events' buckets ahead count too (a peek; after a settle the same
    /// as `sorted_min`).
    #[inline]
    fn sorted_min_unsettled(&self, slot: usize) -> (Loc, u64) {
        match (self.slots[slot].last(), self.late.min_key()) {
            (Some(r), Some(l)) if l < r.key => (Loc::Late, l),
            (Some(r), _) => (Loc::Run, r.key),
            (None, Some(l)) => (Loc::Late, l),
            (None, None) => unreachable!("an occupied slot"),
        }
    }

    /// Finds the earliest event and its key.
    #[inline]
    fn find_min(&self) -> Option<(Loc, u128)> {
        self.find_min_from(self.first_slot())
    }

    /// [`EventQueue::find_min`] given the first occupied slot.
    #[inline]
    fn find_min_from(&self, first: Option<usize>) -> Option<(Loc, u128)> {
        let wheel = first.map(|slot| self.slot_min(slot));
        match (wheel, self.far.peek()) {
            (Some(w), Some(f)) if f.key < w.1 => Some((Loc::Far, f.key)),
            (Some(w), _) => Some(w),
            (None, Some(f)) => Some((Loc::Far, f.key)),
            (None, None) => None,
        }
    }

    /// Sorts the earliest slot if it is crowded, so that its pops come off
    /// the end of a run instead of from a scan (see the module doc), and
    /// returns that slot.
    #[inline]
    fn prepare(&mut self) -> Option<usize> {
        // The sorted slot holds events while it is sorted; when it is the
        // slot of `now`, it is the first occupied one, and the bitmap's
        // scan would only find it again.
        if let Some(s) = self.sorted
            && Self::slot_of(self.base) == s
        {
            self.late.settle(&mut self.slots[s], &mut self.scratch);
            return Some(s);
        }
        let slot = self.first_slot()?;
        if self.sorted == Some(slot) {
            self.late.settle(&mut self.slots[slot], &mut self.scratch);
            return Some(slot);
        }
        if let Some(old) = self.sorted.take() {
            // A far event ran first and scheduled into an earlier slot: the
            // old sorted slot is an unsorted one again, its late events
            // with the rest.
            self.late.drain_into(&mut self.slots[old]);
        }
        if self.slots[slot].len() > SCAN_MAX {
            self.sort_slot(slot);
        }
        Some(slot)
    }

    #[inline(never)]
    fn sort_slot(&mut self, slot: usize) {
        debug_assert!(self.sorted.is_none() && self.late.is_empty());
        sort_descending(&mut self.slots[slot], &mut self.scratch);
        self.sorted = Some(slot);
    }

    /// Removes the event `find_min` found (with its full key `key`) and
    /// moves `now` to its time.
    #[inline]
    fn take(&mut self, loc: Loc, key: u128) -> E {
        let event = match loc {
            Loc::Far => self.far.pop().expect("heap top was found").event,
            Loc::Scan { slot, index } => {
                let v = &mut self.slots[slot];
                let e = v.swap_remove(index);
                if v.is_empty() {
                    self.emptied(slot);
                }
                e.event
            }
            Loc::Run | Loc::Late => {
                let slot = self.sorted.expect("a sorted slot");
                let e = match loc {
                    Loc::Run => self.slots[slot].pop().expect("a run's minimum"),
                    _ => self.late.pop().expect("a late event"),
                };
                if self.slots[slot].is_empty() && self.late.is_empty() {
                    self.sorted = None;
                    self.emptied(slot);
                }
                e.event
            }
        };
        if !matches!(loc, Loc::Far) {
            self.in_wheel = self.in_wheel.wrapping_sub(1);
        }
        let t = (key >> 64) as u64;
        debug_assert!(t >= self.now.ps());
        self.now = SimTime(t);
        self.base = (t >> SLOT_SHIFT) << SLOT_SHIFT;
        self.popped = self.popped.wrapping_add(1);
        event
    }

    /// Slot `slot` has no events left: its bit clears, and storage a crowd
    /// grew goes back to the spare list.
    #[inline]
    fn emptied(&mut self, slot: usize) {
        self.occupied[slot / 64] &= !(1 << (slot % 64));
        if self.slots[slot].capacity() > KEEP_MAX {
            self.spare.push(std::mem::take(&mut self.slots[slot]));
        }
    }

    /// The time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.find_min().map(|(_, k)| SimTime((k >> 64) as u64))
    }

    /// Whether the slot being drained is crowded (sorted), so that
    /// [`EventQueue::upcoming`] can see ahead.
    #[inline(always)]
    pub fn is_crowded(&self) -> bool {
        self.sorted.is_some()
    }

    /// An event due soon, about `ahead` pops from now, for the caller to
    /// prefetch what it will touch: the entry `ahead` places into the
    /// sorted run of a crowded slot, if there is one. A hint only (events
    /// scheduled since the sort may come first), and `None` in a slot of a
    /// few events, where there is nothing to hide.
    #[inline]
    pub fn upcoming(&self, ahead: usize) -> Option<E> {
        let [e] = self.upcoming_at([ahead]);
        e
    }

    /// [`EventQueue::upcoming`] at each of `aheads`, with one look at the
    /// sorted run for all of them (the event loop reads three distances
    /// ahead at every pop).
    #[inline]
    pub fn upcoming_at<const N: usize>(&self, aheads: [usize; N]) -> [Option<E>; N] {
        let Some(s) = self.sorted else {
            return [None; N];
        };
        let run = &self.slots[s];
        aheads.map(|a| run.len().checked_sub(a + 1).map(|i| run[i].event))
    }

    /// Pops the earliest event and advances `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let no_limit = RunLimit {
            end: SimTime::MAX,
            max_events: u64::MAX,
        };
        if let Some(Ok(popped)) = self.pop_sorted(&no_limit) {
            return Some(popped);
        }
        let first = self.prepare();
        let (loc, key) = self.find_min_from(first)?;
        let event = self.take(loc, key);
        Some((self.now, event))
    }

    /// Pops the earliest event if it lies within `limit`; otherwise says why not.
    // Always inlined, with the general path out of line: as a call, its
    // prologue and epilogue cost 24 instructions an event (cachegrind,
    // perm-k16), a quarter of the pop.
    #[inline(always)]
    pub fn pop_within(&mut self, limit: &RunLimit) -> Result<(SimTime, E), Stop> {
        if self.popped >= limit.max_events {
            return Err(Stop::EventLimit);
        }
        if let Some(popped) = self.pop_sorted(limit) {
            return popped;
        }
        self.pop_within_wheel_or_far(limit)
    }

    /// [`EventQueue::pop_within`] outside the sorted slot of now: a slot
    /// of a few events, the far heap, or a slot about to be sorted.
    fn pop_within_wheel_or_far(&mut self, limit: &RunLimit) -> Result<(SimTime, E), Stop> {
        let first = self.prepare();
        let Some((loc, key)) = self.find_min_from(first) else {
            return Err(Stop::Drained);
        };
        let at = SimTime((key >> 64) as u64);
        if at > limit.end {
            return Err(Stop::EndTime);
        }
        // Time sums saturate at SimTime::MAX, which is therefore never a
        // true event time: reaching it means one overflowed.
        if at == SimTime::MAX {
            return Err(Stop::TimeOverflow);
        }
        let event = self.take(loc, key);
        Ok((at, event))
    }

    /// [`EventQueue::pop_within`] where a fabric spends nearly all its
    /// pops: in the sorted slot of `now`, which is the first occupied slot
    /// and starts at `base`. Its earliest event is its run's end or its
    /// late heap's top, and goes unless the far heap's top is earlier;
    /// `None` leaves every other case to the general path. The general
    /// path's steps (the first slot, a location, the slot's start) cost
    /// about 30 instructions an event here (cachegrind, perm-k16).
    #[inline(always)]
    fn pop_sorted(&mut self, limit: &RunLimit) -> Option<Result<(SimTime, E), Stop>> {
        let s = self.sorted?;
        if Self::slot_of(self.base) != s {
            return None;
        }
        // The sorted slot of now starts at `base`.
        self.late.settle(&mut self.slots[s], &mut self.scratch);
        let (loc, key) = self.sorted_min(s);
        let t = self.base + (key >> TIEBREAK_BITS);
        let full = (u128::from(t) << 64) | u128::from(key & SEQ_MASK);
        if self.far.peek().is_some_and(|f| f.key < full) {
            return None;
        }
        let at = SimTime(t);
        if at > limit.end {
            return Some(Err(Stop::EndTime));
        }
        if at == SimTime::MAX {
            return Some(Err(Stop::TimeOverflow)); // as the general path
        }
        // `take`'s steps for this case (a call to it here cost 38
        // instructions an event on perm-k16): `base` stays.
        let e = match loc {
            Loc::Late => self.late.pop().expect("a late event"),
            _ => self.slots[s].pop().expect("a run's minimum"),
        };
        if self.slots[s].is_empty() && self.late.is_empty() {
            self.sorted = None;
            self.emptied(s);
        }
        self.in_wheel = self.in_wheel.wrapping_sub(1);
        debug_assert!(t >= self.now.ps());
        self.now = at;
        self.popped = self.popped.wrapping_add(1);
        Some(Ok((at, e.event)))
    }

    /// Gives back the storage kept for crowded slots to come (the spare
    /// list and the sort's scratch), when no more events will run; the
    /// pending events stay.
    pub fn shed_spare(&mut self) {
        self.spare = Vec::new();
        self.scratch = Vec::new();
    }

    /// Moves `now` forward to `t` without an event (used when a run ends at
    /// its end time, so time-averages cover the whole window).
    pub fn advance_to(&mut self, t: SimTime) {
        assert!(t >= self.now, "cannot move time backwards");
        if let Some(next) = self.peek_time() {
            assert!(t <= next, "cannot skip over a pending event");
        }
        // The wheel's base stays: events already in it keep their slots.
        self.now = t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/architecture.md: "Small runs never read ahead": a slot of few
    /// events is scanned, and `upcoming` shows nothing in it.
    #[test]
    fn a_slot_of_few_events_shows_nothing_ahead() {
        let mut q: EventQueue<u32> = EventQueue::new();
        for i in 0..SCAN_MAX as u32 {
            q.schedule(SimTime(1_000 + i as u64), i);
        }
        q.pop();
        assert_eq!(q.upcoming(1), None);
        for i in 0..4 * SCAN_MAX as u32 {
            q.schedule(SimTime(2_000 + i as u64), i);
        }
        while q.peek_time().is_some_and(|t| t < SimTime(2_000)) {
            q.pop();
        }
        q.pop();
        assert!(
            q.upcoming(1).is_some(),
            "a crowded slot is sorted and shows its run"
        );
    }

    /// docs/architecture.md ("Event queue") states the wheel as built.
    #[test]
    fn docs_architecture_states_the_wheel_as_built() {
        let doc = include_str!("../../../../docs/architecture.md");
        let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
        let slot_ns = (1u64 << SLOT_SHIFT) as f64 / 1000.0;
        for phrase in [
            format!("within about {} us", HORIZON_PS / 1_000_000),
            format!("({WHEEL_SLOTS} slots of {slot_ns:.1} ns)"),
            format!(
                "appended unsorted, {} bytes each",
                std::mem::size_of::<Entry<u64, u64>>()
            ),
            format!("a {TIEBREAK_BITS}-bit sequence number"),
            format!("holds at most {SCAN_MAX} events"),
        ] {
            assert!(
                doc.contains(&phrase),
                "docs/architecture.md states '{phrase}'"
            );
        }
    }

    #[test]
    fn ties_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(5), 'd');
        q.schedule(SimTime(3), 'a');
        q.schedule(SimTime(5), 'b');
        q.schedule(SimTime(5), 'c');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'd', 'b', 'c']);
        assert_eq!(q.now(), SimTime(5));
        assert_eq!(q.events_processed(), 4);
    }

    #[test]
    fn ordered_by_the_model_ties_pop_in_tiebreak_order() {
        let mut q = EventQueue::new();
        q.order_by_model();
        q.schedule(SimTime(5), 'd');
        q.schedule(SimTime(3), 'a');
        q.schedule(SimTime(5), 'b');
        q.schedule_as(SimTime(5), 'x', 'c' as u64);
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'x', 'd']);
    }

    #[test]
    #[should_panic(expected = "scheduled in the past")]
    fn past_scheduling_panics() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), ());
        q.pop();
        q.schedule(SimTime(9), ());
    }

    #[test]
    fn limits_stop_the_run() {
        let mut q = EventQueue::new();
        for t in 0..10 {
            q.schedule(SimTime(t), t);
        }
        let lim = RunLimit {
            end: SimTime(4),
            max_events: 100,
        };
        let mut n = 0;
        let stop = loop {
            match q.pop_within(&lim) {
                Ok(_) => n += 1,
                Err(s) => break s,
            }
        };
        assert_eq!((n, stop), (5, Stop::EndTime));
        let lim = RunLimit {
            end: SimTime::MAX,
            max_events: 7,
        };
        while q.pop_within(&lim).is_ok() {}
        assert_eq!(q.events_processed(), 7);
        assert_eq!(q.pop_within(&lim), Err(Stop::EventLimit));
        // A saturated time sum is never run: it stops the run.
        let mut q: EventQueue<u8> = EventQueue::with_capacity(4);
        q.schedule(SimTime(7) + crate::SimDuration::MAX, 0);
        assert_eq!(q.pop_within(&lim), Err(Stop::TimeOverflow));
    }

    #[test]
    fn far_and_near_events_interleave_exactly() {
        // Near events (wheel) and events beyond the ~67 us horizon (heap),
        // including ties across the two levels.
        let mut q = EventQueue::new();
        let far = 5 * crate::time::PS_PER_MS;
        q.schedule(SimTime(far), 'c');
        q.schedule(SimTime(10), 'a');
        q.schedule(SimTime(far + 1), 'e');
        let (t, e) = q.pop().unwrap();
        assert_eq!((t, e), (SimTime(10), 'a'));
        // Now schedule a tie with the far event, from closer in.
        q.schedule(SimTime(far), 'd');
        q.schedule(SimTime(20), 'b');
        let order: String = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, "bcde");
    }

    proptest::proptest! {
        /// Mixed near and far times, pushed while popping, come out in exact
        /// (time, insertion) order.
        #[test]
        fn interleaved_pushes_and_pops_are_ordered(
            ops in proptest::collection::vec((0u64..4_000_000_000, 0u8..3), 1..300)
        ) {
            check_against_model(&ops)?;
        }

        /// Bursts into one or two slots, so buckets turn into heaps and back
        /// (and reuse each other's storage) while pushes and pops interleave.
        /// Crowded slots beside far events, which can run before a
        /// sorted slot and schedule into earlier ones.
        #[test]
        fn crowded_slots_and_far_events_stay_ordered(
            ops in proptest::collection::vec(
                (proptest::prop_oneof![0u64..300_000, 66_000_000u64..68_000_000], 0u8..3),
                1..600,
            )
        ) {
            check_against_model(&ops)?;
        }

        /// A crowded slot drained while its events schedule more into it
        /// a few picoseconds to a few nanoseconds on (an NVLink's next
        /// frame): the late events' heap and their buckets ahead.
        #[test]
        fn late_events_in_a_sorted_slot_stay_ordered(
            ops in proptest::collection::vec(
                (proptest::prop_oneof![0u64..3_000, 0u64..20_000, 60_000u64..70_000], 0u8..3),
                40..600,
            )
        ) {
            check_against_model(&ops)?;
        }

        #[test]
        fn crowded_slots_stay_ordered(
            ops in proptest::collection::vec((0u64..400_000, 0u8..2), 1..600)
        ) {
            check_against_model(&ops)?;
        }
    }

    #[test]
    fn upcoming_reads_ahead_in_a_crowded_slot_only() {
        let mut q = EventQueue::new();
        for i in 0..4u64 {
            q.schedule(SimTime(100 + i), i);
        }
        assert_eq!(q.pop(), Some((SimTime(100), 0)));
        assert_eq!(q.upcoming(1), None, "a slot of a few events is scanned");
        for i in 4..40u64 {
            q.schedule(SimTime(100 + i), i);
        }
        assert_eq!(q.pop(), Some((SimTime(101), 1)));
        assert_eq!((q.upcoming(0), q.upcoming(3)), (Some(2), Some(5)));
        assert_eq!((q.upcoming(37), q.upcoming(38)), (Some(39), None));
    }

    #[test]
    fn a_far_event_before_a_sorted_slot_unsorts_it() {
        // A crowded slot is sorted when it becomes the earliest of the
        // wheel, but a far event precedes it and schedules a crowd into
        // an earlier slot: both crowds still pop in exact order.
        let us = crate::time::PS_PER_US;
        let mut q = EventQueue::new();
        q.schedule(SimTime(70 * us), 1000);
        q.schedule(SimTime(60 * us), 0);
        assert_eq!(q.pop(), Some((SimTime(60 * us), 0)));
        for i in 0..40 {
            q.schedule(SimTime(71 * us + 40 - i), 1 + i as usize);
        }
        assert_eq!(q.pop(), Some((SimTime(70 * us), 1000)));
        for i in 0..40 {
            q.schedule(SimTime(70 * us + 10 + (i * 7) % 40), 100 + i as usize);
        }
        q.schedule(SimTime(71 * us + 20), 200);
        let mut want: Vec<(u64, usize)> = (0..40u64)
            .map(|i| (71 * us + 40 - i, 1 + i as usize))
            .chain((0..40u64).map(|i| (70 * us + 10 + (i * 7) % 40, 100 + i as usize)))
            .chain([(71 * us + 20, 200)])
            .collect();
        want.sort();
        let got: Vec<(u64, usize)> =
            std::iter::from_fn(|| q.pop().map(|(t, e)| (t.ps(), e))).collect();
        assert_eq!(got, want);
    }

    /// Schedules event `i` at `now + ops[i].0` and pops `ops[i].1` events,
    /// comparing every pop with a sorted model.
    fn check_against_model(ops: &[(u64, u8)]) -> Result<(), proptest::test_runner::TestCaseError> {
        let mut q = EventQueue::new();
        let mut model: Vec<(u64, usize)> = Vec::new();
        for (i, &(dt, pops)) in ops.iter().enumerate() {
            let t = q.now().ps() + dt;
            q.schedule(SimTime(t), i);
            model.push((t, i));
            for _ in 0..pops {
                model.sort();
                if model.is_empty() {
                    break;
                }
                let want = model.remove(0);
                let (t, e) = q.pop().unwrap();
                proptest::prop_assert_eq!((t.ps(), e), want);
            }
        }
        model.sort();
        let rest: Vec<(u64, usize)> =
            std::iter::from_fn(|| q.pop().map(|(t, e)| (t.ps(), e))).collect();
        proptest::prop_assert_eq!(rest, model);
        Ok(())
    }

    proptest::proptest! {
        /// Pops come out sorted by (time, insertion order), whatever the push order.
        #[test]
        fn pops_are_totally_ordered(times in proptest::collection::vec(0u64..50, 0..200)) {
            let mut q = EventQueue::new();
            for (i, &t) in times.iter().enumerate() {
                q.schedule(SimTime(t), i);
            }
            let mut expected: Vec<(u64, usize)> = times.iter().copied().zip(0..).collect();
            expected.sort();
            let got: Vec<(u64, usize)> = std::iter::from_fn(|| q.pop().map(|(t, i)| (t.ps(), i))).collect();
            proptest::prop_assert_eq!(got, expected);
        }
    }
}

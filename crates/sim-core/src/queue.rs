//! The deterministic event queue.
//!
//! A binary min-heap of small fixed-size entries ordered by `(time, seq)`,
//! where `seq` is a counter that only increases: two events at the same
//! picosecond pop in the order they were scheduled, on every machine. The
//! payload `E` is a small `Copy` value (ids, never packets: packets live in an
//! arena and travel by id). Scheduling in the past is an invariant breach.
//!
//! Every run is bounded: [`RunLimit`] carries an end time and an event cap,
//! checked by [`EventQueue::pop_within`], so even run-to-completion mode stops.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One pending event: the sort key packs `(time, seq)` into one `u128` so a
/// comparison is a single integer compare.
#[derive(Clone, Copy)]
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
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
}

/// A deterministic priority queue of events keyed by simulated time.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    now: SimTime,
    next_seq: u64,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        Self::with_capacity(1024)
    }

    /// An empty queue with room for `cap` pending events before it reallocates.
    pub fn with_capacity(cap: usize) -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(cap),
            now: SimTime::ZERO,
            next_seq: 0,
            popped: 0,
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
        self.heap.len()
    }

    /// Whether no event is pending.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedules `event` at `at`, which must not be in the past.
    #[inline]
    pub fn schedule(&mut self, at: SimTime, event: E) {
        assert!(
            at >= self.now,
            "event scheduled in the past: {at:?} < now {:?}",
            self.now
        );
        let key = ((at.ps() as u128) << 64) | self.next_seq as u128;
        self.next_seq += 1;
        self.heap.push(Entry { key, event });
    }

    /// The time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| SimTime((e.key >> 64) as u64))
    }

    /// Pops the earliest event and advances `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let e = self.heap.pop()?;
        let t = SimTime((e.key >> 64) as u64);
        debug_assert!(t >= self.now);
        self.now = t;
        self.popped += 1;
        Some((t, e.event))
    }

    /// Pops the earliest event if it lies within `limit`; otherwise says why not.
    #[inline]
    pub fn pop_within(&mut self, limit: &RunLimit) -> Result<(SimTime, E), Stop> {
        if self.popped >= limit.max_events {
            return Err(Stop::EventLimit);
        }
        match self.peek_time() {
            None => Err(Stop::Drained),
            Some(t) if t > limit.end => Err(Stop::EndTime),
            Some(_) => self.pop().ok_or(Stop::Drained),
        }
    }

    /// Moves `now` forward to `t` without an event (used when a run ends at
    /// its end time, so time-averages cover the whole window).
    pub fn advance_to(&mut self, t: SimTime) {
        assert!(t >= self.now, "cannot move time backwards");
        if let Some(next) = self.peek_time() {
            assert!(t <= next, "cannot skip over a pending event");
        }
        self.now = t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(5), 'b');
        q.schedule(SimTime(3), 'a');
        q.schedule(SimTime(5), 'c');
        q.schedule(SimTime(5), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
        assert_eq!(q.now(), SimTime(5));
        assert_eq!(q.events_processed(), 4);
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

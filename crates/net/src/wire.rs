//! The packets on a link's wire, kept inside the port that drives it.
//!
//! A link has a constant delay, so its packets arrive in the order they
//! left: a FIFO of (arrival time, packet) whose head alone has a `Deliver`
//! pending. Every hop pushes at its transmission and pops at its delivery,
//! and at fabric scale the port is cold at both: a ring on the heap made
//! the delivery a chain of three dependent loads (port, ring, packet). The
//! first [`INLINE`] packets live in the port itself (their arrival times
//! fill one cache line, their ids and the counters the next), enough for
//! every packet in flight on a 100 Gb/s link of 1 us with 4 KB frames
//! (about 4) or of 1 us with 1.5 KB frames (about 9: the ninth spills);
//! more spill to a ring on the heap, in order behind the inline ones, and
//! come back [`INLINE`] at a time when the inline ring empties.

use crate::packet::PacketId;
use sim_core::SimTime;
use std::collections::VecDeque;

/// Packets in flight held inline: times and ids in separate arrays, the
/// times one 64-byte line, the ids and the counters part of the next.
pub const INLINE: usize = 8;

/// A FIFO of packets in flight with their arrival times at the far end.
///
/// The inline ring holds the oldest packets; `spill` the rest, and is
/// non-empty only while the ring holds packets (the pop that empties the
/// ring refills it with up to [`INLINE`] of them), so the order is the
/// ring's, then the spill's.
#[derive(Debug)]
#[repr(C)]
pub struct InFlight {
    at: [SimTime; INLINE],
    ids: [PacketId; INLINE],
    /// The newer packets while the ring is full (`None` until a link
    /// first needs it). Boxed: one pointer in the port's line instead of a
    /// deque's four words.
    #[allow(clippy::box_collection)]
    spill: Option<Box<VecDeque<(SimTime, PacketId)>>>,
    /// Index of the oldest inline packet.
    head: u8,
    /// Packets in the inline ring.
    len: u8,
    /// Packets in `spill`, counted here so that a push or a pop decides
    /// without reading the spill.
    spilled: u32,
}

impl Default for InFlight {
    fn default() -> Self {
        InFlight {
            at: [SimTime::ZERO; INLINE],
            ids: [PacketId(u32::MAX); INLINE],
            spill: None,
            head: 0,
            len: 0,
            spilled: 0,
        }
    }
}

impl InFlight {
    /// Appends a packet that arrives at `at` (not before the last one).
    #[inline]
    pub fn push_back(&mut self, at: SimTime, id: PacketId) {
        // Behind spilled packets, a packet spills too (order).
        if self.spilled == 0 && (self.len as usize) < INLINE {
            self.put_inline(at, id);
        } else {
            self.spill_push(at, id);
        }
    }

    /// Appends to the inline ring, which has room.
    #[inline(always)]
    fn put_inline(&mut self, at: SimTime, id: PacketId) {
        let i = (self.head as usize + self.len as usize) % INLINE;
        self.at[i] = at;
        self.ids[i] = id;
        self.len += 1;
    }

    #[cold]
    #[inline(never)]
    fn spill_push(&mut self, at: SimTime, id: PacketId) {
        self.spill.get_or_insert_default().push_back((at, id));
        self.spilled = u32::try_from(self.spill.as_ref().map_or(0, |s| s.len()))
            .expect("fewer than 2^32 packets in flight on a link");
    }

    /// Removes the oldest packet.
    #[inline]
    pub fn pop_front(&mut self) -> Option<(SimTime, PacketId)> {
        if self.len == 0 {
            return None;
        }
        let h = self.head as usize;
        let out = (self.at[h], self.ids[h]);
        self.head = ((h + 1) % INLINE) as u8;
        self.len -= 1;
        if self.len == 0 && self.spilled != 0 {
            self.refill();
        }
        Some(out)
    }

    /// Moves the oldest spilled packets into the emptied ring, as many as
    /// it holds: a link that keeps more than [`INLINE`] packets in flight
    /// (a 100 ns NVLink at 3.6 Tb/s keeps 11) reads its spill once every
    /// [`INLINE`] deliveries, where a refill at each delivery took 5-7% of
    /// an 8,192-GPU run (perf).
    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        let spill = self.spill.as_mut().expect("spilled packets");
        let n = spill.len().min(INLINE);
        self.head = 0;
        for (i, (at, id)) in spill.drain(..n).enumerate() {
            self.at[i] = at;
            self.ids[i] = id;
        }
        self.len = n as u8;
        self.spilled = spill.len() as u32;
    }

    /// The arrival time of the oldest packet.
    #[inline]
    pub fn front_time(&self) -> Option<SimTime> {
        (self.len > 0).then(|| self.at[self.head as usize])
    }

    /// The oldest packet.
    #[inline]
    pub fn front_id(&self) -> Option<PacketId> {
        (self.len > 0).then(|| self.ids[self.head as usize])
    }

    /// Packets in flight.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize + self.spilled as usize
    }

    /// Whether nothing is in flight.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The packets in flight, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = (SimTime, PacketId)> + '_ {
        (0..self.len as usize)
            .map(|k| {
                let i = (self.head as usize + k) % INLINE;
                (self.at[i], self.ids[i])
            })
            .chain(self.spill.iter().flat_map(|s| s.iter().copied()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn times_fill_one_cache_line_and_the_rest_part_of_the_next() {
        assert_eq!(std::mem::offset_of!(InFlight, ids), 64);
        assert!(std::mem::size_of::<InFlight>() <= 112);
    }

    proptest! {
        /// Any sequence of pushes and pops behaves as a `VecDeque`, across
        /// spills to the heap and refills from it.
        #[test]
        fn behaves_as_a_deque(ops in prop::collection::vec(prop::option::of(0u32..1000), 0..300)) {
            let mut f = InFlight::default();
            let mut model = VecDeque::new();
            for (t, op) in ops.into_iter().enumerate() {
                match op {
                    Some(id) => {
                        f.push_back(SimTime(t as u64), PacketId(id));
                        model.push_back((SimTime(t as u64), PacketId(id)));
                    }
                    None => prop_assert_eq!(f.pop_front(), model.pop_front()),
                }
                prop_assert_eq!(f.front_time(), model.front().map(|e| e.0));
                prop_assert_eq!(f.front_id(), model.front().map(|e| e.1));
                prop_assert_eq!(f.len(), model.len());
                prop_assert_eq!(f.is_empty(), model.is_empty());
                prop_assert!(f.iter().eq(model.iter().copied()));
            }
        }
    }
}

//! In-band network telemetry (INT) as HPCC uses it (Li et al., SIGCOMM
//! 2019, section 3.2; the HPCC ns-3 fork's `IntHeader`).
//!
//! A data packet that asks for telemetry (RoCE's [`crate::RoceBits::INT`])
//! gets one record per switch egress it leaves: the time it started onto
//! the wire, the port's transmitted bytes so far (this packet included),
//! the bytes still queued behind it and the link's rate. The receiver
//! echoes the stack on its ACK and the sender reads it there.
//!
//! The records live beside the packet arena, indexed by packet id (a
//! packet stays 128 bytes for every other transport); the table grows
//! with the arena's high-water mark and never allocates after that.
//! Values are exact: the fork's 24-bit nanosecond times and 80-byte
//! queue units are an encoding of the header, not of the algorithm.

use crate::packet::PacketId;
use sim_core::SimTime;

/// Records an INT stack holds: the fork's `IntHeader::maxHop`, enough for a
/// three-tier fat-tree's five switches.
pub const INT_MAX_HOPS: usize = 5;

/// Bytes the INT header adds to a packet on the wire: 8 per hop record
/// for the maximum hop count plus a 2-byte hop counter (the fork's
/// `IntHeader::GetStaticSize`, 42 B), on data packets and on the ACKs that
/// echo them.
pub const INT_HEADER_BYTES: u32 = 8 * INT_MAX_HOPS as u32 + 2;

/// What one switch egress stamps (HPCC Fig. 4: `ts`, `txBytes`, `qLen`, `B`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IntHop {
    /// When the packet started onto the link.
    pub ts: SimTime,
    /// Wire bytes the port has sent, this packet included.
    pub tx_bytes: u64,
    /// Bytes queued at the port after this packet left.
    pub qlen_bytes: u64,
    /// The link's rate, bits per second.
    pub rate_bps: u64,
}

/// The records of one packet, in path order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IntStack {
    /// Records in use.
    pub nhop: u8,
    /// The records; `hops[..nhop]` are valid.
    pub hops: [IntHop; INT_MAX_HOPS],
}

impl IntStack {
    /// A stack with no records.
    pub const EMPTY: IntStack = IntStack {
        nhop: 0,
        hops: [IntHop {
            ts: SimTime::ZERO,
            tx_bytes: 0,
            qlen_bytes: 0,
            rate_bps: 0,
        }; INT_MAX_HOPS],
    };

    /// The valid records.
    pub fn hops(&self) -> &[IntHop] {
        &self.hops[..self.nhop as usize]
    }

    /// Appends a record; a path longer than [`INT_MAX_HOPS`] switches keeps
    /// the first ones (the fork's `PushHop` stops at `maxHop` too).
    pub fn push(&mut self, hop: IntHop) {
        if let Some(slot) = self.hops.get_mut(self.nhop as usize) {
            *slot = hop;
            self.nhop += 1;
        }
    }
}

/// The INT stacks of the live packets that carry one, by packet id.
#[derive(Debug, Default)]
pub struct IntTable {
    stacks: Vec<IntStack>,
}

impl IntTable {
    /// The stack of packet `id` (empty if it never got one).
    pub fn get(&self, id: PacketId) -> &IntStack {
        self.stacks.get(id.0 as usize).unwrap_or(&IntStack::EMPTY)
    }

    /// Gives packet `id` the stack `s` (a fresh data packet: empty; an ACK:
    /// the one it echoes).
    pub fn set(&mut self, id: PacketId, s: &IntStack) {
        *self.slot(id) = *s;
    }

    /// Appends a switch's record to packet `id`'s stack.
    pub fn push(&mut self, id: PacketId, hop: IntHop) {
        self.slot(id).push(hop);
    }

    fn slot(&mut self, id: PacketId) -> &mut IntStack {
        let i = id.0 as usize;
        if i >= self.stacks.len() {
            // Grows with the arena's high-water mark, doubling: amortised,
            // and never again once the run reaches its steady state.
            let len = (i + 1).max(2 * self.stacks.len()).max(64);
            self.stacks.resize(len, IntStack::EMPTY);
        }
        &mut self.stacks[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stack_keeps_its_first_records_and_the_table_grows_on_demand() {
        let mut t = IntTable::default();
        let id = PacketId(200);
        assert_eq!(t.get(id).nhop, 0);
        t.set(id, &IntStack::EMPTY);
        for k in 0..7u64 {
            t.push(
                id,
                IntHop {
                    ts: SimTime(k),
                    tx_bytes: k,
                    qlen_bytes: k,
                    rate_bps: 100_000_000_000,
                },
            );
        }
        let s = t.get(id);
        assert_eq!(s.nhop as usize, INT_MAX_HOPS);
        assert_eq!(s.hops().last().map(|h| h.tx_bytes), Some(4));
        assert_eq!(INT_HEADER_BYTES, 42);
        t.set(id, &IntStack::EMPTY);
        assert!(t.get(id).hops().is_empty());
    }
}

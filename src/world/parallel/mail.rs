//! A window's mail between ranks as bytes: each box a sending LP filled
//! for an LP of another rank, as `(from, to, crossings)`, one after the
//! other in one message per rank pair, in postcard's encoding (a compact
//! binary form of the frames' serde derives). The receiving rank puts
//! each box in its LP's inbox under the sending LP, so it lands in the
//! sending-LP order of one process.

use super::{Lps, lock};
use net::Crossing;
use sim_core::SimTime;

impl Lps {
    /// Hands each box an LP filled in the window to the LP it is for: a
    /// swap of vectors where this process runs both, a message per rank
    /// otherwise. This process's part of the window's end: the earliest
    /// next time of its LPs, their events so far, and whether one
    /// overflowed.
    pub(super) fn route_mail(&self) -> (Option<SimTime>, u64, bool) {
        let n = self.rank_of.len();
        let ranks = self.peers.as_ref().map_or(1, |p| p.size());
        let mut messages = vec![Vec::new(); ranks];
        let mut next: Option<SimTime> = None;
        let mut events = 0;
        let mut overflowed = false;
        for (i, slot) in self.slots.iter().enumerate() {
            let a = self.first + i;
            let mut from = lock(slot);
            next = [next, from.next].into_iter().flatten().min();
            events += from.world.q.events_processed();
            overflowed |= from.overflowed;
            for b in (0..n).filter(|&b| b != a) {
                if self.runs(b) {
                    let mut to = lock(&self.slots[b - self.first]);
                    std::mem::swap(from.world.outbox(b), &mut to.inbox[a]);
                } else {
                    let out = from.world.outbox(b);
                    if !out.is_empty() {
                        post(&mut messages[self.rank_of[b]], a, b, out);
                        out.clear();
                    }
                }
            }
        }
        if let Some(p) = &self.peers {
            for message in p.exchange(messages) {
                for (a, b, crossings) in read(&message) {
                    let mut to = lock(&self.slots[b - self.first]);
                    debug_assert!(to.inbox[a].is_empty(), "landed before");
                    to.inbox[a] = crossings;
                }
            }
        }
        (next, events, overflowed)
    }
}

/// Appends `crossings`, the box LP `from` filled for LP `to`, to
/// `message`.
pub(super) fn post(message: &mut Vec<u8>, from: usize, to: usize, crossings: &[Crossing]) {
    let entry = (from as u32, to as u32, crossings);
    let bytes = postcard::to_extend(&entry, std::mem::take(message));
    *message = bytes.expect("frames serialise (plain data)");
}

/// Each box of a message, in the order posted: `(from, to, crossings)`.
pub(super) fn read(message: &[u8]) -> Vec<(usize, usize, Vec<Crossing>)> {
    let mut rest = message;
    let mut boxes = Vec::new();
    while !rest.is_empty() {
        let ((from, to, crossings), more): ((u32, u32, Vec<Crossing>), _) =
            postcard::take_from_bytes(rest).expect("a rank of this build posted it");
        boxes.push((from as usize, to as usize, crossings));
        rest = more;
    }
    boxes
}

#[cfg(test)]
mod tests {
    use super::*;
    use net::{Cargo, NodeId, Packet, PortId};
    use sim_core::SimTime;

    #[test]
    fn boxes_read_back_in_the_order_posted() {
        let frame = |t: u64, seq: u64| Crossing {
            arrival: SimTime(t),
            to: NodeId(3),
            cargo: Cargo::Packet(
                Packet {
                    seq,
                    ..Packet::default()
                },
                PortId(7),
                Some(Box::default()),
            ),
        };
        let pfc = Crossing {
            arrival: SimTime(9),
            to: NodeId(1),
            cargo: Cargo::Pfc(net::pfc::PfcFrame { mask: 8, pause: 8 }, PortId(2)),
        };
        let mut m = Vec::new();
        post(&mut m, 2, 5, &[frame(10, 1), frame(11, 2)]);
        post(&mut m, 3, 4, &[]);
        post(&mut m, 3, 5, std::slice::from_ref(&pfc));
        let got = read(&m);
        assert_eq!(
            got,
            vec![
                (2, 5, vec![frame(10, 1), frame(11, 2)]),
                (3, 4, vec![]),
                (3, 5, vec![pfc])
            ]
        );
    }
}

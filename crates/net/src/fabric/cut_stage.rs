//! Links cut between logical processes (LPs): one run split over several
//! event queues, each LP owning some nodes' ports, hosts and packets.
//!
//! A cut link's sending side runs in one LP and its far end in another.
//! What the sender puts on such a link cannot be scheduled in the far LP's
//! queue while both run, so it waits in the link's in-flight FIFO until
//! the window ends ([`Fabric::take_crossings`]); the far LP then lands it
//! ([`Fabric::land`]) in its own copy of that FIFO and schedules the
//! delivery there. The delivery itself is the uncut link's: the same
//! `Deliver`/`PfcDeliver` event at the same time, on the same FIFO. A
//! frame put on the wire at `t` arrives at `t` + its serialisation + the
//! link's delay, so a window no longer than the smallest cut delay never
//! holds a crossing's arrival.

use super::{Fabric, NetEvent, Scheduler};
use crate::ids::{NodeId, PortId};
use crate::int::IntStack;
use crate::packet::Packet;
use crate::pfc::PfcFrame;
use crate::port::LINK_CUT;
use sim_core::SimTime;

/// The cut links of one LP with frames waiting to cross, in the order
/// their first frame went out (a deterministic order: the LP's own).
#[derive(Debug, Default)]
pub(super) struct Waiting {
    pub(super) waiting: Vec<PortId>,
    pub(super) waiting_pfc: Vec<PortId>,
}

/// What crosses a cut link.
#[derive(Clone, Debug, PartialEq)]
pub enum Cargo {
    /// A packet (by value: crossings travel in reused vectors, so a
    /// crossing allocates nothing), with its INT stack if it carries one
    /// (boxed: only HPCC's packets pay for it).
    Packet(Packet, Option<Box<IntStack>>),
    /// A PFC PAUSE or RESUME frame.
    Pfc(PfcFrame),
}

/// A frame on a cut link, on its way to the LP of the link's far end.
#[derive(Clone, Debug, PartialEq)]
pub struct Crossing {
    /// When it reaches the far end.
    pub arrival: SimTime,
    /// The sending port (whose `peer` is in the other LP).
    pub port: PortId,
    /// The frame.
    pub cargo: Cargo,
}

impl Fabric {
    /// Marks port `p`'s link as cut: its far end runs in another LP.
    /// Panics on a zero-delay link, which no window could cross (the
    /// partition keeps such links inside one LP).
    pub fn cut_link(&mut self, p: PortId) {
        let port = &mut self.ports[p.idx()];
        assert!(port.delay.ps() > 0, "{p}: a zero-delay link cannot be cut");
        port.pfc_attention |= LINK_CUT;
    }

    /// Whether port `p`'s link is cut.
    pub fn is_cut(&self, p: PortId) -> bool {
        self.ports[p.idx()].pfc_attention & LINK_CUT != 0
    }

    /// Moves every frame waiting on a cut link into `out`, link by link
    /// in the order the links first had one waiting, each link's frames
    /// in wire order. The packets leave this LP's arena.
    pub fn take_crossings(&mut self, out: &mut Vec<Crossing>) {
        for p in std::mem::take(&mut self.cut.waiting) {
            while let Some((arrival, id)) = self.ports[p.idx()].in_flight.pop_front() {
                let pkt = *self.packets.get(id);
                let int = pkt.carries_int().then(|| Box::new(*self.int.get(id)));
                self.packets.free(id);
                let cargo = Cargo::Packet(pkt, int);
                out.push(Crossing {
                    arrival,
                    port: p,
                    cargo,
                });
            }
        }
        for p in std::mem::take(&mut self.cut.waiting_pfc) {
            let st = self.ports[p.idx()]
                .pfc
                .as_deref_mut()
                .expect("a PFC frame waiting implies PFC state");
            for (arrival, frame) in st.in_flight.drain(..) {
                out.push(Crossing {
                    arrival,
                    port: p,
                    cargo: Cargo::Pfc(frame),
                });
            }
        }
    }

    /// Lands a frame that crossed into this LP: it joins the link's
    /// in-flight FIFO here, and a FIFO it starts schedules its delivery.
    pub fn land<S: Scheduler>(&mut self, c: Crossing, sched: &mut S) {
        let p = c.port;
        match c.cargo {
            Cargo::Packet(pkt, int) => {
                let id = self.packets.alloc(pkt);
                if let Some(int) = int {
                    self.int.set(id, &int);
                }
                let port = &mut self.ports[p.idx()];
                let first = port.in_flight.is_empty();
                port.in_flight.push_back(c.arrival, id);
                if first {
                    sched.schedule_net(c.arrival, NetEvent::Deliver(p));
                }
            }
            Cargo::Pfc(frame) => {
                let st = self.ports[p.idx()]
                    .pfc
                    .as_deref_mut()
                    .expect("a PFC frame implies PFC state");
                st.in_flight.push_back((c.arrival, frame));
                if st.in_flight.len() == 1 {
                    sched.schedule_net(c.arrival, NetEvent::PfcDeliver(p));
                }
            }
        }
    }
}

impl Fabric {
    /// Takes over from `other`, another LP's copy of this fabric after a
    /// partitioned run, the state of the nodes `theirs` names: their
    /// ports, shared buffers and service pools; adds its hop count. What
    /// the merged copy holds is for reading counters: a queued packet's
    /// id still names a slot of `other`'s arena.
    pub fn absorb(&mut self, other: &mut Fabric, theirs: impl Fn(NodeId) -> bool) {
        assert_eq!(self.ports.len(), other.ports.len(), "copies of one fabric");
        for (mine, its) in self.ports.iter_mut().zip(other.ports.iter_mut()) {
            if theirs(its.node) {
                std::mem::swap(mine, its);
            }
        }
        for n in 0..self.nodes.len() {
            if theirs(NodeId(n as u32)) {
                std::mem::swap(&mut self.shared[n], &mut other.shared[n]);
                self.pool[n] = other.pool[n];
            }
        }
        self.hops += other.hops;
    }
}

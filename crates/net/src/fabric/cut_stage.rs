//! Links cut between logical processes (LPs): one run split over several
//! event queues, each LP owning some nodes' ports, hosts and packets.
//!
//! A cut link's sending side runs in one LP and its far end in another.
//! What the sender puts on such a link cannot be scheduled in the far LP's
//! queue while both run, so it is posted to the far LP's box
//! ([`Fabric::outbox`]), handed over when the window ends; the far LP then lands it
//! ([`Fabric::land`]): a packet into its own arena, with an `Arrive`
//! event at its arrival time that does what the uncut link's `Deliver`
//! does at that time; a PFC frame into its copy of the link's frame FIFO,
//! with the uncut link's `PfcDeliver`. A frame put on the wire at `t`
//! arrives at `t` + its serialisation + the link's delay, so a window no
//! longer than the smallest cut delay never holds a crossing's arrival.
//! Packets on a link arrive in the order they left (each at least a
//! serialisation after the last), so a packet needs no FIFO to keep order.

use super::{Fabric, NetEvent, Scheduler};
use crate::ids::{NodeId, PortId};
use crate::int::IntStack;
use crate::packet::{NO_PORT, Packet, PacketId};
use crate::pfc::PfcFrame;
use crate::port::LINK_CUT;
use sim_core::SimTime;

/// What one LP sent on its cut links, by receiving LP, in the order it
/// went on the wire (a deterministic order: the LP's own).
#[derive(Debug, Default)]
pub(super) struct Outboxes {
    /// The receiving LP of each cut port (`u32::MAX` where uncut).
    mailbox: Vec<u32>,
    /// What crosses, by receiving LP.
    outboxes: Vec<Vec<Crossing>>,
    /// The earliest arrival posted since the last
    /// [`Fabric::take_first_arrival`].
    first: Option<SimTime>,
}

impl Outboxes {
    /// Posts a crossing from cut port `p`.
    #[inline]
    pub(super) fn post(&mut self, p: PortId, c: Crossing) {
        self.first = Some(self.first.map_or(c.arrival, |f| f.min(c.arrival)));
        self.outboxes[self.mailbox[p.idx()] as usize].push(c);
    }
}

/// What crosses a cut link.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Cargo {
    /// A packet (by value: crossings travel in reused vectors, so a
    /// crossing allocates nothing), the port it arrives at, and its INT
    /// stack if it carries one (boxed: only HPCC's packets pay for it).
    Packet(Packet, PortId, Option<Box<IntStack>>),
    /// A PFC PAUSE or RESUME frame from the cut port.
    Pfc(PfcFrame, PortId),
}

/// A frame on a cut link, on its way to the LP of the link's far end.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Crossing {
    /// When it reaches the far end.
    pub arrival: SimTime,
    /// The node it reaches (in the other LP).
    pub to: NodeId,
    /// The frame.
    pub cargo: Cargo,
}

impl Fabric {
    /// Gives back the mail's storage once the run has ended (its boxes
    /// keep the capacity of the largest window, megabytes at k = 24, and
    /// the map of cut ports one entry per port): an ended copy posts
    /// nothing more.
    pub fn shed_mail(&mut self) {
        self.cut = Outboxes::default();
    }

    /// Marks port `p`'s link as cut: its far end runs in LP `to`.
    /// Panics on a zero-delay link, which no window could cross (the
    /// partition refuses such a cut).
    pub fn cut_link(&mut self, p: PortId, to: u32) {
        let port = &mut self.ports[p];
        assert!(port.delay.ps() > 0, "{p}: a zero-delay link cannot be cut");
        port.pfc_attention |= LINK_CUT;
        let cut = &mut self.cut;
        cut.mailbox.resize(self.ports.len(), u32::MAX);
        cut.mailbox[p.idx()] = to;
        if cut.outboxes.len() <= to as usize {
            cut.outboxes.resize_with(to as usize + 1, Vec::new);
        }
    }

    /// Packet `id` left on cut port `p` and arrives at `arrival`: a copy
    /// is posted for the far LP (while the packet is in the cache), and
    /// its slot here is free.
    #[inline(never)]
    pub(super) fn cross(&mut self, arrival: SimTime, p: PortId, id: PacketId) {
        let port = &self.ports[p];
        let (to, at_port) = (port.peer_node, port.peer);
        let pkt = *self.packets.get(id);
        let int = pkt.carries_int().then(|| Box::new(*self.int.get(id)));
        self.packets.free(id);
        let cargo = Cargo::Packet(pkt, at_port, int);
        self.cut.post(p, Crossing { arrival, to, cargo });
    }

    /// What this LP has posted to LP `lp` since the box was last emptied
    /// (the driver swaps it with `lp`'s inbox at the window's end).
    pub fn outbox(&mut self, lp: usize) -> &mut Vec<Crossing> {
        if self.cut.outboxes.len() <= lp {
            self.cut.outboxes.resize_with(lp + 1, Vec::new);
        }
        &mut self.cut.outboxes[lp]
    }

    /// The earliest arrival posted since the last call.
    pub fn take_first_arrival(&mut self) -> Option<SimTime> {
        self.cut.first.take()
    }

    /// Lands a frame that crossed into this LP and schedules its arrival
    /// (by reference: the packet is copied once, into the arena).
    pub fn land<S: Scheduler>(&mut self, c: &Crossing, sched: &mut S) {
        match &c.cargo {
            Cargo::Packet(pkt, at_port, int) => {
                debug_assert_eq!(pkt.ingress_port, NO_PORT, "left its last switch");
                let id = self.packets.alloc(*pkt);
                self.packets.get_mut(id).ingress_port = at_port.0;
                if let Some(int) = int {
                    self.int.set(id, int);
                }
                // It arrives in the place of the uncut link's delivery, so
                // with that delivery's key: every cut orders it alike.
                let link = self.ports[*at_port].peer;
                let key = NetEvent::Deliver(link).tiebreak(c.arrival);
                sched.schedule_net_as(c.arrival, NetEvent::Arrive(id), key);
            }
            &Cargo::Pfc(frame, p) => {
                let wire = self.pfc_wire(p);
                let st = self.ports[wire]
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

    /// A landed packet reaches the far end of its cut link, as a
    /// `Deliver` would hand it on.
    #[inline]
    pub(super) fn arrive<S: Scheduler>(&mut self, id: PacketId, sched: &mut S) -> super::Outcome {
        let pkt = self.packets.get_mut(id);
        let in_port = PortId(std::mem::replace(&mut pkt.ingress_port, NO_PORT));
        let node = self.ports[in_port].node;
        self.reach(in_port, node, id, sched)
    }
}

//! The world's side of a host's NIC pump ([`transport::HostIo`]): a
//! host reaches its flows' senders in the flow table and its NIC in the
//! fabric, and a packet it sends re-arms its flow's timer.

use super::{Event, FlowTimer};
use net::{Fabric, HostId, HostLink, Packet};
use sim_core::EventQueue;
use transport::{HostIo, Sender, SenderEnd, Side};

/// One host's view of the world while its NIC pulls packets.
pub(super) struct Nic<'a> {
    pub host: HostId,
    /// The NIC has a queue per class (PFC with several classes).
    pub per_class: bool,
    pub flows: &'a mut super::flows::Flows,
    pub fabric: &'a mut Fabric,
    pub q: &'a mut EventQueue<Event>,
}

impl HostIo for Nic<'_> {
    #[inline(always)]
    fn sender(&self, f: u32) -> &Sender {
        &self.flows[f].sender
    }
    #[inline(always)]
    fn sender_mut(&mut self, f: u32) -> (&mut Sender, &mut bool) {
        let fl = &mut self.flows[f];
        (&mut fl.sender, &mut fl.ready)
    }
    #[inline(always)]
    fn link_of(&self, f: u32) -> HostLink {
        let addr = self.flows[f].sender.addr();
        self.fabric.link_towards(addr.src, addr.dst)
    }
    #[inline(always)]
    fn nic_room(&self, link: HostLink, at_the_wire: bool, prio: u8) -> bool {
        if at_the_wire {
            self.fabric.nic_wire_free(self.host, link, prio)
        } else if self.per_class {
            self.fabric.nic_has_room_for(self.host, link, prio)
        } else {
            self.fabric.nic_has_room(self.host, link)
        }
    }
    #[inline(always)]
    fn nic_busy(&self, link: HostLink) -> bool {
        self.fabric.nic_busy(self.host, link)
    }
    #[inline(always)]
    fn send(&mut self, f: u32, p: Packet) {
        self.fabric.host_send(self.host, p, self.q);
        arm(self.flows, self.q, f, Side::Sender);
    }
    #[inline(always)]
    fn rearm(&mut self, f: u32) {
        arm(self.flows, self.q, f, Side::Sender);
    }
}

/// Schedules the endpoint's timer event if its deadline is earlier than
/// the one already pending.
#[inline(always)] // after every packet sent; a call here cost 1.5% (cachegrind)
pub(super) fn arm(flows: &mut super::flows::Flows, q: &mut EventQueue<Event>, f: u32, side: Side) {
    let fl = &mut flows[f];
    if let Some(d) = fl.deadline(side) {
        // A deadline already due fires now; the slot records the event's
        // own time, which is how a firing event recognises itself.
        let at = d.max(q.now());
        let slot = &mut fl.timers[side.idx()];
        if slot.is_none_or(|t| at < t) {
            *slot = Some(at);
            q.schedule(at, Event::Timer(FlowTimer::new(f, side)));
        }
    }
}

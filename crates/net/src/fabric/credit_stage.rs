//! The fabric's side of credit queues ([`crate::credit`]): a credit joins
//! its egress port's credit queue instead of a class queue, and leaves
//! ahead of data whenever the port's limiter lets it.

use super::{Fabric, NetEvent, Scheduler, put_on_wire};
use crate::ids::PortId;
use crate::packet::PacketId;
use crate::port::CREDITS_QUEUED;

impl Fabric {
    /// A credit reaches egress port `p`: queued, or dropped on a full queue.
    #[inline(never)]
    pub(super) fn enqueue_credit<S: Scheduler>(&mut self, p: PortId, id: PacketId, sched: &mut S) {
        let port = &mut self.ports[p];
        let cq = port.credit.as_mut().expect("the caller checked");
        if !cq.push(id) {
            self.leave_switch(id, sched);
            self.packets.free(id);
            return;
        }
        port.set_attention(CREDITS_QUEUED, true);
        if !port.busy {
            self.start_tx(p, sched);
        }
    }

    /// Sends the head credit of port `p` if its limiter lets it go now;
    /// otherwise arms the port's credit timer for when it will (unless
    /// one is pending by then). Returns whether a credit went.
    #[inline(never)]
    pub(super) fn send_credit<S: Scheduler>(&mut self, p: PortId, sched: &mut S) -> bool {
        let now = sched.now();
        let wire = self.config.wire;
        let port = &mut self.ports[p];
        let Some(cq) = port.credit.as_mut() else {
            return false;
        };
        let Some(id) = cq.pop(now) else {
            match cq.ready_at() {
                None => port.set_attention(CREDITS_QUEUED, false),
                Some(at) if cq.timer_at.is_none_or(|t| t > at) => {
                    cq.timer_at = Some(at);
                    sched.schedule_net(at, NetEvent::CreditTimer(p));
                }
                Some(_) => {}
            }
            return false;
        };
        if cq.is_empty() {
            port.set_attention(CREDITS_QUEUED, false);
        }
        let size = self.packets.get(id).size_bytes;
        let wire_bytes = wire.wire_bytes(size);
        port.stats.tx_packets += 1;
        port.stats.tx_bytes += size as u64;
        port.stats.tx_wire_bytes += wire_bytes;
        let cut = put_on_wire(port, p, id, wire_bytes, now, sched);
        self.leave_switch(id, sched);
        if let Some(arrival) = cut {
            self.off_wire(arrival, p, id, sched);
        }
        true
    }

    /// Port `p`'s limiter may let a credit go: an idle port sends it.
    pub(super) fn credit_timer<S: Scheduler>(&mut self, p: PortId, sched: &mut S) {
        let port = &mut self.ports[p];
        if let Some(cq) = port.credit.as_mut()
            && cq.timer_at == Some(sched.now())
        {
            cq.timer_at = None;
        }
        if !port.busy && port.pfc_attention & CREDITS_QUEUED != 0 {
            self.start_tx(p, sched);
        }
    }
}

//! What the fabric tells its observer ([`crate::observe`]), and the head
//! drop an AQM may ask for at dequeue: the rare paths of a departure, out
//! of line.

use super::{Fabric, Scheduler};
use crate::ids::PortId;
use crate::observe::{Observer, PacketEvent};
use crate::packet::PacketId;
use crate::port::{DropCause, OBSERVED};
use sim_core::SimTime;

impl Fabric {
    /// An AQM dropped packet `id` at the head of class `class` of port `p`
    /// (already out of the queue and its accounting). Out of line: only
    /// CoDel-like AQMs come here.
    #[cold]
    #[inline(never)]
    pub(super) fn head_drop<S: Scheduler>(
        &mut self,
        p: PortId,
        class: usize,
        id: PacketId,
        sched: &mut S,
    ) {
        self.drop_packet(p, class, id, DropCause::AqmDequeue, sched);
    }

    /// Tells the observer what happened to packet `id` at port `p`.
    /// Out of line: unobserved ports never come here.
    #[cold]
    #[inline(never)]
    pub(super) fn report(&mut self, p: PortId, ev: PacketEvent, id: PacketId, now: SimTime) {
        if let Some(o) = self.observer.as_deref_mut() {
            o.packet(now, p, ev, self.packets.get(id), self.ports[p].bytes);
        }
    }

    /// Has `observer` told what happens at `ports` from now on (it replaces
    /// an earlier observer; ports observed before stay observed).
    pub fn observe(&mut self, observer: Box<dyn Observer>, ports: &[PortId]) {
        for p in ports {
            self.ports[*p].set_attention(OBSERVED, true);
        }
        self.observer = Some(observer);
    }

    /// The observer, if one was set.
    pub fn observer_mut(&mut self) -> Option<&mut (dyn Observer + 'static)> {
        self.observer.as_deref_mut()
    }

    /// Takes the observer away (its ports then report to nobody).
    pub fn take_observer(&mut self) -> Option<Box<dyn Observer>> {
        self.observer.take()
    }
}

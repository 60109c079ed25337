//! The fabric's side of the switch ingress stage ([`crate::ingress`]):
//! accounting, the hook's verdicts, the VIQ's service and the hook's timer.

use super::{Fabric, NetEvent, Scheduler};
use crate::ids::{NodeId, PortId};
use crate::ingress::{Arrival, IngressHook, IngressView, ViqAction};
use crate::observe::{Dropped, PacketEvent};
use crate::packet::{NO_PORT, PRIORITIES, PacketId};
use crate::path_choice::{PathChoice, PortView};
use crate::port::OBSERVED;
use crate::routing::NO_ROUTE;
use crate::topology::NodeKind;
use sim_core::{Bandwidth, SimTime};

impl Fabric {
    /// Installs an ingress hook at switch ports: `hook_for` gets each switch
    /// port's id, its switch and its link rate, in port order, and may
    /// answer `None` (no hook at that port).
    pub fn install_ingress(
        &mut self,
        mut hook_for: impl FnMut(PortId, NodeId, Bandwidth) -> Option<Box<dyn IngressHook>>,
    ) {
        for (p, port) in self.ports.iter_mut() {
            if port.at_switch {
                port.set_ingress_hook(hook_for(p, port.node, port.rate));
            }
        }
    }

    /// Whether an `IngressTimer(p)` event at `now` is the live one (not
    /// superseded by a later request of the hook).
    pub fn ingress_timer_due(&self, p: PortId, now: SimTime) -> bool {
        self.ports[p].ingress.timer_at == Some(now)
    }

    /// Port `p`'s hook timer fired: runs the hook if the timer is still the
    /// live one (a superseded event is ignored), then serves the VIQ.
    pub(super) fn on_ingress_timer<S: Scheduler>(&mut self, p: PortId, sched: &mut S) {
        let now = sched.now();
        if !self.ingress_timer_due(p, now) {
            return;
        }
        self.ports[p].ingress.timer_at = None;
        let view = self.ingress_view(p);
        if let Some(h) = self.ports[p].ingress.hook.as_mut() {
            h.on_timer(now, &view);
        }
        self.service_viq(p, sched);
    }

    /// The switch ingress stage of port `p`: accounting per (port, priority),
    /// the hook's verdict, then forwarding or holding.
    #[inline]
    pub(super) fn ingress<S: Scheduler>(&mut self, p: PortId, id: PacketId, sched: &mut S) {
        let now = sched.now();
        let pkt = self.packets.get_mut(id);
        pkt.ingress_port = p.0;
        pkt.ingress_priority = pkt.priority;
        let port = &mut self.ports[p];
        port.ingress.account(pkt.priority, pkt.size_bytes);
        port.ingress.arrived += 1;
        if !port.has_ingress_hook() {
            return self.forward(p, id, sched);
        }
        let view = self.ingress_view(p);
        let ingress = &mut self.ports[p].ingress;
        let hook = ingress.hook.as_mut().expect("checked above");
        let pkt = self.packets.get_mut(id);
        match hook.on_arrival(now, &view, pkt) {
            Arrival::Forward => self.forward(p, id, sched),
            Arrival::Hold => {
                let size = pkt.size_bytes;
                let capacity = hook.viq_capacity();
                if ingress.viq_fits(capacity, size) {
                    pkt.enqueued_at = now;
                    ingress.viq.push(id, size);
                    ingress.stats.held += 1;
                    ingress.note_viq(now);
                } else {
                    ingress.stats.viq_drops_full += 1;
                    ingress.stats.dropped_bytes += size as u64;
                    if self.ports[p].pfc_attention & OBSERVED != 0 {
                        self.report(p, PacketEvent::Drop(Dropped::ViqFull), id, now);
                    }
                    self.leave_switch(id, sched);
                    self.packets.free(id);
                }
            }
        }
        self.service_viq(p, sched);
    }

    /// Forwards a packet that passed port `p`'s ingress to its egress queue.
    #[inline]
    pub(super) fn forward<S: Scheduler>(&mut self, p: PortId, id: PacketId, sched: &mut S) {
        let node = self.ports[p].node;
        debug_assert!(
            matches!(self.nodes[node.idx()].kind, NodeKind::Switch { .. }),
            "ingress stage at a host"
        );
        // A node with a NIC's ports (a GPU server's scale-up switch, whose
        // NVLinks are flow-controlled by credits) holds no PFC memory.
        if self.config.pfc.is_some() && self.ports[p].at_switch && !self.pfc_admit(p, id, sched) {
            return; // a lossless violation, counted
        }
        let n = &self.nodes[node.idx()];
        let out = if n.choice == PathChoice::Ecmp {
            self.routes.select(node, n.ecmp_salt, self.packets.get(id))
        } else {
            self.choose_path(node, id, sched.now())
        };
        if out == NO_ROUTE {
            return self.unroutable(node, id, sched);
        }
        self.enqueue(out, id, sched);
    }

    /// The egress port a switch that does not use plain ECMP picks for
    /// packet `id` ([`crate::path_choice`]), or `NO_ROUTE`.
    #[inline(never)]
    fn choose_path(&mut self, node: NodeId, id: PacketId, now: SimTime) -> PortId {
        let pkt = self.packets.get(id);
        let hops = self.routes.next_hops(node, pkt.dst);
        match hops.len() {
            0 => return NO_ROUTE,
            1 => return hops[0],
            _ => {}
        }
        let hash = crate::routing::flow_hash(pkt, self.nodes[node.idx()].ecmp_salt);
        let edge = self.routes.edge_index(pkt.dst);
        let class = self.config.class_of_priority[pkt.priority as usize % PRIORITIES] as usize;
        let ports = &self.ports;
        let view = |p: PortId| {
            let port = &ports[p];
            // A one-queue port's pause is its class 0's.
            let c = if port.queues.is_single() { 0 } else { class };
            PortView {
                bytes: port.bytes,
                packets: port.packets,
                buffer: port.buffer,
                bps: port.rate.bps(),
                paused: port.paused_classes & (1 << c) != 0,
            }
        };
        let state = self.paths[node.idx()]
            .as_deref_mut()
            .expect("a switch that does not use ECMP has path state");
        state.pick(hops, edge, hash, now, pkt.size_bytes, view)
    }

    /// What port `p`'s ingress hook sees now.
    #[inline]
    pub(super) fn ingress_view(&self, p: PortId) -> IngressView {
        let port = &self.ports[p];
        let head = port
            .ingress
            .viq
            .head()
            .map(|h| self.packets.get(h).enqueued_at);
        port.view(head)
    }

    /// A packet leaves its switch (transmitted or dropped): its ingress
    /// port stops counting it, and so does PFC's memory manager.
    #[inline(always)]
    pub(super) fn leave_switch<S: Scheduler>(&mut self, id: PacketId, sched: &mut S) {
        let pkt = self.packets.get(id);
        if pkt.ingress_port != NO_PORT {
            let (ip, prio, size) = (pkt.ingress_port, pkt.ingress_priority, pkt.size_bytes);
            let charged = pkt.mmu_charged;
            self.ports[PortId(ip)].ingress.unaccount(prio, size);
            let pkt = self.packets.get_mut(id);
            pkt.ingress_port = NO_PORT;
            if charged {
                pkt.mmu_charged = false;
                self.pfc_release(PortId(ip), prio, size, sched);
            }
        }
    }

    /// Lets port `p`'s hook release or drop held packets until it waits,
    /// then re-arms its timer. Releases forward at once (which may run other
    /// ports' hooks: each call re-reads the state it needs).
    pub(super) fn service_viq<S: Scheduler>(&mut self, p: PortId, sched: &mut S) {
        let now = sched.now();
        if !self.ports[p].has_ingress_hook() {
            return;
        }
        while let Some(head) = self.ports[p].ingress.viq.head() {
            let view = self.ingress_view(p);
            let ingress = &mut self.ports[p].ingress;
            let hook = ingress.hook.as_mut().expect("checked above");
            let action = hook.poll(now, &view);
            if action == ViqAction::Wait {
                break;
            }
            let size = self.packets.get(head).size_bytes;
            ingress.viq.pop();
            ingress.viq.release(size);
            ingress.note_viq(now);
            if action == ViqAction::DropAged {
                ingress.stats.viq_drops_aged += 1;
                ingress.stats.dropped_bytes += size as u64;
                if self.ports[p].pfc_attention & OBSERVED != 0 {
                    self.report(p, PacketEvent::Drop(Dropped::ViqAged), head, now);
                }
                self.leave_switch(head, sched);
                self.packets.free(head);
                continue;
            }
            ingress.stats.released += 1;
            let view = self.ingress_view(p);
            let ingress = &mut self.ports[p].ingress;
            let hook = ingress.hook.as_mut().expect("checked above");
            hook.on_release(now, &view, self.packets.get_mut(head));
            self.forward(p, head, sched);
        }
        let view = self.ingress_view(p);
        let ingress = &mut self.ports[p].ingress;
        // A time already past means "as soon as possible".
        let next = ingress
            .hook
            .as_ref()
            .and_then(|h| h.next_timer(&view))
            .map(|t| t.max(now));
        if next != ingress.timer_at {
            ingress.timer_at = next;
            if let Some(t) = next {
                sched.schedule_net(t, NetEvent::IngressTimer(p));
            }
        }
    }
}

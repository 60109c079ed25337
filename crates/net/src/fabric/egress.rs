//! A port's transmissions: what it sends first (a PFC frame, a trimmed
//! header, a credit), the class its scheduler picks, the head packet the
//! AQM may still mark or drop, and the packet's departure onto the wire.
//! The per-hop path: each step is inlined into [`Fabric::start_tx`].

use super::ports::Place;
use super::{Fabric, Scheduler, mark_ce, put_on_wire, shared_alpha};
use crate::aqm::Verdict;
use crate::ids::PortId;
use crate::int::IntHop;
use crate::observe::PacketEvent;
use crate::packet::{Kind, PacketId};
use crate::port::{CREDITS_QUEUED, HEADERS_QUEUED, OBSERVED, PFC_FRAME, Port};
use sim_core::SimTime;

/// What taking a port's head packet gave: a packet to send (and whether
/// the AQM marked it), or one the AQM dropped at the head.
enum Dequeued {
    Send { id: PacketId, marked: bool },
    Dropped(PacketId),
}

impl Fabric {
    /// Takes the head of the queue onto the wire. An AQM that drops at
    /// dequeue (CoDel's head drop) drops the head instead, and the next
    /// head is offered to it at once, at the same time, until one leaves or
    /// nothing is left to send (RFC 8289 5.5's dequeue loop).
    #[inline]
    pub(super) fn start_tx<S: Scheduler>(&mut self, p: PortId, sched: &mut S) {
        let now = sched.now();
        let at = self.ports.place(p);
        loop {
            assert!(!self.ports.at(at).busy, "start_tx on busy {p}"); // pairs with TxDone's
            let Some(paused) = self.control_first(p, at, sched) else {
                return;
            };
            let Some(class) = self.pick_class(at, paused, now) else {
                return;
            };
            let (id, marked) = match self.dequeue(p, at, class, now) {
                Dequeued::Send { id, marked } => (id, marked),
                Dequeued::Dropped(id) => {
                    self.head_drop(p, class, id, sched);
                    if self.ports.at(at).packets > 0 {
                        continue;
                    }
                    // Nothing left: the VIQ is served as after a
                    // departure, then a pending PFC frame or credit goes.
                    self.service_viq(p, sched);
                    let port = self.ports.at(at);
                    let waiting = PFC_FRAME | CREDITS_QUEUED | HEADERS_QUEUED;
                    if !port.busy && port.pfc_attention & waiting != 0 {
                        continue;
                    }
                    return;
                }
            };
            self.depart(p, at, class, id, marked, sched);
            return;
        }
    }

    /// What port `p` sends before its data: a PFC frame, a trimmed header
    /// or a credit, when one waits (`None`: one went, or nothing is
    /// queued); else the classes PFC pauses at it, for the data's pick.
    #[inline(always)]
    fn control_first<S: Scheduler>(&mut self, p: PortId, at: Place, sched: &mut S) -> Option<u32> {
        let port = self.ports.at(at);
        if port.pfc_attention == 0 {
            return Some(0);
        }
        if port.pfc_attention & PFC_FRAME != 0 && self.pfc_send_frame(p, sched) {
            return None; // PFC frames go first and are never paused
        }
        if self.ports[p].pfc_attention & HEADERS_QUEUED != 0 && self.send_header(p, sched) {
            return None; // trimmed headers go ahead of the data
        }
        if self.ports[p].pfc_attention & CREDITS_QUEUED != 0 && self.send_credit(p, sched) {
            return None; // a credit the limiter lets go precedes data
        }
        let port = &self.ports[p];
        (port.packets > 0).then_some(port.paused_classes)
    }

    /// The class port `p` serves next, skipping the `paused` ones as if
    /// empty (`None`: every backlogged class is paused).
    #[inline(always)]
    fn pick_class(&mut self, at: Place, paused: u32, now: SimTime) -> Option<usize> {
        let port = self.ports.at_mut(at);
        if port.queues.is_single() {
            // One FIFO: nothing to schedule; paused, it idles until RESUME.
            return (paused & 1 == 0).then_some(0);
        }
        let packets = &self.packets;
        let Port {
            queues,
            sched: scheduler,
            aqm,
            ..
        } = port;
        let queues = &*queues;
        let picked = scheduler.pick(
            |c| {
                if paused & (1 << c) != 0 {
                    return None;
                }
                queues[c].head().map(|h| packets.get(h).size_bytes)
            },
            |c, active| {
                if let Some(a) = aqm.as_mut() {
                    a.on_round(now, c, active);
                }
            },
        );
        assert!(picked.is_some() || paused != 0, "start_tx on an empty port");
        picked
    }

    /// Takes the head packet of `class` off port `p`'s queue, releases
    /// what it held, and asks the AQM (which may mark or drop it).
    #[inline(always)]
    fn dequeue(&mut self, p: PortId, at: Place, class: usize, now: SimTime) -> Dequeued {
        let port = self.ports.at_mut(at);
        let id = port.queues[class]
            .pop()
            .expect("the scheduler picked a backlogged class");
        let pkt = self.packets.get_mut(id);
        let size = pkt.size_bytes;
        // Pairs with enqueue's accounting: the port holds what it sent.
        assert!(
            port.bytes >= size as u64 && port.packets > 0,
            "{p} sends {size} B holding {} B in {} packets",
            port.bytes,
            port.packets
        );
        port.queues[class].release(size);
        if shared_alpha(&self.config.buffer, port).is_some() && !pkt.mmu_charged {
            self.shared[port.node.idx()].release(size);
        }
        port.bytes -= size as u64;
        port.packets -= 1;
        let pool = &mut self.pool[port.node.idx()];
        pool.0 -= size as u64;
        pool.1 -= 1;
        // One class: no scheduling happened, so no scheduler bookkeeping either.
        if !port.queues.is_single()
            && port
                .sched
                .on_sent(class, size, port.queues[class].is_empty())
        {
            // The class emptied and so ended an active turn (MQ-ECN samples it).
            if let Some(a) = port.aqm.as_mut() {
                a.on_round(now, class, true);
            }
        }
        let state = port.state(class, *pool);
        let mut marked = false;
        if let Some(aqm) = port.aqm.as_mut() {
            match aqm.on_dequeue(now, state, pkt) {
                Verdict::Accept => {}
                Verdict::Mark => marked = mark_ce(port, class, pkt),
                Verdict::Drop => {
                    port.note_shrink(now, class);
                    return Dequeued::Dropped(id);
                }
            }
        }
        port.note_shrink(now, class);
        Dequeued::Send { id, marked }
    }

    /// Puts packet `id` of `class` on port `p`'s wire: the egress hook and
    /// counters see it leave, the observer and INT hear of it, it leaves
    /// its switch, and the VIQ is served.
    #[inline(always)]
    fn depart<S: Scheduler>(
        &mut self,
        p: PortId,
        at: Place,
        class: usize,
        id: PacketId,
        marked: bool,
        sched: &mut S,
    ) {
        let now = sched.now();
        let port = self.ports.at_mut(at);
        let pkt = self.packets.get_mut(id);
        let (size, stamp) = (pkt.size_bytes, pkt.carries_int());
        let view = port.has_ingress_hook().then(|| port.view(None));
        if let (Some(view), Some(hook)) = (view, port.ingress.hook.as_mut()) {
            hook.on_egress_departure(now, &view, pkt);
        }
        if let Some(cs) = port.class_stats_mut(class) {
            cs.tx_packets += 1;
            cs.tx_bytes += size as u64;
        }
        port.stats.tx_packets += 1;
        port.stats.tx_bytes += pkt.size_bytes as u64;
        port.stats.wait_sum_ps += now.since(pkt.enqueued_at).ps() as u128;
        let wire_bytes = self.config.wire.wire_bytes(pkt.size_bytes);
        port.stats.tx_wire_bytes += wire_bytes;
        let observed = port.pfc_attention & OBSERVED != 0;
        let cut = put_on_wire(port, p, id, wire_bytes, now, sched);
        if observed {
            if marked {
                self.report(p, PacketEvent::Mark, id, now);
            }
            self.report(p, PacketEvent::Dequeue, id, now);
        }
        if stamp {
            self.stamp_int(p, id, now);
        }
        self.leave_switch(id, sched);
        if let Some(arrival) = cut {
            self.off_wire(arrival, p, id, sched);
        }
        self.service_viq(p, sched);
    }

    /// HPCC's telemetry: a data packet that asks for it gets port `p`'s
    /// record as it starts onto the wire (the fork's `SwitchNotifyDequeue`).
    /// Out of line: the other packets pay one bit test.
    #[inline(never)]
    fn stamp_int(&mut self, p: PortId, id: PacketId, now: SimTime) {
        let port = &self.ports[p];
        if self.packets.get(id).kind != Kind::Data || !port.at_switch {
            return;
        }
        let hop = IntHop {
            ts: now,
            tx_bytes: port.stats.tx_wire_bytes,
            qlen_bytes: port.bytes,
            rate_bps: port.rate.bps(),
        };
        self.int.push(id, hop);
    }
}

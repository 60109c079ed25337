//! The fabric's side of PFC ([`crate::pfc`]): the memory manager's charge
//! when a lossless packet enters a switch's data buffer and its release when
//! the packet leaves, PAUSE/RESUME frames on the wire, and the upstream
//! ports that obey them.

use super::{Fabric, NetEvent, Scheduler};
use crate::ids::PortId;
use crate::observe::{Dropped, PacketEvent, PfcEvent};
use crate::packet::PacketId;
use crate::pfc::{self, Charge, PAUSE_PAYLOAD_BYTES, PauseMode, PfcConfig, PortPfc};
use crate::port::{LINK_CUT, OBSERVED, PFC_FRAME, PFC_PAUSED};
use sim_core::SimTime;

/// A snapshot of one switch's PFC memory, for invariant checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmuSnapshot {
    /// The switch's whole buffer.
    pub buffer_bytes: u64,
    /// Bytes in every egress queue of the switch.
    pub queued_bytes: u64,
    /// Lossless bytes counted in reserves and the shared pool.
    pub lossless_buffer_bytes: u64,
    /// Lossless bytes counted in headroom.
    pub headroom_used_bytes: u64,
    /// Bytes of the shared pool in use (lossless beyond reserve, and lossy).
    pub shared_used_bytes: u64,
    /// The shared pool's size.
    pub shared_capacity_bytes: u64,
    /// Whether some (port, priority) uses more headroom than its port has.
    pub headroom_overrun: bool,
}

impl Fabric {
    /// The PFC settings, if PFC is on.
    #[inline]
    pub fn pfc(&self) -> Option<&PfcConfig> {
        self.config.pfc.as_ref()
    }

    /// A lossless packet arriving at switch port `p` enters the data
    /// buffer: the MMU charges it (or drops it, a lossless violation) and
    /// pauses the upstream if the (port, priority) crossed XOFF. Returns
    /// false if it was dropped.
    #[inline(never)]
    pub(super) fn pfc_admit<S: Scheduler>(
        &mut self,
        p: PortId,
        id: PacketId,
        sched: &mut S,
    ) -> bool {
        let Some(cfg) = self.config.pfc.as_ref() else {
            return true;
        };
        let pkt = self.packets.get(id);
        let (q, size) = ((pkt.ingress_priority % 8) as usize, pkt.size_bytes as u64);
        if !cfg.is_lossless(q as u8) {
            return true;
        }
        let port = &mut self.ports[p];
        let shared = &mut self.shared[port.node.idx()];
        let st = port
            .pfc
            .as_deref_mut()
            .expect("every switch port has PFC state when PFC is on");
        let shared_free = shared.free();
        match pfc::charge(
            st,
            cfg,
            q,
            size,
            pfc::threshold(cfg, shared_free),
            shared_free,
        ) {
            Charge::Buffer { shared: bytes } => {
                st.ingress_bytes[q] += size;
                if bytes > 0 {
                    shared.take(bytes as u32);
                }
            }
            Charge::Headroom => {
                st.hdrm_bytes[q] += size;
                st.stats.peak_headroom_bytes[q] =
                    st.stats.peak_headroom_bytes[q].max(st.hdrm_bytes[q]);
            }
            Charge::Drop => {
                st.stats.lossless_drops[q] += 1;
                st.stats.headroom_drops[q] += 1;
                port.ingress.stats.dropped_bytes += size;
                if port.pfc_attention & OBSERVED != 0 {
                    let now = sched.now();
                    self.report(p, PacketEvent::Drop(Dropped::PfcHeadroom), id, now);
                }
                self.leave_switch(id, sched);
                self.packets.free(id);
                return false;
            }
        }
        // The threshold after the charge: the pool it shrank may lower it.
        let bit = 1u8 << q;
        let pause =
            st.xoff & bit == 0 && pfc::should_pause(st, cfg, q, pfc::threshold(cfg, shared.free()));
        if pause {
            st.xoff |= bit;
        }
        self.packets.get_mut(id).mmu_charged = true;
        if pause {
            self.pfc_announce(p, sched);
        }
        true
    }

    /// A charged lossless packet leaves its switch (sent or dropped): the
    /// MMU takes its bytes back and resumes the upstream if the (port,
    /// priority) drained.
    #[inline(never)]
    pub(super) fn pfc_release<S: Scheduler>(
        &mut self,
        ingress: PortId,
        q: u8,
        size: u32,
        sched: &mut S,
    ) {
        let cfg = self
            .config
            .pfc
            .as_ref()
            .expect("a charged packet implies PFC");
        let q = (q % 8) as usize;
        let port = &mut self.ports[ingress];
        let shared = &mut self.shared[port.node.idx()];
        let st = port
            .pfc
            .as_deref_mut()
            .expect("a charged packet's port has PFC state");
        let bytes = pfc::release(st, cfg, q, size as u64);
        if bytes > 0 {
            shared.release(bytes as u32);
        }
        let bit = 1u8 << q;
        let resume = st.xoff & bit != 0
            && pfc::should_resume(st, cfg, q, pfc::threshold(cfg, shared.free()));
        if resume {
            st.xoff &= !bit;
            self.pfc_announce(ingress, sched);
        }
    }

    /// Port `p` has a PFC change to tell its upstream: the frame goes out
    /// next, behind the frame in transmission if any.
    fn pfc_announce<S: Scheduler>(&mut self, p: PortId, sched: &mut S) {
        let port = &mut self.ports[p];
        let pending = port
            .pfc
            .as_ref()
            .is_some_and(|s| s.pending_frame().is_some());
        port.set_attention(PFC_FRAME, pending);
        if pending && !port.busy {
            self.start_tx(p, sched);
        }
    }

    /// Serialises port `p`'s pending PAUSE/RESUME frame, if it still has
    /// one (a PAUSE undone before it left is never sent). Returns whether a
    /// frame went out.
    #[inline(never)]
    pub(super) fn pfc_send_frame<S: Scheduler>(&mut self, p: PortId, sched: &mut S) -> bool {
        let now = sched.now();
        let wire = self.config.wire;
        let pause = self.config.pfc.map(|c| c.pause);
        let port = &mut self.ports[p];
        port.set_attention(PFC_FRAME, false);
        let st = port
            .pfc
            .as_deref_mut()
            .expect("a pending frame implies PFC state");
        let Some(frame) = st.pending_frame() else {
            return false;
        };
        st.announced = st.xoff;
        st.refresh_due = 0;
        let mut observer = match port.pfc_attention & OBSERVED {
            0 => None,
            _ => self.observer.as_deref_mut(),
        };
        for q in 0..8 {
            if frame.mask & (1 << q) == 0 {
                continue;
            }
            let ev = if frame.pause & (1 << q) != 0 {
                st.stats.pauses_sent[q] += 1;
                st.announced_at[q] = now;
                PfcEvent::PauseSent
            } else {
                st.stats.resumes_sent[q] += 1;
                PfcEvent::ResumeSent
            };
            if let Some(o) = observer.as_deref_mut() {
                o.pfc(now, p, ev, q as u8);
            }
        }
        let wire_bytes = wire.wire_bytes(PAUSE_PAYLOAD_BYTES);
        port.stats.tx_wire_bytes += wire_bytes;
        let tx_end = now + port.rate.tx_time(wire_bytes);
        port.busy = true;
        sched.schedule_net(tx_end, NetEvent::TxDone(p));
        let arrival = tx_end + port.delay;
        if port.pfc_attention & LINK_CUT != 0 {
            let (to, cargo) = (port.peer_node, super::Cargo::Pfc(frame, p));
            self.cut.post(p, super::Crossing { arrival, to, cargo });
        } else {
            st.in_flight.push_back((arrival, frame));
            if st.in_flight.len() == 1 {
                sched.schedule_net(arrival, NetEvent::PfcDeliver(p));
            }
        }
        if frame.pause != 0
            && let Some(PauseMode::Quanta { quanta, refresh }) = pause
        {
            let every = pfc::refresh_time(quanta, refresh, port.rate);
            sched.schedule_net(now + every, NetEvent::PfcTimer(p));
        }
        true
    }

    /// The head PFC frame on port `p`'s link reaches the upstream (the
    /// peer port's egress), which stops or restarts those priorities.
    #[inline(never)]
    pub(super) fn pfc_deliver<S: Scheduler>(&mut self, p: PortId, sched: &mut S) {
        let now = sched.now();
        let wire = self.pfc_wire(p);
        let port = &mut self.ports[wire];
        let st = port
            .pfc
            .as_deref_mut()
            .expect("a frame on the wire implies PFC state");
        let (at, frame) = st
            .in_flight
            .pop_front()
            .expect("PfcDeliver with nothing in flight");
        assert_eq!(at, now, "link {p} delivered a PFC frame out of time");
        if let Some(&(next, _)) = st.in_flight.front() {
            sched.schedule_net(next, NetEvent::PfcDeliver(p));
        }
        let up = Self::peer(p);
        let rate = self.ports[up].rate;
        let pause_for = match self.config.pfc.map(|c| c.pause) {
            Some(PauseMode::Quanta { quanta, .. }) => Some(pfc::quanta_time(quanta, rate)),
            _ => None,
        };
        if self.ports[up].pfc_attention & OBSERVED != 0
            && let Some(o) = self.observer.as_deref_mut()
        {
            for q in (0..8u8).filter(|q| frame.mask & (1 << q) != 0) {
                let ev = match frame.pause & (1 << q) {
                    0 => PfcEvent::ResumeReceived,
                    _ => PfcEvent::PauseReceived,
                };
                o.pfc(now, up, ev, q);
            }
        }
        let st = self.ports[up]
            .pfc
            .as_deref_mut()
            .expect("both ends of a cable have PFC state when PFC is on");
        let resumed = st.receive(frame, now, pause_for);
        if let Some(d) = pause_for
            && frame.pause != 0
        {
            sched.schedule_net(now + d, NetEvent::PfcTimer(up));
        }
        self.pfc_restart(up, resumed, sched);
    }

    /// Where the PFC frames in flight on port `p`'s link wait for their
    /// `PfcDeliver(p)`: at `p`; or, on a cut link whose sending end is
    /// another LP's, at the far end, which sends its own frames across
    /// the cut and so keeps its queue free (`Fabric::land`).
    #[inline]
    pub(super) fn pfc_wire(&self, p: PortId) -> PortId {
        if self.ports.holds(p) {
            p
        } else {
            Self::peer(p)
        }
    }

    /// Port `p`'s PFC timer: an upstream's timed pauses that expired end
    /// (quanta mode), and a downstream still congested refreshes its PAUSE.
    #[inline(never)]
    pub(super) fn pfc_timer<S: Scheduler>(&mut self, p: PortId, sched: &mut S) {
        let now = sched.now();
        let Some(PauseMode::Quanta { quanta, refresh }) = self.config.pfc.map(|c| c.pause) else {
            return;
        };
        let port = &mut self.ports[p];
        let refresh = pfc::refresh_time(quanta, refresh, port.rate);
        let st = port
            .pfc
            .as_deref_mut()
            .expect("a PFC timer implies PFC state");
        let mut resumed = 0;
        for q in 0..8 {
            if st.paused & (1 << q) != 0 && st.pause_until[q] <= now {
                resumed |= st.unpause(q, now);
            }
            let announced = st.xoff & st.announced & (1 << q) != 0;
            if announced && st.announced_at[q] + refresh <= now {
                st.refresh_due |= 1 << q;
            }
        }
        if st.pending_frame().is_some() {
            port.set_attention(PFC_FRAME, true);
            if !port.busy {
                self.start_tx(p, sched);
            }
        }
        self.pfc_restart(p, resumed, sched);
    }

    /// Recomputes port `p`'s paused classes and restarts it if `resumed`
    /// freed a class while it idled.
    fn pfc_restart<S: Scheduler>(&mut self, p: PortId, resumed: u8, sched: &mut S) {
        let classes_of = self.config.class_of_priority;
        let port = &mut self.ports[p];
        let paused = port.pfc.as_ref().map_or(0, |s| s.paused);
        let single = port.queues.is_single();
        port.paused_classes = (0..8)
            .filter(|q| paused & (1 << q) != 0)
            .map(|q| if single { 0 } else { classes_of[q] })
            .fold(0u32, |m, c| m | (1 << c));
        let any = port.paused_classes != 0;
        port.set_attention(PFC_PAUSED, any);
        if resumed != 0 && !port.busy && port.packets > 0 {
            self.start_tx(p, sched);
        }
    }

    /// The PFC memory of switch node `node` now.
    pub fn mmu_snapshot(&self, node: crate::ids::NodeId) -> MmuSnapshot {
        let mut s = MmuSnapshot {
            buffer_bytes: 0,
            queued_bytes: 0,
            lossless_buffer_bytes: 0,
            headroom_used_bytes: 0,
            shared_used_bytes: self.shared[node.idx()].used,
            shared_capacity_bytes: self.shared[node.idx()].capacity,
            headroom_overrun: false,
        };
        let mut reserve_total = 0;
        for (_, port) in self.ports.iter().filter(|(_, p)| p.node == node) {
            s.queued_bytes += port.bytes;
            if let (Some(st), Some(cfg)) = (port.pfc.as_deref(), self.config.pfc.as_ref()) {
                s.lossless_buffer_bytes += st.ingress_bytes.iter().sum::<u64>();
                s.headroom_used_bytes += st.hdrm_bytes.iter().sum::<u64>();
                s.headroom_overrun |= st.hdrm_bytes.iter().any(|&h| h > st.headroom_bytes);
                reserve_total += st.headroom_bytes + cfg.reserve_bytes * cfg.lossless_count();
            }
        }
        s.buffer_bytes = match self.config.buffer {
            crate::buffer::BufferPolicy::Shared { bytes, .. } => bytes,
            crate::buffer::BufferPolicy::PerPort(_) => s.shared_capacity_bytes + reserve_total,
        };
        s
    }

    /// A switch port's headroom under `cfg`, from its link.
    pub(super) fn pfc_headroom(&self, cfg: &PfcConfig, p: PortId) -> u64 {
        let port = self.ports.facts(p);
        let wire = self.config.wire;
        cfg.headroom_bytes(
            port.rate,
            port.delay,
            wire.wire_bytes(cfg.mtu_bytes),
            wire.wire_bytes(PAUSE_PAYLOAD_BYTES),
        )
    }

    /// Installs PFC state at every port and shrinks each switch's shared
    /// pool by its ports' headroom and reserves.
    pub(super) fn pfc_setup(&mut self) -> Result<(), crate::topology::TopologyError> {
        let Some(cfg) = self.config.pfc else {
            return Ok(());
        };
        let crate::buffer::BufferPolicy::Shared { bytes, .. } = self.config.buffer else {
            return Err(crate::topology::TopologyError::PfcNeedsSharedBuffer);
        };
        let held: Vec<PortId> = self.ports.iter().map(|(p, _)| p).collect();
        for p in held {
            let headroom = if self.ports[p].at_switch {
                self.pfc_headroom(&cfg, p)
            } else {
                0
            };
            self.ports[p].pfc = Some(Box::new(PortPfc::new(headroom)));
        }
        // Nodes by index (hosts hold no pool); switches are named sN. Every
        // copy checks every switch's pool, from the ports' facts.
        let hosts = self.host_nodes.len();
        let facts = (0..self.ports.len() as u32).map(|p| self.ports.facts(PortId(p)));
        let switch_ports = (facts.clone())
            .filter(|f| f.at_switch)
            .map(|f| (f.node.idx(), f.rate, f.delay));
        let name = |n: usize| format!("s{}", n.saturating_sub(hosts));
        let pools = pfc::switch_pools(
            &cfg,
            bytes,
            self.config.wire,
            self.nodes.len(),
            switch_ports,
            name,
        )?;
        let mut switch = vec![false; self.nodes.len()];
        for f in facts.filter(|f| f.at_switch) {
            switch[f.node.idx()] = true;
        }
        for (n, pool) in pools.into_iter().enumerate() {
            if switch[n] {
                self.shared[n] = crate::buffer::SharedBuffer::new(pool);
            }
        }
        Ok(())
    }

    /// Time port `p`'s egress spent paused on priority `q` up to `now`.
    pub fn paused_ps(&self, p: PortId, q: usize, now: SimTime) -> u64 {
        self.ports[p]
            .pfc
            .as_ref()
            .map_or(0, |s| s.paused_ps_at(q, now))
    }
}

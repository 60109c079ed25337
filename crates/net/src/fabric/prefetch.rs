//! Prefetching for the events a few pops ahead (issue 31).
//!
//! On a fabric every port, packet and AQM state an event touches is cold
//! in the cache, and each miss costs as much as a few events' work. The
//! event loop reads ahead in a crowded slot's sorted run
//! (`sim_core::EventQueue::upcoming`) and calls these in steps, each
//! reading only what an earlier step fetched: the event's port 8 events
//! ahead; its packet, a delivery's arrival port and a transmission's AQM
//! state 4 ahead; a delivery's egress port, routed as its switch will
//! route it, 2 ahead; that port's AQM state one event later. None of it
//! changes a result: a prefetch is a hint to the CPU.

use super::{Fabric, NetEvent};
use crate::ids::PortId;
use crate::port::Port;
use crate::topology::NodeKind;

impl Fabric {
    /// Asks the CPU to start loading what `ev` will read of its port (the
    /// lines down to the counters), so that an event popped a few events
    /// later finds them cached. Only a hint: results do not depend on it.
    #[inline]
    pub fn prefetch(&self, ev: NetEvent) {
        if let NetEvent::Arrive(id) = ev {
            return prefetch_packet_lines(self, id);
        }
        let (NetEvent::Deliver(p) | NetEvent::TxDone(p)) = ev else {
            return;
        };
        if let Some(port) = self.ports.get(p) {
            prefetch_hot_lines(port);
        }
    }

    /// The second step of prefetching, for an event nearer than
    /// [`Fabric::prefetch`]'s: from its port, cached by then, the packet it
    /// will hand on (a delivery's head in flight, a transmission's next in
    /// a one-class queue), for a transmission the AQM state its dequeue
    /// hook reads, and for a delivery the ingress stage of the port it
    /// arrives at. Only a hint: results do not depend on it.
    #[inline]
    pub fn prefetch_packet(&self, ev: NetEvent) {
        let (id, arrival) = match ev {
            NetEvent::Deliver(p) => match self.ports.get(p) {
                Some(port) => (port.in_flight.front_id(), Some(port.peer)),
                None => return,
            },
            NetEvent::TxDone(p) => match self.ports.get(p) {
                Some(port) if port.queues.is_single() => {
                    prefetch_aqm_state(port);
                    (port.queues[0].head(), None)
                }
                _ => return,
            },
            // The packet came first (it names its arrival port).
            NetEvent::Arrive(id) => (None, Some(PortId(self.packets.get(id).ingress_port))),
            _ => return,
        };
        if let Some(id) = id {
            prefetch_packet_lines(self, id);
        }
        if let Some(port) = arrival.and_then(|q| self.ports.get(q)) {
            let base = std::ptr::from_ref(port).cast::<u8>();
            prefetch_line(base);
            prefetch_line(base.wrapping_add(std::mem::offset_of!(Port, ingress)));
        }
    }

    /// The third step of prefetching, for an event nearer still: a
    /// delivery's packet, cached by then, is routed as its switch will
    /// route it, and the egress port it will join is prefetched; the port
    /// is returned, for [`Fabric::prefetch_aqm`] an event later. Only a
    /// hint: results do not depend on it.
    #[inline]
    pub fn prefetch_egress(&self, ev: NetEvent) -> Option<PortId> {
        let (id, node) = match ev {
            NetEvent::Deliver(p) => {
                let port = self.ports.get(p)?;
                (port.in_flight.front_id()?, port.peer_node)
            }
            NetEvent::Arrive(id) => {
                let at = self.packets.get(id).ingress_port;
                (id, self.ports.get(PortId(at))?.node)
            }
            _ => return None,
        };
        let n = &self.nodes[node.idx()];
        if !matches!(n.kind, NodeKind::Switch { .. }) {
            return None;
        }
        let out = self.routes.select(node, n.ecmp_salt, self.packets.get(id));
        prefetch_hot_lines(self.ports.get(out)?);
        Some(out)
    }

    /// The last step of prefetching: the AQM state of port `p`, whose
    /// lines [`Fabric::prefetch_egress`] fetched an event earlier.
    #[inline]
    pub fn prefetch_aqm(&self, p: PortId) {
        if let Some(port) = self.ports.get(p) {
            prefetch_aqm_state(port);
        }
    }
}

/// Prefetches packet `id`'s two lines.
#[inline(always)]
fn prefetch_packet_lines(fabric: &Fabric, id: crate::packet::PacketId) {
    let pkt = std::ptr::from_ref(fabric.packets.get(id)).cast::<u8>();
    prefetch_line(pkt);
    prefetch_line(pkt.wrapping_add(64));
}

/// Prefetches the lines a hop at `port` touches ([`Port::HOT_LINES`]).
#[inline(always)]
fn prefetch_hot_lines(port: &Port) {
    let base = std::ptr::from_ref(port).cast::<u8>();
    for line in 0..Port::HOT_LINES {
        prefetch_line(base.wrapping_add(line * 64));
    }
}

/// Prefetches the first line of `port`'s AQM state, if it has one (the
/// line RED's hooks read for a one-class port).
#[inline(always)]
fn prefetch_aqm_state(port: &Port) {
    if let Some(aqm) = port.aqm.as_deref() {
        prefetch_line(std::ptr::from_ref(aqm).cast());
    }
}

/// Starts loading the cache line at `p` into every level (a hint; no
/// effect on results, nothing on other targets).
#[inline(always)]
fn prefetch_line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: SSE is part of the x86_64 baseline, and a prefetch neither
    // reads memory the program can observe nor faults, whatever the
    // address (the workspace's one unsafe block).
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

//! The ideal flow completion time: the same flow alone on an empty network
//! with an unlimited window, the denominator of FCT slowdown (the pFabric,
//! HPCC and MQ-ECN convention: slowdown = FCT / ideal FCT >= 1).
//!
//! A TCP flow's FCT runs from its SYN to the acknowledgment of its last
//! byte (a RoCE flow's from its first packet: no handshake term), so its
//! ideal is
//!
//! ```text
//! ideal = sum_fwd (d + t(C)) + sum_rev (d + t(C))     SYN and SYN-ACK
//!       + sum_fwd (d + t(S1)) + (W - w1) / C_min      data, pipelined
//!       + sum_rev (d + t(C))                          the last ACK
//! ```
//!
//! over the egress ports of the flow's forward path (host NIC first) and
//! of its reverse path, each with propagation delay `d` and rate `r`;
//! `t(X)` is the time to put packet X on that link with framing
//! (`wire_bytes / r`), `C` a control packet (the handshake's with its
//! options, an ACK's), `S1` the first data segment, `W` the wire bytes of
//! all data segments (payload cut at the MSS, the transport's header bytes
//! and framing each), `w1` the first segment's, and
//! `C_min` the slowest forward link (with planes, each link past the
//! hosts' own cables counted once per plane: the flow may spray over
//! them all). The first segment crosses every hop
//! store-and-forward; the rest follow it through the bottleneck back to
//! back. It leaves out what the transport adds on purpose (slow start,
//! delayed ACKs), so slowdown measures both the network and the
//! transport. Paths are the ones routing gives the flow's own 5-tuple.

use net::{Fabric, Origin, Packet, PortId};
use sim_core::{Bandwidth, SimDuration};

/// Each port's link as the ideal reads it, (rate, delay): the fabric's
/// own ([`Fabric::link`]) while it runs, the rates a run's ports ended at
/// for its report (a degraded link counts at its degraded rate).
pub type LinkOf<'a> = &'a dyn Fn(PortId) -> (Bandwidth, SimDuration);
use transport::{FlowAddr, TransportConfig};

/// The egress ports of a flow's forward path and of its reverse path, as
/// routing gives its own 5-tuple.
pub(crate) fn paths(
    fabric: &Fabric,
    addr: &FlowAddr,
    transport: &TransportConfig,
) -> (Vec<PortId>, Vec<PortId>) {
    let mut pkt = Packet {
        origin: Origin::Flow(addr.flow),
        src: addr.src,
        dst: addr.dst,
        sport: addr.sport,
        dport: addr.dport,
        protocol: transport.protocol(),
        priority: addr.priority,
        ..Packet::default()
    };
    let fwd = fabric.path(&pkt);
    pkt.src = addr.dst;
    pkt.dst = addr.src;
    pkt.sport = addr.dport;
    pkt.dport = addr.sport;
    pkt.reverse = true;
    (fwd, fabric.path(&pkt))
}

/// Store-and-forward time of one packet of `ip_bytes` over `path`, in ps.
fn one_way(fabric: &Fabric, link: LinkOf, path: &[PortId], ip_bytes: u32) -> u64 {
    let wire = fabric.config().wire;
    // Saturating: delays and sizes are bounded at load, but a report must
    // never panic after a whole run.
    path.iter().fold(0u64, |sum, &p| {
        let (rate, delay) = link(p);
        let hop = rate.tx_time(wire.wire_bytes(ip_bytes)).ps();
        sum.saturating_add(delay.ps()).saturating_add(hop)
    })
}

/// A flow's base RTT: one full data packet out and an acknowledgment back,
/// store-and-forward on empty queues (what RoCE's windows scale a BDP by).
pub fn base_rtt(fabric: &Fabric, addr: &FlowAddr, transport: &TransportConfig) -> SimDuration {
    let (fwd, rev) = paths(fabric, addr, transport);
    let full = transport.data_header_bytes() + transport.mss() as u32;
    let link = &|p| fabric.link(p);
    SimDuration::from_ps(one_way(fabric, link, &fwd, full).saturating_add(one_way(
        fabric,
        link,
        &rev,
        transport.ack_bytes(),
    )))
}

/// The ideal FCT of a flow of `size` bytes at `addr`, cut into the
/// transport's segments, over links `link`.
pub fn ideal_fct(
    fabric: &Fabric,
    link: LinkOf,
    addr: &FlowAddr,
    size: u64,
    transport: &TransportConfig,
) -> SimDuration {
    let (fwd, rev) = paths(fabric, addr, transport);
    let (first, rest) = delivery_over(fabric, link, addr, size, transport, &fwd, &rev);
    SimDuration::from_ps(first.saturating_add(rest).saturating_add(one_way(
        fabric,
        link,
        &rev,
        transport.ack_bytes(),
    )))
}

/// The ideal time to deliver a flow's last byte (its ideal FCT without the
/// last acknowledgment), in two terms, picoseconds: the handshake and the
/// first segment's store-and-forward crossing, then the rest of its wire
/// bytes through the bottleneck.
pub fn ideal_delivery(
    fabric: &Fabric,
    link: LinkOf,
    addr: &FlowAddr,
    size: u64,
    transport: &TransportConfig,
) -> (u64, u64) {
    let (fwd, rev) = paths(fabric, addr, transport);
    delivery_over(fabric, link, addr, size, transport, &fwd, &rev)
}

/// [`ideal_delivery`] over the flow's forward and reverse paths, found
/// once by the caller.
fn delivery_over(
    fabric: &Fabric,
    link: LinkOf,
    addr: &FlowAddr,
    size: u64,
    transport: &TransportConfig,
    fwd: &[PortId],
    rev: &[PortId],
) -> (u64, u64) {
    let wire = fabric.config().wire;
    let mss = transport.mss();
    let header = transport.data_header_bytes();
    let handshake = transport.handshake_header_bytes().map_or(0, |syn| {
        one_way(fabric, link, fwd, syn).saturating_add(one_way(fabric, link, rev, syn))
    });
    let first = size.min(mss);
    let full = size / mss;
    let tail = size % mss;
    let seg_wire = |payload: u64| wire.wire_bytes(header + payload as u32);
    let all_wire = full
        .saturating_mul(seg_wire(mss))
        .saturating_add(if tail > 0 { seg_wire(tail) } else { 0 });
    let rest = all_wire.saturating_sub(seg_wire(first));
    // With planes the flow may use every plane at once: each link beyond
    // the hosts' own cables counts that many times (a flow pinned to one
    // plane then shows a slowdown of about the plane count).
    let planes = fabric.nic_planes(addr.src) as u64;
    let bottleneck = fwd
        .iter()
        .map(|&p| {
            let port = fabric.port_facts(p);
            let own_cable = port.node == fabric.host_node(addr.src)
                || port.peer_node == fabric.host_node(addr.dst);
            let n = if own_cable { 1 } else { planes };
            Bandwidth::from_bps(link(p).0.bps().saturating_mul(n))
        })
        .min()
        .expect("a path has at least the host's link");
    let fixed = handshake.saturating_add(one_way(fabric, link, fwd, header + first as u32));
    (fixed, bottleneck.tx_time(rest).ps())
}

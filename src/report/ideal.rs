//! The ideal flow completion time: the same flow alone on an empty network
//! with an unlimited window, the denominator of FCT slowdown (the pFabric,
//! HPCC and MQ-ECN convention: slowdown = FCT / ideal FCT >= 1).
//!
//! A TCP flow's FCT runs from its SYN to the acknowledgment of its last
//! byte, so its ideal is
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
//! `C_min` the slowest forward link. The first segment crosses every hop
//! store-and-forward; the rest follow it through the bottleneck back to
//! back. It leaves out what the transport adds on purpose (slow start,
//! delayed ACKs), so slowdown measures both the network and the
//! transport. Paths are the ones routing gives the flow's own 5-tuple.

use net::{Fabric, Origin, Packet, PortId, Protocol};
use sim_core::SimDuration;
use transport::{FlowAddr, TransportConfig};

/// The ideal FCT of a flow of `size` bytes at `addr`, cut into the
/// transport's segments.
pub fn ideal_fct(
    fabric: &Fabric,
    addr: &FlowAddr,
    size: u64,
    transport: &TransportConfig,
) -> SimDuration {
    let wire = fabric.config().wire;
    let mss = transport.mss();
    let header = transport.data_header_bytes();
    let syn = transport.handshake_header_bytes();
    let mut pkt = Packet {
        origin: Origin::Flow(addr.flow),
        src: addr.src,
        dst: addr.dst,
        sport: addr.sport,
        dport: addr.dport,
        protocol: Protocol::Tcp,
        priority: addr.priority,
        ..Packet::default()
    };
    let fwd = fabric.path(&pkt);
    pkt.src = addr.dst;
    pkt.dst = addr.src;
    pkt.sport = addr.dport;
    pkt.dport = addr.sport;
    pkt.reverse = true;
    let rev = fabric.path(&pkt);
    // Store-and-forward of one packet of `ip_bytes` over a path.
    let one_way = |path: &[PortId], ip_bytes: u32| -> u64 {
        path.iter()
            .map(|&p| {
                let port = fabric.port(p);
                port.delay.ps() + port.rate.tx_time(wire.wire_bytes(ip_bytes)).ps()
            })
            .sum()
    };
    let first = size.min(mss);
    let full = size / mss;
    let tail = size % mss;
    let seg_wire = |payload: u64| wire.wire_bytes(header + payload as u32);
    let all_wire = full * seg_wire(mss) + if tail > 0 { seg_wire(tail) } else { 0 };
    let rest = all_wire - seg_wire(first);
    let bottleneck = fwd
        .iter()
        .map(|&p| fabric.port(p).rate)
        .min()
        .expect("a path has at least the host's link");
    let ps = one_way(&fwd, syn)
        + one_way(&rev, syn)
        + one_way(&fwd, header + first as u32)
        + bottleneck.tx_time(rest).ps()
        + one_way(&rev, header);
    SimDuration::from_ps(ps)
}

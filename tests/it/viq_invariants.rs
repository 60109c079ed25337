//! Property tests of the ingress stage: random data and pure-ACK traffic of
//! four flows through a star whose ports run R-AQM or ABQ with random
//! parameters (small VIQs and hold limits included).
//!
//! - bytes are conserved at every instant: sent = delivered + dropped +
//!   queued + held + in flight;
//! - a VIQ never holds more than its capacity;
//! - FIFO per flow through the VIQ: a flow's ACKs reach its sender in the
//!   order the receiver sent them (and its data reach the receiver in order);
//! - every held ACK is eventually released or dropped with a counted cause:
//!   when the run ends, every VIQ is empty and held = released + aged drops.
use aqm::PortContext;
use aqm::abq::{Abq, AbqConfig};
use aqm::r_aqm::{Compensation, RAqm, RAqmConfig};
use net::{
    Fabric, FabricConfig, FlowId, HostId, IngressHook, Kind, NetEvent, Origin, Outcome, Packet,
    TcpFlags, TopologyGraph, WireFormat,
};
use proptest::prelude::*;
use sim_core::{Bandwidth, EventQueue, QueueSize, SimDuration, SimTime};

#[derive(Clone, Copy, Debug)]
enum Ev {
    Net(NetEvent),
    Send(usize),
}
impl From<NetEvent> for Ev {
    fn from(e: NetEvent) -> Self {
        Ev::Net(e)
    }
}
/// Sends after the network's events of their picosecond, by index.
impl sim_core::Tiebreak for Ev {
    fn tiebreak(&self, at: SimTime) -> u64 {
        match *self {
            Ev::Net(e) => e.tiebreak(at),
            Ev::Send(i) => sim_core::queue::tiebreak_of(200, i as u32, at),
        }
    }
}

#[derive(Clone, Debug)]
struct Case {
    /// (flow 1..=4, is an ACK, gap in ps before it).
    packets: Vec<(u32, bool, u64)>,
    raqm: bool,
    viq_pkts: u64,
    hold_us: u64,
    buffer_pkts: u64,
    k: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::collection::vec((1u32..=4, any::<bool>(), 0u64..2_000_000), 1..400),
        any::<bool>(),
        1u64..40,
        1u64..200,
        30u64..100,
        2u64..20,
    )
        .prop_map(|(packets, raqm, viq_pkts, hold_us, buffer_pkts, k)| Case {
            packets,
            raqm,
            viq_pkts,
            hold_us,
            buffer_pkts,
            k,
        })
}

fn hook(c: &Case, rate: Bandwidth) -> Box<dyn IngressHook> {
    let ctx = PortContext {
        seed: 1,
        port: 0,
        rate,
        weights: vec![1],
        strict_classes: 1,
        buffer: QueueSize::Packets(c.buffer_pkts),
        packet_time: net::WireFormat::ETHERNET.packet_time(rate),
    };
    if c.raqm {
        Box::new(RAqm::new(
            RAqmConfig {
                k_min: QueueSize::Packets(c.k),
                k_max: QueueSize::Packets(2 * c.k),
                viq_capacity: QueueSize::Packets(c.viq_pkts),
                max_age: SimDuration::from_us(c.hold_us),
                compensation: Compensation::Ece,
                ..RAqmConfig::default()
            },
            &ctx,
        ))
    } else {
        Box::new(Abq::new(
            AbqConfig {
                k: QueueSize::Packets(c.k),
                viq_capacity: QueueSize::Packets(c.viq_pkts),
                max_hold: SimDuration::from_us(c.hold_us),
                ..AbqConfig::default()
            },
            &ctx,
        ))
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn viq_invariants_hold(c in case()) {
        let g = TopologyGraph::star(5, Bandwidth::from_gbps(10), SimDuration::from_us(1));
        let cfg = FabricConfig::fifo(WireFormat::ETHERNET, QueueSize::Packets(c.buffer_pkts), u64::MAX);
        let mut f = Fabric::new(&g, cfg, |_, _, _| None).unwrap();
        f.install_ingress(|_, _, rate| Some(hook(&c, rate)));
        let mut q: EventQueue<Ev> = EventQueue::new();
        let mut t = 0;
        for (i, p) in c.packets.iter().enumerate() {
            t += p.2;
            q.schedule(SimTime(t), Ev::Send(i));
        }
        let (mut sent_bytes, mut delivered_bytes) = (0u64, 0u64);
        let mut last = std::collections::BTreeMap::new();
        while let Some((now, ev)) = q.pop() {
            match ev {
                Ev::Send(i) => {
                    let (flow, is_ack, _) = c.packets[i];
                    let (src, dst, payload) = if is_ack { (0, flow, 0) } else { (flow, 0, 1460) };
                    let pkt = Packet {
                        origin: Origin::Flow(FlowId(flow)),
                        kind: if is_ack { Kind::Ack } else { Kind::Data },
                        src: HostId(src),
                        dst: HostId(dst),
                        sport: 1000 + flow as u16,
                        dport: 80,
                        size_bytes: 40 + payload,
                        payload_bytes: payload,
                        flags: TcpFlags::ACK,
                        seq: i as u64,
                        reverse: is_ack,
                        created_at: now,
                        ..Packet::default()
                    };
                    sent_bytes += pkt.size_bytes as u64;
                    f.host_send(HostId(src), pkt, &mut q);
                }
                Ev::Net(e) => {
                    if let Outcome::Delivered { pkt, .. } = f.handle(e, &mut q) {
                        let p = *f.packets.get(pkt);
                        f.packets.free(pkt);
                        delivered_bytes += p.size_bytes as u64;
                        if let Some(prev) = last.insert((p.flow(), p.reverse), p.seq) {
                            prop_assert!(p.seq > prev, "flow {:?}: {} after {prev}", p.flow(), p.seq);
                        }
                    }
                }
            }
            let dropped: u64 = f
                .ports()
                .values()
                .map(|p| p.stats.dropped_bytes + p.ingress.stats.dropped_bytes)
                .sum();
            prop_assert_eq!(sent_bytes, delivered_bytes + dropped + f.bytes_in_network());
            prop_assert_eq!(f.packets.live(), f.packets_in_network());
            for p in f.ports().values() {
                prop_assert!(p.ingress.viq.packets() <= c.viq_pkts);
            }
        }
        let (mut held, mut full) = (0, 0);
        for p in f.ports().values() {
            let s = &p.ingress.stats;
            prop_assert_eq!(p.ingress.viq.packets(), 0, "an ACK was left in a VIQ");
            prop_assert_eq!(s.held, s.released + s.viq_drops_aged);
            prop_assert_eq!(p.ingress.priority_bytes(), [0; 8], "ingress accounting leaked");
            held += s.held;
            full += s.viq_drops_full;
        }
        // Not vacuous: R-AQM holds every pure ACK (or drops it at a full VIQ).
        if c.raqm {
            let acks = c.packets.iter().filter(|p| p.1).count() as u64;
            prop_assert_eq!(held + full, acks);
        }
    }
}

//! Property tests of switch invariants over random packet sequences, sizes,
//! classes and configurations, on a real fabric (star: 4 senders, 1 receiver).
use aqm::StepEcn;
use aqm::codel::CodelConfig;
use net::buffer::BufferPolicy;
use net::sched::Discipline;
use net::{
    Ecn, EgressAqm, Fabric, FabricConfig, FlowId, HostId, NetEvent, Origin, Outcome, Packet,
    Protocol, TopologyGraph, WireFormat,
};
use proptest::prelude::*;
use sim_core::{Bandwidth, EventQueue, QueueSize, SimDuration, SimTime};

#[derive(Clone, Copy, Debug)]
enum Ev {
    Net(NetEvent),
    Inject(usize),
}
impl From<NetEvent> for Ev {
    fn from(e: NetEvent) -> Self {
        Ev::Net(e)
    }
}
/// Injections after the network's events of their picosecond, by index.
impl sim_core::Tiebreak for Ev {
    fn tiebreak(&self, at: SimTime) -> u64 {
        match *self {
            Ev::Net(e) => e.tiebreak(at),
            Ev::Inject(i) => sim_core::queue::tiebreak_of(200, i as u32, at),
        }
    }
}

#[derive(Clone, Debug)]
struct Case {
    packets: Vec<(u32, u32, u8, u64)>, // (src 1..=4, size, priority, gap ps)
    classes: usize,
    discipline: u8,
    shared: bool,
    buffer_pkts: u64,
    k_pkts: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::collection::vec((1u32..=4, 64u32..=1500, 0u8..8, 0u64..500_000), 1..300),
        1usize..=4,
        0u8..3,
        any::<bool>(),
        4u64..60,
        1u64..40,
    )
        .prop_map(
            |(packets, classes, discipline, shared, buffer_pkts, k_pkts)| Case {
                packets,
                classes,
                discipline,
                shared,
                buffer_pkts,
                k_pkts,
            },
        )
}

/// Runs case `c` through the star under step ECN (or CoDel), checking
/// the invariants at every instant; the head drops CoDel made.
fn run_case(c: &Case, codel: bool) -> Result<u64, TestCaseError> {
    let g = TopologyGraph::star(5, Bandwidth::from_gbps(10), SimDuration::from_us(1));
    let discipline = match c.discipline {
        0 => Discipline::StrictPriority,
        1 => Discipline::Dwrr {
            quanta: vec![1500; c.classes],
        },
        _ => Discipline::Wrr {
            quanta: vec![1500; c.classes],
        },
    };
    let capacity = c.buffer_pkts * 1500;
    let buffer = if c.shared {
        BufferPolicy::Shared {
            bytes: capacity,
            dt_alpha: 1.0,
        }
    } else {
        BufferPolicy::PerPort(QueueSize::Packets(c.buffer_pkts))
    };
    let cfg = FabricConfig {
        buffer,
        discipline,
        classes: c.classes,
        class_of_priority: std::array::from_fn(|p| (p % c.classes) as u8),
        ..FabricConfig::fifo(WireFormat::ETHERNET, QueueSize::Packets(1), u64::MAX)
    };
    let k = c.k_pkts;
    let mut f = Fabric::new(&g, cfg, |_, _, _| {
        let aqm: Box<dyn EgressAqm> = if codel {
            // Scaled so that a few packets' sojourn exceeds target for an
            // interval: CoDel drops at the head within a case.
            Box::new(
                CodelConfig {
                    target: SimDuration::from_ns(500),
                    interval: SimDuration::from_us(5),
                    maxpacket_bytes: 1500,
                    ecn: false,
                }
                .build(&aqm::PortContext {
                    seed: 1,
                    port: 0,
                    rate: Bandwidth::from_gbps(10),
                    weights: vec![1; c.classes],
                    strict_classes: 0,
                    buffer: QueueSize::Packets(c.buffer_pkts),
                    packet_time: SimDuration::from_ns(1230),
                }),
            )
        } else {
            Box::new(StepEcn {
                k: QueueSize::Packets(k),
                non_ect: aqm::NonEct::Pass,
            })
        };
        Some(aqm)
    })
    .expect("a star builds");
    let mut q: EventQueue<Ev> = EventQueue::new();
    let mut t = 0;
    for (i, p) in c.packets.iter().enumerate() {
        t += p.3;
        q.schedule(SimTime(t), Ev::Inject(i));
    }
    let out = f.port_towards_host(HostId(0));
    let (mut injected, mut delivered) = (0u64, 0u64);
    let (mut injected_bytes, mut delivered_bytes) = (0u64, 0u64);
    let mut last_seq = std::collections::BTreeMap::new();
    while let Some((now, ev)) = q.pop() {
        match ev {
            Ev::Inject(i) => {
                let (src, size, prio, _) = c.packets[i];
                let pkt = Packet {
                    origin: Origin::Flow(FlowId(src)),
                    src: HostId(src),
                    dst: HostId(0),
                    size_bytes: size,
                    priority: prio,
                    seq: i as u64,
                    protocol: Protocol::Udp,
                    ecn: Ecn::Ect0,
                    created_at: now,
                    ..Packet::default()
                };
                f.host_send(HostId(src), pkt, &mut q);
                injected += 1;
                injected_bytes += size as u64;
            }
            Ev::Net(e) => {
                if let Outcome::Delivered { pkt, .. } = f.handle(e, &mut q) {
                    let p = *f.packets.get(pkt);
                    f.packets.free(pkt);
                    delivered += 1;
                    delivered_bytes += p.size_bytes as u64;
                    // FIFO within a class: one source's packets of one class
                    // leave in the order they arrived.
                    let key = (p.src, p.priority as usize % c.classes);
                    if let Some(prev) = last_seq.insert(key, p.seq) {
                        prop_assert!(p.seq > prev, "{key:?}: {} after {prev}", p.seq);
                    }
                }
            }
        }
        // Conservation at every instant: nothing appears or vanishes.
        let dropped: u64 = f.ports().values().map(|p| p.stats.drops()).sum();
        let in_network = f.packets_in_network() as u64;
        prop_assert_eq!(injected, delivered + dropped + in_network);
        prop_assert_eq!(f.packets.live() as u64, in_network);
        let dropped_bytes: u64 = f.ports().values().map(|p| p.stats.dropped_bytes).sum();
        prop_assert_eq!(
            injected_bytes,
            delivered_bytes + dropped_bytes + f.bytes_in_network()
        );
        // Occupancy never exceeds the buffer.
        let port = f.port(out);
        if c.shared {
            prop_assert!(f.shared_buffer(port.node).used <= capacity);
        } else {
            prop_assert!(port.packets <= c.buffer_pkts);
        }
        // Step ECN: at most (packets - K) marks can have been made above K.
        let marks = port.stats.ecn_marks;
        prop_assert!(
            codel || port.stats.max_packets > k || marks == 0,
            "marked at or below K = {k}"
        );
        // CoDel drops only at the head, and marks nothing without ECN.
        prop_assert!(!codel || (marks == 0 && port.stats.drops_aqm == 0));
        prop_assert!(codel || port.stats.drops_aqm_dequeue == 0);
    }
    prop_assert_eq!(injected as usize, c.packets.len());
    // Everything left the network: delivered or dropped.
    prop_assert_eq!(f.packets_in_network(), 0);
    Ok(f.ports().values().map(|p| p.stats.drops_aqm_dequeue).sum())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn switch_invariants_hold(c in case()) {
        run_case(&c, false)?;
    }

    /// A head drop (CoDel) keeps every invariant: conservation, FIFO order
    /// within a class, the buffer bound, and the queue drains.
    #[test]
    fn head_drops_keep_the_switch_invariants(c in case()) {
        run_case(&c, true)?;
    }
}

/// The CoDel cases do drop at the head: a burst from four senders stands
/// in the queue for more than an interval.
#[test]
fn a_standing_burst_is_head_dropped() {
    let burst = Case {
        packets: (0..200).map(|i| (1 + i % 4, 1500, 0, 100_000)).collect(),
        classes: 1,
        discipline: 0,
        shared: false,
        buffer_pkts: 59,
        k_pkts: 10,
    };
    let drops = run_case(&burst, true).expect("invariants hold");
    assert!(drops > 0, "no head drop");
}

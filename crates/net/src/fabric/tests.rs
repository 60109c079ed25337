//! Tests of the fabric: timing, drops, routing shapes.
use super::*;
use crate::topology::{TopologyError, TopologyGraph};
use sim_core::Bandwidth;
use sim_core::SimDuration;

/// The fabric tests' event: a network event in a queue of its own (the
/// PFC tests use it too).
#[derive(Clone, Copy, Debug)]
pub(super) struct Ev(pub(super) NetEvent);
impl From<NetEvent> for Ev {
    fn from(e: NetEvent) -> Self {
        Ev(e)
    }
}
impl sim_core::Tiebreak for Ev {
    fn tiebreak(&self, at: sim_core::SimTime) -> u64 {
        self.0.tiebreak(at)
    }
}

fn fabric(graph: &TopologyGraph, buffer: QueueSize) -> Fabric {
    let cfg = FabricConfig::fifo(WireFormat::ETHERNET, buffer, 1 << 20);
    Fabric::new(graph, cfg, |_, _, _| None).unwrap()
}

fn data(src: u32, dst: u32, size: u32) -> Packet {
    Packet {
        src: HostId(src),
        dst: HostId(dst),
        size_bytes: size,
        ..Default::default()
    }
}

/// Runs to completion, returning (arrival time, host, seq) per delivery.
fn drain(f: &mut Fabric, q: &mut EventQueue<Ev>) -> Vec<(SimTime, HostId, u64)> {
    let mut out = Vec::new();
    while let Some((t, Ev(e))) = q.pop() {
        if let Outcome::Delivered { host, pkt } = f.handle(e, q) {
            out.push((t, host, f.packets.get(pkt).seq));
            f.packets.free(pkt);
        }
    }
    out
}

#[test]
fn store_and_forward_timing_is_exact() {
    let g = TopologyGraph::star(2, Bandwidth::from_gbps(10), SimDuration::from_us(1));
    let mut f = fabric(&g, QueueSize::Packets(100));
    let mut q = EventQueue::new();
    f.host_send(
        HostId(0),
        Packet {
            seq: 1,
            ..data(0, 1, 1500)
        },
        &mut q,
    );
    f.host_send(
        HostId(0),
        Packet {
            seq: 2,
            ..data(0, 1, 1500)
        },
        &mut q,
    );
    let got = drain(&mut f, &mut q);
    // 1538 wire bytes at 10 Gb/s = 1230.4 ns per hop, + 1 us per link, two hops.
    let hop = 1_230_400 + 1_000_000;
    assert_eq!(
        got,
        vec![
            (SimTime(2 * hop), HostId(1), 1),
            (SimTime(2 * hop + 1_230_400), HostId(1), 2)
        ]
    );
    assert_eq!(f.hops, 4);
    assert_eq!(f.packets.live(), 0);
}

#[test]
fn droptail_drops_beyond_the_buffer() {
    // Two senders into one receiver: the switch port to host 2 overflows.
    let g = TopologyGraph::star(3, Bandwidth::from_gbps(10), SimDuration::from_us(1));
    let mut f = fabric(&g, QueueSize::Packets(3));
    let mut q = EventQueue::new();
    for s in 0..10 {
        f.host_send(
            HostId(0),
            Packet {
                seq: s,
                ..data(0, 2, 1500)
            },
            &mut q,
        );
        f.host_send(
            HostId(1),
            Packet {
                seq: 100 + s,
                ..data(1, 2, 1500)
            },
            &mut q,
        );
    }
    let got = drain(&mut f, &mut q);
    let out = f.port_towards_host(HostId(2));
    let st = &f.port(out).stats;
    assert!(st.drops_overflow > 0);
    assert_eq!(got.len() as u64 + st.drops_overflow, 20);
    assert!(st.max_packets <= 3);
    assert_eq!(f.packets.live(), 0);
}

/// Data and ACKs of every flow take exactly reverse paths (R-AQM, ABQ and
/// FairQ depend on it), on every topology shape.
#[test]
fn acks_take_the_reverse_of_the_data_path_on_every_topology() {
    let r = Bandwidth::from_gbps(10);
    let d = SimDuration::from_us(1);
    let graphs = [
        ("star", TopologyGraph::star(8, r, d)),
        ("dumbbell", TopologyGraph::dumbbell(3, 3, r, d, r, d)),
        ("leaf-spine", TopologyGraph::leaf_spine(4, 3, 3, r, r, d)),
        (
            "fat-tree",
            TopologyGraph::three_tier(5, 4, 4, 16, 2, r, Bandwidth::from_gbps(40), d),
        ),
        ("k-ary", TopologyGraph::k_ary_fat_tree(4, r, d)),
        ("rail-optimised", rails(4)),
        ("rail-optimised, shared NICs", rails(2)),
    ];
    for (name, g) in graphs {
        let f = fabric(&g, QueueSize::Packets(10));
        let n = f.host_count() as u32;
        let mut cores_used = std::collections::BTreeSet::new();
        for i in 0..400u32 {
            let (src, dst) = (i % n, (i * 7 + 3) % n);
            if src == dst {
                continue;
            }
            let data = Packet {
                sport: 1000 + i as u16,
                dport: 80,
                ..data(src, dst, 1500)
            };
            let ack = Packet {
                src: data.dst,
                dst: data.src,
                sport: data.dport,
                dport: data.sport,
                ..data
            };
            let fwd = f.path(&data);
            let back = f.path(&ack);
            let mirrored: Vec<PortId> = fwd.iter().rev().map(|p| f.port(*p).peer).collect();
            assert_eq!(
                back, mirrored,
                "{name}: flow {src}->{dst} port {}",
                data.sport
            );
            if fwd.len() == 6 {
                cores_used.insert(f.port(fwd[2]).peer); // the core-facing hop
            }
        }
        if name == "fat-tree" {
            // Path diversity: the tier-salted hash spreads flows over the cores.
            assert!(
                cores_used.len() >= 12,
                "only {} of 16 cores used",
                cores_used.len()
            );
        }
    }
}

/// 4 servers of 4 GPUs in groups of 2, `nics` NICs each, 2 spines.
fn rails(nics: u32) -> TopologyGraph {
    TopologyGraph::rail_optimised(&crate::topology::Rails {
        servers: 4,
        gpus_per_server: 4,
        rails: nics,
        servers_per_group: 2,
        spines: 2,
        nvlink_rate: Bandwidth::from_gbps(900),
        nvlink_delay: SimDuration::from_ns(100),
        nic_rate: Bandwidth::from_gbps(100),
        fabric_rate: Bandwidth::from_gbps(100),
        link_delay: SimDuration::from_us(1),
    })
}

#[test]
fn a_gpu_reaches_its_server_by_nvlink_and_others_by_its_own_rail() {
    let f = fabric(&rails(4), QueueSize::Packets(10));
    // GPU 1 to GPU 3 of its server: its NVLink, the NVSwitch's port down.
    let inside = f.path(&data(1, 3, 1500));
    assert_eq!(f.link_towards(HostId(1), HostId(3)), HostLink::ScaleUp);
    assert_eq!(inside[0], f.host_link_port(HostId(1), HostLink::ScaleUp));
    assert_eq!(inside.len(), 2);
    assert_eq!(
        f.port(inside[1]).peer,
        f.host_link_port(HostId(3), HostLink::ScaleUp)
    );
    // GPU 1 to GPU 1 of server 1 (group 0): its NIC, leaf 1, down.
    let rail = f.path(&data(1, 5, 1500));
    assert_eq!(rail[0], f.host_port(HostId(1)));
    assert_eq!(rail.len(), 2);
    // GPU 1 to GPU 2 of server 1: its NIC, leaf 1, a spine, leaf 2.
    assert_eq!(f.path(&data(1, 6, 1500)).len(), 4);
    // A host that is no GPU has no NVLink.
    let plain = fabric(
        &TopologyGraph::star(4, Bandwidth::from_gbps(10), SimDuration::from_us(1)),
        QueueSize::Packets(10),
    );
    assert!(!plain.has_scale_up());
    assert_eq!(plain.link_towards(HostId(0), HostId(1)), HostLink::Nic);
}

#[test]
fn fat_tree_shapes_are_as_documented() {
    let r = Bandwidth::from_gbps(10);
    let g = TopologyGraph::three_tier(
        5,
        4,
        4,
        16,
        16,
        r,
        Bandwidth::from_gbps(40),
        SimDuration::from_us(1),
    );
    assert_eq!(g.host_count(), 320);
    assert_eq!(g.nodes.len(), 320 + 20 + 20 + 16);
    let f = fabric(&g, QueueSize::Packets(10));
    // Hosts in different pods: host-ToR-agg-core-agg-ToR-host, 6 links,
    // so the base RTT is 12 us of propagation at 1 us per link.
    let p = Packet {
        sport: 5,
        dport: 6,
        ..data(0, 319, 1500)
    };
    assert_eq!(f.path(&p).len(), 6);
    let k = TopologyGraph::k_ary_fat_tree(8, r, SimDuration::from_us(1));
    assert_eq!(k.host_count(), 128);
    assert_eq!(k.nodes.len() - 128, 8 * 8 + 16);
}

#[test]
fn disconnected_topology_is_an_error() {
    let mut g = TopologyGraph::star(2, Bandwidth::from_gbps(10), SimDuration::from_us(1));
    let h = g.add_node(NodeKind::Host);
    let s = g.add_node(NodeKind::Switch { tier: 1 });
    g.connect(h, s, Bandwidth::from_gbps(10), SimDuration::from_us(1));
    let cfg = FabricConfig::fifo(WireFormat::NONE, QueueSize::Packets(1), 1);
    let e = Fabric::new(&g, cfg, |_, _, _| None).err().unwrap();
    assert!(matches!(e, TopologyError::Disconnected { .. }), "{e}");
}

#[test]
fn dumbbell_routes_over_the_bottleneck() {
    let r = Bandwidth::from_gbps(10);
    let d = SimDuration::from_us(1);
    let g = TopologyGraph::dumbbell(2, 2, r, d, Bandwidth::from_gbps(1), d);
    let mut f = fabric(&g, QueueSize::Packets(100));
    let mut q = EventQueue::new();
    f.host_send(HostId(0), data(0, 3, 1500), &mut q);
    f.host_send(HostId(3), data(3, 1, 1500), &mut q);
    let got = drain(&mut f, &mut q);
    let hosts: Vec<HostId> = got.iter().map(|g| g.1).collect();
    assert_eq!(hosts.len(), 2);
    assert!(hosts.contains(&HostId(3)) && hosts.contains(&HostId(1)));
    assert_eq!(f.hops, 6);
}

/// A scripted ingress hook: holds pure ACKs until `release_at`, in a VIQ of
/// two packets, and marks ECE on release.
struct HoldUntil {
    release_at: SimTime,
}

impl crate::ingress::IngressHook for HoldUntil {
    fn viq_capacity(&self) -> QueueSize {
        QueueSize::Packets(2)
    }
    fn on_arrival(
        &mut self,
        _now: SimTime,
        _view: &crate::ingress::IngressView,
        pkt: &mut Packet,
    ) -> crate::ingress::Arrival {
        if pkt.is_ack() {
            crate::ingress::Arrival::Hold
        } else {
            crate::ingress::Arrival::Forward
        }
    }
    fn poll(
        &mut self,
        now: SimTime,
        _view: &crate::ingress::IngressView,
    ) -> crate::ingress::ViqAction {
        if now >= self.release_at {
            crate::ingress::ViqAction::Release
        } else {
            crate::ingress::ViqAction::Wait
        }
    }
    fn on_release(&mut self, _now: SimTime, _view: &crate::ingress::IngressView, pkt: &mut Packet) {
        pkt.flags = pkt.flags | crate::packet::TcpFlags::ECE;
    }
    fn next_timer(&self, view: &crate::ingress::IngressView) -> Option<SimTime> {
        view.head_held_at.map(|_| self.release_at)
    }
}

#[test]
fn ingress_hook_holds_releases_by_timer_and_drops_when_full() {
    let g = TopologyGraph::star(2, Bandwidth::from_gbps(10), SimDuration::from_us(1));
    let mut f = fabric(&g, QueueSize::Packets(100));
    let release_at = SimTime(50_000_000); // 50 us
    f.install_ingress(|_, _, _| Some(Box::new(HoldUntil { release_at })));
    let mut q = EventQueue::new();
    let ack = |seq| Packet {
        seq,
        flags: crate::packet::TcpFlags::ACK,
        kind: crate::packet::Kind::Ack,
        size_bytes: 40,
        ..data(1, 0, 40)
    };
    for s in 0..3 {
        f.host_send(HostId(1), ack(s), &mut q);
    }
    f.host_send(HostId(1), data(1, 0, 1500), &mut q); // not an ACK: passes
    let mut got = Vec::new();
    while let Some((t, Ev(e))) = q.pop() {
        if let Outcome::Delivered { pkt, .. } = f.handle(e, &mut q) {
            let p = *f.packets.get(pkt);
            got.push((t, p.seq, p.flags.has(crate::packet::TcpFlags::ECE)));
            f.packets.free(pkt);
        }
    }
    // The data packet first; then the two held ACKs, in order, with ECE, one
    // 84 B frame time (67.2 ns) apart after the release at 50 us + 1 hop.
    let hop = 67_200 + 1_000_000;
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!((got[0].1, got[0].2), (0, false));
    assert_eq!(got[1], (SimTime(release_at.0 + hop), 0, true));
    assert_eq!(got[2], (SimTime(release_at.0 + hop + 67_200), 1, true));
    let port = f.port_towards_host(HostId(1));
    let st = &f.port(port).ingress.stats;
    assert_eq!((st.held, st.released, st.viq_drops_full), (2, 2, 1));
    assert_eq!(f.port(port).ingress.priority_bytes(), [0; 8]);
    assert_eq!(f.packets.live(), 0);
}

/// Runs to completion, returning (arrival time, host, seq, kind) per delivery.
fn drain_kinds(f: &mut Fabric, q: &mut EventQueue<Ev>) -> Vec<(SimTime, u64, Kind)> {
    let mut out = Vec::new();
    while let Some((t, Ev(e))) = q.pop() {
        if let Outcome::Delivered { pkt, .. } = f.handle(e, q) {
            let p = f.packets.get(pkt);
            out.push((t, p.seq, p.kind));
            f.packets.free(pkt);
        }
    }
    out
}

#[test]
fn a_trimming_port_cuts_what_it_cannot_hold_and_sends_headers_first() {
    // Two senders at line rate into one receiver port of 3 packets: what
    // droptail drops is trimmed to 64 B instead, and each header leaves
    // ahead of the data queued before it.
    let g = TopologyGraph::star(3, Bandwidth::from_gbps(10), SimDuration::from_us(1));
    let mut cfg = FabricConfig::fifo(WireFormat::ETHERNET, QueueSize::Packets(3), 1 << 20);
    cfg.trim = Some(TrimConfig {
        header_bytes: 64,
        threshold: None,
        header_queue_bytes: TRIM_HEADER_QUEUE_BYTES,
    });
    let mut f = Fabric::new(&g, cfg, |_, _, _| None).unwrap();
    let mut q = EventQueue::new();
    for s in 0..10 {
        for (h, base) in [(0, 0), (1, 100)] {
            let pkt = Packet {
                seq: base + s,
                kind: Kind::Data,
                payload_bytes: 1448,
                ecn: Ecn::Ect0,
                ..data(h, 2, 1500)
            };
            f.host_send(HostId(h), pkt, &mut q);
        }
    }
    let got = drain_kinds(&mut f, &mut q);
    let out = f.port_towards_host(HostId(2));
    let trimmed = f.trimmed(out);
    assert!(trimmed > 0);
    assert_eq!(f.port(out).stats.drops(), 0, "nothing dropped");
    assert_eq!(got.len(), 20, "every packet, whole or as a header");
    let headers: Vec<_> = got.iter().filter(|g| g.2 == Kind::Trimmed).collect();
    assert_eq!(headers.len() as u64, trimmed);
    // The first header overtakes the data that was queued when it was cut.
    let first_header = got.iter().position(|g| g.2 == Kind::Trimmed).unwrap();
    assert!(first_header < 5, "{got:?}");
    assert_eq!(f.packets.live(), 0);
    assert_eq!(f.bytes_in_network(), 0);
}

#[test]
fn header_priority_without_trimming_sends_header_only_packets_first() {
    // Hosts 0 and 1 each send 10 data packets to host 2 at once, then host
    // 1 a UEC ACK: the switch port towards host 2 queues about 10 data
    // packets when the ACK arrives. With header priority (and no
    // trimming) a header-only ACK overtakes them; without, it leaves
    // last; an ACK not marked header-only waits either way.
    let run = |priority: bool, header_only: bool| {
        let g = TopologyGraph::star(3, Bandwidth::from_gbps(10), SimDuration::from_us(1));
        let mut cfg = FabricConfig::fifo(WireFormat::ETHERNET, QueueSize::Packets(100), 1 << 20);
        cfg.header_priority = priority;
        let mut f = Fabric::new(&g, cfg, |_, _, _| None).unwrap();
        let mut q = EventQueue::new();
        for s in 0..10 {
            for h in [0, 1] {
                let pkt = Packet {
                    seq: s,
                    kind: Kind::Data,
                    payload_bytes: 1448,
                    ..data(h, 2, 1500)
                };
                f.host_send(HostId(h), pkt, &mut q);
            }
        }
        let mut ack = Packet {
            seq: 99,
            kind: Kind::Ack,
            ..data(1, 2, 64)
        };
        ack.feedback.header_only = header_only;
        f.host_send(HostId(1), ack, &mut q);
        let got = drain_kinds(&mut f, &mut q);
        assert_eq!(f.trimmed(f.port_towards_host(HostId(2))), 0);
        assert_eq!(got.len(), 21);
        got.iter().position(|g| g.2 == Kind::Ack).unwrap()
    };
    let first = run(true, true);
    assert!(first < 14, "the ACK left {first}th of 21");
    assert_eq!(run(false, true), 20);
    assert_eq!(run(true, false), 20);
}

#[test]
fn a_trimming_port_drops_what_its_header_queue_cannot_hold() {
    let g = TopologyGraph::star(3, Bandwidth::from_gbps(10), SimDuration::from_us(1));
    let mut cfg = FabricConfig::fifo(WireFormat::ETHERNET, QueueSize::Packets(1), 1 << 20);
    cfg.trim = Some(TrimConfig {
        header_bytes: 64,
        threshold: None,
        header_queue_bytes: 64,
    });
    let mut f = Fabric::new(&g, cfg, |_, _, _| None).unwrap();
    let mut q = EventQueue::new();
    for s in 0..20 {
        for h in [0, 1] {
            let pkt = Packet {
                seq: s,
                kind: Kind::Data,
                payload_bytes: 1448,
                ..data(h, 2, 1500)
            };
            f.host_send(HostId(h), pkt, &mut q);
        }
    }
    let got = drain_kinds(&mut f, &mut q);
    let out = f.port_towards_host(HostId(2));
    let drops = f.port(out).stats.drops();
    assert!(drops > 0 && f.trimmed(out) > 0);
    assert_eq!(got.len() as u64 + drops, 40);
}

#[test]
fn a_failed_link_loses_what_is_on_it_and_what_is_sent_after() {
    // Host 0 sends 10 packets, one every 2 us, over a dumbbell whose
    // bottleneck goes down at 9 us: those still on the wire then, and
    // all sent later, are lost.
    let r = Bandwidth::from_gbps(10);
    let d = SimDuration::from_us(1);
    let g = TopologyGraph::dumbbell(1, 1, r, d, r, d);
    let bottleneck = g
        .cables
        .iter()
        .position(|c| g.nodes[c.a.idx()] != NodeKind::Host && g.nodes[c.b.idx()] != NodeKind::Host)
        .unwrap();
    let mut cfg = FabricConfig::fifo(WireFormat::ETHERNET, QueueSize::Packets(100), 1 << 20);
    cfg.faults = vec![LinkFault {
        cable: bottleneck,
        at: SimTime(9_000_000),
        kind: FaultKind::Down,
        reroute_after: None,
        only_from: None,
        buffer_scales: false,
    }];
    let mut f = Fabric::new(&g, cfg, |_, _, _| None).unwrap();
    let mut q: EventQueue<Ev> = EventQueue::new();
    f.schedule_faults(&mut q, |_| true);
    let mut got = Vec::new();
    for s in 0..10u64 {
        let at = SimTime(s * 2_000_000);
        while q.peek_time().is_some_and(|t| t <= at) {
            let (t, Ev(e)) = q.pop().unwrap();
            if let Outcome::Delivered { pkt, .. } = f.handle(e, &mut q) {
                got.push((t, f.packets.get(pkt).seq));
                f.packets.free(pkt);
            }
        }
        q.advance_to(at);
        let pkt = Packet {
            seq: s,
            ..data(0, 1, 1500)
        };
        f.host_send(HostId(0), pkt, &mut q);
    }
    got.extend(drain(&mut f, &mut q).into_iter().map(|(t, _, s)| (t, s)));
    // A packet sent at 2s us reaches the bottleneck's far end at 2s +
    // 2 x (1.2304 + 1) us: packets 0..=2 arrive by 9 us.
    let seqs: Vec<u64> = got.iter().map(|g| g.1).collect();
    assert_eq!(seqs, vec![0, 1, 2]);
    let lost: u64 = (0..f.ports().len() as u32)
        .map(|p| f.lost_on_link(PortId(p)))
        .sum();
    assert_eq!(lost, 7);
    assert_eq!(f.packets.live(), 0);
}

#[test]
fn a_link_degraded_one_way_from_the_start_is_built_slow_with_its_buffer_scaled() {
    let r = Bandwidth::from_gbps(10);
    let d = SimDuration::from_us(1);
    let g = TopologyGraph::dumbbell(1, 1, r, d, r, d);
    let bottleneck = g
        .cables
        .iter()
        .position(|c| g.nodes[c.a.idx()] != NodeKind::Host && g.nodes[c.b.idx()] != NodeKind::Host)
        .unwrap();
    let from = g.cables[bottleneck].a;
    let fault = |buffer_scales| LinkFault {
        cable: bottleneck,
        at: SimTime::ZERO,
        kind: FaultKind::Degrade(0.25),
        reroute_after: None,
        only_from: Some(from),
        buffer_scales,
    };
    let mut cfg = FabricConfig::fifo(WireFormat::ETHERNET, QueueSize::Bytes(100_000), 1 << 20);
    cfg.faults = vec![fault(true)];
    let mut seen = Vec::new();
    let f = Fabric::new(&g, cfg.clone(), |p, _, rate| {
        seen.push((p, rate));
        None
    })
    .unwrap();
    let (a, b) = cable_ports(bottleneck);
    assert_eq!(f.port(a).node, from);
    assert_eq!(
        (f.port(a).rate, f.port(a).buffer),
        (Bandwidth::from_bps(2_500_000_000), QueueSize::Bytes(25_000))
    );
    assert_eq!(
        (f.port(b).rate, f.port(b).buffer),
        (r, QueueSize::Bytes(100_000)),
        "the other way is untouched"
    );
    assert!(
        seen.contains(&(a, Bandwidth::from_bps(2_500_000_000))),
        "the AQM is made for the slow rate"
    );
    cfg.faults = vec![fault(false)];
    let f = Fabric::new(&g, cfg, |_, _, _| None).unwrap();
    assert_eq!(
        f.port(a).buffer,
        QueueSize::Bytes(100_000),
        "without buffer_scales the bytes stay"
    );
}

#[test]
fn planes_copy_the_switches_and_give_each_host_a_nic_that_never_is_a_transit() {
    let r = Bandwidth::from_gbps(100);
    let d = SimDuration::from_us(1);
    let one = TopologyGraph::leaf_spine(2, 2, 2, r, r, d);
    let g = one.clone().planes(2);
    let (hosts, switches) = (one.host_count(), one.nodes.len() - one.host_count());
    assert_eq!(
        g.nodes.len(),
        hosts + hosts + 2 * switches,
        "hosts, NICs, two planes"
    );
    assert!(g.nodes[hosts..2 * hosts].iter().all(|k| *k
        == NodeKind::Switch {
            tier: crate::topology::NIC_TIER
        }));
    // A host's one cable runs at twice the rate with no delay; its NIC has
    // a cable to its leaf in each plane.
    let host_cable = g.cables.iter().find(|c| c.a == NodeId(0)).unwrap();
    assert_eq!(
        (host_cable.b, host_cable.rate, host_cable.delay),
        (
            NodeId(hosts as u32),
            Bandwidth::from_gbps(200),
            SimDuration::ZERO
        )
    );
    let nic_cables = g
        .cables
        .iter()
        .filter(|c| c.a == NodeId(hosts as u32) || c.b == NodeId(hosts as u32))
        .count();
    assert_eq!(nic_cables, 3);
    assert_eq!(
        one.clone().planes(1),
        one,
        "one plane is the fabric as it is"
    );
    let f = Fabric::new(
        &g,
        FabricConfig::fifo(WireFormat::ETHERNET, QueueSize::Packets(100), 1 << 20),
        |_, _, _| None,
    )
    .unwrap();
    assert_eq!(f.nic_planes(HostId(0)), 2);
    // Host 0's NIC's ports act as a NIC's: no buffer limit.
    let nic_up = f
        .ports()
        .values()
        .find(|p| p.node == NodeId(hosts as u32) && p.peer_node != NodeId(0))
        .unwrap();
    assert!(!nic_up.at_switch && nic_up.buffer == QueueSize::Bytes(u64::MAX));
    // From a leaf of plane 0, host 1 (on the same leaf) is reached through
    // its own NIC, never through host 0's.
    let leaf0_p0 = NodeId(2 * hosts as u32);
    let hops = f.routes().next_hops(leaf0_p0, HostId(1));
    assert_eq!(hops.len(), 1);
    assert_eq!(f.port(hops[0]).peer_node, NodeId(hosts as u32 + 1));
}

#[test]
fn a_trimming_threshold_applies_at_switches_not_at_a_hosts_nic() {
    // One host sends 20 packets at once into its NIC, whose queue passes
    // the 2-packet threshold at once; the switch port ahead of the
    // receiver never does (same rate, one sender). Nothing is trimmed:
    // the NIC's queue is the host's.
    let g = TopologyGraph::star(2, Bandwidth::from_gbps(10), SimDuration::from_us(1));
    let mut cfg = FabricConfig::fifo(WireFormat::ETHERNET, QueueSize::Packets(100), 1 << 20);
    cfg.trim = Some(TrimConfig {
        header_bytes: 64,
        threshold: Some(QueueSize::Packets(2)),
        header_queue_bytes: TRIM_HEADER_QUEUE_BYTES,
    });
    let mut f = Fabric::new(&g, cfg, |_, _, _| None).unwrap();
    let mut q = EventQueue::new();
    for s in 0..20 {
        let pkt = Packet {
            seq: s,
            kind: Kind::Data,
            payload_bytes: 1448,
            ..data(0, 1, 1500)
        };
        f.host_send(HostId(0), pkt, &mut q);
    }
    let got = drain_kinds(&mut f, &mut q);
    assert_eq!(f.trimmed(f.host_port(HostId(0))), 0);
    assert!(got.iter().all(|g| g.2 == Kind::Data), "{got:?}");
    assert_eq!(got.len(), 20);
}

/// An LP's copy of a cut fabric holds exactly its own nodes' ports, each
/// found by its id, and the copies together hold each port of the whole
/// fabric once, as the whole fabric builds it.
#[test]
fn lp_copies_hold_their_own_ports_and_together_the_whole() {
    let us = SimDuration::from_ps(1_000_000);
    let g = TopologyGraph::k_ary_fat_tree(4, Bandwidth::from_gbps(10), us);
    let cut = crate::Partition::by_pods(&g, 4).expect("delays");
    let cfg = FabricConfig::fifo(WireFormat::ETHERNET, QueueSize::Packets(10), 1 << 20);
    let shared = Fabric::shared(&g, &cfg).unwrap();
    let copies: Vec<Fabric> = (0..cut.lps)
        .map(|me| Fabric::new_lp(&g, cfg.clone(), (&cut, me), &shared, |_, _, _| None).unwrap())
        .collect();
    let n = 2 * g.cables.len();
    let mut held = vec![0; n];
    for (me, f) in copies.iter().enumerate() {
        assert_eq!(f.ports().len(), n);
        for (p, port) in f.ports().iter() {
            assert_eq!(cut.lp(port.node), me as u32, "{p} held by LP {me}");
            assert_eq!(port.node, f.port_facts(p).node);
            held[p.idx()] += 1;
        }
        assert!(!f.ports().is_whole());
    }
    assert!(
        held.iter().all(|&h| h == 1),
        "each port held once: {held:?}"
    );
    let whole = fabric(&g, QueueSize::Packets(10));
    for f in &copies {
        for (p, port) in f.ports().iter() {
            let w = whole.port(p);
            assert_eq!((port.node, port.peer, port.rate), (w.node, w.peer, w.rate));
            assert_eq!(f.port(p).node, port.node, "{p} found by id");
        }
    }
}

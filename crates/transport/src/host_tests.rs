//! The host's NIC pump against a stub world ([`HostIo`]): the order in
//! which ready flows send under each discipline, and the ephemeral ports.

use super::*;
use crate::family::{Family, PlannedFlow};
use crate::homa::HomaConfig;
use crate::{FlowAddr, PathInfo, TransportConfig};
use net::{FlowId, WireFormat};
use sim_core::{Bandwidth, SimDuration};

/// A stub world: flows' senders, a NIC that takes packets while `room`
/// says so, and the flows in the order their packets left.
struct Stub {
    flows: Vec<(Sender, bool)>,
    /// Room per priority (0 and 1).
    room: [bool; 2],
    /// Packets the NIC takes before it is full.
    budget: usize,
    /// The flows that send by NVLink, and the packets it takes before
    /// it is full.
    scale_up: Vec<u32>,
    scale_up_budget: usize,
    sent: Vec<u32>,
    rearmed: usize,
}

impl HostIo for Stub {
    fn sender(&self, f: u32) -> &Sender {
        &self.flows[f as usize].0
    }
    fn sender_mut(&mut self, f: u32) -> (&mut Sender, &mut bool) {
        let (s, r) = &mut self.flows[f as usize];
        (s, r)
    }
    fn link_of(&self, f: u32) -> HostLink {
        if self.scale_up.contains(&f) {
            HostLink::ScaleUp
        } else {
            HostLink::Nic
        }
    }
    fn nic_room(&self, link: HostLink, _at_the_wire: bool, prio: u8) -> bool {
        match link {
            HostLink::Nic => self.budget > 0 && self.room[prio as usize],
            HostLink::ScaleUp => self.scale_up_budget > 0,
        }
    }
    fn nic_busy(&self, link: HostLink) -> bool {
        match link {
            HostLink::Nic => self.budget == 0,
            HostLink::ScaleUp => self.scale_up_budget == 0,
        }
    }
    fn send(&mut self, f: u32, _p: Packet) {
        match self.link_of(f) {
            HostLink::Nic => self.budget -= 1,
            HostLink::ScaleUp => self.scale_up_budget -= 1,
        }
        self.sent.push(f);
    }
    fn rearm(&mut self, _f: u32) {
        self.rearmed += 1;
    }
}

/// A 10 Gb/s path of 10 us base RTT.
fn test_path() -> PathInfo {
    PathInfo {
        line_rate: Bandwidth::from_gbps(10),
        rx_line_rate: Bandwidth::from_gbps(10),
        wire: WireFormat::ETHERNET,
        base_rtt: SimDuration::from_us(10),
        bdp_bytes: 12_500,
        src_clock_offset: SimDuration::ZERO,
        dst_clock_offset: SimDuration::ZERO,
        stream_seed: 0,
    }
}

/// Homa flows of `sizes` bytes from host 0, flow `i` at priority `prios[i]`.
fn stub(sizes: &[u64], prios: &[u8], budget: usize) -> Stub {
    let mut cfg = HomaConfig::default();
    cfg.prepare(10_000, sizes);
    let cfg = TransportConfig::Homa(cfg);
    let path = test_path();
    let flows = sizes
        .iter()
        .zip(prios)
        .enumerate()
        .map(|(i, (&size, &priority))| {
            let addr = FlowAddr {
                flow: FlowId(i as u32),
                src: HostId(0),
                dst: HostId(1),
                sport: 1000 + i as u16,
                dport: 5001,
                priority,
            };
            let mut s = cfg.sender(addr, size, &path);
            s.start(SimTime::ZERO, &mut Vec::new());
            (s, false)
        })
        .collect();
    Stub {
        flows,
        room: [true; 2],
        budget,
        scale_up: Vec::new(),
        scale_up_budget: 0,
        sent: Vec::new(),
        rearmed: 0,
    }
}

fn offer_all(h: &mut Host, io: &mut Stub) {
    for f in 0..io.flows.len() as u32 {
        h.offer(SimTime::ZERO, f, io);
    }
}

#[test]
fn round_robin_takes_turns_and_the_head_waits_for_room() {
    let mut io = stub(&[100_000; 3], &[0, 1, 0], 7);
    let mut h = Host::new(HostId(0), false);
    h.add_sender(true, NicDiscipline::RoundRobin);
    offer_all(&mut h, &mut io);
    h.pump(SimTime::ZERO, &mut io);
    assert_eq!(io.sent, [0, 1, 2, 0, 1, 2, 0]);
    // The head's class is full: nothing passes it on one queue.
    io.budget = 5;
    io.room[1] = false;
    io.sent.clear();
    h.pump(SimTime::ZERO, &mut io);
    assert!(io.sent.is_empty(), "flow 1 heads the list: {:?}", io.sent);
}

#[test]
fn a_full_nic_holds_back_no_nvlink_flow_nor_the_reverse() {
    // Flows 0 and 2 by the NIC, 1 by NVLink: each link pulls its own
    // flows in turn while it has room, whatever the other's state.
    let mut io = stub(&[100_000; 3], &[0; 3], 0);
    io.scale_up = vec![1];
    io.scale_up_budget = 3;
    let mut h = Host::new(HostId(0), false);
    h.add_sender(true, NicDiscipline::RoundRobin);
    offer_all(&mut h, &mut io);
    h.pump(SimTime::ZERO, &mut io);
    assert_eq!(
        io.sent,
        [1, 1, 1],
        "the full NIC's head blocks nothing on NVLink"
    );
    io.sent.clear();
    io.budget = 4;
    h.pump(SimTime::ZERO, &mut io);
    assert_eq!(
        io.sent,
        [0, 2, 0, 2],
        "a full NVLink blocks nothing on the NIC"
    );
}

#[test]
fn per_class_passes_a_flow_whose_class_is_full() {
    let mut io = stub(&[100_000; 3], &[0, 1, 0], 4);
    io.room[1] = false;
    let mut h = Host::new(HostId(0), true);
    h.add_sender(true, NicDiscipline::Srpt); // per class wins on a PFC NIC
    offer_all(&mut h, &mut io);
    h.pump(SimTime::ZERO, &mut io);
    assert_eq!(io.sent, [0, 2, 0, 2]);
}

#[test]
fn srpt_serves_the_shortest_remaining_first_and_ties_in_queue_order() {
    let mut io = stub(&[50_000, 3_000, 3_000, 20_000], &[0; 4], 100);
    let mut h = Host::new(HostId(0), false);
    h.add_sender(true, NicDiscipline::Srpt);
    offer_all(&mut h, &mut io);
    h.pump(SimTime::ZERO, &mut io);
    let first_of = |f: u32| io.sent.iter().position(|&s| s == f);
    // Flow 1 finishes its unscheduled bytes before flow 2 starts (equal
    // size, queued first); both before the longer ones.
    assert!(io.sent.starts_with(&[1, 1, 1, 2, 2, 2]), "{:?}", io.sent);
    assert!(first_of(3) < first_of(0));
    assert!(
        io.flows
            .iter()
            .all(|(s, ready)| *ready == s.clone().wants_transmit(SimTime::ZERO))
    );
}

#[test]
fn ephemeral_ports_start_at_a_seeded_offset_and_wrap_in_linux_range() {
    let mut a = Host::new(HostId(3), false);
    let mut b = Host::new(HostId(3), false);
    let first = a.ephemeral_port(7);
    assert_eq!(
        first,
        b.ephemeral_port(7),
        "a port is a function of seed and host"
    );
    assert!((32768..=60999).contains(&first));
    let ports: Vec<u16> = (0..28_232).map(|_| a.ephemeral_port(7)).collect();
    assert_eq!(ports[28_231], first, "28,232 ports, then the first again");
    assert!(ports.iter().all(|p| (32768..=60999).contains(p)));
    let mut seen = ports.clone();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 28_232);
}

/// A family defined outside the transport crate's list: only what the
/// world and the loader ask of every family.
struct StubFamily {
    prepared: Vec<PlannedFlow>,
}

impl Family for StubFamily {
    fn name(&self) -> &'static str {
        "stub"
    }
    fn protocol(&self) -> net::Protocol {
        net::Protocol::Udp
    }
    fn mss(&self) -> u64 {
        1000
    }
    fn data_header_bytes(&self) -> u32 {
        40
    }
    fn ack_bytes(&self) -> u32 {
        40
    }
    fn prepare(&mut self, flows: &[PlannedFlow], path: &dyn Fn(&PlannedFlow) -> PathInfo) {
        assert!(flows.iter().all(|f| path(f).bdp_bytes > 0));
        self.prepared = flows.to_vec();
    }
    fn nic_discipline(&self) -> NicDiscipline {
        NicDiscipline::Srpt
    }
}

#[test]
fn a_stub_family_prepares_from_the_plan_and_sets_its_hosts_discipline() {
    let mut fam = StubFamily {
        prepared: Vec::new(),
    };
    // Every rule a family does not state is "no such rule".
    let view = crate::family::ScenarioView {
        pfc_mtu_bytes: Some(1500),
        ingress_drops: true,
        rewrites_rwnd: true,
        trims: true,
    };
    fam.settle(&view);
    assert_eq!(fam.check(&view), Ok(()));
    assert!(!fam.needs_bdp() && fam.handshake_header_bytes().is_none());
    assert!(fam.priority_levels().is_none() && fam.credit_queues(WireFormat::ETHERNET).is_none());
    let plan = [PlannedFlow {
        src: HostId(0),
        dst: HostId(1),
        size: Some(3_000),
    }];
    fam.prepare(&plan, &|_| PathInfo {
        bdp_bytes: 12_500,
        ..test_path()
    });
    assert_eq!(fam.prepared, plan);
    // Its hosts serve ready flows as it asks (here shortest first).
    let mut io = stub(&[50_000, 3_000], &[0; 2], 3);
    let mut h = Host::new(HostId(0), false);
    h.add_sender(true, fam.nic_discipline());
    offer_all(&mut h, &mut io);
    h.pump(SimTime::ZERO, &mut io);
    assert_eq!(io.sent, [1, 1, 1]);
}

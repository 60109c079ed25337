//! One switch port's enqueue + dequeue path: DWRR over 8 class queues, with
//! each AQM plugin. Packets are injected at the port (8 classes in turn, kept
//! 64 deep) and drained through its transmissions; each packet costs an
//! enqueue (buffer check + AQM verdict), a dequeue (scheduler + AQM), and the
//! port's and link's two events. Reported per packet (criterion "elements").
//!
//! The second group adds the ingress plugins: the receiver answers every
//! data packet with a pure ACK, which arrives at the same port's ingress
//! (R-AQM and ABQ hold it in the VIQ, FairQ and HSCC rewrite its window) and
//! is forwarded back to the sender. Per data packet, so the ACK's own hops
//! are included; the "none" line is the same traffic without a plugin.
use aqm::mq_ecn::MqEcnConfig;
use aqm::red::RedConfig;
use aqm::{DropTail, PortContext, StepEcn};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use net::buffer::BufferPolicy;
use net::sched::Discipline;
use net::{
    Ecn, EgressAqm, Fabric, FabricConfig, HostId, IngressHook, NetEvent, Outcome, Packet, TcpFlags,
    TopologyGraph, WireFormat,
};
use sim_core::{Bandwidth, EventQueue, QueueSize, SimDuration};

const PACKETS: u64 = 100_000;

#[derive(Clone, Copy)]
struct Ev(NetEvent);
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

fn plugin(name: &str, ctx: &PortContext) -> Box<dyn EgressAqm> {
    let toml = |s: &str| toml::from_str::<toml::Table>(s).expect("valid");
    match name {
        "droptail" => Box::new(DropTail),
        "step-ecn" => Box::new(StepEcn {
            k: QueueSize::Packets(65),
            non_ect: aqm::NonEct::Pass,
        }),
        "red" => {
            let c: RedConfig =
                toml("k_min = \"20pkt\"\nk_max = \"60pkt\"\np_max = 0.1\naverage = \"ewma\"")
                    .try_into()
                    .expect("red config");
            Box::new(c.build(ctx))
        }
        _ => {
            let c: MqEcnConfig = toml("k_standard = \"65pkt\"")
                .try_into()
                .expect("mq-ecn config");
            Box::new(c.build(ctx))
        }
    }
}

fn ingress(name: &str, ctx: &PortContext) -> Option<Box<dyn IngressHook>> {
    Some(match name {
        "r-aqm" => Box::new(aqm::r_aqm::RAqm::new(Default::default(), ctx)),
        "abq" => Box::new(aqm::abq::Abq::new(Default::default(), ctx)),
        "fairq" => Box::new(aqm::fairq::FairQ::new(Default::default(), ctx)),
        "hscc" => Box::new(aqm::hscc::Hscc::new(Default::default())),
        _ => return None,
    })
}

fn context(p: net::PortId, rate: Bandwidth) -> PortContext {
    PortContext {
        seed: 1,
        port: p.0,
        rate,
        weights: vec![1500; 8],
        strict_classes: 0,
        buffer: QueueSize::Packets(1000),
        packet_time: net::WireFormat::ETHERNET.packet_time(rate),
    }
}

fn run(name: &str) {
    run_with(name, "none", false)
}

fn run_with(name: &str, ingress_name: &str, acks: bool) {
    let g = TopologyGraph::star(2, Bandwidth::from_gbps(10), SimDuration::from_us(1));
    let cfg = FabricConfig {
        buffer: BufferPolicy::PerPort(QueueSize::Packets(1000)),
        discipline: Discipline::Dwrr {
            quanta: vec![1500; 8],
        },
        classes: 8,
        class_of_priority: std::array::from_fn(|p| (p % 8) as u8),
        ..FabricConfig::fifo(WireFormat::ETHERNET, QueueSize::Packets(1), u64::MAX)
    };
    let mut f =
        Fabric::new(&g, cfg, |p, _, rate| Some(plugin(name, &context(p, rate)))).expect("fabric");
    f.install_ingress(|p, _, rate| ingress(ingress_name, &context(p, rate)));
    let port = f.port_towards_host(HostId(1));
    let mut q: EventQueue<Ev> = EventQueue::with_capacity(1024);
    let mut sent = 0u64;
    let pkt = |i: u64| Packet {
        src: HostId(0),
        dst: HostId(1),
        size_bytes: 1500,
        payload_bytes: 1460,
        flags: TcpFlags::ACK,
        priority: (i % 8) as u8,
        ecn: Ecn::Ect0,
        ..Packet::default()
    };
    while sent < 512 {
        f.inject(port, pkt(sent), &mut q);
        sent += 1;
    }
    let ack = Packet {
        src: HostId(1),
        dst: HostId(0),
        size_bytes: 40,
        flags: TcpFlags::ACK,
        window: 46_875,
        reserved: 7,
        reverse: true,
        ..Packet::default()
    };
    while let Some((_, Ev(e))) = q.pop() {
        if let Outcome::Delivered { pkt: id, host } = f.handle(e, &mut q) {
            f.packets.free(id);
            if host == HostId(1) {
                if acks {
                    f.host_send(HostId(1), ack, &mut q);
                }
                if sent < PACKETS {
                    f.inject(port, pkt(sent), &mut q);
                    sent += 1;
                }
            }
        }
    }
    assert_eq!(f.port(port).stats.tx_packets, PACKETS);
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("switch_port_dwrr8");
    g.throughput(Throughput::Elements(PACKETS));
    g.sample_size(20);
    for name in ["droptail", "step-ecn", "red", "mq-ecn"] {
        g.bench_function(name, |b| b.iter(|| run(name)));
    }
    g.finish();
    let mut g = c.benchmark_group("switch_port_dwrr8_acks");
    g.throughput(Throughput::Elements(PACKETS));
    g.sample_size(20);
    for name in ["none", "r-aqm", "abq", "fairq", "hscc"] {
        g.bench_function(name, |b| b.iter(|| run_with("droptail", name, true)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

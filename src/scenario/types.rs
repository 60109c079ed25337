//! The validated scenario, and the serde shapes of each table.

use aqm::StepEcn;
use serde::Deserialize;
use sim_core::{Bandwidth, Bytes, QueueSize, SimDuration};
use std::fmt;
use toml::Spanned;
use transport::TcpConfig;

/// A whole scenario, validated.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// A short name (the file stem), used for the default output folder.
    pub name: String,
    /// `[simulation]`.
    pub simulation: SimulationConfig,
    /// `[topology]`.
    pub topology: TopologyConfig,
    /// `[switch]`.
    pub switch: SwitchConfig,
    /// `[transport]`.
    pub transport: TcpConfig,
    /// `[[workload]]`, in file order.
    pub workloads: Vec<WorkloadSpec>,
    /// `[output]`.
    pub output: OutputConfig,
}

/// `[simulation]`: the run's seed and its bounds.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimulationConfig {
    /// Master seed; every random stream derives from it.
    pub seed: u64,
    /// Stop at this simulated time. Absent: run until no event remains
    /// (every flow closed, every source finished).
    pub stop_time: Option<SimDuration>,
    /// Safety cap on the number of events (the run reports if it was hit).
    pub max_events: u64,
}

impl Default for SimulationConfig {
    fn default() -> Self {
        SimulationConfig {
            seed: 1,
            stop_time: None,
            max_events: 10_000_000_000,
        }
    }
}

/// How frames are serialised on links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Framing {
    /// Ethernet: 38 B per frame on the wire, 46 B minimum IP packet.
    #[default]
    Ethernet,
    /// No framing: only the IP packet is serialised.
    None,
}

/// `[topology]`: its `kind` and that kind's keys, plus keys common to all.
#[derive(Debug, Clone)]
pub struct TopologyConfig {
    /// The shape.
    pub kind: TopologyKind,
    /// Framing on the wire (`framing`, default `ethernet`).
    pub framing: Framing,
    /// A host NIC stops accepting TCP data at this many queued bytes
    /// (`nic_buffer`, default 1MB); transports wait instead of dropping.
    pub nic_buffer: Bytes,
}

/// Keys every topology accepts.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct TopologyCommon {
    pub framing: Framing,
    pub nic_buffer: Bytes,
}

impl Default for TopologyCommon {
    fn default() -> Self {
        TopologyCommon {
            framing: Framing::Ethernet,
            nic_buffer: Bytes(1_000_000),
        }
    }
}

/// The names of [`TopologyCommon`]'s keys.
pub(crate) const TOPOLOGY_COMMON_KEYS: &[&str] = &["framing", "nic_buffer"];

/// The topology shapes.
#[derive(Debug, Clone)]
pub enum TopologyKind {
    /// `kind = "star"`.
    Star(StarSpec),
    /// `kind = "dumbbell"`.
    Dumbbell(DumbbellSpec),
    /// `kind = "leaf-spine"`.
    LeafSpine(LeafSpineSpec),
    /// `kind = "fat-tree"`: the three-tier tree of R-AQM and RCC.
    FatTree(FatTreeSpec),
    /// `kind = "k-ary-fat-tree"`.
    KAryFatTree(KAryFatTreeSpec),
    /// `kind = "explicit"`: a node and link list.
    Explicit(ExplicitSpec),
}

/// `kind = "leaf-spine"`: every leaf linked to every spine.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeafSpineSpec {
    /// Leaf (ToR) switches.
    pub leaves: Spanned<u32>,
    /// Spine switches.
    pub spines: Spanned<u32>,
    /// Hosts under each leaf (hosts are numbered leaf by leaf).
    pub hosts_per_leaf: Spanned<u32>,
    /// Host link rate.
    pub host_rate: Bandwidth,
    /// Leaf-spine link rate.
    pub fabric_rate: Bandwidth,
    /// Propagation delay of every link.
    pub link_delay: SimDuration,
}

/// `kind = "fat-tree"`: pods of ToR and aggregation switches fully meshed,
/// aggregation switch j of each pod linked to cores j x cores/aggs ...
/// Defaults are the 320-host tree of R-AQM and RCC.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FatTreeSpec {
    /// Pods (default 5).
    #[serde(default = "ft_pods")]
    pub pods: Spanned<u32>,
    /// ToR switches per pod (default 4).
    #[serde(default = "ft_four")]
    pub tors_per_pod: Spanned<u32>,
    /// Aggregation switches per pod (default 4).
    #[serde(default = "ft_four")]
    pub aggs_per_pod: Spanned<u32>,
    /// Core switches, a multiple of `aggs_per_pod` (default 16).
    #[serde(default = "ft_sixteen")]
    pub cores: Spanned<u32>,
    /// Hosts per ToR (default 16).
    #[serde(default = "ft_sixteen")]
    pub hosts_per_tor: Spanned<u32>,
    /// Host link rate.
    pub host_rate: Bandwidth,
    /// Rate of ToR-aggregation and aggregation-core links.
    pub fabric_rate: Bandwidth,
    /// Propagation delay of every link.
    pub link_delay: SimDuration,
}

fn ft_pods() -> Spanned<u32> {
    Spanned::new(0..0, 5)
}
fn ft_four() -> Spanned<u32> {
    Spanned::new(0..0, 4)
}
fn ft_sixteen() -> Spanned<u32> {
    Spanned::new(0..0, 16)
}

/// `kind = "k-ary-fat-tree"`: Al-Fares et al.'s fat-tree of even arity k.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KAryFatTreeSpec {
    /// The arity (even, at least 2): k^3/4 hosts.
    pub k: Spanned<u32>,
    /// Rate of every link.
    pub link_rate: Bandwidth,
    /// Propagation delay of every link.
    pub link_delay: SimDuration,
}

/// `kind = "explicit"`: hosts `h0..`, switches `s0..`, and the cables between them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplicitSpec {
    /// Number of hosts, named `h0`, `h1`, ...
    pub hosts: Spanned<u32>,
    /// Number of switches, named `s0`, `s1`, ...
    pub switches: Spanned<u32>,
    /// Tier of each switch (1 = ToR, 2 = aggregation, 3 = core), used to salt
    /// ECMP; default 1 for all.
    pub switch_tiers: Option<Spanned<Vec<u8>>>,
    /// The cables.
    pub links: Vec<Spanned<LinkSpec>>,
}

/// One cable of an explicit topology.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// One end: `"h3"` or `"s0"`.
    pub a: Spanned<String>,
    /// The other end.
    pub b: Spanned<String>,
    /// Rate of each direction.
    pub rate: Bandwidth,
    /// Propagation delay of each direction.
    pub delay: SimDuration,
}

/// `kind = "star"`: `hosts` hosts on one switch.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StarSpec {
    /// Number of hosts (at least 2).
    pub hosts: Spanned<u32>,
    /// Rate of every host link.
    pub link_rate: Bandwidth,
    /// Propagation delay of every host link.
    pub link_delay: SimDuration,
}

/// `kind = "dumbbell"`: `left` and `right` hosts on two switches joined by a bottleneck.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    /// Hosts on the left switch (numbered first).
    pub left: Spanned<u32>,
    /// Hosts on the right switch.
    pub right: Spanned<u32>,
    /// Rate of the host links.
    pub host_rate: Bandwidth,
    /// Delay of the host links.
    pub host_delay: SimDuration,
    /// Rate of the switch-to-switch link.
    pub bottleneck_rate: Bandwidth,
    /// Delay of the switch-to-switch link.
    pub bottleneck_delay: SimDuration,
}

/// `[switch]`: the buffer, class queues, scheduler and AQM of every switch port.
#[derive(Debug, Clone)]
pub struct SwitchConfig {
    /// Per-port buffers (`buffer`) or one shared buffer per switch
    /// (`shared_buffer` with `dt_alpha`).
    pub buffer: net::buffer::BufferPolicy,
    /// Class queues per port, 1 to 8 (class 0 has the highest priority).
    pub classes: usize,
    /// The class queue of each packet priority 0..8.
    pub class_of_priority: [u8; 8],
    /// `[switch.scheduler]`.
    pub scheduler: net::sched::Discipline,
    /// `[switch.aqm]`.
    pub aqm: AqmSpec,
    /// `[switch.ingress]`.
    pub ingress: IngressSpec,
}

impl SwitchConfig {
    /// The most one queue of a port may hold: the per-port limit, or under a
    /// shared buffer of S bytes with factor a, `S x a / (1 + a)` (the dynamic
    /// threshold of a queue alone in the buffer). What plugins call B or Q_max.
    pub fn queue_limit(&self) -> QueueSize {
        match self.buffer {
            net::buffer::BufferPolicy::PerPort(q) => q,
            net::buffer::BufferPolicy::Shared { bytes, dt_alpha } => {
                QueueSize::Bytes((bytes as f64 * dt_alpha / (1.0 + dt_alpha)) as u64)
            }
        }
    }
}

/// `[switch]` without its tagged tables.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SwitchBase {
    pub buffer: Option<QueueSize>,
    pub shared_buffer: Option<Spanned<Bytes>>,
    pub dt_alpha: Option<Spanned<f64>>,
    #[serde(default = "one")]
    pub classes: Spanned<u32>,
    pub class_of_priority: Option<Spanned<Vec<u8>>>,
    /// Listed so that an unknown key's error names it as valid; read separately.
    #[allow(dead_code)]
    pub aqm: Option<serde::de::IgnoredAny>,
    /// Listed so that an unknown key's error names it as valid; read separately.
    #[allow(dead_code)]
    pub scheduler: Option<serde::de::IgnoredAny>,
    /// Listed so that an unknown key's error names it as valid; read separately.
    #[allow(dead_code)]
    pub ingress: Option<serde::de::IgnoredAny>,
}

fn one() -> Spanned<u32> {
    Spanned::new(0..0, 1)
}

/// `kind = "dwrr"` or `"wrr"`: one quantum for every class, or one per class.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RoundRobinSpec {
    pub quantum: Option<Spanned<Bytes>>,
    pub quanta: Option<Spanned<Vec<Bytes>>>,
}

/// `kind = "sp-dwrr"`: `strict` classes above DWRR among the rest.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SpDwrrSpec {
    pub strict: Spanned<u32>,
    pub quantum: Option<Spanned<Bytes>>,
    pub quanta: Option<Spanned<Vec<Bytes>>>,
}

/// `[switch.aqm]`: the plugin and its keys.
#[derive(Debug, Clone)]
pub enum AqmSpec {
    /// `kind = "droptail"`: no marking; overflow drops.
    DropTail,
    /// `kind = "step-ecn"` with `k`: DCTCP-style marking above K.
    StepEcn(StepEcn),
    /// `kind = "red"`: RED/ECN and MQ-ECN's per-queue presets.
    Red(aqm::red::RedConfig),
    /// `kind = "mq-ecn"`: MQ-ECN's round-time thresholds.
    MqEcn(aqm::mq_ecn::MqEcnConfig),
}

/// `[switch.ingress]`: the plugin at every switch port's ingress stage.
#[derive(Debug, Clone)]
pub enum IngressSpec {
    /// `kind = "none"` (the default): accounting and forwarding only.
    None,
    /// `kind = "r-aqm"`: R-AQM's ACK shaping.
    RAqm(aqm::r_aqm::RAqmConfig),
    /// `kind = "abq"`: ABQ's ACK holding.
    Abq(aqm::abq::AbqConfig),
    /// `kind = "fairq"`: FairQ's fair-share rwnd.
    Fairq(aqm::fairq::FairqConfig),
    /// `kind = "hscc"`: the rwnd clamp to one MSS under congestion.
    Hscc(aqm::hscc::HsccConfig),
}

impl IngressSpec {
    /// Whether the plugin rewrites rwnd (and so needs the hosts' window-scale shim).
    pub fn rewrites_rwnd(&self) -> bool {
        match self {
            IngressSpec::Fairq(_) | IngressSpec::Hscc(_) => true,
            IngressSpec::RAqm(c) => c.compensation == aqm::r_aqm::Compensation::Rwnd,
            IngressSpec::None | IngressSpec::Abq(_) => false,
        }
    }
}

/// `kind = "droptail"` takes no keys.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoKeys {}

/// A set of host indices: `[1, 2, 5]` or the inclusive range `"1-16"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSet(pub Vec<u32>);

impl<'de> Deserialize<'de> for HostSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = HostSet;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of host indices such as [1, 2, 3] or a range such as \"1-16\"")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<HostSet, A::Error> {
                let mut v = Vec::new();
                while let Some(h) = seq.next_element::<u32>()? {
                    v.push(h);
                }
                Ok(HostSet(v))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<HostSet, E> {
                let bad = || {
                    E::custom(format!(
                        "'{s}' is not a host range: expected \"FIRST-LAST\", e.g. \"1-16\""
                    ))
                };
                let (a, b) = s.split_once('-').ok_or_else(bad)?;
                let a: u32 = a.trim().parse().map_err(|_| bad())?;
                let b: u32 = b.trim().parse().map_err(|_| bad())?;
                if a > b {
                    return Err(bad());
                }
                Ok(HostSet((a..=b).collect()))
            }
        }
        d.deserialize_any(V)
    }
}

/// One `[[workload]]` table.
#[derive(Debug, Clone)]
pub enum WorkloadSpec {
    /// `kind = "incast"`.
    Incast(IncastSpec),
    /// `kind = "long-flows"`.
    LongFlows(LongFlowsSpec),
    /// `kind = "poisson-packets"`.
    PoissonPackets(PoissonSpec),
}

impl WorkloadSpec {
    /// The service class its packets carry.
    pub fn priority(&self) -> &Spanned<u8> {
        match self {
            WorkloadSpec::Incast(s) => &s.priority,
            WorkloadSpec::LongFlows(s) => &s.priority,
            WorkloadSpec::PoissonPackets(s) => &s.priority,
        }
    }

    /// The `kind` string.
    pub fn kind(&self) -> &'static str {
        match self {
            WorkloadSpec::Incast(_) => "incast",
            WorkloadSpec::LongFlows(_) => "long-flows",
            WorkloadSpec::PoissonPackets(_) => "poisson-packets",
        }
    }
}

/// Many senders to one receiver, all starting together.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IncastSpec {
    /// The receiving host.
    pub receiver: Spanned<u32>,
    /// The sending hosts: a list or a range string.
    pub senders: Spanned<HostSet>,
    /// Bytes each sender sends.
    pub size: Spanned<Bytes>,
    /// When every flow starts (default 0).
    #[serde(default)]
    pub start: SimDuration,
    /// Service class (packet priority 0..8) of the flows (default 0).
    #[serde(default = "priority_zero")]
    pub priority: Spanned<u8>,
}

/// Long-lived flows between given pairs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LongFlowsSpec {
    /// `[[src, dst], ...]`.
    pub pairs: Spanned<Vec<[u32; 2]>>,
    /// When the flows start (default 0).
    #[serde(default)]
    pub start: SimDuration,
    /// When the flows stop sending new data; absent: at the end of the run.
    pub stop: Option<Spanned<SimDuration>>,
    /// A size limit per flow; absent: unbounded.
    pub size: Option<Spanned<Bytes>>,
    /// Service class (packet priority 0..8) of the flows (default 0).
    #[serde(default = "priority_zero")]
    pub priority: Spanned<u8>,
}

/// A UDP-like source with exponential inter-arrival times (an M/D/1 input
/// when sizes are fixed), for validating the queue model.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoissonSpec {
    /// The sending host.
    pub src: Spanned<u32>,
    /// The receiving host.
    pub dst: Spanned<u32>,
    /// IP size of every packet (default 1500B).
    #[serde(default = "default_packet_size")]
    pub packet_size: Spanned<Bytes>,
    /// Offered load as a fraction of the source's link rate, counted on the
    /// wire (framing included): 0 < load < 1.
    pub load: Spanned<f64>,
    /// When the first arrival may happen (default 0).
    #[serde(default)]
    pub start: SimDuration,
    /// No arrival after this time.
    pub stop: Option<Spanned<SimDuration>>,
    /// Send this many packets, then stop.
    pub packets: Option<Spanned<u64>>,
    /// Service class (packet priority 0..8) of the packets (default 0).
    #[serde(default = "priority_zero")]
    pub priority: Spanned<u8>,
}

fn priority_zero() -> Spanned<u8> {
    Spanned::new(0..0, 0)
}

fn default_packet_size() -> Spanned<Bytes> {
    Spanned::new(0..0, Bytes(1500))
}

/// `[output]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutputConfig {
    /// Output folder (default `results/<scenario name>`); `--out` overrides it.
    pub dir: Option<String>,
    /// Sample queue occupancy into `queues.csv` every this long (absent: off).
    pub queue_interval: Option<Spanned<SimDuration>>,
    /// Which ports to sample: `"switch"` (every switch egress port, the
    /// default) or a list of hosts, meaning the switch port delivering to each.
    pub queue_ports: Option<Spanned<QueuePorts>>,
}

/// The ports `queues.csv` samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueuePorts {
    /// Every switch egress port.
    AllSwitch,
    /// The last-hop port towards each listed host.
    TowardsHosts(Vec<u32>),
}

impl<'de> Deserialize<'de> for QueuePorts {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = QueuePorts;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"switch\" or a list of host indices")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<QueuePorts, E> {
                match s {
                    "switch" => Ok(QueuePorts::AllSwitch),
                    _ => Err(E::custom(format!(
                        "'{s}': expected \"switch\" or a list of host indices"
                    ))),
                }
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<QueuePorts, A::Error> {
                let mut v = Vec::new();
                while let Some(h) = seq.next_element::<u32>()? {
                    v.push(h);
                }
                Ok(QueuePorts::TowardsHosts(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// The top-level tables, read in one go; tagged tables are read separately.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScenarioBase {
    #[serde(default)]
    pub simulation: SimulationConfig,
    #[allow(dead_code)]
    pub topology: Option<serde::de::IgnoredAny>,
    #[allow(dead_code)]
    pub switch: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    pub transport: TcpConfig,
    #[allow(dead_code)]
    pub workload: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    pub output: OutputConfig,
}

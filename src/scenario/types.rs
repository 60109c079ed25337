//! The validated scenario: plain values only (spans stay in the loader),
//! with the plugins as checked configs from the registries.

use crate::registry::{aqm, ingress, topology, workload};
use serde::Deserialize;
use sim_core::{Bandwidth, Bytes, QueueSize, SimDuration};
use std::fmt;
use transport::TransportConfig;

/// A whole scenario, validated. Only the loader makes one.
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
    /// The transports: one unnamed `[transport]` (named `default`), or
    /// each `[transport.NAME]` in file order.
    pub transports: Vec<NamedTransport>,
    /// `[[workload]]`, in file order.
    pub workloads: Vec<workload::Spec>,
    /// Each workload's transport (an index into `transports`).
    pub workload_transport: Vec<u32>,
    /// `[routing]`: how switches and hosts choose among equal-cost paths.
    pub routing: super::paths::Routing,
    /// `[[failure]]`, in file order: links that fail or degrade.
    pub failures: Vec<net::LinkFault>,
    /// `[output]`.
    pub output: OutputConfig,
    /// The files it was read from: the scenario file first (when loaded
    /// from one), then each file it names, with digests of their content.
    pub inputs: Vec<super::InputFile>,
    /// What is legal but almost surely a slip, each at its key
    /// (`scenario::warnings`): printed before a run, never an error.
    pub warnings: Vec<super::ScenarioError>,
}

impl Scenario {
    /// The credit queues its ports need: those its transports ask for
    /// (ExpressPass's; the loader allows one credit setting per run), on
    /// framing `wire`.
    pub fn credit_queues(&self, wire: net::WireFormat) -> Option<net::credit::CreditConfig> {
        self.transports
            .iter()
            .find_map(|t| t.config.family_rules().credit_queues(wire))
    }
}

/// A transport with its name in the scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedTransport {
    /// `NAME` of `[transport.NAME]`, or `default` for an unnamed `[transport]`.
    pub name: String,
    /// Its family and configuration.
    pub config: TransportConfig,
}

impl NamedTransport {
    /// The congestion controller's name, for reports.
    pub fn cc(&self) -> &'static str {
        self.config.family_rules().cc_name()
    }

    /// The dotted path of its key `key` (`transport.spray` for the
    /// unnamed table, `transport.NAME.spray` for a named one).
    pub fn key(&self, key: &str) -> String {
        if self.name == "default" {
            format!("transport.{key}")
        } else {
            format!("transport.{}.{key}", self.name)
        }
    }
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
    /// Threads for one run (absent: every core for a single run, one per
    /// run inside a sweep); `dcnsim run --threads` overrides it. The
    /// results are the same bytes at any count.
    pub threads: Option<usize>,
    /// How the fabric is cut into logical processes.
    pub partition: Cut,
    /// The most logical processes the cut makes (pods beyond it share
    /// one); part of what the results depend on under the insertion
    /// order, not under the model's (the default).
    pub lps: u32,
    /// How one picosecond's events are ordered.
    pub order: TieOrder,
}

impl Default for SimulationConfig {
    fn default() -> Self {
        SimulationConfig {
            seed: 1,
            stop_time: None,
            max_events: 10_000_000_000,
            threads: None,
            partition: Cut::Auto,
            lps: DEFAULT_LPS,
            order: TieOrder::Model,
        }
    }
}

/// `simulation.lps`'s default: enough LPs for 8 threads, few enough
/// that one thread runs them at the speed of one undivided queue
/// (docs/performance.md, "One run on many cores": 16 LPs of a k = 16
/// fat-tree on one thread took 1.14-1.19x the undivided run's loop time,
/// 2 to 8 LPs took the same within noise).
pub const DEFAULT_LPS: u32 = 8;

/// `simulation.partition`: how a run's fabric is cut into logical
/// processes (LPs), each with its own event queue, that threads run side
/// by side (docs/architecture.md, "One run on many cores").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Cut {
    /// By pods where the scenario allows it, else one LP.
    #[default]
    Auto,
    /// One LP: the whole fabric in one event queue.
    None,
    /// By pods, and refused where the scenario does not allow it.
    Pods,
}

impl Cut {
    /// Every cut, with its name in a scenario and its meaning
    /// (`dcnsim list simulation`; a test holds the names to serde's).
    pub const ALL: [(Cut, &'static str, &'static str); 3] = [
        (
            Cut::Auto,
            "auto",
            "by pods where the scenario allows it and the fabric has at least 512 hosts, else one LP",
        ),
        (
            Cut::None,
            "none",
            "one LP: the whole fabric in one event queue",
        ),
        (
            Cut::Pods,
            "pods",
            "by pods (a fat-tree's pods, a leaf-spine's leaves, a dumbbell's sides), or the run is refused, naming why",
        ),
    ];
}

impl TieOrder {
    /// Every order, with its name in a scenario and its meaning
    /// (`dcnsim list simulation`; a test holds the names to serde's).
    pub const ALL: [(TieOrder, &'static str, &'static str); 2] = [
        (
            TieOrder::Model,
            "model",
            "by a key from each event alone: every cut writes the same bytes",
        ),
        (
            TieOrder::Insertion,
            "insertion",
            "in the order they were scheduled (ns-3's and htsim's); the bytes depend on the cut",
        ),
    ];
}

/// `simulation.order`: how the events of one picosecond are ordered
/// (docs/architecture.md, "One order for every cut").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum TieOrder {
    /// In the order they were scheduled, as ns-3 and htsim order them (the
    /// paper reproductions set it): the bytes of a run cut into logical
    /// processes depend on the cut.
    Insertion,
    /// By a key from the events alone (kind and component, in an order
    /// drawn anew at each picosecond): every cut writes the same bytes.
    /// The default.
    #[default]
    Model,
}

/// How frames are serialised on links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Framing {
    /// Ethernet: 38 B per frame on the wire, 46 B minimum IP packet.
    #[default]
    Ethernet,
    /// PPP: 2 B per frame, no padding (ns-3's point-to-point links).
    Ppp,
    /// No framing: only the IP packet is serialised.
    None,
}

impl Framing {
    /// The links' wire format.
    pub fn wire(self) -> net::WireFormat {
        match self {
            Framing::Ethernet => net::WireFormat::ETHERNET,
            Framing::Ppp => net::WireFormat::PPP,
            Framing::None => net::WireFormat::NONE,
        }
    }
}

/// `[topology]`: its shape, plus the keys common to all kinds.
#[derive(Debug, Clone)]
pub struct TopologyConfig {
    /// The shape and its checked node counts.
    pub spec: topology::Spec,
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

/// `[switch]`: the buffer, class queues, scheduler and plugins of every switch port.
#[derive(Debug, Clone)]
pub struct SwitchConfig {
    /// Per-port buffers (`buffer`) or one shared buffer per switch
    /// (`shared_buffer` with `dt_alpha`).
    pub buffer: net::buffer::BufferPolicy,
    /// Class queues per port, 1 to [`net::sched::MAX_CLASSES`] (class 0 has
    /// the highest priority).
    pub classes: usize,
    /// The class queue of each packet priority 0..64 (those beyond a given
    /// list are refused at load, so their entries are never read).
    pub class_of_priority: [u8; net::packet::PRIORITIES],
    /// `[switch.scheduler]`.
    pub scheduler: net::sched::Discipline,
    /// `[switch.aqm]`.
    pub aqm: aqm::Spec,
    /// `[switch.ingress]`.
    pub ingress: ingress::Spec,
    /// `[switch.ingress] switches`: the switches (by node name) whose ports
    /// run the ingress plugin; `None`: every switch. R-AQM VI-D deploys
    /// R-AQM at one ToR only (incremental deployment).
    pub ingress_switches: Option<Vec<String>>,
    /// `[switch.pfc]`: priority flow control, if on.
    pub pfc: Option<net::pfc::PfcConfig>,
    /// `[switch.trim]`: packet trimming, if on.
    pub trim: Option<net::TrimConfig>,
    /// `header_priority`: header-only packets go ahead of the data
    /// without trimming (htsim's composite queue under `-disable_trim`);
    /// with trimming they always do.
    pub header_priority: bool,
}

/// The most one queue of a port may hold under `buffer`: the per-port
/// limit, or under a shared buffer of S bytes with factor a, `S x a / (1 + a)`
/// (the dynamic threshold of a queue alone in the buffer). What plugins
/// call B or Q_max.
pub fn queue_limit(buffer: net::buffer::BufferPolicy) -> QueueSize {
    match buffer {
        net::buffer::BufferPolicy::PerPort(q) => q,
        net::buffer::BufferPolicy::Shared { bytes, dt_alpha } => {
            QueueSize::Bytes((bytes as f64 * dt_alpha / (1.0 + dt_alpha)) as u64)
        }
    }
}

impl SwitchConfig {
    /// See [`queue_limit`].
    pub fn queue_limit(&self) -> QueueSize {
        queue_limit(self.buffer)
    }

    /// Whether the ingress plugin rewrites rwnd (and so needs the hosts'
    /// window-scale shim).
    pub fn rewrites_rwnd(&self) -> bool {
        self.ingress.as_ref().is_some_and(|i| i.rewrites_rwnd())
    }

    /// Whether the ingress plugin drops packets it holds (a full VIQ).
    pub fn ingress_drops(&self) -> bool {
        self.ingress
            .as_ref()
            .is_some_and(|i| i.drops_held_packets())
    }

    /// What a transport family's load-time rules may know of the switches
    /// ([`transport::Family::settle`] and [`transport::Family::check`]).
    pub fn family_view(&self) -> transport::family::ScenarioView {
        transport::family::ScenarioView {
            pfc_mtu_bytes: self.pfc.as_ref().map(|p| p.mtu_bytes),
            ingress_drops: self.ingress_drops(),
            rewrites_rwnd: self.rewrites_rwnd(),
            trims: self.trim.is_some(),
        }
    }
}

/// `[switch]` without its tagged tables.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SwitchBase {
    pub buffer: Option<QueueSize>,
    pub shared_buffer: Option<Bytes>,
    pub dt_alpha: Option<f64>,
    #[serde(default = "one")]
    pub classes: u32,
    pub class_of_priority: Option<Vec<u8>>,
    /// Listed so that an unknown key's error names it as valid; read separately.
    #[allow(dead_code)]
    pub aqm: Option<serde::de::IgnoredAny>,
    /// Listed so that an unknown key's error names it as valid; read separately.
    #[allow(dead_code)]
    pub scheduler: Option<serde::de::IgnoredAny>,
    /// Listed so that an unknown key's error names it as valid; read separately.
    #[allow(dead_code)]
    pub ingress: Option<serde::de::IgnoredAny>,
    /// Listed so that an unknown key's error names it as valid; read separately.
    #[allow(dead_code)]
    pub pfc: Option<serde::de::IgnoredAny>,
    /// Listed so that an unknown key's error names it as valid; read separately.
    #[allow(dead_code)]
    pub trim: Option<serde::de::IgnoredAny>,
    pub header_priority: Option<bool>,
}

fn one() -> u32 {
    1
}

/// A kind that takes no keys.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoKeys {}

/// `[output]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutputConfig {
    /// Output folder (default `results/<scenario name>`); `--out` overrides it.
    pub dir: Option<String>,
    /// Sample queue occupancy into `queues.csv` every this long (absent: off).
    pub queue_interval: Option<SimDuration>,
    /// Which ports to sample: `"switch"` (every switch egress port, the
    /// default) or a list of hosts, meaning the switch port delivering to each.
    pub queue_ports: Option<QueuePorts>,
    /// Report the sampled ports' standing queue from this time on in
    /// `summary.json` (`queue_after`): the samples at or after it, so that
    /// a start-up burst is left out (RCC Fig. 8's queue). Needs
    /// `queue_interval`.
    pub queue_from: Option<SimDuration>,
    /// Upper edges of the flow-size buckets that FCT and slowdown are
    /// reported by (a flow of exactly an edge falls in the lower bucket);
    /// the last bucket is open. Default: 100 KB and 10 MB, the small /
    /// medium / large split of the MQ-ECN and HPCC evaluations.
    pub size_buckets: Vec<Bytes>,
    /// Write `goodput.csv` with each interval's goodput (absent: off).
    pub goodput_interval: Option<SimDuration>,
    /// The flows `goodput.csv` has a row for, by id (absent: every flow);
    /// the aggregate row counts every flow either way.
    pub goodput_flows: Option<Vec<u32>>,
    /// Write `rtt.csv` with each interval's RTT samples per workload (absent: off).
    pub rtt_interval: Option<SimDuration>,
    /// Write `links.csv` with each interval's link utilisation per tier
    /// (absent: off).
    pub link_interval: Option<SimDuration>,
    /// Report Jain's index over these flows, by id, in `summary.json`
    /// (`fairness`); absent: not reported (every workload's own index is).
    pub jain_flows: Option<Vec<u32>>,
    /// Write `cc.csv`: the chosen flows' controller state every interval
    /// (absent: off).
    pub cc_trace: Option<CcTraceConfig>,
    /// Write a pcap capture of each chosen port (absent: off).
    pub pcap: Option<PcapConfig>,
    /// Write `events.csv`, the packet event log (absent: off).
    pub events: Option<EventsConfig>,
    /// Report in `summary.json` (`max_min`) the flows' max-min fair
    /// rates over the paths routing gives them: what per-flow ECMP
    /// allows once its hash has placed the flows.
    pub max_min: bool,
}

/// `[output] pcap`: the ports to capture, by name as in ports.csv.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcapConfig {
    /// The ports, `"tor0->host3"` (a switch's or a host's egress port).
    pub ports: Vec<String>,
    /// Bytes kept of each frame (its headers come first; the rest is zeros).
    #[serde(default = "default_snaplen")]
    pub snaplen: u32,
}

fn default_snaplen() -> u32 {
    crate::observe::pcap::DEFAULT_SNAPLEN
}

/// `[output] events`: which packets' events to log. Every list is a
/// filter; an absent one lets everything through.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventsConfig {
    /// The flows, by id (absent: every flow and packet source).
    pub flows: Option<Vec<u32>>,
    /// The ports, by name as in ports.csv (absent: every port, hosts' too).
    pub ports: Option<Vec<String>>,
    /// The kinds of event (absent: all of them).
    pub kinds: Option<Vec<crate::observe::EventKind>>,
}

/// `[output] cc_trace`: which flows' controllers to trace, and how often.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CcTraceConfig {
    /// The flows, by id (rows of `flows.csv`).
    pub flows: Vec<u32>,
    /// The sampling interval (at least 1 ns).
    pub interval: SimDuration,
}

impl Default for OutputConfig {
    fn default() -> Self {
        OutputConfig {
            dir: None,
            queue_interval: None,
            queue_ports: None,
            queue_from: None,
            size_buckets: vec![Bytes(100_000), Bytes(10_000_000)],
            goodput_interval: None,
            goodput_flows: None,
            rtt_interval: None,
            link_interval: None,
            jain_flows: None,
            cc_trace: None,
            pcap: None,
            events: None,
            max_min: false,
        }
    }
}

/// The ports `queues.csv` samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueuePorts {
    /// Every switch egress port.
    AllSwitch,
    /// The ports the entries select, in order, each once.
    List(Vec<PortSelector>),
}

/// A node named as in explicit topologies: `h3`, `s0`. Switches are
/// numbered in the order every topology creates them (docs/scenarios.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeRef {
    /// Host `hN`.
    Host(u32),
    /// Switch `sN`.
    Switch(u32),
}

/// One entry of `queue_ports`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PortSelector {
    /// `3`: the last-hop switch port towards host 3.
    TowardsHost(u32),
    /// `"s0"`: every egress port of switch s0.
    Switch(u32),
    /// `"s0->s1"`: the egress port of switch s0 on its link to s1 (a
    /// dumbbell's bottleneck); `"s2->h5"` the one towards host h5.
    Link {
        /// The switch the port belongs to.
        from: u32,
        /// The node at the link's far end.
        to: NodeRef,
    },
    /// `"tor0"` or `"tor0->agg1"`: a switch or a link by topology names,
    /// as `ports.csv` names them; the loader reads it into [`Self::Switch`]
    /// or [`Self::Link`] once the names are known (`scenario::nodes`).
    Named(String),
}

impl NodeRef {
    /// The node's index in a topology of `hosts` hosts: every topology
    /// creates its hosts first, so switch `sN` is node `hosts + N`.
    pub fn index(self, hosts: u32) -> u32 {
        match self {
            NodeRef::Host(h) => h,
            NodeRef::Switch(s) => hosts + s,
        }
    }

    /// Reads `hN` or `sN`.
    pub fn parse(name: &str) -> Option<NodeRef> {
        let (kind, num) = name.trim().split_at_checked(1)?;
        let n: u32 = num.parse().ok()?;
        match kind {
            "h" => Some(NodeRef::Host(n)),
            "s" => Some(NodeRef::Switch(n)),
            _ => None,
        }
    }
}

impl fmt::Display for NodeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeRef::Host(n) => write!(f, "h{n}"),
            NodeRef::Switch(n) => write!(f, "s{n}"),
        }
    }
}

impl PortSelector {
    /// Reads `"s0"` or `"s0->s1"`; any other name is kept to be read
    /// against the topology's names.
    fn parse(text: &str) -> Option<PortSelector> {
        let indexed = match text.split_once("->") {
            None => NodeRef::parse(text).map(|n| match n {
                NodeRef::Switch(s) => Some(PortSelector::Switch(s)),
                NodeRef::Host(_) => None,
            }),
            Some((a, b)) => match (NodeRef::parse(a), NodeRef::parse(b)) {
                (Some(NodeRef::Switch(from)), Some(to)) => {
                    Some(Some(PortSelector::Link { from, to }))
                }
                (Some(NodeRef::Host(_)), Some(_)) => Some(None),
                _ => None,
            },
        };
        match indexed {
            Some(sel) => sel,
            None if !text.trim().is_empty() => Some(PortSelector::Named(text.to_string())),
            None => None,
        }
    }
}

/// What `queue_ports` accepts, for error messages.
const QUEUE_PORTS_FORMS: &str = "\"switch\" or a list of host indices (the last-hop port towards \
     each), switches (\"s0\" or \"tor0\": all its ports) and links (\"s0->s1\" or \"tor0->agg0\": \
     the first's port towards the second)";

impl<'de> Deserialize<'de> for PortSelector {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = PortSelector;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a host index, a switch (\"s0\") or a link (\"s0->s1\")")
            }
            fn visit_u64<E: serde::de::Error>(self, h: u64) -> Result<PortSelector, E> {
                u32::try_from(h)
                    .map(PortSelector::TowardsHost)
                    .map_err(|_| E::custom(format!("host {h} does not exist")))
            }
            fn visit_i64<E: serde::de::Error>(self, h: i64) -> Result<PortSelector, E> {
                u64::try_from(h)
                    .map_err(|_| E::custom(format!("{h} is not a host index")))
                    .and_then(|h| self.visit_u64(h))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<PortSelector, E> {
                PortSelector::parse(s).ok_or_else(|| {
                    E::custom(format!(
                        "'{s}' is not a switch port: expected {QUEUE_PORTS_FORMS}"
                    ))
                })
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for QueuePorts {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = QueuePorts;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(QUEUE_PORTS_FORMS)
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<QueuePorts, E> {
                match s {
                    "switch" => Ok(QueuePorts::AllSwitch),
                    _ => Err(E::custom(format!("'{s}': expected {QUEUE_PORTS_FORMS}"))),
                }
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<QueuePorts, A::Error> {
                let mut v = Vec::new();
                while let Some(p) = seq.next_element::<PortSelector>()? {
                    v.push(p);
                }
                Ok(QueuePorts::List(v))
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
    #[allow(dead_code)]
    pub transport: Option<serde::de::IgnoredAny>,
    #[allow(dead_code)]
    pub workload: Option<serde::de::IgnoredAny>,
    #[allow(dead_code)]
    pub routing: Option<serde::de::IgnoredAny>,
    #[allow(dead_code)]
    pub failure: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    pub output: OutputConfig,
}

/// What the registries' checks may know: filled as the loader reads the
/// topology, then the switch.
#[derive(Debug, Clone, Copy)]
pub struct LoadCtx {
    /// Hosts in the topology.
    pub hosts: u32,
    /// Hosts under each ToR, numbered ToR by ToR (`None`: no racks).
    pub hosts_per_rack: Option<u32>,
    /// GPUs per server (hosts `s x it ..` are server s's; 1: hosts are
    /// no GPUs).
    pub gpus_per_server: u32,
    /// Class queues per port.
    pub classes: usize,
    /// The most one queue of a port may hold.
    pub queue_limit: QueueSize,
    /// The fastest host link (bounds what a workload may plan).
    pub max_host_rate: Bandwidth,
    /// Workload priorities are 0 to this - 1: the entries of
    /// `switch.class_of_priority` (64, every DSCP class, by default).
    pub priorities: usize,
    /// Whether PFC is on (its 802.1p priorities are 0 to 7).
    pub pfc: bool,
}

impl LoadCtx {
    /// What a switch plugin's check may know.
    pub fn plugin(&self) -> ::aqm::LoadContext {
        ::aqm::LoadContext {
            queue_limit: self.queue_limit,
        }
    }
}

//! `[[workload]]`: what the hosts send. Each kind checks its hosts against
//! the topology, then plans its flows and packet sources; the world turns a
//! plan into endpoints.

use super::{Checked, Family, Key, key, row};
use crate::scenario::{ScenarioError, Table};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use sim_core::{Bytes, SimDuration};
use std::fmt::{self, Debug};
use std::sync::Arc;

pub mod cdf;
pub mod chakra;
pub mod collective;
mod flows;
mod incast;
mod long_flows;
mod matrix;
mod permutation;
mod ping;
mod shuffle;
pub mod trigger;
pub use collective::CollectivePlan;
pub use trigger::{Done, Hold, TriggerPlan};

/// A flow a workload asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowPlan {
    /// Sending host.
    pub src: u32,
    /// Receiving host.
    pub dst: u32,
    /// Bytes to send; `None`: unbounded (until `stop` or the end of the run).
    pub size: Option<u64>,
    /// When it opens its connection, before jitter.
    pub start: SimDuration,
    /// The start is delayed by a uniform draw from `[0, start_jitter)`,
    /// taken from the run's seed (`purpose::START_JITTER`, per workload).
    pub start_jitter: SimDuration,
    /// When its application stops sending new data.
    pub stop: Option<SimDuration>,
    /// Its round (incast rounds; 0 for workloads without rounds).
    pub round: u32,
}

/// An open-loop packet source a workload asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct SourcePlan {
    /// Sending host.
    pub src: u32,
    /// Receiving host.
    pub dst: u32,
    /// IP bytes per packet.
    pub packet_size: u32,
    /// Earliest first arrival.
    pub start: SimDuration,
    /// No arrival after this.
    pub stop: Option<SimDuration>,
    /// At most this many packets.
    pub packets: Option<u64>,
    /// How arrivals are spaced.
    pub gaps: Gaps,
    /// The receiver echoes every packet back at once (`ping`), and the
    /// source records each packet's round-trip time.
    pub echo: bool,
}

/// How a packet source spaces its packets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Gaps {
    /// Exponential gaps offering `load`, a fraction of the source's link
    /// rate on the wire; the first arrival one gap after `start`.
    Poisson {
        /// The offered load, 0 < load < 1.
        load: f64,
    },
    /// One packet every `interval`, the first at `start`.
    Periodic {
        /// The gap between packets.
        interval: SimDuration,
    },
}

/// What one workload creates, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// Its flows.
    pub flows: Vec<FlowPlan>,
    /// Its packet sources.
    pub sources: Vec<SourcePlan>,
    /// How many rounds its flows form (0: it has no rounds).
    pub rounds: u32,
    /// Rounds are closed-loop: a round's flows start once every flow of
    /// the previous round is received, their `start` counting from then.
    pub closed_loop: bool,
    /// Flows that start when others are done ([`trigger`]).
    pub triggers: Vec<TriggerPlan>,
    /// Its triggers act the instant an input finishes, wherever that
    /// happens (htsim's global triggers; not physical: no message carries
    /// the news): an input need not be seen at its trigger's host, and
    /// the run stays in one LP.
    pub instant_triggers: bool,
    /// The collectives its flows carry out (collective jobs), for the
    /// report.
    pub collectives: Vec<CollectivePlan>,
    /// The host of each stream its triggers hold ([`trigger::Hold`]): a
    /// GPU's compute or communication stream, or its host CPU's.
    pub streams: Vec<u32>,
    /// The execution traces it runs (`chakra` jobs), for the report.
    pub traces: Vec<chakra::TracePlan>,
}

impl Plan {
    /// A plan of flows only, without rounds.
    pub fn of_flows(flows: Vec<FlowPlan>) -> Plan {
        Plan {
            flows,
            ..Plan::default()
        }
    }
}

/// A workload kind's config.
pub trait Workload: Debug + Send + Sync {
    /// Its `kind` as written.
    fn kind(&self) -> &'static str;
    /// The service class (packet priority, see `net::packet::PRIORITIES`)
    /// of its packets: of all of them, or the first of its flows' span.
    fn priority(&self) -> u8;
    /// How many priorities from [`Workload::priority`] its flows use (1:
    /// every flow has that one).
    fn priority_span(&self) -> u8 {
        1
    }
    /// The priority of its flow from host `src` to host `dst`.
    fn flow_priority(&self, _src: u32, _dst: u32) -> u8 {
        self.priority()
    }
    /// Checks it against a topology of `hosts` hosts: the key at fault and why.
    fn check(&self, hosts: u32) -> Result<(), (String, String)>;
    /// Why it never ends by itself, if it does not (the run then needs a stop time).
    fn endless(&self) -> Option<&'static str>;
    /// Its flows and sources.
    fn plan(&self, env: &PlanEnv<'_>) -> Plan;
    /// Its offered load against its target, once planned (workloads
    /// defined by a load).
    fn load(&self, _plan: &Plan, _env: &PlanEnv<'_>) -> Option<Load> {
        None
    }
    /// Whether its traffic runs over a transport (flows); packet sources
    /// send bare packets and take no `transport` key.
    fn uses_transport(&self) -> bool {
        true
    }
    /// The flows it will plan on a topology of `hosts` hosts, counted
    /// without planning (its checks passed), or `None` where only
    /// planning tells (a Poisson arrival process): the memory estimate
    /// refuses a run from these counts before anything is planned.
    fn flows_bound(&self, _hosts: u32) -> Option<u64> {
        None
    }
    /// Bytes its plan holds per flow while the world is built from it
    /// (the flow's row, and whatever tags or triggers come with it).
    fn plan_bytes_per_flow(&self) -> u64 {
        size_of::<FlowPlan>() as u64
    }
}

/// One workload planned for a run: its flows and sources, and its load.
#[derive(Debug, Clone)]
pub struct Planned {
    /// Its flows and sources.
    pub plan: Plan,
    /// Its target and offered load (workloads defined by a load).
    pub load: Option<Load>,
}

/// Plans every workload of `sc` for a run with `seed`, once: the memory
/// estimate counts the plans and the world is built from the same ones.
pub fn plan_all(sc: &crate::scenario::Scenario, seed: u64) -> Vec<Planned> {
    (0u32..)
        .zip(&sc.workloads)
        .map(|(index, w)| {
            let env = PlanEnv {
                seed,
                index,
                topology: &*sc.topology.spec.shape,
            };
            let plan = w.plan(&env);
            let load = w.load(&plan, &env);
            Planned { plan, load }
        })
        .collect()
}

/// What planning may know beyond a workload's own keys.
#[derive(Clone, Copy)]
pub struct PlanEnv<'a> {
    /// The run's seed.
    pub seed: u64,
    /// The workload's index among the scenario's `[[workload]]`s (the
    /// component of its random streams).
    pub index: u32,
    /// The topology (for host link rates).
    pub topology: &'a dyn crate::registry::topology::Shape,
}

/// A workload's load: the fraction of its senders' link capacity it was
/// asked to offer, and what its planned flows offer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Load {
    /// The `load` key.
    pub target: f64,
    /// Planned bytes over the senders' capacity over the arrival window.
    pub offered: f64,
}

/// A checked workload.
pub type Spec = Checked<dyn Workload>;

/// A set of hosts: `[1, 2, 5]`, the inclusive range `"1-16"`, a range
/// with a stride `"0-127/2"` (every other host), or a list of these
/// (`["0-15", "64-79", 100]`); kept as ranges so that a huge range is
/// refused before it is expanded. `"racks 0-3"` (the hosts under ToRs 0
/// to 3) is turned into host ranges by the loader, which knows the racks
/// (`scenario::racks`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSet(Vec<HostRange>);

/// Hosts `first`, `first + step`, ... up to `last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct HostRange {
    first: u32,
    last: u32,
    step: u32,
}

impl HostSet {
    /// The hosts, in the order given.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0
            .iter()
            .flat_map(|r| (r.first..=r.last).step_by(r.step as usize))
    }
    /// The largest host named.
    fn max(&self) -> Option<u32> {
        self.0
            .iter()
            .map(|r| r.first + (r.last - r.first) / r.step * r.step)
            .max()
    }
    /// Whether `h` is in the set.
    fn contains(&self, h: u32) -> bool {
        self.0
            .iter()
            .any(|r| (r.first..=r.last).contains(&h) && (h - r.first).is_multiple_of(r.step))
    }

    /// One range written `"FIRST-LAST"` or `"FIRST-LAST/STEP"`.
    fn range(s: &str) -> Result<HostRange, String> {
        let bad = || {
            format!(
                "'{s}' is not a host range: expected \"FIRST-LAST\" (\"1-16\"), with a stride \
                 \"FIRST-LAST/STEP\" (\"0-127/2\"), or \"racks A-B\""
            )
        };
        let (range, step) = match s.split_once('/') {
            Some((r, st)) => (r, st.trim().parse::<u32>().map_err(|_| bad())?),
            None => (s, 1),
        };
        let (a, b) = range.split_once('-').ok_or_else(bad)?;
        let first: u32 = a.trim().parse().map_err(|_| bad())?;
        let last: u32 = b.trim().parse().map_err(|_| bad())?;
        if first > last {
            return Err(bad());
        }
        if step == 0 {
            return Err(format!("'{s}': the stride must be at least 1"));
        }
        Ok(HostRange { first, last, step })
    }
}

/// One entry of a host list: an index or a range.
enum HostEntry {
    One(u32),
    Range(String),
}

impl<'de> Deserialize<'de> for HostEntry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = HostEntry;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a host index such as 7 or a range such as \"8-15\" or \"0-127/2\"")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<HostEntry, E> {
                u32::try_from(v)
                    .map(HostEntry::One)
                    .map_err(|_| E::custom(format!("host {v} is out of range")))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<HostEntry, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom(format!("host {v} is negative")))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<HostEntry, E> {
                Ok(HostEntry::Range(s.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for HostSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = HostSet;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a list of host indices or ranges such as [1, 2, \"8-15\"], a range such as \
                     \"1-16\" or \"0-127/2\", or \"racks 0-3\"",
                )
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<HostSet, A::Error> {
                let mut v = Vec::new();
                while let Some(e) = seq.next_element::<HostEntry>()? {
                    v.push(match e {
                        HostEntry::One(h) => HostRange {
                            first: h,
                            last: h,
                            step: 1,
                        },
                        HostEntry::Range(s) => HostSet::range(&s).map_err(A::Error::custom)?,
                    });
                }
                Ok(HostSet(v))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<HostSet, E> {
                Ok(HostSet(vec![HostSet::range(s).map_err(E::custom)?]))
            }
        }
        use serde::de::Error as _;
        d.deserialize_any(V)
    }
}

fn host_missing(key: &str, h: u32, hosts: u32) -> (String, String) {
    let msg = format!(
        "host {h} does not exist: the topology has hosts 0 to {}",
        hosts - 1
    );
    (key.into(), msg)
}

fn check_host(key: &str, h: u32, hosts: u32) -> Result<(), (String, String)> {
    if h >= hosts {
        return Err(host_missing(key, h, hosts));
    }
    Ok(())
}

/// The hosts of `set` in the order given, each at most once and all in the
/// topology, at least `min` of them.
fn distinct_hosts(
    key: &str,
    set: &HostSet,
    hosts: u32,
    min: usize,
) -> Result<Vec<u32>, (String, String)> {
    if let Some(h) = set.max() {
        check_host(key, h, hosts)?;
    }
    let list: Vec<u32> = set.iter().collect();
    let mut seen = vec![false; hosts as usize];
    for &h in &list {
        if std::mem::replace(&mut seen[h as usize], true) {
            return Err((key.into(), format!("host {h} is listed twice")));
        }
    }
    if list.len() < min {
        let msg = format!("{} hosts given: at least {min} are needed", list.len());
        return Err((key.into(), msg));
    }
    Ok(list)
}

/// A packet source's two hosts: in the topology and not the same.
fn check_endpoints(src: u32, dst: u32, hosts: u32) -> Result<(), (String, String)> {
    check_host("src", src, hosts)?;
    check_host("dst", dst, hosts)?;
    if src == dst {
        return Err(("dst".into(), "dst must differ from src".into()));
    }
    Ok(())
}

/// A packet source's IP size: at least its `headers` (28 B), at most 65535 B.
fn check_packet_size(size: Bytes, headers: &str) -> Result<(), (String, String)> {
    let size = size.0;
    if !(net::packet::UDP_IP_HEADER_BYTES as u64..=65_535).contains(&size) {
        let msg = format!("packet_size {size}B must be between 28B ({headers}) and 65535B");
        return Err(("packet_size".into(), msg));
    }
    Ok(())
}

/// The largest flow a workload may plan: 1 PB, far above any experiment,
/// low enough that a flow's bytes, segments and ideal FCT never overflow.
pub const MAX_FLOW_BYTES: u64 = 1_000_000_000_000_000;

fn check_size(key: &str, size: Bytes) -> Result<(), (String, String)> {
    if size.0 == 0 {
        return Err((key.into(), "a flow size must be positive".into()));
    }
    if size.0 > MAX_FLOW_BYTES {
        let msg = format!("{size}: a flow may carry at most 1PB ({MAX_FLOW_BYTES} B)");
        return Err((key.into(), msg));
    }
    Ok(())
}

fn check_stop(start: SimDuration, stop: Option<SimDuration>) -> Result<(), (String, String)> {
    match stop {
        Some(t) if t <= start => Err((
            "stop".into(),
            "stop must be after start (and after start + start_jitter)".into(),
        )),
        _ => Ok(()),
    }
}

/// The latest a workload may plan anything to happen (a start, a
/// trigger's compute delays added up): a quarter of representable time
/// (2^62 ps, about 53 days), leaving the run room to play out after it.
/// Beyond it a run would end with its clock overflowing, and the error
/// could only guess at the key (issue 56: a matrix line's `start 1e14`
/// was blamed on `topology.link_delay`).
pub const MAX_PLANNED_PS: u64 = 1 << 62;

/// Checks that `what` (a time a workload plans, at `ps` picoseconds, or
/// `None` where the sum overflowed) is at most [`MAX_PLANNED_PS`]: the
/// key at fault and why.
fn check_planned(key: &str, what: &str, ps: Option<u64>) -> Result<(), (String, String)> {
    match ps {
        Some(t) if t <= MAX_PLANNED_PS => Ok(()),
        _ => Err((key.into(), planned_too_late(what))),
    }
}

/// Why a planned time past [`MAX_PLANNED_PS`] is refused.
fn planned_too_late(what: &str) -> String {
    format!(
        "{what} is past {} (2^62 ps), the latest a workload may plan: a run needs the \
         rest of representable time (2^64 ps, 213 days) to play out",
        SimDuration::from_ps(MAX_PLANNED_PS)
    )
}

/// The latest start a jittered flow may have, if it is at most
/// [`MAX_PLANNED_PS`].
fn start_plus_jitter(
    start: SimDuration,
    jitter: SimDuration,
) -> Result<SimDuration, (String, String)> {
    let latest = start.ps().checked_add(jitter.ps());
    let key = if jitter == SimDuration::ZERO {
        "start"
    } else {
        "start_jitter"
    };
    check_planned(key, "start + start_jitter", latest)?;
    Ok(SimDuration::from_ps(latest.unwrap_or(0)))
}

fn priority_zero() -> u8 {
    0
}

fn default_packet_size() -> Bytes {
    Bytes(1500)
}

/// `kind = "poisson-packets"`: an open-loop source with exponential gaps
/// (an M/D/1 input when sizes are fixed), for validating the queue model.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoissonPackets {
    src: u32,
    dst: u32,
    #[serde(default = "default_packet_size")]
    packet_size: Bytes,
    load: f64,
    #[serde(default)]
    start: SimDuration,
    stop: Option<SimDuration>,
    packets: Option<u64>,
    #[serde(default = "priority_zero")]
    priority: u8,
}

impl Workload for PoissonPackets {
    fn kind(&self) -> &'static str {
        "poisson-packets"
    }
    fn uses_transport(&self) -> bool {
        false
    }
    fn priority(&self) -> u8 {
        self.priority
    }
    fn check(&self, hosts: u32) -> Result<(), (String, String)> {
        check_endpoints(self.src, self.dst, hosts)?;
        if !(self.load > 0.0 && self.load < 1.0) {
            let msg = format!(
                "load {} is out of range: it must be above 0 and below 1",
                self.load
            );
            return Err(("load".into(), msg));
        }
        check_packet_size(self.packet_size, "IP+UDP headers")?;
        check_stop(self.start, self.stop)
    }
    fn endless(&self) -> Option<&'static str> {
        (self.stop.is_none() && self.packets.is_none())
            .then_some("a packet source with neither stop nor packets")
    }
    fn plan(&self, _env: &PlanEnv<'_>) -> Plan {
        Plan {
            flows: Vec::new(),
            sources: vec![SourcePlan {
                src: self.src,
                dst: self.dst,
                packet_size: self.packet_size.0 as u32,
                start: self.start,
                stop: self.stop,
                packets: self.packets,
                gaps: Gaps::Poisson { load: self.load },
                echo: false,
            }],
            ..Plan::default()
        }
    }
}

/// Reads a workload of type `T`, checks its priority and hosts.
fn parse<T: Workload + DeserializeOwned + 'static>(t: &Table<'_>) -> Result<Spec, ScenarioError> {
    accept(t, t.read::<T>()?)
}

/// Checks a workload read from `t` (its priority, then its own checks
/// against the topology) and wraps it.
fn accept<W: Workload + 'static>(t: &Table<'_>, w: W) -> Result<Spec, ScenarioError> {
    // The highest priority it uses.
    let (p, ctx) = (
        w.priority() as usize + w.priority_span() as usize - 1,
        t.ctx(),
    );
    let limit = if ctx.pfc {
        ctx.priorities.min(8)
    } else {
        ctx.priorities
    };
    if p >= limit {
        let why = if ctx.pfc && p >= 8 {
            "PFC is on, and its (802.1p) priorities are 0 to 7".to_string()
        } else if limit < net::packet::PRIORITIES {
            format!(
                "switch.class_of_priority lists priorities 0 to {} only",
                limit - 1
            )
        } else {
            format!("priorities (DSCP classes) are 0 to {}", limit - 1)
        };
        return Err(t.invalid("priority", format!("priority {p} does not exist: {why}")));
    }
    w.check(ctx.hosts).map_err(|(k, m)| t.invalid(&k, m))?;
    Ok(Checked::new(Arc::new(w)))
}

const PRIORITY: Key = key(
    "priority",
    "0",
    "0 to 63 (0 to 7 with PFC)",
    "service class (DSCP class) of its packets (switch.class_of_priority maps it to a queue)",
);

const START_JITTER: Key = key(
    "start_jitter",
    "0s",
    "duration, >= 0",
    "each flow starts later by a uniform draw from [0, start_jitter), from the seed",
);

/// The rows.
#[rustfmt::skip]
pub static FAMILY: Family<Spec> = Family {
    name: "workload",
    table: "workload",
    default: None,
    kinds: &[
        row("incast", "many senders to one receiver, starting together (up to start_jitter), in rounds", "R-AQM VI-B", &[
            key("receiver", "required", "host", "the receiving host"),
            key("senders", "required", "hosts", "the senders: [1, 2, 3] or \"1-16\""),
            key("size", "required", "size", "bytes each sender sends per round"),
            key("start", "0s", "duration, >= 0", "when the first round starts"),
            START_JITTER,
            key("rounds", "1", "integer", "rounds, each with new connections"),
            key("interval", "none", "duration, > 0", "open loop: round r starts at start + r x interval"),
            key("round_gap", "0s", "duration, >= 0", "closed loop (without interval): the next round starts this long after the receiver has all of the last"),
            PRIORITY,
        ], parse::<incast::Incast>),
        row("long-flows", "flows between given pairs, bounded by size or stop, together or each on its own schedule", "FairQ Fig. 2", &[
            key("pairs", "none", "[[src, dst], ...]", "the flows' hosts, sharing start, stop and size (or give schedule)"),
            key("schedule", "none", "[{ src, dst, start, stop, size }, ...]", "each flow with its own times; absent keys are the workload's"),
            key("start", "0s", "duration, >= 0", "when the flows start"),
            START_JITTER,
            key("stop", "none", "duration, > start", "when the flows stop sending new data"),
            key("size", "none", "size", "bytes per flow (absent: unbounded)"),
            PRIORITY,
        ], parse::<long_flows::LongFlows>),
        row("shuffle", "all-to-all: per ordered pair one elephant and K mice", "R-AQM VI-C", &[
            key("hosts", "required", "hosts", "the hosts; each sends to every other"),
            key("elephant_size", "500KB", "size", "the elephant of each pair"),
            key("mice", "50", "integer", "mice per pair (K)"),
            key("mouse_size", "5KB", "size", "each mouse"),
            key("load", "none", "fraction", "flows arrive per sender in random order as a Poisson process at this load (absent: all at start)"),
            key("start", "0s", "duration, >= 0", "when flows start (or arrivals begin, with load)"),
            START_JITTER,
            PRIORITY,
        ], parse::<shuffle::Shuffle>),
        row("permutation", "each host sends to exactly one other and receives from one (a seeded derangement)", "", &[
            key("hosts", "required", "hosts", "the hosts, at least 2"),
            key("size", "none", "size", "bytes per flow (absent: unbounded, until stop)"),
            key("start", "0s", "duration, >= 0", "when the flows start"),
            START_JITTER,
            key("stop", "none", "duration, > start", "when the flows stop sending new data"),
            PRIORITY,
        ], parse::<permutation::Permutation>),
        row("ping", "echo probes at a fixed interval, each RTT recorded", "MQ-ECN 2, 6", &[
            key("src", "required", "host", "the probing host"),
            key("dst", "required", "host", "the host that echoes"),
            key("interval", "required", "duration, > 0", "time between probes"),
            key("packet_size", "84B", "size", "IP size of a probe and its reply (Linux ping's default)"),
            key("start", "0s", "duration, >= 0", "the first probe"),
            key("stop", "none", "duration, > start", "no probe after this"),
            key("count", "none", "integer", "send this many probes"),
            PRIORITY,
        ], parse::<ping::Ping>),
        row("poisson-packets", "open-loop packets with exponential gaps (M/D/1 input)", "", &[
            key("src", "required", "host", "the sending host"),
            key("dst", "required", "host", "the receiving host"),
            key("packet_size", "1500B", "size", "IP size of every packet"),
            key("load", "required", "fraction", "offered load of the source link on the wire, 0 < load < 1"),
            key("start", "0s", "duration, >= 0", "earliest first arrival"),
            key("stop", "none", "duration, > start", "no arrival after this"),
            key("packets", "none", "integer", "send this many packets, then stop"),
            PRIORITY,
        ], parse::<PoissonPackets>),
        row("flows", "Poisson flow arrivals at a target load, sizes from a flow-size CDF", "MQ-ECN 5; R-AQM VI; RCC V-A", &[
            key("cdf", "required", "name or path", "a shipped CDF (websearch, datamining, fb_hadoop, fb_webserver, fb_cachefollower; variants websearch_hpcc, fb_hadoop_homa, fb_hadoop_mqecn, fb_cache_mqecn) or a CDF file, relative to the scenario"),
            key("load", "required", "fraction", "flow bytes offered per sender, as a fraction of its host link rate, 0 < load <= 1"),
            key("hosts", "none", "hosts", "random pairs among these hosts (or give senders and receivers)"),
            key("senders", "none", "hosts", "the hosts that start flows"),
            key("receivers", "none", "hosts", "each flow goes to one of these, uniformly (never its sender)"),
            key("start", "0s", "duration, >= 0", "arrivals start after this"),
            key("stop", "none", "duration, > start", "no arrival at or after this (stop or flows, or both)"),
            key("flows", "none", "integer", "at most this many flows in all, the earliest"),
            PRIORITY,
            key("services", "1", "1 to 64", "spread the (sender, receiver) pairs evenly over this many services: pair (i, j) has priority `priority` + (j x hosts + i) mod services (MQ-ECN 5.2's ns-2 mapping)"),
        ], flows::parse),
        row("collective", "a training job: its collectives each iteration, after compute, over a group of ranks, each step after the receipts it needs", "nccl-tests; htsim's allreduce and alltoall generators", &[
            key("hosts", "required", "hosts", "the job's hosts, at least 2: [1, 2, 5] or \"0-15\""),
            key("placement", "packed", "packed, striped or random", "rank order: the hosts as given (hosts are numbered rack by rack), round-robin over their racks, or a shuffle from the seed"),
            key("op", "required", "all-reduce, all-gather, reduce-scatter, all-to-all, broadcast or reduce", "the collective operation"),
            key("algorithm", "ring (all-to-all: direct)", "ring, halving-doubling, tree, hierarchical or hierarchical-tree (all-reduce), direct or serialised (all-to-all)", "how the operation is carried out"),
            key("size", "required", "size", "the buffer each rank holds (nccl-tests' size): an all-reduce's gradient, an all-to-all's total per rank"),
            key("channels", "1", "1 to 64", "run the algorithm over this many slices of the buffer in parallel, each its own connections"),
            key("chunk", "none", "size", "cut each step's transfer into pieces of this size, each forwarded as it arrives (pipelining)"),
            key("root", "0", "rank", "the root of a broadcast or reduce (those only)"),
            key("then", "none", "[{ op, algorithm, size, channels, chunk, root }, ...]", "more collectives in each iteration, in order: each rank starts the next when its part of the one before is done"),
            key("iterations", "1", "1 to 1000000", "iterations of the job, each after compute"),
            key("compute", "0s", "duration, >= 0", "compute before each iteration: rank r starts iteration i + 1 this long after its part of iteration i is done"),
            key("start", "0s", "duration, >= 0", "when the job starts (its first compute)"),
            PRIORITY,
        ], collective::parse),
        row("chakra", "a training job from MLCommons Chakra execution traces, one per rank: compute nodes for their duration, collectives and sends over the network, each node after its dependencies, compute overlapping communication where they allow", "MLCommons Chakra et_def.proto (21585d8); ASTRA-sim Workload.cc, HardwareResource.cc (518bd51)", &[
            key("trace", "required", "path prefix", "the traces, relative to the scenario: PREFIX.0.et, PREFIX.1.et, ... (ASTRA-sim's naming), one per rank"),
            key("hosts", "required", "hosts", "the job's hosts, one per rank (as many as trace files)"),
            key("placement", "packed", "packed, striped or random", "rank order over the hosts, as a collective's"),
            key("groups", "none", "{ NAME = [ranks], ... }", "the communicator groups a collective's pg_name names (ASTRA-sim's comm-group file); a collective without pg_name runs over every rank"),
            key("algorithms", "each op's default", "{ all-reduce = \"ring\", all-to-all = \"direct\", ... }", "the algorithm of each collective operation (a collective's algorithms)"),
            key("channels", "1", "1 to 64", "each collective runs over this many slices of its buffer in parallel"),
            key("chunk", "none", "size", "cut each collective transfer into pieces of this size (pipelining)"),
            key("iterations", "1", "1 to 100000", "run the trace this many times: rank r starts iteration i + 1 when its nodes of iteration i are done"),
            key("start", "0s", "duration, >= 0", "when every rank starts its first iteration"),
            PRIORITY,
        ], chakra::parse),
        row("htsim-matrix", "the connections and triggers of an htsim connection matrix, so that the same traffic runs in both simulators", "uet-htsim connection_matrix.cpp, trigger.h (40ccb05)", &[
            key("file", "required", "path", "the matrix file, relative to the scenario: SRC->DST lines with start (us) or trigger, size, send_done_trigger and recv_done_trigger; trigger lines (oneshot, multishot, barrier with count)"),
            key("triggers", "notify", "notify | instant", "how an activation reaches a target sent from another host: a notify_size message over the network, or at once as htsim's global triggers (not physical; the run stays in one LP)"),
            key("notify_size", "64B", "size", "the message that carries a trigger's activation to a host where it did not happen (triggers = \"notify\" only)"),
            key("start", "0s", "duration, >= 0", "added to every connection's start"),
            PRIORITY,
        ], matrix::parse),
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    fn set(toml_value: &str) -> Result<Vec<u32>, String> {
        #[derive(Deserialize)]
        struct T {
            hosts: HostSet,
        }
        toml::from_str::<T>(&format!("hosts = {toml_value}"))
            .map(|t| t.hosts.iter().collect())
            .map_err(|e| e.to_string())
    }

    /// Issue 58: a job on the even hosts is `"0-127/2"`, not 64 numbers.
    #[test]
    fn host_sets_take_strides_and_mixed_lists() {
        assert_eq!(set("\"0-6/2\"").unwrap(), [0, 2, 4, 6]);
        assert_eq!(set("\"1-8/3\"").unwrap(), [1, 4, 7]);
        assert_eq!(set("[\"0-1\", 9, \"4-8/4\"]").unwrap(), [0, 1, 9, 4, 8]);
        let hs: HostSet =
            toml::from_str::<std::collections::BTreeMap<String, HostSet>>("h = \"1-8/3\"")
                .unwrap()
                .remove("h")
                .unwrap();
        assert_eq!(hs.max(), Some(7));
        assert!(hs.contains(4) && !hs.contains(5) && !hs.contains(8));
        assert!(set("\"0-6/0\"").unwrap_err().contains("stride"));
        assert!(set("\"6-0\"").unwrap_err().contains("not a host range"));
        assert!(set("[1, 2.5]").unwrap_err().contains("a host index"));
    }
}

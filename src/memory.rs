//! The memory a run will need, estimated from the scenario before anything
//! is built, and the limit it is held to.
//!
//! A scenario that asks for more than the machine has must be refused with
//! a sentence, not end in `memory allocation of N bytes failed` and SIGABRT
//! halfway through building. The estimate counts what a run allocates up
//! front and keeps: ports and their class queues, the routing table, flows
//! with their endpoints, packet sources and their first events. Packets are
//! allocated as traffic flows and are bounded by what the buffers hold; the
//! estimate includes the arena's initial reserve only.
//!
//! The default limit is three quarters of the machine's physical memory (read
//! from `/proc/meminfo`; 8 GiB where that file does not exist), leaving room
//! for the operating system and the packets. `--max-memory` changes it.

use crate::registry::workload::Planned;
use crate::scenario::Scenario;
use crate::world::{Event, Flow, Source};
use net::packet::Packet;
use net::port::{ClassStats, PacketQueue, Port};
use std::fmt;
use std::mem::size_of;

/// Heap bytes of a port beyond its struct and class queues: its AQM state,
/// scheduler quanta and, on a long link, its in-flight spill (measured
/// sizes are 100 to 300 B).
const PORT_HEAP_BYTES: u64 = 256;
/// Heap bytes of a flow's two endpoints beyond their structs: reassembly
/// and SACK ranges in the common case.
const FLOW_HEAP_BYTES: u64 = 128;
/// Bytes of one pending event in the event queue: the event, its time and
/// its sequence number, rounded up for the wheel's slot vectors.
const EVENT_BYTES: u64 = size_of::<Event>() as u64 + 24;
/// Bytes the reports take per flow at the end of a run: the summary's
/// per-flow rows and `flows.csv`'s text (measured: 1,000,048 transfers
/// of a collective added 329 MiB to the peak, 345 B each).
const REPORT_BYTES_PER_FLOW: u64 = 352;
/// Bytes the report's row of one port takes at the end of a run
/// (`world::PortRow`: its fields and its name's text); under PFC, its
/// boxed `world::PfcRow` too.
const REPORT_BYTES_PER_PORT: u64 = size_of::<crate::world::PortRow>() as u64 + 32;
/// Bytes of one port's boxed PFC row in the report, under PFC.
const REPORT_BYTES_PER_PFC_PORT: u64 = size_of::<crate::world::PfcRow>() as u64 + 16;
/// A port's PFC state under `[switch.pfc]`: the boxed `PortPfc`, its
/// frame queue's first allocation and the allocator's overhead (measured:
/// a 200,000-host star took 341 MiB more with PFC than without, 894 B a
/// port).
const PFC_PORT_BYTES: u64 = size_of::<net::pfc::PortPfc>() as u64 + 4 * 24 + 64;
/// Packets the arena reserves before the first one is sent.
const ARENA_RESERVE: u64 = 4096;
/// A ping probe's send time and RTT.
const PROBE_BYTES: u64 = 16;
/// An HDR histogram of nanoseconds up to an hour at 3 significant digits
/// (33,792 counters of 8 bytes), rounded up.
const HISTOGRAM_BYTES: u64 = 280_000;
/// The parts a cut run holds once, not once per LP: each LP holds its own
/// ports (and their PFC state), and the routes are shared
/// (`net::fabric::ports`, `net::fabric::Shared`).
const SHARED_BY_LPS: [&str; 3] = ["routing table", HELD_BY_PORT[0], HELD_BY_PORT[1]];
/// The parts of [`SHARED_BY_LPS`] an LP holds for its own ports: in a run
/// across processes a rank holds its LPs' share ([`Estimate::per_rank`]),
/// where it reads the routes whole.
const HELD_BY_PORT: [&str; 2] = ["ports", "PFC state"];
/// The limit where the machine's memory cannot be read.
pub(crate) const FALLBACK_LIMIT_BYTES: u64 = 8 << 30;

/// One part of an estimate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// What it is, e.g. `routing table`.
    pub what: &'static str,
    /// Estimated bytes.
    pub bytes: u64,
    /// The counts it is computed from, in words.
    pub basis: String,
}

/// The memory a run is expected to need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Estimate {
    /// Its parts, largest first.
    pub parts: Vec<Part>,
    /// The flows the workloads plan.
    pub flows: u64,
}

/// The limit an estimate is held to, and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// Bytes.
    pub bytes: u64,
    /// How it was set.
    pub source: LimitSource,
}

/// How a [`Limit`] was set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitSource {
    /// `--max-memory`.
    Flag,
    /// Three quarters of this machine's memory of `total` bytes.
    Machine {
        /// The machine's physical memory.
        total: u64,
    },
    /// Three quarters of the process's address-space limit (`ulimit -v`),
    /// which was below three quarters of the machine's memory.
    AddressSpace {
        /// The limit, in bytes.
        limit: u64,
    },
    /// The machine's memory could not be read.
    Fallback,
}

/// A run whose estimate is above its limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the run needs about {} ({}), above the memory limit of {} ({}); make the \
     scenario smaller or raise the limit with --max-memory",
    human(estimate.total()), estimate.breakdown(), human(limit.bytes), limit.source
)]
pub struct TooLarge {
    /// The estimate.
    pub estimate: Estimate,
    /// The limit it exceeds.
    pub limit: Limit,
}

impl fmt::Display for LimitSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitSource::Flag => write!(f, "set by --max-memory"),
            LimitSource::Machine { total } => {
                write!(f, "3/4 of this machine's {}", human(*total))
            }
            LimitSource::AddressSpace { limit } => {
                write!(
                    f,
                    "3/4 of this process's address-space limit of {}",
                    human(*limit)
                )
            }
            LimitSource::Fallback => write!(f, "the default where the machine's memory is unknown"),
        }
    }
}

/// Bytes in the largest binary unit that keeps the number at least 1.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// The bytes of one port with `classes` class queues: the first class
/// queue is inline in `Port`; a one-class port keeps no per-class counters.
fn port_bytes(classes: u64) -> u64 {
    let more_classes = match classes {
        1 => 0,
        n => (n - 1) * size_of::<PacketQueue>() as u64 + n * size_of::<ClassStats>() as u64,
    };
    size_of::<Port>() as u64 + PORT_HEAP_BYTES + more_classes
}

/// What a run's workloads make: flows, packet sources, ping probes, and
/// the bytes their plans hold while the world is built.
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    flows: u64,
    sources: u64,
    probes: u64,
    plan_bytes: u64,
}

impl Counts {
    /// The planned flows, packet sources and ping probes of a run.
    fn planned(sc: &Scenario, planned: &[Planned]) -> Counts {
        let mut c = Counts::default();
        for (w, p) in sc.workloads.iter().zip(planned) {
            let flows = p.plan.flows.len() as u64;
            c.flows += flows;
            c.plan_bytes = c
                .plan_bytes
                .saturating_add(flows.saturating_mul(w.plan_bytes_per_flow()));
            c.sources += p.plan.sources.len() as u64;
            c.probes = c.probes.saturating_add(
                p.plan
                    .sources
                    .iter()
                    .map(|s| echo_probes(s, sc.simulation.stop_time))
                    .sum(),
            );
        }
        c
    }

    /// The flows the workloads will plan, from the counts they give
    /// without planning (a workload that cannot tell counts none): a
    /// lower bound of [`Counts::planned`].
    fn bounded(sc: &Scenario) -> Counts {
        let hosts = sc.topology.spec.size.hosts;
        let mut c = Counts::default();
        for w in &sc.workloads {
            let flows = w.flows_bound(hosts).unwrap_or(0);
            c.flows = c.flows.saturating_add(flows);
            c.plan_bytes = c
                .plan_bytes
                .saturating_add(flows.saturating_mul(w.plan_bytes_per_flow()));
        }
        c
    }
}

/// The fabric's parts: the routing table, the ports, the packet arena's
/// reserve.
fn fabric_parts(sc: &Scenario) -> Vec<Part> {
    let size = sc.topology.spec.size;
    let (hosts, switches, links) = (size.hosts as u64, size.switches as u64, size.links);
    let edges = size.edges;
    let classes = sc.switch.classes as u64;
    let ports = links.saturating_mul(2);
    vec![
        Part {
            what: "routing table",
            bytes: net::RoutingTable::estimate_bytes(
                hosts + switches,
                hosts,
                switches,
                edges,
                links,
            ),
            basis: format!("{switches} switches x {edges} edge switches"),
        },
        Part {
            what: "ports",
            bytes: ports.saturating_mul(port_bytes(classes)),
            basis: format!("{ports} ports x {classes} classes"),
        },
        Part {
            what: "packets",
            bytes: ARENA_RESERVE * size_of::<Packet>() as u64,
            basis: format!("the arena's first {ARENA_RESERVE}"),
        },
        Part {
            what: "PFC state",
            bytes: if sc.switch.pfc.is_some() {
                ports.saturating_mul(PFC_PORT_BYTES)
            } else {
                0
            },
            basis: format!("{ports} ports"),
        },
    ]
}

/// The workloads' parts in the world: flows, sources, probes, histograms.
fn workload_parts(sc: &Scenario, c: Counts) -> Vec<Part> {
    // Per workload an RTT and a one-way histogram, and one more per
    // workload for the RTT series.
    let histograms = sc.workloads.len() as u64 * (2 + sc.output.rtt_interval.is_some() as u64);
    let flow_bytes = size_of::<Flow>() as u64 + FLOW_HEAP_BYTES + 2 * EVENT_BYTES;
    let source_bytes = size_of::<Source>() as u64 + EVENT_BYTES;
    vec![
        Part {
            what: "flows",
            bytes: c.flows.saturating_mul(flow_bytes),
            basis: format!("{} flows", c.flows),
        },
        Part {
            what: "sources",
            bytes: c.sources.saturating_mul(source_bytes),
            basis: format!("{} packet sources", c.sources),
        },
        Part {
            what: "ping probes",
            bytes: c.probes.saturating_mul(PROBE_BYTES),
            basis: format!("{} probes", c.probes),
        },
        Part {
            what: "delay histograms",
            bytes: histograms * HISTOGRAM_BYTES,
            basis: format!("{histograms} HDR histograms"),
        },
    ]
}

/// What `[routing]` and `[[failure]]` add: flowlet tables (at every
/// switch: an upper bound when some tiers do not run flowlets) and the
/// routes kept from before failures that switches reroute around.
fn path_parts(sc: &Scenario) -> Vec<Part> {
    let size = sc.topology.spec.size;
    let (hosts, switches, links) = (size.hosts as u64, size.switches as u64, size.links);
    let (nodes, edges) = (hosts + switches, size.edges);
    let mut parts = Vec::new();
    let paths = &sc.routing.paths;
    if paths.by_tier.iter().any(|c| c.uses_flowlets()) {
        let entries = switches.saturating_mul(u64::from(paths.flowlet_entries));
        parts.push(Part {
            what: "flowlet tables",
            bytes: entries.saturating_mul(size_of::<net::path_choice::Flowlet>() as u64),
            basis: format!("{switches} switches x {} entries", paths.flowlet_entries),
        });
    }
    if sc.failures.iter().any(|f| f.reroute_after.is_some()) {
        parts.push(Part {
            what: "routes before failures",
            bytes: net::RoutingTable::estimate_bytes(nodes, hosts, switches, edges, links),
            basis: format!("{switches} switches x {edges} edge switches"),
        });
    }
    parts
}

impl Estimate {
    /// Estimates the memory of a run of `sc` with its workloads `planned`.
    pub fn of(sc: &Scenario, planned: &[Planned]) -> Estimate {
        // A partitioned run holds the world's flows, sources and metrics
        // once per logical process, its ports and routes once in all
        // (docs/architecture.md, "Per-LP state").
        let copies = crate::world::partition_for(sc, planned).map_or(1, |p| u64::from(p.lps));
        Self::from_counts(sc, Counts::planned(sc, planned), copies)
    }

    /// The estimate of each process of a run across `ranks` MPI
    /// processes (docs/architecture.md, "Across machines"), by rank: what
    /// every rank reads whole (the routes, the plans), its LPs' ports by
    /// their share of the fabric's, a copy of the world's flows, sources
    /// and metrics per LP it holds, and, on rank 0 alone, the reports;
    /// each with the LPs the rank holds. An `Err` says why the scenario
    /// cannot be spread over `ranks`.
    pub fn per_rank(
        sc: &Scenario,
        planned: &[Planned],
        ranks: u32,
    ) -> Result<Vec<(std::ops::Range<u32>, Estimate)>, String> {
        let partition = crate::world::partition_for(sc, planned)?;
        let graph = sc.topology.spec.shape.build();
        let ports = partition.ports_per_lp(&graph);
        let all_ports: u64 = ports.iter().sum::<u64>().max(1);
        let counts = Counts::planned(sc, planned);
        (0..ranks.max(1))
            .map(|rank| {
                let lps = partition.lps_of_rank(rank, ranks).ok_or_else(|| {
                    format!(
                        "{ranks} processes for a run cut into {} LP{}: a process holds whole \
                         LPs, so at most {} (simulation.lps and simulation.partition set the cut)",
                        partition.lps,
                        if partition.lps == 1 { "" } else { "s" },
                        partition.lps,
                    )
                })?;
                let held: u64 = lps.clone().map(|lp| ports[lp as usize]).sum();
                let mut e = Self::from_counts(sc, counts, u64::from(lps.end - lps.start));
                for p in e.parts.iter_mut() {
                    if HELD_BY_PORT.contains(&p.what) {
                        p.bytes =
                            (u128::from(p.bytes) * u128::from(held) / u128::from(all_ports)) as u64;
                        p.basis = format!("{}, {held} of {all_ports} ports here", p.basis);
                    } else if p.what == "reports" && rank != 0 {
                        p.bytes = 0;
                        p.basis = "rank 0 writes the outputs".into();
                    }
                }
                e.parts
                    .sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.what.cmp(b.what)));
                Ok((lps, e))
            })
            .collect()
    }

    /// A lower bound of [`Estimate::of`] before anything is planned: the
    /// flows each workload says it will plan, one copy of the world. A
    /// run whose bound is over the limit is refused before planning (a
    /// collective of 1-byte chunks planned 14 million transfers, 4 GiB,
    /// before the estimate refused it).
    pub fn before_planning(sc: &Scenario) -> Estimate {
        Self::from_counts(sc, Counts::bounded(sc), 1)
    }

    fn from_counts(sc: &Scenario, counts: Counts, copies: u64) -> Estimate {
        let mut parts = fabric_parts(sc);
        parts.extend(workload_parts(sc, counts));
        parts.extend(path_parts(sc));
        if copies > 1 {
            for p in parts
                .iter_mut()
                .filter(|p| !SHARED_BY_LPS.contains(&p.what))
            {
                p.bytes = p.bytes.saturating_mul(copies);
                p.basis = format!("{}, in each of {copies} LP copies", p.basis);
            }
        }
        // The plans are held while the world is built, and the reports
        // take a few rows per flow at the end: neither is copied per LP.
        let flows = counts.flows;
        let ports = sc.topology.spec.size.links.saturating_mul(2);
        let port_row = match sc.switch.pfc {
            Some(_) => REPORT_BYTES_PER_PORT + REPORT_BYTES_PER_PFC_PORT,
            None => REPORT_BYTES_PER_PORT,
        };
        parts.push(Part {
            what: "plans",
            bytes: counts.plan_bytes,
            basis: format!("{flows} planned flows"),
        });
        parts.push(Part {
            what: "reports",
            bytes: (flows.saturating_mul(REPORT_BYTES_PER_FLOW))
                .saturating_add(ports.saturating_mul(port_row)),
            basis: format!("{flows} flows' and {ports} ports' rows"),
        });
        parts.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.what.cmp(b.what)));
        Estimate { parts, flows }
    }

    /// The whole estimate in bytes.
    pub fn total(&self) -> u64 {
        self.parts
            .iter()
            .fold(0u64, |t, p| t.saturating_add(p.bytes))
    }

    /// The two largest parts, in words.
    fn breakdown(&self) -> String {
        self.parts
            .iter()
            .take(2)
            .map(|p| format!("{} {} for {}", p.what, human(p.bytes), p.basis))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The estimate back if it fits `limit`.
    pub fn check(self, limit: Limit) -> Result<Estimate, TooLarge> {
        if self.total() <= limit.bytes {
            Ok(self)
        } else {
            Err(TooLarge {
                estimate: self,
                limit,
            })
        }
    }
}

impl Limit {
    /// `--max-memory` if given, else three quarters of this machine's
    /// memory or of the process's address-space limit, whichever is less
    /// (a run under `ulimit -v` is refused up front, not killed mid-build).
    pub fn new(flag: Option<u64>) -> Limit {
        let machine = match machine_memory() {
            Some(total) => Limit {
                bytes: total / 4 * 3,
                source: LimitSource::Machine { total },
            },
            None => Limit {
                bytes: FALLBACK_LIMIT_BYTES,
                source: LimitSource::Fallback,
            },
        };
        match (flag, address_space_limit()) {
            (Some(bytes), _) => Limit {
                bytes,
                source: LimitSource::Flag,
            },
            (None, Some(limit)) if limit / 4 * 3 < machine.bytes => Limit {
                bytes: limit / 4 * 3,
                source: LimitSource::AddressSpace { limit },
            },
            (None, _) => machine,
        }
    }
}

/// The soft address-space limit from `/proc/self/limits` (`Max address
/// space`, in bytes), if one is set and readable.
fn address_space_limit() -> Option<u64> {
    soft_address_space(&std::fs::read_to_string("/proc/self/limits").ok()?)
}

/// The soft limit of the `Max address space` row of a `/proc/*/limits` text.
fn soft_address_space(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("Max address space"))?;
    let soft = line
        .trim_start_matches("Max address space")
        .split_whitespace()
        .next()?;
    soft.parse().ok()
}

/// Physical memory from `/proc/meminfo` (`MemTotal`, in KiB), if readable.
fn machine_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The probes an echo source (`ping`) records: its count, or one per
/// interval up to its stop (else the run's `stop_time`).
fn echo_probes(
    s: &crate::registry::workload::SourcePlan,
    run_stop: Option<sim_core::SimDuration>,
) -> u64 {
    use crate::registry::workload::Gaps;
    match (s.echo, s.gaps) {
        (true, Gaps::Periodic { interval }) => {
            let by_time = s.stop.or(run_stop).map_or(u64::MAX, |stop| {
                stop.ps().saturating_sub(s.start.ps()) / interval.ps() + 1
            });
            by_time.min(s.packets.unwrap_or(u64::MAX))
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delay_histogram_fits_its_estimate() {
        let h = hdrhistogram::Histogram::<u64>::new_with_max(3_600_000_000_000, 3).unwrap();
        let bytes = h.distinct_values() as u64 * 8;
        println!("{} counters, {bytes} B", h.distinct_values());
        assert!(bytes <= HISTOGRAM_BYTES && bytes > HISTOGRAM_BYTES * 9 / 10);
    }

    fn estimate(sc: &Scenario) -> Estimate {
        let planned = crate::registry::workload::plan_all(sc, sc.simulation.seed);
        Estimate::of(sc, &planned)
    }

    fn scenario(topology: &str) -> Scenario {
        let text = format!(
            "[topology]\n{topology}\n[switch]\nbuffer = \"100pkt\"\n\
             [[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = \"1-3\"\nsize = \"1MB\"\n"
        );
        crate::scenario::load_str("t.toml", &text, &[]).expect("valid")
    }

    #[test]
    fn routing_grows_with_edge_switches_not_hosts() {
        // A 20,000-host star: one edge switch, so ports dominate (~48 MB).
        let star = estimate(&scenario(
            "kind = \"star\"\nhosts = 20000\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"",
        ));
        assert_eq!(star.parts[0].what, "ports");
        assert!(star.total() < 100 << 20, "{}", star.total());
        // A k = 48 fat-tree: 2,880 switches x 1,152 edge switches.
        let fat = estimate(&scenario(
            "kind = \"k-ary-fat-tree\"\nk = 48\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"",
        ));
        assert!(fat.total() < 2 << 30, "{}", fat.total());
    }

    #[test]
    fn a_cut_run_holds_its_ports_and_routes_once_and_its_flows_per_lp() {
        let ft = "kind = \"k-ary-fat-tree\"\nk = 8\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"";
        let mut sc = scenario(ft);
        sc.simulation.partition = crate::scenario::Cut::None;
        let whole = estimate(&sc);
        sc.simulation.partition = crate::scenario::Cut::Pods;
        sc.simulation.lps = 8;
        let cut = estimate(&sc);
        let part = |e: &Estimate, what: &str| {
            let p = e.parts.iter().find(|p| p.what == what);
            p.unwrap_or_else(|| panic!("{what} counted")).bytes
        };
        for what in SHARED_BY_LPS.iter().filter(|&&w| w != "PFC state") {
            assert_eq!(part(&cut, what), part(&whole, what), "{what}");
        }
        assert_eq!(part(&cut, "flows"), 8 * part(&whole, "flows"));
    }

    /// A process of a run across MPI ranks holds its LPs' copies and
    /// ports, the whole routes and plans, and the reports on rank 0 only.
    #[test]
    fn each_rank_holds_its_lps_its_ports_and_the_routes() {
        let ft = "kind = \"k-ary-fat-tree\"\nk = 8\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"";
        let mut sc = scenario(ft);
        sc.simulation.partition = crate::scenario::Cut::Pods;
        sc.simulation.lps = 8;
        let planned = crate::registry::workload::plan_all(&sc, sc.simulation.seed);
        let whole = Estimate::of(&sc, &planned);
        let ranks = Estimate::per_rank(&sc, &planned, 3).expect("8 LPs over 3 ranks");
        let part = |e: &Estimate, what: &str| {
            let p = e.parts.iter().find(|p| p.what == what);
            p.unwrap_or_else(|| panic!("{what} counted")).bytes
        };
        let lps: Vec<u32> = ranks.iter().map(|(r, _)| r.end - r.start).collect();
        assert_eq!(lps, [2, 3, 3]);
        for (r, e) in &ranks {
            let n = u64::from(r.end - r.start);
            assert_eq!(part(e, "flows"), n * part(&whole, "flows") / 8);
            assert_eq!(part(e, "routing table"), part(&whole, "routing table"));
            assert_eq!(part(e, "plans"), part(&whole, "plans"));
        }
        // The fabric's ports, spread over the ranks (each LP the same share).
        let ports: Vec<u64> = ranks.iter().map(|(_, e)| part(e, "ports")).collect();
        assert_eq!(ports, [2, 3, 3].map(|n| n * part(&whole, "ports") / 8));
        assert_eq!(part(&ranks[0].1, "reports"), part(&whole, "reports"));
        assert!(ranks[1..].iter().all(|(_, e)| part(e, "reports") == 0));
        let too_many = Estimate::per_rank(&sc, &planned, 9).expect_err("9 ranks, 8 LPs");
        assert!(too_many.contains("at most 8"), "{too_many}");
    }

    #[test]
    fn flowlet_tables_count_per_switch() {
        let ft = "kind = \"k-ary-fat-tree\"\nk = 8\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"";
        let mut sc = scenario(ft);
        let plain = estimate(&sc).total();
        sc.routing.paths.by_tier = vec![net::PathChoice::AdaptiveFlowlet];
        let e = estimate(&sc);
        let part = e
            .parts
            .iter()
            .find(|p| p.what == "flowlet tables")
            .expect("counted");
        // 80 switches x 4,096 entries x 16 B.
        assert_eq!(part.bytes, 80 * 4096 * 16);
        assert_eq!(e.total(), plain + part.bytes);
    }

    #[test]
    fn a_run_above_the_limit_is_refused_with_its_parts() {
        let e = estimate(&scenario(
            "kind = \"star\"\nhosts = 17\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"",
        ));
        let total = e.total();
        assert!(
            e.clone()
                .check(Limit {
                    bytes: total,
                    source: LimitSource::Flag
                })
                .is_ok()
        );
        let err = e
            .check(Limit {
                bytes: total - 1,
                source: LimitSource::Flag,
            })
            .expect_err("one byte short");
        let msg = err.to_string();
        assert!(msg.contains("above the memory limit of"), "{msg}");
        assert!(msg.contains("set by --max-memory"), "{msg}");
        assert!(msg.contains("packets"), "{msg}");
    }

    #[test]
    fn the_address_space_limit_is_read_from_proc_limits() {
        let row = |soft: &str| {
            format!(
                "Limit                     Soft Limit           Hard Limit           Units     \n\
                 Max open files            1024                 4096                 files     \n\
                 Max address space         {soft:<20} unlimited            bytes     \n"
            )
        };
        assert_eq!(soft_address_space(&row("1073741824")), Some(1 << 30));
        assert_eq!(soft_address_space(&row("unlimited")), None);
        assert_eq!(soft_address_space("no such row"), None);
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human(512), "512 B");
        assert_eq!(human(3 << 29), "1.5 GiB");
    }
}

//! Warnings at load: runs that are legal but almost surely a slip. Each
//! names its key and says what the run will do; the run goes on.
//! `dcnsim validate`, `run` and `sweep` print them before anything runs.
//!
//! - a failure that cuts a host off while it has traffic (its flows can
//!   only stall);
//! - a failure at or after `stop_time` (it never happens);
//! - a `degrade` so small that the link's rate falls to the 1 bps floor
//!   (1e-12 and 1e-300 would give the same run);
//! - an AQM that drops early (CoDel, PIE, RED without ECN) on a priority
//!   PFC keeps lossless;
//! - what a transport family says of itself against the scenario
//!   (`transport::Family::warnings`: a UEC `rto` below the run's base RTT,
//!   NDP without trimming).

use super::{Scenario, ScenarioError};
use net::{FaultKind, NodeId, NodeKind, TopologyGraph};
use sim_core::{Bandwidth, SimDuration};

/// One warning: the key it concerns and what the run will do.
pub(super) type Warning = (String, String);

/// Every warning of a checked scenario, in a fixed order.
pub(super) fn warnings(sc: &Scenario) -> Vec<Warning> {
    let mut out = Vec::new();
    failure_warnings(sc, &mut out);
    lossless_drops(sc, &mut out);
    family_warnings(sc, &mut out);
    out
}

/// The failures' warnings: never happening, a rate at its floor, a host
/// cut off with traffic.
fn failure_warnings(sc: &Scenario, out: &mut Vec<Warning>) {
    if sc.failures.is_empty() {
        return;
    }
    let graph = sc.topology.spec.shape.build();
    for (i, f) in sc.failures.iter().enumerate() {
        let at = f.at.since(sim_core::SimTime::ZERO);
        if let Some(stop) = sc.simulation.stop_time.filter(|&s| at >= s) {
            out.push((
                format!("failure[{i}].at"),
                format!(
                    "{at} is at or after simulation.stop_time ({stop}): the failure never happens"
                ),
            ));
        }
        if let FaultKind::Degrade(x) = f.kind {
            let rate = graph.cables[f.cable].rate;
            if (rate.bps() as f64 * x) < 1.0 {
                out.push((
                    format!("failure[{i}].degrade"),
                    format!(
                        "{x:e} of {rate} is below 1 bps: the link runs at the 1 bps floor, as it \
                         would for any smaller fraction (a link that carries nothing is `degrade` \
                         left out: the cable goes down)"
                    ),
                ));
            }
        }
    }
    cut_off_hosts(sc, &graph, out);
}

/// Hosts that the links going down cut off from the hosts they exchange
/// traffic with.
fn cut_off_hosts(sc: &Scenario, graph: &TopologyGraph, out: &mut Vec<Warning>) {
    let down: Vec<usize> = (0..sc.failures.len())
        .filter(|&i| sc.failures[i].kind == FaultKind::Down)
        .collect();
    if down.is_empty() {
        return;
    }
    let dead: Vec<usize> = down.iter().map(|&i| sc.failures[i].cable).collect();
    let reach = Reach::new(graph, &dead);
    if (0..reach.hosts.len()).all(|h| reach.with_fabric(h)) {
        return;
    }
    let mut named = vec![false; reach.hosts.len()];
    for (src, dst) in traffic(sc, &reach) {
        for h in [src as usize, dst as usize] {
            if reach.with_fabric(h) || std::mem::replace(&mut named[h], true) {
                continue;
            }
            let node = reach.hosts[h];
            let own = down.iter().copied().find(|&i| {
                let c = &graph.cables[sc.failures[i].cable];
                c.a == node || c.b == node
            });
            let (key, why) = match own {
                Some(i) => (format!("failure[{i}]"), "its own cable goes down"),
                None => (
                    format!("failure[{}]", down[0]),
                    "the links that go down disconnect it",
                ),
            };
            out.push((
                key,
                format!(
                    "cuts host {h} off while it has traffic ({why}): its flows with hosts it \
                     no longer reaches cannot finish, and the run will end as stalled"
                ),
            ));
        }
    }
}

/// The pairs of hosts that cannot reach each other and exchange
/// traffic: from the plans where the workloads count at most a million
/// flows without planning, else each host cut off from the fabric, paired
/// with itself.
fn traffic(sc: &Scenario, reach: &Reach) -> Vec<(u32, u32)> {
    let hosts = sc.topology.spec.size.hosts;
    let bound: Option<u64> = sc.workloads.iter().map(|w| w.flows_bound(hosts)).sum();
    if bound.is_some_and(|b| b <= 1_000_000) {
        let planned = crate::registry::workload::plan_all(sc, sc.simulation.seed);
        return (planned.iter().flat_map(|p| &p.plan.flows))
            .filter(|f| !reach.connected(f.src as usize, f.dst as usize))
            .map(|f| (f.src, f.dst))
            .collect();
    }
    (0..reach.hosts.len() as u32)
        .filter(|&h| !reach.with_fabric(h as usize))
        .map(|h| (h, h))
        .collect()
}

/// Which groups of switches each host reaches over the cables left: the
/// switches that forward to one another form a group (a plane of a
/// multi-plane fabric is one), and a host reaches a group through its
/// cable, or through its NIC node, which forwards only its own packets.
/// Two hosts reach each other when they reach a group in common.
struct Reach {
    /// The host nodes, by host index.
    hosts: Vec<NodeId>,
    /// Each host's groups, sorted.
    groups: Vec<Vec<u32>>,
    /// By host: whether it reaches as many hosts as the best-connected
    /// (the fabric the others are cut off from).
    with_fabric: Vec<bool>,
}

impl Reach {
    fn new(graph: &TopologyGraph, dead: &[usize]) -> Reach {
        let n = graph.nodes.len();
        let mut adjacent: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        for (i, c) in graph.cables.iter().enumerate() {
            if !dead.contains(&i) {
                adjacent[c.a.idx()].push(c.b);
                adjacent[c.b.idx()].push(c.a);
            }
        }
        let forwards = |x: NodeId| {
            !matches!(
                graph.nodes[x.idx()],
                NodeKind::Host
                    | NodeKind::Switch {
                        tier: net::topology::NIC_TIER
                    }
            )
        };
        let group = switch_groups(&adjacent, forwards);
        let hosts: Vec<NodeId> = (0..n as u32)
            .map(NodeId)
            .filter(|x| graph.nodes[x.idx()] == NodeKind::Host)
            .collect();
        let groups: Vec<Vec<u32>> = (hosts.iter())
            .map(|&h| {
                let mut gs: Vec<u32> = Vec::new();
                for &y in &adjacent[h.idx()] {
                    let via = if forwards(y) {
                        vec![y]
                    } else {
                        adjacent[y.idx()].clone()
                    };
                    gs.extend(via.iter().filter(|z| forwards(**z)).map(|z| group[z.idx()]));
                }
                gs.sort_unstable();
                gs.dedup();
                gs
            })
            .collect();
        // Hosts that reach the same groups form a class; the fabric is
        // what the best-connected class reaches.
        let mut classes: std::collections::BTreeMap<&[u32], u64> = Default::default();
        for g in &groups {
            *classes.entry(g.as_slice()).or_insert(0) += 1;
        }
        let meets = |a: &[u32], b: &[u32]| a.iter().any(|g| b.binary_search(g).is_ok());
        let reached = |a: &[u32]| -> u64 {
            (classes.iter())
                .filter(|(b, _)| meets(a, b))
                .map(|(_, n)| n)
                .sum()
        };
        let best = classes.keys().map(|a| reached(a)).max().unwrap_or(0);
        let with_fabric = groups.iter().map(|g| reached(g) == best).collect();
        Reach {
            hosts,
            groups,
            with_fabric,
        }
    }

    /// Whether host `h` reaches as many hosts as the best-connected do.
    fn with_fabric(&self, h: usize) -> bool {
        self.with_fabric[h]
    }

    /// Whether hosts `a` and `b` reach each other (a host reaches itself).
    fn connected(&self, a: usize, b: usize) -> bool {
        a == b
            || self.groups[a]
                .iter()
                .any(|g| self.groups[b].binary_search(g).is_ok())
    }
}

/// Each node's group among the nodes that `forwards` (`u32::MAX` for the
/// others): those that reach one another through forwarding nodes alone.
fn switch_groups(adjacent: &[Vec<NodeId>], forwards: impl Fn(NodeId) -> bool) -> Vec<u32> {
    let mut group = vec![u32::MAX; adjacent.len()];
    let mut next = 0;
    for s in (0..adjacent.len() as u32).map(NodeId) {
        if group[s.idx()] != u32::MAX || !forwards(s) {
            continue;
        }
        let mut stack = vec![s];
        group[s.idx()] = next;
        while let Some(x) = stack.pop() {
            for &y in &adjacent[x.idx()] {
                if group[y.idx()] == u32::MAX && forwards(y) {
                    group[y.idx()] = next;
                    stack.push(y);
                }
            }
        }
        next += 1;
    }
    group
}

/// An AQM that drops early, on a priority that PFC keeps lossless.
fn lossless_drops(sc: &Scenario, out: &mut Vec<Warning>) {
    let Some(pfc) = &sc.switch.pfc else {
        return;
    };
    if !sc.switch.aqm.drops_early() {
        return;
    }
    let lossless = sc
        .workloads
        .iter()
        .any(|w| (0..w.priority_span()).any(|k| pfc.is_lossless(w.priority().saturating_add(k))));
    if lossless {
        out.push((
            "switch.aqm.kind".into(),
            "drops packets before the buffer is full, on a priority PFC keeps lossless: \
             those drops are losses the lossless class exists to prevent (a lossless \
             fabric marks with ECN instead: RED with ecn = true, or step-ecn)"
                .into(),
        ));
    }
}

/// What each transport family says of its settings against the scenario.
fn family_warnings(sc: &Scenario, out: &mut Vec<Warning>) {
    let view = sc.switch.family_view();
    let mut rtt = None;
    let mut base_rtt = || *rtt.get_or_insert_with(|| largest_base_rtt(sc));
    for t in &sc.transports {
        for w in t.config.family_rules().warnings(&view, &mut base_rtt) {
            out.push((t.key(w.key), w.msg));
        }
    }
}

/// The largest unloaded round trip between two hosts of the topology: a
/// full 1,500 B packet's serialisation and propagation out on the
/// longest shortest path, propagation back (the graph's far ends found by
/// two sweeps, exact on the shapes dcnsim builds).
fn largest_base_rtt(sc: &Scenario) -> SimDuration {
    let graph = sc.topology.spec.shape.build();
    let hosts: Vec<NodeId> = (0..graph.nodes.len() as u32)
        .map(NodeId)
        .filter(|n| graph.nodes[n.idx()] == NodeKind::Host)
        .collect();
    let Some(&first) = hosts.first() else {
        return SimDuration::ZERO;
    };
    let far = |from: NodeId| {
        let d = one_way(&graph, from);
        hosts
            .iter()
            .map(|h| (d[h.idx()], *h))
            .filter(|x| x.0.0 != u64::MAX)
            .max()
            .unwrap_or((Ps(0, 0), from))
    };
    let (_, end) = far(first);
    let (Ps(out_ps, back_ps), _) = far(end);
    SimDuration::from_ps(out_ps.saturating_add(back_ps))
}

/// A path's one-way time of a full packet and its propagation alone, ps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Ps(u64, u64);

/// The one-way times from `from` to every node (Dijkstra over packet
/// times; hosts are not crossed).
fn one_way(graph: &TopologyGraph, from: NodeId) -> Vec<Ps> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = graph.nodes.len();
    let mut adjacent: Vec<Vec<(NodeId, Bandwidth, SimDuration)>> = vec![Vec::new(); n];
    for c in &graph.cables {
        adjacent[c.a.idx()].push((c.b, c.rate, c.delay));
        adjacent[c.b.idx()].push((c.a, c.rate, c.delay));
    }
    let mut best = vec![Ps(u64::MAX, u64::MAX); n];
    let mut heap = BinaryHeap::new();
    best[from.idx()] = Ps(0, 0);
    heap.push(Reverse((Ps(0, 0), from)));
    while let Some(Reverse((d, x))) = heap.pop() {
        if d > best[x.idx()] || (x != from && graph.nodes[x.idx()] == NodeKind::Host) {
            continue;
        }
        for &(y, rate, delay) in &adjacent[x.idx()] {
            let step = rate.tx_time(net::packet::MTU_BYTES as u64).ps() + delay.ps();
            let next = Ps(d.0.saturating_add(step), d.1.saturating_add(delay.ps()));
            if next < best[y.idx()] {
                best[y.idx()] = next;
                heap.push(Reverse((next, y)));
            }
        }
    }
    best
}

/// The warnings as located messages: at the key in the file, or at the
/// override that set it.
pub(super) fn located(
    src: &super::error::Source,
    root: &toml::de::DeTable,
    list: Vec<Warning>,
) -> Vec<ScenarioError> {
    list.into_iter()
        .map(|(key, msg)| src.error(super::load::locate(root, &key), &key, msg))
        .collect()
}

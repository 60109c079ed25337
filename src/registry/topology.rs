//! `[topology]`: the network's shape. Each kind checks its sizes with
//! checked arithmetic against [`MAX_NODES`] before anything is built.

use super::{Checked, Family, Key, key, row};
use crate::scenario::{ScenarioError, Table};
use net::{NodeId, NodeKind, TopologyGraph};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use sim_core::{Bandwidth, SimDuration};
use std::fmt::Debug;
use std::sync::Arc;

mod gpus;
use gpus::{
    GPUS_PER_SERVER, GpuKeys, GpuServers, NVLINK_DELAY, NVLINK_RATE, RAIL_KEYS, RailOptimised,
};

/// The most nodes (hosts + switches) a topology may have: far above the
/// largest fabric studied (a k = 48 fat-tree has 30,528), low enough that
/// counts and node ids never overflow.
pub const MAX_NODES: u64 = 1 << 22;

/// The most links a topology may have: port ids are 32-bit and each link
/// is two ports (a k = 48 fat-tree has 82,944 links).
pub const MAX_LINKS: u64 = 1 << 30;

/// A topology's node counts, checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Hosts, numbered `0..hosts`.
    pub hosts: u32,
    /// Switches.
    pub switches: u32,
    /// Cables (each is two ports, one per direction).
    pub links: u64,
    /// Edge switches: those with a host cabled to them (routing is kept per
    /// edge switch, `net::RoutingTable`).
    pub edges: u64,
}

/// A topology kind's config.
pub trait Shape: Debug + Send + Sync {
    /// Its node counts, computed with checked arithmetic and within
    /// [`MAX_NODES`]; or the key at fault and why.
    fn size(&self) -> Result<Size, (String, String)>;
    /// Its graph (only called once `size` has passed).
    fn build(&self) -> TopologyGraph;
    /// The rate of host `host`'s link (a workload's load is a fraction of it).
    fn host_rate(&self, host: u32) -> Bandwidth;
    /// The fastest host link (bounds what a workload may plan).
    fn max_host_rate(&self) -> Bandwidth {
        self.host_rate(0)
    }
    /// Its longest link delay, with the key that sets it.
    fn longest_delay(&self) -> (String, SimDuration);
    /// Every node's name in the papers' words, by node id (hosts first):
    /// `host17`, `tor3`, `agg1`, `core2`, `leaf0`, `spine1`.
    fn node_names(&self) -> Vec<String>;
    /// Its parallel copies of the switches (`planes`; 1 for a shape
    /// without them).
    fn planes(&self) -> u32 {
        1
    }
    /// Hosts under each ToR, numbered ToR by ToR (a workload's `"racks
    /// A-B"` names them); `None` for a shape without racks of equal size.
    fn hosts_per_rack(&self) -> Option<u32> {
        None
    }
    /// GPUs per server (hosts `s x it ..` are server s's); 1 for a shape
    /// whose hosts are no GPUs.
    fn gpus_per_server(&self) -> u32 {
        1
    }
}

/// `prefix0`, `prefix1`, ... for each (prefix, count), in order.
fn numbered(groups: &[(&str, u32)]) -> Vec<String> {
    groups
        .iter()
        .flat_map(|&(prefix, n)| (0..n).map(move |i| format!("{prefix}{i}")))
        .collect()
}

/// The longest link delay a topology may have: a second is 5,000 times a
/// datacenter's cross-pod propagation delay, and keeps every path's delay
/// and every ideal FCT far inside representable time (about 213 days).
pub const MAX_LINK_DELAY: SimDuration = SimDuration::from_secs(1);

/// A checked topology: its shape and node counts.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The shape, which builds the graph.
    pub shape: Checked<dyn Shape>,
    /// Its node counts.
    pub size: Size,
}

/// `n` checked to be at least `min`.
fn at_least(n: u32, min: u32, key: &str) -> Result<u64, (String, String)> {
    if n < min {
        return Err((key.into(), format!("must be at least {min}")));
    }
    Ok(n as u64)
}

/// The product of `factors`, `None` if it overflows.
fn product(factors: &[u64]) -> Option<u64> {
    factors.iter().try_fold(1u64, |acc, &f| acc.checked_mul(f))
}

/// Node and link counts (`None`: overflowed), checked against [`MAX_NODES`]
/// and [`MAX_LINKS`].
fn size(
    hosts: Option<u64>,
    switches: Option<u64>,
    links: Option<u64>,
    edges: u64,
    key: &str,
) -> Result<Size, (String, String)> {
    let total = hosts.zip(switches).and_then(|(h, s)| h.checked_add(s));
    match (hosts, switches, total) {
        (Some(h), Some(s), Some(t)) if t <= MAX_NODES => match links {
            Some(l) if l <= MAX_LINKS => Ok(Size {
                hosts: h as u32,
                switches: s as u32,
                links: l,
                edges,
            }),
            _ => Err((
                key.into(),
                format!(
                    "{} links: a topology may have at most {MAX_LINKS} links",
                    links.map_or("more".to_string(), |l| l.to_string())
                ),
            )),
        },
        _ => {
            let what = match (hosts, switches) {
                (Some(h), Some(s)) => format!("{h} hosts and {s} switches"),
                _ => "more nodes than can be counted".into(),
            };
            Err((
                key.into(),
                format!("{what}: a topology may have at most {MAX_NODES} nodes"),
            ))
        }
    }
}

/// `planes`, checked: 1 to 16.
fn check_planes(planes: u32) -> Result<u64, (String, String)> {
    if !(1..=16).contains(&planes) {
        let msg = format!("{planes}: parallel copies of the fabric, 1 to 16");
        return Err(("planes".into(), msg));
    }
    Ok(planes as u64)
}

/// `s` in `planes` planes (`net::TopologyGraph::planes`): every switch and
/// every cable between switches `planes` times, a NIC node per host with
/// a cable to its host and one to its ToR in each plane; every NIC is an
/// edge. One plane is `s`.
fn plane_size(s: Size, planes: u32) -> Result<Size, (String, String)> {
    let n = check_planes(planes)?;
    if n == 1 {
        return Ok(s);
    }
    let hosts = s.hosts as u64;
    let switches = (s.switches as u64)
        .checked_mul(n)
        .and_then(|x| x.checked_add(hosts));
    let links = (s.links - hosts)
        .checked_mul(n)
        .and_then(|x| x.checked_add(hosts.checked_mul(n + 1)?));
    size(Some(hosts), switches, links, hosts, "planes")
}

/// `names` (hosts first) in `planes` planes: the hosts, `nic0`.., then
/// each plane's switches prefixed `p0-`, `p1-`, ...
fn plane_names(names: Vec<String>, hosts: u32, planes: u32) -> Vec<String> {
    if planes <= 1 {
        return names;
    }
    let (h, switches) = names.split_at(hosts as usize);
    let mut v = h.to_vec();
    v.extend(numbered(&[("nic", hosts)]));
    for p in 0..planes {
        v.extend(switches.iter().map(|s| format!("p{p}-{s}")));
    }
    v
}

/// `kind = "star"`: `hosts` hosts on one switch.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Star {
    hosts: u32,
    link_rate: Bandwidth,
    link_delay: SimDuration,
}

impl Shape for Star {
    fn size(&self) -> Result<Size, (String, String)> {
        let hosts = at_least(self.hosts, 2, "hosts")?;
        size(Some(hosts), Some(1), Some(hosts), 1, "hosts")
    }
    fn host_rate(&self, _host: u32) -> Bandwidth {
        self.link_rate
    }
    fn build(&self) -> TopologyGraph {
        TopologyGraph::star(self.hosts, self.link_rate, self.link_delay)
    }
    fn longest_delay(&self) -> (String, SimDuration) {
        ("link_delay".into(), self.link_delay)
    }
    fn node_names(&self) -> Vec<String> {
        let mut v = numbered(&[("host", self.hosts)]);
        v.push("switch".into());
        v
    }
}

/// `kind = "dumbbell"`: hosts on two switches joined by a bottleneck.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dumbbell {
    left: u32,
    right: u32,
    host_rate: Bandwidth,
    host_delay: SimDuration,
    bottleneck_rate: Bandwidth,
    bottleneck_delay: SimDuration,
}

impl Shape for Dumbbell {
    fn size(&self) -> Result<Size, (String, String)> {
        let hosts = at_least(self.left, 1, "left")? + at_least(self.right, 1, "right")?;
        size(Some(hosts), Some(2), Some(hosts + 1), 2, "right")
    }
    fn host_rate(&self, _host: u32) -> Bandwidth {
        self.host_rate
    }
    fn build(&self) -> TopologyGraph {
        TopologyGraph::dumbbell(
            self.left,
            self.right,
            self.host_rate,
            self.host_delay,
            self.bottleneck_rate,
            self.bottleneck_delay,
        )
    }
    fn longest_delay(&self) -> (String, SimDuration) {
        if self.host_delay >= self.bottleneck_delay {
            ("host_delay".into(), self.host_delay)
        } else {
            ("bottleneck_delay".into(), self.bottleneck_delay)
        }
    }
    fn node_names(&self) -> Vec<String> {
        let mut v = numbered(&[("host", self.left + self.right)]);
        v.extend(["left".to_string(), "right".to_string()]);
        v
    }
}

/// `kind = "leaf-spine"`: every leaf linked to every spine.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeafSpine {
    leaves: u32,
    spines: u32,
    hosts_per_leaf: u32,
    host_rate: Bandwidth,
    fabric_rate: Bandwidth,
    link_delay: SimDuration,
    #[serde(default = "one")]
    planes: u32,
    gpus_per_server: Option<u32>,
    nvlink_rate: Option<Bandwidth>,
    nvlink_delay: Option<SimDuration>,
}

impl LeafSpine {
    /// Its GPU servers (checked by `size`).
    fn gpus(&self) -> Result<GpuServers, (String, String)> {
        let keys = GpuKeys {
            gpus_per_server: self.gpus_per_server,
            nvlink_rate: self.nvlink_rate,
            nvlink_delay: self.nvlink_delay,
        };
        let per_rack = self.hosts_per_leaf as u64;
        keys.check(per_rack * self.leaves as u64, per_rack)
    }

    /// Its size in one plane, without GPU servers.
    fn size_bare(&self) -> Result<Size, (String, String)> {
        let spines = at_least(self.spines, 1, "spines")?;
        let leaves = at_least(self.leaves, 1, "leaves")?;
        let hosts = leaves * at_least(self.hosts_per_leaf, 1, "hosts_per_leaf")?;
        let links = hosts.checked_add(leaves * spines);
        let one = size(
            Some(hosts),
            Some(leaves + spines),
            links,
            leaves,
            "hosts_per_leaf",
        )?;
        plane_size(one, self.planes)
    }
}

impl Shape for LeafSpine {
    fn size(&self) -> Result<Size, (String, String)> {
        let bare = self.size_bare()?;
        self.gpus()?.size(bare)
    }
    fn host_rate(&self, _host: u32) -> Bandwidth {
        Bandwidth::from_bps(self.host_rate.bps().saturating_mul(self.planes as u64))
    }
    fn hosts_per_rack(&self) -> Option<u32> {
        Some(self.hosts_per_leaf)
    }
    fn gpus_per_server(&self) -> u32 {
        self.gpus_per_server.unwrap_or(1)
    }
    fn build(&self) -> TopologyGraph {
        let g = TopologyGraph::leaf_spine(
            self.leaves,
            self.spines,
            self.hosts_per_leaf,
            self.host_rate,
            self.fabric_rate,
            self.link_delay,
        )
        .planes(self.planes);
        self.gpus().expect("checked by size()").build(g)
    }
    fn longest_delay(&self) -> (String, SimDuration) {
        let fabric = ("link_delay".into(), self.link_delay);
        match self.gpus() {
            Ok(g) => g.longest_delay(fabric),
            Err(_) => fabric,
        }
    }
    fn node_names(&self) -> Vec<String> {
        let hosts = self.leaves * self.hosts_per_leaf;
        let names = numbered(&[
            ("host", hosts),
            ("leaf", self.leaves),
            ("spine", self.spines),
        ]);
        let names = plane_names(names, hosts, self.planes);
        match self.gpus() {
            Ok(g) => g.names(names, hosts),
            Err(_) => names,
        }
    }
    fn planes(&self) -> u32 {
        self.planes
    }
}

/// `kind = "fat-tree"`: the three-tier tree of R-AQM and RCC (defaults: 320 hosts).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FatTree {
    #[serde(default = "five")]
    pods: u32,
    #[serde(default = "four")]
    tors_per_pod: u32,
    #[serde(default = "four")]
    aggs_per_pod: u32,
    #[serde(default = "sixteen")]
    cores: u32,
    #[serde(default = "sixteen")]
    hosts_per_tor: u32,
    host_rate: Bandwidth,
    fabric_rate: Bandwidth,
    link_delay: SimDuration,
}

fn five() -> u32 {
    5
}
fn four() -> u32 {
    4
}
fn sixteen() -> u32 {
    16
}

impl Shape for FatTree {
    fn size(&self) -> Result<Size, (String, String)> {
        let aggs = at_least(self.aggs_per_pod, 1, "aggs_per_pod")?;
        let cores = at_least(self.cores, 1, "cores")?;
        if cores % aggs != 0 {
            let msg = format!(
                "{cores} cores cannot be split evenly over {aggs} aggregation switches per pod"
            );
            return Err(("cores".into(), msg));
        }
        let pods = at_least(self.pods, 1, "pods")?;
        let tors = pods * at_least(self.tors_per_pod, 1, "tors_per_pod")?;
        let hosts = product(&[tors, at_least(self.hosts_per_tor, 1, "hosts_per_tor")?]);
        let switches = tors
            .checked_add(pods * aggs)
            .and_then(|s| s.checked_add(cores));
        // Host links, the full mesh of ToRs and aggregations in each pod,
        // and cores / aggs_per_pod up-links from each aggregation switch.
        let links = product(&[tors, aggs])
            .zip(product(&[pods, cores]))
            .zip(hosts)
            .and_then(|((a, b), h)| a.checked_add(b)?.checked_add(h));
        size(hosts, switches, links, tors, "hosts_per_tor")
    }
    fn host_rate(&self, _host: u32) -> Bandwidth {
        self.host_rate
    }
    fn hosts_per_rack(&self) -> Option<u32> {
        Some(self.hosts_per_tor)
    }
    fn build(&self) -> TopologyGraph {
        TopologyGraph::three_tier(
            self.pods,
            self.tors_per_pod,
            self.aggs_per_pod,
            self.cores,
            self.hosts_per_tor,
            self.host_rate,
            self.fabric_rate,
            self.link_delay,
        )
    }
    fn longest_delay(&self) -> (String, SimDuration) {
        ("link_delay".into(), self.link_delay)
    }
    fn node_names(&self) -> Vec<String> {
        let tors = self.pods * self.tors_per_pod;
        numbered(&[
            ("host", tors * self.hosts_per_tor),
            ("tor", tors),
            ("agg", self.pods * self.aggs_per_pod),
            ("core", self.cores),
        ])
    }
}

/// `kind = "k-ary-fat-tree"`: Al-Fares et al.'s fat-tree of even arity k.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KAryFatTree {
    k: u32,
    link_rate: Bandwidth,
    link_delay: SimDuration,
    /// Hosts per ToR as a multiple of its k/2 uplinks: 1 is Al-Fares et
    /// al.'s full bisection; 3 puts 3k/2 hosts under each ToR (3:1).
    #[serde(default = "one")]
    oversubscription: u32,
    #[serde(default = "one")]
    planes: u32,
    gpus_per_server: Option<u32>,
    nvlink_rate: Option<Bandwidth>,
    nvlink_delay: Option<SimDuration>,
}

fn one() -> u32 {
    1
}

impl KAryFatTree {
    /// Its GPU servers (checked by `size`, after k).
    fn gpus(&self) -> Result<GpuServers, (String, String)> {
        let keys = GpuKeys {
            gpus_per_server: self.gpus_per_server,
            nvlink_rate: self.nvlink_rate,
            nvlink_delay: self.nvlink_delay,
        };
        let per_rack = (self.k / 2 * self.oversubscription) as u64;
        keys.check(per_rack * (self.k as u64 * self.k as u64 / 2), per_rack)
    }

    /// Its size in one plane, without GPU servers.
    fn size_bare(&self) -> Result<Size, (String, String)> {
        let k = self.k as u64;
        if k < 2 || !k.is_multiple_of(2) {
            return Err((
                "k".into(),
                format!("k = {k}: k must be even and at least 2"),
            ));
        }
        let o = self.oversubscription as u64;
        if !(1..=64).contains(&o) {
            let msg = format!("{o}: hosts per ToR as a multiple of its k/2 uplinks, 1 to 64");
            return Err(("oversubscription".into(), msg));
        }
        // k^3/4 x o hosts, k^2 pod switches, k^2/4 cores.
        let pod_links = product(&[k, k, k]).map(|n| n / 4);
        let hosts = pod_links.and_then(|n| n.checked_mul(o));
        let switches = product(&[k, k]).and_then(|k2| k2.checked_add(k2 / 4));
        // The host links, then two layers of k^3/4 links: edge-aggregation, aggregation-core.
        let links = hosts.zip(pod_links).and_then(|(h, p)| h.checked_add(2 * p));
        // k pods of k/2 edge switches.
        let one = size(hosts, switches, links, k * k / 2, "k")?;
        plane_size(one, self.planes)
    }
}

impl Shape for KAryFatTree {
    fn size(&self) -> Result<Size, (String, String)> {
        let bare = self.size_bare()?;
        self.gpus()?.size(bare)
    }
    fn host_rate(&self, _host: u32) -> Bandwidth {
        Bandwidth::from_bps(self.link_rate.bps().saturating_mul(self.planes as u64))
    }
    fn hosts_per_rack(&self) -> Option<u32> {
        Some(self.k / 2 * self.oversubscription)
    }
    fn gpus_per_server(&self) -> u32 {
        self.gpus_per_server.unwrap_or(1)
    }
    fn build(&self) -> TopologyGraph {
        let (k, h, r) = (self.k, self.k / 2, self.link_rate);
        let hosts_per_tor = h * self.oversubscription;
        let g = TopologyGraph::three_tier(k, h, h, h * h, hosts_per_tor, r, r, self.link_delay)
            .planes(self.planes);
        self.gpus().expect("checked by size()").build(g)
    }
    fn longest_delay(&self) -> (String, SimDuration) {
        let fabric = ("link_delay".into(), self.link_delay);
        match self.gpus() {
            Ok(g) => g.longest_delay(fabric),
            Err(_) => fabric,
        }
    }
    fn node_names(&self) -> Vec<String> {
        let h = self.k / 2;
        let hosts = self.k * h * h * self.oversubscription;
        let names = numbered(&[
            ("host", hosts),
            ("tor", self.k * h),
            ("agg", self.k * h),
            ("core", h * h),
        ]);
        let names = plane_names(names, hosts, self.planes);
        match self.gpus() {
            Ok(g) => g.names(names, hosts),
            Err(_) => names,
        }
    }
    fn planes(&self) -> u32 {
        self.planes
    }
}

/// `kind = "explicit"`: hosts `h0..`, switches `s0..`, and the cables between them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Explicit {
    hosts: u32,
    switches: u32,
    switch_tiers: Option<Vec<u8>>,
    links: Vec<LinkSpec>,
}

/// One cable of an explicit topology.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkSpec {
    a: String,
    b: String,
    rate: Bandwidth,
    delay: SimDuration,
}

impl Explicit {
    /// The node index of `"hN"` or `"sM"` (hosts first).
    fn node(&self, name: &str) -> Option<u32> {
        let (kind, num) = name.split_at_checked(1)?;
        let n: u32 = num.parse().ok()?;
        match kind {
            "h" if n < self.hosts => Some(n),
            "s" if n < self.switches => Some(self.hosts + n),
            _ => None,
        }
    }
}

impl Explicit {
    /// The name of node `n` as a file writes it (`h3`, `s0`).
    fn name(&self, n: u32) -> String {
        match n.checked_sub(self.hosts) {
            None => format!("h{n}"),
            Some(s) => format!("s{s}"),
        }
    }

    /// What makes the cables a network: no cable from a node to itself,
    /// exactly one cable per host, and every node reachable from h0. Checked
    /// here, at load, so that the error names the line and the nodes as
    /// written (the world's own check knows only node numbers). Returns the
    /// number of edge switches (those a host is cabled to).
    fn check_structure(&self) -> Result<u64, (String, String)> {
        let nodes = (self.hosts + self.switches) as usize;
        let mut first_link: Vec<Option<usize>> = vec![None; self.hosts as usize];
        let mut edge = vec![false; self.switches as usize];
        let mut root: Vec<u32> = (0..nodes as u32).collect();
        fn find(root: &mut [u32], mut x: u32) -> u32 {
            while root[x as usize] != x {
                root[x as usize] = root[root[x as usize] as usize];
                x = root[x as usize];
            }
            x
        }
        for (i, l) in self.links.iter().enumerate() {
            let (a, b) = (self.node(&l.a), self.node(&l.b));
            let (Some(a), Some(b)) = (a, b) else {
                unreachable!("names checked first")
            };
            if a == b {
                let msg = format!("'{}' is linked to itself", l.a);
                return Err((format!("links[{i}]"), msg));
            }
            for (end, n) in [("a", a), ("b", b)] {
                if n < self.hosts
                    && let Some(j) = first_link[n as usize].replace(i)
                {
                    let msg = format!(
                        "'{}' already has a link (links[{j}]): a host has exactly one",
                        self.name(n)
                    );
                    return Err((format!("links[{i}].{end}"), msg));
                }
            }
            // Hosts are numbered before switches.
            if a.min(b) < self.hosts && a.max(b) >= self.hosts {
                edge[(a.max(b) - self.hosts) as usize] = true;
            }
            let (ra, rb) = (find(&mut root, a), find(&mut root, b));
            root[ra as usize] = rb;
        }
        if let Some(h) = first_link.iter().position(Option::is_none) {
            let msg = format!("'h{h}' has no link: every host needs exactly one");
            return Err(("links".into(), msg));
        }
        let home = find(&mut root, 0);
        if let Some(n) = (1..nodes as u32).find(|&n| find(&mut root, n) != home) {
            let msg = format!(
                "the network is disconnected: '{}' cannot reach 'h0'",
                self.name(n)
            );
            return Err(("links".into(), msg));
        }
        Ok(edge.iter().filter(|&&e| e).count() as u64)
    }
}

impl Shape for Explicit {
    fn size(&self) -> Result<Size, (String, String)> {
        let hosts = at_least(self.hosts, 1, "hosts")?;
        let links = Some(self.links.len() as u64);
        let mut checked = size(
            Some(hosts),
            Some(self.switches as u64),
            links,
            0,
            "switches",
        )?;
        if let Some(t) = &self.switch_tiers
            && (t.len() != self.switches as usize || t.contains(&0))
        {
            let msg = format!(
                "needs {} tiers, one per switch, each at least 1",
                self.switches
            );
            return Err(("switch_tiers".into(), msg));
        }
        for (i, l) in self.links.iter().enumerate() {
            for (end, name) in [("a", &l.a), ("b", &l.b)] {
                if self.node(name).is_none() {
                    let switches = match self.switches {
                        0 => "no switches".to_string(),
                        n => format!("switches s0 to s{}", n - 1),
                    };
                    let msg = format!(
                        "'{name}' is not a node: hosts are h0 to h{}, {switches}",
                        self.hosts - 1
                    );
                    return Err((format!("links[{i}].{end}"), msg));
                }
            }
        }
        checked.edges = self.check_structure()?;
        Ok(checked)
    }
    fn host_rate(&self, host: u32) -> Bandwidth {
        // `size` checked that every host has exactly one cable.
        let me = Some(host);
        self.links
            .iter()
            .find(|l| self.node(&l.a) == me || self.node(&l.b) == me)
            .map_or(Bandwidth::from_bps(1), |l| l.rate)
    }
    fn max_host_rate(&self) -> Bandwidth {
        let to_host = |n: &str| self.node(n).is_some_and(|n| n < self.hosts);
        self.links
            .iter()
            .filter(|l| to_host(&l.a) || to_host(&l.b))
            .map(|l| l.rate)
            .max()
            .unwrap_or(Bandwidth::from_bps(1))
    }
    fn build(&self) -> TopologyGraph {
        let mut g = TopologyGraph::default();
        g.add_nodes(self.hosts, NodeKind::Host);
        for i in 0..self.switches as usize {
            let tier = self.switch_tiers.as_ref().map_or(1, |t| t[i]);
            g.add_node(NodeKind::Switch { tier });
        }
        for l in &self.links {
            let node = |n: &str| NodeId(self.node(n).expect("checked by size()"));
            g.connect(node(&l.a), node(&l.b), l.rate, l.delay);
        }
        g
    }
    fn longest_delay(&self) -> (String, SimDuration) {
        let longest = self.links.iter().enumerate().max_by_key(|(_, l)| l.delay);
        longest.map_or(("links".into(), SimDuration::ZERO), |(i, l)| {
            (format!("links[{i}].delay"), l.delay)
        })
    }
    fn node_names(&self) -> Vec<String> {
        numbered(&[("h", self.hosts), ("s", self.switches)])
    }
}

/// Reads a shape of type `T` and checks its sizes.
fn parse<T: Shape + DeserializeOwned + 'static>(t: &Table<'_>) -> Result<Spec, ScenarioError> {
    let shape: T = t.read()?;
    let size = shape.size().map_err(|(k, m)| t.invalid(&k, m))?;
    let (key, delay) = shape.longest_delay();
    if delay > MAX_LINK_DELAY {
        let msg = format!("{delay}: a link delay may be at most {MAX_LINK_DELAY}");
        return Err(t.invalid(&key, msg));
    }
    Ok(Spec {
        shape: Checked::new(Arc::new(shape)),
        size,
    })
}

/// `planes`, which the leaf-spine and the k-ary fat-tree both take.
const PLANES: Key = key(
    "planes",
    "1",
    "integer, 1 to 16",
    "parallel copies of the switches (planes): each host reaches its ToR in every plane through a NIC of its own, at planes x its rate, which picks a plane per flow by the ECMP hash or per packet when the host sprays; switches named p0-tor0, p1-tor0, ..., NICs nic0, ...",
);

/// `link_delay` of a topology whose every link has one delay.
const LINK_DELAY: Key = key(
    "link_delay",
    "required",
    "duration, 0 to 1s",
    "propagation delay of every link",
);

/// The rows. Every kind also takes the common keys `framing` and `nic_buffer`.
#[rustfmt::skip]
pub static FAMILY: Family<Spec> = Family {
    name: "topology",
    table: "topology",
    default: None,
    kinds: &[
        row("star", "hosts 0..hosts on one switch", "", &[
            key("hosts", "required", "integer", "number of hosts (>= 2)"),
            key("link_rate", "required", "rate", "rate of every host link"),
            key("link_delay", "required", "duration, 0 to 1s", "propagation delay of every host link"),
        ], parse::<Star>),
        row("dumbbell", "left hosts (numbered first) and right hosts on two switches joined by a bottleneck", "", &[
            key("left", "required", "integer", "hosts on the left switch"),
            key("right", "required", "integer", "hosts on the right switch"),
            key("host_rate", "required", "rate", "rate of the host links"),
            key("host_delay", "required", "duration, 0 to 1s", "delay of the host links"),
            key("bottleneck_rate", "required", "rate", "rate of the switch-to-switch link"),
            key("bottleneck_delay", "required", "duration, 0 to 1s", "delay of the switch-to-switch link"),
        ], parse::<Dumbbell>),
        row("leaf-spine", "every leaf linked to every spine; hosts numbered leaf by leaf", "", &[
            key("leaves", "required", "integer", "leaf (ToR) switches"),
            key("spines", "required", "integer", "spine switches"),
            key("hosts_per_leaf", "required", "integer", "hosts under each leaf"),
            key("host_rate", "required", "rate", "host link rate"),
            key("fabric_rate", "required", "rate", "leaf-spine link rate"),
            LINK_DELAY,
            PLANES,
            GPUS_PER_SERVER,
            NVLINK_RATE,
            NVLINK_DELAY,
        ], parse::<LeafSpine>),
        row("fat-tree", "three tiers: ToR and aggregation fully meshed per pod, aggregation j to cores j x cores/aggs_per_pod..", "R-AQM VI-A, RCC V-A (320 hosts)", &[
            key("pods", "5", "integer", "pods"),
            key("tors_per_pod", "4", "integer", "ToR switches per pod"),
            key("aggs_per_pod", "4", "integer", "aggregation switches per pod"),
            key("cores", "16", "integer", "core switches, a multiple of aggs_per_pod"),
            key("hosts_per_tor", "16", "integer", "hosts per ToR"),
            key("host_rate", "required", "rate", "host link rate"),
            key("fabric_rate", "required", "rate", "ToR-aggregation and aggregation-core link rate"),
            LINK_DELAY,
        ], parse::<FatTree>),
        row("k-ary-fat-tree", "Al-Fares et al.'s fat-tree: k pods of k/2 + k/2 switches, (k/2)^2 cores, k^3/4 hosts", "Al-Fares et al., SIGCOMM 2008", &[
            key("k", "required", "integer", "the arity, even and at least 2"),
            key("link_rate", "required", "rate", "rate of every link"),
            LINK_DELAY,
            key("oversubscription", "1", "integer, 1 to 64", "hosts per ToR as a multiple of its k/2 uplinks (3: 3k/2 hosts, 3:1 at the ToR)"),
            PLANES,
            GPUS_PER_SERVER,
            NVLINK_RATE,
            NVLINK_DELAY,
        ], parse::<KAryFatTree>),
        row("rail-optimised", "GPU servers whose NIC r (rail r) is cabled to leaf r of the server's group, every leaf to every spine; each server's GPUs joined by a scale-up switch over NVLink", "NVIDIA DGX SuperPOD reference architecture (rail-optimised)", RAIL_KEYS, parse::<RailOptimised>),
        row("explicit", "hosts h0.., switches s0.. and a list of cables", "", &[
            key("hosts", "required", "integer", "number of hosts, named h0, h1, .."),
            key("switches", "required", "integer", "number of switches, named s0, s1, .."),
            key("switch_tiers", "all 1", "[integer, ...]", "tier of each switch (1 ToR, 2 aggregation, 3 core): salts ECMP"),
            key("links", "required", "[{a, b, rate, delay}, ...]", "the cables: ends by name, rate and delay of each direction"),
        ], parse::<Explicit>),
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    fn counted(shape: &dyn Shape) -> (u64, u64, u64, u64) {
        let g = shape.build();
        // A scale-up switch is no edge: routing is kept per NIC's switch.
        let is_host = |n: NodeId| g.nodes[n.idx()] == NodeKind::Host;
        let is_edge = |n: NodeId| !is_host(n) && !g.nodes[n.idx()].is_scale_up();
        let hosts = g.nodes.iter().filter(|n| **n == NodeKind::Host).count() as u64;
        let switches = g.nodes.len() as u64 - hosts;
        let mut edges: Vec<NodeId> = g
            .cables
            .iter()
            .filter_map(|c| match (is_host(c.a), is_host(c.b)) {
                (true, false) if is_edge(c.b) => Some(c.b),
                (false, true) if is_edge(c.a) => Some(c.a),
                _ => None,
            })
            .collect();
        edges.sort();
        edges.dedup();
        (hosts, switches, g.cables.len() as u64, edges.len() as u64)
    }

    #[test]
    fn sizes_match_the_built_graphs() {
        let rate = Bandwidth::from_bps(10_000_000_000);
        let host = Bandwidth::from_bps(25_000_000_000);
        let delay = SimDuration::from_ps(1);
        let shapes: Vec<Box<dyn Shape>> = vec![
            Box::new(Star {
                hosts: 5,
                link_rate: rate,
                link_delay: delay,
            }),
            Box::new(Dumbbell {
                left: 3,
                right: 2,
                host_rate: host,
                host_delay: delay,
                bottleneck_rate: rate,
                bottleneck_delay: delay,
            }),
            Box::new(LeafSpine {
                leaves: 3,
                spines: 2,
                hosts_per_leaf: 4,
                host_rate: host,
                fabric_rate: rate,
                link_delay: delay,
                planes: 1,
                gpus_per_server: None,
                nvlink_rate: None,
                nvlink_delay: None,
            }),
            Box::new(LeafSpine {
                leaves: 3,
                spines: 2,
                hosts_per_leaf: 4,
                host_rate: host,
                fabric_rate: rate,
                link_delay: delay,
                planes: 3,
                gpus_per_server: Some(2),
                nvlink_rate: Some(rate),
                nvlink_delay: Some(delay),
            }),
            Box::new(FatTree {
                pods: 3,
                tors_per_pod: 2,
                aggs_per_pod: 2,
                cores: 4,
                hosts_per_tor: 3,
                host_rate: host,
                fabric_rate: rate,
                link_delay: delay,
            }),
            Box::new(Explicit {
                hosts: 3,
                switches: 3,
                switch_tiers: None,
                links: [
                    ("h0", "s0"),
                    ("s0", "h1"),
                    ("h2", "s1"),
                    ("s0", "s2"),
                    ("s2", "s1"),
                ]
                .map(|(a, b)| LinkSpec {
                    a: a.into(),
                    b: b.into(),
                    // h2's cable is the fastest host link.
                    rate: if a == "h2" { host } else { rate },
                    delay,
                })
                .to_vec(),
            }),
            Box::new(KAryFatTree {
                k: 6,
                link_rate: rate,
                link_delay: delay,
                oversubscription: 1,
                planes: 1,
                gpus_per_server: Some(3),
                nvlink_rate: Some(rate),
                nvlink_delay: Some(delay),
            }),
            Box::new(gpus::tests::rails(8)),
            Box::new(gpus::tests::rails(4)),
            Box::new(KAryFatTree {
                k: 4,
                link_rate: rate,
                link_delay: delay,
                oversubscription: 3,
                planes: 2,
                gpus_per_server: None,
                nvlink_rate: None,
                nvlink_delay: None,
            }),
        ];
        for s in shapes {
            let z = s.size().expect("valid");
            let size = (z.hosts as u64, z.switches as u64, z.links, z.edges);
            assert_eq!(size, counted(&*s), "{s:?}");
            // Host link rates as the graph has them.
            let g = s.build();
            // A name per node, hosts named as hosts, switches by their tier.
            let names = s.node_names();
            assert_eq!(names.len(), g.nodes.len(), "{s:?}");
            for (n, name) in names.iter().enumerate() {
                let host = g.nodes[n] == NodeKind::Host;
                let host_name = ["host", "h", "gpu"].iter().any(|p| name.starts_with(p));
                assert_eq!(host, host_name, "{s:?}: node {n} is {name}");
                let tier = match g.nodes[n] {
                    NodeKind::Switch { tier } => tier,
                    NodeKind::Host => 0,
                };
                if name.starts_with("tor") || name.starts_with("leaf") {
                    assert_eq!(tier, 1, "{name}");
                } else if name.starts_with("agg") || name.starts_with("spine") {
                    assert_eq!(tier, 2, "{name}");
                } else if name.starts_with("core") {
                    assert_eq!(tier, 3, "{name}");
                } else if name.starts_with("nvswitch") {
                    assert_eq!(tier, net::topology::SCALE_UP_TIER, "{name}");
                } else if name.starts_with("nic") {
                    assert_eq!(tier, net::topology::NIC_TIER, "{name}");
                }
            }
            let hosts = (0..g.nodes.len()).filter(|&n| g.nodes[n] == NodeKind::Host);
            let mut fastest = None;
            for (h, n) in hosts.enumerate() {
                let n = NodeId(n as u32);
                let cable = g
                    .cables
                    .iter()
                    .find(|c| c.a == n || c.b == n)
                    .expect("cabled");
                assert_eq!(cable.rate, s.host_rate(h as u32), "{s:?} host {h}");
                fastest = fastest.max(Some(cable.rate));
            }
            assert_eq!(fastest, Some(s.max_host_rate()), "{s:?}");
        }
    }
}

//! `kind = "chakra"`: a training job given as MLCommons Chakra execution
//! traces, one file per rank (`PREFIX.RANK.et`, ASTRA-sim's naming), run
//! node by node as ASTRA-sim's workload layer runs them
//! (astra-sim `workload/Workload.cc`, `HardwareResource.cc` at 518bd51):
//!
//! - a node runs once every node it depends on (data and control
//!   dependencies alike) is done;
//! - a rank has three streams: GPU compute, GPU communication and host
//!   CPU. A compute node holds its stream (GPU, or CPU where `is_cpu_op`)
//!   for its `duration_micros`; a collective or a send holds the
//!   communication stream from its issue until the rank's part of it is
//!   done; a receive holds none. Nodes ready at once take a free stream
//!   lowest node id first, as ASTRA-sim issues them. Compute therefore
//!   overlaps communication exactly where the trace's dependencies allow;
//! - a collective node is one instance of dcnsim's collective over its
//!   communicator group (`pg_name`, whose ranks the workload's `groups`
//!   lists; without one, every rank of the job): the k-th collective of a
//!   group on each rank is the same instance, as NCCL requires of the
//!   calls on one communicator. Its transfers are flows over the job's
//!   transport, each step after its rank has issued the node and received
//!   what the step needs; the rank's part is done when what it sends is
//!   acknowledged and what it receives has arrived;
//! - a send and a receive are one flow: the k-th send from rank a to rank
//!   b with a tag matches the k-th receive at b from a with that tag;
//! - metadata and invalid nodes do no work (ASTRA-sim passes over them)
//!   but keep their place in the dependencies; remote-memory nodes and the
//!   collectives dcnsim has no algorithm for are refused by name.
//!
//! `comm_size` is what ASTRA-sim's collectives read
//! (`astraccl/native_collectives/collective_algorithm/Ring.cc`): each
//! rank's input buffer, so an all-gather of `comm_size` is nccl-tests'
//! size `comm_size` x its ranks, and the others are nccl-tests' size
//! itself.
//!
//! Iterations repeat the trace: rank r starts iteration i + 1 once its
//! every node of iteration i is done.

use super::collective::algo::{self, Algorithm, Op};
use super::collective::placement::{self, Placement};
use super::{HostSet, Plan, PlanEnv, Spec, Workload, priority_zero};
use crate::scenario::{ScenarioError, Table};
use serde::Deserialize;
use sim_core::{Bytes, SimDuration};
use std::collections::BTreeMap;

mod build;
pub mod read;
pub mod schema;

pub use read::{RankTrace, TraceError, TraceNode, Work};

/// The most ranks a trace job may have (files read, one per rank).
pub const MAX_RANKS: u32 = 1 << 16;

/// A checked `chakra` workload: its plan over rank indices, placed on
/// hosts when the run's seed is known.
#[derive(Debug, Clone)]
pub struct Chakra {
    hosts: HostSet,
    placement: Placement,
    /// The plan with each host field a rank.
    plan: Plan,
    priority: u8,
}

/// The keys as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    trace: String,
    hosts: HostSet,
    #[serde(default)]
    placement: Placement,
    #[serde(default)]
    groups: BTreeMap<String, Vec<u32>>,
    #[serde(default)]
    algorithms: BTreeMap<String, Algorithm>,
    #[serde(default = "one")]
    channels: u32,
    chunk: Option<Bytes>,
    #[serde(default = "one")]
    iterations: u32,
    #[serde(default)]
    start: SimDuration,
    #[serde(default = "priority_zero")]
    priority: u8,
}

fn one() -> u32 {
    1
}

/// The most node runs (nodes over every rank, times iterations) a job
/// may plan: each is one or two triggers, so its plan fits in memory.
pub const MAX_NODE_RUNS: u64 = 1 << 24;

/// The most iterations a trace job may run.
const MAX_ITERATIONS: u32 = 100_000;

/// One trace job as run, for the report: its ranks' hosts and nodes and,
/// per iteration and rank, the triggers whose times tell when each node
/// ran.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TracePlan {
    /// The host of each rank.
    pub ranks: Vec<u32>,
    /// Iterations.
    pub iterations: u32,
    /// Each rank's nodes, in its file's order.
    pub nodes: Vec<Vec<NodeInfo>>,
    /// Per iteration and rank (iteration-major).
    pub parts: Vec<RankPart>,
}

/// A node as the report names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeInfo {
    /// Its id in the trace.
    pub id: u64,
    /// Its name in the trace.
    pub name: String,
    /// What it does.
    pub kind: NodeKind,
}

/// What a node does, in a word (`nodes.csv`'s `kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// Compute on the GPU.
    Compute,
    /// Compute on the host CPU.
    Cpu,
    /// A collective.
    Collective,
    /// A send.
    Send,
    /// A receive.
    Recv,
    /// No work (metadata, invalid).
    Pass,
}

impl NodeKind {
    /// Its name in the outputs.
    pub fn name(self) -> &'static str {
        match self {
            NodeKind::Compute => "compute",
            NodeKind::Cpu => "cpu",
            NodeKind::Collective => "collective",
            NodeKind::Send => "send",
            NodeKind::Recv => "recv",
            NodeKind::Pass => "pass",
        }
    }

    /// Whether it computes (GPU or CPU).
    pub fn computes(self) -> bool {
        matches!(self, NodeKind::Compute | NodeKind::Cpu)
    }

    /// Whether it communicates.
    pub fn communicates(self) -> bool {
        matches!(self, NodeKind::Collective | NodeKind::Send | NodeKind::Recv)
    }

    fn of(w: &Work) -> NodeKind {
        match *w {
            Work::Compute { cpu: false } => NodeKind::Compute,
            Work::Compute { cpu: true } => NodeKind::Cpu,
            Work::Collective { .. } => NodeKind::Collective,
            Work::Send { .. } => NodeKind::Send,
            Work::Recv { .. } => NodeKind::Recv,
            Work::Pass => NodeKind::Pass,
        }
    }
}

/// One rank's part of one iteration: triggers (indices into the plan's
/// triggers; the world's ids once built) whose begin and fire times
/// tell when it ran each node.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RankPart {
    /// The iteration.
    pub iteration: u32,
    /// The rank.
    pub rank: u32,
    /// Fires when the rank starts the iteration.
    pub begin: u32,
    /// Fires when its every node of the iteration is done.
    pub end: u32,
    /// Per node: the trigger that begins it (its delay's begin is the
    /// node's start: the compute, or the issue holding its stream).
    pub entry: Vec<u32>,
    /// Per node: the trigger whose fire ends it.
    pub done: Vec<u32>,
}

impl RankPart {
    /// Its triggers' ids moved up by `base` (a world's numbering).
    pub fn offset_triggers(&mut self, base: u32) {
        self.begin += base;
        self.end += base;
        self.entry.iter_mut().for_each(|t| *t += base);
        self.done.iter_mut().for_each(|t| *t += base);
    }
}

/// Reads a `chakra` workload: every rank's trace, checked and planned.
pub(super) fn parse(t: &Table<'_>) -> Result<Spec, ScenarioError> {
    let k: Keys = t.read()?;
    let ranks = k.hosts.iter().count();
    if ranks == 0 || ranks > MAX_RANKS as usize {
        let msg =
            format!("{ranks} hosts given: a trace job runs 1 to {MAX_RANKS} ranks, one per host");
        return Err(t.invalid("hosts", msg));
    }
    let ranks = ranks as u32;
    let (traces, names) = read_traces(t, &k.trace, ranks)?;
    let bad = |key: &str, m: String| t.invalid(key, m);
    if !(1..=MAX_ITERATIONS).contains(&k.iterations) {
        let msg = format!("{} iterations: give 1 to {MAX_ITERATIONS}", k.iterations);
        return Err(bad("iterations", msg));
    }
    if !(1..=64).contains(&k.channels) {
        return Err(bad(
            "channels",
            format!("{} channels: give 1 to 64", k.channels),
        ));
    }
    if let Some(c) = k.chunk {
        super::check_size("chunk", c).map_err(|(key, m)| bad(&key, m))?;
    }
    super::check_planned("start", "start", Some(k.start.ps())).map_err(|(key, m)| bad(&key, m))?;
    let nodes: u64 = traces.iter().map(|t| t.nodes.len() as u64).sum();
    let runs = nodes.saturating_mul(k.iterations as u64);
    if runs > MAX_NODE_RUNS {
        let msg = format!(
            "{} iterations of {nodes} nodes run {runs} nodes, more than the {MAX_NODE_RUNS} one job \
             may: give fewer iterations",
            k.iterations
        );
        return Err(bad("iterations", msg));
    }
    let algorithms = algorithms(&k.algorithms).map_err(|m| bad("algorithms", m))?;
    for (name, members) in &k.groups {
        check_group(name, members, ranks).map_err(|m| bad("groups", m))?;
    }
    let job = build::Job {
        traces: &traces,
        files: &names,
        groups: &k.groups,
        algorithms,
        channels: k.channels,
        chunk: k.chunk,
        iterations: k.iterations,
        start: k.start,
    };
    let plan = job.plan().map_err(|(key, m)| bad(key, m))?;
    plan.check_triggers()
        .map_err(|e| bad("trace", format!("the trace's dependencies cannot run: {e}")))?;
    let w = Chakra {
        hosts: k.hosts,
        placement: k.placement,
        plan,
        priority: k.priority,
    };
    super::accept(t, w)
}

/// Reads the trace of each of `ranks` ranks (`PREFIX.RANK.et`, the prefix
/// relative to the scenario), refusing one file more: its traces and
/// their paths as written.
fn read_traces(
    t: &Table<'_>,
    prefix: &str,
    ranks: u32,
) -> Result<(Vec<RankTrace>, Vec<String>), ScenarioError> {
    let prefix = t.base_dir().join(prefix);
    let file = |r: u32| {
        let mut name = prefix.as_os_str().to_owned();
        name.push(format!(".{r}.et"));
        std::path::PathBuf::from(name)
    };
    let mut traces = Vec::with_capacity(ranks as usize);
    let mut names = Vec::with_capacity(ranks as usize);
    for r in 0..ranks {
        let path = file(r);
        let at = |e: String| t.invalid("trace", format!("{}: {e}", path.display()));
        let bytes = t.read_input_bytes(&path).map_err(|e| at(e.to_string()))?;
        traces.push(read::read(&bytes, r, ranks).map_err(|e| at(e.to_string()))?);
        names.push(path.display().to_string());
    }
    if std::fs::metadata(file(ranks)).is_ok() {
        let msg = format!(
            "{} exists: the trace has more ranks than the {ranks} hosts given (one host per rank)",
            file(ranks).display()
        );
        return Err(t.invalid("hosts", msg));
    }
    Ok((traces, names))
}

/// The algorithm of each operation: the workload's `algorithms` table
/// (operation name to algorithm), each operation's default otherwise.
fn algorithms(given: &BTreeMap<String, Algorithm>) -> Result<Vec<(Op, Algorithm)>, String> {
    let ops = Op::ALL;
    for (name, &a) in given {
        let Some(&op) = ops.iter().find(|o| o.name() == name) else {
            let valid: Vec<&str> = ops.iter().map(|o| o.name()).collect();
            return Err(format!(
                "'{name}' is not an operation: valid are {}",
                valid.join(", ")
            ));
        };
        let how = algo::implementation(op, a);
        if how.is_some_and(|i| i.by_server) {
            return Err(format!(
                "{} splits a job by GPU server, which a trace's communicator groups do not \
                 follow: give {name} another algorithm",
                a.name()
            ));
        }
        if how.is_none() {
            let valid: Vec<&str> = op.algorithms().map(|a| a.name()).collect();
            return Err(format!(
                "{} cannot run {name}: valid algorithms are {}",
                a.name(),
                valid.join(", ")
            ));
        }
    }
    Ok(ops
        .iter()
        .map(|&op| {
            let a = given.get(op.name()).copied();
            (op, a.unwrap_or(op.default_algorithm()))
        })
        .collect())
}

/// A communicator group's ranks: at least 2, each a rank of the job,
/// none twice.
fn check_group(name: &str, members: &[u32], ranks: u32) -> Result<(), String> {
    if members.len() < 2 {
        return Err(format!(
            "group '{name}' has {} ranks: a collective needs at least 2",
            members.len()
        ));
    }
    let mut seen = vec![false; ranks as usize];
    for &r in members {
        if r >= ranks {
            return Err(format!(
                "group '{name}': rank {r} is not a rank: the job has ranks 0 to {}",
                ranks - 1
            ));
        }
        if std::mem::replace(&mut seen[r as usize], true) {
            return Err(format!("group '{name}': rank {r} is listed twice"));
        }
    }
    Ok(())
}

impl Workload for Chakra {
    fn kind(&self) -> &'static str {
        "chakra"
    }
    fn priority(&self) -> u8 {
        self.priority
    }
    fn check(&self, hosts: u32) -> Result<(), (String, String)> {
        super::distinct_hosts("hosts", &self.hosts, hosts, 1)?;
        Ok(())
    }
    fn endless(&self) -> Option<&'static str> {
        None
    }
    fn flows_bound(&self, _hosts: u32) -> Option<u64> {
        Some(self.plan.flows.len() as u64)
    }
    fn plan_bytes_per_flow(&self) -> u64 {
        let triggers = self.plan.triggers.len().max(1) as u64;
        let per_flow = triggers.div_ceil(self.plan.flows.len().max(1) as u64);
        (size_of::<super::FlowPlan>() as u64)
            + per_flow * (size_of::<super::TriggerPlan>() as u64 + 64)
    }
    fn plan(&self, env: &PlanEnv<'_>) -> Plan {
        let given: Vec<u32> = self.hosts.iter().collect();
        let hosts = placement::place_job(&given, self.placement, env);
        build::placed(&self.plan, &hosts)
    }
}

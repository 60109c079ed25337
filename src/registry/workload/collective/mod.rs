//! `kind = "collective"`: a training job's collective communication. A
//! group of hosts (ranks placed by a rule) runs one collective operation
//! per iteration, each iteration after `compute`: ring, halving-doubling
//! or NCCL's double-binary-tree all-reduce (data parallelism's gradient), ring
//! all-gather and reduce-scatter, direct or serialised all-to-all (expert
//! parallelism), chain broadcast and reduce. Every transfer is a flow over the job's
//! transport; a step's transfer starts when its rank has received what
//! the step needs ([`super::trigger`]), so a slow path or a timeout on one
//! rank stretches every later step and the iteration.
//!
//! `channels` run the algorithm that many times over equal slices of the
//! buffer in parallel (NCCL's channels: separate connections, so ECMP may
//! hash them apart); `chunk` cuts each transfer into pieces that are
//! forwarded as each arrives (NCCL's pipelining). Rank r starts iteration
//! i + 1 `compute` after its part of iteration i is done: everything it
//! receives has arrived and everything it sends is acknowledged (a
//! buffer is reused only then).

use super::trigger::{Done, TriggerPlan};
use super::{
    FlowPlan, HostSet, Plan, PlanEnv, Workload, check_size, distinct_hosts, priority_zero,
};
use serde::Deserialize;
use sim_core::{Bytes, SimDuration};

pub mod algo;
pub mod placement;

use algo::{Algorithm, Op, Transfer};
use placement::Placement;

/// The most transfers (flows) one collective workload may plan: far above
/// a k = 16 fat-tree's all-to-all (1,024 x 1,023 per iteration), low
/// enough that its plan fits in memory.
pub const MAX_TRANSFERS: u64 = 1 << 24;

/// The most iterations a job may run.
const MAX_ITERATIONS: u32 = 1_000_000;
/// Heap bytes of one transfer's trigger: its inputs and targets, two
/// small allocations (with the allocator's overhead, and the plan's
/// vectors' slack as they grow by doubling).
const TRIGGER_HEAP_BYTES: u64 = 96;

/// A checked `collective` workload.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Collective {
    hosts: HostSet,
    #[serde(default)]
    placement: Placement,
    op: Op,
    algorithm: Option<Algorithm>,
    size: Bytes,
    #[serde(default = "one")]
    channels: u32,
    chunk: Option<Bytes>,
    root: Option<u32>,
    /// Collectives after the first in each iteration, in order.
    #[serde(default)]
    then: Vec<OpSpec>,
    #[serde(default = "one")]
    iterations: u32,
    #[serde(default)]
    compute: SimDuration,
    #[serde(default)]
    start: SimDuration,
    #[serde(default = "priority_zero")]
    priority: u8,
    /// Ranks per server, consecutive (set at load from the topology's
    /// GPU servers; 1 where its hosts are no GPUs).
    #[serde(skip, default = "one")]
    local: u32,
}

/// One collective of an iteration: the workload's own keys for the
/// first, a `then` entry for each after it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpSpec {
    op: Op,
    algorithm: Option<Algorithm>,
    size: Bytes,
    #[serde(default = "one")]
    channels: u32,
    chunk: Option<Bytes>,
    root: Option<u32>,
    /// An all-to-all's bytes from each rank to each (MoE's variable
    /// all-to-all, from a trace); `size` is then the mean a rank sends.
    #[serde(skip)]
    pair_bytes: Option<std::sync::Arc<Vec<Vec<u64>>>>,
    /// Ranks per server ([`Collective`]'s).
    #[serde(skip, default = "one")]
    local: u32,
}

fn one() -> u32 {
    1
}

/// One collective carried out (one iteration of a job), for the report.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectivePlan {
    /// Its operation.
    pub op: Op,
    /// Its algorithm.
    pub algorithm: Algorithm,
    /// The job's iteration, from 0.
    pub iteration: u32,
    /// Its place in the iteration (0: the first collective).
    pub index: u32,
    /// When the job started (its `start`, before its first compute).
    pub job_start: SimDuration,
    /// The host of each rank.
    pub ranks: Vec<u32>,
    /// Its size (nccl-tests' size: the buffer each rank holds), bytes.
    pub size: u64,
    /// Its transfers.
    pub transfers: Vec<TransferTag>,
    /// By transfer: the flows of this collective it waits on (none for
    /// its rank's first transfers, which wait on the last iteration).
    pub after: Vec<Vec<u32>>,
}

/// What a transfer of a collective is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransferTag {
    /// The flow (an index into the plan's flows; the world's flow id once
    /// built).
    pub flow: u32,
    /// Its step.
    pub step: u32,
    /// Its channel.
    pub channel: u32,
    /// Its piece within the step's transfer (chunking), from 0.
    pub piece: u32,
    /// The sending rank.
    pub src: u32,
    /// The receiving rank.
    pub dst: u32,
}

impl OpSpec {
    /// One collective as a trace names it.
    pub(crate) fn new(
        op: Op,
        algorithm: Algorithm,
        size: Bytes,
        channels: u32,
        chunk: Option<Bytes>,
        root: Option<u32>,
    ) -> Self {
        OpSpec {
            op,
            algorithm: Some(algorithm),
            size,
            channels,
            chunk,
            root,
            pair_bytes: None,
            local: 1,
        }
    }

    /// A variable all-to-all: rank r sends `bytes[r][d]` to rank d (a
    /// square matrix with a zero diagonal, checked by the caller); its
    /// size is the mean a rank sends.
    pub(crate) fn all_to_all_v(
        algorithm: Algorithm,
        bytes: Vec<Vec<u64>>,
        channels: u32,
        chunk: Option<Bytes>,
    ) -> Self {
        let n = bytes.len().max(1) as u64;
        let total: u64 = bytes.iter().flatten().fold(0, |a, &b| a.saturating_add(b));
        let mut spec = OpSpec::new(
            Op::AllToAll,
            algorithm,
            Bytes(total / n),
            channels,
            chunk,
            None,
        );
        spec.pair_bytes = Some(std::sync::Arc::new(bytes));
        spec
    }

    /// The bytes of schedule transfer `t` (of `n` ranks) in channel
    /// slice `c`: its parts of the buffer, or its pair's bytes.
    fn transfer_bytes(&self, t: &Transfer, n: u32, c: u32) -> u64 {
        match &self.pair_bytes {
            Some(m) => {
                Self::part_bytes(m[t.src as usize][t.dst as usize], self.channels, (c, c + 1))
            }
            None => {
                let slice = Self::part_bytes(self.size.0, self.channels, (c, c + 1));
                Self::part_bytes(slice, n, t.parts)
            }
        }
    }

    fn algorithm(&self) -> Algorithm {
        self.algorithm.unwrap_or(self.op.default_algorithm())
    }

    /// Bytes of parts `a..b` of a buffer of `bytes` cut into `n` parts.
    fn part_bytes(bytes: u64, n: u32, (a, b): (u32, u32)) -> u64 {
        let edge = |k: u32| (bytes as u128 * k as u128 / n as u128) as u64;
        edge(b) - edge(a)
    }

    /// The pieces a transfer of `bytes` is cut into.
    fn pieces(&self, bytes: u64) -> u64 {
        self.chunk.map_or(1, |c| bytes.div_ceil(c.0).max(1))
    }

    /// Its transfers, counting channels and pieces (saturating).
    pub(crate) fn transfers(&self, n: u32) -> u64 {
        let sched = algo::schedule(self.op, self.algorithm(), n, 0, self.local);
        if self.pair_bytes.is_some() {
            return (0..self.channels)
                .flat_map(|c| sched.iter().map(move |t| (c, t)))
                .map(|(c, t)| match self.transfer_bytes(t, n, c) {
                    0 => 0,
                    b => self.pieces(b),
                })
                .fold(0u64, u64::saturating_add);
        }
        let per_channel = self.size.0 / self.channels as u64;
        sched
            .iter()
            .map(|t| self.pieces(Self::part_bytes(per_channel, n, t.parts)))
            .fold(0u64, u64::saturating_add)
            .saturating_mul(self.channels as u64)
    }

    /// Checks it for `n` ranks; its keys are named with `prefix`.
    pub(crate) fn check(&self, n: u32, prefix: &str) -> Result<(), (String, String)> {
        let key = |k: &str| format!("{prefix}{k}");
        let algo = self.algorithm();
        let Some(how) = algo::implementation(self.op, algo) else {
            let valid: Vec<&str> = self.op.algorithms().map(|a| a.name()).collect();
            let msg = format!(
                "{} cannot run {}: valid algorithms are {}",
                algo.name(),
                self.op.name(),
                valid.join(", ")
            );
            return Err((key("algorithm"), msg));
        };
        if how.power_of_two && !n.is_power_of_two() {
            let msg = format!(
                "{} needs a power of two of ranks; hosts gives {n}",
                algo.name()
            );
            return Err((key("algorithm"), msg));
        }
        match (self.op, self.root) {
            (Op::Broadcast | Op::Reduce, Some(r)) if r >= n => {
                let msg = format!("root {r} is not a rank: the job has ranks 0 to {}", n - 1);
                return Err((key("root"), msg));
            }
            (Op::Broadcast | Op::Reduce, _) | (_, None) => {}
            (op, Some(_)) => {
                let msg = format!(
                    "root is broadcast's and reduce's; {} has no root",
                    op.name()
                );
                return Err((key("root"), msg));
            }
        }
        if !(1..=64).contains(&self.channels) {
            let msg = format!("{} channels: give 1 to 64", self.channels);
            return Err((key("channels"), msg));
        }
        check_size(&key("size"), self.size)?;
        let least = n as u64 * self.channels as u64;
        if self.size.0 < least {
            let msg = format!(
                "size {} is below one byte per rank and channel ({least} B for {n} ranks and {} \
                 channels)",
                self.size, self.channels
            );
            return Err((key("size"), msg));
        }
        if let Some(c) = self.chunk {
            check_size(&key("chunk"), c)?;
        }
        Ok(())
    }
}

impl Collective {
    /// The collectives of an iteration, in order.
    fn ops(&self) -> Vec<OpSpec> {
        let first = OpSpec {
            op: self.op,
            algorithm: self.algorithm,
            size: self.size,
            channels: self.channels,
            chunk: self.chunk,
            root: self.root,
            pair_bytes: None,
            local: self.local,
        };
        let then = self.then.iter().map(|o| OpSpec {
            local: self.local,
            ..o.clone()
        });
        std::iter::once(first).chain(then).collect()
    }

    /// Splits its ranks by server for the algorithms that need it, from
    /// the topology's `gpus_per_server` (GPU = host; server = host / it):
    /// they need packed placement and the job's hosts in whole runs of
    /// one server each, all of one length. The key at fault and why.
    fn split_by_server(&mut self, gpus_per_server: u32) -> Result<(), (String, String)> {
        let ops = self.ops();
        let Some(at) = ops
            .iter()
            .position(|o| algo::implementation(o.op, o.algorithm()).is_some_and(|i| i.by_server))
        else {
            return Ok(());
        };
        let key = match at {
            0 => "algorithm".to_string(),
            i => format!("then[{}].algorithm", i - 1),
        };
        let name = ops[at].algorithm().name();
        let fail = |why: String| {
            Err((
                key.clone(),
                format!("{name} splits the job by GPU server: {why}"),
            ))
        };
        if gpus_per_server <= 1 {
            return fail("the topology has no GPU servers (give it gpus_per_server)".into());
        }
        if self.placement != Placement::Packed {
            return fail(
                "it needs placement = \"packed\", so that a server's ranks are consecutive".into(),
            );
        }
        let hosts: Vec<u32> = self.hosts.iter().collect();
        let runs = hosts.chunk_by(|a, b| a / gpus_per_server == b / gpus_per_server);
        let lens: Vec<usize> = runs.clone().map(<[u32]>::len).collect();
        let mut servers: Vec<u32> = runs.map(|r| r[0] / gpus_per_server).collect();
        let count = servers.len();
        servers.sort_unstable();
        servers.dedup();
        if servers.len() != count || lens.iter().any(|&l| l != lens[0]) {
            return fail(format!(
                "its hosts must be whole runs of one server each, all of one length (servers of \
                 {gpus_per_server} GPUs: hosts 0-{}, {}-{}, ...)",
                gpus_per_server - 1,
                gpus_per_server,
                2 * gpus_per_server - 1
            ));
        }
        self.local = lens[0] as u32;
        Ok(())
    }
}

/// Reads a `collective` workload: its own checks, and its split by
/// server against the topology.
pub(super) fn parse(
    t: &crate::scenario::Table<'_>,
) -> Result<super::Spec, crate::scenario::ScenarioError> {
    let mut job: Collective = t.read()?;
    let gpus = t.ctx().gpus_per_server;
    job.split_by_server(gpus)
        .map_err(|(k, m)| t.invalid(&k, m))?;
    super::accept(t, job)
}

impl Collective {
    /// Transfers per iteration (saturating).
    fn transfers_per_iteration(&self, n: u32) -> u64 {
        (self.ops().iter()).fold(0u64, |sum, o| sum.saturating_add(o.transfers(n)))
    }
}

impl Workload for Collective {
    fn kind(&self) -> &'static str {
        "collective"
    }
    fn priority(&self) -> u8 {
        self.priority
    }
    fn check(&self, hosts: u32) -> Result<(), (String, String)> {
        let n = distinct_hosts("hosts", &self.hosts, hosts, 2)?.len() as u32;
        for (i, op) in self.ops().iter().enumerate() {
            let prefix = if i == 0 {
                String::new()
            } else {
                format!("then[{}].", i - 1)
            };
            op.check(n, &prefix)?;
        }
        if !(1..=MAX_ITERATIONS).contains(&self.iterations) {
            let msg = format!("{} iterations: give 1 to {MAX_ITERATIONS}", self.iterations);
            return Err(("iterations".into(), msg));
        }
        super::check_planned("start", "start", Some(self.start.ps()))?;
        // Every iteration waits its compute: the delays alone must fit.
        let computes = (self.compute.ps() as u128) * self.iterations as u128;
        let last = u64::try_from(computes + self.start.ps() as u128).ok();
        super::check_planned(
            "compute",
            &format!("start + {} iterations x compute", self.iterations),
            last,
        )?;
        let total = self
            .transfers_per_iteration(n)
            .saturating_mul(self.iterations as u64);
        if total > MAX_TRANSFERS {
            let msg = format!(
                "the job plans {total} transfers ({} iterations of {}), more than the {MAX_TRANSFERS} \
                 one workload may: use a larger chunk, fewer channels or fewer iterations",
                self.iterations,
                self.transfers_per_iteration(n)
            );
            return Err(("iterations".into(), msg));
        }
        Ok(())
    }
    fn endless(&self) -> Option<&'static str> {
        None
    }
    fn flows_bound(&self, hosts: u32) -> Option<u64> {
        let n = distinct_hosts("hosts", &self.hosts, hosts, 2).ok()?.len() as u32;
        Some(
            self.transfers_per_iteration(n)
                .saturating_mul(self.iterations as u64),
        )
    }
    /// A transfer's row, its tag and its trigger with the trigger's two
    /// lists on the heap (measured: 1,000,048 transfers of a ring
    /// all-reduce planned in 273 MiB, 286 B each).
    fn plan_bytes_per_flow(&self) -> u64 {
        (size_of::<super::FlowPlan>() + size_of::<TransferTag>() + size_of::<TriggerPlan>()) as u64
            + TRIGGER_HEAP_BYTES
    }
    fn plan(&self, env: &PlanEnv<'_>) -> Plan {
        let given: Vec<u32> = self.hosts.iter().collect();
        let ranks = placement::place_job(&given, self.placement, env);
        let mut b = Builder::new(self, ranks);
        for it in 0..self.iterations {
            for k in 0..b.ops.len() {
                b.collective(it, k);
            }
        }
        b.plan
    }
}

/// Plans a job's collectives one after another.
struct Builder<'a> {
    job: &'a Collective,
    ranks: Vec<u32>,
    /// Each collective of an iteration and its schedule.
    ops: Vec<(OpSpec, Vec<Transfer>)>,
    plan: Plan,
    /// Each rank's flows of the last collective: its inputs for the next.
    last: Vec<Vec<(u32, Done)>>,
}

impl<'a> Builder<'a> {
    fn new(job: &'a Collective, ranks: Vec<u32>) -> Self {
        let n = ranks.len() as u32;
        let ops = (job.ops().into_iter())
            .map(|o| {
                let sched = algo::schedule(o.op, o.algorithm(), n, o.root.unwrap_or(0), o.local);
                (o, sched)
            })
            .collect();
        Builder {
            ops,
            last: vec![Vec::new(); n as usize],
            ranks,
            job,
            plan: Plan::default(),
        }
    }

    /// Plans collective `k` of iteration `it`, its ranks' first transfers
    /// started after their part of the collective before.
    fn collective(&mut self, it: u32, k: usize) {
        let at = Stage {
            iteration: it,
            index: k as u32,
            job_start: self.job.start,
            flow_start: self.job.start + self.job.compute,
        };
        let (op, sched) = &self.ops[k];
        let e = expand(&mut self.plan, op, sched, &self.ranks, at);
        self.chain(it, k, e.first, e.ends);
        self.plan.collectives.push(e.coll);
    }

    /// Starts each rank's `first` flows of collective `k` of iteration
    /// `it` (all but the job's very first) after its flows of the
    /// collective before: `compute` later for an iteration's first, at
    /// once for the others. `ends` are kept for the next.
    fn chain(
        &mut self,
        it: u32,
        k: usize,
        mut first: Vec<Vec<u32>>,
        mut ends: Vec<Vec<(u32, Done)>>,
    ) {
        let delay = if k == 0 {
            self.job.compute
        } else {
            SimDuration::ZERO
        };
        for r in 0..first.len() {
            let inputs = std::mem::replace(&mut self.last[r], std::mem::take(&mut ends[r]));
            if (it > 0 || k > 0) && !first[r].is_empty() && !inputs.is_empty() {
                let host = self.ranks[r];
                let targets = std::mem::take(&mut first[r]);
                let t = TriggerPlan::all(host, inputs, delay, targets);
                self.plan.triggers.push(t);
            }
        }
    }
}

/// Where a collective stands in its job.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stage {
    /// The job's iteration.
    pub iteration: u32,
    /// Its place in the iteration.
    pub index: u32,
    /// When the job started.
    pub job_start: SimDuration,
    /// The `start` of its flows (a trigger starts all but the job's
    /// first).
    pub flow_start: SimDuration,
}

/// One collective's flows and step triggers, as planned.
pub(crate) struct Expanded {
    /// The collective, for the report.
    pub coll: CollectivePlan,
    /// Per rank: its transfers that wait on nothing of this collective.
    pub first: Vec<Vec<u32>>,
    /// Per rank: the flows that end its part (the ones it sends,
    /// acknowledged; the ones it receives, arrived).
    pub ends: Vec<Vec<(u32, Done)>>,
    /// Per rank: the triggers that start its later transfers (indices
    /// into the plan's triggers).
    pub steps: Vec<Vec<u32>>,
}

/// Plans collective `op` (its schedule `sched`) over `ranks` (the host of
/// each) into `plan`: every channel's transfers cut into pieces, each
/// waiting on its step's inputs. The ranks' first transfers are left for
/// the caller to start.
pub(crate) fn expand(
    plan: &mut Plan,
    op: &OpSpec,
    sched: &[Transfer],
    ranks: &[u32],
    at: Stage,
) -> Expanded {
    let n = ranks.len() as u32;
    let mut coll = CollectivePlan {
        op: op.op,
        algorithm: op.algorithm(),
        iteration: at.iteration,
        index: at.index,
        job_start: at.job_start,
        ranks: ranks.to_vec(),
        size: op.size.0,
        transfers: Vec::new(),
        after: Vec::new(),
    };
    let mut first = vec![Vec::new(); n as usize];
    let mut ends = vec![Vec::new(); n as usize];
    let mut steps = vec![Vec::new(); n as usize];
    for c in 0..op.channels {
        // Each schedule transfer's pieces (plan flow indices).
        let mut pieces: Vec<Vec<u32>> = Vec::with_capacity(sched.len());
        for t in sched {
            let bytes = op.transfer_bytes(t, n, c);
            if bytes == 0 && op.pair_bytes.is_some() {
                pieces.push(Vec::new()); // a pair with nothing to send
                continue;
            }
            let m = op.pieces(bytes);
            let mut mine = Vec::with_capacity(m as usize);
            for j in 0..m {
                let size = OpSpec::part_bytes(bytes, m as u32, (j as u32, j as u32 + 1));
                let f = transfer(plan, &mut coll, t, (c, j as u32), size, ranks, at);
                ends[t.src as usize].push((f, Done::Sent));
                ends[t.dst as usize].push((f, Done::Received));
                if t.after.is_empty() {
                    first[t.src as usize].push(f);
                    coll.after.push(Vec::new());
                } else {
                    let inputs = piece_inputs(&pieces, &t.after, j as usize, m as usize);
                    coll.after.push(inputs.iter().map(|i| i.0).collect());
                    let host = ranks[t.src as usize];
                    steps[t.src as usize].push(plan.triggers.len() as u32);
                    let trigger = TriggerPlan::all(host, inputs, SimDuration::ZERO, vec![f]);
                    plan.triggers.push(trigger);
                }
                mine.push(f);
            }
            pieces.push(mine);
        }
    }
    Expanded {
        coll,
        first,
        ends,
        steps,
    }
}

/// Plans piece `piece` of channel `channel` of transfer `t`: a flow of
/// `size` bytes between its ranks' hosts, tagged in `coll`.
fn transfer(
    plan: &mut Plan,
    coll: &mut CollectivePlan,
    t: &Transfer,
    (channel, piece): (u32, u32),
    size: u64,
    ranks: &[u32],
    at: Stage,
) -> u32 {
    let f = plan.flows.len() as u32;
    plan.flows.push(FlowPlan {
        src: ranks[t.src as usize],
        dst: ranks[t.dst as usize],
        size: Some(size.max(1)),
        start: at.flow_start,
        start_jitter: SimDuration::ZERO,
        stop: None,
        round: at.iteration,
    });
    coll.transfers.push(TransferTag {
        flow: f,
        step: t.step,
        channel,
        piece,
        src: t.src,
        dst: t.dst,
    });
    f
}

/// The inputs of piece `j` of `m` of a transfer that waits on `after`
/// (schedule indices): piece j of each when they are cut alike (a
/// pipeline), else every piece of each.
fn piece_inputs(pieces: &[Vec<u32>], after: &[usize], j: usize, m: usize) -> Vec<(u32, Done)> {
    let mut inputs = Vec::new();
    for &a in after {
        let theirs = &pieces[a];
        if theirs.len() == m {
            inputs.push((theirs[j], Done::Received));
        } else {
            inputs.extend(theirs.iter().map(|&f| (f, Done::Received)));
        }
    }
    inputs
}

#[cfg(test)]
mod tests;

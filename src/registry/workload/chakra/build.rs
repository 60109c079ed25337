//! A trace job's plan: each node a trigger (two for communication: its
//! issue and its end) at its rank, each dependency a trigger firing
//! another, each collective instance planned by the collective workload's
//! algorithms, each send-receive pair one flow. Ranks stand where hosts
//! will ([`placed`] puts them on hosts).

use super::read::{RankTrace, Work};
use super::{NodeInfo, NodeKind, RankPart, TracePlan};
use crate::registry::workload::collective::algo::{self, Algorithm, Op};
use crate::registry::workload::collective::{MAX_TRANSFERS, OpSpec, Stage, expand};
use crate::registry::workload::{Done, FlowPlan, Hold, Plan, TriggerPlan};
use sim_core::{Bytes, SimDuration};
use std::collections::BTreeMap;

/// A rank's streams, as offsets of its first (ASTRA-sim's
/// `HardwareResource`: one GPU compute, one GPU communication and one CPU
/// operation at a time).
const COMPUTE: u32 = 0;
const COMM: u32 = 1;
const CPU: u32 = 2;
const STREAMS: u32 = 3;

/// What a job's plan is made from.
pub(super) struct Job<'a> {
    pub traces: &'a [RankTrace],
    /// Each rank's file, for errors.
    pub files: &'a [String],
    pub groups: &'a BTreeMap<String, Vec<u32>>,
    pub algorithms: Vec<(Op, Algorithm)>,
    pub channels: u32,
    pub chunk: Option<Bytes>,
    pub iterations: u32,
    pub start: SimDuration,
}

impl Job<'_> {
    fn ranks(&self) -> u32 {
        self.traces.len() as u32
    }

    fn at(&self, rank: u32, node: usize) -> String {
        let n = &self.traces[rank as usize].nodes[node];
        format!(
            "{}: node {} ('{}')",
            self.files[rank as usize], n.id, n.name
        )
    }

    /// The plan, ranks standing for hosts; refused after its first
    /// iteration when its iterations would plan more than
    /// [`MAX_TRANSFERS`] flows.
    /// An error names the key at fault (`trace` or `iterations`).
    pub fn plan(&self) -> Result<Plan, (&'static str, String)> {
        let n = self.ranks();
        let mut plan = Plan {
            streams: (0..n).flat_map(|r| [r; STREAMS as usize]).collect(),
            ..Plan::default()
        };
        let mut trace = TracePlan {
            ranks: (0..n).collect(),
            iterations: self.iterations,
            nodes: (self.traces.iter())
                .map(|t| {
                    (t.nodes.iter())
                        .map(|x| NodeInfo {
                            id: x.id,
                            name: x.name.clone(),
                            kind: NodeKind::of(&x.work),
                        })
                        .collect()
                })
                .collect(),
            parts: Vec::new(),
        };
        let mut last_end: Vec<Option<u32>> = vec![None; n as usize];
        for it in 0..self.iterations {
            let mut parts = Vec::with_capacity(n as usize);
            for r in 0..n {
                let part = self.nodes(&mut plan, it, r, last_end[r as usize]);
                last_end[r as usize] = Some(part.end);
                parts.push(part);
            }
            let at_trace = |m: String| ("trace", m);
            self.collectives(&mut plan, it, &parts).map_err(at_trace)?;
            self.point_to_point(&mut plan, it, &parts)
                .map_err(at_trace)?;
            trace.parts.extend(parts);
            if it == 0 {
                self.check_transfers(plan.flows.len() as u64)?;
            }
        }
        // Streams are taken lowest id first; so are the triggers one
        // fires, in case several ready at once.
        for t in 0..plan.triggers.len() {
            let mut fires = std::mem::take(&mut plan.triggers[t].fires);
            fires.sort_by_key(|&g| (plan.triggers[g as usize].acquire.map(|h| h.order), g));
            plan.triggers[t].fires = fires;
        }
        plan.traces.push(trace);
        Ok(plan)
    }

    /// Refuses a job whose iterations would plan more than
    /// [`MAX_TRANSFERS`] flows, `per` an iteration (measured on the first,
    /// before the others are planned).
    fn check_transfers(&self, per: u64) -> Result<(), (&'static str, String)> {
        let all = per.saturating_mul(self.iterations as u64);
        if all <= MAX_TRANSFERS {
            return Ok(());
        }
        let msg = format!(
            "{} iterations of {per} transfers plan {all}, more than the {MAX_TRANSFERS} one \
             workload may: use fewer iterations, channels or a larger chunk",
            self.iterations
        );
        Err(("iterations", msg))
    }

    /// Rank `r`'s triggers of iteration `it`: one that begins it (at the
    /// job's start, or when `after` fires), its nodes' and one that ends
    /// it; each node waiting on its dependencies.
    fn nodes(&self, plan: &mut Plan, it: u32, r: u32, after: Option<u32>) -> RankPart {
        let tr = &self.traces[r as usize];
        let blank = || TriggerPlan::all(r, Vec::new(), SimDuration::ZERO, Vec::new());
        let mut begin = blank();
        begin.needs = 1;
        if after.is_none() {
            begin.start = Some(self.start);
        }
        let begin = push(plan, begin);
        if let Some(a) = after {
            plan.triggers[a as usize].fires.push(begin);
        }
        // Node ids in ascending order: ASTRA-sim's order of issue.
        let mut by_id: Vec<usize> = (0..tr.nodes.len()).collect();
        by_id.sort_by_key(|&i| tr.nodes[i].id);
        let mut order = vec![0u64; tr.nodes.len()];
        for (k, &i) in by_id.iter().enumerate() {
            order[i] = (it as u64) << 32 | k as u64;
        }
        let mut entry = Vec::with_capacity(tr.nodes.len());
        let mut done = Vec::with_capacity(tr.nodes.len());
        for (i, node) in tr.nodes.iter().enumerate() {
            let (e, d) = node_triggers(plan, r, node, order[i]);
            entry.push(e);
            done.push(d);
        }
        let mut end = blank();
        end.needs = tr.nodes.len() as u32;
        let end = push(plan, end);
        for (i, node) in tr.nodes.iter().enumerate() {
            if node.deps.is_empty() {
                plan.triggers[begin as usize].fires.push(entry[i]);
            }
            for &d in &node.deps {
                plan.triggers[done[d as usize] as usize]
                    .fires
                    .push(entry[i]);
            }
            plan.triggers[done[i] as usize].fires.push(end);
        }
        RankPart {
            iteration: it,
            rank: r,
            begin,
            end,
            entry,
            done,
        }
    }

    /// The ranks of group `name` (every rank where the node names none).
    fn group(&self, name: Option<&str>) -> Option<Vec<u32>> {
        match name {
            None => Some((0..self.ranks()).collect()),
            Some(g) => self.groups.get(g).cloned(),
        }
    }

    /// Plans each collective instance of iteration `it`: the k-th
    /// collective node of a group on each of its ranks.
    fn collectives(&self, plan: &mut Plan, it: u32, parts: &[RankPart]) -> Result<(), String> {
        // Per group: per rank, its collective nodes in the file's order.
        let mut calls: BTreeMap<Option<&str>, BTreeMap<u32, Vec<usize>>> = BTreeMap::new();
        for (r, tr) in (0u32..).zip(self.traces) {
            for (i, node) in tr.nodes.iter().enumerate() {
                if let Work::Collective { ref group, .. } = node.work {
                    let g = group.as_deref();
                    let Some(members) = self.group(g) else {
                        let known: Vec<&str> = self.groups.keys().map(String::as_str).collect();
                        return Err(format!(
                            "{}: pg_name '{}' is not a group of the workload's groups (given: {})",
                            self.at(r, i),
                            g.unwrap_or_default(),
                            if known.is_empty() {
                                "none".into()
                            } else {
                                known.join(", ")
                            }
                        ));
                    };
                    if !members.contains(&r) {
                        return Err(format!(
                            "{}: rank {r} is not in group '{}' (ranks {members:?})",
                            self.at(r, i),
                            g.unwrap_or_default()
                        ));
                    }
                    calls.entry(g).or_default().entry(r).or_default().push(i);
                }
            }
        }
        let mut index = 0;
        for (g, by_rank) in &calls {
            let members = self.group(*g).unwrap_or_default();
            let count = |r: u32| by_rank.get(&r).map_or(0, Vec::len);
            let most = members.iter().map(|&r| count(r)).max().unwrap_or(0);
            if let Some(&short) = members.iter().find(|&&r| count(r) < most) {
                return Err(format!(
                    "{}: rank {short} calls {} collectives on group '{}', other ranks of it {most}: \
                     every rank of a group makes the same calls",
                    self.files[short as usize],
                    count(short),
                    g.unwrap_or("every rank")
                ));
            }
            let lists: Vec<(u32, &[usize])> = (members.iter())
                .map(|&r| (r, by_rank.get(&r).map_or(&[][..], Vec::as_slice)))
                .collect();
            for k in 0..most {
                let nodes: Vec<(u32, usize)> = lists.iter().map(|&(r, l)| (r, l[k])).collect();
                self.instance(plan, it, index, &nodes, parts)?;
                index += 1;
            }
        }
        Ok(())
    }

    /// Plans one collective instance over `nodes` (rank, node), the
    /// group's ranks in order.
    fn instance(
        &self,
        plan: &mut Plan,
        it: u32,
        index: u32,
        nodes: &[(u32, usize)],
        parts: &[RankPart],
    ) -> Result<(), String> {
        let (op, size) = self.same_calls(nodes)?;
        let g = nodes.len() as u32;
        let algorithm =
            (self.algorithms.iter().find(|a| a.0 == op)).map_or(op.default_algorithm(), |a| a.1);
        let total = if op == Op::AllGather {
            size.saturating_mul(g as u64)
        } else {
            size
        };
        // Chakra's collective nodes name no root: rank 0 of the group.
        let root = matches!(op, Op::Broadcast | Op::Reduce).then_some(0);
        let spec = match self.pair_rows(nodes)? {
            Some(rows) => OpSpec::all_to_all_v(algorithm, rows, self.channels, self.chunk),
            None => OpSpec::new(op, algorithm, Bytes(total), self.channels, self.chunk, root),
        };
        spec.check(g, "").map_err(|(key, m)| {
            format!(
                "{}: {m} ({key} for this collective)",
                self.at(nodes[0].0, nodes[0].1)
            )
        })?;
        let planned = (plan.flows.len() as u64).saturating_add(spec.transfers(g));
        if planned > MAX_TRANSFERS {
            return Err(format!(
                "{}: the job's collectives and sends plan {planned} transfers by here, more than \
                 the {MAX_TRANSFERS} one workload may: use fewer iterations, channels or a larger chunk",
                self.at(nodes[0].0, nodes[0].1)
            ));
        }
        let sched = algo::schedule(op, algorithm, g, 0, 1);
        let ranks: Vec<u32> = nodes.iter().map(|n| n.0).collect();
        let stage = Stage {
            iteration: it,
            index,
            job_start: self.start,
            flow_start: self.start,
        };
        let e = expand(plan, &spec, &sched, &ranks, stage);
        for (p, &(r, i)) in nodes.iter().enumerate() {
            let part = &parts[r as usize];
            let (issue, end) = (part.entry[i] as usize, part.done[i] as usize);
            plan.triggers[issue].targets = e.first[p].clone();
            for &s in &e.steps[p] {
                plan.triggers[s as usize].needs += 1;
                plan.triggers[issue].fires.push(s);
            }
            plan.triggers[end].needs += e.ends[p].len() as u32;
            plan.triggers[end].inputs = e.ends[p].clone();
        }
        plan.collectives.push(e.coll);
        Ok(())
    }

    /// The operation and size every rank of an instance calls (`nodes`:
    /// (rank, node)), or why they differ.
    fn same_calls(&self, nodes: &[(u32, usize)]) -> Result<(Op, u64), String> {
        let work = |&(r, i): &(u32, usize)| &self.traces[r as usize].nodes[i].work;
        let (op, size, varies) = match work(&nodes[0]) {
            Work::Collective {
                op, size, sizes, ..
            } => (*op, *size, sizes.is_some()),
            _ => unreachable!("collected as collectives"),
        };
        for n in &nodes[1..] {
            if let Work::Collective {
                op: o,
                size: s,
                sizes,
                ..
            } = work(n)
                && (*o != op || sizes.is_some() != varies || (!varies && *s != size))
            {
                return Err(format!(
                    "{}: {} of {s} B, where rank {} calls {} of {size} B in the same place: the \
                     ranks of a group make the same calls",
                    self.at(n.0, n.1),
                    o.name(),
                    nodes[0].0,
                    op.name()
                ));
            }
        }
        Ok((op, size))
    }

    /// A variable all-to-all's matrix: each rank's `comm_sizes` row (one
    /// entry per rank of the group, nothing to itself), or `None` for a
    /// collective without.
    fn pair_rows(&self, nodes: &[(u32, usize)]) -> Result<Option<Vec<Vec<u64>>>, String> {
        let g = nodes.len();
        let mut rows = Vec::with_capacity(g);
        for (p, &(r, i)) in nodes.iter().enumerate() {
            let Work::Collective {
                sizes: Some(row), ..
            } = &self.traces[r as usize].nodes[i].work
            else {
                return Ok(None);
            };
            if row.len() != g {
                return Err(format!(
                    "{}: comm_sizes has {} entries for a group of {g} ranks: give one per rank",
                    self.at(r, i),
                    row.len()
                ));
            }
            if row[p] != 0 {
                return Err(format!(
                    "{}: comm_sizes gives {} B to this rank itself (entry {p}): an all-to-all \
                     sends nothing to itself; give 0",
                    self.at(r, i),
                    row[p]
                ));
            }
            if let Some(&b) = row.iter().find(|&&b| b > super::super::MAX_FLOW_BYTES) {
                return Err(format!(
                    "{}: comm_sizes entry {b} B is above 1 PB",
                    self.at(r, i)
                ));
            }
            rows.push(row.clone());
        }
        Ok(Some(rows))
    }

    /// Pairs iteration `it`'s sends and receives into flows.
    fn point_to_point(&self, plan: &mut Plan, it: u32, parts: &[RankPart]) -> Result<(), String> {
        // (src, dst, tag) -> the sends and the receives, in file order.
        type Ends = (Vec<(u32, usize, u64)>, Vec<(u32, usize, u64)>);
        let mut pairs: BTreeMap<(u32, u32, u64), Ends> = BTreeMap::new();
        for (r, tr) in (0u32..).zip(self.traces) {
            for (i, node) in tr.nodes.iter().enumerate() {
                match node.work {
                    Work::Send { peer, size, tag } => pairs
                        .entry((r, peer, tag))
                        .or_default()
                        .0
                        .push((r, i, size)),
                    Work::Recv { peer, size, tag } => pairs
                        .entry((peer, r, tag))
                        .or_default()
                        .1
                        .push((r, i, size)),
                    _ => {}
                }
            }
        }
        for ((src, dst, tag), (sends, recvs)) in &pairs {
            if sends.len() != recvs.len() {
                let (r, i, _) = if sends.len() > recvs.len() {
                    sends[recvs.len()]
                } else {
                    recvs[sends.len()]
                };
                return Err(format!(
                    "{}: rank {src} sends {} messages with tag {tag} to rank {dst}, which receives {}: \
                     each send needs its receive",
                    self.at(r, i),
                    sends.len(),
                    recvs.len()
                ));
            }
            for (s, v) in sends.iter().zip(recvs) {
                if s.2 != v.2 {
                    return Err(format!(
                        "{}: receives {} B where {} sends {} B",
                        self.at(v.0, v.1),
                        v.2,
                        self.at(s.0, s.1),
                        s.2
                    ));
                }
                let f = plan.flows.len() as u32;
                plan.flows.push(FlowPlan {
                    src: *src,
                    dst: *dst,
                    size: Some(s.2),
                    start: self.start,
                    start_jitter: SimDuration::ZERO,
                    stop: None,
                    round: it,
                });
                let send = &parts[s.0 as usize];
                plan.triggers[send.entry[s.1] as usize].targets = vec![f];
                let end = &mut plan.triggers[send.done[s.1] as usize];
                end.inputs = vec![(f, Done::Sent)];
                end.needs += 1;
                let recv = &parts[v.0 as usize];
                let end = &mut plan.triggers[recv.done[v.1] as usize];
                end.inputs = vec![(f, Done::Received)];
                end.needs += 1;
            }
        }
        Ok(())
    }
}

/// The triggers of `node` of rank `r` (its place among the streams'
/// waiters `order`): the one that starts it and the one that ends it (one
/// and the same for compute and pass nodes).
fn node_triggers(plan: &mut Plan, r: u32, node: &super::TraceNode, order: u64) -> (u32, u32) {
    let work = &node.work;
    let stream = |s: u32| r * STREAMS + s;
    let hold = |s: u32| {
        Some(Hold {
            stream: stream(s),
            order,
        })
    };
    let blank = || TriggerPlan::all(r, Vec::new(), SimDuration::ZERO, Vec::new());
    let mut t = blank();
    t.needs = node.deps.len().max(1) as u32;
    match *work {
        Work::Compute { cpu } => {
            let s = if cpu { CPU } else { COMPUTE };
            t.delay = SimDuration::from_ps(node.duration_ps);
            t.acquire = hold(s);
            t.release = Some(stream(s));
            let id = push(plan, t);
            (id, id)
        }
        Work::Pass => {
            let id = push(plan, t);
            (id, id)
        }
        Work::Collective { .. } | Work::Send { .. } | Work::Recv { .. } => {
            // A receive holds no stream (ASTRA-sim's HardwareResource).
            let holds = !matches!(work, Work::Recv { .. });
            if holds {
                t.acquire = hold(COMM);
            }
            let issue = push(plan, t);
            let mut end = blank();
            end.needs = 1;
            if holds {
                end.release = Some(stream(COMM));
            }
            let end = push(plan, end);
            plan.triggers[issue as usize].fires.push(end);
            (issue, end)
        }
    }
}

/// Adds trigger `t` to `plan`: its index.
fn push(plan: &mut Plan, t: TriggerPlan) -> u32 {
    plan.triggers.push(t);
    plan.triggers.len() as u32 - 1
}

/// `plan` (ranks for hosts) with rank r on host `hosts[r]`.
pub(super) fn placed(plan: &Plan, hosts: &[u32]) -> Plan {
    let mut p = plan.clone();
    let h = |r: u32| hosts[r as usize];
    for f in &mut p.flows {
        f.src = h(f.src);
        f.dst = h(f.dst);
    }
    for t in &mut p.triggers {
        t.host = h(t.host);
    }
    for s in &mut p.streams {
        *s = h(*s);
    }
    for c in &mut p.collectives {
        c.ranks.iter_mut().for_each(|r| *r = h(*r));
    }
    for t in &mut p.traces {
        t.ranks.iter_mut().for_each(|r| *r = h(*r));
    }
    p
}

//! `kind = "htsim-matrix"`: the flows and triggers of an htsim connection
//! matrix (uet-htsim 40ccb05, `connection_matrix.cpp` and `trigger.h`),
//! so that the same traffic, collectives included, runs in both
//! simulators. The file:
//!
//! ```text
//! Nodes 16
//! Connections 3
//! Triggers 1
//! 0->1 id 1 start 0 size 2000000 recv_done_trigger 1
//! 1->2 id 2 trigger 1 size 2000000
//! 2->3 id 3 start 5.5 size 1000
//! trigger id 1 barrier count 1
//! ```
//!
//! A connection starts at `start` (microseconds, as htsim's
//! `UecSrc::connectPort` reads it; htsim keeps only the whole
//! microseconds, dcnsim the fraction too) or when trigger `trigger` fires. `send_done_trigger K`
//! activates K when its last byte is acknowledged (at its sender),
//! `recv_done_trigger K` when its last byte arrives (at its receiver). A
//! `oneshot` trigger starts all its connections on its first activation,
//! a `barrier` on its `count`-th, a `multishot` its k-th connection on
//! its k-th activation. htsim fires a trigger at once wherever the
//! activation happens; dcnsim acts only where a completion is seen
//! ([`super::trigger`]), so an activation at a host other than a target's
//! sender is carried to that host as a notification message of
//! `notify_size` bytes over the workload's transport, whose receipt
//! counts there. Such a dependency waits one more crossing of the
//! network than htsim's: the time it takes to learn of it.

use super::trigger::{Done, TriggerPlan};
use super::{FlowPlan, Plan, PlanEnv, Spec, Workload, check_host, check_size, priority_zero};
use crate::scenario::{ScenarioError, Table};
use serde::Deserialize;
use sim_core::{Bytes, SimDuration};
use std::collections::BTreeMap;

/// The most connections a matrix may hold.
const MAX_CONNECTIONS: usize = 20_000_000;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    file: String,
    #[serde(default)]
    triggers: Option<String>,
    notify_size: Option<Bytes>,
    #[serde(default)]
    start: SimDuration,
    #[serde(default = "priority_zero")]
    priority: u8,
}

/// `notify_size`'s default: one 64-byte message (a header's worth).
const NOTIFY_SIZE: Bytes = Bytes(64);

/// How a trigger's activation at one host reaches a target sent from
/// another (`triggers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Semantics {
    /// As a notification message over the network (physical; default).
    Notify,
    /// At once, as htsim's global trigger objects fire (not physical; the
    /// run stays in one LP).
    Instant,
}

impl Semantics {
    /// Every semantics with its name and meaning.
    pub const ALL: [(Semantics, &'static str, &'static str); 2] = [
        (
            Semantics::Notify,
            "notify",
            "an activation at another host reaches a target's sender as a notify_size message over the network",
        ),
        (
            Semantics::Instant,
            "instant",
            "htsim's: a trigger fires the instant its activation happens, wherever (not physical; one LP)",
        ),
    ];
}

/// A checked `htsim-matrix` workload: its plan, built when read.
#[derive(Debug, Clone)]
pub struct Matrix {
    plan: Plan,
    nodes: u32,
    priority: u8,
}

/// A trigger's kind, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    OneShot,
    MultiShot,
    Barrier(u32),
}

/// One connection line.
#[derive(Debug, Default)]
struct Conn {
    src: u32,
    dst: u32,
    size: Option<u64>,
    start_us: Option<f64>,
    trigger: Option<u32>,
    send_done: Option<u32>,
    recv_done: Option<u32>,
}

/// What a file says.
#[derive(Debug, Default)]
struct Parsed {
    nodes: u32,
    conns: Vec<Conn>,
    triggers: BTreeMap<u32, Kind>,
}

/// Reads the workload: its keys, then its file.
pub(super) fn parse(t: &Table<'_>) -> Result<Spec, ScenarioError> {
    let k: Keys = t.read()?;
    let semantics = match k.triggers.as_deref() {
        None => Semantics::Notify,
        Some(name) => {
            (Semantics::ALL.iter().find(|r| r.1 == name).map(|r| r.0)).ok_or_else(|| {
                let names: Vec<String> = Semantics::ALL
                    .iter()
                    .map(|r| format!("\"{}\"", r.1))
                    .collect();
                t.invalid(
                    "triggers",
                    format!("\"{name}\": expected {}", names.join(" or ")),
                )
            })?
        }
    };
    if semantics == Semantics::Instant && k.notify_size.is_some() {
        let msg = "applies to triggers = \"notify\"; instant triggers send no message";
        return Err(t.invalid("notify_size", msg));
    }
    let notify_size = k.notify_size.unwrap_or(NOTIFY_SIZE);
    check_size("notify_size", notify_size).map_err(|(key, m)| t.invalid(&key, m))?;
    let path = t.base_dir().join(&k.file);
    let text = t
        .read_input(&path)
        .map_err(|e| t.invalid("file", format!("{}: {e}", path.display())))?;
    let bad = |m: String| t.invalid("file", format!("{}: {m}", path.display()));
    super::check_planned("start", "start", Some(k.start.ps()))
        .map_err(|(key, m)| t.invalid(&key, m))?;
    let parsed = read(&text).map_err(bad)?;
    let notify = (semantics == Semantics::Notify).then_some(notify_size.0);
    let plan = build(&parsed, k.start, notify).map_err(bad)?;
    let m = Matrix {
        plan,
        nodes: parsed.nodes,
        priority: k.priority,
    };
    super::accept(t, m)
}

/// Parses a matrix: `line N: why` on the first fault. A UTF-8 byte-order
/// mark at the start (an editor's) is passed over; a NUL byte is refused
/// where it stands.
fn read(text: &str) -> Result<Parsed, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut p = Parsed::default();
    let mut declared: BTreeMap<&str, usize> = BTreeMap::new();
    let mut trigger_lines = 0;
    let mut conn_lines = Vec::new();
    for (n, line) in (1..).zip(text.lines()) {
        let at = |m: String| format!("line {n}: {m}");
        plain(line).map_err(at)?;
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some(&first) = tokens.first() else {
            continue;
        };
        if first.starts_with('#') {
            continue;
        }
        let num = |i: usize| -> Result<u64, String> {
            let word = tokens
                .get(i)
                .ok_or_else(|| at(format!("'{}' needs a value", tokens[i - 1])))?;
            word.parse().map_err(|_| {
                at(format!(
                    "'{word}' after '{}' is not a whole number",
                    tokens[i - 1]
                ))
            })
        };
        match first {
            "Nodes" | "Connections" | "Triggers" | "Failures" => {
                let v = num(1)?;
                if first == "Nodes" {
                    p.nodes = u32::try_from(v).map_err(|_| at(format!("{v} nodes is too many")))?;
                }
                declared.insert(first, v as usize);
            }
            "trigger" => {
                trigger_lines += 1;
                let (id, kind) = trigger_line(&tokens).map_err(at)?;
                if p.triggers.insert(id, kind).is_some() {
                    return Err(at(format!("trigger {id} is defined twice")));
                }
            }
            "failure" => {
                return Err(at(
                    "htsim's failure lines are not read: give the failure as a [[failure]] table"
                        .into(),
                ));
            }
            _ if first.contains("->") => {
                p.conns.push(conn_line(&tokens).map_err(at)?);
                conn_lines.push(n);
                if p.conns.len() > MAX_CONNECTIONS {
                    return Err(at(format!("more than {MAX_CONNECTIONS} connections")));
                }
            }
            other => {
                return Err(at(format!(
                    "'{other}' is not a line htsim writes: Nodes, Connections, Triggers, a \
                     connection SRC->DST ... or a trigger"
                )));
            }
        }
    }
    check_header(&p, &declared, trigger_lines, &conn_lines)?;
    Ok(p)
}

/// A line holds no NUL byte or byte-order mark (an editor's, mid-file).
fn plain(line: &str) -> Result<(), String> {
    let Some(col) = line.find(['\0', '\u{feff}']) else {
        return Ok(());
    };
    let what = if line[col..].starts_with('\0') {
        "a NUL byte"
    } else {
        "a byte-order mark (U+FEFF)"
    };
    let col = line[..col].chars().count() + 1;
    Err(format!(
        "{what} at column {col}: a matrix is plain text, as htsim's generators write it"
    ))
}

/// A matrix has the connections and triggers its header counts, at least
/// one connection, and names only the nodes its header's `Nodes`
/// declares (when it has one); `lines` are the connections' line numbers.
fn check_header(
    p: &Parsed,
    declared: &BTreeMap<&str, usize>,
    trigger_lines: usize,
    lines: &[usize],
) -> Result<(), String> {
    for (what, got) in [("Connections", p.conns.len()), ("Triggers", trigger_lines)] {
        if let Some(&want) = declared.get(what)
            && want != got
        {
            return Err(format!("the header says {what} {want}, the file has {got}"));
        }
    }
    if p.conns.is_empty() {
        let msg = "the matrix has no connection (SRC->DST ... lines): a run of it would carry \
                   nothing";
        return Err(msg.into());
    }
    if !declared.contains_key("Nodes") {
        return Ok(());
    }
    for (c, n) in p.conns.iter().zip(lines) {
        let top = c.src.max(c.dst);
        if top >= p.nodes {
            return Err(format!(
                "line {n}: node {top} is past the header's Nodes {} (nodes 0 to {})",
                p.nodes,
                p.nodes.saturating_sub(1)
            ));
        }
    }
    Ok(())
}

/// `trigger id K oneshot|multishot|barrier [count C]`.
fn trigger_line(tokens: &[&str]) -> Result<(u32, Kind), String> {
    let (mut id, mut kind, mut count) = (None, None, None);
    let mut i = 1;
    while i < tokens.len() {
        let value = |i: usize| -> Result<u32, String> {
            let w = tokens
                .get(i + 1)
                .ok_or_else(|| format!("'{}' needs a value", tokens[i]))?;
            w.parse()
                .map_err(|_| format!("'{w}' after '{}' is not a whole number", tokens[i]))
        };
        match tokens[i] {
            "id" => (id, i) = (Some(value(i)?), i + 1),
            "count" => (count, i) = (Some(value(i)?), i + 1),
            "oneshot" | "multishot" | "barrier" if kind.is_some() => {
                return Err("a trigger has one type".into());
            }
            "oneshot" => kind = Some(Kind::OneShot),
            "multishot" => kind = Some(Kind::MultiShot),
            "barrier" => kind = Some(Kind::Barrier(0)),
            w => {
                return Err(format!(
                    "'{w}' is not a trigger word: id, count, oneshot, multishot or barrier"
                ));
            }
        }
        i += 1;
    }
    let id = id
        .filter(|&i| i > 0)
        .ok_or("a trigger needs an id above 0")?;
    let kind = match (
        kind.ok_or("a trigger needs a type: oneshot, multishot or barrier")?,
        count,
    ) {
        (Kind::Barrier(_), Some(c)) if c > 0 => Kind::Barrier(c),
        (Kind::Barrier(_), _) => return Err(format!("barrier trigger {id} needs a count above 0")),
        (k, None) => k,
        (_, Some(_)) => return Err(format!("trigger {id}: count is a barrier's")),
    };
    Ok((id, kind))
}

/// `SRC->DST [id I] [start US] [size B] [trigger K] [send_done_trigger K]
/// [recv_done_trigger K]`.
fn conn_line(tokens: &[&str]) -> Result<Conn, String> {
    let (a, b) = tokens[0].split_once("->").expect("checked");
    let host = |w: &str| {
        w.parse::<u32>()
            .map_err(|_| format!("'{}' is not SRC->DST", tokens[0]))
    };
    let mut c = Conn {
        src: host(a)?,
        dst: host(b)?,
        ..Conn::default()
    };
    let mut i = 1;
    while i < tokens.len() {
        let key = tokens[i];
        let w = *tokens
            .get(i + 1)
            .ok_or_else(|| format!("'{key}' needs a value"))?;
        let whole = || {
            w.parse::<u64>()
                .map_err(|_| format!("'{w}' after '{key}' is not a whole number"))
        };
        let trig = || -> Result<Option<u32>, String> {
            let v = whole()?;
            u32::try_from(v)
                .ok()
                .filter(|&v| v > 0)
                .map(Some)
                .ok_or(format!("trigger id {v} must be 1 to 2^32 - 1"))
        };
        match key {
            "id" => drop(whole()?),
            "size" => c.size = Some(whole()?),
            "start" => c.start_us = Some(start_us(w)?),
            "trigger" => c.trigger = trig()?,
            "send_done_trigger" => c.send_done = trig()?,
            "recv_done_trigger" => c.recv_done = trig()?,
            "prio" | "msg" => {
                return Err(format!(
                    "'{key}' is not modelled: a connection's priority is its workload's, and each connection is its own message"
                ));
            }
            _ => {
                return Err(format!(
                    "'{key}' is not a connection word: id, start, size, trigger, send_done_trigger or recv_done_trigger"
                ));
            }
        }
        i += 2;
    }
    if c.src == c.dst {
        return Err(format!("{} sends to itself", tokens[0]));
    }
    match (c.start_us, c.trigger) {
        (None, None) => Err("a connection needs a start or a trigger".into()),
        (Some(_), Some(_)) => Err("a connection has a start or a trigger, not both".into()),
        _ if c.size.is_none_or(|s| s == 0) => {
            Err("a connection needs a size above 0 (bytes)".into())
        }
        _ => Ok(c),
    }
}

/// A connection's `start` word: microseconds, at least 0 and at most
/// what a workload may plan ([`super::MAX_PLANNED_PS`]).
fn start_us(w: &str) -> Result<f64, String> {
    let us: f64 = w
        .parse()
        .map_err(|_| format!("'{w}' after 'start' is not a time in microseconds"))?;
    if !(us.is_finite() && us >= 0.0) {
        return Err(format!("start {w} must be a time >= 0 in microseconds"));
    }
    if us * 1e6 > super::MAX_PLANNED_PS as f64 {
        return Err(super::planned_too_late(&format!(
            "start {w} (microseconds)"
        )));
    }
    Ok(us)
}

/// The plan of a parsed matrix: its connections as flows, in file order,
/// then the notification flows of `notify` bytes its triggers need
/// (`None`: instant triggers, which need none).
fn build(p: &Parsed, start: SimDuration, notify: Option<u64>) -> Result<Plan, String> {
    let mut plan = Plan {
        instant_triggers: notify.is_none(),
        ..Plan::default()
    };
    for c in &p.conns {
        let at = SimDuration::from_ps((c.start_us.unwrap_or(0.0) * 1e6).round() as u64);
        plan.flows.push(FlowPlan {
            src: c.src,
            dst: c.dst,
            size: c.size,
            start: start + at,
            start_jitter: SimDuration::ZERO,
            stop: None,
            round: 0,
        });
    }
    let mut targets: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut activations: BTreeMap<u32, Vec<(u32, Done)>> = BTreeMap::new();
    for (f, c) in (0u32..).zip(&p.conns) {
        if let Some(id) = c.trigger {
            targets.entry(id).or_default().push(f);
        }
        if let Some(id) = c.send_done {
            activations.entry(id).or_default().push((f, Done::Sent));
        }
        if let Some(id) = c.recv_done {
            activations.entry(id).or_default().push((f, Done::Received));
        }
    }
    for id in targets.keys().chain(activations.keys()) {
        if !p.triggers.contains_key(id) {
            return Err(format!(
                "trigger {id} is used but never defined (trigger id {id} ...)"
            ));
        }
    }
    let mut notes: BTreeMap<(u32, Done, u32), u32> = BTreeMap::new();
    for (&id, &kind) in &p.triggers {
        let acts = activations.get(&id).map_or(&[][..], |v| v);
        let tgts = targets.get(&id).map_or(&[][..], |v| v);
        plan_trigger(&mut plan, &mut notes, (id, kind), acts, tgts, notify)?;
    }
    plan.check_triggers().map_err(|e| e.to_string())?;
    Ok(plan)
}

/// The triggers that carry out htsim trigger `id` of `kind`, activated by
/// `acts` and starting `tgts`: one per target host (multishot: one per
/// target), each with the activations as its host sees them.
fn plan_trigger(
    plan: &mut Plan,
    notes: &mut BTreeMap<(u32, Done, u32), u32>,
    (id, kind): (u32, Kind),
    acts: &[(u32, Done)],
    tgts: &[u32],
    notify: Option<u64>,
) -> Result<(), String> {
    let need = |n: u32| -> Result<u32, String> {
        if n as usize > acts.len() {
            let msg = format!(
                "trigger {id} needs {n} activations, but only {} connections activate it",
                acts.len()
            );
            return Err(msg);
        }
        Ok(n)
    };
    let mut at_host = |host: u32, plan: &mut Plan| -> Vec<(u32, Done)> {
        let Some(notify) = notify else {
            return acts.to_vec();
        };
        (acts.iter())
            .map(|&(f, done)| carried(plan, notes, f, done, host, notify))
            .collect()
    };
    // Each group: a host, the activations it needs, the targets it starts.
    let mut groups: Vec<(u32, u32, Vec<u32>)> = Vec::new();
    match kind {
        Kind::MultiShot => {
            for (k, &t) in (1u32..).zip(tgts) {
                groups.push((plan.flows[t as usize].src, need(k)?, vec![t]));
            }
        }
        Kind::OneShot | Kind::Barrier(_) => {
            let n = if let Kind::Barrier(c) = kind { c } else { 1 };
            let mut by_host: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
            for &t in tgts {
                by_host
                    .entry(plan.flows[t as usize].src)
                    .or_default()
                    .push(t);
            }
            for (host, targets) in by_host {
                groups.push((host, need(n)?, targets));
            }
        }
    }
    for (host, needs, targets) in groups {
        let inputs = at_host(host, plan);
        let delay = SimDuration::ZERO;
        let mut t = TriggerPlan::all(host, inputs, delay, targets);
        t.needs = needs;
        plan.triggers.push(t);
    }
    Ok(())
}

/// Input `(f, done)` as host `host` can see it: itself where it happens
/// there, else the receipt of a notification from where it happens (one
/// per activation and host, planned once).
fn carried(
    plan: &mut Plan,
    notes: &mut BTreeMap<(u32, Done, u32), u32>,
    f: u32,
    done: Done,
    host: u32,
    notify: u64,
) -> (u32, Done) {
    let flow = &plan.flows[f as usize];
    let seen_at = match done {
        Done::Received => flow.dst,
        Done::Sent => flow.src,
    };
    if seen_at == host {
        return (f, done);
    }
    let n = *notes.entry((f, done, host)).or_insert_with(|| {
        let n = plan.flows.len() as u32;
        plan.flows.push(FlowPlan {
            src: seen_at,
            dst: host,
            size: Some(notify),
            start: SimDuration::ZERO,
            start_jitter: SimDuration::ZERO,
            stop: None,
            round: 0,
        });
        plan.triggers.push(TriggerPlan::all(
            seen_at,
            vec![(f, done)],
            SimDuration::ZERO,
            vec![n],
        ));
        n
    });
    (n, Done::Received)
}

impl Workload for Matrix {
    fn kind(&self) -> &'static str {
        "htsim-matrix"
    }
    fn priority(&self) -> u8 {
        self.priority
    }
    fn check(&self, hosts: u32) -> Result<(), (String, String)> {
        if self.nodes > hosts {
            let msg = format!(
                "the matrix has {} nodes; the topology has {hosts} hosts",
                self.nodes
            );
            return Err(("file".into(), msg));
        }
        for f in &self.plan.flows {
            check_host("file", f.src.max(f.dst), hosts)?;
            if let Some(s) = f.size {
                check_size("file", Bytes(s))?;
            }
        }
        Ok(())
    }
    fn endless(&self) -> Option<&'static str> {
        None
    }
    fn flows_bound(&self, _hosts: u32) -> Option<u64> {
        Some(self.plan.flows.len() as u64)
    }
    fn plan(&self, _env: &PlanEnv<'_>) -> Plan {
        self.plan.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(text: &str) -> Result<Plan, String> {
        build(&read(text)?, SimDuration::ZERO, Some(64))
    }

    #[test]
    fn a_local_barrier_needs_no_message() {
        // Host 1 receives two flows, then sends on: a barrier of 2 at host 1.
        let p = plan(
            "Nodes 3\nConnections 3\nTriggers 1\n0->1 id 1 start 0 size 1000 recv_done_trigger 1\n\
             2->1 id 2 start 1.5 size 1000 recv_done_trigger 1\n1->0 id 3 trigger 1 size 500\n\
             trigger id 1 barrier count 2\n",
        )
        .unwrap();
        assert_eq!(p.flows.len(), 3);
        assert_eq!(p.flows[1].start, SimDuration::from_ns(1500));
        assert_eq!(p.triggers.len(), 1);
        let t = &p.triggers[0];
        assert_eq!((t.host, t.needs, t.targets.clone()), (1, 2, vec![2]));
        assert_eq!(t.inputs, vec![(0, Done::Received), (1, Done::Received)]);
    }

    #[test]
    fn an_activation_elsewhere_is_carried_as_a_notification() {
        // htsim's ring all-reduce: 0->1 acknowledged at host 0 starts 1->2 at host 1.
        let p = plan(
            "0->1 id 1 start 0 size 1000 send_done_trigger 1\n1->2 id 2 trigger 1 size 1000\n\
             trigger id 1 oneshot\n",
        )
        .unwrap();
        assert_eq!(p.flows.len(), 3);
        let note = &p.flows[2];
        assert_eq!((note.src, note.dst, note.size), (0, 1, Some(64)));
        // The note leaves host 0 when flow 0 is acknowledged there; its
        // receipt at host 1 starts flow 1.
        let of = p.trigger_of();
        let sent = &p.triggers[of[2].unwrap() as usize];
        assert_eq!((sent.host, sent.inputs.clone()), (0, vec![(0, Done::Sent)]));
        let start = &p.triggers[of[1].unwrap() as usize];
        assert_eq!(
            (start.host, start.inputs.clone()),
            (1, vec![(2, Done::Received)])
        );
    }

    #[test]
    fn an_instant_trigger_reads_its_activation_where_it_happens() {
        // The same ring step under htsim's semantics: no notification; the
        // trigger at host 1 counts flow 0's acknowledgment at host 0.
        let text = "0->1 id 1 start 0 size 1000 send_done_trigger 1\n1->2 id 2 trigger 1 size 1000\n\
                    trigger id 1 oneshot\n";
        let p = build(&read(text).unwrap(), SimDuration::ZERO, None).unwrap();
        assert!(p.instant_triggers);
        assert_eq!(p.flows.len(), 2);
        assert_eq!(p.triggers.len(), 1);
        let t = &p.triggers[0];
        assert_eq!((t.host, t.inputs.clone()), (1, vec![(0, Done::Sent)]));
        // The physical plan's checks refuse that remote input.
        let physical = Plan {
            instant_triggers: false,
            ..p
        };
        assert!(physical.check_triggers().is_err());
    }

    #[test]
    fn multishot_starts_its_kth_target_on_the_kth_activation() {
        let p = plan(
            "0->1 start 0 size 10 recv_done_trigger 7\n0->1 start 0 size 10 recv_done_trigger 7\n\
             1->2 trigger 7 size 10\n1->3 trigger 7 size 10\ntrigger id 7 multishot\n",
        )
        .unwrap();
        let needs: Vec<(u32, Vec<u32>)> = p
            .triggers
            .iter()
            .map(|t| (t.needs, t.targets.clone()))
            .collect();
        assert_eq!(needs, vec![(1, vec![2]), (2, vec![3])]);
    }

    #[test]
    fn bad_matrices_name_the_line() {
        let err = |t: &str| plan(t).unwrap_err();
        assert!(err("0->1 size 10\n").contains("needs a start or a trigger"));
        assert!(err("0->1 start 0 size 10 prio 3\n").starts_with("line 1: 'prio' is not modelled"));
        assert!(
            err("Connections 2\n0->1 start 0 size 10\n").contains("Connections 2, the file has 1")
        );
        assert!(err("0->1 trigger 3 size 10\n").contains("trigger 3 is used but never defined"));
        assert!(err("0->1 start 0 size 10 recv_done_trigger 1\n1->2 trigger 1 size 1\ntrigger id 1 barrier count 2\n")
            .contains("needs 2 activations"));
        assert!(err("\n\nfailure switch_type TOR\n").starts_with("line 3: htsim's failure lines"));
        assert!(err("0->0 start 0 size 1\n").contains("sends to itself"));
        assert!(err("trigger id 1 barrier\n").contains("needs a count"));
        // A cycle: each waits for the other's receipt.
        let cyc = "0->1 trigger 1 size 1 recv_done_trigger 2\n1->0 trigger 2 size 1 recv_done_trigger 1\n\
                   trigger id 1 oneshot\ntrigger id 2 oneshot\n";
        assert!(err(cyc).contains("cycle"), "{}", err(cyc));
    }

    /// Issue 56: nonsense that ran (an empty matrix completed with 0
    /// flows; `Nodes 2` beside connections among nodes 0-3), a start past
    /// what a run can reach, and characters an editor hides.
    #[test]
    fn empty_short_and_invisible_matrices_are_refused() {
        let err = |t: &str| plan(t).unwrap_err();
        assert!(err("").contains("no connection"));
        assert!(err("Nodes 4\nConnections 0\n").contains("no connection"));
        let e = err("Nodes 2\nConnections 2\n0->1 start 0 size 10\n2->3 start 0 size 10\n");
        assert!(
            e.starts_with("line 4: node 3 is past the header's Nodes 2"),
            "{e}"
        );
        let e = err("Nodes 2\n0->1 start 1e14 size 10\n");
        assert!(e.contains("start 1e14 (microseconds) is past"), "{e}");
        let e = err("Nodes 2\n0->1 start 0\0 size 10\n");
        assert!(e.starts_with("line 2: a NUL byte at column 13"), "{e}");
        // A byte-order mark at the start is an editor's: passed over.
        assert!(plan("\u{feff}Nodes 2\n0->1 start 0 size 10\n").is_ok());
        let e = err("Nodes 2\n\u{feff}0->1 start 0 size 10\n");
        assert!(e.starts_with("line 2: a byte-order mark"), "{e}");
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        /// Any text of htsim's words, numbers at the edges and junk, in
        /// any order, is a plan or an error naming its fault: never a
        /// panic (issue 56's fuzz campaign, at the unit).
        #[test]
        fn any_matrix_text_is_a_plan_or_an_error(
            lines in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::prop_oneof![
                        proptest::strategy::Just("Nodes".to_string()),
                        proptest::strategy::Just("Connections".to_string()),
                        proptest::strategy::Just("Triggers".to_string()),
                        proptest::strategy::Just("trigger".to_string()),
                        proptest::strategy::Just("id".to_string()),
                        proptest::strategy::Just("start".to_string()),
                        proptest::strategy::Just("size".to_string()),
                        proptest::strategy::Just("oneshot".to_string()),
                        proptest::strategy::Just("multishot".to_string()),
                        proptest::strategy::Just("barrier".to_string()),
                        proptest::strategy::Just("count".to_string()),
                        proptest::strategy::Just("send_done_trigger".to_string()),
                        proptest::strategy::Just("recv_done_trigger".to_string()),
                        (0u32..6, 0u32..6).prop_map(|(a, b)| format!("{a}->{b}")),
                        proptest::strategy::Just("1e300".to_string()),
                        proptest::strategy::Just("-1".to_string()),
                        proptest::strategy::Just("\u{feff}".to_string()),
                        proptest::strategy::Just("\0".to_string()),
                        (0u64..5).prop_map(|n| n.to_string()),
                        proptest::num::u64::ANY.prop_map(|n| n.to_string()),
                    ],
                    0..8,
                ),
                0..12,
            )
        ) {
            let text: String = lines.iter().map(|l| l.join(" ") + "\n").collect();
            if let Ok(p) = read(&text) {
                let _ = build(&p, SimDuration::ZERO, Some(64));
            }
        }
    }
}

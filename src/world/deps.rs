//! Flows that start when others are done (the triggers a workload plans,
//! `registry::workload::trigger`). A trigger counts down as its inputs
//! finish at its host: a flow received there in full (its last byte
//! arrived) or sent from there in full (its last byte acknowledged). At
//! zero it starts its targets, all sent by that same host, after its
//! delay. Everything a trigger reads and writes is at one host, so in a
//! partitioned run it lives in that host's logical process, like the
//! flow halves there; what one host learns of another has crossed the
//! network as packets, which is the lookahead the windows rely on.

use super::{Event, World};
use crate::registry::workload::{CollectivePlan, Done, TriggerPlan};
use net::HostId;
use sim_core::{SimDuration, SimTime};
use std::collections::{BTreeSet, VecDeque};

/// Every trigger of a run, and which flows feed which.
#[derive(Default)]
pub(super) struct Deps {
    triggers: Vec<Trigger>,
    /// By flow id: the triggers its full receipt counts toward (empty
    /// when the run has no triggers).
    received: Vec<Vec<u32>>,
    /// By flow id: the triggers its full acknowledgment counts toward.
    sent: Vec<Vec<u32>>,
    /// The streams triggers hold (a GPU's compute or communication).
    streams: Vec<Stream>,
    /// Trigger events scheduled and not yet run (the progress watch: a
    /// compute under way is not a stall).
    pending: u32,
    /// Work left in the current activation (reused: no allocation per
    /// event once it has grown).
    work: VecDeque<Step>,
}

/// One trigger.
struct Trigger {
    host: HostId,
    /// Activations still to come before it is ready (0: ready).
    remaining: u32,
    delay: SimDuration,
    /// The flows it starts (world flow ids).
    targets: Vec<u32>,
    /// The triggers it activates when its delay has passed (world ids).
    fires: Box<[u32]>,
    /// The stream it waits for and holds, and its place in the wait.
    acquire: Option<(u32, u64)>,
    /// The stream it lets go of when its delay has passed.
    release: Option<u32>,
    /// When its delay began (it was ready and held its stream).
    began: Option<SimTime>,
    /// When its delay ended.
    fired: Option<SimTime>,
}

/// A stream: one trigger holds it at a time; the others wait in order.
#[derive(Clone, Default)]
struct Stream {
    busy: bool,
    /// (order, trigger) of those waiting.
    waiting: BTreeSet<(u64, u32)>,
}

/// A step of an activation's work.
#[derive(Clone, Copy)]
enum Step {
    /// One activation of a trigger.
    Activate(u32),
    /// A trigger's delay has passed.
    Fire(u32),
}

/// What a trigger event does (packed into [`Event::Trigger`] with the
/// trigger: the low bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TriggerEvent(u32);

impl TriggerEvent {
    /// Trigger `t` is activated at its planned start.
    pub fn start(t: u32) -> Self {
        assert!(t < 1 << 31, "trigger {t}: at most 2^31 triggers");
        TriggerEvent(t << 1)
    }
    /// Trigger `t`'s delay has passed.
    pub fn fire(t: u32) -> Self {
        assert!(t < 1 << 31, "trigger {t}: at most 2^31 triggers");
        TriggerEvent(t << 1 | 1)
    }
    /// The trigger.
    pub fn trigger(self) -> u32 {
        self.0 >> 1
    }
    /// Its bits (the order of ties).
    pub fn bits(self) -> u32 {
        self.0
    }
    fn step(self) -> Step {
        if self.0 & 1 == 0 {
            Step::Activate(self.trigger())
        } else {
            Step::Fire(self.trigger())
        }
    }
}

/// One collective a job carried out, with its flows as world flow ids.
#[derive(Debug, Clone)]
pub struct JobCollective {
    /// The `[[workload]]` of its job.
    pub workload: u32,
    /// What it was.
    pub plan: CollectivePlan,
}

/// One execution trace a job ran, its triggers as world ids.
#[derive(Debug, Clone)]
pub struct JobTrace {
    /// The `[[workload]]` of its job.
    pub workload: u32,
    /// What it was.
    pub plan: crate::registry::workload::chakra::TracePlan,
}

/// When a trigger's delay began and ended, as the run found them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TriggerTimes {
    /// Its delay began.
    pub began: Option<SimTime>,
    /// Its delay ended.
    pub fired: Option<SimTime>,
}

impl World {
    /// Adds the triggers and streams of a workload whose first flow has id
    /// `first`; returns the world id of its first trigger.
    pub(super) fn add_triggers(
        &mut self,
        first: u32,
        triggers: &[TriggerPlan],
        streams: &[u32],
    ) -> u32 {
        let n = self.flows.len();
        self.deps.received.resize(n, Vec::new());
        self.deps.sent.resize(n, Vec::new());
        let base = self.deps.triggers.len() as u32;
        let stream_base = self.deps.streams.len() as u32;
        (self.deps.streams).extend(streams.iter().map(|_| Stream::default()));
        for tr in triggers {
            let id = self.deps.triggers.len() as u32;
            for &(f, done) in &tr.inputs {
                let list = match done {
                    Done::Received => &mut self.deps.received,
                    Done::Sent => &mut self.deps.sent,
                };
                list[(first + f) as usize].push(id);
            }
            if let Some(at) = tr.start
                && self.owns_host(HostId(tr.host))
            {
                self.deps.pending += 1;
                let e = Event::Trigger(TriggerEvent::start(id));
                self.q.schedule(SimTime::ZERO + at, e);
            }
            self.deps.triggers.push(Trigger {
                host: HostId(tr.host),
                remaining: tr.needs,
                delay: tr.delay,
                targets: tr.targets.iter().map(|&t| first + t).collect(),
                fires: tr.fires.iter().map(|&g| base + g).collect(),
                acquire: tr.acquire.map(|h| (stream_base + h.stream, h.order)),
                release: tr.release.map(|s| stream_base + s),
                began: None,
                fired: None,
            });
        }
        base
    }

    /// When trigger `t` (a world id) began and fired.
    pub fn trigger_times(&self, t: u32) -> TriggerTimes {
        let tr = &self.deps.triggers[t as usize];
        TriggerTimes {
            began: tr.began,
            fired: tr.fired,
        }
    }

    /// Whether a trigger event is still to run (a compute under way).
    pub(super) fn triggers_due(&self) -> bool {
        self.deps.pending > 0
    }

    /// Flow `f` was received in full at `now`: its closed-loop round
    /// `gate` and the triggers it feeds count it.
    pub(super) fn flow_received(&mut self, now: SimTime, f: u32, gate: Option<u32>) {
        if let Some(g) = gate {
            self.round_flow_received(now, g);
        }
        self.flow_done(now, f, Done::Received);
    }

    /// Flow `f`'s data was all acknowledged at `now`.
    pub(super) fn flow_sent(&mut self, now: SimTime, f: u32) {
        self.flow_done(now, f, Done::Sent);
    }

    /// End `done` of flow `f` finished: each trigger it feeds counts it.
    fn flow_done(&mut self, now: SimTime, f: u32, done: Done) {
        for i in 0..self.deps.fed(f, done).len() {
            let t = self.deps.fed(f, done)[i];
            self.deps.work.push_back(Step::Activate(t));
        }
        self.run_steps(now);
    }

    /// A trigger event: a planned start or the end of a delay.
    pub(super) fn on_trigger(&mut self, now: SimTime, e: TriggerEvent) {
        self.deps.pending -= 1;
        self.deps.work.push_back(e.step());
        self.run_steps(now);
    }

    /// Runs the steps queued, and those they queue, in order: triggers
    /// that become ready at one instant take a free stream in the order
    /// they were activated.
    fn run_steps(&mut self, now: SimTime) {
        while let Some(step) = self.deps.work.pop_front() {
            match step {
                Step::Activate(t) => self.activate(now, t),
                Step::Fire(t) => self.fire(now, t),
            }
        }
    }

    /// One activation of trigger `t`: at the last one needed it is ready,
    /// and begins once it holds its stream.
    fn activate(&mut self, now: SimTime, t: u32) {
        let host = self.deps.triggers[t as usize].host;
        debug_assert!(self.owns_host(host), "a trigger acts in its host's LP");
        let tr = &mut self.deps.triggers[t as usize];
        if tr.remaining == 0 {
            return; // fired on fewer inputs than it has
        }
        tr.remaining -= 1;
        if tr.remaining > 0 {
            return;
        }
        if let Some((s, order)) = tr.acquire {
            let stream = &mut self.deps.streams[s as usize];
            if stream.busy {
                stream.waiting.insert((order, t));
                return;
            }
            stream.busy = true;
        }
        self.begin(now, t);
    }

    /// Trigger `t`'s delay begins: its targets start when it ends, and
    /// then (if it fires triggers or lets go of a stream) it fires.
    fn begin(&mut self, now: SimTime, t: u32) {
        let tr = &mut self.deps.triggers[t as usize];
        tr.began = Some(now);
        let at = now + tr.delay;
        let then = !tr.fires.is_empty() || tr.release.is_some();
        if !then {
            tr.fired = Some(at);
        }
        for i in 0..tr.targets.len() {
            let f = self.deps.triggers[t as usize].targets[i];
            self.flows[f].start = at;
            self.q.schedule(at, Event::FlowStart(f));
        }
        if then {
            if at == now {
                self.deps.work.push_back(Step::Fire(t));
            } else {
                self.deps.pending += 1;
                self.q.schedule(at, Event::Trigger(TriggerEvent::fire(t)));
            }
        }
    }

    /// Trigger `t`'s delay has passed: it lets go of its stream (the next
    /// waiting trigger takes it and begins) and activates what it fires.
    fn fire(&mut self, now: SimTime, t: u32) {
        let tr = &mut self.deps.triggers[t as usize];
        tr.fired = Some(now);
        if let Some(s) = tr.release {
            let stream = &mut self.deps.streams[s as usize];
            stream.busy = false;
            if let Some((_, next)) = stream.waiting.pop_first() {
                stream.busy = true;
                self.begin(now, next);
            }
        }
        for i in 0..self.deps.triggers[t as usize].fires.len() {
            let g = self.deps.triggers[t as usize].fires[i];
            self.deps.work.push_back(Step::Activate(g));
        }
    }
}

impl Deps {
    /// The triggers end `done` of flow `f` counts toward.
    fn fed(&self, f: u32, done: Done) -> &[u32] {
        let by_flow = match done {
            Done::Received => &self.received,
            Done::Sent => &self.sent,
        };
        by_flow.get(f as usize).map_or(&[], Vec::as_slice)
    }

    /// The times of the triggers at the hosts `mine` names: (trigger,
    /// began, fired).
    pub(super) fn own_times(
        &self,
        mine: impl Fn(HostId) -> bool,
    ) -> impl Iterator<Item = (u32, Option<SimTime>, Option<SimTime>)> {
        (self.triggers.iter().enumerate())
            .filter(move |(_, t)| mine(t.host))
            .map(|(i, t)| (i as u32, t.began, t.fired))
    }

    /// Sets trigger `t`'s times as the LP that ran it found them.
    pub(super) fn set_times(&mut self, t: u32, began: Option<SimTime>, fired: Option<SimTime>) {
        let tr = &mut self.triggers[t as usize];
        (tr.began, tr.fired) = (began, fired);
    }
}

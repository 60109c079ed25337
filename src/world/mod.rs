//! The simulated world: the fabric, every flow's two endpoints, the packet
//! sources, and the event loop that joins them.
//!
//! Events are a plain enum addressed by ids. Network events go to the fabric;
//! what it hands back (a packet at a host, a NIC with room) goes to the
//! transports. Each host keeps a round-robin list of flows that have data the
//! windows allow; its NIC pulls from that list while it has room, so a
//! transport waits when the NIC is full instead of dropping (back-pressure).
//! Control packets (SYN, ACK, FIN) and open-loop sources always enter the NIC.
//!
//! Endpoint timers are lazy: one pending timer event per endpoint, scheduled
//! at its earliest deadline; a timer that fires early (the deadline moved
//! later) re-arms itself, a stale one is ignored.

use crate::registry::workload::Load;
use net::{Fabric, HostId, IntStack, NetEvent, Origin, Outcome, Packet};
use sim_core::queue::Stop;
use sim_core::{EventQueue, RunLimit, SimDuration, SimTime};
use transport::{HostIo, Receiver, Sender, Side};
use transport::{ReceiverEnd, SenderEnd};

mod build;
mod cc_trace;
mod cut_off;
mod deps;
mod finished;
mod flows;
mod goodput;
mod inspect;
mod links;
pub(crate) mod livelock;
mod lp;
mod metrics;
mod nic;
mod order;
pub(crate) mod parallel;
mod prefetch;
mod record;
mod rounds;
mod rows;
mod run_record;
mod sampling;
mod series;
mod sources;
mod stop;
pub use cc_trace::CcSample;
pub use deps::{JobCollective, JobTrace, TriggerEvent, TriggerTimes};
pub use goodput::{GoodputOf, GoodputSample};
pub use links::{LinkSample, Tier};
pub use lp::Role;
pub use metrics::{DelayHistograms, Metrics, RttRow, summary_us};
pub use parallel::peers::{Loopback, Peers, agree};
pub use parallel::{Lps, Threads, WindowStats, partition_for};
pub use record::FlowRow;
pub use rows::{RowSink, SeriesSinks};
pub use run_record::{CollectiveRecord, PartTimes, PfcRow, PortRow, RunRecord, TraceRecord};
pub use sampling::{QueueSample, VIQ_CLASS};
pub use series::Series;
pub use sources::{LOST, Source};
pub use stop::{BuildError, StopReason};

/// Every event of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A network event (link delivery or end of transmission).
    Net(NetEvent),
    /// A flow opens its connection.
    FlowStart(u32),
    /// A long flow's application stops sending new data.
    FlowStop(u32),
    /// An endpoint's timer.
    Timer(FlowTimer),
    /// A packet source's next arrival.
    Arrival(u32),
    /// Take a sample of one series (`queues.csv`, `goodput.csv`,
    /// `rtt.csv`, `cc.csv`).
    Sample(Series),
    /// A trigger's planned start or the end of its delay (a trace's
    /// compute).
    Trigger(TriggerEvent),
}

// The event queue's wheel entries are a u64 key and the event: 16 bytes
// while an event fits in 8 (sim_core::queue; the fabric-scale runs stream
// through them).
const _: () = assert!(std::mem::size_of::<Event>() <= 8);

/// Which endpoint's timer fires: a flow and a side in one `u32` (the flow
/// in the high 31 bits), so that [`Event`] keeps to 8 bytes: a struct
/// variant of a `u32` and a `Side` made it 12.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowTimer(u32);

impl FlowTimer {
    /// The timer of `side` of flow `flow` (fewer than 2^31 flows).
    pub fn new(flow: u32, side: Side) -> Self {
        assert!(flow < 1 << 31, "flow {flow}: at most 2^31 flows");
        FlowTimer(flow << 1 | side.idx() as u32)
    }
    /// The flow.
    pub fn flow(self) -> u32 {
        self.0 >> 1
    }
    /// The side.
    pub fn side(self) -> Side {
        if self.0 & 1 == 0 {
            Side::Sender
        } else {
            Side::Receiver
        }
    }
}

impl From<NetEvent> for Event {
    fn from(e: NetEvent) -> Self {
        Event::Net(e)
    }
}

/// One flow of any transport family: both endpoints and its bookkeeping.
pub struct Flow {
    /// Index of the `[[workload]]` that created it.
    pub workload: u32,
    /// Index of its transport in the scenario's transports.
    pub transport: u32,
    /// The sender, at the source host.
    pub sender: Sender,
    /// The receiver, at the destination host.
    pub receiver: Receiver,
    /// Bytes the flow sends; `None`: unbounded (until its stop time).
    pub size: Option<u64>,
    /// When the flow starts ([`SimTime::MAX`] for a closed-loop round
    /// not started yet).
    pub start: SimTime,
    /// Its round (incast rounds; 0 otherwise).
    pub round: u32,
    /// Its closed-loop round gate, if any.
    gate: Option<u32>,
    /// When the receiver had every byte in order (sized flows).
    pub received_at: Option<SimTime>,
    ready: bool,
    /// Counted out of `World::open_flows`.
    done: bool,
    timers: [Option<SimTime>; 2],
}

impl Flow {
    /// The receiver's host.
    #[inline]
    fn receiver_host(&self) -> HostId {
        self.sender.addr().dst
    }

    /// The deadline of one end's timers.
    #[inline]
    fn deadline(&self, side: Side) -> Option<SimTime> {
        match side {
            Side::Sender => self.sender.deadline(),
            Side::Receiver => self.receiver.deadline(),
        }
    }
}

/// The simulated world.
pub struct World {
    q: EventQueue<Event>,
    /// Host NICs have a queue per class (PFC with several classes).
    nic_per_class: bool,
    /// The network.
    fabric: Fabric,
    /// Every flow, indexed by flow id.
    flows: flows::Flows,
    /// Every packet source.
    sources: Vec<Source>,
    /// Each workload's kind, load and rounds.
    workloads: Vec<WorkloadInfo>,
    /// The flows `summary.json`'s `fairness` is over (`output.jain_flows`).
    jain_flows: Option<Vec<u32>>,
    /// Delay histograms per workload, and the RTT series.
    metrics: Metrics,
    /// Closed-loop rounds still to come.
    gates: Vec<rounds::RoundGate>,
    /// Flows that start when others are done.
    deps: deps::Deps,
    /// The collectives the run's jobs carry out.
    collectives: Vec<JobCollective>,
    /// The execution traces the run's jobs run.
    traces: Vec<JobTrace>,
    /// The scenario's transports, by index (for ideal FCTs and reports).
    transports: Vec<crate::scenario::NamedTransport>,
    /// The upper edges of the flow-size buckets of the report, in bytes.
    size_buckets: Vec<u64>,
    /// The goodput series, when `output.goodput_interval` is set.
    goodput: Option<goodput::GoodputSeries>,
    /// The link-utilisation series, when `output.link_interval` is set.
    links: Option<links::LinkSeries>,
    /// The controller trace, when `output.cc_trace` is set.
    cc_trace: Option<cc_trace::CcTrace>,
    /// Every node's name (`host17`, `tor3`), by node id.
    node_names: Vec<String>,
    /// Every host: its NIC discipline and ready list, its receive state.
    hosts: Vec<transport::Host>,
    scratch: Vec<Packet>,
    /// The INT stack of the packet being delivered (telemetry a controller
    /// asked for), for the ACK that echoes it or the sender that
    /// reads it.
    int_rx: IntStack,
    limit: RunLimit,
    /// Time of the last event that did work (stale timer events do none).
    last_activity: SimTime,
    /// Ports sampled for `queues.csv`, and how often.
    sampled_ports: Vec<net::PortId>,
    sample_interval: Option<SimDuration>,
    /// The queue samples so far (or their sink).
    queue_samples: rows::Rows<QueueSample>,
    /// The standing queue after `output.queue_from`, per sampled port.
    queue_after: Option<sampling::QueueAfter>,
    /// The run's seed.
    seed: u64,
    /// Flows whose data is not all acknowledged yet.
    open_flows: usize,
    /// Packet sources with an arrival still to come.
    active_sources: usize,
    stop: Option<StopReason>,
    /// Packets moved at the livelock watch's last checks.
    watch: livelock::Watch,
    /// Where the flows were stuck, when the progress watch stopped the run.
    livelock: Option<String>,
    /// The scenario's `[[failure]]`s (the stall report names them).
    failures: Vec<net::LinkFault>,
    /// The LP this copy runs, in a partitioned run.
    role: Option<lp::Role>,
    /// The report's tables of the whole run, once LP copies are merged.
    whole: Option<finished::Tables>,
}

/// What the report needs to know of a workload.
#[derive(Debug, Clone)]
pub struct WorkloadInfo {
    /// Its kind (`incast`, `flows`, ...).
    pub kind: &'static str,
    /// Its target and offered load (`None`: not defined by a load).
    pub load: Option<Load>,
    /// Its rounds (0: it has none).
    pub rounds: u32,
}

impl World {
    /// Whether traffic remains: a packet in the network, a flow not yet
    /// finished (including one yet to start) or a source yet to send.
    fn traffic_pending(&self) -> bool {
        self.open_flows > 0 || self.active_sources > 0 || self.fabric.packets.live() > 0
    }

    /// The current simulated time.
    pub fn now(&self) -> SimTime {
        self.whole.as_ref().map_or(self.q.now(), |w| w.counts.now)
    }

    /// A port's name: its node's and the far end's, `tor3->host17`.
    pub fn port_name(&self, p: net::PortId) -> String {
        let port = self.fabric.port_facts(p);
        let name = |n: net::NodeId| self.node_names.get(n.idx()).map_or("?", String::as_str);
        format!("{}->{}", name(port.node), name(port.peer_node))
    }

    /// Every port's name, by port id.
    pub fn port_names(&self) -> Vec<String> {
        (0..self.fabric.ports().len() as u32)
            .map(|p| self.port_name(net::PortId(p)))
            .collect()
    }

    /// The end of the run as reported: the stop time if the run was cut
    /// there, else the last event that did work (a completed run may leave
    /// superseded timer events behind; they do not extend it).
    pub fn end_time(&self) -> SimTime {
        finished::end_of(self.stop, Some(self.last_activity), Some(self.now()))
    }

    /// Flows whose data is not all acknowledged.
    pub fn unfinished_flows(&self) -> usize {
        self.open_flows
    }

    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.whole
            .as_ref()
            .map_or(self.q.events_processed(), |w| w.counts.events)
    }

    /// Runs to the scenario's end (stop time, completion, or the event cap).
    pub fn run(&mut self) -> StopReason {
        self.run_until(self.limit.end)
    }

    /// Runs until `t` (inclusive) or an earlier end; time-averages then cover
    /// up to `t` if the run was cut there.
    pub fn run_until(&mut self, t: SimTime) -> StopReason {
        self.run_until_with(t, u64::MAX, &mut |_| true)
    }

    /// Runs to the scenario's end like [`World::run`], calling `progress`
    /// with the simulated time after every `every` events (at least every
    /// 2^22) (for a progress
    /// display: the run's results do not depend on it); the run stops with
    /// [`StopReason::Interrupted`] when `progress` returns false.
    pub fn run_with_progress(
        &mut self,
        every: u64,
        progress: &mut dyn FnMut(SimTime) -> bool,
    ) -> StopReason {
        self.run_until_with(self.limit.end, every, progress)
    }

    fn run_until_with(
        &mut self,
        t: SimTime,
        every: u64,
        progress: &mut dyn FnMut(SimTime) -> bool,
    ) -> StopReason {
        let end = t.min(self.limit.end);
        // The loop runs in chunks that end at the next progress call, the
        // next check of the progress watch (every CHECK_EVENTS events, and
        // at its points of simulated time) or the event cap, whichever
        // comes first, so that neither costs anything per event and the
        // watch checks at the same points whatever `every` is.
        let cap = self.limit.max_events;
        let step = every.clamp(1, livelock::CHECK_EVENTS);
        let mut next_progress = self.q.events_processed().saturating_add(step);
        let mut next_check = self
            .q
            .events_processed()
            .saturating_add(livelock::CHECK_EVENTS);
        let mut next_time = livelock::next_time_check(self.now());
        let mut lim = RunLimit {
            end: end.min(next_time),
            max_events: next_progress.min(next_check).min(cap),
        };
        let mut egress = None;
        let reason = loop {
            match self.q.pop_within(&lim) {
                Ok((now, ev)) => {
                    self.prefetch_ahead(&mut egress);
                    self.dispatch(now, ev)
                }
                Err(Stop::Drained) if self.unfinished_flows() > 0 => break StopReason::Stalled,
                Err(Stop::Drained) => break StopReason::Completed,
                Err(Stop::TimeOverflow) => break StopReason::TimeOverflow,
                Err(Stop::EventLimit) if lim.max_events < cap => {
                    let done = lim.max_events;
                    if done >= next_progress {
                        next_progress = done.saturating_add(step);
                        if !progress(self.q.now()) {
                            break StopReason::Interrupted;
                        }
                    }
                    if done >= next_check {
                        next_check = done.saturating_add(livelock::CHECK_EVENTS);
                        if self.livelocked(self.q.now(), livelock::CheckKind::Events) {
                            break StopReason::Stalled;
                        }
                    }
                    lim.max_events = next_progress.min(next_check).min(cap);
                }
                Err(Stop::EventLimit) => break StopReason::EventLimit,
                Err(Stop::EndTime) if lim.end < end => {
                    if self.livelocked(lim.end, livelock::CheckKind::Time) {
                        break StopReason::Stalled;
                    }
                    next_time = livelock::next_time_check(next_time);
                    lim.end = end.min(next_time);
                }
                Err(Stop::EndTime) => {
                    self.q.advance_to(lim.end);
                    break StopReason::StopTime;
                }
            }
        };
        self.stop = Some(reason);
        reason
    }

    #[inline]
    fn dispatch(&mut self, now: SimTime, ev: Event) {
        // What is activity (for the end of a completed run) is decided in
        // each arm, on the event's kind already matched: a match of its
        // own before this one cost 18 instructions an event (cachegrind,
        // perm-k16). A failure's change is not activity: one due after
        // the traffic ended must not stretch a completed run; neither are
        // timers and samples.
        match ev {
            Event::Net(e) => {
                let live = match e {
                    NetEvent::Fault(_) => false,
                    NetEvent::IngressTimer(p) => self.fabric.ingress_timer_due(p, now),
                    _ => true,
                };
                if live {
                    self.last_activity = now;
                }
                self.net_event(now, e);
            }
            Event::FlowStart(f) => {
                self.last_activity = now;
                self.flows[f].sender.start(now, &mut self.scratch);
                self.flush();
                self.after_sender(now, f);
            }
            Event::FlowStop(f) => {
                self.last_activity = now;
                self.flows[f].sender.stop_app(now, &mut self.scratch);
                self.flush();
                self.after_sender(now, f);
            }
            Event::Timer(timer) => self.on_timer(now, timer),
            Event::Arrival(s) => {
                self.last_activity = now;
                self.on_arrival(now, s);
            }
            Event::Sample(s) => self.sample(s, now),
            Event::Trigger(e) => {
                self.last_activity = now;
                self.on_trigger(now, e);
            }
        }
    }

    /// A network event: the fabric handles it, and what it hands to a
    /// host (a packet, a free NIC) goes on to the host's layers.
    #[inline(always)]
    fn net_event(&mut self, now: SimTime, e: NetEvent) {
        match self.fabric.handle(e, &mut self.q) {
            Outcome::Nothing => {}
            Outcome::Delivered { host, pkt } => {
                let p = *self.fabric.packets.get(pkt);
                if p.carries_int() {
                    // Telemetry: the records go to the receiver's ACK, or
                    // from the ACK to the sender.
                    self.int_rx = *self.fabric.int.get(pkt);
                }
                self.fabric.packets.free(pkt);
                self.on_host_packet(now, host, &p);
            }
            Outcome::NicReady { host } => self.pump(now, host),
        }
    }

    /// An endpoint's timer event: stale ones are ignored, early ones
    /// re-arm, due ones run the endpoint's timers. Out of line: inlined
    /// into `dispatch`, it cost 2.9% of the quickstart's instructions and
    /// of a rate-paced convergence run's (cachegrind: 83.78M against 81.42M).
    #[inline(never)]
    fn on_timer(&mut self, now: SimTime, timer: FlowTimer) {
        let (flow, side) = (timer.flow(), timer.side());
        let fl = &mut self.flows[flow];
        if fl.timers[side.idx()] != Some(now) {
            return; // superseded by an earlier deadline
        }
        fl.timers[side.idx()] = None;
        if fl.deadline(side).is_none_or(|d| d > now) {
            // Nothing is due: the deadline moved later after this
            // event was armed (a CNP slowed a waiting pacer, say).
            // Re-arm for it; the endpoint has nothing to do.
            self.arm(flow, side);
            return;
        }
        self.last_activity = now; // a timer that expires does work
        match side {
            Side::Receiver => {
                let rx = &mut self.hosts[fl.receiver_host().idx()].rx;
                fl.receiver.on_timer(now, rx, &mut self.scratch);
                self.flush();
                self.arm(flow, Side::Receiver);
            }
            Side::Sender => {
                fl.sender.on_timer(now, &mut self.scratch);
                self.flush();
                self.after_sender(now, flow);
            }
        }
    }

    fn on_host_packet(&mut self, now: SimTime, host: HostId, p: &Packet) {
        debug_assert_eq!(host, p.dst);
        let f = match p.origin {
            Origin::Source(s) => return self.on_source_packet(now, s, p),
            Origin::Flow(f) => f.0,
        };
        let fl = &mut self.flows[f];
        if p.reverse {
            let int = if p.carries_int() {
                &self.int_rx
            } else {
                &IntStack::EMPTY
            };
            fl.sender.on_packet(now, p, int, &mut self.scratch);
            if let Some(rtt) = fl.sender.take_rtt_sample() {
                self.metrics.rtt(fl.workload, rtt);
            }
            self.flush();
            self.after_sender(now, f);
        } else {
            if p.payload_bytes > 0 {
                self.metrics.one_way(fl.workload, now.since(p.created_at));
            }
            let rx = &mut self.hosts[host.idx()].rx;
            fl.receiver.on_packet(now, p, rx, &mut self.scratch);
            let gate = fl.gate;
            let received = fl.received_at.is_none()
                && fl.size.is_some_and(|s| fl.receiver.bytes_received() >= s);
            if received {
                fl.received_at = Some(now);
            }
            self.flush();
            self.arm(f, Side::Receiver);
            if received {
                self.flow_received(now, f, gate);
            }
        }
    }

    /// Hands every packet an endpoint emitted to its host's NIC.
    #[inline]
    fn flush(&mut self) {
        let mut out = std::mem::take(&mut self.scratch);
        for p in out.drain(..) {
            // An ACK echoes the INT stack of the data packet it answers
            // (the endpoints emit no other packet that carries INT).
            self.fabric
                .host_send_int(p.src, p, &self.int_rx, &mut self.q);
        }
        self.scratch = out;
    }

    /// After a sender changed: count it done if it is, queue it at its
    /// host if it has data to send, re-arm its timer, and let the NIC pull.
    #[inline]
    fn after_sender(&mut self, now: SimTime, f: u32) {
        let fl = &mut self.flows[f];
        let sent = !fl.done && fl.sender.completed_at().is_some();
        if sent {
            fl.done = true;
            self.open_flows -= 1;
        }
        let host = fl.sender.addr().src;
        if sent {
            self.flow_sent(now, f);
        }
        let (h, mut io) = self.host_io(host);
        h.offer(now, f, &mut io);
        io.rearm(f);
        h.pump(now, &mut io);
    }

    /// The NIC of `host` pulls data packets from its ready flows
    /// ([`transport::Host::pump`]).
    #[inline]
    fn pump(&mut self, now: SimTime, host: HostId) {
        let (h, mut io) = self.host_io(host);
        h.pump(now, &mut io);
    }

    /// Host `host` and its view of the flows and its NIC.
    #[inline(always)]
    fn host_io(&mut self, host: HostId) -> (&mut transport::Host, nic::Nic<'_>) {
        let io = nic::Nic {
            host,
            per_class: self.nic_per_class,
            flows: &mut self.flows,
            fabric: &mut self.fabric,
            q: &mut self.q,
        };
        (&mut self.hosts[host.idx()], io)
    }

    /// Re-arms the timer of one end of flow `f`.
    #[inline(always)]
    fn arm(&mut self, f: u32, side: Side) {
        nic::arm(&mut self.flows, &mut self.q, f, side);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_timers_round_trip_in_eight_byte_events() {
        for (flow, side) in [
            (0, Side::Sender),
            (7, Side::Receiver),
            ((1 << 31) - 1, Side::Receiver),
        ] {
            let t = FlowTimer::new(flow, side);
            assert_eq!((t.flow(), t.side()), (flow, side));
        }
        assert_eq!(std::mem::size_of::<Event>(), 8);
    }
}

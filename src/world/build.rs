//! Building the world from a scenario: the fabric, the hosts, the
//! samplers, and every workload's flows and sources.

use super::{
    BuildError, Event, Flow, JobCollective, Metrics, Series, WorkloadInfo, World, cc_trace,
    goodput, livelock, rounds, rows, sampling,
};
use crate::registry::workload::{Planned, plan_all};
use crate::scenario::Scenario;
use net::{Fabric, FabricConfig, FlowId, HostId, IntStack, WireFormat};
use sim_core::{EventQueue, RngStream, RunLimit, SimDuration, SimTime};
use transport::FlowAddr;

/// Each class queue's scheduling weight (its quantum, or 1 under strict
/// priority) and how many classes are strict.
fn class_weights(d: &net::sched::Discipline, classes: usize) -> (Vec<u64>, usize) {
    use net::sched::Discipline;
    match d {
        Discipline::StrictPriority => (vec![1; classes], classes),
        Discipline::Dwrr { quanta } | Discipline::Wrr { quanta } => (quanta.clone(), 0),
        Discipline::SpDwrr { quanta, strict } => (quanta.clone(), *strict),
    }
}

/// The fabric's settings for `sc` under `seed`, on framing `wire`.
pub(super) fn fabric_config(sc: &Scenario, seed: u64, wire: WireFormat) -> FabricConfig {
    FabricConfig {
        discipline: sc.switch.scheduler.clone(),
        classes: sc.switch.classes,
        class_of_priority: sc.switch.class_of_priority,
        wire,
        buffer: sc.switch.buffer,
        nic_buffer_bytes: sc.topology.nic_buffer.0,
        seed,
        pfc: sc.switch.pfc,
        credits: sc.credit_queues(wire),
        paths: sc.routing.paths.clone(),
        spray: sc.routing.spray,
        faults: sc.failures.clone(),
        trim: sc.switch.trim,
        header_priority: sc.switch.header_priority,
    }
}

/// The fabric of `sc` under `seed`, on framing `wire`: its switches'
/// AQMs and ingress plugins installed.
fn build_fabric(
    sc: &Scenario,
    seed: u64,
    wire: WireFormat,
    node_names: &[String],
    role: Option<&super::Role>,
) -> Result<Fabric, BuildError> {
    // An LP's copy holds its own nodes' ports only (`net::fabric::ports`).
    let mine = |n: net::NodeId| role.is_none_or(|r| r.partition.lp(n) == r.me);
    let cfg = fabric_config(sc, seed, wire);
    let (weights, strict_classes) = class_weights(&sc.switch.scheduler, sc.switch.classes);
    let ctx = |p: net::PortId, rate| aqm::PortContext {
        seed,
        port: p.0,
        rate,
        weights: weights.clone(),
        strict_classes,
        buffer: sc.switch.queue_limit(),
        packet_time: wire.packet_time(rate),
    };
    let aqm_for = |p, node, rate| mine(node).then(|| sc.switch.aqm.build(&ctx(p, rate)));
    let mut fabric = match role {
        None => Fabric::new(&sc.topology.spec.shape.build(), cfg, aqm_for)?,
        Some(r) => Fabric::new_lp(&r.graph, cfg, (&r.partition, r.me), &r.fabric, aqm_for)?,
    };
    // Whether each node runs the ingress plugin (`switches`; hosts
    // have no ingress stage), resolved once rather than per port.
    let hosts = sc.topology.spec.size.hosts as usize;
    let mut deployed = vec![sc.switch.ingress_switches.is_none(); node_names.len()];
    for name in sc.switch.ingress_switches.iter().flatten() {
        let s = crate::scenario::switch_index(&node_names[hosts..], name)
            .expect("switch names are checked at load");
        deployed[hosts + s] = true;
    }
    fabric.install_ingress(|p, node, rate| {
        let plugin = (sc.switch.ingress.as_ref()).filter(|_| deployed[node.idx()] && mine(node));
        plugin.map(|i| i.build(&ctx(p, rate)))
    });
    Ok(fabric)
}

impl World {
    /// Builds the world for a validated scenario under `seed`.
    pub fn build(sc: &Scenario, seed: u64) -> Result<World, BuildError> {
        Self::build_planned(sc, seed, plan_all(sc, seed))
    }

    /// Builds the world from workloads already planned for `seed`
    /// ([`plan_all`]), so that a run plans them once.
    pub fn build_planned(
        sc: &Scenario,
        seed: u64,
        planned: Vec<Planned>,
    ) -> Result<World, BuildError> {
        Self::build_copy(sc, seed, planned, None)
    }

    /// Builds the world, or (with a role) one LP's copy of it: the whole
    /// world, in which only the LP's components schedule their events.
    pub(super) fn build_copy(
        sc: &Scenario,
        seed: u64,
        planned: Vec<Planned>,
        role: Option<super::Role>,
    ) -> Result<World, BuildError> {
        let wire = sc.topology.framing.wire();
        let node_names = sc.topology.spec.shape.node_names();
        let fabric = build_fabric(sc, seed, wire, &node_names, role.as_ref())?;
        let mut w = World::empty(sc, seed, fabric, node_names);
        if sc.simulation.order == crate::scenario::TieOrder::Model {
            w.q.order_by_model();
        }
        w.links = sc
            .output
            .link_interval
            .map(|i| super::links::LinkSeries::new(i, &w));
        w.role = role;
        w.cut_links();
        w.schedule_faults();
        w.schedule_samplers(sc);
        w.prepare_transports(sc, &planned);
        w.add_workloads(sc, planned, wire);
        Ok(w)
    }

    /// The world before its samplers and workloads.
    fn empty(sc: &Scenario, seed: u64, fabric: Fabric, node_names: Vec<String>) -> World {
        let hosts = fabric.host_count();
        let nic_per_class = hosts > 0 && fabric.nic_per_class(HostId(0));
        World {
            q: EventQueue::with_capacity(4096),
            nic_per_class,
            fabric,
            flows: Default::default(),
            sources: Vec::new(),
            hosts: (0..hosts as u32)
                .map(|h| transport::Host::new(HostId(h), nic_per_class))
                .collect(),
            scratch: Vec::with_capacity(16),
            int_rx: IntStack::EMPTY,
            limit: RunLimit {
                end: sc
                    .simulation
                    .stop_time
                    .map_or(SimTime::MAX, |d| SimTime::ZERO + d),
                max_events: sc.simulation.max_events,
            },
            last_activity: SimTime::ZERO,
            stop: None,
            watch: livelock::Watch::default(),
            livelock: None,
            failures: sc.failures.clone(),
            role: None,
            whole: None,
            sampled_ports: Vec::new(),
            sample_interval: sc.output.queue_interval,
            queue_samples: rows::Rows::default(),
            queue_after: None,
            seed,
            open_flows: 0,
            active_sources: 0,
            workloads: Vec::new(),
            metrics: Metrics::new(sc.workloads.len(), sc.output.rtt_interval),
            gates: Vec::new(),
            deps: Default::default(),
            collectives: Vec::new(),
            traces: Vec::new(),
            jain_flows: sc.output.jain_flows.clone(),
            transports: sc.transports.clone(),
            size_buckets: sc.output.size_buckets.iter().map(|b| b.0).collect(),
            goodput: sc.output.goodput_interval.map(|interval| {
                goodput::GoodputSeries::new(interval, sc.output.goodput_flows.clone())
            }),
            links: None,
            node_names,
            cc_trace: sc.output.cc_trace.as_ref().map(|c| cc_trace::CcTrace {
                interval: c.interval,
                flows: c.flows.clone(),
                rows: rows::Rows::default(),
            }),
        }
    }

    /// Chooses the sampled ports and schedules the first sample of each
    /// series asked for (an LP's copy schedules none: the windows take
    /// them, `parallel/due.rs`).
    fn schedule_samplers(&mut self, sc: &Scenario) {
        if self.sample_interval.is_some() {
            self.sampled_ports = self.select_ports(sc.output.queue_ports.as_ref());
            self.queue_after = sc
                .output
                .queue_from
                .map(|from| sampling::QueueAfter::new(from, self.sampled_ports.len()));
        }
        for s in Series::ALL {
            if let (Some(at), None) = (self.first_sample(s), &self.role) {
                self.q.schedule(at, Event::Sample(s));
            }
        }
    }

    /// Schedules the link failures' changes at this copy's own nodes.
    fn schedule_faults(&mut self) {
        let role = self.role.clone();
        let owns = |n: net::NodeId| role.as_ref().is_none_or(|r| r.partition.lp(n) == r.me);
        self.fabric.schedule_faults(&mut self.q, owns);
    }

    /// Adds every workload's flows and packet sources.
    fn add_workloads(&mut self, sc: &Scenario, planned: Vec<Planned>, wire: WireFormat) {
        let seed = self.seed;
        self.reserve_flows(&planned);
        for ((wi, spec), planned) in (0u32..).zip(&sc.workloads).zip(planned) {
            let plan = planned.plan;
            self.workloads.push(WorkloadInfo {
                kind: spec.kind(),
                load: planned.load,
                rounds: plan.rounds,
            });
            let gate = plan.closed_loop.then(|| {
                self.gates.push(rounds::RoundGate {
                    waiting: 0,
                    later: (1..plan.rounds).map(|_| Vec::new()).collect(),
                });
                self.gates.len() as u32 - 1
            });
            let purpose = sim_core::rng::purpose::START_JITTER;
            let mut jitter = RngStream::new(seed, wi as u64, purpose);
            let first = self.flows.len() as u32;
            let triggered = plan.trigger_of();
            for (f, by_trigger) in plan.flows.into_iter().zip(triggered) {
                let delay = match f.start_jitter.ps() {
                    0 => 0,
                    j => jitter.below(j),
                };
                let delay = f.start + SimDuration::from_ps(delay);
                let stop = f.stop.map(|d| SimTime::ZERO + d);
                let (src, dst) = (HostId(f.src), HostId(f.dst));
                let id = self.flows.len() as u32;
                match gate {
                    _ if by_trigger.is_some() => {
                        self.add_flow(sc, wi, src, dst, f.size, None, None)
                    }
                    Some(g) if f.round > 0 => {
                        assert!(stop.is_none(), "closed-loop rounds have no stop time");
                        self.add_flow(sc, wi, src, dst, f.size, None, None);
                        self.gates[g as usize].later[f.round as usize - 1].push((id, delay));
                    }
                    _ => {
                        let at = SimTime::ZERO + delay;
                        self.add_flow(sc, wi, src, dst, f.size, Some(at), stop);
                        if let Some(g) = gate {
                            self.gates[g as usize].waiting += 1;
                        }
                    }
                }
                if let Some(flow) = self.flows.get_mut(id) {
                    flow.round = f.round;
                    flow.gate = gate;
                }
            }
            let base = self.add_triggers(first, &plan.triggers, &plan.streams);
            self.add_reports(wi, (first, base), plan.collectives, plan.traces);
            for s in &plan.sources {
                self.add_source(wi, s, spec.priority(), wire);
            }
        }
    }

    /// Keeps workload `wi`'s collectives and traces for the report, their
    /// flows and triggers in the world's numbering (its first flow and
    /// trigger have ids `first` and `base`).
    fn add_reports(
        &mut self,
        wi: u32,
        (first, base): (u32, u32),
        collectives: Vec<crate::registry::workload::CollectivePlan>,
        traces: Vec<crate::registry::workload::chakra::TracePlan>,
    ) {
        for mut t in traces {
            t.parts.iter_mut().for_each(|p| p.offset_triggers(base));
            self.traces.push(super::JobTrace {
                workload: wi,
                plan: t,
            });
        }
        for mut c in collectives {
            c.transfers.iter_mut().for_each(|t| t.flow += first);
            c.after.iter_mut().flatten().for_each(|f| *f += first);
            self.collectives.push(JobCollective {
                workload: wi,
                plan: c,
            });
        }
    }

    /// Makes room for exactly the flows this copy holds: a flow is large.
    fn reserve_flows(&mut self, planned: &[Planned]) {
        let all = planned.iter().flat_map(|p| &p.plan.flows);
        let held = (all.clone())
            .filter(|f| self.holds_flow(HostId(f.src), HostId(f.dst)))
            .count();
        self.flows.reserve_exact(all.count(), held);
    }

    /// Lets each transport derive what it needs from the run's flows
    /// before they are built ([`transport::Family::prepare`]), given what
    /// each flow's ends learn of its path.
    fn prepare_transports(&mut self, sc: &Scenario, planned: &[Planned]) {
        for t in 0..self.transports.len() {
            let flows: Vec<transport::PlannedFlow> = planned
                .iter()
                .enumerate()
                .filter(|&(wi, _)| sc.workload_transport[wi] as usize == t)
                .flat_map(|(_, p)| &p.plan.flows)
                .map(|f| transport::PlannedFlow {
                    src: HostId(f.src),
                    dst: HostId(f.dst),
                    size: f.size,
                })
                .collect();
            // The paths are the configuration's as it is before preparing.
            let path = |f: &transport::PlannedFlow| {
                let addr = FlowAddr {
                    flow: FlowId(0),
                    src: f.src,
                    dst: f.dst,
                    sport: 0,
                    dport: 0,
                    priority: 0,
                };
                self.path_info(&self.transports[t].config, &addr)
            };
            let mut cfg = self.transports[t].config.clone();
            cfg.family_rules_mut().prepare(&flows, &path);
            self.transports[t].config = cfg;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn add_flow(
        &mut self,
        sc: &Scenario,
        wi: u32,
        src: HostId,
        dst: HostId,
        size: Option<u64>,
        at: Option<SimTime>,
        stop: Option<SimTime>,
    ) {
        let id = self.flows.len() as u32;
        let mine = self.owns_host(src);
        self.open_flows += usize::from(mine);
        let transport = sc.workload_transport[wi as usize];
        // Every copy numbers each host's source ports alike, holding the
        // flow or not.
        let sport = self.hosts[src.idx()].ephemeral_port(self.seed);
        if !self.holds_flow(src, dst) {
            self.flows.push(None);
            return;
        }
        let addr = FlowAddr {
            flow: FlowId(id),
            src,
            dst,
            sport,
            dport: 5001,
            priority: sc.workloads[wi as usize].flow_priority(src.0, dst.0),
        };
        // The run's copy: what `prepare_transports` derived is in it.
        let cfg = &self.transports[transport as usize].config;
        let path = self.path_info(cfg, &addr);
        // An unbounded flow: more bytes than any run can send.
        let sender = cfg.sender(addr, size.unwrap_or(u64::MAX - 2), &path);
        self.hosts[src.idx()].add_sender(
            sender.built_at_the_wire(),
            cfg.family_rules().nic_discipline(),
        );
        self.flows.push(Some(Flow {
            workload: wi,
            transport,
            sender,
            size,
            receiver: cfg.receiver(addr, &path),
            start: at.unwrap_or(SimTime::MAX),
            round: 0,
            gate: None,
            received_at: None,
            ready: false,
            done: false,
            timers: [None, None],
        }));
        if let (Some(at), true) = (at, mine) {
            self.q.schedule(at, Event::FlowStart(id));
        }
        if let (Some(t), true) = (stop, mine) {
            self.q.schedule(t, Event::FlowStop(id));
        }
    }

    /// What a new flow's ends may know of their hosts and path: the NICs'
    /// rates and framing, (for the families that read it) the base RTT and
    /// BDP: one full data packet out and an ACK back, store-and-forward on
    /// empty queues, times the source NIC's rate, and (for a controller that models them) the two
    /// hosts' clock offsets.
    fn path_info(&self, cfg: &transport::TransportConfig, addr: &FlowAddr) -> transport::PathInfo {
        let wire = self.fabric.config().wire;
        // A GPU's flow to a GPU of its server runs at NVLink's rate.
        let port = |h: HostId, peer: HostId| self.fabric.host_port_towards(h, peer);
        let line_rate = self.fabric.link(port(addr.src, addr.dst)).0;
        let rx_line_rate = self.fabric.link(port(addr.dst, addr.src)).0;
        let base_rtt = if cfg.needs_bdp() {
            crate::paths::base_rtt(&self.fabric, addr, cfg)
        } else {
            SimDuration::ZERO
        };
        let offset_max = cfg.clock_offset_max().ps();
        let clock_offset = |h: HostId| {
            if offset_max == 0 {
                return SimDuration::ZERO;
            }
            let purpose = sim_core::rng::purpose::CLOCK_OFFSET;
            SimDuration::from_ps(
                RngStream::new(self.seed, h.0 as u64, purpose).below(offset_max + 1),
            )
        };
        transport::PathInfo {
            line_rate,
            rx_line_rate,
            wire,
            base_rtt,
            bdp_bytes: line_rate.bytes_in(base_rtt),
            src_clock_offset: clock_offset(addr.src),
            dst_clock_offset: clock_offset(addr.dst),
            stream_seed: RngStream::new(
                self.seed,
                addr.flow.0 as u64,
                sim_core::rng::purpose::CLOCK_JITTER,
            )
            .next_u64(),
        }
    }
}

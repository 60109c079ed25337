//! Queue sampling for `queues.csv`: which ports (`[output] queue_ports`),
//! when (every `queue_interval` while traffic remains), and where the
//! samples go (memory, or a [`super::RowSink`] given by
//! [`World::stream_series_to`]).

use super::World;
use crate::scenario::{NodeRef, PortSelector, QueuePorts};
use net::{HostId, NodeId};
use sim_core::SimTime;

/// One `queues.csv` row: a class queue's occupancy at a sampling instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueSample {
    /// When (ps).
    pub time_ps: u64,
    /// The egress port.
    pub port: u32,
    /// The switch the port belongs to.
    pub node: u32,
    /// Its class queue, or [`VIQ_CLASS`] for the port's virtual input queue.
    pub class: u8,
    /// Bytes queued.
    pub bytes: u64,
    /// Packets queued.
    pub packets: u64,
}

/// `QueueSample::class` of a sample of a port's VIQ (its ingress stage).
pub const VIQ_CLASS: u8 = u8::MAX;

/// The sampled ports' queues from `output.queue_from` on: per port, the
/// sum and the largest of its class queues' total over the samples at or
/// after that time (its VIQ not counted: it holds ACKs, not the data
/// queue). A standing queue, with a start-up burst left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueAfter {
    /// From when (ps).
    pub from_ps: u64,
    /// Samples taken since.
    pub samples: u64,
    /// Per sampled port, in `sampled_ports` order: (sum of bytes, largest).
    pub ports: Vec<(u128, u64)>,
}

impl QueueAfter {
    /// Nothing sampled yet, for `ports` sampled ports.
    pub fn new(from: sim_core::SimDuration, ports: usize) -> QueueAfter {
        QueueAfter {
            from_ps: from.ps(),
            samples: 0,
            ports: vec![(0, 0); ports],
        }
    }
}

impl World {
    /// The switch ports `queue_ports` names, in order, each once (absent:
    /// every switch port).
    pub(super) fn select_ports(&self, which: Option<&QueuePorts>) -> Vec<net::PortId> {
        let ports = self.fabric.ports();
        let all = (0..ports.len() as u32).map(net::PortId);
        let Some(QueuePorts::List(list)) = which else {
            return all
                .filter(|p| self.fabric.port_facts(*p).at_switch)
                .collect();
        };
        let hosts = self.fabric.host_count() as u32;
        let node = |n: NodeRef| NodeId(n.index(hosts));
        let mut chosen = Vec::new();
        let mut seen = vec![false; ports.len()];
        for sel in list {
            let matches: Vec<net::PortId> = match *sel {
                PortSelector::Named(_) => unreachable!("the loader reads names into ports"),
                PortSelector::TowardsHost(h) => vec![self.fabric.port_towards_host(HostId(h))],
                PortSelector::Switch(s) => all
                    .clone()
                    .filter(|p| self.fabric.port_facts(*p).node == node(NodeRef::Switch(s)))
                    .collect(),
                PortSelector::Link { from, to } => all
                    .clone()
                    .filter(|p| {
                        let port = self.fabric.port_facts(*p);
                        port.node == node(NodeRef::Switch(from)) && port.peer_node == node(to)
                    })
                    .collect(),
            };
            for p in matches {
                if !std::mem::replace(&mut seen[p.idx()], true) {
                    chosen.push(p);
                }
            }
        }
        chosen
    }

    /// The standing queue after `output.queue_from`, with the sampled
    /// ports (absent without it).
    pub fn queue_after(&self) -> Option<(&QueueAfter, &[net::PortId])> {
        self.queue_after
            .as_ref()
            .map(|q| (q, &self.sampled_ports[..]))
    }

    /// The queue samples kept so far (none when streamed to a sink,
    /// [`World::stream_series_to`]).
    pub fn queue_samples(&self) -> &[QueueSample] {
        self.queue_samples.kept()
    }

    /// Records every sampled class queue (`series.rs` says when), each
    /// read in the copy that holds it: this one, or one of `others` (the
    /// other LPs' copies of a cut run).
    pub(super) fn record_queues(&mut self, now: SimTime, others: &[&World]) {
        let fabric = &self.fabric;
        let port_of = |p: net::PortId| {
            let holder = std::iter::once(fabric)
                .chain(others.iter().map(|o| &o.fabric))
                .find(|f| f.ports().holds(p))
                .expect("some LP holds every port");
            holder.port(p)
        };
        if let Some(after) = self.queue_after.as_mut().filter(|a| now.ps() >= a.from_ps) {
            after.samples += 1;
            for (slot, &p) in after.ports.iter_mut().zip(&self.sampled_ports) {
                let total: u64 = port_of(p).queues.iter().map(|q| q.bytes()).sum();
                slot.0 += u128::from(total);
                slot.1 = slot.1.max(total);
            }
        }
        for &p in &self.sampled_ports {
            let port = port_of(p);
            let queues = port.queues.iter().map(|q| (q.bytes(), q.packets()));
            let viq = port
                .has_ingress_hook()
                .then(|| (port.ingress.viq.bytes(), port.ingress.viq.packets()));
            let classes = (0u8..).zip(queues).chain(viq.map(|v| (VIQ_CLASS, v)));
            for (class, (bytes, packets)) in classes {
                let sample = QueueSample {
                    time_ps: now.ps(),
                    port: p.0,
                    node: port.node.0,
                    class,
                    bytes,
                    packets,
                };
                self.queue_samples.push(sample);
            }
        }
    }
}

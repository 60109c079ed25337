//! Which failure explains a stuck flow (the progress watch's report, and
//! the warning at load): a host whose own cable went down, two hosts that
//! the links down by now disconnect, or a failure never routed around (a
//! black hole that a flow's hash may keep choosing).

use super::World;
use net::{Fabric, FaultKind, HostId, LinkFault, NodeId, PortId};
use sim_core::SimTime;

/// The failures in effect at one time, and what they cut.
pub(super) struct CutOff<'w> {
    world: &'w World,
    /// `[[failure]]` indices of the links down by then.
    down: Vec<usize>,
    /// By port: whether its cable is down.
    port_down: Vec<bool>,
    /// By node: its ports.
    ports_of: Vec<Vec<PortId>>,
}

impl<'w> CutOff<'w> {
    /// The failures of `world` that have happened by `now`.
    pub(super) fn new(world: &'w World, now: SimTime) -> Self {
        let down: Vec<usize> = (world.failures.iter().enumerate())
            .filter(|(_, f)| f.kind == FaultKind::Down && f.at <= now)
            .map(|(i, _)| i)
            .collect();
        let mut port_down = vec![false; world.fabric.ports().len()];
        for &i in &down {
            for p in Fabric::cable_ports(world.failures[i].cable) {
                port_down[p.idx()] = true;
            }
        }
        let mut ports_of: Vec<Vec<PortId>> = vec![Vec::new(); world.node_names.len()];
        if !down.is_empty() {
            for p in (0..world.fabric.ports().len() as u32).map(PortId) {
                ports_of[world.fabric.port_facts(p).node.idx()].push(p);
            }
        }
        CutOff {
            world,
            down,
            port_down,
            ports_of,
        }
    }

    /// Why a flow from `src` to `dst` cannot deliver, if a failure says.
    pub(super) fn why(&self, src: HostId, dst: HostId) -> Option<String> {
        if self.down.is_empty() {
            return None;
        }
        let fabric = &self.world.fabric;
        for (h, peer) in [(src, dst), (dst, src)] {
            let p = fabric.host_port_towards(h, peer);
            if self.port_down[p.idx()] {
                let i = self.failure_of(p)?;
                return Some(format!(
                    "{}'s cable is down ({})",
                    self.world.host_name(h),
                    self.describe(i)
                ));
            }
        }
        if !self.connected(src, dst) {
            let list: Vec<String> = self.down.iter().map(|&i| self.describe(i)).collect();
            return Some(format!(
                "the links down disconnect {} from {} ({})",
                self.world.host_name(src),
                self.world.host_name(dst),
                list.join(", ")
            ));
        }
        // A host's cable carries only that host's packets.
        let between_switches = |i: usize| {
            let [a, b] = Fabric::cable_ports(self.world.failures[i].cable);
            let fabric = &self.world.fabric;
            fabric.port_facts(a).at_switch && fabric.port_facts(b).at_switch
        };
        let holes: Vec<String> = (self.down.iter())
            .filter(|&&i| self.world.failures[i].reroute_after.is_none() && between_switches(i))
            .map(|&i| self.describe(i))
            .collect();
        (!holes.is_empty()).then(|| {
            format!(
                "a failed link that no switch routes around (no reroute_after) may hold its \
                 packets ({})",
                holes.join(", ")
            )
        })
    }

    /// The `[[failure]]` that took port `p`'s cable down.
    fn failure_of(&self, p: PortId) -> Option<usize> {
        (self.down.iter().copied())
            .find(|&i| Fabric::cable_ports(self.world.failures[i].cable).contains(&p))
    }

    /// `failure[3], tor1 - agg0 at 10us`.
    fn describe(&self, i: usize) -> String {
        describe(self.world, i, &self.world.failures[i])
    }

    /// Whether `dst` can be reached from `src` over the links still up,
    /// through nodes that forward (and the two hosts' own NIC nodes).
    fn connected(&self, src: HostId, dst: HostId) -> bool {
        let fabric = &self.world.fabric;
        let (from, to) = (fabric.host_node(src), fabric.host_node(dst));
        // A GPU's NVLink peer stands for its NIC: both ends share it.
        let nic = |h: HostId, peer: HostId| {
            fabric
                .port_facts(fabric.host_port_towards(h, peer))
                .peer_node
        };
        let (nic_a, nic_b) = (nic(src, dst), nic(dst, src));
        let mut seen = vec![false; self.ports_of.len()];
        let mut stack = vec![from];
        seen[from.idx()] = true;
        while let Some(n) = stack.pop() {
            if n == to {
                return true;
            }
            if n != from && n != nic_a && n != nic_b && !fabric.transits(n) {
                continue;
            }
            for &p in &self.ports_of[n.idx()] {
                let peer = fabric.port_facts(p).peer_node;
                if !self.port_down[p.idx()] && !seen[peer.idx()] {
                    seen[peer.idx()] = true;
                    stack.push(peer);
                }
            }
        }
        false
    }
}

/// `failure[3] (tor1 - agg0 at 10us)`.
pub(super) fn describe(world: &World, i: usize, f: &LinkFault) -> String {
    let [a, _] = Fabric::cable_ports(f.cable);
    let port = world.fabric.port_facts(a);
    let name = |n: NodeId| world.node_names.get(n.idx()).map_or("?", String::as_str);
    format!(
        "failure[{i}]: {} - {} down at {}",
        name(port.node),
        name(port.peer_node),
        f.at
    )
}

//! GPU servers in the topologies: `gpus_per_server` on the leaf-spine and
//! the k-ary fat-tree, and the `rail-optimised` cluster
//! (`net::TopologyGraph::gpu_servers`, `net::TopologyGraph::rail_optimised`).
//!
//! A GPU is a host (a rank) with two cables: its NIC into the fabric and
//! its NVLink to its server's scale-up switch (an NVSwitch). NVIDIA's
//! H100 has 18 NVLink 4 links of 50 GB/s each way together, 450 GB/s per
//! direction (3.6 Tb/s): the `nvlink_rate` of an HGX H100 server.

use super::{Key, Shape, Size, at_least, key, numbered, size};
use net::{Rails, TopologyGraph};
use serde::Deserialize;
use sim_core::{Bandwidth, SimDuration};

/// The GPU-server keys of a shape whose hosts may be GPUs, as read.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct GpuKeys {
    /// GPUs per server; 1: hosts are not GPUs.
    pub gpus_per_server: Option<u32>,
    /// Each GPU's NVLink rate, per direction.
    pub nvlink_rate: Option<Bandwidth>,
    /// Each GPU's NVLink delay to its scale-up switch.
    pub nvlink_delay: Option<SimDuration>,
}

/// The checked GPU servers of a shape: `gpus` per server, with their
/// NVLink's rate and delay (`gpus` 1: none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct GpuServers {
    pub gpus: u32,
    pub rate: Bandwidth,
    pub delay: SimDuration,
}

impl GpuKeys {
    /// The servers these keys make of `hosts` hosts, `per_rack` under each
    /// ToR (a server never straddles two): the NVLink keys are required
    /// with more than one GPU per server and refused without.
    pub fn check(&self, hosts: u64, per_rack: u64) -> Result<GpuServers, (String, String)> {
        let gpus = self.gpus_per_server.unwrap_or(1);
        let gpus = at_least(gpus, 1, "gpus_per_server")?;
        if gpus == 1 {
            for (k, given) in [
                ("nvlink_rate", self.nvlink_rate.is_some()),
                ("nvlink_delay", self.nvlink_delay.is_some()),
            ] {
                if given {
                    let msg = "an NVLink joins a server's GPUs: set gpus_per_server above 1, or remove it";
                    return Err((k.into(), msg.into()));
                }
            }
        } else if !per_rack.is_multiple_of(gpus) || !hosts.is_multiple_of(gpus) {
            let msg = format!(
                "{gpus} GPUs per server do not divide the {per_rack} hosts under each switch: a server hangs under one"
            );
            return Err(("gpus_per_server".into(), msg));
        }
        let need = |k: &str| {
            (
                k.to_string(),
                "required with gpus_per_server above 1".to_string(),
            )
        };
        Ok(GpuServers {
            gpus: gpus as u32,
            rate: match (gpus, self.nvlink_rate) {
                (1, _) => Bandwidth::from_bps(1),
                (_, Some(r)) => r,
                _ => return Err(need("nvlink_rate")),
            },
            delay: match (gpus, self.nvlink_delay) {
                (1, _) => SimDuration::ZERO,
                (_, Some(d)) => d,
                _ => return Err(need("nvlink_delay")),
            },
        })
    }
}

impl GpuServers {
    /// `s` with a scale-up switch per server and an NVLink per GPU.
    pub fn size(self, s: Size) -> Result<Size, (String, String)> {
        if self.gpus <= 1 {
            return Ok(s);
        }
        let hosts = s.hosts as u64;
        let servers = hosts / self.gpus as u64;
        let switches = (s.switches as u64).checked_add(servers);
        size(
            Some(hosts),
            switches,
            s.links.checked_add(hosts),
            s.edges,
            "gpus_per_server",
        )
    }

    /// `g` with its hosts made GPUs of servers.
    pub fn build(self, g: TopologyGraph) -> TopologyGraph {
        g.gpu_servers(self.gpus, self.rate, self.delay)
    }

    /// `names` with the scale-up switches' after them.
    pub fn names(self, mut names: Vec<String>, hosts: u32) -> Vec<String> {
        if self.gpus > 1 {
            names.extend(numbered(&[("nvswitch", hosts / self.gpus)]));
        }
        names
    }

    /// The longest of `other` and the NVLink's delay, with its key.
    pub fn longest_delay(self, other: (String, SimDuration)) -> (String, SimDuration) {
        if self.gpus > 1 && self.delay > other.1 {
            return ("nvlink_delay".into(), self.delay);
        }
        other
    }
}

/// `gpus_per_server` of the leaf-spine and the k-ary fat-tree.
pub(super) const GPUS_PER_SERVER: Key = key(
    "gpus_per_server",
    "1",
    "integer, dividing the hosts per ToR",
    "hosts are the GPUs of servers of this many, numbered server by server; each server's GPUs joined by a scale-up switch (nvswitch0, ...) over their NVLinks; a GPU sends to a GPU of its server by NVLink, to any other by its NIC",
);

/// `nvlink_rate` of the leaf-spine and the k-ary fat-tree.
pub(super) const NVLINK_RATE: Key = key(
    "nvlink_rate",
    "none (required with gpus_per_server > 1)",
    "rate",
    "each GPU's NVLink rate to its scale-up switch, per direction (an H100: 3.6Tbps, 450 GB/s)",
);

/// `nvlink_delay` of the leaf-spine and the k-ary fat-tree.
pub(super) const NVLINK_DELAY: Key = key(
    "nvlink_delay",
    "none (required with gpus_per_server > 1)",
    "duration, 0 to 1s",
    "each GPU's NVLink delay to its scale-up switch",
);

/// `kind = "rail-optimised"`: NVIDIA DGX SuperPOD's rail-optimised fabric.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RailOptimised {
    servers: u32,
    #[serde(default = "eight")]
    gpus_per_server: u32,
    rails: Option<u32>,
    servers_per_group: u32,
    spines: u32,
    nvlink_rate: Bandwidth,
    nvlink_delay: SimDuration,
    nic_rate: Bandwidth,
    fabric_rate: Bandwidth,
    link_delay: SimDuration,
}

fn eight() -> u32 {
    8
}

impl RailOptimised {
    /// The shape as `net` builds it (after `size` has checked it).
    fn rails(&self) -> Rails {
        Rails {
            servers: self.servers,
            gpus_per_server: self.gpus_per_server,
            rails: self.rails.unwrap_or(self.gpus_per_server),
            servers_per_group: self.servers_per_group,
            spines: self.spines,
            nvlink_rate: self.nvlink_rate,
            nvlink_delay: self.nvlink_delay,
            nic_rate: self.nic_rate,
            fabric_rate: self.fabric_rate,
            link_delay: self.link_delay,
        }
    }

    /// Its node counts: (GPUs, NICs shared by GPUs, leaves, spines,
    /// scale-up switches).
    fn counts(&self) -> Result<[u64; 5], (String, String)> {
        let servers = at_least(self.servers, 1, "servers")?;
        let gpus = at_least(self.gpus_per_server, 1, "gpus_per_server")?;
        let rails = self.rails.unwrap_or(self.gpus_per_server) as u64;
        if rails == 0 || !gpus.is_multiple_of(rails) {
            let msg = format!("{rails}: NICs per server, a divisor of its {gpus} GPUs");
            return Err(("rails".into(), msg));
        }
        let per_group = at_least(self.servers_per_group, 1, "servers_per_group")?;
        let spines = at_least(self.spines, 1, "spines")?;
        let groups = servers.div_ceil(per_group);
        let nics = if rails < gpus { servers * rails } else { 0 };
        let up = if gpus > 1 { servers } else { 0 };
        Ok([servers * gpus, nics, groups * rails, spines, up])
    }
}

impl Shape for RailOptimised {
    fn size(&self) -> Result<Size, (String, String)> {
        let [gpus, nics, leaves, spines, up] = self.counts()?;
        // A cable per GPU to its NIC or leaf, per shared NIC to its leaf,
        // per leaf to each spine, per GPU to its scale-up switch.
        let nvlinks = if up > 0 { gpus } else { 0 };
        let links = (leaves.checked_mul(spines)).and_then(|l| l.checked_add(gpus + nics + nvlinks));
        let switches = nics + leaves + spines + up;
        let edges = if nics > 0 { nics } else { leaves };
        size(Some(gpus), Some(switches), links, edges, "servers")
    }
    fn host_rate(&self, _host: u32) -> Bandwidth {
        self.nic_rate
    }
    fn gpus_per_server(&self) -> u32 {
        self.gpus_per_server
    }
    fn build(&self) -> TopologyGraph {
        TopologyGraph::rail_optimised(&self.rails())
    }
    fn longest_delay(&self) -> (String, SimDuration) {
        if self.nvlink_delay > self.link_delay {
            return ("nvlink_delay".into(), self.nvlink_delay);
        }
        ("link_delay".into(), self.link_delay)
    }
    fn node_names(&self) -> Vec<String> {
        let [gpus, nics, leaves, spines, up] = self.counts().unwrap_or([0; 5]);
        numbered(&[
            ("gpu", gpus as u32),
            ("nic", nics as u32),
            ("leaf", leaves as u32),
            ("spine", spines as u32),
            ("nvswitch", up as u32),
        ])
    }
}

/// The rail-optimised fabric's keys.
pub(super) const RAIL_KEYS: &[Key] = &[
    key(
        "servers",
        "required",
        "integer",
        "GPU servers; GPUs are numbered server by server (gpu = server x gpus_per_server + GPU)",
    ),
    key(
        "gpus_per_server",
        "8",
        "integer",
        "GPUs (ranks) per server, joined by the server's scale-up switch",
    ),
    key(
        "rails",
        "gpus_per_server",
        "integer, a divisor of gpus_per_server",
        "NICs per server: GPU g uses NIC g / (gpus_per_server / rails); NIC r of every server of a group is cabled to the group's leaf r",
    ),
    key(
        "servers_per_group",
        "required",
        "integer",
        "servers per group (DGX SuperPOD's scalable unit): a leaf per rail per group, leaves numbered group by group in rail order",
    ),
    key(
        "spines",
        "required",
        "integer",
        "spine switches, each linked to every leaf",
    ),
    key(
        "nvlink_rate",
        "required",
        "rate",
        "each GPU's NVLink rate to its server's scale-up switch, per direction (an H100: 3.6Tbps)",
    ),
    key(
        "nvlink_delay",
        "required",
        "duration, 0 to 1s",
        "each GPU's NVLink delay to its scale-up switch",
    ),
    key(
        "nic_rate",
        "required",
        "rate",
        "each NIC's rate (a shared NIC's GPUs reach it at this rate, with no delay)",
    ),
    key("fabric_rate", "required", "rate", "leaf-spine link rate"),
    key(
        "link_delay",
        "required",
        "duration, 0 to 1s",
        "delay of the NIC and leaf-spine links",
    ),
];

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Five servers of 8 GPUs in groups of 2 (the last alone), `rails`
    /// NICs each, 2 spines.
    pub fn rails(rails: u32) -> RailOptimised {
        RailOptimised {
            servers: 5,
            gpus_per_server: 8,
            rails: Some(rails),
            servers_per_group: 2,
            spines: 2,
            nvlink_rate: Bandwidth::from_gbps(3600),
            nvlink_delay: SimDuration::from_ns(100),
            nic_rate: Bandwidth::from_gbps(400),
            fabric_rate: Bandwidth::from_gbps(400),
            link_delay: SimDuration::from_ns(500),
        }
    }

    #[test]
    fn rails_must_divide_the_gpus_and_nvlink_keys_need_gpus() {
        let mut r = rails(3);
        assert_eq!(r.size().unwrap_err().0, "rails");
        r.rails = Some(0);
        assert_eq!(r.size().unwrap_err().0, "rails");
        r.rails = Some(8);
        r.spines = 0;
        assert_eq!(r.size().unwrap_err().0, "spines");
        let keys = GpuKeys {
            gpus_per_server: None,
            nvlink_rate: Some(Bandwidth::from_gbps(1)),
            nvlink_delay: None,
        };
        assert_eq!(keys.check(8, 4).unwrap_err().0, "nvlink_rate");
        let keys = GpuKeys {
            gpus_per_server: Some(3),
            ..keys
        };
        assert_eq!(keys.check(8, 4).unwrap_err().0, "gpus_per_server");
        let keys = GpuKeys {
            gpus_per_server: Some(2),
            ..keys
        };
        assert_eq!(keys.check(8, 4).unwrap_err().0, "nvlink_delay");
    }
}

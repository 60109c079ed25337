//! `kind = "flows"`: Poisson flow arrivals at a target load, sizes drawn
//! from a flow-size CDF (the setup of pFabric, PIAS, MQ-ECN section 5, HPCC's
//! `traffic_gen.py` and the R-AQM and RCC evaluations).
//!
//! Each sender is a Poisson source of flows at rate
//! `lambda = load x C / (8 x mean_bytes)`, with `C` its host link's rate and
//! `mean_bytes` the CDF's mean: `load` counts flow (payload) bytes against
//! the link rate, as HPCC's and MQ-ECN's scripts do (see
//! `workloads/README.md`). Each arrival goes to a receiver drawn uniformly
//! from the receiver set without the sender. Patterns: `hosts = S` (random
//! pairs within S), or `senders` and `receivers` (all to one receiver set,
//! from one sender set, or any two sets).
//!
//! Randomness: each sender has its own stream (`purpose::FLOWS`, component
//! workload index x 2^32 + host), drawn in a fixed order (gap, then per
//! arrival the receiver, the size and the next gap), so adding a sender
//! leaves the others' flows unchanged. Arrivals of all senders are merged in
//! time order (ties by sender position), which is the order flows are
//! numbered in.

use super::cdf::FlowSizeCdf;
use super::{FlowPlan, HostSet, Load, Plan, PlanEnv, Spec, Workload, check_host, priority_zero};
use crate::scenario::{ScenarioError, Table};
use serde::Deserialize;
use sim_core::{RngStream, SimDuration};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The most flows one `flows` workload may plan (expected count for a
/// window): their plans are built before the run.
pub const MAX_FLOWS: u64 = 20_000_000;

/// The keys as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    cdf: String,
    load: f64,
    hosts: Option<HostSet>,
    senders: Option<HostSet>,
    receivers: Option<HostSet>,
    #[serde(default)]
    start: SimDuration,
    stop: Option<SimDuration>,
    flows: Option<u64>,
    #[serde(default = "priority_zero")]
    priority: u8,
    #[serde(default = "one_service")]
    services: u8,
}

fn one_service() -> u8 {
    1
}

/// A checked `flows` workload.
#[derive(Debug)]
pub struct Flows {
    dist: FlowSizeCdf,
    load: f64,
    /// Senders and receivers, sorted and without repeats.
    senders: Vec<u32>,
    receivers: Vec<u32>,
    start: SimDuration,
    stop: Option<SimDuration>,
    flows: Option<u64>,
    priority: u8,
    /// Pairs spread over this many priorities from `priority` (MQ-ECN 5.2).
    services: u8,
    /// Hosts in the topology (the pairs' numbering).
    hosts: u32,
}

fn sorted(set: &HostSet) -> Vec<u32> {
    let mut v: Vec<u32> = set.iter().collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Reads, resolves and checks a `flows` table.
pub(super) fn parse(t: &Table<'_>) -> Result<Spec, ScenarioError> {
    let k: Keys = t.read()?;
    let dist = match FlowSizeCdf::builtin(&k.cdf) {
        Some(d) => d,
        None => {
            let path = t.base_dir().join(&k.cdf);
            let text = t.read_input(&path).map_err(|e| {
                let msg = format!(
                    "'{}' is neither a shipped distribution ({}) nor a readable file ({}: {e})",
                    k.cdf,
                    FlowSizeCdf::builtin_names(),
                    path.display()
                );
                t.invalid("cdf", msg)
            })?;
            FlowSizeCdf::parse(&text)
                .map_err(|e| t.invalid("cdf", format!("{}: {e}", path.display())))?
        }
    };
    if !(k.load > 0.0 && k.load <= 1.0) {
        let msg = format!(
            "load {} is out of range: it must be above 0 and at most 1",
            k.load
        );
        return Err(t.invalid("load", msg));
    }
    let (senders, receivers) = match (&k.hosts, &k.senders, &k.receivers) {
        (Some(h), None, None) => (sorted(h), sorted(h)),
        (None, Some(s), Some(r)) => (sorted(s), sorted(r)),
        (Some(_), _, _) => {
            let msg = "give hosts (random pairs among them), or senders and receivers, not both";
            return Err(t.invalid("hosts", msg));
        }
        (None, s, _) => {
            let key = if s.is_none() { "senders" } else { "receivers" };
            let msg = "give hosts (random pairs among them), or both senders and receivers";
            return Err(t.invalid(key, msg));
        }
    };
    let hosts = t.ctx().hosts;
    for (key, set) in [("senders", &senders), ("receivers", &receivers)] {
        let key = if k.hosts.is_some() { "hosts" } else { key };
        match set.last() {
            None => return Err(t.invalid(key, "no hosts")),
            Some(&h) => check_host(key, h, hosts).map_err(|(k, m)| t.invalid(&k, m))?,
        }
    }
    if receivers.len() == 1 && senders == receivers {
        let msg = format!("host {} would send only to itself", senders[0]);
        return Err(t.invalid("receivers", msg));
    }
    // Bound what is planned before the run: the expected count over the
    // window (every sender at the fastest host rate), or the cap.
    let expected = match (k.stop, k.flows) {
        (Some(stop), cap) => {
            if stop <= k.start {
                return Err(t.invalid("stop", "stop must be after start"));
            }
            let window_s = (stop.ps() - k.start.ps()) as f64 * 1e-12;
            let rate = t.ctx().max_host_rate.bps() as f64;
            let per_sender = k.load * rate / (8.0 * dist.mean_bytes()) * window_s;
            let n = per_sender * senders.len() as f64;
            cap.map_or(n, |c| n.min(c as f64))
        }
        (None, Some(cap)) => cap as f64,
        (None, None) => {
            let msg = "give stop (the end of arrivals), flows (how many), or both";
            return Err(t.invalid("stop", msg));
        }
    };
    if !(1..=net::packet::PRIORITIES).contains(&(k.services as usize)) {
        let msg = format!(
            "{} services: give 1 to {}",
            k.services,
            net::packet::PRIORITIES
        );
        return Err(t.invalid("services", msg));
    }
    if k.flows == Some(0) {
        return Err(t.invalid("flows", "flows must be at least 1"));
    }
    if expected > MAX_FLOWS as f64 {
        let key = if k.stop.is_some() { "stop" } else { "flows" };
        let msg = format!(
            "about {expected:.0} flows: a workload may plan at most {MAX_FLOWS}; \
             shorten stop, lower load or cap flows"
        );
        return Err(t.invalid(key, msg));
    }
    super::accept(
        t,
        Flows {
            dist,
            load: k.load,
            senders,
            receivers,
            start: k.start,
            stop: k.stop,
            flows: k.flows,
            priority: k.priority,
            services: k.services,
            hosts,
        },
    )
}

impl Flows {
    /// Mean time between a sender's arrivals at the target load.
    fn mean_gap(&self, env: &PlanEnv<'_>, sender: u32) -> SimDuration {
        let bps = env.topology.host_rate(sender).bps() as f64;
        SimDuration::from_ps_f64(8.0 * self.dist.mean_bytes() * 1e12 / (self.load * bps))
    }

    /// A receiver for `sender`, uniform over the receivers without it.
    fn receiver(&self, rng: &mut RngStream, sender: u32) -> u32 {
        match self.receivers.binary_search(&sender) {
            Ok(me) => {
                let j = rng.below(self.receivers.len() as u64 - 1) as usize;
                self.receivers[if j >= me { j + 1 } else { j }]
            }
            Err(_) => self.receivers[rng.below(self.receivers.len() as u64) as usize],
        }
    }
}

impl Workload for Flows {
    fn kind(&self) -> &'static str {
        "flows"
    }
    fn priority(&self) -> u8 {
        self.priority
    }
    fn priority_span(&self) -> u8 {
        self.services
    }
    /// MQ-ECN's ns-2 script maps pair (i, j) of N hosts to service
    /// (j x N + i) mod S, which spreads the pairs evenly over the S services.
    fn flow_priority(&self, src: u32, dst: u32) -> u8 {
        let pair = dst as u64 * self.hosts as u64 + src as u64;
        self.priority + (pair % self.services as u64) as u8
    }
    fn check(&self, _hosts: u32) -> Result<(), (String, String)> {
        Ok(()) // `parse` checked the hosts while it resolved the CDF
    }
    fn endless(&self) -> Option<&'static str> {
        None
    }
    fn plan(&self, env: &PlanEnv<'_>) -> Plan {
        let purpose = sim_core::rng::purpose::FLOWS;
        let mut streams: Vec<(RngStream, SimDuration)> = self
            .senders
            .iter()
            .map(|&s| {
                let component = ((env.index as u64) << 32) | s as u64;
                (
                    RngStream::new(env.seed, component, purpose),
                    self.mean_gap(env, s),
                )
            })
            .collect();
        // The next arrival of every sender, earliest first (ties: sender position).
        let mut next: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
        for (i, (rng, gap)) in streams.iter_mut().enumerate() {
            let t = self.start.ps().saturating_add(rng.exp_duration(*gap).ps());
            next.push(Reverse((t, i)));
        }
        let end = self.stop.map_or(u64::MAX, |s| s.ps());
        let cap = self.flows.unwrap_or(u64::MAX);
        let mut flows = Vec::new();
        while let Some(Reverse((t, i))) = next.pop() {
            if t >= end || flows.len() as u64 >= cap || t == u64::MAX {
                break;
            }
            let src = self.senders[i];
            let (rng, gap) = &mut streams[i];
            let dst = self.receiver(rng, src);
            let size = self.dist.sample(rng.uniform_open01());
            flows.push(FlowPlan {
                src,
                dst,
                size: Some(size),
                start: SimDuration::from_ps(t),
                start_jitter: SimDuration::ZERO,
                stop: None,
                round: 0,
            });
            next.push(Reverse((t.saturating_add(rng.exp_duration(*gap).ps()), i)));
        }
        Plan::of_flows(flows)
    }
    fn load(&self, plan: &Plan, env: &PlanEnv<'_>) -> Option<Load> {
        let end = match (self.stop, plan.flows.last()) {
            (Some(stop), _) => stop.ps(),
            (None, Some(last)) => last.start.ps(),
            (None, None) => self.start.ps(),
        };
        let offered = offered_load(plan, &self.senders, self.start.ps(), end, env);
        Some(Load {
            target: self.load,
            offered,
        })
    }
}

/// The load `plan`'s flows offer: their bytes over the `senders`' link
/// capacity over the arrival window from `start_ps` to `end_ps` (0 for an
/// empty window).
pub(super) fn offered_load(
    plan: &Plan,
    senders: &[u32],
    start_ps: u64,
    end_ps: u64,
    env: &PlanEnv<'_>,
) -> f64 {
    let window_s = end_ps.saturating_sub(start_ps) as f64 * 1e-12;
    let capacity: f64 = senders
        .iter()
        .map(|&s| env.topology.host_rate(s).bps() as f64 / 8.0)
        .sum();
    let bytes: f64 = plan
        .flows
        .iter()
        .filter_map(|f| f.size)
        .map(|b| b as f64)
        .sum();
    if window_s > 0.0 {
        bytes / (capacity * window_s)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Scenario, load_str};

    fn scenario(workload: &str) -> Result<Scenario, ScenarioError> {
        let text = format!(
            "[topology]\nkind = \"star\"\nhosts = 16\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
             [switch]\nbuffer = \"100pkt\"\n[[workload]]\nkind = \"flows\"\n{workload}\n"
        );
        load_str("t.toml", &text, &[])
    }

    fn plan(sc: &Scenario, seed: u64) -> (Plan, Load) {
        let env = PlanEnv {
            seed,
            index: 0,
            topology: &*sc.topology.spec.shape,
        };
        let w = &sc.workloads[0];
        let plan = w.plan(&env);
        let load = w.load(&plan, &env).expect("a flows workload has a load");
        (plan, load)
    }

    #[test]
    fn arrivals_offer_the_target_load() {
        // fb_webserver (mean 62 KB): 16 senders at 10 Gb/s and load 0.5 make
        // 10,003 flows/s each, 160,000 in a second.
        let sc = scenario("cdf = \"fb_webserver\"\nload = 0.5\nhosts = \"0-15\"\nstop = \"1s\"")
            .expect("valid");
        let (p, load) = plan(&sc, 1);
        let expected = 16.0 * 0.5 * 10e9 / (8.0 * 62_481.8);
        let n = p.flows.len() as f64;
        assert!(
            (n - expected).abs() / expected < 0.01,
            "{n} flows for {expected}"
        );
        assert!((load.offered - 0.5).abs() < 0.01, "{load:?}");
        assert!(
            p.flows.windows(2).all(|w| w[0].start <= w[1].start),
            "time order"
        );
        assert!(
            p.flows
                .iter()
                .all(|f| f.src != f.dst && f.src < 16 && f.dst < 16)
        );
        assert!(
            p.flows
                .iter()
                .all(|f| f.start < SimDuration::from_ps(1_000_000_000_000))
        );
    }

    #[test]
    fn plans_follow_the_seed_and_a_sender_keeps_its_flows() {
        let text = "cdf = \"websearch\"\nload = 0.3\nhosts = \"0-7\"\nstop = \"100ms\"";
        let sc = scenario(text).expect("valid");
        assert_eq!(plan(&sc, 1).0, plan(&sc, 1).0);
        assert_ne!(plan(&sc, 1).0, plan(&sc, 2).0);
        // Senders 0-7 to receivers 0-7, with and without sender 8 added:
        // the flows of senders 0-7 are the same.
        let base = scenario("cdf = \"websearch\"\nload = 0.3\nsenders = \"0-7\"\nreceivers = \"0-7\"\nstop = \"100ms\"")
            .expect("valid");
        let more = scenario("cdf = \"websearch\"\nload = 0.3\nsenders = \"0-8\"\nreceivers = \"0-7\"\nstop = \"100ms\"")
            .expect("valid");
        let (a, b) = (plan(&base, 1).0, plan(&more, 1).0);
        let of_0_to_7: Vec<_> = b.flows.iter().filter(|f| f.src < 8).cloned().collect();
        assert_eq!(a.flows, of_0_to_7);
        assert!(b.flows.iter().any(|f| f.src == 8) && b.flows.iter().all(|f| f.dst < 8));
    }

    #[test]
    fn patterns_and_caps() {
        // All to one receiver set.
        let sc = scenario(
            "cdf = \"fb_hadoop\"\nload = 0.2\nsenders = \"1-15\"\nreceivers = [0]\nflows = 500",
        )
        .expect("valid");
        let (p, _) = plan(&sc, 3);
        assert_eq!(p.flows.len(), 500);
        assert!(p.flows.iter().all(|f| f.dst == 0 && f.src != 0));
        // The cap keeps the earliest flows of the uncapped plan.
        let capped = scenario(
            "cdf = \"fb_hadoop\"\nload = 0.2\nhosts = \"0-15\"\nstop = \"10ms\"\nflows = 100",
        )
        .expect("valid");
        let all = scenario("cdf = \"fb_hadoop\"\nload = 0.2\nhosts = \"0-15\"\nstop = \"10ms\"")
            .expect("valid");
        let (c, a) = (plan(&capped, 1).0, plan(&all, 1).0);
        assert_eq!(c.flows[..], a.flows[..100]);
    }

    #[test]
    fn bad_tables_name_the_key_and_the_choices() {
        let cases = [
            (
                "cdf = \"websurch\"\nload = 0.5\nhosts = \"0-3\"\nstop = \"1ms\"",
                "workload[0].cdf",
                "websearch, datamining",
            ),
            (
                "cdf = \"websearch\"\nload = 1.5\nhosts = \"0-3\"\nstop = \"1ms\"",
                "workload[0].load",
                "at most 1",
            ),
            (
                "cdf = \"websearch\"\nload = 0.5\nhosts = \"0-3\"\nsenders = [1]\nstop = \"1ms\"",
                "workload[0].hosts",
                "not both",
            ),
            (
                "cdf = \"websearch\"\nload = 0.5\nsenders = [1]\nstop = \"1ms\"",
                "workload[0].receivers",
                "both senders and receivers",
            ),
            (
                "cdf = \"websearch\"\nload = 0.5\nhosts = \"0-3\"",
                "workload[0].stop",
                "stop (the end of arrivals), flows",
            ),
            (
                "cdf = \"websearch\"\nload = 0.5\nhosts = \"0-99\"\nstop = \"1ms\"",
                "workload[0].hosts",
                "does not exist",
            ),
            (
                "cdf = \"websearch\"\nload = 0.5\nhosts = [3]\nstop = \"1ms\"",
                "workload[0].receivers",
                "only to itself",
            ),
            (
                "cdf = \"fb_webserver\"\nload = 1\nhosts = \"0-15\"\nstop = \"1000s\"",
                "workload[0].stop",
                "at most 20000000",
            ),
        ];
        for (table, key, why) in cases {
            let e = scenario(table).expect_err(table).to_string();
            assert!(e.contains(key) && e.contains(why), "{table}:\n{e}");
        }
    }

    #[test]
    fn a_cdf_file_is_read_beside_the_scenario_and_its_errors_name_the_line() {
        let dir = std::env::temp_dir().join(format!("dcnsim-cdf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("good.cdf"), "# mine\n1000 0\n2000 1\n").expect("write");
        std::fs::write(dir.join("bad.cdf"), "1000 0\n900 1\n").expect("write");
        let text = |cdf: &str| {
            format!(
                "[topology]\nkind = \"star\"\nhosts = 4\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
                 [switch]\nbuffer = \"100pkt\"\n[[workload]]\nkind = \"flows\"\ncdf = \"{cdf}\"\n\
                 load = 0.5\nhosts = \"0-3\"\nflows = 50\n"
            )
        };
        let file = dir.join("s.toml").display().to_string();
        let sc = load_str(&file, &text("good.cdf"), &[]).expect("valid");
        let (p, _) = plan(&sc, 1);
        assert!(
            p.flows
                .iter()
                .all(|f| (1000..=2000).contains(&f.size.expect("sized")))
        );
        let e = load_str(&file, &text("bad.cdf"), &[])
            .expect_err("bad")
            .to_string();
        assert!(
            e.contains("bad.cdf: line 2") && e.contains("strictly ascending"),
            "{e}"
        );
        let e = load_str(&file, &text("none.cdf"), &[])
            .expect_err("missing")
            .to_string();
        assert!(e.contains("neither a shipped distribution"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }
}

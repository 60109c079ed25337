//! The loader's checks that need more than one table: paths and spraying
//! against the transports, planes, the switches and ports `[output]` and
//! the ingress plugin name, the sampled series, the observers, the
//! workloads and `[simulation]`. Each refuses at the key it names.

use super::error::{ScenarioError, Source};
use super::load::locate;
use super::read_transport::check_families;
use super::types::*;
use toml::de::DeTable;

/// The most threads one run may ask for (`simulation.threads`), and the
/// most LPs (`simulation.lps`).
pub const MAX_THREADS: usize = 1024;

/// Checks that schemes that pair a flow's data and ACKs (or credits) at
/// one port run on symmetric routes, and that a link goes down only
/// where what it models holds: the key at fault and why.
pub(super) fn check_paths(sc: &Scenario) -> Result<(), (String, String)> {
    check_spraying(sc)?;
    check_planes(sc)?;
    if let Some((key, what)) = sc.routing.asymmetry() {
        let key = format!("routing.{key}");
        if sc.switch.ingress.is_some() {
            let msg = format!(
                "{what} sends a flow's packets over several paths, but the [switch.ingress] \
                 plugin pairs each flow's ACKs with its data at one port: it needs per-flow \
                 ECMP without spraying"
            );
            return Err((key, msg));
        }
        if let Some(t) = sc
            .transports
            .iter()
            .find(|t| t.config.family_rules().needs_symmetric_paths())
        {
            let msg = format!(
                "{what} sends a flow's packets over several paths, but transport \"{}\" \
                 ({}) needs its data on its credits' path: it needs per-flow ECMP without \
                 spraying",
                t.name,
                t.config.family_rules().name()
            );
            return Err((key, msg));
        }
    }
    if sc.output.max_min && !sc.routing.symmetric() {
        let msg = "max_min allocates each flow its one ECMP path, but [routing] spreads flows \
                   over several: leave routing.choice at \"ecmp\" and routing.spray at \"none\"";
        return Err(("output.max_min".into(), msg.into()));
    }
    let down = sc
        .failures
        .iter()
        .position(|f| f.kind == net::FaultKind::Down);
    if let (Some(i), Some(_)) = (down, &sc.switch.pfc) {
        let msg = "a link that goes down under PFC would strand its PAUSE state, which \
                   dcnsim does not model: give `degrade`, or run without switch.pfc";
        return Err((format!("failure[{i}]"), msg.into()));
    }
    Ok(())
}

/// `switch.header_priority = true` serves header-only packets first, and
/// only a family whose control packets are headers sends them (trimming
/// makes its own): refused where no transport of the scenario would be
/// touched by it.
pub(super) fn check_header_priority(sc: &Scenario) -> Result<(), (String, String)> {
    let header_only = (sc.transports.iter()).any(|t| t.config.control_is_header());
    if sc.switch.header_priority && sc.switch.trim.is_none() && !header_only {
        let msg = "true, but no transport here sends header-only packets (control packets \
                   that are headers, as UEC's and NDP's ACKs, NACKs and pulls are): it would \
                   change nothing";
        return Err(("switch.header_priority".into(), msg.into()));
    }
    Ok(())
}

/// A transport that sets its own entropy values (it sprays) against
/// `[routing] spray` and what needs one path per flow.
pub(super) fn check_spraying(sc: &Scenario) -> Result<(), (String, String)> {
    let spraying = sc
        .transports
        .iter()
        .find(|t| t.config.family_rules().sprays());
    if let Some(t) = spraying {
        let key = t.key("spray");
        if sc.routing.spray != net::path_choice::Spray::None {
            let msg = format!(
                "transport \"{}\" sets its packets' entropy values itself, and [routing] spray \
                 would overwrite them: leave routing.spray at \"none\" and choose the transport's spray",
                t.name
            );
            return Err(("routing.spray".into(), msg));
        }
        if sc.switch.ingress.is_some() || sc.output.max_min {
            let what = if sc.output.max_min {
                "output.max_min allocates each flow its one ECMP path"
            } else {
                "the [switch.ingress] plugin pairs each flow's ACKs with its data at one port"
            };
            let msg = format!(
                "sprays each flow's packets over several paths, but {what}: give spray = \"none\""
            );
            return Err((key, msg));
        }
    }
    Ok(())
}

/// What a multi-plane fabric's NICs do not model.
pub(super) fn check_planes(sc: &Scenario) -> Result<(), (String, String)> {
    if sc.topology.spec.shape.planes() > 1 {
        let (key, what) = if sc.switch.pfc.is_some() {
            ("switch.pfc", "PFC")
        } else if sc.switch.ingress.is_some() {
            ("switch.ingress", "an ingress plugin")
        } else {
            ("", "")
        };
        if !key.is_empty() {
            let msg = format!(
                "{what} is not modelled on a multi-plane fabric, whose hosts' NICs forward \
                 to the planes: run topology.planes = 1, or without {key}"
            );
            return Err((key.into(), msg));
        }
    }
    Ok(())
}

/// Checks that `[switch.ingress] switches` places a plugin and names each
/// switch once, by its topology name (`tor3`) or its index (`s3`): the
/// entry at fault and why.
pub(super) fn check_ingress_switches(
    sc: &Scenario,
    list: &[String],
) -> Result<(), (Option<usize>, String)> {
    if sc.switch.ingress.is_none() {
        let msg = "places the ingress plugin, but kind \"none\" runs none: give a kind or leave switches out";
        return Err((None, msg.into()));
    }
    let names = sc.topology.spec.shape.node_names();
    let switches = &names[sc.topology.spec.size.hosts as usize..];
    for (i, name) in list.iter().enumerate() {
        let Some(s) = switch_index(switches, name) else {
            let shown: Vec<&str> = switches.iter().take(8).map(String::as_str).collect();
            let more = if switches.len() > 8 { ", ..." } else { "" };
            let msg = format!(
                "no switch is named \"{name}\": the topology's switches are {}{more} (or s0 to s{})",
                shown.join(", "),
                switches.len().saturating_sub(1)
            );
            return Err((Some(i), msg));
        };
        if list[..i]
            .iter()
            .any(|n| switch_index(switches, n) == Some(s))
        {
            return Err((Some(i), format!("\"{name}\" is named twice")));
        }
    }
    Ok(())
}

/// The index of the switch named `name` (its topology name or `sN`).
pub fn switch_index(switches: &[String], name: &str) -> Option<usize> {
    switches.iter().position(|n| n == name).or_else(|| {
        let i: usize = name.strip_prefix('s')?.parse().ok()?;
        (i < switches.len()).then_some(i)
    })
}

/// Checks that every `queue_ports` entry names a node that exists and, for
/// a link, that the two nodes are linked: the index of the entry at fault
/// and why.
pub(super) fn check_queue_ports(
    sc: &Scenario,
    list: &[PortSelector],
) -> Result<(), (usize, String)> {
    let size = sc.topology.spec.size;
    let exists = |n: NodeRef| match n {
        NodeRef::Host(h) if h >= size.hosts => Err(format!(
            "host h{h} does not exist: the topology has hosts h0 to h{}",
            size.hosts - 1
        )),
        NodeRef::Switch(s) if s >= size.switches => Err(format!(
            "switch s{s} does not exist: the topology has switches s0 to s{}",
            size.switches.saturating_sub(1)
        )),
        _ => Ok(()),
    };
    let mut graph = None;
    for (i, p) in list.iter().enumerate() {
        match *p {
            PortSelector::TowardsHost(h) if h >= size.hosts => {
                let msg = format!(
                    "host {h} does not exist: the topology has hosts 0 to {}",
                    size.hosts - 1
                );
                return Err((i, msg));
            }
            PortSelector::TowardsHost(_) => {}
            PortSelector::Named(_) => unreachable!("names are read before the checks"),
            PortSelector::Switch(s) => exists(NodeRef::Switch(s)).map_err(|m| (i, m))?,
            PortSelector::Link { from, to } => {
                exists(NodeRef::Switch(from)).map_err(|m| (i, m))?;
                exists(to).map_err(|m| (i, m))?;
                let g: &net::TopologyGraph =
                    graph.get_or_insert_with(|| sc.topology.spec.shape.build());
                let a = net::NodeId(NodeRef::Switch(from).index(size.hosts));
                let b = net::NodeId(to.index(size.hosts));
                if !g
                    .cables
                    .iter()
                    .any(|c| (c.a, c.b) == (a, b) || (c.a, c.b) == (b, a))
                {
                    return Err((i, format!("s{from} and {to} are not linked")));
                }
            }
        }
    }
    Ok(())
}

/// Checks that need more than one table: every run is bounded, the output
/// keys fit the topology.
/// The sampled series and the flow lists of `[output]`: intervals of at
/// least 1 ns, lists of flows that exist, a list only with its series.
pub(super) fn check_series(sc: &Scenario) -> Result<(), (&'static str, String)> {
    let min = crate::report::volume::MIN_SAMPLE_INTERVAL_PS;
    let cc_trace = sc.output.cc_trace.as_ref();
    if cc_trace.is_some_and(|c| c.flows.is_empty()) {
        return Err(("output.cc_trace.flows", "name at least one flow".into()));
    }
    for (key, interval) in [
        ("output.queue_interval", sc.output.queue_interval),
        ("output.goodput_interval", sc.output.goodput_interval),
        ("output.rtt_interval", sc.output.rtt_interval),
        ("output.link_interval", sc.output.link_interval),
        ("output.cc_trace.interval", cc_trace.map(|c| c.interval)),
    ] {
        if interval.is_some_and(|i| i.ps() < min) {
            let msg = "must be at least 1ns (the sampled rows a run may write are bounded too)";
            return Err((key, msg.into()));
        }
    }
    if sc.output.queue_from.is_some() && sc.output.queue_interval.is_none() {
        let msg = "queue_from reads the queue samples: give queue_interval too (sampling is off without it)";
        return Err(("output.queue_from", msg.into()));
    }
    if sc.output.goodput_flows.is_some() && sc.output.goodput_interval.is_none() {
        let msg = "goodput_flows needs goodput_interval (the series is off without it)";
        return Err(("output.goodput_flows", msg.into()));
    }
    let traced = cc_trace.map(|c| c.flows.clone());
    let logged = sc.output.events.as_ref().and_then(|e| e.flows.clone());
    let lists = [
        ("output.goodput_flows", &sc.output.goodput_flows),
        ("output.jain_flows", &sc.output.jain_flows),
        ("output.cc_trace.flows", &traced),
        ("output.events.flows", &logged),
    ];
    if lists.iter().any(|l| l.1.is_some()) {
        let flows: usize = crate::registry::workload::plan_all(sc, sc.simulation.seed)
            .iter()
            .map(|p| p.plan.flows.len())
            .sum();
        for (key, list) in lists {
            let Some(list) = list else { continue };
            if let Some(&bad) = list.iter().find(|&&f| f as usize >= flows) {
                let msg = format!(
                    "flow {bad} does not exist: the scenario's workloads make {flows} flows (ids 0 to {})",
                    flows.saturating_sub(1)
                );
                return Err((key, msg));
            }
        }
    }
    Ok(())
}

/// The captures and the event log of `[output]`: ports that exist, a
/// snap length in range, no empty list.
pub(super) fn check_observers(
    src: &Source,
    root: &DeTable,
    sc: &Scenario,
) -> Result<(), ScenarioError> {
    let err = |key: &str, msg: String| src.error(locate(root, key), key, msg);
    if let Some(pcap) = &sc.output.pcap {
        use crate::observe::pcap::{MAX_SNAPLEN, MIN_SNAPLEN};
        if pcap.ports.is_empty() {
            let msg = "names no port: list the ports to capture, as ports.csv names them, e.g. [\"tor0->host3\"]";
            return Err(err("output.pcap.ports", msg.into()));
        }
        if !(MIN_SNAPLEN..=MAX_SNAPLEN).contains(&pcap.snaplen) {
            let msg = format!(
                "must be {MIN_SNAPLEN} to {MAX_SNAPLEN} bytes (the headers take up to 128), got {}",
                pcap.snaplen
            );
            return Err(err("output.pcap.snaplen", msg));
        }
    }
    if let Some(ev) = &sc.output.events {
        if ev.ports.as_ref().is_some_and(Vec::is_empty) {
            let msg = "an empty list logs nothing: name ports, or leave ports out for every port";
            return Err(err("output.events.ports", msg.into()));
        }
        for (key, empty) in [
            (
                "output.events.flows",
                ev.flows.as_ref().is_some_and(Vec::is_empty),
            ),
            (
                "output.events.kinds",
                ev.kinds.as_ref().is_some_and(Vec::is_empty),
            ),
        ] {
            if empty {
                let msg = "an empty list logs nothing: name some, or leave the key out for all";
                return Err(err(key, msg.into()));
            }
        }
    }
    Ok(())
}

pub(super) fn check(src: &Source, root: &DeTable, sc: &Scenario) -> Result<(), ScenarioError> {
    let err = |key: &str, msg: String| src.error(locate(root, key), key, msg);
    check_workloads(sc).map_err(|(key, msg)| err(&key, msg))?;
    check_series(sc).map_err(|(key, msg)| err(key, msg))?;
    check_families(sc).map_err(|(key, msg)| err(&key, msg))?;
    check_header_priority(sc).map_err(|(key, msg)| err(&key, msg))?;
    super::sizes::check_sizes(sc).map_err(|(key, msg)| err(&key, msg))?;
    super::sizes::check_pfc_pools(sc).map_err(|msg| err("switch.shared_buffer", msg))?;
    check_paths(sc).map_err(|(key, msg)| err(&key, msg))?;
    let edges = &sc.output.size_buckets;
    if edges.first().is_some_and(|b| b.0 == 0) || edges.windows(2).any(|w| w[0] >= w[1]) {
        let msg = "bucket edges must be positive and increasing, e.g. [\"100KB\", \"10MB\"]";
        return Err(err("output.size_buckets", msg.into()));
    }
    if let Some(list) = &sc.switch.ingress_switches {
        check_ingress_switches(sc, list).map_err(|(i, msg)| {
            let key = match i {
                Some(i) => format!("switch.ingress.switches[{i}]"),
                None => "switch.ingress.switches".into(),
            };
            err(&key, msg)
        })?;
    }
    if let Some(p) = &sc.output.queue_ports {
        if sc.output.queue_interval.is_none() {
            return Err(err(
                "output.queue_ports",
                "queue_ports needs queue_interval (sampling is off without it)".into(),
            ));
        }
        if let QueuePorts::List(list) = p {
            check_queue_ports(sc, list).map_err(|(i, msg)| {
                let key = format!("output.queue_ports[{i}]");
                src.error(locate(root, &key), &key, msg)
            })?;
        }
    }
    check_observers(src, root, sc)?;
    if sc
        .output
        .dir
        .as_deref()
        .is_some_and(|d| d.trim().is_empty())
    {
        return Err(err(
            "output.dir",
            "must name a folder (absent: results/<scenario name>)".into(),
        ));
    }
    let lps_given = root
        .get("simulation")
        .and_then(|v| v.get_ref().as_table())
        .is_some_and(|t| t.contains_key("lps"));
    check_simulation(&sc.simulation, lps_given).map_err(|(key, why)| err(key, why))
}

/// A scenario has workloads, and one that never ends has a stop time:
/// the key at fault and why.
pub(super) fn check_workloads(sc: &Scenario) -> Result<(), (String, String)> {
    if sc.workloads.is_empty() {
        let msg = "the scenario has no [[workload]]: a run of it would carry nothing and \
                   report \"completed\"; give at least one";
        return Err(("workload".into(), msg.into()));
    }
    let endless = sc
        .workloads
        .iter()
        .enumerate()
        .find_map(|(i, w)| w.endless().map(|what| (i, what)));
    if let (Some((i, what)), None) = (endless, sc.simulation.stop_time) {
        let msg =
            format!("{what} never ends: set simulation.stop_time, or give the workload a stop");
        return Err((format!("workload[{i}]"), msg));
    }
    Ok(())
}

/// `[simulation]`'s bounds: the key and why, if one is out of them.
/// `lps_given`: the file or an override gives `lps`.
pub(super) fn check_simulation(
    sim: &super::SimulationConfig,
    lps_given: bool,
) -> Result<(), (&'static str, String)> {
    if sim
        .stop_time
        .is_some_and(|t| t == sim_core::SimDuration::MAX)
    {
        let why = "must be below 2^64 - 1 ps (about 213 days)";
        return Err(("simulation.stop_time", why.into()));
    }
    if sim.threads.is_some_and(|t| !(1..=MAX_THREADS).contains(&t)) {
        return Err(("simulation.threads", format!("must be 1 to {MAX_THREADS}")));
    }
    if !(1..=MAX_THREADS as u32).contains(&sim.lps) {
        return Err(("simulation.lps", format!("must be 1 to {MAX_THREADS}")));
    }
    if sim.max_events == 0 {
        return Err(("simulation.max_events", "must be at least 1".into()));
    }
    // A key only a mode reads is refused without it (as credit_packets
    // is without rccc): `lps` bounds a cut, and "none" makes none.
    if lps_given && sim.partition == Cut::None {
        let msg = "bounds how many LPs a cut makes, and partition = \"none\" makes none: leave \
                   it out, or set partition = \"pods\" or \"auto\"";
        return Err(("simulation.lps", msg.into()));
    }
    Ok(())
}

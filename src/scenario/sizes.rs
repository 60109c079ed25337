//! Sizes that must fit the run's packets: every buffer holds the largest
//! packet the run's transports send (a switch buffer of 1.5 KB trimmed
//! every 9,000 B NDP packet forever), a trimmed packet's header is
//! smaller than the full packets it is cut from, and PFC's headroom and
//! reserves leave each switch some shared buffer (checked here, before
//! anything is built, by the rule the fabric applies:
//! `net::pfc::switch_pools`).

use super::Scenario;
use net::buffer::BufferPolicy;

/// The largest and the smallest full data packet (IP bytes) of the run's
/// transports, each with the transport's words (`transport "default"
/// (ndp)`).
fn full_packets(sc: &Scenario) -> Option<((u64, String), (u64, String))> {
    let sized = sc.transports.iter().map(|t| {
        let f = t.config.family_rules();
        let bytes = f.mss() + f.data_header_bytes() as u64;
        (bytes, format!("transport \"{}\" ({})", t.name, f.name()))
    });
    let largest = sized.clone().max_by_key(|s| s.0)?;
    let smallest = sized.min_by_key(|s| s.0)?;
    Some((largest, smallest))
}

/// Checks the buffers and the trimmed header against the run's packets:
/// the key at fault and why.
pub(super) fn check_sizes(sc: &Scenario) -> Result<(), (String, String)> {
    let Some(((largest, big), (smallest, small))) = full_packets(sc) else {
        return Ok(());
    };
    let holds = |key: &str, bytes: u64| {
        if bytes < largest {
            let msg = format!(
                "{bytes} B cannot hold one full packet of {big}, {largest} B: it would drop \
                 (or trim) every one of them forever; give at least {largest}B"
            );
            return Err((key.to_string(), msg));
        }
        Ok(())
    };
    let uses_flows = sc.workloads.iter().any(|w| w.uses_transport());
    if !uses_flows {
        return Ok(());
    }
    match sc.switch.buffer {
        BufferPolicy::PerPort(b) if b.is_bytes() => holds("switch.buffer", b.amount())?,
        BufferPolicy::Shared { bytes, .. } => holds("switch.shared_buffer", bytes)?,
        BufferPolicy::PerPort(_) => {}
    }
    holds("topology.nic_buffer", sc.topology.nic_buffer.0)?;
    if let Some(t) = &sc.switch.trim {
        let header = t.header_bytes as u64;
        if header >= smallest {
            let msg = format!(
                "{header} B is no smaller than a full packet of {small}, {smallest} B: \
                 trimming would keep the whole packet; give a header below {smallest}B \
                 (htsim: 64B)"
            );
            return Err(("switch.trim.header".into(), msg));
        }
    }
    Ok(())
}

/// PFC's headroom and reserves against each switch's shared buffer: the
/// error, naming the switch, if they leave one none.
pub(super) fn check_pfc_pools(sc: &Scenario) -> Result<(), String> {
    let (Some(cfg), BufferPolicy::Shared { bytes, .. }) = (&sc.switch.pfc, sc.switch.buffer) else {
        return Ok(());
    };
    let graph = sc.topology.spec.shape.build();
    let names = sc.topology.spec.shape.node_names();
    let is_switch = |n: net::NodeId| {
        !matches!(
            graph.nodes[n.idx()],
            net::NodeKind::Host
                | net::NodeKind::Switch {
                    tier: net::topology::NIC_TIER
                }
        )
    };
    let ports = graph.cables.iter().enumerate().flat_map(|(i, c)| {
        [c.a, c.b]
            .into_iter()
            .filter(|&n| is_switch(n))
            .map(move |n| {
                let rate = match net::LinkFault::at_start(&sc.failures, i, n) {
                    Some((x, _)) => {
                        net::LinkFault::degraded(c.rate, sim_core::QueueSize::Bytes(0), x, false).0
                    }
                    None => c.rate,
                };
                (n.idx(), rate, c.delay)
            })
    });
    let name = |n: usize| names.get(n).cloned().unwrap_or_else(|| format!("node {n}"));
    net::pfc::switch_pools(
        cfg,
        bytes,
        sc.topology.framing.wire(),
        graph.nodes.len(),
        ports,
        name,
    )
    .map(|_| ())
    .map_err(|e| format!("{e}: give a larger shared_buffer, or smaller reserves or headroom"))
}

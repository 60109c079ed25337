//! PFC in the results: `summary.json`'s `pfc` block and `pfc.csv`, one row
//! per (port, priority) that PFC touched (what the HPCC and RCC
//! papers report). Paused time is measured at the upstream that obeyed, from
//! PAUSE receipt to RESUME receipt (the HPCC fork's definition); its
//! fraction is of the whole run.

use crate::world::RunRecord;
use serde::Serialize;
use std::fmt::Write as _;

/// What PFC did over the run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PfcSummary {
    /// PAUSE frames sent by switches.
    pub pauses_sent: u64,
    /// RESUME frames sent by switches.
    pub resumes_sent: u64,
    /// (port, priority) pairs that were ever paused.
    pub paused_port_priorities: u64,
    /// Paused time summed over every port and priority, in microseconds.
    pub paused_time_us: f64,
    /// The largest paused fraction of the run of any (port, priority).
    pub max_paused_fraction: f64,
    /// The same (port, priority)'s paused time, in microseconds: the
    /// absolute reading of `max_paused_fraction`, which a run stretched by
    /// idle time after the drain lowers (RCC Table II's DCQCN at N = 256).
    pub max_paused_time_us: f64,
    /// The paused fraction of the run of the host NICs that PFC paused,
    /// each NIC counted by its most-paused priority, averaged (one reading
    /// of RCC Table II's unstated "pause time (%)": the senders' share of
    /// the run spent stopped); 0 when no NIC was paused.
    pub mean_nic_paused_fraction: f64,
    /// The most headroom any (switch port, priority) used, in bytes.
    pub peak_headroom_bytes: u64,
    /// The most any (switch port, priority) used of its port's headroom,
    /// as a fraction (at most 1: a packet that would overfill it is dropped).
    pub peak_headroom_fraction: f64,
    /// Lossless packets dropped anywhere (headroom overflow or egress):
    /// lossless violations; 0 in a correctly sized fabric.
    pub lossless_drops: u64,
}

impl PfcSummary {
    /// The summary of a run, `None` when PFC is off.
    pub fn of(run: &RunRecord) -> Option<PfcSummary> {
        let cfg = run.pfc?;
        let end = run.end;
        let run_ps = end.ps().max(1) as f64;
        let mut s = PfcSummary {
            pauses_sent: 0,
            resumes_sent: 0,
            paused_port_priorities: 0,
            paused_time_us: 0.0,
            max_paused_fraction: 0.0,
            max_paused_time_us: 0.0,
            mean_nic_paused_fraction: 0.0,
            peak_headroom_bytes: 0,
            peak_headroom_fraction: 0.0,
            lossless_drops: 0,
        };
        let (mut nic_sum, mut nic_n) = (0.0, 0u64);
        for port in &run.ports {
            let Some(st) = port.pfc.as_ref() else {
                continue;
            };
            let headroom = st.headroom_bytes.max(1) as f64;
            let mut nic_max: Option<f64> = None;
            for q in 0..8 {
                let paused = st.paused_ps[q];
                let st = &st.stats;
                s.pauses_sent += st.pauses_sent[q];
                s.resumes_sent += st.resumes_sent[q];
                s.paused_port_priorities += (st.pauses_received[q] > 0) as u64;
                s.paused_time_us += paused as f64 / 1e6;
                s.max_paused_time_us = s.max_paused_time_us.max(paused as f64 / 1e6);
                s.max_paused_fraction = s.max_paused_fraction.max(paused as f64 / run_ps);
                s.peak_headroom_bytes = s.peak_headroom_bytes.max(st.peak_headroom_bytes[q]);
                if port.at_switch && st.peak_headroom_bytes[q] > 0 {
                    let f = st.peak_headroom_bytes[q] as f64 / headroom;
                    s.peak_headroom_fraction = s.peak_headroom_fraction.max(f);
                }
                s.lossless_drops += st.lossless_drops[q];
                if !port.at_switch && cfg.is_lossless(q as u8) && st.pauses_received[q] > 0 {
                    let x = paused as f64 / run_ps;
                    nic_max = Some(nic_max.map_or(x, |m| m.max(x)));
                }
            }
            if let Some(x) = nic_max {
                nic_sum += x;
                nic_n += 1;
            }
        }
        s.mean_nic_paused_fraction = if nic_n > 0 {
            nic_sum / nic_n as f64
        } else {
            0.0
        };
        Some(s)
    }

    /// One line for the terminal.
    pub fn human(&self) -> String {
        format!(
            "  PFC               {} pauses, {} resumes, paused up to {:.1}% of the run, peak headroom {} B ({:.0}% of its port's), {} lossless drops",
            self.pauses_sent,
            self.resumes_sent,
            self.max_paused_fraction * 100.0,
            self.peak_headroom_bytes,
            self.peak_headroom_fraction * 100.0,
            self.lossless_drops
        )
    }
}

/// `pfc.csv`: one row per (port, priority) with any PFC activity.
pub fn pfc_csv(run: &RunRecord) -> String {
    let mut s = super::columns::PFC.header();
    let end = run.end;
    for port in &run.ports {
        let Some(st) = port.pfc.as_ref() else {
            continue;
        };
        let (i, peer, name) = (port.id.idx(), port.peer_node, &port.name);
        for q in 0..8 {
            let c = &st.stats;
            let active = c.pauses_sent[q] + c.pauses_received[q] + c.lossless_drops[q] > 0
                || c.peak_headroom_bytes[q] > 0;
            if !active {
                continue;
            }
            let paused = st.paused_ps[q];
            let fraction = if end.ps() > 0 {
                format!("{:.6}", paused as f64 / end.ps() as f64)
            } else {
                String::new()
            };
            super::columns::PFC
                .row(&mut s)
                .cell("port", i)
                .cell("node", port.node)
                .cell("peer_node", peer)
                .cell("name", name)
                .cell("priority", q)
                .cell("pauses_sent", c.pauses_sent[q])
                .cell("resumes_sent", c.resumes_sent[q])
                .cell("pauses_received", c.pauses_received[q])
                .cell("resumes_received", c.resumes_received[q])
                .cell("paused_us", super::us(paused))
                .cell("paused_fraction", fraction)
                .cell("headroom_bytes", st.headroom_bytes)
                .cell("peak_headroom_bytes", c.peak_headroom_bytes[q])
                .cell("lossless_drops", c.lossless_drops[q])
                .end();
        }
    }
    s
}

/// Why a run under PFC stalled, in words, or `None` without PFC: the
/// ports whose egress is paused at the end and, if their pauses wait on
/// each other in a cycle, the cycle (a PFC deadlock).
pub fn pfc_stall(run: &RunRecord) -> Option<String> {
    run.pfc?;
    // Node a waits on node b when a's egress port towards b is paused.
    let mut waits: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
    let mut paused = Vec::new();
    for port in &run.ports {
        let Some(st) = port.pfc.as_ref() else {
            continue;
        };
        if st.paused_at_end != 0 {
            let (i, a, b) = (port.id.idx(), port.node, port.peer_node);
            waits.entry(a).or_default().push(b);
            paused.push(format!(
                "port {i} (node {a} -> node {b}, priorities {:#010b})",
                st.paused_at_end
            ));
        }
    }
    if paused.is_empty() {
        return Some(
            "PFC is on but no port is paused at the end: look at lossless drops in pfc.csv".into(),
        );
    }
    let shown: Vec<&str> = paused.iter().take(4).map(String::as_str).collect();
    let mut text = format!(
        "{} port{} paused by PFC at the end: {}{}",
        paused.len(),
        if paused.len() == 1 { " is" } else { "s are" },
        shown.join(", "),
        if paused.len() > 4 { ", ..." } else { "" }
    );
    if let Some(cycle) = wait_cycle(&waits) {
        let nodes: Vec<String> = cycle.iter().map(|n| format!("node {n}")).collect();
        let _ = write!(
            text,
            "; the pauses wait on each other in a cycle, a PFC deadlock: {}",
            nodes.join(" -> ")
        );
    }
    Some(text)
}

/// A cycle in the wait-for graph, first node repeated at the end.
fn wait_cycle(waits: &std::collections::BTreeMap<u32, Vec<u32>>) -> Option<Vec<u32>> {
    // Colours: absent = unvisited, 1 = on the current path, 2 = done.
    let mut colour: std::collections::BTreeMap<u32, u8> = Default::default();
    for &start in waits.keys() {
        if colour.contains_key(&start) {
            continue;
        }
        let mut path = vec![start];
        let mut next = vec![0usize];
        colour.insert(start, 1);
        while let Some(&node) = path.last() {
            let i = next.last_mut().expect("as long as path");
            let succ = waits.get(&node).and_then(|v| v.get(*i)).copied();
            *i += 1;
            match succ {
                None => {
                    colour.insert(node, 2);
                    path.pop();
                    next.pop();
                }
                Some(s) => match colour.get(&s) {
                    Some(1) => {
                        let at = path.iter().position(|&n| n == s).expect("on the path");
                        let mut cycle = path[at..].to_vec();
                        cycle.push(s);
                        return Some(cycle);
                    }
                    Some(_) => {}
                    None => {
                        colour.insert(s, 1);
                        path.push(s);
                        next.push(0);
                    }
                },
            }
        }
    }
    None
}

#[cfg(test)]
mod stall_tests {
    use super::wait_cycle;

    #[test]
    fn a_pause_cycle_is_found_and_a_chain_is_not() {
        let chain = [(1, vec![2]), (2, vec![3])].into_iter().collect();
        assert_eq!(wait_cycle(&chain), None);
        let cycle = [(1, vec![2]), (2, vec![3]), (3, vec![1]), (4, vec![1])]
            .into_iter()
            .collect();
        assert_eq!(wait_cycle(&cycle), Some(vec![1, 2, 3, 1]));
    }
}

//! The run's summary in words, as the terminal prints it: the collective
//! jobs first, then the flows, the workloads, the sources, the switches
//! and the simulated span.

use super::units;
use super::{FlowSummary, RunSummary, collectives, or_na, time_or_na, unfinished_line};
use std::fmt::Write as _;

impl RunSummary {
    /// A short human summary.
    pub fn human(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "scenario {} (seed {}): {}",
            self.scenario, self.seed, self.stop_reason
        );
        // A collective job's completion time first: its transfers' FCTs
        // below are the detail.
        s.push_str(&collectives::human_lines(&self.jobs));
        s.push_str(&super::traces::human_lines(&self.traces));
        if self.flows.total > 0 {
            flow_lines(&self.flows, &mut s);
        }
        self.workload_lines(&mut s);
        self.network_lines(&mut s);
        let _ = write!(
            s,
            "  simulated         {}, {} events, {} packet hops",
            units::fmt_time_us(self.simulated_time_us),
            self.events,
            self.packet_hops
        );
        s
    }

    /// The loads, each workload's RTTs, rounds and probes, and the chosen
    /// flows' fairness.
    fn workload_lines(&self, s: &mut String) {
        for l in &self.loads {
            let _ = writeln!(
                s,
                "  load              workload {}: {:.3} offered for {:.3} target",
                l.workload, l.offered, l.target
            );
        }
        for w in &self.workloads {
            let mut parts = Vec::new();
            if w.rtt_us.count > 0 {
                parts.push(format!(
                    "RTT p50 {}, p99 {}",
                    time_or_na(w.rtt_us.p50),
                    time_or_na(w.rtt_us.p99)
                ));
            }
            if let Some(r) = &w.rounds {
                parts.push(format!(
                    "{}/{} rounds complete, mean {}",
                    r.completed,
                    r.rounds,
                    time_or_na(r.duration_us.mean)
                ));
            }
            if let Some(p) = &w.probes {
                parts.push(format!("{} probes, {} lost", p.sent, p.lost));
            }
            if !parts.is_empty() {
                let _ = writeln!(
                    s,
                    "  workload {} ({}){}{}",
                    w.workload,
                    w.kind,
                    " ".repeat(14usize.saturating_sub(w.kind.len() + 3).max(1)),
                    parts.join("; ")
                );
            }
        }
        if let Some(f) = &self.fairness {
            let _ = writeln!(
                s,
                "  fairness          Jain {} over {} chosen flows",
                or_na(f.jain_index, 3),
                f.flows.len()
            );
        }
    }

    /// The packet sources, the switches' drops and marks, PFC and the VIQs.
    fn network_lines(&self, s: &mut String) {
        for src in &self.sources {
            let _ = writeln!(
                s,
                "  source {}->{}      {} sent, {} received, NIC wait {} ns",
                src.src,
                src.dst,
                src.packets_sent,
                src.packets_received,
                or_na(src.mean_nic_wait_ns, 1)
            );
        }
        let _ = writeln!(
            s,
            "  switch            {} drops, {} ECN marks, max queue {} pkt",
            self.drops, self.ecn_marks, self.max_switch_queue_packets
        );
        if let Some(p) = &self.pfc {
            let _ = writeln!(s, "{}", p.human());
        }
        if self.ingress.held > 0 {
            let _ = writeln!(
                s,
                "  VIQ               {} held, {} released, max {} pkt, {} dropped full, {} aged",
                self.ingress.held,
                self.ingress.released,
                self.ingress.max_viq_packets,
                self.drops_by_cause.viq_full,
                self.drops_by_cause.viq_aged
            );
        }
    }
}

/// The flows: completion, goodput, FCTs, slowdowns by size, the
/// retransmissions and the unfinished.
fn flow_lines(f: &FlowSummary, s: &mut String) {
    let _ = writeln!(s, "  flows completed   {}/{}", f.completed, f.total);
    let _ = writeln!(
        s,
        "  goodput           {} Gb/s aggregate (Jain {})",
        or_na(f.goodput_gbps, 3),
        or_na(f.jain_index, 3)
    );
    let fct = &f.fct_us;
    let _ = match fct.mean {
        None => writeln!(s, "  FCT               n/a (no flow completed)"),
        Some(_) => writeln!(
            s,
            "  FCT               mean {}, p50 {}, p99 {}, max {}",
            time_or_na(fct.mean),
            time_or_na(fct.p50),
            time_or_na(fct.p99),
            time_or_na(fct.max)
        ),
    };
    if f.slowdown.count > 0 {
        let _ = writeln!(
            s,
            "  slowdown          mean {}, p50 {}, p99 {}",
            or_na(f.slowdown.mean, 2),
            or_na(f.slowdown.p50, 2),
            or_na(f.slowdown.p99, 2)
        );
        for b in f.by_size.iter().filter(|b| b.flows > 0) {
            let _ = writeln!(
                s,
                "    {:<15} {} flows ({} unfinished): slowdown mean {}, p99 {}",
                b.bucket,
                b.flows,
                b.unfinished,
                or_na(b.slowdown.mean, 2),
                or_na(b.slowdown.p99, 2)
            );
        }
    }
    let _ = writeln!(
        s,
        "  retransmissions   {} data, {} SYN, {} FIN ({} timeouts in {} RTO episodes)",
        f.retransmissions, f.syn_retransmissions, f.fin_retransmissions, f.timeouts, f.rto_episodes
    );
    s.push_str(&unfinished_line(f));
}

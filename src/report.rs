//! Results of a run: the summary, the per-flow table, and atomic file output.
//!
//! `summary.json` and `flows.csv` hold simulated results only, so they are
//! byte-identical between runs of the same scenario and seed; wall-clock
//! figures go to `perf.json` and the terminal. Every file is written to a
//! temporary name in the same folder and renamed into place, so a reader
//! never sees half a file and an interrupted run never leaves one.

use crate::world::{StopReason, World};
use serde::Serialize;
use sim_core::SimTime;
use sim_core::stats::{Summary, jain_index};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

/// Formats picoseconds as microseconds with six decimals, exactly.
fn us(ps: u64) -> String {
    format!("{}.{:06}", ps / 1_000_000, ps % 1_000_000)
}

/// Simulated results of a run (the content of `summary.json`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunSummary {
    /// Scenario name.
    pub scenario: String,
    /// Master seed.
    pub seed: u64,
    /// Why the run ended: `completed`, `stop_time` or `event_limit`.
    pub stop_reason: &'static str,
    /// Simulated time at the end, in microseconds.
    pub simulated_time_us: f64,
    /// Events processed.
    pub events: u64,
    /// Packets delivered at a link's far end (any kind).
    pub packet_hops: u64,
    /// TCP flows.
    pub flows: FlowSummary,
    /// Drops at switch ports (buffer overflow plus AQM).
    pub drops: u64,
    /// CE marks at switch ports.
    pub ecn_marks: u64,
    /// Largest queue any switch port reached, in packets.
    pub max_switch_queue_packets: u64,
    /// Packet sources.
    pub sources: Vec<SourceSummary>,
}

/// TCP flow statistics.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FlowSummary {
    /// Flows in the scenario.
    pub total: usize,
    /// Flows whose data was all acknowledged.
    pub completed: usize,
    /// Data bytes acknowledged, over all flows.
    pub bytes_acked: u64,
    /// Aggregate goodput: acknowledged data bits over the time from the
    /// first flow start to the last completion (or the end of the run, if a
    /// flow is still open), in Gb/s.
    pub goodput_gbps: f64,
    /// Jain's index of per-flow goodput (bytes acknowledged / time active).
    pub jain_index: f64,
    /// Flow completion times of completed flows, in microseconds.
    pub fct_us: Summary,
    /// Retransmitted data segments.
    pub retransmissions: u64,
    /// Retransmission-timer expiries.
    pub timeouts: u64,
}

/// One packet source's statistics.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SourceSummary {
    /// `[[workload]]` index.
    pub workload: u32,
    /// Sending host.
    pub src: u32,
    /// Receiving host.
    pub dst: u32,
    /// Packets sent.
    pub packets_sent: u64,
    /// Packets received.
    pub packets_received: u64,
    /// Mean wait in the sending host's NIC queue (arrival to start of
    /// transmission), in nanoseconds.
    pub mean_nic_wait_ns: f64,
    /// Mean one-way delay of received packets, in microseconds.
    pub mean_delay_us: f64,
}

impl RunSummary {
    /// Summarises a finished run.
    pub fn of(world: &World, scenario: &str, seed: u64, stop: StopReason) -> RunSummary {
        let end = world.end_time();
        let mut fcts = Vec::new();
        let mut rates = Vec::new();
        let (mut bytes, mut retx, mut tos) = (0u64, 0u64, 0u64);
        let mut first_start = SimTime::MAX;
        let mut last_end = SimTime::ZERO;
        for f in &world.flows {
            let s = &f.sender;
            let st = s.stats();
            bytes += s.bytes_acked();
            retx += st.retransmits;
            tos += st.timeouts;
            first_start = first_start.min(f.start);
            let done = s.completed_at().unwrap_or(end);
            last_end = last_end.max(done);
            if let Some(c) = s.completed_at() {
                fcts.push(c.since(f.start).ps() as f64 / 1e6);
            }
            let active = done.saturating_since(f.start).ps();
            if active > 0 {
                rates.push(s.bytes_acked() as f64 / active as f64);
            }
        }
        let span_ps = last_end.saturating_since(first_start).ps();
        let goodput_gbps = if span_ps == 0 {
            0.0
        } else {
            bytes as f64 * 8.0 / span_ps as f64 * 1e3
        };
        let switch_ports = world.fabric.ports().iter().filter(|p| p.at_switch);
        let (mut drops, mut marks, mut maxq) = (0, 0, 0);
        for p in switch_ports {
            drops += p.stats.drops();
            marks += p.stats.ecn_marks;
            maxq = maxq.max(p.stats.max_packets);
        }
        let sources = world
            .sources
            .iter()
            .map(|s| {
                let nic = &world.fabric.port(world.fabric.host_port(s.src)).stats;
                SourceSummary {
                    workload: s.workload,
                    src: s.src.0,
                    dst: s.dst.0,
                    packets_sent: s.sent,
                    packets_received: s.received,
                    mean_nic_wait_ns: nic.mean_wait_ps() / 1e3,
                    mean_delay_us: if s.received == 0 {
                        0.0
                    } else {
                        s.delay_sum_ps as f64 / s.received as f64 / 1e6
                    },
                }
            })
            .collect();
        RunSummary {
            scenario: scenario.to_string(),
            seed,
            stop_reason: stop.as_str(),
            simulated_time_us: end.ps() as f64 / 1e6,
            events: world.events_processed(),
            packet_hops: world.fabric.hops,
            flows: FlowSummary {
                total: world.flows.len(),
                completed: fcts.len(),
                bytes_acked: bytes,
                goodput_gbps,
                jain_index: jain_index(&rates),
                fct_us: Summary::of(&mut fcts),
                retransmissions: retx,
                timeouts: tos,
            },
            drops,
            ecn_marks: marks,
            max_switch_queue_packets: maxq,
            sources,
        }
    }

    /// A short human summary.
    pub fn human(&self) -> String {
        let f = &self.flows;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "scenario {} (seed {}): {}",
            self.scenario, self.seed, self.stop_reason
        );
        if f.total > 0 {
            let _ = writeln!(s, "  flows completed   {}/{}", f.completed, f.total);
            let _ = writeln!(
                s,
                "  goodput           {:.3} Gb/s aggregate (Jain {:.3})",
                f.goodput_gbps, f.jain_index
            );
            let _ = writeln!(
                s,
                "  FCT               mean {:.1} us, p50 {:.1} us, p99 {:.1} us, max {:.1} us",
                f.fct_us.mean, f.fct_us.p50, f.fct_us.p99, f.fct_us.max
            );
            let _ = writeln!(
                s,
                "  retransmissions   {} ({} timeouts)",
                f.retransmissions, f.timeouts
            );
        }
        for src in &self.sources {
            let _ = writeln!(
                s,
                "  source {}->{}      {} sent, {} received, NIC wait {:.1} ns",
                src.src, src.dst, src.packets_sent, src.packets_received, src.mean_nic_wait_ns
            );
        }
        let _ = writeln!(
            s,
            "  switch            {} drops, {} ECN marks, max queue {} pkt",
            self.drops, self.ecn_marks, self.max_switch_queue_packets
        );
        let _ = write!(
            s,
            "  simulated         {:.3} ms, {} events, {} packet hops",
            self.simulated_time_us / 1e3,
            self.events,
            self.packet_hops
        );
        s
    }
}

/// Wall-clock figures (the content of `perf.json`; differs between runs).
#[derive(Debug, Clone, Serialize)]
pub struct Perf {
    /// Wall time of the event loop, in seconds.
    pub wall_seconds: f64,
    /// Events per wall-clock second.
    pub events_per_second: f64,
    /// Packet hops per wall-clock second.
    pub packet_hops_per_second: f64,
}

/// `flows.csv`: one row per TCP flow.
pub fn flows_csv(world: &World) -> String {
    let mut s = String::from(
        "id,workload,src,dst,size_bytes,start_us,finish_us,fct_us,bytes_acked,retransmissions,timeouts\n",
    );
    for (i, f) in world.flows.iter().enumerate() {
        let snd = &f.sender;
        let a = snd.addr();
        let (finish, fct) = match snd.completed_at() {
            Some(c) => (us(c.ps()), us(c.since(f.start).ps())),
            None => (String::new(), String::new()),
        };
        let st = snd.stats();
        let _ = writeln!(
            s,
            "{i},{},{},{},{},{},{finish},{fct},{},{},{}",
            f.workload,
            a.src.0,
            a.dst.0,
            snd.size_bytes(),
            us(f.start.ps()),
            snd.bytes_acked(),
            st.retransmits,
            st.timeouts
        );
    }
    s
}

/// `queues.csv`: one row per sampled class queue per sampling instant.
pub fn queues_csv(world: &World) -> String {
    let mut s = String::from("time_us,port,node,class,bytes,packets\n");
    for q in &world.queue_samples {
        let node = world.fabric.port(net::PortId(q.port)).node.0;
        let _ = writeln!(
            s,
            "{},{},{node},{},{},{}",
            us(q.time_ps),
            q.port,
            q.class,
            q.bytes,
            q.packets
        );
    }
    s
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder,
/// flushed to disk, then renamed over the target.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microseconds_are_exact() {
        assert_eq!(us(1_230_400), "1.230400");
        assert_eq!(us(5), "0.000005");
    }

    #[test]
    fn atomic_write_replaces_whole_files() {
        let dir = std::env::temp_dir().join(format!("dcnsim-atomic-{}", std::process::id()));
        let p = dir.join("x.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        let leftovers = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(leftovers, 1);
        std::fs::remove_dir_all(dir).unwrap();
    }
}

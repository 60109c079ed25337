//! Results of a run: the summary, the per-flow table, and atomic file output.
//!
//! `summary.json` and `flows.csv` hold simulated results only, so they are
//! byte-identical between runs of the same scenario and seed; wall-clock
//! figures go to `perf.json` and the terminal. Every file is written to a
//! temporary name in the same folder and renamed into place, so a reader
//! never sees half a file and an interrupted run never leaves one.

use crate::world::{QueueSample, SampleSink, StopReason, VIQ_CLASS, World};
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

/// A statistic with `decimals` decimals, or `n/a` where it does not exist.
fn or_na(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "n/a".to_string(), |x| format!("{x:.decimals$}"))
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
    /// Drops at switch ports, all causes (`drops_by_cause` splits them).
    pub drops: u64,
    /// Drops at switch ports by cause.
    pub drops_by_cause: DropsByCause,
    /// The switches' ingress stages (VIQs of R-AQM and ABQ).
    pub ingress: IngressSummary,
    /// CE marks at switch ports.
    pub ecn_marks: u64,
    /// Largest queue any switch port reached, in packets.
    pub max_switch_queue_packets: u64,
    /// Packet sources.
    pub sources: Vec<SourceSummary>,
}

/// Switch drops by cause.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct DropsByCause {
    /// Egress buffer full.
    pub overflow: u64,
    /// Early drops by the egress AQM.
    pub aqm: u64,
    /// A VIQ was full.
    pub viq_full: u64,
    /// Held too long in a VIQ (R-AQM's old ACKs).
    pub viq_aged: u64,
}

/// What the switches' ingress stages did.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct IngressSummary {
    /// Packets held in a VIQ.
    pub held: u64,
    /// Held packets released to forwarding.
    pub released: u64,
    /// Largest VIQ, in packets, over all ports.
    pub max_viq_packets: u64,
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
    /// flow is still open), in Gb/s; `null` without flows or time.
    pub goodput_gbps: Option<f64>,
    /// Jain's index of per-flow goodput (bytes acknowledged / time active);
    /// `null` when no flow was active or none sent anything (0/0).
    pub jain_index: Option<f64>,
    /// Flow completion times of completed flows, in microseconds.
    pub fct_us: Summary,
    /// Retransmitted data segments.
    pub retransmissions: u64,
    /// SYNs sent again after a timeout.
    pub syn_retransmissions: u64,
    /// FINs sent again after a timeout.
    pub fin_retransmissions: u64,
    /// Retransmission-timer expiries (SYN, data or FIN).
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
    /// transmission), in nanoseconds; `null` if nothing was sent.
    pub mean_nic_wait_ns: Option<f64>,
    /// Mean one-way delay of received packets, in microseconds; `null` if
    /// nothing was received.
    pub mean_delay_us: Option<f64>,
}

impl RunSummary {
    /// Summarises a finished run.
    pub fn of(world: &World, scenario: &str, seed: u64, stop: StopReason) -> RunSummary {
        let end = world.end_time();
        let mut fcts = Vec::new();
        let mut rates = Vec::new();
        let (mut bytes, mut retx, mut tos) = (0u64, 0u64, 0u64);
        let (mut syn_retx, mut fin_retx) = (0u64, 0u64);
        let mut first_start = SimTime::MAX;
        let mut last_end = SimTime::ZERO;
        for f in &world.flows {
            let s = &f.sender;
            let st = s.stats();
            bytes += s.bytes_acked();
            retx += st.retransmits;
            syn_retx += st.syn_retransmits;
            fin_retx += st.fin_retransmits;
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
        let goodput_gbps = (span_ps > 0).then(|| bytes as f64 * 8.0 / span_ps as f64 * 1e3);
        let switch_ports = world.fabric.ports().iter().filter(|p| p.at_switch);
        let (mut marks, mut maxq) = (0, 0);
        let mut by_cause = DropsByCause::default();
        let mut ingress = IngressSummary::default();
        for p in switch_ports {
            by_cause.overflow += p.stats.drops_overflow;
            by_cause.aqm += p.stats.drops_aqm;
            let i = &p.ingress.stats;
            by_cause.viq_full += i.viq_drops_full;
            by_cause.viq_aged += i.viq_drops_aged;
            ingress.held += i.held;
            ingress.released += i.released;
            ingress.max_viq_packets = ingress.max_viq_packets.max(i.viq_max_packets);
            marks += p.stats.ecn_marks;
            maxq = maxq.max(p.stats.max_packets);
        }
        let drops = by_cause.overflow + by_cause.aqm + by_cause.viq_full + by_cause.viq_aged;
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
                    mean_nic_wait_ns: nic.mean_wait_ps().map(|w| w / 1e3),
                    mean_delay_us: (s.received > 0)
                        .then(|| s.delay_sum_ps as f64 / s.received as f64 / 1e6),
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
                syn_retransmissions: syn_retx,
                fin_retransmissions: fin_retx,
                timeouts: tos,
            },
            drops,
            drops_by_cause: by_cause,
            ingress,
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
                "  goodput           {} Gb/s aggregate (Jain {})",
                or_na(f.goodput_gbps, 3),
                or_na(f.jain_index, 3)
            );
            let fct = &f.fct_us;
            let _ = match fct.mean {
                None => writeln!(s, "  FCT               n/a (no flow completed)"),
                Some(_) => writeln!(
                    s,
                    "  FCT               mean {} us, p50 {} us, p99 {} us, max {} us",
                    or_na(fct.mean, 1),
                    or_na(fct.p50, 1),
                    or_na(fct.p99, 1),
                    or_na(fct.max, 1)
                ),
            };
            let _ = writeln!(
                s,
                "  retransmissions   {} data, {} SYN, {} FIN ({} timeouts)",
                f.retransmissions, f.syn_retransmissions, f.fin_retransmissions, f.timeouts
            );
        }
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
    /// The process's peak resident memory (`VmHWM`), in bytes; `null`
    /// where `/proc/self/status` cannot be read.
    pub peak_rss_bytes: Option<u64>,
}

/// This process's peak resident memory so far, from Linux's `VmHWM`.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// `flows.csv`: one row per TCP flow.
pub fn flows_csv(world: &World) -> String {
    let mut s = String::from(
        "id,workload,src,dst,size_bytes,start_us,finish_us,fct_us,bytes_acked,retransmissions,\
         syn_retransmissions,fin_retransmissions,timeouts\n",
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
            "{i},{},{},{},{},{},{finish},{fct},{},{},{},{},{}",
            f.workload,
            a.src.0,
            a.dst.0,
            f.size.map_or(String::new(), |b| b.to_string()),
            us(f.start.ps()),
            snd.bytes_acked(),
            st.retransmits,
            st.syn_retransmits,
            st.fin_retransmits,
            st.timeouts
        );
    }
    s
}

/// The header of `queues.csv`.
const QUEUES_HEADER: &str = "time_us,port,node,class,bytes,packets\n";

/// One `queues.csv` row; class `viq` is a port's VIQ.
fn queue_row(out: &mut impl std::io::Write, q: &QueueSample) -> std::io::Result<()> {
    let t = us(q.time_ps);
    let (port, node, bytes, packets) = (q.port, q.node, q.bytes, q.packets);
    if q.class == VIQ_CLASS {
        writeln!(out, "{t},{port},{node},viq,{bytes},{packets}")
    } else {
        writeln!(out, "{t},{port},{node},{},{bytes},{packets}", q.class)
    }
}

/// `queues.csv` of the samples a world kept in memory: one row per sampled
/// class queue per sampling instant, and one with class `viq` for the VIQ
/// of each sampled port that has an ingress plugin.
pub fn queues_csv(world: &World) -> String {
    let mut out = QUEUES_HEADER.as_bytes().to_vec();
    for q in &world.queue_samples {
        queue_row(&mut out, q).expect("writing to memory cannot fail");
    }
    String::from_utf8(out).expect("rows are ASCII")
}

/// `queues.csv` streamed to a writer as samples are taken, so a long
/// sampled run holds a buffer of rows, not all of them.
pub struct QueueCsv<W: std::io::Write> {
    out: std::io::BufWriter<W>,
    error: Option<std::io::Error>,
}

impl<W: std::io::Write> QueueCsv<W> {
    /// Starts the file: writes the header.
    pub fn new(out: W) -> QueueCsv<W> {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
        let error = out.write_all(QUEUES_HEADER.as_bytes()).err();
        QueueCsv { out, error }
    }
}

impl<W: std::io::Write> SampleSink for QueueCsv<W> {
    fn record(&mut self, sample: &QueueSample) {
        if self.error.is_none() {
            self.error = queue_row(&mut self.out, sample).err();
        }
    }

    fn finish(&mut self) -> std::io::Result<()> {
        match self.error.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }
}

/// `ports.csv`: one row per switch port and class queue, plus a row with
/// class `all` for the port as a whole (which also carries its ingress
/// stage's VIQ counters). Averages are over the whole run.
pub fn ports_csv(world: &World) -> String {
    let mut s = String::from(
        "port,node,peer_node,class,tx_packets,tx_bytes,drops_overflow,drops_aqm,drops,ecn_marks,\
         max_packets,avg_bytes,viq_held,viq_released,viq_drops_full,viq_drops_aged,viq_max_packets,avg_viq_packets\n",
    );
    let end = world.end_time().ps();
    // A time average over no time does not exist: an empty cell.
    let avg = |area: &sim_core::stats::TimeIntegral| match end {
        0 => String::new(),
        _ => format!("{:.3}", area.area_at(end) as f64 / end as f64),
    };
    for (i, p) in world.fabric.ports().iter().enumerate() {
        if !p.at_switch {
            continue;
        }
        let peer = world.fabric.port(p.peer).node.0;
        let node = p.node.0;
        let (st, ing) = (&p.stats, &p.ingress.stats);
        let _ = writeln!(
            s,
            "{i},{node},{peer},all,{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            st.tx_packets,
            st.tx_bytes,
            st.drops_overflow,
            st.drops_aqm,
            st.drops(),
            st.ecn_marks,
            st.max_packets,
            avg(&st.queue_bytes_area),
            ing.held,
            ing.released,
            ing.viq_drops_full,
            ing.viq_drops_aged,
            ing.viq_max_packets,
            avg(&ing.viq_packets_area),
        );
        if p.class_stats.len() > 1 {
            for (c, cs) in p.class_stats.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "{i},{node},{peer},{c},{},{},{},{},{},{},{},{},,,,,,",
                    cs.tx_packets,
                    cs.tx_bytes,
                    cs.drops - cs.drops_aqm,
                    cs.drops_aqm,
                    cs.drops,
                    cs.ecn_marks,
                    cs.max_packets,
                    avg(&cs.queue_bytes_area),
                );
            }
        }
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

/// A run's output folder, written whole or not at all. Files go to a
/// staging folder beside the target (made before the run, which proves the
/// place writable before any simulated work); `commit` then moves it into
/// place, replacing an older run's folder whole, so a run never sits beside
/// another run's files. A run that fails before `commit` removes its staging
/// folder.
///
/// A run holds a lock on `.NAME.lock` beside the target from `create` to
/// drop (released by the operating system however the process ends), so a
/// second run into the same folder is refused at once. Whoever holds the
/// lock owns every `.NAME.partial-*` folder: those present when it is taken
/// are the remains of killed runs and are removed, or, if the kill fell
/// between `commit`'s two renames, the older run is moved back.
pub struct RunFolder {
    target: std::path::PathBuf,
    staging: std::path::PathBuf,
    committed: bool,
    /// Held for the folder's life; the OS releases it if the process dies.
    _lock: std::fs::File,
}

/// A second run into a folder another run is writing.
#[derive(Debug, thiserror::Error)]
#[error("{} is being written by another dcnsim run (it holds {})", .target.display(), .lock.display())]
pub struct FolderBusy {
    /// The output folder.
    pub target: std::path::PathBuf,
    /// The lock file held.
    pub lock: std::path::PathBuf,
}

impl RunFolder {
    /// Locks `target`, clears what killed runs left, and makes the staging folder.
    pub fn create(target: &Path) -> std::io::Result<RunFolder> {
        let name = target
            .file_name()
            .ok_or_else(|| std::io::Error::other("the output folder has no name"))?
            .to_string_lossy()
            .into_owned();
        let parent = target
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent)?;
        let lock_path = parent.join(format!(".{name}.lock"));
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(std::io::Error::other(FolderBusy {
                    target: target.to_path_buf(),
                    lock: lock_path,
                }));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
        clear_remains(parent, &name, target)?;
        let staging = parent.join(format!(".{name}.partial-{}", std::process::id()));
        std::fs::create_dir(&staging)?;
        Ok(RunFolder {
            target: target.to_path_buf(),
            staging,
            committed: false,
            _lock: lock,
        })
    }

    /// Writes one file of the run.
    pub fn write(&self, name: &str, bytes: &[u8]) -> std::io::Result<()> {
        write_atomic(&self.staging.join(name), bytes)
    }

    /// Creates one file of the run to stream into (synced by `commit`).
    pub fn create_file(&self, name: &str) -> std::io::Result<std::fs::File> {
        std::fs::File::create(self.staging.join(name))
    }

    /// Moves the complete run into place, replacing any older run there.
    pub fn commit(mut self) -> std::io::Result<()> {
        for entry in std::fs::read_dir(&self.staging)? {
            std::fs::File::open(entry?.path())?.sync_all()?;
        }
        if self.target.exists() {
            let mut old = self.staging.clone().into_os_string();
            old.push(".old");
            std::fs::rename(&self.target, &old)?;
            std::fs::rename(&self.staging, &self.target)?;
            std::fs::remove_dir_all(&old)?;
        } else {
            std::fs::rename(&self.staging, &self.target)?;
        }
        self.committed = true;
        Ok(())
    }
}

/// Removes the staging folders of killed runs into `parent/name`; restores an
/// older run whose replacement was killed between the two renames of commit.
fn clear_remains(parent: &Path, name: &str, target: &Path) -> std::io::Result<()> {
    let prefix = format!(".{name}.partial-");
    let mut remains: Vec<std::path::PathBuf> = Vec::new();
    for entry in std::fs::read_dir(parent)? {
        let entry = entry?;
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            remains.push(entry.path());
        }
    }
    remains.sort();
    for path in remains {
        let older_run = path.to_string_lossy().ends_with(".old");
        if older_run && !target.exists() {
            std::fs::rename(&path, target)?;
        } else {
            std::fs::remove_dir_all(&path)?;
        }
    }
    Ok(())
}

impl Drop for RunFolder {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
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

    #[test]
    fn a_run_folder_replaces_an_older_run_whole() {
        let base = std::env::temp_dir().join(format!("dcnsim-runfolder-{}", std::process::id()));
        let target = base.join("run");
        let a = RunFolder::create(&target).unwrap();
        a.write("queues.csv", b"old").unwrap();
        a.write("summary.json", b"1").unwrap();
        assert!(!target.exists(), "nothing is visible before commit");
        a.commit().unwrap();
        let b = RunFolder::create(&target).unwrap();
        b.write("summary.json", b"2").unwrap();
        b.commit().unwrap();
        assert_eq!(
            std::fs::read_to_string(target.join("summary.json")).unwrap(),
            "2"
        );
        assert!(
            !target.join("queues.csv").exists(),
            "no file of the older run remains"
        );
        let failed = RunFolder::create(&target).unwrap();
        failed.write("summary.json", b"3").unwrap();
        drop(failed);
        assert_eq!(names(&base), [".run.lock", "run"], "no staging folder left");
        std::fs::remove_dir_all(base).unwrap();
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_second_run_into_a_busy_folder_is_refused() {
        let base = std::env::temp_dir().join(format!("dcnsim-busy-{}", std::process::id()));
        let target = base.join("run");
        let first = RunFolder::create(&target).unwrap();
        let err = RunFolder::create(&target).err().expect("refused");
        assert!(
            err.to_string()
                .contains("being written by another dcnsim run"),
            "{err}"
        );
        first.commit().unwrap();
        RunFolder::create(&target).unwrap().commit().unwrap();
        std::fs::remove_dir_all(base).unwrap();
    }

    #[test]
    fn what_killed_runs_left_is_cleared() {
        let base = std::env::temp_dir().join(format!("dcnsim-remains-{}", std::process::id()));
        let target = base.join("run");
        // A run killed while writing, and one killed between commit's renames
        // (the older run moved aside, the new one not yet in place).
        std::fs::create_dir_all(base.join(".run.partial-1")).unwrap();
        std::fs::write(base.join(".run.partial-1/queues.csv"), "half").unwrap();
        std::fs::create_dir_all(base.join(".run.partial-2.old")).unwrap();
        std::fs::write(base.join(".run.partial-2.old/summary.json"), "older").unwrap();
        std::fs::create_dir_all(base.join(".run.partial-2")).unwrap();
        let f = RunFolder::create(&target).unwrap();
        assert_eq!(
            std::fs::read_to_string(target.join("summary.json")).unwrap(),
            "older",
            "the older run is back in place"
        );
        drop(f);
        assert_eq!(names(&base), [".run.lock", "run"]);
        std::fs::remove_dir_all(base).unwrap();
    }
}

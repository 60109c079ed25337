//! What the ports saw, recorded as it happens: pcap captures of chosen
//! ports (`[output] pcap`) and the packet event log (`[output] events`,
//! `events.csv`). One [`Recorder`] is the fabric's observer
//! ([`net::Observer`]): the observed ports push each packet's enqueue,
//! departure, mark and drop, and each PFC frame, to it; it writes the
//! captures and the log's rows as they come, into the run's staging folder.
//!
//! What a host does shows at its NIC's port (`host3->tor0`): a CNP or NAK it
//! sends, and a retransmission, a data packet that leaves its source for
//! the second time (by sequence: its end is not above the highest end the
//! flow has sent, as Wireshark's `tcp.analysis.retransmission` judges).

pub mod events;
pub mod pcap;

use crate::scenario::OutputConfig;
use crate::world::World;
use net::{Observer, Packet, PacketEvent, PfcEvent, PortId};
use serde::Deserialize;
use sim_core::SimTime;
use std::fs::File;
use std::io::BufWriter;

/// A kind of event in `events.csv`: its `event` column and a word of
/// `[output] events` `kinds`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A packet joined an egress queue.
    Enqueue,
    /// A packet left its queue for the wire.
    Dequeue,
    /// An AQM or ingress hook set CE on a packet.
    Mark,
    /// A port dropped a packet (`detail`: the cause).
    Drop,
    /// A port sent PAUSE (`detail`: the priority).
    PauseSent,
    /// A port sent RESUME.
    ResumeSent,
    /// A port received PAUSE.
    PauseReceived,
    /// A port received RESUME.
    ResumeReceived,
    /// A RoCE receiver sent a CNP (at its NIC's port).
    Cnp,
    /// A RoCE receiver sent a NAK.
    Nak,
    /// A data packet left its source again.
    Retransmit,
    /// A switch port cut a data packet to its header (`[switch.trim]`).
    Trim,
}

impl EventKind {
    /// Every kind, in the order docs/outputs.md lists them.
    pub const ALL: [EventKind; 12] = [
        EventKind::Enqueue,
        EventKind::Dequeue,
        EventKind::Mark,
        EventKind::Drop,
        EventKind::PauseSent,
        EventKind::ResumeSent,
        EventKind::PauseReceived,
        EventKind::ResumeReceived,
        EventKind::Cnp,
        EventKind::Nak,
        EventKind::Retransmit,
        EventKind::Trim,
    ];

    /// Its word in `events.csv` and in `kinds`.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Enqueue => "enqueue",
            EventKind::Dequeue => "dequeue",
            EventKind::Mark => "mark",
            EventKind::Drop => "drop",
            EventKind::PauseSent => "pause_sent",
            EventKind::ResumeSent => "resume_sent",
            EventKind::PauseReceived => "pause_received",
            EventKind::ResumeReceived => "resume_received",
            EventKind::Cnp => "cnp",
            EventKind::Nak => "nak",
            EventKind::Retransmit => "retransmit",
            EventKind::Trim => "trim",
        }
    }

    fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// The ports of a run by name, for the recorder and the loader.
#[derive(Clone, Debug)]
pub struct PortNames {
    /// Each port's name, `tor0->host3`, by port id.
    pub names: Vec<String>,
    /// Each port's node and its link's far node, by port id.
    pub ends: Vec<(u32, u32)>,
}

impl PortNames {
    /// The port called `name`, if any.
    pub fn find(&self, name: &str) -> Option<PortId> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|i| PortId(i as u32))
    }
}

/// A port's name as a file name's part: `tor0-host3` for `tor0->host3`
/// (characters other than letters, digits, `_`, `.` and `-` become `_`).
pub fn safe_name(port: &str) -> String {
    port.replace("->", "-")
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '.' | '-' => c,
            _ => '_',
        })
        .collect()
}

/// The file a port's capture goes to: `pcap-tor0-host3.pcap` for
/// `tor0->host3`.
pub fn pcap_file_name(port: &str) -> String {
    format!("pcap-{}.pcap", safe_name(port))
}

/// The fabric's observer: the captures and the event log of one run.
pub struct Recorder {
    ports: PortNames,
    /// Each port's capture, by port id (`None`: not captured).
    captures: Vec<Option<pcap::PcapWriter<BufWriter<File>>>>,
    log: Option<events::EventLog<BufWriter<File>>>,
    /// The first write that failed; later writes are skipped.
    error: Option<std::io::Error>,
}

impl Recorder {
    /// A recorder of `ports`, writing nothing yet.
    pub fn new(ports: PortNames) -> Self {
        let n = ports.names.len();
        Recorder {
            ports,
            captures: (0..n).map(|_| None).collect(),
            log: None,
            error: None,
        }
    }

    /// Captures port `p` into `file` with snap length `snaplen`.
    pub fn capture(&mut self, p: PortId, file: File, snaplen: u32) -> std::io::Result<()> {
        let out = BufWriter::with_capacity(1 << 16, file);
        self.captures[p.idx()] = Some(pcap::PcapWriter::new(out, snaplen)?);
        Ok(())
    }

    /// Logs events into `file`, filtered by `filter`.
    pub fn log_events(&mut self, file: File, filter: events::Filter) -> std::io::Result<()> {
        let out = BufWriter::with_capacity(1 << 16, file);
        self.log = Some(events::EventLog::new(out, filter, self.ports.names.len())?);
        Ok(())
    }

    /// The ports the fabric must report: the captured ones and the
    /// logged ones.
    pub fn observed_ports(&self) -> Vec<PortId> {
        (0..self.ports.names.len())
            .map(|i| PortId(i as u32))
            .filter(|p| {
                self.captures[p.idx()].is_some()
                    || self.log.as_ref().is_some_and(|l| l.watches_port(*p))
            })
            .collect()
    }

    /// Flushes every file; the first error of the run, if any.
    fn finish_files(&mut self) -> std::io::Result<()> {
        let captures: Vec<_> = self.captures.iter_mut().filter_map(Option::take).collect();
        for w in captures {
            let r = w
                .finish()
                .and_then(|b| b.into_inner().map_err(|e| e.into_error()));
            self.note(r.map(drop));
        }
        if let Some(l) = self.log.take() {
            self.note(l.finish());
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn note(&mut self, r: std::io::Result<()>) {
        if let Err(e) = r {
            self.error.get_or_insert(e);
        }
    }
}

impl Observer for Recorder {
    fn packet(
        &mut self,
        now: SimTime,
        port: PortId,
        ev: PacketEvent,
        pkt: &Packet,
        port_bytes: u64,
    ) {
        if self.error.is_some() {
            return;
        }
        if ev == PacketEvent::Dequeue
            && let Some(w) = self.captures[port.idx()].as_mut()
        {
            let (from, to) = self.ports.ends[port.idx()];
            let r = w.record(now.ps(), pkt, from, to);
            self.note(r);
        }
        if let Some(log) = self.log.as_mut() {
            let r = log.packet(now, port, ev, pkt, port_bytes, &self.ports);
            self.note(r);
        }
    }

    fn pfc(&mut self, now: SimTime, port: PortId, ev: PfcEvent, priority: u8) {
        if self.error.is_some() {
            return;
        }
        if let Some(log) = self.log.as_mut() {
            let r = log.pfc(now, port, ev, priority, &self.ports);
            self.note(r);
        }
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.finish_files()
    }
}

/// Makes `world`'s fabric record what `out` asks for (nothing when it asks
/// for neither a capture nor the event log), into files `create` opens by
/// name. The port names were checked when the scenario loaded.
pub fn attach(
    world: &mut World,
    out: &OutputConfig,
    create: &mut dyn FnMut(&str) -> std::io::Result<File>,
) -> std::io::Result<()> {
    if out.pcap.is_none() && out.events.is_none() {
        return Ok(());
    }
    let ports = PortNames {
        names: world.port_names(),
        ends: world
            .fabric()
            .port_facts_all()
            .map(|p| (p.node.0, p.peer_node.0))
            .collect(),
    };
    let find = |n: &str| {
        ports
            .find(n)
            .ok_or_else(|| std::io::Error::other(format!("no port is named {n}")))
    };
    let captured: Vec<(PortId, &String)> = match &out.pcap {
        Some(p) => p
            .ports
            .iter()
            .map(|n| find(n).map(|port| (port, n)))
            .collect::<std::io::Result<_>>()?,
        None => Vec::new(),
    };
    let logged = match out.events.as_ref().and_then(|e| e.ports.as_ref()) {
        Some(l) => Some(l.iter().map(|n| find(n)).collect::<std::io::Result<_>>()?),
        None => None,
    };
    let mut rec = Recorder::new(ports);
    if let Some(p) = &out.pcap {
        for (port, name) in captured {
            rec.capture(port, create(&pcap_file_name(name))?, p.snaplen)?;
        }
    }
    if let Some(e) = &out.events {
        let filter = events::Filter {
            ports: logged,
            flows: e.flows.clone(),
            kinds: e.kinds.clone(),
        };
        rec.log_events(create(crate::report::columns::EVENTS.name)?, filter)?;
    }
    let observed = rec.observed_ports();
    world.observe(Box::new(rec), &observed);
    Ok(())
}

/// Ends the recording `attach` began: every file written out.
pub fn finish(world: &mut World) -> std::io::Result<()> {
    match world.observer_mut() {
        Some(o) => o.finish(),
        None => Ok(()),
    }
}

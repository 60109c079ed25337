//! `events.csv`: one row per event of a chosen packet at a chosen port, in
//! simulation order (columns: `report::columns::EVENTS`).

use super::{EventKind, PortNames};
use net::packet::Kind;
use net::{Dropped, Ecn, Packet, PacketEvent, PfcEvent, PortId};
use sim_core::SimTime;
use std::io::Write;

/// Which events are logged: each list a filter, `None` lets all through.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// By port id.
    pub ports: Option<Vec<PortId>>,
    /// By flow id (a packet source's packets have no flow: they pass only
    /// when this is `None`).
    pub flows: Option<Vec<u32>>,
    /// By kind.
    pub kinds: Option<Vec<EventKind>>,
}

/// The event log being written.
pub struct EventLog<W: Write> {
    out: W,
    ports: Option<Vec<bool>>,
    flows: Option<Vec<bool>>,
    kinds: u16,
    /// Per flow: the highest sequence end its source has sent (bytes for
    /// TCP, PSNs for RoCE), to tell retransmissions.
    sent_end: Vec<u64>,
    line: String,
}

/// A drop's cause as `detail` writes it.
pub fn cause(c: Dropped) -> &'static str {
    match c {
        Dropped::Overflow => "overflow",
        Dropped::Aqm => "aqm",
        Dropped::AqmDequeue => "aqm_dequeue",
        Dropped::ViqFull => "viq_full",
        Dropped::ViqAged => "viq_aged",
        Dropped::PfcHeadroom => "pfc_headroom",
        Dropped::LinkDown => "link_down",
    }
}

fn kind_word(k: Kind) -> &'static str {
    match k {
        Kind::Data => "data",
        Kind::Ack => "ack",
        Kind::Control => "control",
        Kind::Datagram => "datagram",
        Kind::Credit => "credit",
        Kind::Trimmed => "trimmed",
    }
}

fn ecn_word(e: Ecn) -> &'static str {
    match e {
        Ecn::NotEct => "not-ect",
        Ecn::Ect0 => "ect0",
        Ecn::Ce => "ce",
    }
}

impl<W: Write> EventLog<W> {
    /// Writes the header; `ports` is the fabric's port count.
    pub fn new(mut out: W, filter: Filter, ports: usize) -> std::io::Result<Self> {
        out.write_all(crate::report::columns::EVENTS.header().as_bytes())?;
        let set = |ids: &[usize], n: usize| {
            let mut v = vec![false; n];
            for &i in ids {
                if let Some(x) = v.get_mut(i) {
                    *x = true;
                }
            }
            v
        };
        let port_set = filter.ports.map(|l| {
            let ids: Vec<usize> = l.iter().map(|p| p.idx()).collect();
            set(&ids, ports)
        });
        let flow_set = filter.flows.map(|l| {
            let ids: Vec<usize> = l.iter().map(|&f| f as usize).collect();
            let n = ids.iter().max().map_or(0, |m| m + 1);
            set(&ids, n)
        });
        let kinds = filter
            .kinds
            .map_or(u16::MAX, |l| l.iter().fold(0, |m, k| m | k.bit()));
        Ok(EventLog {
            out,
            ports: port_set,
            flows: flow_set,
            kinds,
            sent_end: Vec::new(),
            line: String::with_capacity(128),
        })
    }

    /// Whether events at port `p` may be logged.
    pub fn watches_port(&self, p: PortId) -> bool {
        self.ports.as_ref().is_none_or(|s| s[p.idx()])
    }

    fn watches_flow(&self, pkt: &Packet) -> bool {
        match (&self.flows, pkt.flow()) {
            (None, _) => true,
            (Some(s), Some(f)) => s.get(f.idx()).copied().unwrap_or(false),
            (Some(_), None) => false,
        }
    }

    /// Whether a data packet leaving its source host is a retransmission;
    /// notes its end.
    fn retransmits(&mut self, pkt: &Packet) -> bool {
        let Some(flow) = pkt.flow() else { return false };
        if pkt.kind != Kind::Data || pkt.reverse {
            return false;
        }
        let end = pkt.seq_end();
        if self.sent_end.len() <= flow.idx() {
            self.sent_end.resize(flow.idx() + 1, 0);
        }
        let seen = &mut self.sent_end[flow.idx()];
        let again = end <= *seen;
        *seen = (*seen).max(end);
        again
    }

    /// Logs a packet event (and what it means at a host: a CNP, a NAK, a
    /// retransmission).
    pub fn packet(
        &mut self,
        now: SimTime,
        p: PortId,
        ev: PacketEvent,
        pkt: &Packet,
        queue_bytes: u64,
        ports: &PortNames,
    ) -> std::io::Result<()> {
        // Hosts are nodes 0..hosts (every topology creates them first), so
        // a departure from node `src` leaves the packet's source host.
        let leaves_source = ev == PacketEvent::Dequeue && ports.ends[p.idx()].0 == pkt.src.0;
        // Every departure of a flow's data counts towards its highest end,
        // logged or not, so that a later retransmission is told right.
        let again = leaves_source && self.retransmits(pkt);
        if !self.watches_port(p) || !self.watches_flow(pkt) {
            return Ok(());
        }
        let (kind, detail) = match ev {
            PacketEvent::Enqueue => (EventKind::Enqueue, ""),
            PacketEvent::Dequeue => (EventKind::Dequeue, ""),
            PacketEvent::Mark => (EventKind::Mark, ""),
            PacketEvent::Drop(c) => (EventKind::Drop, cause(c)),
            PacketEvent::Trim => (EventKind::Trim, ""),
        };
        let at = Some((pkt, queue_bytes));
        self.row(now, p, kind, at, detail, ports)?;
        if !leaves_source {
            return Ok(());
        }
        for (kind, happened) in [
            (EventKind::Cnp, pkt.is_cnp()),
            (EventKind::Nak, pkt.is_nak()),
            (EventKind::Retransmit, again),
        ] {
            if happened {
                self.row(now, p, kind, at, "", ports)?;
            }
        }
        Ok(())
    }

    /// Logs a PFC frame sent or received (no flow: logged whatever the
    /// flow filter).
    pub fn pfc(
        &mut self,
        now: SimTime,
        p: PortId,
        ev: PfcEvent,
        priority: u8,
        ports: &PortNames,
    ) -> std::io::Result<()> {
        if !self.watches_port(p) {
            return Ok(());
        }
        let kind = match ev {
            PfcEvent::PauseSent => EventKind::PauseSent,
            PfcEvent::ResumeSent => EventKind::ResumeSent,
            PfcEvent::PauseReceived => EventKind::PauseReceived,
            PfcEvent::ResumeReceived => EventKind::ResumeReceived,
        };
        let detail = format!("priority {priority}");
        self.row(now, p, kind, None, &detail, ports)
    }

    /// One row: a packet's (with the port's queued bytes after it) or a
    /// PFC frame's (no packet).
    fn row(
        &mut self,
        now: SimTime,
        p: PortId,
        kind: EventKind,
        pkt: Option<(&Packet, u64)>,
        detail: &str,
        ports: &PortNames,
    ) -> std::io::Result<()> {
        if self.kinds & kind.bit() == 0 {
            return Ok(());
        }
        let l = &mut self.line;
        l.clear();
        let ps = now.ps();
        let name = &ports.names[p.idx()];
        let node = name.split("->").next().unwrap_or("");
        let time = format_args!("{}.{:06}", ps / 1_000_000, ps % 1_000_000);
        let row = crate::report::columns::EVENTS
            .row(l)
            .cell("time_us", time)
            .cell("event", kind.name())
            .cell("node", node)
            .cell("port", name);
        match pkt {
            Some((pkt, queue_bytes)) => row
                .cell(
                    "flow",
                    pkt.flow().map_or(String::new(), |f| f.0.to_string()),
                )
                .cell("kind", kind_word(pkt.kind))
                .cell("seq", pkt.seq)
                .cell("ack", pkt.ack)
                .cell("bytes", pkt.size_bytes)
                .cell("ecn", ecn_word(pkt.ecn))
                .cell("queue_bytes", queue_bytes),
            None => row.empty_until("detail"),
        }
        .cell("detail", detail)
        .end();
        self.out.write_all(l.as_bytes())
    }

    /// Flushes the log.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

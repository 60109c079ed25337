//! The UEC receiving end of one flow (htsim `UecSink` at 40ccb05): it
//! keeps what arrives out of order, acknowledges every `ack_coalesce`
//! bytes (at once for a CE-marked, duplicate, first or ACK-requesting
//! packet, and when the out-of-order packets an ACK request found have
//! drained), and answers a trimmed packet with a NACK at once.

use super::config::UecConfig;
use super::{CREDIT, CREDIT_QUANTUM, HEADER_BYTES, NACK};
use crate::psn_window::Arrivals;
use crate::pull_pacer::PullPacer;
use crate::{Emit, FlowAddr};
use crate::{PathInfo, Side};
use net::{Ecn, Kind, Packet, Protocol};
use sim_core::{SimDuration, SimTime};

/// The receiver of one UEC flow.
#[derive(Clone, Debug)]
pub struct UecReceiver {
    addr: FlowAddr,
    mss: u64,
    ack_coalesce: u64,
    /// The PSNs that arrived, and the message's length.
    arrived: Arrivals,
    /// Bytes accepted since the last ACK.
    unacked: u64,
    /// An ACK request waits for the out-of-order packets to drain.
    ack_request: bool,
    any: bool,
    naks_sent: u64,
    /// Receiver credit, when RCCC is on.
    credit: Option<Credits>,
}

/// What a receiver owes its sender in credit (UE 1.0 RCCC).
#[derive(Clone, Copy, Debug)]
struct Credits {
    /// The cumulative credit the sender asked for, quanta.
    target: u64,
    /// The credit granted so far, quanta.
    granted: u64,
    /// Quanta each credit packet grants.
    per_credit: u64,
    /// The host pacer's slot this flow holds for its next credit.
    slot: Option<SimTime>,
    /// How long the data one credit draws takes at the host's line rate.
    gap: SimDuration,
}

impl UecReceiver {
    /// The receiver of `addr` on `path` under `cfg`.
    pub fn new(addr: FlowAddr, cfg: &UecConfig, path: &PathInfo) -> Self {
        let credit = cfg.rccc.then(|| {
            let bytes = cfg.credit_packets as u64 * cfg.packet_bytes() as u64;
            let wire = path.wire.wire_bytes(cfg.packet_bytes()) * cfg.credit_packets as u64;
            Credits {
                target: 0,
                granted: 0,
                per_credit: bytes.div_ceil(CREDIT_QUANTUM),
                slot: None,
                gap: path.rx_line_rate.tx_time(wire),
            }
        });
        UecReceiver {
            addr,
            mss: cfg.mss_bytes as u64,
            ack_coalesce: cfg.ack_coalesce_bytes as u64,
            arrived: Arrivals::default(),
            unacked: 0,
            ack_request: false,
            any: false,
            naks_sent: 0,
            credit,
        }
    }

    /// A data packet or a trimmed header from the sender; `pacer` is the
    /// receiving host's credit pacer.
    pub fn on_packet(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        pacer: &mut PullPacer,
        out: &mut impl Emit,
    ) {
        if pkt.protocol != Protocol::Uec {
            return;
        }
        if let Some(c) = self.credit.as_mut() {
            c.target = c.target.max(pkt.feedback.window_bytes as u64);
            if c.granted < c.target && c.slot.is_none() {
                c.slot = Some(pacer.reserve(now, c.gap));
            }
        }
        self.arrived.note_length(pkt.ack);
        let ce = pkt.ecn == Ecn::Ce;
        match pkt.kind {
            Kind::Trimmed if !self.arrived.has(pkt.seq) => {
                self.naks_sent += 1;
                out.emit(self.reply(now, pkt, ce, NACK));
            }
            Kind::Trimmed => out.emit(self.reply(now, pkt, false, 0)),
            Kind::Data => self.on_data(now, pkt, ce, out),
            _ => {}
        }
    }

    fn on_data(&mut self, now: SimTime, pkt: &Packet, ce: bool, out: &mut impl Emit) {
        let psn = pkt.seq;
        if self.arrived.has(psn) {
            // The sender is confused: acknowledge at once.
            self.unacked = 0;
            out.emit(self.reply(now, pkt, ce, 0));
            return;
        }
        let mut now_ack = !self.any || ce;
        self.any = true;
        self.unacked += pkt.size_bytes as u64;
        if pkt.feedback.flag {
            now_ack = true;
            self.ack_request = true;
        }
        if self.arrived.arrive(psn) && self.arrived.in_order() && self.ack_request {
            now_ack = true;
            self.ack_request = false;
        }
        if now_ack || self.unacked >= self.ack_coalesce {
            self.unacked = 0;
            out.emit(self.reply(now, pkt, ce, 0));
        }
    }

    /// An ACK (`kind` 0) or NACK answering `pkt`: the cumulative ACK, up
    /// to three SACKed ranges above it, and `pkt`'s PSN, send time,
    /// entropy value and CE mark echoed.
    fn reply(&self, now: SimTime, pkt: &Packet, ce: bool, kind: u16) -> Packet {
        let mut p = self.addr.header(Side::Receiver, Kind::Ack);
        p.protocol = Protocol::Uec;
        p.size_bytes = HEADER_BYTES;
        p.ack = self.arrived.expected();
        p.seq = pkt.seq;
        p.ts_ecr = pkt.ts_val;
        p.entropy = pkt.entropy;
        p.feedback.flag = ce;
        p.feedback.count = kind;
        p.created_at = now;
        for (start, end) in self.arrived.held_runs() {
            if !p.sack.push(p.ack, start, end) {
                break;
            }
        }
        p
    }

    /// Sends the credit whose slot has come, and reserves the next slot
    /// while the sender wants more (its only timer: the sender's timeout
    /// recovers what is lost).
    pub fn on_timer(&mut self, now: SimTime, pacer: &mut PullPacer, out: &mut impl Emit) {
        let Some(mut c) = self.credit else { return };
        if c.slot.is_none_or(|t| t > now) {
            return;
        }
        c.granted = (c.granted + c.per_credit).min(c.target.max(c.granted));
        let mut p = self.addr.header(Side::Receiver, Kind::Ack);
        p.protocol = Protocol::Uec;
        p.size_bytes = HEADER_BYTES;
        p.ack = c.granted;
        p.seq = self.arrived.expected();
        p.feedback.count = CREDIT;
        p.created_at = now;
        out.emit(p);
        c.slot = (c.granted < c.target).then(|| pacer.reserve(now, c.gap));
        self.credit = Some(c);
    }

    /// The slot of its next credit, under RCCC.
    pub fn deadline(&self) -> Option<SimTime> {
        self.credit.and_then(|c| c.slot)
    }

    /// Data bytes received in order.
    pub fn bytes_received(&self) -> u64 {
        self.arrived.bytes_in_order(self.mss)
    }

    /// NACKs sent.
    pub fn naks_sent(&self) -> u64 {
        self.naks_sent
    }
}

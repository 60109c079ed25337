//! The UEC receiving end of one flow (htsim `UecSink` at 40ccb05): it
//! keeps what arrives out of order, acknowledges every `ack_coalesce`
//! bytes (at once for a CE-marked, duplicate, first or ACK-requesting
//! packet, and when the out-of-order packets an ACK request found have
//! drained), and answers a trimmed packet with a NACK at once.

use super::config::UecConfig;
use super::{HEADER_BYTES, NACK};
use crate::endpoint::Side;
use crate::roce::selective::PsnSet;
use crate::{Emit, FlowAddr};
use net::{Ecn, Kind, Packet, Protocol};
use sim_core::SimTime;

/// The receiver of one UEC flow.
#[derive(Clone, Debug)]
pub struct UecReceiver {
    addr: FlowAddr,
    mss: u64,
    ack_coalesce: u64,
    /// The next PSN expected: every one below it has arrived.
    expected: u64,
    /// PSNs above `expected` that have arrived.
    above: PsnSet,
    /// One past the highest PSN arrived.
    high: u64,
    /// How many PSNs above `expected` have arrived.
    out_of_order: u64,
    /// The message's length, from its packets.
    length: u64,
    /// Bytes accepted since the last ACK.
    unacked: u64,
    /// An ACK request waits for the out-of-order packets to drain.
    ack_request: bool,
    any: bool,
    naks_sent: u64,
}

impl UecReceiver {
    /// The receiver of `addr` under `cfg`.
    pub fn new(addr: FlowAddr, cfg: &UecConfig) -> Self {
        UecReceiver {
            addr,
            mss: cfg.mss_bytes as u64,
            ack_coalesce: cfg.ack_coalesce_bytes as u64,
            expected: 0,
            above: PsnSet::default(),
            high: 0,
            out_of_order: 0,
            length: u64::MAX,
            unacked: 0,
            ack_request: false,
            any: false,
            naks_sent: 0,
        }
    }

    fn has(&self, psn: u64) -> bool {
        psn < self.expected || self.above.contains(psn)
    }

    /// A data packet or a trimmed header from the sender.
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet, out: &mut impl Emit) {
        if pkt.protocol != Protocol::Uec {
            return;
        }
        self.length = self.length.min(pkt.ack);
        let ce = pkt.ecn == Ecn::Ce;
        match pkt.kind {
            Kind::Trimmed if !self.has(pkt.seq) => {
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
        if self.has(psn) {
            // The sender is confused: acknowledge at once.
            self.unacked = 0;
            out.emit(self.reply(now, pkt, ce, 0));
            return;
        }
        let mut now_ack = !self.any || ce;
        self.any = true;
        self.unacked += pkt.size_bytes as u64;
        self.high = self.high.max(psn + 1);
        if pkt.feedback.flag {
            now_ack = true;
            self.ack_request = true;
        }
        if psn == self.expected {
            self.expected += 1;
            while self.above.contains(self.expected) {
                self.expected += 1;
                self.out_of_order -= 1;
            }
            self.above.advance(self.expected);
            if self.out_of_order == 0 && self.ack_request {
                now_ack = true;
                self.ack_request = false;
            }
        } else {
            self.above.insert(psn);
            self.out_of_order += 1;
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
        p.ack = self.expected;
        p.seq = pkt.seq;
        p.ts_ecr = pkt.ts_val;
        p.entropy = pkt.entropy;
        p.feedback.flag = ce;
        p.feedback.count = kind;
        p.created_at = now;
        let mut psn = self.expected + 1;
        while psn < self.high {
            if !self.above.contains(psn) {
                psn += 1;
                continue;
            }
            let start = psn;
            while psn < self.high && self.above.contains(psn) {
                psn += 1;
            }
            if !p.sack.push(self.expected, start, psn) {
                break;
            }
        }
        p
    }

    /// Runs no timers: the sender's timeout recovers what is lost.
    pub fn on_timer(&mut self, _now: SimTime, _out: &mut impl Emit) {}

    /// None: the receiver keeps no timer.
    pub fn deadline(&self) -> Option<SimTime> {
        None
    }

    /// Data bytes received in order.
    pub fn bytes_received(&self) -> u64 {
        (self.expected * self.mss).min(self.length)
    }

    /// NACKs sent.
    pub fn naks_sent(&self) -> u64 {
        self.naks_sent
    }
}

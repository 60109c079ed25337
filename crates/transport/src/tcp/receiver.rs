//! The receiving half of a TCP flow: passive open, cumulative ACKs, FIN-ACK.
//!
//! - ACK policy: one ACK per data segment by default; with `delayed_ack`, an
//!   ACK for every second segment or when the delayed-ACK timer fires, and an
//!   immediate ACK for out-of-order data or data that fills a gap (RFC 9293
//!   3.8.6.3, RFC 5681 section 4.2).
//! - ECN echo: ECN* receivers latch ECE from a CE mark until a CWR arrives
//!   (RFC 3168 6.1.3); DCTCP receivers echo CE exactly, ECE = CE of the last
//!   data packet, and with delayed ACKs send an immediate ACK when the CE state
//!   changes (RFC 8257 section 3.2's two-state machine).
//! - Window: the application reads instantly, so the advertised window is
//!   the receive buffer less out-of-order bytes, scaled by our shift
//!   (RFC 7323), capped to 16 bits. Data beyond the window is still accepted
//!   (the buffer is the window; only switch rewrites make them differ).
//! - SACK (RFC 2018): with `sack`, every ACK while data is out of order
//!   carries up to three blocks, the first the block holding the segment
//!   that triggered the ACK, then the others most recently changed first
//!   (section 4).
//! - Timestamps: an ACK echoes the TSval of the segment that last advanced
//!   RCV.NXT (the earliest unacknowledged one when ACKs are delayed; RFC 7323 4.3).

use super::config::TcpConfig;
use super::wscale_for;
use crate::Side;
use crate::cc::{CeEcho, CongestionControl};
use crate::{Emit, FlowAddr};
use net::packet::{MAX_SACK_BLOCKS, WSCALE_NONE};
use net::{Ecn, Kind, Packet, TcpFlags};
use sim_core::{SimDuration, SimTime};

/// Where the receiver is in the connection's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReceiverState {
    /// Waiting for the SYN.
    Listen,
    /// SYN received; data flows.
    Established,
    /// FIN received, our FIN sent with the ACK; waiting for the last ACK.
    LastAck,
    /// Closed.
    Closed,
}

/// Out-of-order data held by the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct OooRange {
    start: u64,
    end: u64,
    /// When (in arrivals) a segment last joined it.
    touched: u64,
}

/// The receiving half of one flow.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    addr: FlowAddr,
    state: ReceiverState,
    use_ecn: bool,
    dctcp_echo: bool,
    window_scaling: bool,
    shim: bool,
    buffer_bytes: u64,
    wscale: u8,
    delayed_ack: bool,
    delayed_ack_timeout: SimDuration,
    rcv_nxt: u64,
    /// Out-of-order ranges `[start, end)`, sorted and disjoint, each with
    /// the arrival count of its latest segment (SACK block order).
    ooo: Vec<OooRange>,
    /// Segments received so far (the stamp of the next out-of-order one).
    arrivals: u64,
    sack: bool,
    header_bytes: u32,
    syn_header_bytes: u32,
    ecn_ok: bool,
    ece_latched: bool,
    ce_state: bool,
    unacked_segments: u32,
    delack_at: Option<SimTime>,
    ts_recent: SimTime,
    acks_sent: u64,
}

impl TcpReceiver {
    /// A receiver for the flow at `addr`.
    pub fn new(addr: FlowAddr, cfg: &TcpConfig) -> Self {
        let cc = cfg.controller();
        TcpReceiver {
            addr,
            state: ReceiverState::Listen,
            use_ecn: cc.negotiates_ecn(),
            dctcp_echo: cc.ce_echo() == CeEcho::Exact,
            arrivals: 0,
            sack: cfg.sack,
            header_bytes: cfg.data_header_bytes(),
            syn_header_bytes: cfg.syn_header_bytes(),
            window_scaling: cfg.window_scaling,
            shim: cfg.window_scale_shim == Some(true),
            buffer_bytes: cfg.receive_window.0,
            wscale: 0,
            delayed_ack: cfg.delayed_ack,
            delayed_ack_timeout: cfg.delayed_ack_timeout,
            rcv_nxt: 0,
            ooo: Vec::new(),
            ecn_ok: false,
            ece_latched: false,
            ce_state: false,
            unacked_segments: 0,
            delack_at: None,
            ts_recent: SimTime::ZERO,
            acks_sent: 0,
        }
    }

    /// Processes a packet from the sender.
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet, out: &mut impl Emit) {
        if pkt.kind == Kind::Trimmed {
            return; // TCP knows no trimming: the header stands for a loss
        }
        if pkt.flags.has(TcpFlags::SYN) {
            return self.on_syn(now, pkt, out);
        }
        match self.state {
            ReceiverState::Listen => {}
            ReceiverState::Established => {
                if pkt.payload_bytes > 0 {
                    self.on_data(now, pkt, out);
                }
                if pkt.flags.has(TcpFlags::FIN) && pkt.seq == self.rcv_nxt {
                    self.rcv_nxt += 1;
                    self.state = ReceiverState::LastAck;
                    self.delack_at = None;
                    self.send_fin_ack(now, pkt, out);
                }
            }
            ReceiverState::LastAck | ReceiverState::Closed => {
                if pkt.flags.has(TcpFlags::FIN) {
                    self.send_fin_ack(now, pkt, out); // our FIN-ACK was lost
                } else if pkt.flags.has(TcpFlags::ACK) && pkt.ack == 2 {
                    self.state = ReceiverState::Closed;
                }
            }
        }
    }

    fn on_syn(&mut self, now: SimTime, pkt: &Packet, out: &mut impl Emit) {
        if self.state == ReceiverState::Listen {
            self.state = ReceiverState::Established;
            self.rcv_nxt = pkt.seq + 1;
            // RFC 3168 6.1.1: ECN-setup SYN has ECE and CWR.
            self.ecn_ok = self.use_ecn && pkt.flags.has(TcpFlags::ECE | TcpFlags::CWR);
            let scaling = self.window_scaling && pkt.wscale_option != WSCALE_NONE;
            self.wscale = if scaling {
                wscale_for(self.buffer_bytes)
            } else {
                0
            };
        } else if self.state != ReceiverState::Established {
            return;
        }
        self.ts_recent = pkt.ts_val;
        let mut p = self.addr.header(Side::Receiver, Kind::Control);
        p.size_bytes = self.syn_header_bytes;
        p.flags = TcpFlags::SYN | TcpFlags::ACK;
        if self.ecn_ok {
            p.flags = p.flags | TcpFlags::ECE; // RFC 3168 6.1.1: ECN-setup SYN-ACK
        }
        p.wscale_option = if self.window_scaling && pkt.wscale_option != WSCALE_NONE {
            self.wscale
        } else {
            WSCALE_NONE
        };
        p.seq = 0;
        p.ack = self.rcv_nxt;
        // RFC 7323 2.2: the window in a SYN-ACK is never scaled.
        p.window = self.buffer_bytes.min(u16::MAX as u64) as u16;
        p.ts_val = now;
        p.ts_ecr = pkt.ts_val;
        p.created_at = now;
        out.emit(p);
    }

    fn on_data(&mut self, now: SimTime, pkt: &Packet, out: &mut impl Emit) {
        let ce = pkt.ecn == Ecn::Ce;
        if self.ecn_ok && self.dctcp_echo && ce != self.ce_state {
            // RFC 8257 3.2: on a CE-state change, first ACK what was received
            // with the old state, then switch.
            if self.unacked_segments > 0 {
                self.send_ack(now, out);
            }
            self.ce_state = ce;
        } else if self.ecn_ok && !self.dctcp_echo {
            if pkt.flags.has(TcpFlags::CWR) {
                self.ece_latched = false; // RFC 3168 6.1.3
            }
            if ce {
                self.ece_latched = true;
            }
        }
        let start = pkt.seq;
        let end = pkt.seq + pkt.payload_bytes as u64;
        self.arrivals += 1;
        let immediate = if start <= self.rcv_nxt && end > self.rcv_nxt {
            if self.unacked_segments == 0 {
                self.ts_recent = pkt.ts_val;
            }
            self.rcv_nxt = end;
            let had_ooo = !self.ooo.is_empty();
            self.absorb_ooo();
            had_ooo // filled (part of) a gap: ACK at once
        } else if start > self.rcv_nxt {
            self.insert_ooo(start, end);
            true
        } else {
            true // entirely old: a retransmission we already have
        };
        self.unacked_segments += 1;
        if !self.delayed_ack || immediate || self.unacked_segments >= 2 {
            self.send_ack(now, out);
        } else if self.delack_at.is_none() {
            self.delack_at = Some(now + self.delayed_ack_timeout);
        }
    }

    fn insert_ooo(&mut self, start: u64, end: u64) {
        let i = self.ooo.partition_point(|r| r.end < start);
        let mut s = start;
        let mut e = end;
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].start <= e {
            s = s.min(self.ooo[j].start);
            e = e.max(self.ooo[j].end);
            j += 1;
        }
        let range = OooRange {
            start: s,
            end: e,
            touched: self.arrivals,
        };
        if j == i + 1 {
            self.ooo[i] = range; // the common case: a segment extends a range
        } else {
            self.ooo.splice(i..j, std::iter::once(range));
        }
    }

    fn absorb_ooo(&mut self) {
        let mut k = 0;
        while k < self.ooo.len() && self.ooo[k].start <= self.rcv_nxt {
            self.rcv_nxt = self.rcv_nxt.max(self.ooo[k].end);
            k += 1;
        }
        self.ooo.drain(..k);
    }

    /// Up to three SACK blocks, most recently changed first (RFC 2018 section 4).
    #[inline]
    fn sack_blocks(&self, ack: u64) -> net::SackBlocks {
        if !self.sack || self.ooo.is_empty() {
            return net::SackBlocks::default();
        }
        self.sack_blocks_slow(ack)
    }

    fn sack_blocks_slow(&self, ack: u64) -> net::SackBlocks {
        let mut blocks = net::SackBlocks::default();
        let mut taken = [usize::MAX; MAX_SACK_BLOCKS];
        for k in 0..MAX_SACK_BLOCKS {
            let next = (0..self.ooo.len())
                .filter(|i| !taken[..k].contains(i))
                .max_by_key(|&i| (self.ooo[i].touched, std::cmp::Reverse(i)));
            let Some(i) = next else { break };
            taken[k] = i;
            blocks.push(ack, self.ooo[i].start, self.ooo[i].end);
        }
        blocks
    }

    fn window_field(&self) -> u16 {
        let held: u64 = self.ooo.iter().map(|r| r.end - r.start).sum();
        let wnd = self.buffer_bytes.saturating_sub(held);
        (wnd >> self.wscale).min(u16::MAX as u64) as u16
    }

    /// FairQ's host shim (FairQ paper V-A): the window field's scale exponent
    /// in the reserved bits.
    fn shim(&self, p: &mut Packet) {
        if self.shim {
            p.reserved = self.wscale;
        }
    }

    fn send_ack(&mut self, now: SimTime, out: &mut impl Emit) {
        let mut p = self.addr.header(Side::Receiver, Kind::Ack);
        p.seq = 1;
        p.ack = self.rcv_nxt;
        p.flags = TcpFlags::ACK;
        p.sack = self.sack_blocks(self.rcv_nxt);
        p.size_bytes = self.header_bytes + p.sack.option_bytes();
        let ece = if self.dctcp_echo {
            self.ce_state
        } else {
            self.ece_latched
        };
        if self.ecn_ok && ece {
            p.flags = p.flags | TcpFlags::ECE;
        }
        p.window = self.window_field();
        self.shim(&mut p);
        p.ts_val = now;
        p.ts_ecr = self.ts_recent;
        p.created_at = now;
        out.emit(p);
        self.unacked_segments = 0;
        self.delack_at = None;
        self.acks_sent += 1;
    }

    fn send_fin_ack(&mut self, now: SimTime, pkt: &Packet, out: &mut impl Emit) {
        let mut p = self.addr.header(Side::Receiver, Kind::Control);
        p.size_bytes = self.header_bytes;
        p.seq = 1;
        p.ack = pkt.seq + 1;
        p.flags = TcpFlags::FIN | TcpFlags::ACK;
        p.window = self.window_field();
        self.shim(&mut p);
        p.ts_val = now;
        p.ts_ecr = pkt.ts_val;
        p.created_at = now;
        out.emit(p);
    }

    /// The earliest time [`TcpReceiver::on_timer`] must run.
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        self.delack_at
    }

    /// Runs the delayed-ACK timer.
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl Emit) {
        if self.delack_at.is_some_and(|t| t <= now) {
            self.delack_at = None;
            if self.unacked_segments > 0 {
                self.send_ack(now, out);
            }
        }
    }

    /// Data bytes received in order.
    pub fn bytes_received(&self) -> u64 {
        let fin = matches!(self.state, ReceiverState::LastAck | ReceiverState::Closed) as u64;
        self.rcv_nxt.saturating_sub(1 + fin)
    }
    /// The connection state.
    pub fn state(&self) -> ReceiverState {
        self.state
    }
    /// ACKs sent (not counting SYN-ACK and FIN-ACK).
    pub fn acks_sent(&self) -> u64 {
        self.acks_sent
    }
    /// The window-scale shift this receiver advertises with.
    pub fn wscale(&self) -> u8 {
        self.wscale
    }
}

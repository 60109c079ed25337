//! The sending half of a TCP flow: active open, data, loss recovery, FIN.
//!
//! Sequence space: the SYN takes sequence number 0, data bytes are 1..=size,
//! and the FIN takes size + 1. The FIN is sent once all data is acknowledged,
//! which is also when the flow counts as complete (its FCT ends).
//!
//! Rules implemented, with their sources:
//! - Fast retransmit on the third duplicate ACK and NewReno fast recovery with
//!   partial ACKs (RFC 6582 section 3.2). A duplicate ACK is an ACK that
//!   acknowledges nothing new, carries no data, no SYN/FIN, while data is
//!   outstanding (RFC 5681 section 2); unlike RFC 5681 a window change does not
//!   disqualify it, because switch plugins rewrite windows.
//! - RTO per RFC 6298 (5.1)-(5.7): started when data leaves and none is
//!   outstanding, restarted on new ACKs, stopped when all is acknowledged,
//!   doubled on expiry up to `rto_max`; after a timeout the sender goes back
//!   to SND.UNA with a one-segment window (RFC 5681) and sets `recover` to
//!   the highest sequence sent (RFC 6582 section 3.2 step 4).
//! - ECN (RFC 3168 section 6.1): ECE+CWR on the SYN; ECT(0) on data; one
//!   reduction per window of data; CWR on the next new data segment.
//! - Receive window with window scale (RFC 7323): the SYN-ACK's window is
//!   unscaled, later ones are shifted by the peer's scale.
//! - Windows below one MSS: when nothing is in flight the sender sends a
//!   segment as large as the window allows (RFC 9293 3.8.6.2.1's "override"
//!   of sender SWS avoidance), so a window clamped below one MSS still moves
//!   data. A zero window with nothing in flight arms the persist timer (RFC
//!   9293 3.8.6.1), which sends a one-byte probe after the current RTO and
//!   backs off exponentially, so a flow never stalls forever.

use crate::cc::{AckSample, CongestionControl, Controller, Signal, Window};
use crate::config::TcpConfig;
use crate::rtt::RttEstimator;
use crate::{Emit, FlowAddr, wscale_for};
use net::packet::WSCALE_NONE;
use net::{Ecn, Packet, TcpFlags};
use sim_core::{SimDuration, SimTime};

/// Where the sender is in the connection's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderState {
    /// Not started.
    Idle,
    /// SYN sent, waiting for SYN-ACK.
    SynSent,
    /// Sending data.
    Established,
    /// All data acknowledged, FIN sent, waiting for the peer's FIN-ACK.
    FinSent,
    /// FIN-ACK received and acknowledged.
    Closed,
}

/// Counters of one sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data segments sent again (fast retransmit, partial ACK, or after RTO).
    pub retransmits: u64,
    /// Retransmission-timer expiries (SYN, data or FIN).
    pub timeouts: u64,
    /// RTO episodes: runs of expiries without progress between them
    /// (a flow that times out three times in a row has one episode).
    pub rto_episodes: u64,
    /// SYNs sent again after a timeout (RFC 6298 5.7: the first data
    /// window then shrinks to one segment).
    pub syn_retransmits: u64,
    /// FINs sent again after a timeout.
    pub fin_retransmits: u64,
    /// Fast-recovery episodes entered.
    pub fast_recoveries: u64,
    /// Window reductions on ECN-Echo.
    pub ecn_reductions: u64,
    /// Persist-timer window probes sent.
    pub window_probes: u64,
}

/// The sending half of one flow.
#[derive(Clone, Debug)]
pub struct TcpSender {
    addr: FlowAddr,
    mss: u64,
    use_ecn: bool,
    ect_on_retransmit: bool,
    our_wscale: u8,
    window_scaling: bool,
    /// FairQ's host shim (fairq.txt V-A): our window's scale exponent in the reserved bits.
    shim: bool,
    state: SenderState,
    /// One past the last data byte's sequence number.
    data_end: u64,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    win: Window,
    cc: Controller,
    peer_wnd: u64,
    peer_wscale: u8,
    dupacks: u32,
    in_recovery: bool,
    recover: u64,
    retransmit_head: bool,
    ecn_ok: bool,
    cwr_pending: bool,
    ecn_recover: u64,
    syn_timed_out: bool,
    rtt: RttEstimator,
    /// The last RTT sample not yet taken by [`TcpSender::take_rtt_sample`].
    rtt_sample: Option<SimDuration>,
    backoff: u32,
    rto_at: Option<SimTime>,
    persist_at: Option<SimTime>,
    persist_backoff: u32,
    started_at: Option<SimTime>,
    completed_at: Option<SimTime>,
    closed_at: Option<SimTime>,
    stats: SenderStats,
}

impl TcpSender {
    /// A sender of `size_bytes` bytes (`u64::MAX` for an unbounded flow that
    /// an application stops with [`TcpSender::stop_app`]).
    pub fn new(addr: FlowAddr, size_bytes: u64, cfg: &TcpConfig) -> Self {
        assert!(size_bytes > 0, "a flow needs at least one byte of data");
        let mss = cfg.mss.0;
        TcpSender {
            addr,
            mss,
            use_ecn: cfg.cc.uses_ecn(),
            // RFC 3168 6.1.5 forbids ECT on retransmissions; DCTCP (Linux)
            // sets it on every data segment.
            ect_on_retransmit: cfg.cc == crate::CcKind::Dctcp,
            our_wscale: wscale_for(cfg.receive_window.0),
            window_scaling: cfg.window_scaling,
            shim: cfg.window_scale_shim == Some(true),
            state: SenderState::Idle,
            data_end: 1u64.saturating_add(size_bytes),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            win: Window::new(mss, cfg.initial_window_mss),
            cc: cfg.controller(),
            peer_wnd: 0,
            peer_wscale: 0,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            retransmit_head: false,
            ecn_ok: false,
            cwr_pending: false,
            ecn_recover: 0,
            syn_timed_out: false,
            rtt: RttEstimator::new(cfg.rto_initial, cfg.rto_min, cfg.rto_max),
            rtt_sample: None,
            backoff: 0,
            rto_at: None,
            persist_at: None,
            persist_backoff: 0,
            started_at: None,
            completed_at: None,
            closed_at: None,
            stats: SenderStats::default(),
        }
    }

    /// Opens the connection: sends the SYN.
    pub fn start(&mut self, now: SimTime, out: &mut impl Emit) {
        assert_eq!(self.state, SenderState::Idle, "flow started twice");
        self.state = SenderState::SynSent;
        self.started_at = Some(now);
        self.snd_nxt = 1;
        self.snd_max = 1;
        self.send_syn(now, out);
        self.rto_at = Some(now + self.rtt.backed_off(0));
    }

    /// The header of a segment after the SYN: with FairQ's host shim on,
    /// our window-scale exponent goes in the reserved bits (fairq.txt V-A).
    fn segment_header(&self) -> Packet {
        let mut p = self.addr.header(false);
        if self.shim {
            p.reserved = self.our_wscale;
        }
        p
    }

    fn send_syn(&self, now: SimTime, out: &mut impl Emit) {
        let mut p = self.addr.header(false);
        p.flags = TcpFlags::SYN;
        if self.use_ecn {
            // RFC 3168 6.1.1: an ECN-setup SYN carries ECE and CWR.
            p.flags = p.flags | TcpFlags::ECE | TcpFlags::CWR;
        }
        if self.window_scaling {
            p.wscale_option = self.our_wscale;
        }
        p.ts_val = now;
        p.created_at = now;
        out.emit(p);
    }

    /// Ends the application's data at what has been sent so far (long flows
    /// stopped at their stop time); the flow then completes once that is acknowledged.
    pub fn stop_app(&mut self, now: SimTime, out: &mut impl Emit) {
        let sent_end = self.snd_max.max(1);
        if sent_end < self.data_end {
            self.data_end = sent_end;
            self.retransmit_head &= self.snd_una < self.data_end;
            self.maybe_complete(now, out);
        }
    }

    /// Whether [`TcpSender::poll_transmit`] would send a segment now.
    #[inline]
    pub fn wants_transmit(&self) -> bool {
        self.next_segment().is_some()
    }

    /// The next data segment `(seq, len)` the windows allow, if any.
    fn next_segment(&self) -> Option<(u64, u64)> {
        if self.state != SenderState::Established {
            return None;
        }
        if self.retransmit_head {
            let len = self.mss.min(self.data_end - self.snd_una);
            return Some((self.snd_una, len));
        }
        if self.snd_nxt >= self.data_end {
            return None;
        }
        let wnd = self.win.cwnd.min(self.peer_wnd);
        let usable = (self.snd_una + wnd).saturating_sub(self.snd_nxt);
        let seg = self.mss.min(self.data_end - self.snd_nxt);
        if usable >= seg {
            Some((self.snd_nxt, seg))
        } else if usable > 0 && self.snd_nxt == self.snd_una {
            // Window below one segment and nothing in flight: send what fits.
            Some((self.snd_nxt, usable))
        } else {
            None
        }
    }

    /// The next data segment to hand to the NIC, if the windows allow one.
    #[inline]
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        let (seq, len) = self.next_segment()?;
        self.retransmit_head = false;
        Some(self.make_segment(now, seq, len))
    }

    fn make_segment(&mut self, now: SimTime, seq: u64, len: u64) -> Packet {
        let retransmission = seq < self.snd_max;
        let mut p = self.segment_header();
        p.seq = seq;
        p.ack = 1;
        p.payload_bytes = len as u32;
        p.size_bytes += len as u32;
        p.flags = TcpFlags::ACK;
        p.ts_val = now;
        p.created_at = now;
        if self.ecn_ok && (!retransmission || self.ect_on_retransmit) {
            p.ecn = Ecn::Ect0;
        }
        if retransmission {
            self.stats.retransmits += 1;
        } else if self.cwr_pending {
            p.flags = p.flags | TcpFlags::CWR;
            self.cwr_pending = false;
        }
        self.snd_nxt = self.snd_nxt.max(seq + len);
        self.snd_max = self.snd_max.max(seq + len);
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.backed_off(self.backoff)); // RFC 6298 (5.1)
        }
        p
    }

    /// Processes a packet from the receiver.
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet, out: &mut impl Emit) {
        match self.state {
            SenderState::Idle => {}
            SenderState::SynSent => self.on_syn_ack(now, pkt),
            SenderState::Established | SenderState::FinSent => self.on_ack(now, pkt, out),
            SenderState::Closed => {
                if pkt.flags.has(TcpFlags::FIN) {
                    // Our last ACK was lost: the peer retransmitted its FIN.
                    self.send_final_ack(now, pkt, out);
                }
            }
        }
    }

    fn on_syn_ack(&mut self, now: SimTime, pkt: &Packet) {
        if !pkt.flags.has(TcpFlags::SYN | TcpFlags::ACK) || pkt.ack != 1 {
            return;
        }
        self.state = SenderState::Established;
        self.snd_una = 1;
        self.ecn_ok = self.use_ecn && pkt.flags.has(TcpFlags::ECE);
        self.peer_wscale = if self.window_scaling && pkt.wscale_option != WSCALE_NONE {
            pkt.wscale_option.min(14)
        } else {
            0
        };
        if !self.window_scaling || pkt.wscale_option == WSCALE_NONE {
            self.our_wscale = 0;
        }
        self.peer_wnd = pkt.window as u64; // RFC 7323 2.2: never scaled on a SYN
        self.on_rtt_sample(now.since(pkt.ts_ecr));
        self.backoff = 0;
        self.rto_at = None;
        if self.syn_timed_out {
            // RFC 6298 (5.7): the initial window becomes one segment.
            self.win.cwnd = self.mss;
        }
        // The handshake's third packet is the first data segment, which
        // carries ACK (flows always have data: sizes are validated > 0).
    }

    fn send_final_ack(&self, now: SimTime, pkt: &Packet, out: &mut impl Emit) {
        let mut p = self.segment_header();
        p.seq = self.data_end + 1;
        p.ack = pkt.seq + 1;
        p.flags = TcpFlags::ACK;
        p.ts_val = now;
        p.ts_ecr = pkt.ts_val;
        p.created_at = now;
        out.emit(p);
    }

    fn on_ack(&mut self, now: SimTime, pkt: &Packet, out: &mut impl Emit) {
        if !pkt.flags.has(TcpFlags::ACK) {
            return;
        }
        let ack = pkt.ack;
        let fin_acked = self.state == SenderState::FinSent && ack == self.data_end + 1;
        if ack > self.snd_max && !fin_acked {
            return; // acknowledges something never sent
        }
        let cwnd_limited = self.win.cwnd < self.peer_wnd;
        self.peer_wnd = (pkt.window as u64) << self.peer_wscale;
        if self.state == SenderState::FinSent {
            if fin_acked && pkt.flags.has(TcpFlags::FIN) {
                self.send_final_ack(now, pkt, out);
                self.state = SenderState::Closed;
                self.closed_at = Some(now);
                self.rto_at = None;
                self.persist_at = None;
            }
            return;
        }
        let ece = self.ecn_ok && pkt.flags.has(TcpFlags::ECE);
        if ack > self.snd_una {
            self.on_new_ack(now, pkt, ece, cwnd_limited);
        } else if ack == self.snd_una && pkt.payload_bytes == 0 && self.snd_max > self.snd_una {
            self.on_dup_ack();
        }
        if ece && !self.in_recovery && self.snd_una > self.ecn_recover {
            // RFC 3168 6.1.2 / RFC 8257 3.3: react at most once per window.
            let flight = self.snd_max - self.snd_una;
            self.cc.on_congestion(&mut self.win, Signal::Ecn, flight);
            self.cwr_pending = true;
            self.ecn_recover = self.snd_max;
            self.stats.ecn_reductions += 1;
        }
        self.maybe_complete(now, out);
        self.update_persist(now);
    }

    fn on_new_ack(&mut self, now: SimTime, pkt: &Packet, ece: bool, cwnd_limited: bool) {
        let ack = pkt.ack;
        let acked = ack - self.snd_una;
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dupacks = 0;
        self.on_rtt_sample(now.since(pkt.ts_ecr));
        self.backoff = 0;
        let was_in_recovery = self.in_recovery;
        if self.in_recovery {
            if ack >= self.recover {
                // RFC 6582 3.2 step 3, full ACK: deflate (option 1).
                let flight = self.snd_max - self.snd_una;
                self.win.cwnd = self.win.ssthresh.min(flight.max(self.mss) + self.mss);
                self.in_recovery = false;
            } else {
                // Partial ACK: retransmit the next hole, deflate by the amount
                // acknowledged, add back one SMSS if at least that much was acked.
                self.retransmit_head = true;
                let add = if acked >= self.mss { self.mss } else { 0 };
                self.win.cwnd = (self.win.cwnd.saturating_sub(acked) + add).max(self.mss);
            }
        }
        let sample = AckSample {
            now,
            acked_bytes: acked,
            ece,
            snd_una: self.snd_una,
            snd_max: self.snd_max,
            in_recovery: was_in_recovery,
            cwnd_limited,
        };
        self.cc.on_ack(&mut self.win, &sample);
        // RFC 6298 (5.2)/(5.3).
        self.rto_at = if self.snd_una >= self.snd_max {
            None
        } else {
            Some(now + self.rtt.rto())
        };
    }

    fn on_dup_ack(&mut self) {
        self.dupacks += 1;
        if self.in_recovery {
            self.win.cwnd += self.mss; // RFC 6582 3.2 step 4: inflate
        } else if self.dupacks == 3 && self.snd_una >= self.recover {
            // RFC 6582 3.2 step 2: enter fast recovery.
            let flight = self.snd_max - self.snd_una;
            self.cc.on_congestion(&mut self.win, Signal::Loss, flight);
            self.win.cwnd = self.win.ssthresh + 3 * self.mss;
            self.recover = self.snd_max;
            self.ecn_recover = self.snd_max;
            self.in_recovery = true;
            self.retransmit_head = true;
            self.stats.fast_recoveries += 1;
        }
    }

    fn maybe_complete(&mut self, now: SimTime, out: &mut impl Emit) {
        if self.state == SenderState::Established && self.snd_una >= self.data_end {
            self.completed_at = Some(now);
            self.state = SenderState::FinSent;
            self.retransmit_head = false;
            self.send_fin(now, out);
            self.rto_at = Some(now + self.rtt.backed_off(self.backoff));
            self.persist_at = None;
        }
    }

    fn send_fin(&self, now: SimTime, out: &mut impl Emit) {
        let mut p = self.segment_header();
        p.seq = self.data_end;
        p.ack = 1;
        p.flags = TcpFlags::FIN | TcpFlags::ACK;
        p.ts_val = now;
        p.created_at = now;
        out.emit(p);
    }

    fn update_persist(&mut self, now: SimTime) {
        let stalled = self.state == SenderState::Established
            && self.snd_max == self.snd_una
            && self.snd_nxt < self.data_end
            && self.peer_wnd == 0;
        if !stalled {
            self.persist_at = None;
            self.persist_backoff = 0;
        } else if self.persist_at.is_none() {
            self.persist_at = Some(now + self.rtt.backed_off(self.persist_backoff));
        }
    }

    /// The earliest time [`TcpSender::on_timer`] must run.
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        match (self.rto_at, self.persist_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Runs expired timers.
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl Emit) {
        if self.persist_at.is_some_and(|t| t <= now) {
            self.persist_at = None;
            self.persist_backoff += 1;
            self.stats.window_probes += 1;
            // RFC 9293 3.8.6.1: probe the zero window with one byte of new data.
            let probe = self.make_segment(now, self.snd_nxt, 1);
            out.emit(probe);
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            self.rto_at = None;
            self.stats.timeouts += 1;
            // Expiries back to back (the backoff not yet reset by new
            // data acknowledged) are one episode of the flow.
            self.stats.rto_episodes += (self.backoff == 0) as u64;
            self.backoff += 1; // RFC 6298 (5.5)
            match self.state {
                SenderState::SynSent => {
                    self.syn_timed_out = true;
                    self.stats.syn_retransmits += 1;
                    self.send_syn(now, out);
                }
                SenderState::FinSent => {
                    self.stats.fin_retransmits += 1;
                    self.send_fin(now, out);
                }
                SenderState::Established => {
                    let flight = self.snd_max - self.snd_una;
                    self.cc
                        .on_congestion(&mut self.win, Signal::Timeout, flight);
                    self.recover = self.snd_max; // RFC 6582 3.2 step 4
                    self.ecn_recover = self.snd_max;
                    self.in_recovery = false;
                    self.dupacks = 0;
                    self.retransmit_head = false;
                    self.snd_nxt = self.snd_una; // go back to SND.UNA
                }
                SenderState::Idle | SenderState::Closed => return,
            }
            // RFC 6298 (5.6): restart the timer with the backed-off value.
            self.rto_at = Some(now + self.rtt.backed_off(self.backoff));
        }
    }

    /// The connection state.
    pub fn state(&self) -> SenderState {
        self.state
    }
    /// When the SYN was first sent.
    pub fn started_at(&self) -> Option<SimTime> {
        self.started_at
    }
    /// When the last data byte was acknowledged (the flow's completion).
    pub fn completed_at(&self) -> Option<SimTime> {
        self.completed_at
    }
    /// When the connection closed (FIN-ACK received).
    pub fn closed_at(&self) -> Option<SimTime> {
        self.closed_at
    }
    /// Data bytes acknowledged so far.
    pub fn bytes_acked(&self) -> u64 {
        self.snd_una.saturating_sub(1).min(self.data_end - 1)
    }
    /// The flow's data size (after any `stop_app`).
    pub fn size_bytes(&self) -> u64 {
        self.data_end - 1
    }
    /// The RTT sample the last packet gave (RFC 7323 timestamps: one per
    /// ACK of new data, and the SYN-ACK's), if any; taking it clears it.
    pub fn take_rtt_sample(&mut self) -> Option<SimDuration> {
        self.rtt_sample.take()
    }

    fn on_rtt_sample(&mut self, rtt: SimDuration) {
        self.rtt.on_sample(rtt);
        self.rtt_sample = Some(rtt);
    }

    /// Counters of what the sender did.
    pub fn stats(&self) -> SenderStats {
        self.stats
    }
    /// The congestion window in bytes.
    pub fn cwnd(&self) -> u64 {
        self.win.cwnd
    }
    /// The peer's advertised window in bytes.
    pub fn peer_window(&self) -> u64 {
        self.peer_wnd
    }
    /// The congestion controller.
    pub fn controller(&self) -> &Controller {
        &self.cc
    }
    /// The flow's addressing.
    pub fn addr(&self) -> &FlowAddr {
        &self.addr
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CcKind;
    use crate::harness::Harness;
    use crate::receiver::ReceiverState;
    use sim_core::SimDuration;

    fn cfg() -> TcpConfig {
        TcpConfig {
            rto_min: SimDuration::from_ms(1),
            rto_initial: SimDuration::from_ms(10),
            ..TcpConfig::default()
        }
    }

    const END: SimTime = SimTime(10 * sim_core::time::PS_PER_S);

    #[test]
    fn clean_transfer_handshakes_sends_all_and_closes() {
        let mut h = Harness::new(&cfg(), 1_000_000);
        h.run(END);
        assert_eq!(h.sender.state(), SenderState::Closed);
        assert_eq!(h.receiver.state(), ReceiverState::Closed);
        assert_eq!(h.receiver.bytes_received(), 1_000_000);
        assert_eq!(h.sender.bytes_acked(), 1_000_000);
        assert_eq!(h.sender.stats(), SenderStats::default());
        // ceil(1e6 / 1460) data segments, nothing sent twice.
        let data: Vec<_> = h
            .data_packets
            .iter()
            .filter(|p| p.payload_bytes > 0)
            .collect();
        assert_eq!(data.len(), 685);
        assert!(h.sender.completed_at().unwrap() < h.sender.closed_at().unwrap());
    }

    #[test]
    fn slow_start_doubles_per_rtt_from_the_initial_window() {
        // With a 20 us RTT and no losses, the first flight is exactly IW = 10.
        let mut h = Harness::new(&cfg(), 100_000);
        h.delay = SimDuration::from_ms(1);
        h.run(SimTime(3 * sim_core::time::PS_PER_MS - 1));
        // By 3 ms: SYN (RTT 2 ms) then one RTT of data: 10 segments, then 20 in flight.
        let data = h
            .data_packets
            .iter()
            .filter(|p| p.payload_bytes > 0)
            .count();
        assert_eq!(data, 10);
    }

    #[test]
    fn single_loss_is_repaired_by_fast_retransmit_without_timeout() {
        let mut c = cfg();
        c.initial_window_mss = 20;
        let mut h = Harness::new(&c, 300_000);
        let mut dropped = false;
        h.data_filter = Box::new(move |_, p| {
            if p.seq == 1 + 5 * 1460 && !dropped {
                dropped = true;
                return false;
            }
            true
        });
        h.run(END);
        let s = h.sender.stats();
        assert_eq!((s.timeouts, s.fast_recoveries, s.retransmits), (0, 1, 1));
        assert_eq!(h.receiver.bytes_received(), 300_000);
    }

    #[test]
    fn several_losses_in_one_window_use_partial_acks() {
        let mut c = cfg();
        c.initial_window_mss = 40;
        let mut h = Harness::new(&c, 300_000);
        let lost = [3u64, 7, 12, 20];
        let mut done = Vec::new();
        h.data_filter = Box::new(move |_, p| {
            if p.payload_bytes == 0 {
                return true;
            }
            let k = (p.seq - 1) / 1460;
            if lost.contains(&k) && !done.contains(&k) {
                done.push(k);
                return false;
            }
            true
        });
        h.run(END);
        let s = h.sender.stats();
        // RFC 6582: one recovery episode, each hole retransmitted once, no RTO.
        assert_eq!((s.timeouts, s.fast_recoveries, s.retransmits), (0, 1, 4));
        assert_eq!(h.receiver.bytes_received(), 300_000);
    }

    #[test]
    fn tail_loss_needs_the_rto_and_backs_off() {
        let mut h = Harness::new(&cfg(), 14_600);
        let mut drops = 0;
        // Lose the last segment three times: RTOs at 1x, 2x, 4x.
        h.data_filter = Box::new(move |_, p| {
            if p.seq == 1 + 9 * 1460 && drops < 3 {
                drops += 1;
                return false;
            }
            true
        });
        h.run(END);
        let s = h.sender.stats();
        assert_eq!(s.timeouts, 3);
        assert_eq!(s.retransmits, 3);
        assert_eq!(h.receiver.bytes_received(), 14_600);
    }

    #[test]
    fn lost_syn_is_retransmitted_and_iw_becomes_one_segment() {
        let mut h = Harness::new(&cfg(), 50_000);
        let mut first = true;
        h.data_filter = Box::new(move |_, p| {
            if p.flags.has(TcpFlags::SYN) && first {
                first = false;
                return false;
            }
            true
        });
        h.run(SimTime(
            10 * sim_core::time::PS_PER_MS + 40 * sim_core::time::PS_PER_US + 1,
        ));
        let st = h.sender.stats();
        assert_eq!((st.timeouts, st.syn_retransmits, st.retransmits), (1, 1, 0));
        // SYN-ACK arrived at 10 ms + 20 us; RFC 6298 (5.7) leaves one segment.
        assert_eq!(
            h.data_packets
                .iter()
                .filter(|p| p.payload_bytes > 0)
                .count(),
            1
        );
    }

    #[test]
    fn zero_window_is_probed_by_the_persist_timer_and_never_stalls() {
        // A switch clamps every ACK's window to zero for the first 50 ms.
        let mut h = Harness::new(&cfg(), 20_000);
        h.ack_filter = Box::new(|now, p| {
            if now < SimTime(50 * sim_core::time::PS_PER_MS) && !p.flags.has(TcpFlags::SYN) {
                p.window = 0;
            }
            true
        });
        h.run(END);
        assert!(
            h.sender.stats().window_probes >= 2,
            "{:?}",
            h.sender.stats()
        );
        assert_eq!(h.receiver.bytes_received(), 20_000);
        assert_eq!(h.sender.state(), SenderState::Closed);
    }

    #[test]
    fn rwnd_limited_sender_does_not_grow_cwnd() {
        // A switch clamps every ACK's window to one MSS (HSCC, R-AQM): cwnd
        // must not grow behind the clamp, or it would burst when it lifts.
        let mut h = Harness::new(&cfg(), 300_000);
        let shift = wscale_for(cfg().receive_window.0);
        h.ack_filter = Box::new(move |_, p| {
            if !p.flags.has(TcpFlags::SYN) {
                p.window = 1460u64.div_ceil(1 << shift) as u16;
            }
            true
        });
        h.run(END);
        assert_eq!(h.receiver.bytes_received(), 300_000);
        // One growth only: the first ACK found the SYN-ACK's (unclamped) window.
        assert_eq!(h.sender.cwnd(), 11 * 1460, "cwnd grew while rwnd-limited");
        // Unclamped, the same transfer grows cwnd (slow start).
        let mut free = Harness::new(&cfg(), 300_000);
        free.run(END);
        assert!(free.sender.cwnd() > 10 * 1460);
    }

    #[test]
    fn the_shim_writes_the_window_scale_into_the_reserved_bits() {
        for (shim, want) in [
            (Some(true), wscale_for(6_000_000)),
            (Some(false), 0),
            (None, 0),
        ] {
            let c = TcpConfig {
                window_scale_shim: shim,
                ..cfg()
            };
            let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
            let log = seen.clone();
            let mut h = Harness::new(&c, 10_000);
            h.ack_filter = Box::new(move |_, p| {
                if !p.flags.has(TcpFlags::SYN) {
                    log.borrow_mut().push(p.reserved);
                }
                true
            });
            h.run(END);
            let seen = seen.borrow();
            assert!(!seen.is_empty());
            assert!(seen.iter().all(|&r| r == want), "shim {shim:?}: {seen:?}");
        }
    }

    #[test]
    fn window_below_one_mss_sends_small_segments() {
        // Every ACK's window says 500 bytes (scale applied by the sender).
        let mut h = Harness::new(&cfg(), 20_000);
        let shift = wscale_for(cfg().receive_window.0);
        h.ack_filter = Box::new(move |_, p| {
            if !p.flags.has(TcpFlags::SYN) {
                p.window = (500u64 >> shift).max(1) as u16;
            }
            true
        });
        h.run(END);
        assert_eq!(h.receiver.bytes_received(), 20_000);
        // The first flight (IW = 10 MSS) used the SYN-ACK's unscaled window;
        // afterwards each segment fits the sub-MSS window, one at a time.
        let sizes: Vec<u32> = h
            .data_packets
            .iter()
            .filter(|p| p.payload_bytes > 0)
            .map(|p| p.payload_bytes)
            .collect();
        assert!(sizes[..10].iter().all(|&s| s == 1460), "{sizes:?}");
        assert!(
            sizes.len() > 20 && sizes[10..].iter().all(|&s| s <= 512),
            "{sizes:?}"
        );
    }

    #[test]
    fn ecn_star_halves_once_per_window_and_sets_cwr() {
        let mut c = cfg();
        c.cc = CcKind::Ecn;
        c.initial_window_mss = 20;
        let mut h = Harness::new(&c, 200_000);
        // Mark a few consecutive segments in the first window.
        h.data_filter = Box::new(|_, p| {
            if p.payload_bytes > 0 {
                assert_eq!(p.ecn, Ecn::Ect0);
                let k = (p.seq - 1) / 1460;
                if (2..6).contains(&k) {
                    p.ecn = Ecn::Ce;
                }
            }
            true
        });
        h.run(END);
        assert_eq!(h.sender.stats().ecn_reductions, 1);
        assert!(
            h.data_packets
                .iter()
                .any(|p| p.flags.has(TcpFlags::CWR) && p.payload_bytes > 0)
        );
        assert_eq!(h.sender.stats().retransmits, 0);
    }

    #[test]
    fn newreno_ignores_ce_and_sends_not_ect() {
        let mut h = Harness::new(&cfg(), 20_000);
        h.run(END);
        assert!(h.data_packets.iter().all(|p| p.ecn == Ecn::NotEct));
        assert!(!h.data_packets[0].flags.has(TcpFlags::ECE));
    }

    #[test]
    fn dctcp_receiver_echoes_ce_exactly() {
        let mut c = cfg();
        c.cc = CcKind::Dctcp;
        let mut echoes = Vec::new();
        let mut h = Harness::new(&c, 100_000);
        let marked = [4u64, 5, 9];
        h.data_filter = Box::new(move |_, p| {
            if p.payload_bytes > 0 && marked.contains(&((p.seq - 1) / 1460)) {
                p.ecn = Ecn::Ce;
            }
            true
        });
        // Record which ACK numbers carry ECE.
        let echoes_ref = &mut echoes;
        h.ack_filter = Box::new(move |_, p| {
            if p.flags.has(TcpFlags::ECE) && !p.flags.has(TcpFlags::SYN) {
                echoes_ref.push((p.ack - 1) / 1460);
            }
            true
        });
        h.run(END);
        drop(h);
        // ACK after segment k acknowledges k+1 segments.
        assert_eq!(echoes, vec![5, 6, 10]);
    }

    #[test]
    fn dctcp_delayed_ack_sends_immediately_on_ce_change() {
        let mut c = cfg();
        c.cc = CcKind::Dctcp;
        c.delayed_ack = true;
        let mut acks = Vec::new();
        let mut h = Harness::new(&c, 14_600);
        h.data_filter = Box::new(|_, p| {
            if p.payload_bytes > 0 && (p.seq - 1) / 1460 == 2 {
                p.ecn = Ecn::Ce;
            }
            true
        });
        let acks_ref = &mut acks;
        h.ack_filter = Box::new(move |_, p| {
            if !p.flags.has(TcpFlags::SYN) && !p.flags.has(TcpFlags::FIN) {
                acks_ref.push(((p.ack - 1) / 1460, p.flags.has(TcpFlags::ECE)));
            }
            true
        });
        h.run(END);
        drop(h);
        // Segments 0,1 -> ACK 2; segment 2 (CE) -> alone: CE state changes back
        // at segment 3, so ACK 3 with ECE is sent before 3 is counted.
        assert_eq!(&acks[..3], &[(2, false), (3, true), (5, false)], "{acks:?}");
    }
}

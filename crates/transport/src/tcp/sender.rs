//! The sending half of a TCP flow: active open, data, loss recovery, FIN.
//!
//! Sequence space: the SYN takes sequence number 0, data bytes are 1..=size,
//! and the FIN takes size + 1. The FIN is sent once all data is acknowledged,
//! which is also when the flow counts as complete (its FCT ends).
//!
//! What it sends comes from RFC 6675's NextSeg over the [`Scoreboard`]: (1)
//! a segment deemed lost and not yet retransmitted, else (2) new data the
//! windows allow, else (3) in SACK recovery an unSACKed segment below the
//! highest SACK, else (4) once per recovery the highest unSACKed segment
//! (the rescue retransmission, which saves a flow whose last segment is
//! lost from the RTO), each while `pipe` < cwnd. Rules implemented, with sources:
//! - Loss detection: three SACKed segments above a hole (RFC 6675 IsLost),
//!   or three duplicate ACKs (RFC 5681 section 3.2). A duplicate ACK
//!   acknowledges nothing new, carries no data, no SYN/FIN, while data is
//!   outstanding; unlike RFC 5681 a window change does not disqualify it,
//!   because switch plugins rewrite windows. Without SACK, each duplicate
//!   ACK counts as one segment delivered (Linux's Reno emulation) and a
//!   partial ACK retransmits the next hole (RFC 6582 section 3.2).
//! - Limited transmit (RFC 3042): the first two duplicate ACKs each let one
//!   new segment go (they lower `pipe`).
//! - Window reductions: PRR (RFC 6937) brings cwnd down to ssthresh in
//!   proportion to delivered data, for losses and ECN alike (Linux's
//!   Recovery and CWR states); without PRR, cwnd drops to ssthresh at once.
//!   A recovery ends when the ACK passes the highest sequence sent when it
//!   began (`recover`), and no new one starts below it (RFC 6582).
//! - RACK-TLP (RFC 8985), with `rack_tlp`: a segment sent before one that
//!   was delivered is lost once out for RACK.rtt + min_rtt/4 (a reordering
//!   timer fires when the next would be); with nothing acknowledged for
//!   two SRTTs + `tlp_extra` in Open (or CWR), one probe goes out, new data if the peer's
//!   window allows, else the last segment again, so that a lost tail is
//!   seen by RACK rather than by the RTO.
//! - RTO per RFC 6298 (5.1)-(5.7): started when data leaves and none is
//!   outstanding, restarted on new ACKs, stopped when all is acknowledged,
//!   doubled on expiry up to `rto_max`. An expiry marks every unSACKed
//!   segment lost, so the sender retransmits from SND.UNA with a one-segment
//!   window and skips what was SACKed (RFC 6675 section 5.1); ssthresh is
//!   halved on the first expiry of an episode only (RFC 5681 section 3.1).
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

use super::config::TcpConfig;
use super::cwnd_limit::CwndLimit;
use super::prr::Prr;
use super::scoreboard::Scoreboard;
use super::wscale_for;
use crate::cc::{AckSample, CongestionControl, Controller, Signal, Window};
use crate::rtt::RttEstimator;
use crate::{Counters, FlowRecord, Side};
use crate::{Emit, FlowAddr};
use net::packet::WSCALE_NONE;
use net::{Ecn, Kind, Packet, TcpFlags};
use sim_core::time::earliest;
use sim_core::{SimDuration, SimTime};

/// RFC 5681's DupThresh, and RFC 6675's SACKed-segments threshold.
const DUP_THRESH: u32 = 3;

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

/// The congestion state (Linux's `tcp_ca_state`, without Disorder).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// No reduction under way.
    Open,
    /// An ECN window reduction under PRR (Linux's CWR state).
    Cwr,
    /// Fast recovery of a loss.
    Recovery,
    /// Retransmitting after an RTO.
    Loss,
}

/// What [`TcpSender::next_segment`] picked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pick {
    /// A segment sent before, again.
    Retransmit(u64, u64),
    /// New data.
    New(u64, u64),
    /// RFC 6675's rescue retransmission: the highest unSACKed segment,
    /// resent once per recovery without a loss verdict.
    Rescue(u64, u64),
}

/// The sending half of one flow.
#[derive(Clone, Debug)]
pub struct TcpSender {
    addr: FlowAddr,
    mss: u64,
    /// IP + TCP header bytes of a data segment (at most 100: a u16 keeps
    /// the sender within its size).
    header_bytes: u16,
    sack: bool,
    prr_on: bool,
    limited_transmit: bool,
    rack_tlp: bool,
    /// SACKed segments above a hole (and duplicate ACKs) that make it lost:
    /// RFC 6675's three, or `u32::MAX` with `dupthresh` off (RACK alone).
    dup_thresh: u32,
    /// RACK.reo_wnd_mult (`reo_wnd_mult`).
    reo_wnd_mult: u32,
    /// Whether cwnd limits the sender (`cwnd_validation`; `OFF` when off).
    cwnd_limit: CwndLimit,
    /// Extra wait of a probe when one segment is out and the peer delays ACKs.
    max_ack_delay: SimDuration,
    /// Added to every probe timeout (`tlp_extra`).
    tlp_extra: SimDuration,
    /// The smallest RTT measured (RACK's reordering window is a quarter).
    min_rtt: Option<SimDuration>,
    /// RACK's reordering timer.
    reo_at: Option<SimTime>,
    /// The tail-loss probe timer (PTO).
    tlp_at: Option<SimTime>,
    /// A probe is out (TLP allows one per episode, RFC 8985 7.2).
    tlp_out: bool,
    /// The rescue retransmission of this recovery was sent (RFC 6675 NextSeg (4)).
    rescued: bool,
    /// NextSeg's answer since the last change of state (`None`: not
    /// computed): the NIC asks `wants_transmit` and then `poll_transmit`
    /// with nothing in between, so the search runs once per segment.
    picked: Option<Option<Pick>>,
    use_ecn: bool,
    ect_on_retransmit: bool,
    our_wscale: u8,
    window_scaling: bool,
    /// FairQ's host shim (FairQ paper V-A): our window's scale exponent in the reserved bits.
    shim: bool,
    state: SenderState,
    /// One past the last data byte's sequence number.
    data_end: u64,
    snd_una: u64,
    /// One past the highest sequence number sent (HighData + 1).
    snd_nxt: u64,
    board: Scoreboard,
    win: Window,
    cc: Controller,
    peer_wnd: u64,
    peer_wscale: u8,
    dupacks: u32,
    /// The next lost segment goes whatever cwnd allows: the fast
    /// retransmit and each partial ACK's retransmission of NewReno without
    /// PRR (RFC 6582 3.2 steps 2 and 5; RFC 5681 3.2 step 2).
    force_retransmit: bool,
    phase: Phase,
    /// The recovery point of the current or last reduction (RFC 6582 `recover`).
    recover: u64,
    prr: Option<Prr>,
    ecn_ok: bool,
    cwr_pending: bool,
    ecn_recover: u64,
    rtt: RttEstimator,
    /// The last RTT sample not yet taken by [`TcpSender::take_rtt_sample`].
    rtt_sample: Option<SimDuration>,
    backoff: u32,
    rto_at: Option<SimTime>,
    persist_at: Option<SimTime>,
    completed_at: Option<SimTime>,
    /// What the per-packet path never reads, apart (the sender's hot state
    /// then spans fewer cache lines).
    cold: Box<Cold>,
    /// The latest timestamp (TSval) the receiver sent, which the sender's
    /// segments echo in TSecr (RFC 7323 4.3's TS.Recent; the model's
    /// receiver reads no TSecr from data, so it serves captures).
    ts_recent: SimTime,
}

/// A sender's rarely touched state.
#[derive(Clone, Debug)]
struct Cold {
    stats: Counters,
    started_at: Option<SimTime>,
    closed_at: Option<SimTime>,
    syn_header_bytes: u32,
    syn_timed_out: bool,
    persist_backoff: u32,
}

impl TcpSender {
    /// A sender of `size_bytes` bytes (`u64::MAX - 2` for an unbounded flow
    /// that an application stops with [`TcpSender::stop_app`]).
    pub fn new(addr: FlowAddr, size_bytes: u64, cfg: &TcpConfig) -> Self {
        assert!(size_bytes > 0, "a flow needs at least one byte of data");
        let mss = cfg.mss.0;
        let cc = cfg.controller();
        TcpSender {
            addr,
            mss,
            header_bytes: u16::try_from(cfg.data_header_bytes())
                .expect("TCP headers are at most 100 bytes"),

            sack: cfg.sack,
            prr_on: cfg.prr,
            limited_transmit: cfg.limited_transmit,
            cwnd_limit: CwndLimit::new(cfg.cwnd_validation),
            rack_tlp: cfg.rack_tlp(),
            dup_thresh: if cfg.dupthresh { DUP_THRESH } else { u32::MAX },
            reo_wnd_mult: cfg.reo_wnd_mult,
            tlp_extra: cfg.tlp_extra,
            max_ack_delay: if cfg.delayed_ack {
                cfg.delayed_ack_timeout
            } else {
                SimDuration::ZERO
            },
            min_rtt: None,
            reo_at: None,
            tlp_at: None,
            tlp_out: false,
            rescued: false,
            picked: None,
            use_ecn: cc.negotiates_ecn(),
            ect_on_retransmit: cc.ect_on_retransmit(),
            our_wscale: wscale_for(cfg.receive_window.0),
            window_scaling: cfg.window_scaling,
            shim: cfg.window_scale_shim == Some(true),
            state: SenderState::Idle,
            data_end: 1u64.saturating_add(size_bytes),
            snd_una: 0,
            snd_nxt: 0,
            board: Scoreboard::new(),
            win: Window::new(mss, cfg.initial_window_mss, cfg.min_cwnd_mss),
            cc,
            peer_wnd: 0,
            peer_wscale: 0,
            dupacks: 0,
            force_retransmit: false,
            phase: Phase::Open,
            recover: 0,
            prr: None,
            ecn_ok: false,
            cwr_pending: false,
            ecn_recover: 0,

            rtt: RttEstimator::new(cfg.rto_initial, cfg.rto_min, cfg.rto_max),
            rtt_sample: None,
            backoff: 0,
            rto_at: None,
            persist_at: None,

            completed_at: None,
            cold: Box::new(Cold {
                stats: Counters::default(),
                started_at: None,
                closed_at: None,
                syn_header_bytes: cfg.syn_header_bytes(),
                syn_timed_out: false,
                persist_backoff: 0,
            }),
            ts_recent: SimTime::ZERO,
        }
    }

    /// Opens the connection: sends the SYN.
    pub fn start(&mut self, now: SimTime, out: &mut impl Emit) {
        self.picked = None;
        assert_eq!(self.state, SenderState::Idle, "flow started twice");
        self.state = SenderState::SynSent;
        self.cold.started_at = Some(now);
        self.snd_nxt = 1;
        self.send_syn(now, out);
        self.rto_at = Some(now + self.rtt.backed_off(0));
    }

    /// The header of a segment after the SYN: with FairQ's host shim on,
    /// our window-scale exponent goes in the reserved bits (FairQ paper V-A).
    fn segment_header(&self, kind: Kind) -> Packet {
        let mut p = self.addr.header(Side::Sender, kind);
        p.size_bytes = u32::from(self.header_bytes);
        if self.shim {
            p.reserved = self.our_wscale;
        }
        p
    }

    fn send_syn(&self, now: SimTime, out: &mut impl Emit) {
        let mut p = self.addr.header(Side::Sender, Kind::Control);
        p.size_bytes = self.cold.syn_header_bytes;
        p.flags = TcpFlags::SYN;
        if self.use_ecn {
            // RFC 3168 6.1.1: an ECN-setup SYN carries ECE and CWR.
            p.flags = p.flags | TcpFlags::ECE | TcpFlags::CWR;
        }
        if self.window_scaling {
            p.wscale_option = self.our_wscale;
        } else {
            p.wscale_option = WSCALE_NONE;
        }
        p.ts_val = now;
        p.created_at = now;
        out.emit(p);
    }

    /// Ends the application's data at what has been sent so far (long flows
    /// stopped at their stop time); the flow then completes once that is acknowledged.
    pub fn stop_app(&mut self, now: SimTime, out: &mut impl Emit) {
        self.picked = None;
        let sent_end = self.snd_nxt.max(1);
        if sent_end < self.data_end {
            self.data_end = sent_end;
            self.maybe_complete(now, out);
        }
    }

    /// Whether [`TcpSender::poll_transmit`] would send a segment now.
    #[inline]
    pub fn wants_transmit(&mut self) -> bool {
        match self.picked {
            Some(pick) => pick.is_some(),
            None => {
                let pick = self.next_segment();
                self.picked = Some(pick);
                pick.is_some()
            }
        }
    }

    /// What the congestion window leaves room for: cwnd - pipe. Outside a
    /// reduction and without limited transmit, SACKed or duplicate-ACKed
    /// bytes do not open room (RFC 3042 off).
    #[inline]
    fn cwnd_room(&self) -> u64 {
        let flight = if self.phase == Phase::Open && !self.limited_transmit {
            self.board.outstanding()
        } else {
            self.board.pipe()
        };
        self.win.cwnd.saturating_sub(flight)
    }

    /// RFC 6675 NextSeg, under cwnd and the peer's window.
    fn next_segment(&mut self) -> Option<Pick> {
        if self.state != SenderState::Established {
            return None;
        }
        if self.force_retransmit
            && let Some((seq, len)) = self.board.next_lost()
        {
            return Some(Pick::Retransmit(seq, len as u64));
        }
        let room = self.cwnd_room();
        if room == 0 {
            return None;
        }
        // (1) A segment deemed lost.
        if let Some((seq, len)) = self.board.next_lost() {
            return (room >= len as u64).then_some(Pick::Retransmit(seq, len as u64));
        }
        // (2) New data, within the peer's window.
        if self.snd_nxt < self.data_end {
            let rwnd_room = (self.snd_una + self.peer_wnd).saturating_sub(self.snd_nxt);
            let seg = self.mss.min(self.data_end - self.snd_nxt);
            let usable = room.min(rwnd_room);
            if usable >= seg {
                return Some(Pick::New(self.snd_nxt, seg));
            }
            if usable > 0 && self.snd_nxt == self.snd_una {
                // Window below one segment and nothing in flight: send what fits.
                return Some(Pick::New(self.snd_nxt, usable));
            }
        }
        if self.sack && self.phase == Phase::Recovery {
            // (3) An unSACKed hole not yet deemed lost.
            if let Some((seq, len)) = self.board.next_unsacked_below_high_sack() {
                return (room >= len as u64).then_some(Pick::Retransmit(seq, len as u64));
            }
            // (4) The rescue retransmission.
            if !self.rescued && self.snd_una < self.recover {
                let (seq, len) = self.board.last_unsacked()?;
                return (room >= len as u64).then_some(Pick::Rescue(seq, len as u64));
            }
        }
        None
    }

    /// The next data segment to hand to the NIC, if the windows allow one.
    #[inline]
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        let pick = match self.picked.take() {
            Some(pick) => pick,
            None => self.next_segment(),
        };
        let (seq, len, retransmission) = match pick? {
            Pick::Retransmit(seq, len) => {
                self.force_retransmit = false;
                self.board.on_retransmit(seq, self.snd_nxt, now);
                self.cold.stats.retransmits += 1;
                if self.sack && self.phase == Phase::Recovery {
                    self.cold.stats.sack_recovered += 1;
                }
                (seq, len, true)
            }
            Pick::New(seq, len) => {
                self.board.on_send(seq, len as u32, now);
                self.snd_nxt = seq + len;
                (seq, len, false)
            }
            Pick::Rescue(seq, len) => {
                self.rescued = true;
                self.cold.stats.retransmits += 1;
                (seq, len, true)
            }
        };
        if let Some(prr) = &mut self.prr {
            prr.on_sent(len);
        }
        if self.cwnd_limit != CwndLimit::OFF {
            let full = self.cwnd_room() < self.mss;
            // Linux's packets_out: sent and not cumulatively acknowledged.
            let out = self.board.outstanding();
            self.cwnd_limit
                .on_sent(out, self.snd_una, self.snd_nxt, full);
        }
        let p = self.make_segment(now, seq, len, retransmission);
        if !retransmission {
            self.arm_tlp(now);
        }
        Some(p)
    }

    fn make_segment(&mut self, now: SimTime, seq: u64, len: u64, retransmission: bool) -> Packet {
        let mut p = self.segment_header(Kind::Data);
        p.seq = seq;
        p.ack = 1;
        p.payload_bytes = len as u32;
        p.size_bytes += len as u32;
        p.flags = TcpFlags::ACK;
        p.ts_val = now;
        p.ts_ecr = self.ts_recent;
        p.created_at = now;
        if self.ecn_ok && (!retransmission || self.ect_on_retransmit) {
            p.ecn = Ecn::Ect0;
        }
        if !retransmission && self.cwr_pending {
            p.flags = p.flags | TcpFlags::CWR;
            self.cwr_pending = false;
        }
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.backed_off(self.backoff)); // RFC 6298 (5.1)
        }
        p
    }

    /// Processes a packet from the receiver.
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet, out: &mut impl Emit) {
        self.picked = None;
        self.ts_recent = self.ts_recent.max(pkt.ts_val);
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
        if self.cold.syn_timed_out {
            // RFC 6298 (5.7): the initial window becomes one segment.
            self.win.cwnd = self.mss;
        }
        // The handshake's third packet is the first data segment, which
        // carries ACK (flows always have data: sizes are validated > 0).
    }

    fn send_final_ack(&self, now: SimTime, pkt: &Packet, out: &mut impl Emit) {
        let mut p = self.segment_header(Kind::Ack);
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
        if ack > self.snd_nxt && !fin_acked {
            return; // acknowledges something never sent
        }
        let cwnd_limited = self.win.cwnd < self.peer_wnd
            && self
                .cwnd_limit
                .limited(self.win.cwnd, self.win.in_slow_start());
        self.peer_wnd = (pkt.window as u64) << self.peer_wscale;
        if self.state == SenderState::FinSent {
            if fin_acked && pkt.flags.has(TcpFlags::FIN) {
                self.send_final_ack(now, pkt, out);
                self.state = SenderState::Closed;
                self.cold.closed_at = Some(now);
                self.rto_at = None;
                self.persist_at = None;
            }
            return;
        }
        if ack < self.snd_una {
            return; // an old ACK, reordered
        }
        let blocks = self
            .sack
            .then_some(pkt.sack.iter(ack))
            .into_iter()
            .flatten();
        let delivered = self.board.on_ack(now, ack, blocks);
        if delivered.bytes() > 0 {
            self.tlp_out = false; // the probe's episode is over (RFC 8985 7.4)
        }
        let acked = ack - self.snd_una;
        if acked > 0 {
            self.snd_una = ack;
            self.dupacks = 0;
            self.on_rtt_sample(now.since(pkt.ts_ecr));
            self.backoff = 0;
            if !self.sack {
                self.board.remove_reno_sacks(acked, self.mss);
            }
        } else if pkt.payload_bytes == 0 && self.board.outstanding() > 0 {
            self.dupacks += 1;
            if !self.sack {
                // Each duplicate ACK means a segment left the network
                // (Linux's tcp_add_reno_sack): the first three too, which
                // is RFC 5681's inflation of cwnd by three segments.
                self.board.add_reno_sack(self.mss);
            }
        }
        if self.sack {
            if self.dup_thresh != u32::MAX {
                self.board.mark_lost_by_sacks(self.dup_thresh);
            }
            self.board.mark_lost_retransmits();
        }
        self.rack_detect(now);
        let ece = self.ecn_ok && pkt.ecn_echo();
        if acked > 0 {
            let sample = AckSample {
                now,
                acked_bytes: acked,
                ece,
                snd_una: self.snd_una,
                snd_max: self.snd_nxt,
                in_recovery: matches!(self.phase, Phase::Recovery | Phase::Cwr),
                srtt: self.rtt.srtt(),
                rtt_sample: self.rtt_sample,
                cwnd_limited,
            };
            self.cc.on_ack(&mut self.win, &sample);
            // RFC 6298 (5.2)/(5.3).
            self.rto_at = (self.board.outstanding() > 0).then(|| now + self.rtt.rto());
        }
        let entered = self.update_phase(acked);
        if ece && self.phase == Phase::Open && self.snd_una > self.ecn_recover {
            self.reduce_for_ecn();
        }
        self.prr_step(delivered.bytes(), entered);
        if acked > 0 {
            self.arm_tlp(now);
        }
        self.maybe_complete(now, out);
        self.update_persist(now);
    }

    /// RFC 6937: cwnd = pipe + sndcnt; the ACK (or timer) that starts a
    /// recovery always lets the fast retransmit go (Linux's tcp_cwnd_reduction).
    fn prr_step(&mut self, delivered: u64, entered: bool) {
        if let Some(prr) = &mut self.prr {
            let pipe = self.board.pipe();
            let mut sndcnt = prr.sndcnt(delivered, pipe, self.win.ssthresh, self.mss);
            if entered {
                sndcnt = sndcnt.max(self.mss);
            }
            self.win.cwnd = pipe + sndcnt;
        }
    }

    /// RACK's detection (RFC 8985 6.2), with the reordering window
    /// min(reo_wnd_mult x min_RTT / 4, SRTT); re-arms the reordering timer.
    fn rack_detect(&mut self, now: SimTime) {
        if !self.rack_tlp {
            return;
        }
        let quarter = self.min_rtt.map_or(0, |r| r.ps() / 4);
        let wnd = quarter * self.reo_wnd_mult as u64;
        let srtt = self.rtt.srtt().map_or(u64::MAX, |s| s.ps());
        let reo_wnd = SimDuration::from_ps(wnd.min(srtt));
        self.reo_at = self.board.rack_detect(now, reo_wnd).1;
    }

    /// Arms the probe timeout (RFC 8985 7.2): PTO = 2 SRTT + `tlp_extra`
    /// (Linux's 2 ms), plus the peer's ACK delay when one segment is out,
    /// never past the RTO; only in Open or CWR, with data out and no probe out.
    #[inline]
    fn arm_tlp(&mut self, now: SimTime) {
        if !self.rack_tlp {
            return;
        }
        let eligible = matches!(self.phase, Phase::Open | Phase::Cwr)
            && !self.tlp_out
            && self.board.outstanding() > 0
            && self.state == SenderState::Established;
        // RFC 8985 7.2: PTO = 2 SRTT (+ the extras).
        self.tlp_at = match (eligible, self.rtt.srtt().map(|s| s + s)) {
            (true, Some(mut pto)) => {
                pto += self.tlp_extra;
                if self.board.outstanding() <= self.mss {
                    pto += self.max_ack_delay;
                }
                let at = now + pto;
                Some(self.rto_at.map_or(at, |rto| at.min(rto)))
            }
            _ => None,
        };
    }

    /// Ends a reduction the ACK completed, retransmits after a partial ACK
    /// without SACK, and enters fast recovery. Returns whether it entered.
    #[inline]
    fn update_phase(&mut self, acked: u64) -> bool {
        if self.phase == Phase::Open && self.dupacks < self.dup_thresh && self.board.lost() == 0 {
            return false; // the common ACK: nothing lost, nothing to end
        }
        self.update_phase_slow(acked)
    }

    fn update_phase_slow(&mut self, acked: u64) -> bool {
        if self.phase != Phase::Open && self.snd_una >= self.recover {
            match self.phase {
                Phase::Recovery | Phase::Cwr if self.prr.is_some() => {
                    self.win.cwnd = self.win.ssthresh; // RFC 6937: the reduction ends at ssthresh
                }
                Phase::Recovery => {
                    // RFC 6582 3.2 step 3, full ACK (option 1).
                    let flight = self.board.outstanding();
                    self.win.cwnd = self.win.ssthresh.min(flight.max(self.mss) + self.mss);
                }
                _ => {}
            }
            self.phase = Phase::Open;
            self.prr = None;
            self.board.reset_reno_sacks();
        } else if self.phase == Phase::Recovery && acked > 0 && !self.sack {
            self.board.mark_head_lost(); // RFC 6582 3.2 step 5, partial ACK
            self.force_retransmit = self.prr.is_none();
        }
        let lost = self.dupacks >= self.dup_thresh || (self.sack && self.board.lost() > 0);
        let may_enter =
            matches!(self.phase, Phase::Open | Phase::Cwr) && self.snd_una >= self.recover;
        if !(lost && may_enter && self.board.outstanding() > 0) {
            return false;
        }
        let flight = self.board.outstanding();
        if self.phase == Phase::Open {
            self.cc.on_congestion(&mut self.win, Signal::Loss, flight);
            if self.prr_on {
                self.prr = Some(Prr::start(flight));
            } else {
                self.win.cwnd = self.win.ssthresh; // RFC 6675 section 5 (4.2)
                self.force_retransmit = true; // RFC 6582 3.2 step 2
            }
        } // from CWR, the reduction under way continues (Linux's tcp_enter_recovery)
        self.phase = Phase::Recovery;
        self.rescued = false;
        self.recover = self.snd_nxt;
        self.ecn_recover = self.snd_nxt;
        self.board.mark_head_lost();
        self.cold.stats.fast_recoveries += 1;
        true
    }

    /// RFC 3168 6.1.2 / RFC 8257 3.3: one reduction per window of data,
    /// under PRR when it is on (Linux's CWR state).
    fn reduce_for_ecn(&mut self) {
        let flight = self.board.outstanding();
        let cwnd = self.win.cwnd;
        self.cc.on_congestion(&mut self.win, Signal::Ecn, flight);
        self.cwr_pending = true;
        self.ecn_recover = self.snd_nxt;
        self.cold.stats.ecn_reductions += 1;
        if self.prr_on {
            self.win.cwnd = cwnd;
            self.phase = Phase::Cwr;
            self.recover = self.snd_nxt;
            self.prr = Some(Prr::start(flight));
        }
    }

    fn maybe_complete(&mut self, now: SimTime, out: &mut impl Emit) {
        if self.state == SenderState::Established && self.snd_una >= self.data_end {
            self.completed_at = Some(now);
            self.state = SenderState::FinSent;
            self.board.release();
            self.prr = None;
            self.reo_at = None;
            self.tlp_at = None;
            self.send_fin(now, out);
            self.rto_at = Some(now + self.rtt.backed_off(self.backoff));
            self.persist_at = None;
        }
    }

    fn send_fin(&self, now: SimTime, out: &mut impl Emit) {
        let mut p = self.segment_header(Kind::Control);
        p.seq = self.data_end;
        p.ack = 1;
        p.flags = TcpFlags::FIN | TcpFlags::ACK;
        p.ts_val = now;
        p.ts_ecr = self.ts_recent;
        p.created_at = now;
        out.emit(p);
    }

    fn update_persist(&mut self, now: SimTime) {
        let stalled = self.state == SenderState::Established
            && self.snd_nxt == self.snd_una
            && self.snd_nxt < self.data_end
            && self.peer_wnd == 0;
        if !stalled {
            self.persist_at = None;
            self.cold.persist_backoff = 0;
        } else if self.persist_at.is_none() {
            self.persist_at = Some(now + self.rtt.backed_off(self.cold.persist_backoff));
        }
    }

    /// The earliest time [`TcpSender::on_timer`] must run.
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        earliest([self.rto_at, self.tlp_at, self.persist_at, self.reo_at])
    }

    /// Runs expired timers.
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl Emit) {
        self.picked = None;
        if self.reo_at.is_some_and(|t| t <= now) {
            self.reo_at = None;
            self.rack_detect(now);
            let entered = self.update_phase(0);
            self.prr_step(0, entered);
        }
        if self.tlp_at.is_some_and(|t| t <= now) {
            self.tlp_at = None;
            self.send_probe(now, out);
        }
        if self.persist_at.is_some_and(|t| t <= now) {
            self.persist_at = None;
            self.cold.persist_backoff += 1;
            self.cold.stats.window_probes += 1;
            // RFC 9293 3.8.6.1: probe the zero window with one byte of new data.
            let seq = self.snd_nxt;
            self.board.on_send(seq, 1, now);
            self.snd_nxt += 1;
            let probe = self.make_segment(now, seq, 1, false);
            out.emit(probe);
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            self.rto_at = None;
            self.cold.stats.timeouts += 1;
            // Expiries back to back (the backoff not yet reset by new
            // data acknowledged) are one episode of the flow.
            let first = self.backoff == 0;
            self.cold.stats.rto_episodes += first as u64;
            self.backoff += 1; // RFC 6298 (5.5)
            match self.state {
                SenderState::SynSent => {
                    self.cold.syn_timed_out = true;
                    self.cold.stats.syn_retransmits += 1;
                    self.send_syn(now, out);
                }
                SenderState::FinSent => {
                    self.cold.stats.fin_retransmits += 1;
                    self.send_fin(now, out);
                }
                SenderState::Established => self.enter_loss(first),
                SenderState::Idle | SenderState::Closed => return,
            }
            // RFC 6298 (5.6): restart the timer with the backed-off value.
            self.rto_at = Some(now + self.rtt.backed_off(self.backoff));
        }
    }

    /// RFC 8985 7.3: one segment beyond cwnd, new data if the peer's window
    /// allows it, else the highest segment not SACKed; the RTO is re-armed.
    fn send_probe(&mut self, now: SimTime, out: &mut impl Emit) {
        if self.state != SenderState::Established || self.board.outstanding() == 0 {
            return;
        }
        let rwnd_room = (self.snd_una + self.peer_wnd).saturating_sub(self.snd_nxt);
        let new = self.mss.min(self.data_end.saturating_sub(self.snd_nxt));
        let p = if new > 0 && rwnd_room >= new {
            let seq = self.snd_nxt;
            self.board.on_send(seq, new as u32, now);
            self.snd_nxt += new;
            self.make_segment(now, seq, new, false)
        } else {
            let Some((seq, len)) = self.board.last_unsacked() else {
                return;
            };
            // Resent as it is: a probe is not a loss verdict, so the
            // scoreboard keeps counting it once.
            self.cold.stats.retransmits += 1;
            self.make_segment(now, seq, len as u64, true)
        };
        self.tlp_out = true;
        self.cold.stats.tail_loss_probes += 1;
        self.rto_at = Some(now + self.rtt.backed_off(self.backoff));
        out.emit(p);
    }

    /// An RTO expired with data outstanding.
    fn enter_loss(&mut self, first: bool) {
        let ssthresh = self.win.ssthresh;
        let flight = self.board.outstanding();
        self.cc
            .on_congestion(&mut self.win, Signal::Timeout, flight);
        if !first {
            // RFC 5681 3.1: a segment retransmitted by the timer that times
            // out again leaves ssthresh as it is.
            self.win.ssthresh = ssthresh;
        }
        self.phase = Phase::Loss;
        self.prr = None;
        self.force_retransmit = false;
        self.recover = self.snd_nxt; // RFC 6582 3.2 step 4
        self.ecn_recover = self.snd_nxt;
        self.dupacks = 0;
        self.reo_at = None;
        self.tlp_at = None;
        self.tlp_out = false;
        self.board.mark_all_lost();
    }

    /// The connection state.
    pub fn state(&self) -> SenderState {
        self.state
    }
    /// The congestion state.
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// When the SYN was first sent.
    pub fn started_at(&self) -> Option<SimTime> {
        self.cold.started_at
    }
    /// When the last data byte was acknowledged (the flow's completion).
    pub fn completed_at(&self) -> Option<SimTime> {
        self.completed_at
    }
    /// When the connection closed (FIN-ACK received).
    pub fn closed_at(&self) -> Option<SimTime> {
        self.cold.closed_at
    }
    /// Data bytes acknowledged so far.
    pub fn bytes_acked(&self) -> u64 {
        self.snd_una.saturating_sub(1).min(self.data_end - 1)
    }
    /// The flow's data size (after any `stop_app`).
    pub fn size_bytes(&self) -> u64 {
        self.data_end - 1
    }
    /// The RTT sample the last packet gave (one per ACK of new data, and
    /// the SYN-ACK's), if any; taking it clears it.
    pub fn take_rtt_sample(&mut self) -> Option<SimDuration> {
        self.rtt_sample.take()
    }

    fn on_rtt_sample(&mut self, rtt: SimDuration) {
        self.rtt.on_sample(rtt);
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        self.rtt_sample = Some(rtt);
    }

    /// The window and the controller's state, by name (`cc_trace`).
    pub fn cc_state(&self, out: &mut crate::StateOut<'_>) {
        use crate::cc::CongestionControl as _;
        out("cwnd_bytes", self.win.cwnd as f64);
        if self.win.ssthresh != u64::MAX {
            out("ssthresh_bytes", self.win.ssthresh as f64);
        }
        self.cc.state(out);
    }

    /// Counters of what the sender did.
    pub fn stats(&self) -> Counters {
        self.cold.stats
    }
    /// The flow as the reports see it.
    pub fn record(&self) -> FlowRecord {
        FlowRecord {
            family: "tcp",
            started_at: self.cold.started_at,
            completed_at: self.completed_at,
            closed_at: self.cold.closed_at,
            bytes_acked: self.bytes_acked(),
            counters: self.cold.stats,
        }
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
#[path = "sender_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "newreno_tests.rs"]
mod newreno_tests;

//! The requester of a RoCE reliable connection: one message cut into
//! packets with PSNs, paced by the NIC at the flow's rate, recovered by
//! go-back-N (the HPCC ns-3 fork's `rdma-hw.cc`, as docs/models.md states).
//!
//! - The flow starts at line rate (RCC III-B, the HPCC fork) and sends one
//!   packet each `wire bytes / rate`: the next packet may leave that long
//!   after the previous one (the HPCC fork's `m_nextAvail`, which it also
//!   applies at line rate, so the NIC never holds more than a packet or two
//!   of the flow). The gap is always the current rate's: a rate change
//!   moves the pending departure too (the HPCC fork's `ChangeRate`), so a
//!   flow cut to its minimum rate and then recovering is not held to the
//!   long gap of its slowest moment.
//! - An ACK carries the next expected PSN; a NAK also rewinds `snd_nxt` to
//!   it: everything from the hole is sent again.
//! - A CNP goes to DCQCN's reaction point; every byte sent feeds its byte
//!   counter.
//! - Under RCC the window is the receiver's, from each ACK (RCC-sender:
//!   this end's detector and PID, fed with ACK round trips and the
//!   receiver's N), and the pacer runs at window / base RTT (the RCC paper leaves the pacing
//!   rate unstated; docs/models.md, RCC), at most line rate. Data packets carry the send time as the
//!   host's clock reads it (RCC-async: offset and jittered).
//! - Under TIMELY the pacer runs at TIMELY's rate, updated once per
//!   completion event with the RTT the ACK's echoed stamp gives.
//! - The retransmission timeout is off by default, as in the references
//!   (a lost tail is then never recovered; PFC makes losses violations).

use super::config::{DATA_HEADER_BYTES, RecoveryMode, RoceConfig, WindowMode};
use super::control::{AckView, FlowCtx, RoceController};
use super::dcqcn::Dcqcn;
use super::selective::Recovery;
use crate::{Counters, FlowRecord, PathInfo, Side};
use crate::{Emit, FlowAddr};
use net::{Ecn, INT_HEADER_BYTES, IntStack, Kind, Packet, Protocol, RoceBits, WireFormat};
use sim_core::time::earliest;
use sim_core::{SimDuration, SimTime};

/// The sending end of a RoCE flow.
// Laid out by hand, hot fields first: the per-packet path reads the PSNs,
// the pacer, the cached wake and DCQCN's state, which share the first
// cache lines this way; configuration and counters come last. Under a
// 64-to-1 incast the flows outgrow the L1 cache, and the default layout
// spread those fields over nine lines.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct RoceSender {
    /// The next PSN to send.
    snd_nxt: u64,
    /// The oldest unacknowledged PSN.
    snd_una: u64,
    /// Packets in the message.
    npkts: u64,
    mtu: u64,
    /// When the pacer lets the next packet go: `last_sent` at the current
    /// rate, recomputed whenever either changes.
    next_avail: SimTime,
    /// DCQCN's next timer while the flow runs (`SimTime::MAX` if none).
    timers_at: SimTime,
    /// The wake of the pacer and DCQCN's timers, recomputed after every
    /// change (`after_change`), since finding it may run the timers ahead.
    wake: Option<SimTime>,
    /// When the last packet left, and its wire bits (the pacer's gap is
    /// computed from them at the current rate).
    last_sent: Option<(SimTime, u64)>,
    completed_at: Option<SimTime>,
    rto_at: Option<SimTime>,
    /// One past the highest PSN ever sent (retransmissions are below it).
    high_sent: u64,
    /// `poll_transmit` found the pacer closed: the deadline wakes the flow.
    pace_wait: bool,
    started: bool,
    window: WindowMode,
    /// The congestion controller (DCQCN's state inline, the others boxed).
    cc: RoceController,
    addr: FlowAddr,
    size_bytes: u64,
    wire: WireFormat,
    rto: Option<SimDuration>,
    line_bps: f64,
    bdp_bytes: u64,
    started_at: Option<SimTime>,
    /// The notification point's spacing of CNPs, applied to reverse-path
    /// echoes ([`RoceBits::ECE`]).
    cnp_interval: SimDuration,
    /// When an echo last counted as a CNP.
    echo_cnp_at: Option<SimTime>,
    stats: Counters,
    /// Selective repeat's state (`None`: go-back-N).
    selective: Option<Box<Recovery>>,
}

impl RoceSender {
    /// A sender of `size_bytes` on `path`.
    pub fn new(addr: FlowAddr, size_bytes: u64, cfg: &RoceConfig, path: &PathInfo) -> Self {
        assert!(size_bytes > 0, "a message has at least one byte");
        let mtu = cfg.mtu_bytes as u64;
        let line_bps = path.line_rate.bps() as f64;
        RoceSender {
            addr,
            size_bytes,
            mtu,
            npkts: size_bytes.div_ceil(mtu),
            snd_una: 0,
            snd_nxt: 0,
            high_sent: 0,
            line_bps,
            wire: path.wire,
            window: cfg.window,
            bdp_bytes: path.bdp_bytes,
            cc: cfg.cc.build(&FlowCtx::new(cfg, path)),
            last_sent: None,
            next_avail: SimTime::ZERO,
            pace_wait: false,
            timers_at: SimTime::MAX,
            wake: None,
            rto: cfg.rto,
            rto_at: None,
            started: false,
            started_at: None,
            completed_at: None,
            cnp_interval: cfg.cnp_interval,
            echo_cnp_at: None,
            stats: Counters::default(),
            selective: (cfg.recovery == RecoveryMode::Selective).then(Box::default),
        }
    }

    /// Opens the flow: RC connections are set up beforehand, so data may go at once.
    pub fn start(&mut self, now: SimTime, _out: &mut impl Emit) {
        self.started = true;
        self.started_at = Some(now);
        self.after_change();
    }

    /// Ends the message at what has been sent so far (an unbounded flow's
    /// stop time): the Last bit is then never sent, and the flow completes
    /// once that is acknowledged.
    pub fn stop_app(&mut self, now: SimTime, _out: &mut impl Emit) {
        self.npkts = self.high_sent.max(self.snd_una);
        self.size_bytes = self.size_bytes.min(self.npkts * self.mtu);
        self.snd_nxt = self.snd_nxt.min(self.npkts);
        if self.snd_una >= self.npkts && self.completed_at.is_none() {
            self.completed_at = Some(now);
            self.rto_at = None;
        }
        self.after_change();
    }

    /// RoCE's requester takes no RTT samples (RCC's receiver measures delay).
    pub fn take_rtt_sample(&mut self) -> Option<SimDuration> {
        None
    }

    /// The rate the pacer applies, bits per second.
    pub fn rate_bps(&self) -> f64 {
        self.cc.rate_bps(self.line_bps)
    }

    /// The rate and window it applies and its controller's state, by
    /// name (`cc_trace`).
    pub fn cc_state(&self, out: &mut crate::StateOut<'_>) {
        out("rate_gbps", self.rate_bps() / 1e9);
        if let Some(w) = self.window_bytes() {
            out("window_bytes", w as f64);
        }
        self.cc.get().state(out);
    }

    /// The reaction point, if DCQCN runs.
    pub fn dcqcn(&self) -> Option<&Dcqcn> {
        match &self.cc {
            RoceController::Dcqcn(d) => Some(d),
            _ => None,
        }
    }

    fn payload_of(&self, psn: u64) -> u64 {
        if psn + 1 == self.npkts {
            self.size_bytes - psn * self.mtu
        } else {
            self.mtu
        }
    }

    /// Recomputes when the pacer opens: the last departure plus its wire
    /// bits at the current rate (after a send or any rate change).
    fn refresh_pacer(&mut self) {
        self.next_avail = self.pacer_opens_at(self.rate_bps());
    }

    /// When the pacer opens at `rate_bps`: the last departure plus its
    /// wire bits at that rate.
    #[inline]
    fn pacer_opens_at(&self, rate_bps: f64) -> SimTime {
        match self.last_sent {
            None => SimTime::ZERO,
            Some((at, bits)) => {
                // A rate is at least the reaction point's floor (or line
                // rate); the cap only guards the conversion.
                let gap_ps = (bits as f64 / rate_bps * 1e12).min(1e18);
                // The ceiling without a libm call (f64::ceil is one on the
                // baseline x86-64 target), converting through i64 (one
                // instruction each way, u64 takes a dozen): exact, as
                // 0 <= gap_ps <= 1e18 < 2^63.
                let whole = gap_ps as i64;
                let ceil = whole + i64::from((whole as f64) < gap_ps);
                at + SimDuration::from_ps(ceil as u64)
            }
        }
    }

    /// Runs DCQCN's timers due by `now`, each at its own time, as their
    /// events would have. Every entry point calls it first, so the timers
    /// need no events of their own while the flow sends (see `deadline`).
    #[inline]
    fn catch_up(&mut self, now: SimTime) -> bool {
        if now < self.timers_at {
            return false; // also with no timers, or the flow completed
        }
        while let Some(t) = self.cc.deadline().filter(|&t| t <= now) {
            self.cc.get_mut().on_timer(t);
        }
        self.refresh_pacer();
        true
    }

    /// Recomputes the cached timer and wake after any change of state.
    fn after_change(&mut self) {
        let timers = self.cc.deadline().filter(|_| self.completed_at.is_none());
        self.timers_at = timers.unwrap_or(SimTime::MAX);
        self.wake = match (self.pace_wait, timers) {
            (true, Some(t)) if t < self.next_avail => Some(
                self.cc
                    .get()
                    .wake_with_timers(t, &|rate| self.pacer_opens_at(rate)),
            ),
            (true, _) => Some(self.next_avail),
            (false, _) if self.sends_when_polled() => None,
            (false, t) => t,
        };
    }

    /// The in-flight cap in bytes, if any.
    fn window_bytes(&self) -> Option<u64> {
        if let Some(w) = self.cc.window_bytes() {
            return Some(w);
        }
        match self.window {
            WindowMode::None => None,
            WindowMode::Bdp => Some(self.bdp_bytes),
            WindowMode::BdpXRate => {
                let w = self.bdp_bytes as f64 * self.rate_bps() / self.line_bps;
                Some((w as u64).max(1))
            }
        }
    }

    /// Whether the window and the message leave a packet to send (the
    /// pacer aside: the NIC asks again when it has room or the pacer opens).
    #[inline]
    pub fn wants_transmit(&mut self) -> bool {
        self.sends_when_polled()
    }

    /// Whether the window, the message and the pacer leave a packet to
    /// send at `now`; a packet held back by the pacer arms its deadline.
    #[inline]
    pub fn wants_transmit_at(&mut self, now: SimTime) -> bool {
        let mut changed = self.catch_up(now);
        let wants = self.wants_transmit();
        let open = now >= self.next_avail;
        if wants && !open && !self.pace_wait {
            self.pace_wait = true;
            changed = true;
        }
        if changed {
            self.after_change();
        }
        wants && open
    }

    /// Whether selective repeat has a hole to resend.
    #[inline]
    fn resend_pending(&self) -> bool {
        self.selective
            .as_ref()
            .is_some_and(|r| r.pending(self.high_sent))
    }

    /// The next packet, if the window and the pacer allow one now.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        if !self.wants_transmit_at(now) {
            return None;
        }
        let high = self.high_sent;
        let resend = self.selective.as_mut().and_then(|r| r.next_resend(high));
        let psn = resend.unwrap_or(self.snd_nxt);
        let payload = self.payload_of(psn);
        let mut bits = RoceBits::default();
        if psn == 0 {
            bits = bits | RoceBits::FIRST;
        }
        if psn + 1 == self.npkts {
            bits = bits | RoceBits::LAST;
        }
        let mut p = self.addr.header(Side::Sender, Kind::Data);
        p.protocol = Protocol::Roce;
        p.seq = psn;
        p.payload_bytes = payload as u32;
        p.size_bytes = DATA_HEADER_BYTES + payload as u32;
        if self.cc.get().wants_int() {
            // The controller asks every switch for telemetry; the header
            // rides on the wire.
            bits = bits | RoceBits::INT;
            p.size_bytes += INT_HEADER_BYTES;
        }
        p.roce = bits;
        p.ecn = Ecn::Ect0;
        p.ts_val = self.cc.stamp(now);
        p.created_at = now;
        if resend.is_none() {
            self.snd_nxt += 1;
        }
        if psn < self.high_sent {
            self.stats.retransmits += 1;
        }
        self.high_sent = self.high_sent.max(self.snd_nxt);
        self.last_sent = Some((now, self.wire.wire_bytes(p.size_bytes) * 8));
        self.pace_wait = false;
        self.cc.on_sent(p.size_bytes as u64);
        self.refresh_pacer();
        if let (Some(rto), None) = (self.rto, self.rto_at) {
            self.rto_at = Some(now + rto);
        }
        self.after_change();
        Some(p)
    }

    /// An ACK, NAK or CNP from the responder.
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet, out: &mut impl Emit) {
        self.on_packet_int(now, pkt, &IntStack::EMPTY, out);
    }

    /// [`RoceSender::on_packet`] for a packet that carries the INT stack
    /// `int` (HPCC's ACKs; any other packet may pass an empty one).
    pub fn on_packet_int(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        int: &IntStack,
        _out: &mut impl Emit,
    ) {
        if pkt.protocol != Protocol::Roce {
            return;
        }
        // Behind a closed pacer the wake depends only on DCQCN's state and
        // the pacer: a plain ACK leaves it as it was (most ACKs, skipping
        // a recomputation that may run the timers ahead).
        let before = (self.next_avail, self.completed_at);
        let ran = self.catch_up(now);
        self.receive(now, pkt, int);
        if ran
            || !self.pace_wait
            || pkt.roce.has(RoceBits::CNP)
            || (self.next_avail, self.completed_at) != before
        {
            self.after_change();
        }
    }

    /// A congestion notification for the controller: a cut it applied is
    /// counted and re-times the pacer.
    fn take_cnp(&mut self, now: SimTime) {
        if self.cc.get_mut().on_cnp(now) {
            self.stats.ecn_reductions += 1;
            self.refresh_pacer();
        }
    }

    /// [`RoceSender::on_packet`]'s work, the controller's timers caught up.
    #[inline]
    fn receive(&mut self, now: SimTime, pkt: &Packet, int: &IntStack) {
        // A CNP packet, or an ACK carrying the CNP bit (Mellanox).
        if pkt.roce.has(RoceBits::CNP) {
            self.take_cnp(now);
        }
        // An ACK a switch marked in the reverse path (R-AQM VII) stands for
        // a CE mark on the data: a CNP at most once per `cnp_interval`, the
        // notification point's rule, so that a run of marked ACKs is one
        // congestion signal, not one per packet.
        if pkt.roce.has(RoceBits::ECE)
            && self
                .echo_cnp_at
                .is_none_or(|t| now >= t + self.cnp_interval)
        {
            self.echo_cnp_at = Some(now);
            self.take_cnp(now);
        }
        if pkt.kind != Kind::Ack {
            return;
        }
        let ack = pkt.ack.min(self.npkts);
        let view = AckView {
            now,
            pkt,
            ack,
            snd_nxt: self.snd_nxt,
            snd_una: self.snd_una,
            int,
        };
        if self.cc.on_ack(&view) {
            self.refresh_pacer();
        }
        if ack > self.snd_una {
            self.snd_una = ack;
            // After a go-back (RTO or NAK), ACKs of packets sent before it
            // may pass the rewound snd_nxt: nothing below them is resent.
            self.snd_nxt = self.snd_nxt.max(ack);
            self.rto_at = self
                .rto
                .filter(|_| self.snd_una < self.snd_nxt)
                .map(|r| now + r);
        }
        match self.selective.as_deref_mut() {
            Some(r) if pkt.roce.has(RoceBits::NAK) => {
                // IRN: the NACK names a PSN the responder holds (its SACK
                // block) or one a switch trimmed; only holes are resent.
                r.on_nack(ack, pkt.seq, !pkt.sack.is_empty());
                self.stats.fast_recoveries += 1;
            }
            Some(r) => r.on_ack(ack),
            None if pkt.roce.has(RoceBits::NAK) && ack < self.snd_nxt => {
                // Go-back-N from the hole (the HPCC fork's RecoverQueue).
                self.snd_nxt = self.snd_una;
                self.stats.fast_recoveries += 1;
            }
            None => {}
        }
        let view = AckView {
            snd_nxt: self.snd_nxt,
            snd_una: self.snd_una,
            ..view
        };
        if self.cc.after_ack(&view) {
            self.refresh_pacer();
        }
        if self.snd_una >= self.npkts && self.completed_at.is_none() {
            self.completed_at = Some(now);
            self.rto_at = None;
        }
    }

    /// The earliest of the pacer (while it holds a packet back), DCQCN's
    /// timers (while the flow runs) and the RTO. DCQCN's timers take no
    /// event of their own while the flow sends: behind a closed pacer they
    /// are run ahead to the moment the pacer opens (`wake_with_timers`),
    /// and a flow the NIC will poll catches them up then (`catch_up`).
    /// Only a flow that cannot send (its window full, its message all
    /// sent) wakes for them, since a raised rate may open its window.
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        earliest([self.wake, self.rto_at])
    }

    /// Whether a retransmission timeout is armed (it will resend when it
    /// fires): the flow is waiting, not stuck.
    pub fn retransmission_pending(&self) -> bool {
        self.rto_at.is_some()
    }

    /// Whether the NIC will poll this flow without a timer: it has a
    /// packet the window allows and its pacer is open.
    #[inline]
    fn sends_when_polled(&self) -> bool {
        if !self.started || self.completed_at.is_some() {
            return false;
        }
        if self.resend_pending() {
            return true; // a resend adds nothing to what is in flight
        }
        self.snd_nxt < self.npkts
            && self
                .window_bytes()
                .is_none_or(|w| (self.snd_nxt - self.snd_una) * self.mtu < w)
    }

    /// Runs what is due.
    pub fn on_timer(&mut self, now: SimTime, _out: &mut impl Emit) {
        self.catch_up(now);
        if self.pace_wait && self.next_avail <= now {
            self.pace_wait = false;
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            self.stats.timeouts += 1;
            match self.selective.as_deref_mut() {
                Some(r) => r.on_timeout(self.snd_una, self.high_sent),
                None => self.snd_nxt = self.snd_una,
            }
            self.rto_at = None;
        }
        self.after_change();
    }

    /// When the last packet was acknowledged.
    pub fn completed_at(&self) -> Option<SimTime> {
        self.completed_at
    }

    /// Data bytes acknowledged.
    pub fn bytes_acked(&self) -> u64 {
        (self.snd_una * self.mtu).min(self.size_bytes)
    }

    /// The message's size.
    pub fn size_bytes(&self) -> u64 {
        self.size_bytes
    }

    /// The flow's addressing.
    pub fn addr(&self) -> &FlowAddr {
        &self.addr
    }

    /// The next PSN to send, and the oldest unacknowledged.
    pub fn psns(&self) -> (u64, u64) {
        (self.snd_nxt, self.snd_una)
    }

    /// What the reports need.
    pub fn record(&self) -> FlowRecord {
        FlowRecord {
            family: "roce",
            started_at: self.started_at,
            completed_at: self.completed_at,
            closed_at: self.completed_at,
            bytes_acked: self.bytes_acked(),
            counters: self.stats,
        }
    }
}

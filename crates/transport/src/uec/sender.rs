//! The UEC sending end of one flow: packets by PSN, each with its own
//! entropy value, a window NSCC sets, SACK and NACK recovery, and a
//! timeout per packet (htsim `UecSrc` at 40ccb05, sender-based CC).

use super::config::UecConfig;
use super::nscc::{AckSignal, Nscc};
use super::sender_cc::Window;
use super::{CREDIT, CREDIT_QUANTUM, HEADER_BYTES, NACK};
use crate::psn_window::{PsnFlow, PsnWindow};
use crate::spray::{Entropies, PathFeedback};
use crate::{Emit, FlowAddr};
use crate::{PathInfo, Side};
use net::{Ecn, Kind, Packet, Protocol};
use sim_core::{SimDuration, SimTime};

/// The sender of one UEC flow.
#[derive(Clone, Debug)]
pub struct UecSender {
    flow: PsnFlow,
    mss: u64,
    /// A timeout since the last progress (RTO episodes).
    timed_out: bool,
    /// The window its controller sets (NSCC, DCTCP, constant, or none).
    window: Window,
    paths: Entropies,
    /// Receiver credit, when RCCC is on.
    credit: Option<Credit>,
}

/// A sender's receiver credit (UE 1.0 RCCC; htsim `UecSrc`'s `_credit`).
#[derive(Clone, Copy, Debug)]
struct Credit {
    /// Bytes it may still send (it may send while this is above zero).
    bytes: i64,
    /// Still on its first, speculative window (until the receiver is heard).
    speculating: bool,
    /// Credit granted so far, quanta (the receiver's counter).
    granted: u64,
    /// The most it holds, bytes (NSCC's ceiling).
    cap: i64,
    /// When it last asked for credit with an RTS.
    last_rts: Option<SimTime>,
    /// It has packets to send and no credit (it asks with RTSs).
    wants: bool,
    /// How long it waits before asking again (the transport's `rto`).
    rts_retry: SimDuration,
}

impl UecSender {
    /// A sender of `size_bytes` on `path` under `cfg` (prepared).
    pub fn new(addr: FlowAddr, size_bytes: u64, cfg: &UecConfig, path: &PathInfo) -> Self {
        let mss = cfg.mss_bytes as u64;
        let line = path.line_rate.bps() as f64 / 8e12;
        let window = PsnWindow::new(size_bytes, mss, HEADER_BYTES as u64, cfg.rto);
        let mut s = UecSender {
            flow: PsnFlow::new(addr, "uec", window),
            mss,
            timed_out: false,
            window: Window::new(
                cfg.sender_cc,
                Nscc::new(cfg, line, cfg.packet_bytes()),
                cfg.packet_bytes(),
            ),
            paths: Entropies::with_reps(
                cfg.spray,
                cfg.entropies,
                (cfg.reps_buffer, cfg.reps_freeze),
                path.stream_seed,
                addr.flow.0 as u64,
            ),
            credit: None,
        };
        if cfg.rccc {
            let cap = s.window.nscc.max_cwnd() as i64;
            s.credit = Some(Credit {
                bytes: cap,
                speculating: true,
                granted: 0,
                cap,
                last_rts: None,
                wants: false,
                rts_retry: cfg.rto,
            });
        }
        s
    }

    /// The flow's record: addressing, times, counters, sent packets.
    pub fn flow(&self) -> &PsnFlow {
        &self.flow
    }

    /// The flow's record, to take its RTT sample.
    pub fn flow_mut(&mut self) -> &mut PsnFlow {
        &mut self.flow
    }

    /// Starts the flow: its first window may go at once.
    pub fn start(&mut self, now: SimTime, _out: &mut impl Emit) {
        self.flow.start(now);
    }

    /// Ends an unbounded flow at what has been sent (its last packet goes
    /// again, with an ACK request, if it is still outstanding).
    pub fn stop_app(&mut self, now: SimTime, _out: &mut impl Emit) {
        self.flow.stop_app(now);
    }

    /// The PSN that would go next and whether it is a resend, if the
    /// window lets it.
    fn pick(&mut self) -> Option<(u64, bool)> {
        if !self.flow.running() {
            return None;
        }
        let (psn, again) = self.flow.window.next_to_send()?;
        let fits =
            self.flow.window.in_flight() + self.flow.window.bytes_of(psn) <= self.window.cwnd();
        let credited = self.credit.is_none_or(|c| c.bytes > 0);
        (fits && credited).then_some((psn, again))
    }

    /// Whether a packet may go now.
    pub fn wants_transmit(&mut self) -> bool {
        self.pick().is_some()
    }

    /// The next data packet: a resend first, then new data, within the window.
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        let (psn, again) = self.pick()?;
        let window = self.window.spray_bytes() / self.mss.max(1);
        let entropy = self.paths.next_value(self.flow.window.sent_new(), window);
        let bytes = self.flow.window.send(now, psn, again, entropy);
        if again {
            self.flow.stats.retransmits += 1;
        }
        let mut p = self.flow.addr.header(Side::Sender, Kind::Data);
        p.protocol = Protocol::Uec;
        p.ecn = Ecn::Ect0;
        p.seq = psn;
        p.ack = self.flow.window.size_bytes();
        p.payload_bytes = (bytes - HEADER_BYTES as u64) as u32;
        p.size_bytes = bytes as u32;
        p.entropy = entropy;
        p.ts_val = now;
        p.created_at = now;
        // An ACK request (htsim's AR): on a resend, on the last packet, and
        // when this packet fills the window.
        p.feedback.flag = again
            || psn + 1 == self.flow.window.packets()
            || self.flow.window.in_flight() + self.mss >= self.window.cwnd();
        if let Some(c) = self.credit.as_mut() {
            c.bytes -= bytes as i64;
            p.feedback.window_bytes = self.pull_target();
        }
        Some(p)
    }

    /// The cumulative credit it asks the receiver for, quanta (htsim's
    /// `computePullTarget`): what it has left to send, at most the first
    /// `max_cwnd` and, under a sender window, at most that window and a
    /// packet, beyond the credit in hand.
    fn pull_target(&self) -> u32 {
        let Some(c) = self.credit else { return 0 };
        let packet = (self.mss + HEADER_BYTES as u64) as i64;
        let mut wanted = (self.flow.window.backlog_bytes() as i64).min(c.cap);
        if self.window.limits() {
            wanted = wanted.min(self.window.cwnd() as i64 + packet);
        }
        let more = (wanted - c.bytes.max(0)).max(0) as u64;
        let target = c.granted + more.div_ceil(CREDIT_QUANTUM);
        u32::try_from(target).unwrap_or(u32::MAX)
    }

    /// A credit of the receiver's, or the first word from it (which ends
    /// the speculative window: unspent speculative credit is dropped).
    fn on_credit(&mut self, pkt: &Packet) {
        let Some(c) = self.credit.as_mut() else {
            return;
        };
        if c.speculating {
            c.speculating = false;
            c.bytes = c.bytes.min(0);
        }
        if pkt.feedback.count == CREDIT && pkt.ack > c.granted {
            c.bytes = (c.bytes + ((pkt.ack - c.granted) * CREDIT_QUANTUM) as i64).min(c.cap);
            c.granted = pkt.ack;
        }
    }

    /// An ACK, a NACK or a credit from the receiver.
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet, _out: &mut impl Emit) {
        if pkt.protocol != Protocol::Uec || pkt.kind != Kind::Ack || !self.flow.running() {
            return;
        }
        self.on_credit(pkt);
        if pkt.feedback.count == CREDIT {
            return;
        }
        let ecn = pkt.feedback.flag;
        if pkt.feedback.count == NACK {
            self.on_nack(now, pkt.seq, pkt.entropy);
        } else {
            let delay = if pkt.ts_ecr > SimTime::ZERO {
                let rtt = now.since(pkt.ts_ecr);
                self.flow.rtt_sample = Some(rtt);
                self.window.nscc.on_rtt(rtt, ecn)
            } else {
                self.window.nscc.avg_delay()
            };
            let acked_bytes = self.flow.window.ack(pkt.ack, pkt.sack.iter(pkt.ack))
                + self.flow.window.ack_one(pkt.seq);
            if acked_bytes > 0 {
                self.timed_out = false;
            }
            let signal = AckSignal {
                delay,
                ecn,
                acked_bytes,
            };
            self.window
                .on_ack(now, signal, self.flow.window.in_flight());
            let fb = if ecn {
                PathFeedback::Ecn
            } else {
                PathFeedback::Good
            };
            self.paths.feedback(now, pkt.entropy, fb);
        }
        self.flow.settle(now);
        self.ask_for_credit(now, _out);
    }

    /// Under RCCC, a sender with packets to send and no credit asks for
    /// credit with an RTS carrying its pull target, at most once per
    /// network RTT (htsim's `UecSrc::sendRTS`): a sender whose whole
    /// message went in the speculative window has no data packet left to
    /// carry the target when one of them is trimmed, and the receiver
    /// would never pull its resend.
    fn ask_for_credit(&mut self, now: SimTime, out: &mut impl Emit) {
        let Some(c) = self.credit else { return };
        let starved = !c.speculating && c.bytes <= 0 && self.flow.running();
        let wants = starved && self.flow.window.next_to_send().is_some();
        if let Some(c) = self.credit.as_mut() {
            c.wants = wants;
        }
        if !wants
            || c.last_rts
                .is_some_and(|t| now < t + self.window.nscc.base_rtt())
        {
            return;
        }
        let mut p = self.flow.addr.header(Side::Sender, Kind::Control);
        p.protocol = Protocol::Uec;
        p.size_bytes = HEADER_BYTES;
        p.ack = self.flow.window.size_bytes();
        p.feedback.window_bytes = self.pull_target();
        p.created_at = now;
        out.emit(p);
        self.flow.stats.window_probes += 1;
        if let Some(c) = self.credit.as_mut() {
            c.last_rts = Some(now);
        }
    }

    /// A NACK of `psn` (trimmed on the way): resend it.
    fn on_nack(&mut self, now: SimTime, psn: u64, entropy: u16) {
        let Some(lost) = self.flow.window.give_up(psn) else {
            return;
        };
        let rtt = now.since(lost.sent_at);
        if rtt < self.window.nscc.base_rtt() {
            // htsim lowers the base RTT on a NACK too (update_base_rtt_on_nack).
            self.window.nscc.on_rtt(rtt, true);
        }
        self.flow.stats.sack_recovered += 1;
        self.window
            .on_nack(now, lost.bytes, self.flow.window.in_flight());
        self.paths.feedback(now, entropy, PathFeedback::Nack);
    }

    /// The timeout: every packet outstanding for `rto` is given up and
    /// queued to resend (htsim's `rtxTimerExpired`, one packet a timer).
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn on_timer(&mut self, now: SimTime, _out: &mut impl Emit) {
        if !self.flow.running() {
            return;
        }
        while let Some(lost) = self.flow.window.expire(now) {
            self.flow.stats.timeouts += 1;
            if !self.timed_out {
                self.flow.stats.rto_episodes += 1;
                self.timed_out = true;
            }
            self.window.on_timeout(lost.bytes);
            self.paths
                .feedback(now, lost.entropy, PathFeedback::Timeout);
        }
        self.ask_for_credit(now, _out);
    }

    /// When the oldest outstanding packet times out, or (starved of
    /// credit) when it asks again should its RTS have been lost.
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        let retry = |c: Credit| c.rts_retry.max(self.window.nscc.base_rtt());
        let waiting =
            (self.credit.filter(|c| c.wants)).and_then(|c| c.last_rts.map(|t| t + retry(c)));
        match (self.flow.deadline(), waiting) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Bytes in flight (whole packets).
    pub fn in_flight(&self) -> u64 {
        self.flow.window.in_flight()
    }

    /// NSCC's state.
    pub fn nscc(&self) -> &Nscc {
        &self.window.nscc
    }

    /// Its state for `[output] cc_trace`.
    pub fn cc_state(&self, out: &mut crate::StateOut<'_>) {
        self.window.cc_state(out);
        out("in_flight_bytes", self.flow.window.in_flight() as f64);
        if let Some(c) = self.credit {
            out("credit_bytes", c.bytes as f64);
        }
    }
}

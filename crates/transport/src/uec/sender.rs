//! The UEC sending end of one flow: packets by PSN, each with its own
//! entropy value, a window NSCC sets, SACK and NACK recovery, and a
//! timeout per packet (htsim `UecSrc` at 40ccb05, sender-based CC).

use super::config::UecConfig;
use super::nscc::{AckSignal, Nscc};
use super::spray::{Entropies, PathFeedback};
use super::{HEADER_BYTES, NACK};
use crate::endpoint::{Counters, FlowRecord, PathInfo, Side};
use crate::{Emit, FlowAddr};
use net::{Ecn, Kind, Packet, Protocol};
use sim_core::{SimDuration, SimTime};
use std::collections::VecDeque;

/// Where a sent packet stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Sent, neither acknowledged nor given up.
    Outstanding,
    /// NACKed or timed out: waiting in the resend queue.
    Lost,
    /// Acknowledged (selectively, above the cumulative ACK).
    Acked,
}

/// A packet at or above the cumulative ACK.
#[derive(Clone, Copy, Debug)]
struct Sent {
    at: SimTime,
    entropy: u16,
    state: State,
}

/// The sender of one UEC flow.
#[derive(Clone, Debug)]
pub struct UecSender {
    addr: FlowAddr,
    size_bytes: u64,
    mss: u64,
    packets: u64,
    started_at: Option<SimTime>,
    completed_at: Option<SimTime>,
    stats: Counters,
    /// The next PSN never sent.
    next_psn: u64,
    /// Every PSN below it is acknowledged.
    cum: u64,
    /// PSNs `cum..next_psn`.
    sent: VecDeque<Sent>,
    /// PSNs to send again, oldest loss first (stale entries skipped).
    resend: VecDeque<u64>,
    /// Sends in time order, `(when, psn)`: the oldest still outstanding
    /// sets the timeout (stale entries skipped).
    sends: VecDeque<(SimTime, u64)>,
    in_flight: u64,
    rto: SimDuration,
    rto_at: Option<SimTime>,
    /// A timeout since the last progress (RTO episodes).
    timed_out: bool,
    nscc: Nscc,
    paths: Entropies,
    rtt_sample: Option<SimDuration>,
}

impl UecSender {
    /// A sender of `size_bytes` on `path` under `cfg` (prepared).
    pub fn new(addr: FlowAddr, size_bytes: u64, cfg: &UecConfig, path: &PathInfo) -> Self {
        assert!(size_bytes > 0, "a flow has at least one byte");
        let mss = cfg.mss_bytes as u64;
        let line = path.line_rate.bps() as f64 / 8e12;
        UecSender {
            addr,
            size_bytes,
            mss,
            packets: size_bytes.div_ceil(mss),
            started_at: None,
            completed_at: None,
            stats: Counters::default(),
            next_psn: 0,
            cum: 0,
            sent: VecDeque::new(),
            resend: VecDeque::new(),
            sends: VecDeque::new(),
            in_flight: 0,
            rto: cfg.rto,
            rto_at: None,
            timed_out: false,
            nscc: Nscc::new(cfg, line, cfg.packet_bytes()),
            paths: Entropies::new(cfg, path.stream_seed, addr.flow.0 as u64),
            rtt_sample: None,
        }
    }

    fn running(&self) -> bool {
        self.started_at.is_some() && self.completed_at.is_none()
    }

    /// IP bytes of packet `psn`.
    fn bytes_of(&self, psn: u64) -> u64 {
        let payload = (self.size_bytes - psn * self.mss).min(self.mss);
        payload + HEADER_BYTES as u64
    }

    fn slot(&mut self, psn: u64) -> Option<&mut Sent> {
        let i = psn.checked_sub(self.cum)?;
        self.sent.get_mut(usize::try_from(i).ok()?)
    }

    /// Starts the flow: its first window may go at once.
    pub fn start(&mut self, now: SimTime, _out: &mut impl Emit) {
        self.started_at = Some(now);
    }

    /// Ends an unbounded flow at what has been sent.
    pub fn stop_app(&mut self, now: SimTime, _out: &mut impl Emit) {
        if self.completed_at.is_some() {
            return;
        }
        self.packets = self.next_psn.max(1);
        self.size_bytes = self.packets * self.mss;
        if self.cum >= self.packets {
            self.completed_at = Some(now);
            return;
        }
        // The last packet went without an ACK request: send it again with one.
        let last = self.packets - 1;
        if let Some(s) = self.slot(last).filter(|s| s.state == State::Outstanding) {
            s.state = State::Lost;
            let b = self.bytes_of(last);
            self.in_flight -= b;
            self.resend.push_back(last);
        }
    }

    /// The next PSN to resend, stale entries dropped.
    fn next_resend(&mut self) -> Option<u64> {
        while let Some(&psn) = self.resend.front() {
            if self.slot(psn).is_some_and(|s| s.state == State::Lost) {
                return Some(psn);
            }
            self.resend.pop_front();
        }
        None
    }

    /// The PSN that would go next and whether it is a resend, if the
    /// window lets it.
    fn pick(&mut self) -> Option<(u64, bool)> {
        if !self.running() {
            return None;
        }
        let (psn, again) = match self.next_resend() {
            Some(p) => (p, true),
            None if self.next_psn < self.packets => (self.next_psn, false),
            None => return None,
        };
        (self.in_flight + self.bytes_of(psn) <= self.nscc.cwnd()).then_some((psn, again))
    }

    /// Whether a packet may go now.
    pub fn wants_transmit(&mut self) -> bool {
        self.pick().is_some()
    }

    /// The next data packet: a resend first, then new data, within the window.
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        let (psn, again) = self.pick()?;
        let bytes = self.bytes_of(psn);
        let entropy = self.paths.next_value();
        let record = Sent {
            at: now,
            entropy,
            state: State::Outstanding,
        };
        if again {
            self.resend.pop_front();
            self.stats.retransmits += 1;
            *self.slot(psn).expect("a resend is in the window") = record;
        } else {
            self.sent.push_back(record);
            self.next_psn += 1;
        }
        self.in_flight += bytes;
        self.sends.push_back((now, psn));
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rto);
        }
        let mut p = self.addr.header(Side::Sender, Kind::Data);
        p.protocol = Protocol::Uec;
        p.ecn = Ecn::Ect0;
        p.seq = psn;
        p.ack = self.size_bytes;
        p.payload_bytes = (bytes - HEADER_BYTES as u64) as u32;
        p.size_bytes = bytes as u32;
        p.entropy = entropy;
        p.ts_val = now;
        p.created_at = now;
        // An ACK request (htsim's AR): on a resend, on the last packet, and
        // when this packet fills the window.
        p.feedback.flag =
            again || psn + 1 == self.packets || self.in_flight + self.mss >= self.nscc.cwnd();
        Some(p)
    }

    /// Acknowledges `psn` selectively; returns the bytes newly acknowledged.
    fn ack_one(&mut self, psn: u64) -> u64 {
        let bytes = self.bytes_of(psn.min(self.packets.saturating_sub(1)));
        let Some(s) = self.slot(psn) else { return 0 };
        match s.state {
            State::Acked => 0,
            State::Lost => {
                s.state = State::Acked;
                bytes
            }
            State::Outstanding => {
                s.state = State::Acked;
                self.in_flight -= bytes;
                bytes
            }
        }
    }

    /// An ACK: everything below `cum`, the SACKed ranges and the PSN it
    /// answers; returns the bytes newly acknowledged.
    fn on_ack_psns(&mut self, pkt: &Packet) -> u64 {
        let mut bytes = 0;
        let upto = pkt.ack.min(self.next_psn);
        for psn in self.cum..upto {
            bytes += self.ack_one(psn);
        }
        for (start, end) in pkt.sack.iter(pkt.ack) {
            for psn in start..end.min(self.next_psn) {
                bytes += self.ack_one(psn);
            }
        }
        bytes += self.ack_one(pkt.seq);
        while self.sent.front().is_some_and(|s| s.state == State::Acked) {
            self.sent.pop_front();
            self.cum += 1;
        }
        bytes
    }

    /// An ACK or a NACK from the receiver.
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet, _out: &mut impl Emit) {
        if pkt.protocol != Protocol::Uec || pkt.kind != Kind::Ack || !self.running() {
            return;
        }
        let ecn = pkt.feedback.flag;
        if pkt.feedback.count == NACK {
            self.on_nack(now, pkt.seq, pkt.entropy);
        } else {
            let delay = if pkt.ts_ecr > SimTime::ZERO {
                let rtt = now.since(pkt.ts_ecr);
                self.rtt_sample = Some(rtt);
                self.nscc.on_rtt(rtt, ecn)
            } else {
                self.nscc.avg_delay()
            };
            let acked_bytes = self.on_ack_psns(pkt);
            if acked_bytes > 0 {
                self.timed_out = false;
            }
            let signal = AckSignal {
                delay,
                ecn,
                acked_bytes,
            };
            self.nscc.on_ack(now, signal, self.in_flight);
            let fb = if ecn {
                PathFeedback::Ecn
            } else {
                PathFeedback::Good
            };
            self.paths.feedback(now, pkt.entropy, fb);
            if self.cum >= self.packets {
                self.completed_at = Some(now);
            }
        }
        self.refresh_rto();
    }

    /// A NACK of `psn` (trimmed on the way): resend it.
    fn on_nack(&mut self, now: SimTime, psn: u64, entropy: u16) {
        let bytes = self.bytes_of(psn.min(self.packets.saturating_sub(1)));
        let Some(s) = self.slot(psn).filter(|s| s.state == State::Outstanding) else {
            return;
        };
        s.state = State::Lost;
        let rtt = now.since(s.at);
        if rtt < self.nscc.base_rtt() {
            // htsim lowers the base RTT on a NACK too (update_base_rtt_on_nack).
            self.nscc.on_rtt(rtt, true);
        }
        self.in_flight -= bytes;
        self.resend.push_back(psn);
        self.stats.sack_recovered += 1;
        self.nscc.on_nack(now, bytes, self.in_flight);
        self.paths.feedback(now, entropy, PathFeedback::Nack);
    }

    /// Sets the timeout from the oldest packet still outstanding.
    fn refresh_rto(&mut self) {
        while let Some(&(at, psn)) = self.sends.front() {
            let live = self
                .slot(psn)
                .is_some_and(|s| s.state == State::Outstanding && s.at == at);
            if live {
                self.rto_at = Some(at + self.rto);
                return;
            }
            self.sends.pop_front();
        }
        self.rto_at = None;
    }

    /// The timeout: every packet outstanding for `rto` is given up and
    /// queued to resend (htsim's `rtxTimerExpired`, one packet a timer).
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn on_timer(&mut self, now: SimTime, _out: &mut impl Emit) {
        if !self.running() {
            return;
        }
        while self.rto_at.is_some_and(|t| t <= now) {
            let (_, psn) = self.sends.pop_front().expect("a timeout has its packet");
            let bytes = self.bytes_of(psn);
            let s = self.slot(psn).expect("a live send is in the window");
            s.state = State::Lost;
            let entropy = s.entropy;
            self.in_flight -= bytes;
            self.resend.push_back(psn);
            self.stats.timeouts += 1;
            if !self.timed_out {
                self.stats.rto_episodes += 1;
                self.timed_out = true;
            }
            self.nscc.on_timeout(bytes);
            self.paths.feedback(now, entropy, PathFeedback::Timeout);
            self.refresh_rto();
        }
    }

    /// When the oldest outstanding packet times out.
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        if self.running() { self.rto_at } else { None }
    }

    /// The RTT sample the last ACK gave; taking it clears it.
    pub fn take_rtt_sample(&mut self) -> Option<SimDuration> {
        self.rtt_sample.take()
    }

    /// When the receiver acknowledged the last packet.
    pub fn completed_at(&self) -> Option<SimTime> {
        self.completed_at
    }

    /// Data bytes acknowledged cumulatively.
    pub fn bytes_acked(&self) -> u64 {
        if self.completed_at.is_some() {
            self.size_bytes
        } else {
            (self.cum * self.mss).min(self.size_bytes)
        }
    }

    /// The flow's size.
    pub fn size_bytes(&self) -> u64 {
        self.size_bytes
    }

    /// The flow's addressing.
    pub fn addr(&self) -> &FlowAddr {
        &self.addr
    }

    /// Bytes in flight (whole packets).
    pub fn in_flight(&self) -> u64 {
        self.in_flight
    }

    /// NSCC's state.
    pub fn nscc(&self) -> &Nscc {
        &self.nscc
    }

    /// What the reports need of the flow.
    pub fn record(&self) -> FlowRecord {
        FlowRecord {
            family: "uec",
            started_at: self.started_at,
            completed_at: self.completed_at,
            closed_at: self.completed_at,
            bytes_acked: self.bytes_acked(),
            counters: self.stats,
        }
    }

    /// Its state for `[output] cc_trace`.
    pub fn cc_state(&self, out: &mut crate::endpoint::StateOut<'_>) {
        self.nscc.cc_state(out);
        out("in_flight_bytes", self.in_flight as f64);
    }
}

//! NDP's sending end of one flow (NDP 3.2; htsim `NdpSrc`): a first
//! window at line rate, then one packet per PULL, NACKed packets first.

use super::config::NdpConfig;
use super::{HEADER_BYTES, NACK, PULL};
use crate::endpoint::{Counters, FlowRecord, PathInfo, Side};
use crate::psn_window::PsnWindow;
use crate::uec::Entropies;
use crate::{Emit, FlowAddr};
use net::{Kind, Packet, Protocol};
use sim_core::{SimDuration, SimTime};

/// The sender of one NDP flow.
#[derive(Clone, Debug)]
pub struct NdpSender {
    addr: FlowAddr,
    started_at: Option<SimTime>,
    completed_at: Option<SimTime>,
    stats: Counters,
    window: PsnWindow,
    /// Packets it may send now: the first window, then one per PULL (and
    /// one per timeout).
    credit: u64,
    /// The highest pull counter heard.
    pulls: u64,
    paths: Entropies,
    rtt_sample: Option<SimDuration>,
}

impl NdpSender {
    /// A sender of `size_bytes` on `path` under `cfg`.
    pub fn new(addr: FlowAddr, size_bytes: u64, cfg: &NdpConfig, path: &PathInfo) -> Self {
        NdpSender {
            addr,
            started_at: None,
            completed_at: None,
            stats: Counters::default(),
            window: PsnWindow::new(
                size_bytes,
                cfg.mss_bytes as u64,
                HEADER_BYTES as u64,
                cfg.rto,
            ),
            credit: match cfg.initial_window {
                Some(w) => w as u64,
                None => path.bdp_bytes.div_ceil(cfg.packet_bytes() as u64).max(1),
            },
            pulls: 0,
            paths: Entropies::of(
                cfg.spray,
                cfg.entropies,
                path.stream_seed,
                addr.flow.0 as u64,
            ),
            rtt_sample: None,
        }
    }

    fn running(&self) -> bool {
        self.started_at.is_some() && self.completed_at.is_none()
    }

    /// Starts the flow: its first window goes at once.
    pub fn start(&mut self, now: SimTime, _out: &mut impl Emit) {
        self.started_at = Some(now);
    }

    /// Ends an unbounded flow at what has been sent.
    pub fn stop_app(&mut self, now: SimTime, _out: &mut impl Emit) {
        if self.completed_at.is_none() && self.window.stop_at_sent() {
            self.completed_at = Some(now);
        }
    }

    /// Whether a packet may go now.
    pub fn wants_transmit(&mut self) -> bool {
        self.running() && self.credit > 0 && self.window.next_to_send().is_some()
    }

    /// The next data packet, a NACKed one first, if a PULL (or the first
    /// window) allows one.
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        if !self.running() || self.credit == 0 {
            return None;
        }
        let (psn, again) = self.window.next_to_send()?;
        let entropy = self.paths.next_value();
        let bytes = self.window.send(now, psn, again, entropy);
        self.credit -= 1;
        if again {
            self.stats.retransmits += 1;
        }
        let mut p = self.addr.header(Side::Sender, Kind::Data);
        p.protocol = Protocol::Ndp;
        p.seq = psn;
        p.ack = self.window.size_bytes();
        p.payload_bytes = (bytes - HEADER_BYTES as u64) as u32;
        p.size_bytes = bytes as u32;
        p.entropy = entropy;
        p.ts_val = now;
        p.created_at = now;
        Some(p)
    }

    /// An ACK, NACK or PULL from the receiver.
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet, _out: &mut impl Emit) {
        if pkt.protocol != Protocol::Ndp || pkt.kind != Kind::Ack || !self.running() {
            return;
        }
        match pkt.feedback.count {
            PULL => {
                self.credit += pkt.ack.saturating_sub(self.pulls);
                self.pulls = self.pulls.max(pkt.ack);
            }
            NACK => {
                if self.window.give_up(pkt.seq).is_some() {
                    self.stats.sack_recovered += 1;
                }
            }
            _ => {
                if pkt.ts_ecr > SimTime::ZERO {
                    self.rtt_sample = Some(now.since(pkt.ts_ecr));
                }
                self.window.ack(pkt.ack, std::iter::empty());
                self.window.ack_one(pkt.seq);
            }
        }
        self.window.settle();
        if self.window.all_acked() {
            self.completed_at = Some(now);
        }
    }

    /// The timeout: a packet unacknowledged for `rto` goes again at once.
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn on_timer(&mut self, now: SimTime, _out: &mut impl Emit) {
        if !self.running() {
            return;
        }
        let before = self.stats.timeouts;
        while self.window.expire(now).is_some() {
            self.stats.timeouts += 1;
            self.credit += 1;
        }
        if self.stats.timeouts > before {
            self.stats.rto_episodes += 1;
        }
    }

    /// When the oldest outstanding packet times out.
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        if self.running() {
            self.window.rto_at()
        } else {
            None
        }
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
            self.window.size_bytes()
        } else {
            self.window.bytes_acked()
        }
    }

    /// The flow's size.
    pub fn size_bytes(&self) -> u64 {
        self.window.size_bytes()
    }

    /// The flow's addressing.
    pub fn addr(&self) -> &FlowAddr {
        &self.addr
    }

    /// What the reports need of the flow.
    pub fn record(&self) -> FlowRecord {
        FlowRecord {
            family: "ndp",
            started_at: self.started_at,
            completed_at: self.completed_at,
            closed_at: self.completed_at,
            bytes_acked: self.bytes_acked(),
            counters: self.stats,
        }
    }

    /// Its state for `[output] cc_trace`.
    pub fn cc_state(&self, out: &mut crate::endpoint::StateOut<'_>) {
        out("credit_packets", self.credit as f64);
        out("in_flight_bytes", self.window.in_flight() as f64);
    }
}

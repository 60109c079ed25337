//! NDP's sending end of one flow (NDP 3.2; htsim `NdpSrc`): a first
//! window at line rate, then one packet per PULL, NACKed packets first.

use super::config::NdpConfig;
use super::{HEADER_BYTES, NACK, PULL};
use crate::psn_window::{PsnFlow, PsnWindow};
use crate::spray::Entropies;
use crate::{Emit, FlowAddr};
use crate::{PathInfo, Side};
use net::{Kind, Packet, Protocol};
use sim_core::SimTime;

/// The sender of one NDP flow.
#[derive(Clone, Debug)]
pub struct NdpSender {
    flow: PsnFlow,
    /// Packets it may send now: the first window, then one per PULL (and
    /// one per timeout).
    credit: u64,
    /// The highest pull counter heard.
    pulls: u64,
    paths: Entropies,
}

impl NdpSender {
    /// A sender of `size_bytes` on `path` under `cfg`.
    pub fn new(addr: FlowAddr, size_bytes: u64, cfg: &NdpConfig, path: &PathInfo) -> Self {
        let mss = cfg.mss_bytes as u64;
        let window = PsnWindow::new(size_bytes, mss, HEADER_BYTES as u64, cfg.rto);
        NdpSender {
            flow: PsnFlow::new(addr, "ndp", window),
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
        }
    }

    /// The flow's record: addressing, times, counters, sent packets.
    pub fn flow(&self) -> &PsnFlow {
        &self.flow
    }

    /// The flow's record, to take its RTT sample.
    pub fn flow_mut(&mut self) -> &mut PsnFlow {
        &mut self.flow
    }

    /// Starts the flow: its first window goes at once.
    pub fn start(&mut self, now: SimTime, _out: &mut impl Emit) {
        self.flow.start(now);
    }

    /// Ends an unbounded flow at what has been sent.
    pub fn stop_app(&mut self, now: SimTime, _out: &mut impl Emit) {
        self.flow.stop_app(now);
    }

    /// Whether a packet may go now.
    pub fn wants_transmit(&mut self) -> bool {
        self.flow.running() && self.credit > 0 && self.flow.window.next_to_send().is_some()
    }

    /// The next data packet, a NACKed one first, if a PULL (or the first
    /// window) allows one.
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        if !self.flow.running() || self.credit == 0 {
            return None;
        }
        let (psn, again) = self.flow.window.next_to_send()?;
        // NDP sprays obliviously or not at all: neither reads these.
        let entropy = self.paths.next_value(0, u64::MAX);
        let bytes = self.flow.window.send(now, psn, again, entropy);
        self.credit -= 1;
        if again {
            self.flow.stats.retransmits += 1;
        }
        let mut p = self.flow.addr.header(Side::Sender, Kind::Data);
        p.protocol = Protocol::Ndp;
        p.seq = psn;
        p.ack = self.flow.window.size_bytes();
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
        if pkt.protocol != Protocol::Ndp || pkt.kind != Kind::Ack || !self.flow.running() {
            return;
        }
        match pkt.feedback.count {
            PULL => {
                self.credit += pkt.ack.saturating_sub(self.pulls);
                self.pulls = self.pulls.max(pkt.ack);
            }
            NACK => {
                if self.flow.window.give_up(pkt.seq).is_some() {
                    self.flow.stats.sack_recovered += 1;
                }
            }
            _ => {
                if pkt.ts_ecr > SimTime::ZERO {
                    self.flow.rtt_sample = Some(now.since(pkt.ts_ecr));
                }
                self.flow.window.ack(pkt.ack, std::iter::empty());
                self.flow.window.ack_one(pkt.seq);
            }
        }
        self.flow.settle(now);
    }

    /// The timeout: a packet unacknowledged for `rto` goes again at once.
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn on_timer(&mut self, now: SimTime, _out: &mut impl Emit) {
        if !self.flow.running() {
            return;
        }
        let before = self.flow.stats.timeouts;
        while self.flow.window.expire(now).is_some() {
            self.flow.stats.timeouts += 1;
            self.credit += 1;
        }
        if self.flow.stats.timeouts > before {
            self.flow.stats.rto_episodes += 1;
        }
    }

    /// When the oldest outstanding packet times out.
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        self.flow.deadline()
    }

    /// Its state for `[output] cc_trace`.
    pub fn cc_state(&self, out: &mut crate::StateOut<'_>) {
        out("credit_packets", self.credit as f64);
        out("in_flight_bytes", self.flow.window.in_flight() as f64);
    }
}

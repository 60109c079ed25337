//! Which controller sets a UEC sender's window (htsim's `-sender_cc_algo`
//! and `-receiver_cc_only`, `uec.cpp` at 40ccb05), and the two simple
//! windows htsim offers beside NSCC: its DCTCP and a constant window.

use super::nscc::Nscc;
use sim_core::SimTime;

/// The sender's congestion controller (`sender_cc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderCc {
    /// NSCC, UE 1.0's network-signalled congestion control ([`Nscc`]).
    Nscc,
    /// htsim's `updateCwndOnAck_DCTCP`: one MTU per window of unmarked
    /// ACKs, a third of a marked ACK's bytes off at once (no alpha: "more
    /// aggressive than DCTCP, but much simpler"), a NACK's bytes off.
    Dctcp,
    /// htsim's `constant`: the window stays at `max_cwnd`, shrunk only by
    /// timeouts, which take a packet off any sender's window in htsim
    /// (`mark_packet_for_retransmission`), floored at one MTU.
    Constant,
    /// No sender window (htsim's `-receiver_cc_only`): receiver credit
    /// (`rccc = true`) alone paces the sender.
    None,
}

impl SenderCc {
    /// Every controller: `(controller, name, meaning)`, the one list the
    /// keys, errors and docs read.
    pub const ALL: [(SenderCc, &'static str, &'static str); 4] = [
        (
            SenderCc::Nscc,
            "nscc",
            "UE 1.0's NSCC: queueing delay against a target, and ECN marks",
        ),
        (
            SenderCc::Dctcp,
            "dctcp",
            "htsim's DCTCP: +1 MTU per window unmarked, a third of a marked ACK's bytes off",
        ),
        (
            SenderCc::Constant,
            "constant",
            "a window of max_cwnd that only timeouts shrink (htsim's constant)",
        ),
        (
            SenderCc::None,
            "none",
            "no sender window: receiver credit alone (needs rccc = true; htsim's -receiver_cc_only)",
        ),
    ];

    /// The controller's name in TOML and reports.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|r| r.0 == self).map_or("?", |r| r.1)
    }
}

/// A sender's window under its controller. NSCC is kept whatever the
/// controller: it tracks the base RTT (which sizes `max_cwnd` and RCCC's
/// RTS retries), as htsim's `UecSrc` does for every algorithm.
#[derive(Clone, Debug)]
pub(super) struct Window {
    cc: SenderCc,
    /// The window of [`SenderCc::Dctcp`] and [`SenderCc::Constant`], bytes
    /// (under [`SenderCc::None`] it sizes only the entropy choice's rounds).
    simple_bytes: f64,
    mtu_bytes: f64,
    pub(super) nscc: Nscc,
}

/// What an ACK tells the window.
pub(super) type AckSignal = super::nscc::AckSignal;

impl Window {
    /// The window of `cc`, starting (as htsim's `initNscc`) at `max_cwnd`.
    pub(super) fn new(cc: SenderCc, nscc: Nscc, mtu_bytes: u32) -> Self {
        Window {
            cc,
            simple_bytes: nscc.max_cwnd() as f64,
            mtu_bytes: mtu_bytes as f64,
            nscc,
        }
    }

    /// The window, bytes; `u64::MAX` when no sender window applies.
    pub(super) fn cwnd(&self) -> u64 {
        match self.cc {
            SenderCc::Nscc => self.nscc.cwnd(),
            SenderCc::Dctcp | SenderCc::Constant => self.simple_bytes as u64,
            SenderCc::None => u64::MAX,
        }
    }

    /// Whether a sender window gates sending.
    pub(super) fn limits(&self) -> bool {
        self.cc != SenderCc::None
    }

    /// An ACK; `in_flight` is the sender's bytes in flight after it.
    pub(super) fn on_ack(&mut self, now: SimTime, s: AckSignal, in_flight: u64) {
        match self.cc {
            SenderCc::Nscc => self.nscc.on_ack(now, s, in_flight),
            SenderCc::Dctcp => {
                let bytes = s.acked_bytes as f64;
                if s.ecn {
                    self.simple_bytes = (self.simple_bytes - bytes / 3.0).max(self.mtu_bytes);
                } else {
                    self.simple_bytes += bytes * self.mtu_bytes / self.simple_bytes;
                }
            }
            SenderCc::Constant | SenderCc::None => {}
        }
    }

    /// A NACK of `bytes` (a trimmed packet).
    pub(super) fn on_nack(&mut self, now: SimTime, bytes: u64, in_flight: u64) {
        match self.cc {
            SenderCc::Nscc => self.nscc.on_nack(now, bytes, in_flight),
            SenderCc::Dctcp => {
                self.simple_bytes = (self.simple_bytes - bytes as f64).max(self.mtu_bytes);
            }
            SenderCc::Constant | SenderCc::None => {}
        }
    }

    /// A timeout of a packet of `bytes`: htsim's
    /// `mark_packet_for_retransmission` takes it off every controller's
    /// window.
    pub(super) fn on_timeout(&mut self, bytes: u64) {
        match self.cc {
            SenderCc::Nscc => self.nscc.on_timeout(bytes),
            SenderCc::Dctcp | SenderCc::Constant | SenderCc::None => {
                self.simple_bytes = (self.simple_bytes - bytes as f64).max(self.mtu_bytes);
            }
        }
    }

    /// The window the entropy choice sizes its rounds by, bytes: htsim
    /// passes `_cwnd`, which without a sender controller stays at its
    /// start less the timeouts'.
    pub(super) fn spray_bytes(&self) -> u64 {
        match self.cc {
            SenderCc::Nscc => self.nscc.cwnd(),
            _ => self.simple_bytes as u64,
        }
    }

    /// Its state for `[output] cc_trace`.
    pub(super) fn cc_state(&self, out: &mut crate::StateOut<'_>) {
        match self.cc {
            SenderCc::Nscc => self.nscc.cc_state(out),
            SenderCc::Dctcp | SenderCc::Constant => {
                out("cwnd_bytes", self.simple_bytes);
                out("base_rtt_us", self.nscc.base_rtt().ps() as f64 / 1e6);
            }
            SenderCc::None => out("base_rtt_us", self.nscc.base_rtt().ps() as f64 / 1e6),
        }
    }
}

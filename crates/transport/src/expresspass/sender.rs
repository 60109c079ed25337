//! ExpressPass's sending end: one data packet per credit (section 3.1).

use super::config::ExpressPassConfig;
use super::{CONTROL_BYTES, DATA_HEADER_BYTES};
use crate::Side;
use crate::message::MessageSend;
use crate::{Emit, FlowAddr};
use net::{Kind, Packet, Protocol};
use sim_core::{SimDuration, SimTime};
use std::collections::VecDeque;

/// The sender of one ExpressPass flow.
#[derive(Clone, Debug)]
pub struct ExpressPassSender {
    msg: MessageSend,
    mss: u64,
    /// The next byte never sent.
    next: u64,
    /// Credits received and not yet spent: each one's number, and the
    /// receiver's first missing byte it carried.
    credits: VecDeque<(u64, u64)>,
    /// Where resending goes on once every byte went out once.
    resend_at: u64,
    /// When it last asked the receiver to stop its credits.
    stop_sent_at: Option<SimTime>,
    heard_at: SimTime,
    retransmit_timeout: SimDuration,
    /// Credits that arrived with nothing left to send.
    wasted_credits: u64,
    /// Whether any credit arrived (a request answered).
    answered: bool,
}

impl ExpressPassSender {
    /// A sender of `size_bytes` under `cfg`.
    pub fn new(addr: FlowAddr, size_bytes: u64, cfg: &ExpressPassConfig) -> Self {
        ExpressPassSender {
            msg: MessageSend::new(addr, size_bytes),
            mss: cfg.mss_bytes as u64,
            next: 0,
            credits: VecDeque::new(),
            resend_at: 0,
            stop_sent_at: None,
            heard_at: SimTime::ZERO,
            retransmit_timeout: cfg.retransmit_timeout,
            wasted_credits: 0,
            answered: false,
        }
    }

    fn control(&self, now: SimTime, stop: bool) -> Packet {
        let mut p = self.msg.addr.header(Side::Sender, Kind::Control);
        p.protocol = Protocol::ExpressPass;
        p.size_bytes = CONTROL_BYTES;
        p.ack = self.msg.size_bytes;
        p.feedback.flag = stop;
        p.created_at = now;
        p
    }

    /// Asks the receiver for credits.
    pub fn start(&mut self, now: SimTime, out: &mut impl Emit) {
        self.msg.started_at = Some(now);
        self.heard_at = now;
        out.emit(self.control(now, false));
    }

    /// Ends an unbounded flow at what has been sent.
    pub fn stop_app(&mut self, now: SimTime, out: &mut impl Emit) {
        if !self.msg.running() {
            return;
        }
        self.msg.size_bytes = self.next.max(1);
        if self.next >= self.msg.size_bytes && self.stop_sent_at.is_none() {
            self.stop_sent_at = Some(now);
            out.emit(self.control(now, true));
        }
    }

    /// Whether a credit waits to be spent.
    pub fn wants_transmit(&self) -> bool {
        self.msg.running() && !self.credits.is_empty()
    }

    /// A credit (spent on new data, or on data the receiver lacks once
    /// every byte went out) or the receiver's acknowledgment.
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet, out: &mut impl Emit) {
        if pkt.protocol != Protocol::ExpressPass || !self.msg.running() {
            return;
        }
        self.heard_at = now;
        match pkt.kind {
            Kind::Ack => {
                self.msg.completed_at = Some(now);
                self.credits.clear();
            }
            Kind::Credit => {
                self.answered = true;
                // Only a receiver recovering after a stop asks for resends
                // (a credit's report of the first missing byte otherwise
                // lags the data in flight).
                let missing = if pkt.feedback.flag {
                    pkt.ack.min(self.msg.size_bytes)
                } else {
                    self.msg.size_bytes
                };
                let queued = self.credits.len() as u64 * self.mss;
                if self.next + queued < self.msg.size_bytes || missing < self.msg.size_bytes {
                    self.credits.push_back((pkt.seq, missing));
                } else {
                    self.wasted_credits += 1;
                    // Credits still coming a timeout after the stop: the
                    // stop was lost, and the receiver, never stopped,
                    // would never ask for what it lacks. Stop it again
                    // (the paper leaves a lost CREDIT_STOP open).
                    if self
                        .stop_sent_at
                        .is_some_and(|t| now >= t + self.retransmit_timeout)
                    {
                        self.stop_sent_at = Some(now);
                        out.emit(self.control(now, true));
                    }
                }
                // The credits in hand cover the rest: no more are needed.
                let covered =
                    self.next + self.credits.len() as u64 * self.mss >= self.msg.size_bytes;
                if covered && self.stop_sent_at.is_none() {
                    self.stop_sent_at = Some(now);
                    out.emit(self.control(now, true));
                }
            }
            _ => {}
        }
    }

    /// The next data packet, spending one credit.
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        if !self.msg.running() {
            return None;
        }
        let (credit, missing) = self.credits.pop_front()?;
        let (seq, len) = if self.next < self.msg.size_bytes {
            let len = (self.msg.size_bytes - self.next).min(self.mss);
            self.next += len;
            (self.next - len, len)
        } else if missing < self.msg.size_bytes {
            // Every byte went out once: resend what the receiver lacks,
            // moving on from the last resend while its report lags.
            if self.resend_at < missing || self.resend_at >= self.msg.size_bytes {
                self.resend_at = missing;
            }
            let len = (self.msg.size_bytes - self.resend_at).min(self.mss);
            self.resend_at += len;
            self.msg.stats.retransmits += 1;
            (self.resend_at - len, len)
        } else {
            self.wasted_credits += 1;
            return None;
        };
        let mut p = self.msg.addr.header(Side::Sender, Kind::Data);
        p.protocol = Protocol::ExpressPass;
        p.seq = seq;
        p.ack = credit;
        p.payload_bytes = len as u32;
        p.size_bytes = DATA_HEADER_BYTES + len as u32;
        p.created_at = now;
        p.ts_val = now;
        Some(p)
    }

    /// When the sender asks again: `retransmit_timeout` of silence while
    /// its request is unanswered or its data all sent and unacknowledged
    /// (credits that come slowly while data remains are no silence).
    pub fn deadline(&self) -> Option<SimTime> {
        let waiting = !self.answered || self.next >= self.msg.size_bytes;
        (self.msg.running() && waiting).then(|| self.heard_at + self.retransmit_timeout)
    }

    /// Asks for credits again (a lost request, or a receiver that stopped).
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl Emit) {
        if self.deadline().is_none_or(|d| now < d) {
            return;
        }
        self.msg.stats.timeouts += 1;
        self.heard_at = now;
        out.emit(self.control(now, false));
    }

    /// The message's record (its length, times and counters).
    pub fn message(&self) -> &MessageSend {
        &self.msg
    }

    /// Credits that arrived with nothing to spend them on.
    pub fn wasted_credits(&self) -> u64 {
        self.wasted_credits
    }

    /// Its state for `[output] cc_trace`.
    pub fn cc_state(&self, out: &mut crate::StateOut<'_>) {
        out("credits_held", self.credits.len() as f64);
        out("sent_bytes", self.next as f64);
    }
}

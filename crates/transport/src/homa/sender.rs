//! Homa's sending end of one message (Homa sections 3.2-3.3, 3.7).

use super::CONTROL_BYTES;
use super::config::{HomaConfig, Priorities};
use crate::Side;
use crate::message::MessageSend;
use crate::{Emit, FlowAddr};
use net::{Kind, Packet, Protocol};
use sim_core::{SimDuration, SimTime};

/// The sender of one Homa message.
#[derive(Clone, Debug)]
pub struct HomaSender {
    msg: MessageSend,
    mss: u64,
    prio: Priorities,
    /// The level of the message's unscheduled packets.
    unscheduled_level: u8,
    /// The next byte never sent.
    next: u64,
    /// Bytes the sender may have sent: RTTbytes, then what grants allow.
    granted: u64,
    /// The level of scheduled packets, from the latest grant.
    scheduled_level: u8,
    /// Ranges to send again (RESENDs, the silence probe), oldest first.
    resend: Vec<(u64, u64)>,
    /// When the receiver was last heard from (or the message started).
    heard_at: SimTime,
    resend_timeout: SimDuration,
    /// A stopped unbounded message whose end the receiver must learn.
    announce_end: bool,
}

impl HomaSender {
    /// A sender of `size_bytes` under `cfg` (prepared: [`HomaConfig::prepare`]).
    pub fn new(addr: FlowAddr, size_bytes: u64, cfg: &HomaConfig) -> Self {
        let prio = cfg.prio;
        assert!(
            prio.rtt_bytes > 0,
            "HomaConfig::prepare sets RTTbytes before flows are built"
        );
        HomaSender {
            msg: MessageSend::new(addr, size_bytes),
            mss: cfg.mss_bytes as u64,
            prio,
            unscheduled_level: prio.unscheduled_level(size_bytes),
            next: 0,
            granted: size_bytes.min(prio.rtt_bytes),
            scheduled_level: prio.levels - 1,
            resend: Vec::new(),
            heard_at: SimTime::ZERO,
            resend_timeout: cfg.resend_timeout,
            announce_end: false,
        }
    }

    /// Starts the message: its unscheduled bytes may go at once.
    pub fn start(&mut self, now: SimTime, _out: &mut impl Emit) {
        self.msg.started_at = Some(now);
        self.heard_at = now;
    }

    /// Ends an unbounded message at what has been sent.
    pub fn stop_app(&mut self, _now: SimTime, _out: &mut impl Emit) {
        if self.msg.completed_at.is_some() {
            return;
        }
        self.msg.size_bytes = self.next.max(1);
        self.granted = self.granted.min(self.msg.size_bytes);
        // The receiver learns the length from the next DATA packet; if
        // nothing is left to send, an empty one tells it.
        self.announce_end = self.next >= self.msg.size_bytes;
    }

    /// Whether a packet may go now.
    pub fn wants_transmit(&self) -> bool {
        self.msg.running()
            && (!self.resend.is_empty() || self.next < self.granted || self.announce_end)
    }

    /// The sender's SRPT rank: bytes not yet sent (3.2: the NIC sends the
    /// message with the fewest bytes left first).
    pub fn srpt_rank(&self) -> u64 {
        self.msg.size_bytes - self.next.min(self.msg.size_bytes)
    }

    /// The next DATA packet: a range to resend first, then new bytes.
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        if !self.msg.running() {
            return None;
        }
        let (seq, len) = if let Some(r) = self.resend.first_mut() {
            let len = (r.1 - r.0).min(self.mss);
            let seq = r.0;
            r.0 += len;
            if r.0 >= r.1 {
                self.resend.remove(0);
            }
            self.msg.stats.retransmits += 1;
            (seq, len)
        } else if self.next < self.granted {
            let len = (self.granted - self.next).min(self.mss);
            let seq = self.next;
            self.next += len;
            (seq, len)
        } else if self.announce_end {
            self.announce_end = false;
            (self.msg.size_bytes, 0)
        } else {
            return None;
        };
        let level = if seq < self.prio.rtt_bytes {
            self.unscheduled_level
        } else {
            self.scheduled_level
        };
        let mut p = self.msg.addr.header(Side::Sender, Kind::Data);
        p.protocol = Protocol::Homa;
        p.priority = self.msg.addr.priority + level;
        p.seq = seq;
        p.ack = self.msg.size_bytes;
        p.payload_bytes = len as u32;
        p.size_bytes = super::DATA_HEADER_BYTES + len as u32;
        p.created_at = now;
        p.ts_val = now;
        Some(p)
    }

    /// A GRANT, RESEND or the receiver's acknowledgment.
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet, _out: &mut impl Emit) {
        if pkt.protocol != Protocol::Homa || !self.msg.running() {
            return;
        }
        self.heard_at = now;
        match pkt.kind {
            Kind::Ack => {
                self.msg.completed_at = Some(now);
                self.resend.clear();
            }
            Kind::Control => {
                self.granted = self.granted.max(pkt.ack.min(self.msg.size_bytes));
                self.scheduled_level = pkt.feedback.count as u8;
                if pkt.feedback.flag {
                    // RESEND: what is missing below what was sent.
                    let end = pkt.ack.min(self.next);
                    if pkt.seq < end && !self.resend.iter().any(|r| r.0 == pkt.seq) {
                        self.resend.push((pkt.seq, end));
                    }
                }
            }
            _ => {}
        }
    }

    /// When the silence probe is due: `resend_timeout` after the receiver
    /// was last heard from, while the message is open.
    pub fn deadline(&self) -> Option<SimTime> {
        self.msg
            .running()
            .then(|| self.heard_at + self.resend_timeout)
    }

    /// The silence probe: the first packet again, so that a receiver that
    /// lost all of a message's packets learns of it (or, if it has it
    /// all, acknowledges again).
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn on_timer(&mut self, now: SimTime, _out: &mut impl Emit) {
        if self.deadline().is_none_or(|d| now < d) {
            return;
        }
        self.msg.stats.timeouts += 1;
        self.heard_at = now;
        let first = self.msg.size_bytes.min(self.mss).min(self.next.max(1));
        if self.next > 0 && self.resend.is_empty() {
            self.resend.push((0, first));
        }
    }

    /// The message's record (its length, times and counters).
    pub fn message(&self) -> &MessageSend {
        &self.msg
    }

    /// The level of the message's unscheduled packets.
    pub fn unscheduled_level(&self) -> u8 {
        self.unscheduled_level
    }

    /// Its state for `[output] cc_trace`.
    pub fn cc_state(&self, out: &mut crate::StateOut<'_>) {
        out("granted_bytes", self.granted as f64);
        out("sent_bytes", self.next as f64);
        out("scheduled_level", self.scheduled_level as f64);
    }
}

/// A control packet (GRANT, RESEND, acknowledgment) from the receiver of
/// `addr`: Homa sends them at the highest level (3.4).
pub(super) fn control(addr: &FlowAddr, kind: Kind, now: SimTime) -> Packet {
    let mut p = addr.header(Side::Receiver, kind);
    p.protocol = Protocol::Homa;
    p.size_bytes = CONTROL_BYTES;
    p.created_at = now;
    p
}

//! Homa's receiving end: one message's reassembly, and the host's grant
//! scheduler over every message it receives (Homa sections 3.4-3.5, 3.7).

use super::config::{HomaConfig, Priorities};
use super::sender::control;
use crate::reassembly::Reassembly;
use crate::{Emit, FlowAddr};
use net::{Kind, Packet, Protocol};
use sim_core::{SimDuration, SimTime};

/// One inbound message as the host's scheduler sees it.
#[derive(Clone, Debug)]
struct RxMessage {
    addr: FlowAddr,
    size: u64,
    received: u64,
    granted: u64,
    level: u8,
}

/// The grant scheduler of one host (3.5): it grants to the `overcommitment`
/// messages with the fewest bytes left, at most one per sender, keeping
/// RTTbytes granted beyond what arrived, each at a scheduled level by rank.
#[derive(Clone, Debug, Default)]
pub struct RxScheduler {
    /// Open messages, in the order they arrived (ties go to the earlier).
    msgs: Vec<RxMessage>,
    /// Scratch: candidates of a scheduling pass (bytes left, index).
    ranked: Vec<(u64, usize)>,
}

impl RxScheduler {
    fn find(&self, flow: net::FlowId) -> Option<usize> {
        self.msgs.iter().position(|m| m.addr.flow == flow)
    }

    /// The offset granted to `flow`'s message so far, if it is open.
    pub fn granted(&self, flow: net::FlowId) -> Option<u64> {
        self.find(flow).map(|i| self.msgs[i].granted)
    }

    /// A scheduling pass: every message among the chosen whose grant lags
    /// gets a GRANT (a new offset or a new level).
    fn schedule(&mut self, prio: &Priorities, now: SimTime, out: &mut impl Emit) {
        self.ranked.clear();
        for (i, m) in self.msgs.iter().enumerate() {
            if m.granted < m.size {
                self.ranked.push((m.size - m.received, i));
            }
        }
        // Fewest bytes left first; ties to the earlier arrival.
        self.ranked.sort_unstable();
        // One message per sender: the shortest of each.
        let mut chosen = 0usize;
        let k = prio.overcommitment as usize;
        for r in 0..self.ranked.len() {
            let i = self.ranked[r].1;
            let src = self.msgs[i].addr.src;
            if self.ranked[..chosen]
                .iter()
                .any(|&(_, j)| self.msgs[j].addr.src == src)
            {
                continue;
            }
            self.ranked.swap(chosen, r);
            chosen += 1;
            if chosen == k {
                break;
            }
        }
        for rank in 0..chosen {
            let i = self.ranked[rank].1;
            let level = prio.scheduled_level(rank, chosen);
            let m = &mut self.msgs[i];
            let offset = (m.received + prio.rtt_bytes).min(m.size);
            if offset > m.granted || level != m.level {
                m.granted = m.granted.max(offset);
                m.level = level;
                let mut g = control(&m.addr, Kind::Control, now);
                g.ack = m.granted;
                g.feedback.count = level as u16;
                out.emit(g);
            }
        }
    }
}

/// The receiver of one Homa message.
#[derive(Clone, Debug)]
pub struct HomaReceiver {
    addr: FlowAddr,
    prio: Priorities,
    resend_timeout: SimDuration,
    /// The message's length once a packet told it (0 before).
    size: u64,
    /// What has arrived.
    bytes: Reassembly,
    /// When data last arrived (or a RESEND went).
    heard_at: SimTime,
    done: bool,
}

impl HomaReceiver {
    /// The receiver of `addr`'s message under `cfg` (prepared).
    pub fn new(addr: FlowAddr, cfg: &HomaConfig) -> Self {
        HomaReceiver {
            addr,
            prio: cfg.prio,
            resend_timeout: cfg.resend_timeout,
            size: 0,
            bytes: Reassembly::default(),
            heard_at: SimTime::ZERO,
            done: false,
        }
    }

    /// A DATA packet: reassemble, acknowledge a whole message, and let the
    /// host's scheduler grant.
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn on_packet(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        rx: &mut RxScheduler,
        out: &mut impl Emit,
    ) {
        if pkt.protocol != Protocol::Homa || pkt.kind != Kind::Data {
            return;
        }
        if self.done {
            // The acknowledgment was lost: the sender's probe asks again.
            out.emit(control(&self.addr, Kind::Ack, now));
            return;
        }
        self.heard_at = now;
        self.size = pkt.ack;
        let len = pkt.payload_bytes as u64;
        self.bytes.add(pkt.seq, pkt.seq + len);
        let idx = match rx.find(self.addr.flow) {
            Some(i) => i,
            None => {
                rx.msgs.push(RxMessage {
                    addr: self.addr,
                    size: self.size,
                    received: 0,
                    granted: self.size.min(self.prio.rtt_bytes),
                    level: u8::MAX,
                });
                rx.msgs.len() - 1
            }
        };
        let m = &mut rx.msgs[idx];
        m.size = self.size;
        m.received = self.bytes.received();
        m.granted = m.granted.min(m.size);
        if m.received >= self.size {
            self.done = true;
            rx.msgs.remove(idx);
            out.emit(control(&self.addr, Kind::Ack, now));
        }
        rx.schedule(&self.prio, now, out);
    }

    /// When a RESEND is due: `resend_timeout` of silence while the
    /// message is incomplete.
    pub fn deadline(&self) -> Option<SimTime> {
        (self.size > 0 && !self.done).then(|| self.heard_at + self.resend_timeout)
    }

    /// Asks the sender for the first missing range, up to what is granted
    /// (nothing when every granted byte arrived: the message is waiting
    /// for grants, not for lost packets).
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn on_timer(&mut self, now: SimTime, rx: &mut RxScheduler, out: &mut impl Emit) {
        if self.deadline().is_none_or(|d| now < d) {
            return;
        }
        self.heard_at = now;
        let Some(i) = rx.find(self.addr.flow) else {
            return;
        };
        let m = &rx.msgs[i];
        let end = self.bytes.hole_end().unwrap_or(m.granted).min(m.granted);
        if end <= self.bytes.in_order() {
            return; // nothing granted is missing: the message waits its turn
        }
        let mut p = control(&self.addr, Kind::Control, now);
        p.feedback.flag = true;
        p.feedback.count = m.level.min(self.prio.levels - 1) as u16;
        p.seq = self.bytes.in_order();
        p.ack = end;
        out.emit(p);
    }

    /// Data bytes received (distinct, in any order).
    pub fn bytes_received(&self) -> u64 {
        self.bytes.received()
    }
}

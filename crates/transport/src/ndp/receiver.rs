//! NDP's receiving end of one flow (NDP 3.2; htsim `NdpSink`): an ACK
//! for every data packet and a NACK for every header, at once, and a
//! PULL for each, paced by the host's [`PullPacer`].

use super::config::NdpConfig;
use super::{HEADER_BYTES, NACK, PULL, PullPacer};
use crate::psn_window::Arrivals;
use crate::{Emit, FlowAddr};
use crate::{PathInfo, Side};
use net::{Kind, Packet, Protocol};
use sim_core::{SimDuration, SimTime};
use std::collections::VecDeque;

/// The receiver of one NDP flow.
#[derive(Clone, Debug)]
pub struct NdpReceiver {
    addr: FlowAddr,
    mss: u64,
    /// The PSNs that arrived, and the message's length.
    arrived: Arrivals,
    /// The pull counter: PULLs sent.
    pulls: u64,
    /// The host pacer's slots this flow reserved, earliest first.
    slots: VecDeque<SimTime>,
    /// One full data packet's time at the host's line rate (over the pull rate).
    gap: SimDuration,
    naks_sent: u64,
}

impl NdpReceiver {
    /// The receiver of `addr` on `path` under `cfg`.
    pub fn new(addr: FlowAddr, cfg: &NdpConfig, path: &PathInfo) -> Self {
        let wire = path.wire.wire_bytes(cfg.packet_bytes());
        let gap = path.rx_line_rate.tx_time(wire).ps() as f64 / cfg.pull_rate;
        NdpReceiver {
            addr,
            mss: cfg.mss_bytes as u64,
            arrived: Arrivals::default(),
            pulls: 0,
            slots: VecDeque::new(),
            gap: SimDuration::from_ps_f64(gap),
            naks_sent: 0,
        }
    }

    /// A data packet or a trimmed header from the sender; `pacer` is the
    /// receiving host's.
    pub fn on_packet(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        pacer: &mut PullPacer,
        out: &mut impl Emit,
    ) {
        if pkt.protocol != Protocol::Ndp {
            return;
        }
        self.arrived.note_length(pkt.ack);
        let kind = match pkt.kind {
            Kind::Data => {
                if !self.arrived.has(pkt.seq) {
                    self.arrived.arrive(pkt.seq);
                }
                0
            }
            Kind::Trimmed if self.arrived.has(pkt.seq) => 0,
            Kind::Trimmed => {
                self.naks_sent += 1;
                NACK
            }
            _ => return,
        };
        out.emit(self.control(now, kind, pkt.seq, pkt.ts_val));
        if self.arrived.complete(self.mss) {
            // Nothing more to draw: the slots still reserved go unused.
            self.slots.clear();
        } else {
            self.slots.push_back(pacer.reserve(now, self.gap));
        }
    }

    fn control(&self, now: SimTime, kind: u16, seq: u64, echo: SimTime) -> Packet {
        let mut p = self.addr.header(Side::Receiver, Kind::Ack);
        p.protocol = Protocol::Ndp;
        p.size_bytes = HEADER_BYTES;
        p.feedback.count = kind;
        p.seq = seq;
        p.ack = if kind == PULL {
            self.pulls
        } else {
            self.arrived.expected()
        };
        p.ts_ecr = echo;
        p.created_at = now;
        p
    }

    /// Sends the PULLs whose slots have come.
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl Emit) {
        while self.slots.front().is_some_and(|&t| t <= now) {
            self.slots.pop_front();
            self.pulls += 1;
            out.emit(self.control(now, PULL, 0, SimTime::ZERO));
        }
    }

    /// The next reserved slot.
    pub fn deadline(&self) -> Option<SimTime> {
        self.slots.front().copied()
    }

    /// Data bytes received in order.
    pub fn bytes_received(&self) -> u64 {
        self.arrived.bytes_in_order(self.mss)
    }

    /// NACKs sent.
    pub fn naks_sent(&self) -> u64 {
        self.naks_sent
    }
}

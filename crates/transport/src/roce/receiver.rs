//! The responder of a RoCE reliable connection and DCQCN's notification
//! point (the HPCC fork's `rdma-hw.cc`; DCQCN's NP).
//!
//! - In-order packets advance the expected PSN and are acknowledged every
//!   `ack_interval` packets and at each message's last packet.
//! - A packet above the expected PSN is discarded (no out-of-order buffer)
//!   and answered by a NAK carrying the expected PSN, at most once per
//!   expected PSN per `nack_interval` (the HPCC fork's rule).
//! - A duplicate (below the expected PSN) is re-acknowledged, as IBTA
//!   responders do (the HPCC fork sends nothing; with its RTO off that never
//!   matters, and with an RTO a lost final ACK would otherwise never be
//!   repaired).
//! - Congestion notification and window assignment are the controller's
//!   receiver half ([`super::control::ReceiverControl`], built from its
//!   line in the controller list): DCQCN's notification point
//!   ([`super::dcqcn::NotificationPoint`]) asks for CNPs, RCC's receiver
//!   ([`super::rcc::RccReceiver`]) fills every reply's feedback.
//! - Message boundaries come from the First/Last bits: the number of
//!   messages in progress, per flow and across the host's NIC, is what
//!   RCC's receiver counts (N, RCC paper III-D); every RoCE data packet's
//!   wire bytes feed the host's B_R (III-C, [`super::host::HostRx`]).

use super::config::{ACK_BYTES, CNP_BYTES, RoceConfig};
use super::control::{FlowCtx, Notify, RoceReceiverControl};
use super::host::HostRx;
use crate::endpoint::{PathInfo, Side};
use crate::{Emit, FlowAddr};
use net::{INT_HEADER_BYTES, Kind, Packet, Protocol, RoceBits, WireFormat};
use sim_core::{SimDuration, SimTime};

/// The receiving end of a RoCE flow.
#[derive(Clone, Debug)]
pub struct RoceReceiver {
    addr: FlowAddr,
    ack_interval: u32,
    nack_interval: SimDuration,
    /// The controller's receiver half.
    control: RoceReceiverControl,
    ack_priority: Option<u8>,
    /// The next PSN expected.
    expected: u64,
    bytes_received: u64,
    /// In-order packets since the last ACK.
    unacked: u32,
    /// The last NAK: its PSN and when it was sent.
    last_nak: Option<(u64, SimTime)>,
    /// The next ACK carries the CNP bit (DCQCN's mellanox variant).
    flag_next_ack: bool,
    /// Messages begun and not yet ended (RCC's flow count).
    active_messages: u32,
    /// NAKs and CNPs sent (for tests and reports).
    naks_sent: u64,
    cnps_sent: u64,
    wire: WireFormat,
}

impl RoceReceiver {
    /// The responder of `addr`'s flow on `path`.
    pub fn new(addr: FlowAddr, cfg: &RoceConfig, path: &PathInfo) -> Self {
        RoceReceiver {
            addr,
            ack_interval: cfg.ack_interval,
            nack_interval: cfg.nack_interval,
            control: cfg.cc.build_receiver(&FlowCtx::new(cfg, path)),
            ack_priority: cfg.ack_priority,
            expected: 0,
            bytes_received: 0,
            unacked: 0,
            last_nak: None,
            flag_next_ack: false,
            active_messages: 0,
            naks_sent: 0,
            cnps_sent: 0,
            wire: path.wire,
        }
    }

    /// The state of the controller's receiver half, by name (`cc_trace`).
    pub fn cc_state(&self, out: &mut crate::endpoint::StateOut<'_>) {
        self.control.get().state(out);
    }

    /// The controller's receiver half.
    pub fn control(&self) -> &RoceReceiverControl {
        &self.control
    }

    fn reply(&mut self, kind: Kind, size: u32, mut bits: RoceBits) -> Packet {
        if kind == Kind::Ack && self.flag_next_ack {
            bits = bits | RoceBits::CNP;
            self.flag_next_ack = false;
            self.cnps_sent += 1;
        }
        let mut p = self.addr.header(Side::Receiver, kind);
        p.protocol = Protocol::Roce;
        p.size_bytes = size;
        p.roce = bits;
        p.ack = self.expected;
        if let Some(prio) = self.ack_priority {
            p.priority = prio;
        }
        p
    }

    fn send_cnp(&mut self, now: SimTime, out: &mut impl Emit) {
        let cnp = self.reply(Kind::Control, CNP_BYTES, RoceBits::CNP);
        out.emit(cnp);
        self.cnps_sent += 1;
        self.control.get_mut().on_cnp_sent(now);
    }

    /// A packet from the requester; `host` is this host's RoCE state.
    pub fn on_packet(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        host: &mut HostRx,
        out: &mut impl Emit,
    ) {
        if pkt.protocol != Protocol::Roce || pkt.kind != Kind::Data {
            return;
        }
        match self.control.get_mut().on_data(now, pkt, host) {
            Notify::Nothing => {}
            Notify::CnpNow => self.send_cnp(now, out),
            Notify::FlagNextAck => self.flag_next_ack = true,
        }
        host.on_bytes(now, self.wire.wire_bytes(pkt.size_bytes));
        let psn = pkt.seq;
        let in_order = psn == self.expected;
        let mut last = false;
        if in_order {
            self.expected += 1;
            self.bytes_received += pkt.payload_bytes as u64;
            self.unacked += 1;
            if pkt.roce.has(RoceBits::FIRST) {
                self.active_messages += 1;
                host.active_messages += 1;
            }
            last = pkt.roce.has(RoceBits::LAST);
            if last {
                self.active_messages = self.active_messages.saturating_sub(1);
                host.active_messages = host.active_messages.saturating_sub(1);
            }
        }
        let feedback = self.control.get_mut().feedback(now, pkt, host);
        let reply = if in_order {
            (self.unacked >= self.ack_interval || last).then(|| {
                self.unacked = 0;
                self.reply(Kind::Ack, ACK_BYTES, RoceBits::default())
            })
        } else if psn > self.expected {
            let fresh = match self.last_nak {
                Some((p, t)) => p != self.expected || now >= t + self.nack_interval,
                None => true,
            };
            fresh.then(|| {
                self.last_nak = Some((self.expected, now));
                self.naks_sent += 1;
                self.reply(Kind::Ack, ACK_BYTES, RoceBits::NAK)
            })
        } else {
            Some(self.reply(Kind::Ack, ACK_BYTES, RoceBits::default()))
        };
        if let Some(mut p) = reply {
            p.feedback = feedback;
            p.ts_ecr = pkt.ts_val;
            if pkt.roce.has(RoceBits::INT) {
                // HPCC: the ACK echoes the data packet's INT stack (the
                // world copies the records into the ACK's slot).
                p.roce = p.roce | RoceBits::INT;
                p.size_bytes += INT_HEADER_BYTES;
            }
            out.emit(p);
        }
    }

    /// The deferred CNP's time, if one is due.
    pub fn deadline(&self) -> Option<SimTime> {
        self.control.get().deadline()
    }

    /// Sends the deferred CNP.
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl Emit) {
        if self.control.get_mut().on_timer(now) {
            self.send_cnp(now, out);
        }
    }

    /// Payload bytes received in order.
    pub fn bytes_received(&self) -> u64 {
        self.bytes_received
    }

    /// Messages in progress (First seen, Last not yet).
    pub fn active_messages(&self) -> u32 {
        self.active_messages
    }

    /// NAKs sent.
    pub fn naks_sent(&self) -> u64 {
        self.naks_sent
    }

    /// CNPs sent (CNP packets, or ACKs carrying the CNP bit).
    pub fn cnps_sent(&self) -> u64 {
        self.cnps_sent
    }
}

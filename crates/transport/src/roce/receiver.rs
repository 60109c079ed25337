//! The responder of a RoCE reliable connection and DCQCN's notification
//! point (the HPCC fork's `rdma-hw.cc`; DCQCN's NP).
//!
//! - In-order packets advance the expected PSN and are acknowledged every
//!   `ack_interval` packets and at each message's last packet.
//! - A packet above the expected PSN is discarded (no out-of-order buffer)
//!   and answered by a NAK carrying the expected PSN, at most once per
//!   expected PSN per `nack_interval` (the HPCC fork's rule).
//! - Under selective repeat (`recovery = "selective"`, IRN) a packet
//!   above the expected PSN is kept instead and answered by a NACK that
//!   SACKs it, every time ([`super::selective`]); the expected PSN then
//!   jumps past what was kept.
//! - A trimmed header (a switch cut the packet, `Kind::Trimmed`) at or
//!   above the expected PSN is a loss reported at once: go-back-N NAKs
//!   the expected PSN (under the same spacing rule), selective repeat
//!   NACKs the header's PSN.
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

use super::config::{ACK_BYTES, CNP_BYTES, RecoveryMode, RoceConfig};
use super::control::{FlowCtx, Notify, RoceReceiverControl};
use super::host::HostRx;
use crate::psn_set::PsnSet;
use crate::{Emit, FlowAddr};
use crate::{PathInfo, Side};
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
    /// Selective repeat's out-of-order packets (`None`: go-back-N).
    held: Option<Box<Held>>,
}

/// What a selective-repeat responder keeps above the expected PSN.
#[derive(Clone, Debug, Default)]
struct Held {
    psns: PsnSet,
    /// Payload bytes of the kept packets.
    bytes: u64,
    /// The kept packet that ends the message, with its payload: the
    /// message ends when the expected PSN passes it.
    last: Option<(u64, u64)>,
    /// The payload of a full packet.
    mtu: u64,
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
            held: (cfg.recovery == RecoveryMode::Selective).then(|| {
                Box::new(Held {
                    mtu: cfg.mtu_bytes as u64,
                    ..Held::default()
                })
            }),
        }
    }

    /// The state of the controller's receiver half, by name (`cc_trace`).
    pub fn cc_state(&self, out: &mut crate::StateOut<'_>) {
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
        if pkt.protocol != Protocol::Roce {
            return;
        }
        if pkt.kind == Kind::Trimmed {
            return self.on_trimmed(now, pkt, host, out);
        }
        if pkt.kind != Kind::Data {
            return;
        }
        self.notify(now, pkt, host, out);
        host.on_bytes(now, self.wire.wire_bytes(pkt.size_bytes));
        let psn = pkt.seq;
        let in_order = psn == self.expected;
        let mut last = false;
        if in_order {
            last = self.take_in_order(pkt, host);
        }
        let feedback = self.control.get_mut().feedback(now, pkt, host);
        let reply = if in_order {
            (self.unacked >= self.ack_interval || last).then(|| {
                self.unacked = 0;
                self.reply(Kind::Ack, ACK_BYTES, RoceBits::default())
            })
        } else if psn > self.expected {
            self.out_of_order(now, pkt)
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

    /// The expected packet arrived: the expected PSN moves past it and,
    /// under selective repeat, past what was kept beyond it. Whether the
    /// message's last packet is now in.
    fn take_in_order(&mut self, pkt: &Packet, host: &mut HostRx) -> bool {
        self.expected += 1;
        self.bytes_received += pkt.payload_bytes as u64;
        self.unacked += 1;
        if pkt.roce.has(RoceBits::FIRST) {
            self.active_messages += 1;
            host.active_messages += 1;
        }
        let mut last = pkt.roce.has(RoceBits::LAST);
        if let Some(h) = self.held.as_deref_mut() {
            while h.psns.contains(self.expected) && h.bytes > 0 {
                let payload = match h.last {
                    Some((p, b)) if p == self.expected => {
                        last = true;
                        b
                    }
                    _ => h.mtu,
                };
                h.bytes -= payload;
                self.bytes_received += payload;
                self.expected += 1;
            }
            h.psns.advance(self.expected);
        }
        if last {
            self.active_messages = self.active_messages.saturating_sub(1);
            host.active_messages = host.active_messages.saturating_sub(1);
        }
        last
    }

    /// A packet above the expected PSN: go-back-N discards it and NAKs
    /// the hole (spaced); selective repeat keeps it and NACKs it.
    fn out_of_order(&mut self, now: SimTime, pkt: &Packet) -> Option<Packet> {
        let psn = pkt.seq;
        if let Some(h) = self.held.as_deref_mut() {
            if h.psns.contains(psn) {
                return Some(self.reply(Kind::Ack, ACK_BYTES, RoceBits::default()));
            }
            h.psns.insert(psn);
            h.bytes += pkt.payload_bytes as u64;
            if pkt.roce.has(RoceBits::LAST) {
                h.last = Some((psn, pkt.payload_bytes as u64));
            }
            return Some(self.nack(psn, true));
        }
        self.spaced_nak(now)
    }

    /// Go-back-N's NAK of the expected PSN, at most once per expected PSN
    /// per `nack_interval` (the HPCC fork's rule).
    fn spaced_nak(&mut self, now: SimTime) -> Option<Packet> {
        let fresh = match self.last_nak {
            Some((p, t)) => p != self.expected || now >= t + self.nack_interval,
            None => true,
        };
        fresh.then(|| {
            self.last_nak = Some((self.expected, now));
            self.naks_sent += 1;
            self.reply(Kind::Ack, ACK_BYTES, RoceBits::NAK)
        })
    }

    /// Selective repeat's NACK naming `psn`: held (a SACK block) or lost.
    fn nack(&mut self, psn: u64, held: bool) -> Packet {
        self.naks_sent += 1;
        let mut p = self.reply(Kind::Ack, ACK_BYTES, RoceBits::NAK);
        p.seq = psn;
        if held {
            p.sack.push(self.expected, psn, psn + 1);
        }
        p
    }

    /// The controller's receiver half sees a data packet or a header:
    /// a CNP now, or a flag on the next ACK.
    fn notify(&mut self, now: SimTime, pkt: &Packet, host: &mut HostRx, out: &mut impl Emit) {
        match self.control.get_mut().on_data(now, pkt, host) {
            Notify::Nothing => {}
            Notify::CnpNow => self.send_cnp(now, out),
            Notify::FlagNextAck => self.flag_next_ack = true,
        }
    }

    /// A trimmed header: the packet it names was lost on the way. Its CE
    /// mark reaches the notification point like a data packet's.
    fn on_trimmed(&mut self, now: SimTime, pkt: &Packet, host: &mut HostRx, out: &mut impl Emit) {
        self.notify(now, pkt, host, out);
        let psn = pkt.seq;
        let kept = self.held.as_ref().is_some_and(|h| h.psns.contains(psn));
        if psn < self.expected || kept {
            return; // a copy of it arrived whole
        }
        let reply = match self.held {
            Some(_) => Some(self.nack(psn, false)),
            None => self.spaced_nak(now),
        };
        if let Some(mut p) = reply {
            p.ts_ecr = pkt.ts_val;
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

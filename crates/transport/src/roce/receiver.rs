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
//! - The notification point follows the DCQCN variant (docs/models.md, DCQCN):
//!   - paper (htsim's `DCQCNSink`): on a CE-marked packet, a CNP at once if
//!     none went out in the last `cnp_interval`, else one when that
//!     interval ends; at most one per interval per flow;
//!   - ns3rdma: slotted, `cnp_interval` slots from the flow's first packet
//!     (which is checked at once); a CNP at the end of each slot in which a
//!     CE-marked packet arrived;
//!   - mellanox (the HPCC fork): no CNP packets; the next ACK or NAK after
//!     a CE-marked packet carries the CNP bit (the reaction point limits
//!     its cuts to one per decrease interval).
//! - Message boundaries come from the First/Last bits: the number of
//!   messages in progress, per flow and across the host's NIC, is what
//!   RCC's receiver counts (N, RCC paper III-D); every RoCE data packet's
//!   wire bytes feed the NIC's B_R (III-C).
//! - Under RCC every data packet is a delay sample for Algorithm 1
//!   ([`super::rcc`]), and every ACK or NAK carries the window it assigns
//!   (RCC-sender: N and whether the last hop is saturated) and echoes the
//!   packet's send stamp.

use super::config::{ACK_BYTES, CNP_BYTES, RoceCc, RoceConfig};
use super::dcqcn::Variant;
use super::rcc::{RccControl, RccVariant};
use crate::endpoint::{PathInfo, Side};
use crate::nic::NicState;
use crate::{Emit, FlowAddr};
use net::{Ecn, Feedback, INT_HEADER_BYTES, Kind, Packet, Protocol, RoceBits, WireFormat};
use sim_core::{Bandwidth, SimDuration, SimTime};

/// A receiver's RCC state (boxed: other flows do without it).
#[derive(Clone, Debug)]
struct RccRecv {
    variant: RccVariant,
    eta: f64,
    /// The detector and PID (unused by RCC-sender, whose sender runs them).
    control: RccControl,
    base_rtt: SimDuration,
    rx_rate: Bandwidth,
    /// This host's clock offset (RCC-async).
    clock_offset: SimDuration,
    registered: bool,
}

/// The receiving end of a RoCE flow.
#[derive(Clone, Debug)]
pub struct RoceReceiver {
    addr: FlowAddr,
    ack_interval: u32,
    nack_interval: SimDuration,
    cnp_interval: SimDuration,
    /// How congestion is notified (`None`: not at all, no DCQCN).
    np: Option<Variant>,
    ack_priority: Option<u8>,
    /// The next PSN expected.
    expected: u64,
    bytes_received: u64,
    /// In-order packets since the last ACK.
    unacked: u32,
    /// The last NAK: its PSN and when it was sent.
    last_nak: Option<(u64, SimTime)>,
    /// When the last CNP went out.
    last_cnp: Option<SimTime>,
    /// A CE-marked packet arrived since the last CNP.
    marked: bool,
    /// The deferred CNP's time.
    cnp_at: Option<SimTime>,
    /// ns3rdma: the first packet's arrival (its slots start there).
    slot_origin: Option<SimTime>,
    /// mellanox: the next ACK carries the CNP bit.
    flag_next_ack: bool,
    /// Messages begun and not yet ended (RCC's flow count).
    active_messages: u32,
    /// NAKs and CNPs sent (for tests and reports).
    naks_sent: u64,
    cnps_sent: u64,
    wire: WireFormat,
    rcc: Option<Box<RccRecv>>,
}

impl RoceReceiver {
    /// The responder of `addr`'s flow on `path`.
    pub fn new(addr: FlowAddr, cfg: &RoceConfig, path: &PathInfo) -> Self {
        RoceReceiver {
            addr,
            ack_interval: cfg.ack_interval,
            nack_interval: cfg.nack_interval,
            cnp_interval: cfg.cnp_interval,
            np: match cfg.cc {
                RoceCc::Dcqcn(d) => Some(d.variant),
                _ => None,
            },
            ack_priority: cfg.ack_priority,
            expected: 0,
            bytes_received: 0,
            unacked: 0,
            last_nak: None,
            last_cnp: None,
            marked: false,
            cnp_at: None,
            slot_origin: None,
            flag_next_ack: false,
            active_messages: 0,
            naks_sent: 0,
            cnps_sent: 0,
            wire: path.wire,
            rcc: match &cfg.cc {
                RoceCc::Rcc(c) => {
                    let packet = cfg.mtu_bytes as u64;
                    let line_bdp = path.bdp_bytes.max(packet);
                    Some(Box::new(RccRecv {
                        variant: c.variant,
                        eta: c.eta,
                        control: RccControl::new(*c, path.base_rtt, packet, line_bdp),
                        base_rtt: path.base_rtt,
                        rx_rate: path.rx_line_rate,
                        clock_offset: path.dst_clock_offset,
                        registered: false,
                    }))
                }
                _ => None,
            },
        }
    }

    /// Algorithm 1 on data packet `pkt` (after N was updated for it): what
    /// the next ACK or NAK tells the sender.
    fn rcc_feedback(&mut self, now: SimTime, pkt: &Packet, nic: &NicState) -> Feedback {
        let Some(r) = self.rcc.as_mut() else {
            return Feedback::default();
        };
        let flows = nic.active_messages.min(u16::MAX as u32) as u16;
        let last_hop = nic.saturated(r.eta);
        if r.variant == RccVariant::Sender {
            return Feedback {
                window_bytes: 0,
                count: flows,
                flag: last_hop,
            };
        }
        // The one-way delay, read on this host's clock (RCC paper III-C).
        let delay = (now + r.clock_offset).saturating_since(pkt.ts_val);
        let fair_share = nic.fair_share(r.base_rtt);
        let w = r.control.on_sample(now, delay, fair_share, last_hop);
        Feedback {
            window_bytes: w.min(u32::MAX as u64) as u32,
            count: flows,
            flag: last_hop,
        }
    }

    /// The state of RCC's controller of this flow, by name (`cc_trace`).
    pub fn cc_state(&self, out: &mut crate::endpoint::StateOut<'_>) {
        if let Some(c) = self.rcc_control() {
            c.state(out);
        }
    }

    /// RCC's controller of this flow (not RCC-sender's, which is at the sender).
    pub fn rcc_control(&self) -> Option<&RccControl> {
        self.rcc
            .as_ref()
            .filter(|r| r.variant != RccVariant::Sender)
            .map(|r| &r.control)
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
        self.last_cnp = Some(now);
        self.marked = false;
        self.cnp_at = None;
    }

    /// A CE-marked packet arrived at `now` (`first`: the flow's first packet).
    fn notify(&mut self, now: SimTime, first: bool, out: &mut impl Emit) {
        match self.np {
            None => {}
            Some(Variant::Paper) => match self.last_cnp {
                Some(t) if now < t + self.cnp_interval => {
                    self.marked = true;
                    self.cnp_at = Some(t + self.cnp_interval);
                }
                _ => self.send_cnp(now, out),
            },
            Some(Variant::Ns3Rdma) => {
                if first {
                    self.send_cnp(now, out);
                    return;
                }
                // The end of the slot this packet falls in.
                let origin = self.slot_origin.expect("set by the first packet");
                let slot = self.cnp_interval.ps();
                let k = now.since(origin).ps() / slot + 1;
                self.marked = true;
                self.cnp_at = Some(origin + SimDuration::from_ps(k * slot));
            }
            Some(Variant::Mellanox) => self.flag_next_ack = true,
        }
    }

    /// A packet from the requester; `nic` is this host's NIC state.
    pub fn on_packet(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        nic: &mut NicState,
        out: &mut impl Emit,
    ) {
        if pkt.protocol != Protocol::Roce || pkt.kind != Kind::Data {
            return;
        }
        if let Some(r) = self.rcc.as_mut()
            && !r.registered
        {
            r.registered = true;
            nic.register(r.rx_rate, r.base_rtt);
        }
        nic.on_bytes(now, self.wire.wire_bytes(pkt.size_bytes));
        let first = self.slot_origin.is_none();
        self.slot_origin.get_or_insert(now);
        if pkt.ecn == Ecn::Ce {
            self.notify(now, first, out);
        }
        let psn = pkt.seq;
        let in_order = psn == self.expected;
        let mut last = false;
        if in_order {
            self.expected += 1;
            self.bytes_received += pkt.payload_bytes as u64;
            self.unacked += 1;
            if pkt.roce.has(RoceBits::FIRST) {
                self.active_messages += 1;
                nic.active_messages += 1;
            }
            last = pkt.roce.has(RoceBits::LAST);
            if last {
                self.active_messages = self.active_messages.saturating_sub(1);
                nic.active_messages = nic.active_messages.saturating_sub(1);
            }
        }
        let feedback = self.rcc_feedback(now, pkt, nic);
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
        self.cnp_at
    }

    /// Sends the deferred CNP.
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl Emit) {
        if self.cnp_at.is_some_and(|t| t <= now) && self.marked {
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

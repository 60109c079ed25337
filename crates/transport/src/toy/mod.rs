//! A toy family, compiled only for tests: stop-and-wait over datagrams (one
//! packet in flight, each acknowledged cumulatively, resent after `rto`).
//! It exists to prove what a new family costs: this folder, its module
//! line in `lib.rs` and its row in the list of families (`families.rs`),
//! and nothing else in the crate. A real family adds its registry row and,
//! when it has its own wire format, a `net::Protocol` variant
//! (docs/extending.md).

use crate::ends::StateOut;
use crate::family::{Family, Transport};
use crate::record::{Counters, FlowRecord};
use crate::{Emit, FlowAddr, PathInfo, ReceiverEnd, SenderEnd, Side};
use net::{IntStack, Kind, Packet, Protocol};
use sim_core::{SimDuration, SimTime};

/// IP and UDP headers.
const HEADER_BYTES: u32 = 28;

/// The toy's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct ToyConfig {
    /// Payload bytes per packet.
    pub mss: u64,
    /// Silence after which the packet in flight goes again.
    pub rto: SimDuration,
}

impl Family for ToyConfig {
    fn name(&self) -> &'static str {
        "toy"
    }
    fn protocol(&self) -> Protocol {
        Protocol::Udp
    }
    fn mss(&self) -> u64 {
        self.mss
    }
    fn data_header_bytes(&self) -> u32 {
        HEADER_BYTES
    }
    fn ack_bytes(&self) -> u32 {
        HEADER_BYTES
    }
}

impl Transport for ToyConfig {
    type Sender = ToySender;
    type Receiver = ToyReceiver;
    const BUILT_AT_THE_WIRE: bool = false;
    const CONTROL_IS_HEADER: bool = false;

    fn sender(&self, addr: FlowAddr, size_bytes: u64, _path: &PathInfo) -> ToySender {
        ToySender {
            addr,
            size_bytes,
            mss: self.mss,
            rto: self.rto,
            sent: 0,
            acked: 0,
            started_at: None,
            completed_at: None,
            deadline: None,
            stats: Counters::default(),
        }
    }

    fn receiver(&self, addr: FlowAddr, _path: &PathInfo) -> ToyReceiver {
        ToyReceiver { addr, expected: 0 }
    }
}

/// The toy's sending end.
#[derive(Clone, Debug)]
pub struct ToySender {
    addr: FlowAddr,
    size_bytes: u64,
    mss: u64,
    rto: SimDuration,
    /// One past the last byte sent.
    sent: u64,
    /// Bytes acknowledged.
    acked: u64,
    started_at: Option<SimTime>,
    completed_at: Option<SimTime>,
    deadline: Option<SimTime>,
    stats: Counters,
}

impl SenderEnd for ToySender {
    fn start(&mut self, now: SimTime, _out: &mut impl Emit) {
        self.started_at = Some(now);
    }
    fn stop_app(&mut self, _now: SimTime, _out: &mut impl Emit) {
        self.size_bytes = self.sent.max(1);
    }
    fn on_packet(&mut self, now: SimTime, pkt: &Packet, _int: &IntStack, _out: &mut impl Emit) {
        if pkt.kind != Kind::Ack || pkt.ack <= self.acked {
            return;
        }
        self.acked = pkt.ack.min(self.sent);
        self.deadline = None;
        if self.acked == self.size_bytes {
            self.completed_at = Some(now);
        }
    }
    fn on_timer(&mut self, now: SimTime, _out: &mut impl Emit) {
        if self.deadline.is_some_and(|d| d <= now) {
            self.deadline = None;
            self.sent = self.acked;
            self.stats.timeouts += 1;
            self.stats.retransmits += 1;
        }
    }
    fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }
    fn wants_transmit(&mut self, _now: SimTime) -> bool {
        self.started_at.is_some() && self.sent == self.acked && self.sent < self.size_bytes
    }
    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        if !self.wants_transmit(now) {
            return None;
        }
        let len = self.mss.min(self.size_bytes - self.sent);
        let mut p = self.addr.header(Side::Sender, Kind::Data);
        p.protocol = Protocol::Udp;
        p.seq = self.sent;
        p.payload_bytes = len as u32;
        p.size_bytes = HEADER_BYTES + len as u32;
        self.sent += len;
        self.deadline = Some(now + self.rto);
        Some(p)
    }
    fn completed_at(&self) -> Option<SimTime> {
        self.completed_at
    }
    fn bytes_acked(&self) -> u64 {
        self.acked
    }
    fn size_bytes(&self) -> u64 {
        self.size_bytes
    }
    fn addr(&self) -> &FlowAddr {
        &self.addr
    }
    fn record(&self) -> FlowRecord {
        FlowRecord {
            family: "toy",
            started_at: self.started_at,
            completed_at: self.completed_at,
            closed_at: self.completed_at,
            bytes_acked: self.acked,
            counters: self.stats,
        }
    }
    fn cc_state(&self, out: &mut StateOut<'_>) {
        out("in_flight_bytes", (self.sent - self.acked) as f64);
    }
}

/// The toy's receiving end: it acknowledges the bytes it holds in order.
#[derive(Clone, Debug)]
pub struct ToyReceiver {
    addr: FlowAddr,
    expected: u64,
}

impl ReceiverEnd for ToyReceiver {
    type HostRx = ();
    fn on_packet(&mut self, _now: SimTime, pkt: &Packet, _host: &mut (), out: &mut impl Emit) {
        if pkt.kind != Kind::Data {
            return;
        }
        if pkt.seq == self.expected {
            self.expected += pkt.payload_bytes as u64;
        }
        let mut ack = self.addr.header(Side::Receiver, Kind::Ack);
        ack.protocol = Protocol::Udp;
        ack.ack = self.expected;
        ack.size_bytes = HEADER_BYTES;
        out.emit(ack);
    }
    fn on_timer(&mut self, _now: SimTime, _host: &mut (), _out: &mut impl Emit) {}
    fn deadline(&self) -> Option<SimTime> {
        None
    }
    fn bytes_received(&self) -> u64 {
        self.expected
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Harness, addr};
    use crate::{Receiver, Sender, TransportConfig};

    fn path() -> PathInfo {
        PathInfo {
            line_rate: sim_core::Bandwidth::from_gbps(10),
            rx_line_rate: sim_core::Bandwidth::from_gbps(10),
            wire: net::WireFormat::ETHERNET,
            base_rtt: SimDuration::ZERO,
            bdp_bytes: 0,
            src_clock_offset: SimDuration::ZERO,
            dst_clock_offset: SimDuration::ZERO,
            stream_seed: 1,
        }
    }

    /// The list's row is all the dispatch needs: the generated enums
    /// build, drive and report a toy flow, through a loss.
    #[test]
    fn the_list_row_alone_dispatches_a_new_family() {
        let cfg = TransportConfig::Toy(ToyConfig {
            mss: 1000,
            rto: SimDuration::from_us(100),
        });
        assert_eq!(cfg.family(), "toy");
        let (s, r) = (
            cfg.sender(addr(), 10_000, &path()),
            cfg.receiver(addr(), &path()),
        );
        assert!(!s.built_at_the_wire() && !cfg.control_is_header());
        let mut h: Harness<Sender, Receiver> = Harness::with(s, r);
        let mut dropped = false;
        h.data_filter = Box::new(move |_, p| {
            let first_of_third = p.seq == 2000 && !dropped;
            dropped |= first_of_third;
            !first_of_third
        });
        h.run(SimTime(10 * sim_core::time::PS_PER_MS));
        assert!(h.sender.completed_at().is_some(), "the flow completes");
        assert_eq!(h.receiver.bytes_received(), 10_000);
        let rec = h.sender.record();
        assert_eq!((rec.family, rec.bytes_acked), ("toy", 10_000));
        assert_eq!(
            rec.counters.retransmits, 1,
            "the lost packet went once more"
        );
        assert!(h.sender.get::<ToySender>().is_some());
        assert!(h.sender.get::<crate::tcp::TcpSender>().is_none());
        assert!(h.receiver.get::<ToyReceiver>().is_some());
    }
}

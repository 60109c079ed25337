//! The TCP family at the seam: its configuration names its ends
//! ([`Transport`]), which implement [`SenderEnd`] and [`ReceiverEnd`] by
//! their own methods.

use super::{TcpConfig, TcpReceiver, TcpSender};
use crate::ends::{record_via, sender_inherent};
use crate::family::Transport;
use crate::record::FlowRecord;
use crate::{Emit, FlowAddr, PathInfo, ReceiverEnd, SenderEnd};
use net::{IntStack, Packet};
use sim_core::{SimDuration, SimTime};

impl Transport for TcpConfig {
    type Sender = TcpSender;
    type Receiver = TcpReceiver;
    const BUILT_AT_THE_WIRE: bool = false;
    const CONTROL_IS_HEADER: bool = false;

    fn sender(&self, addr: FlowAddr, size_bytes: u64, _path: &PathInfo) -> TcpSender {
        TcpSender::new(addr, size_bytes, self)
    }

    fn receiver(&self, addr: FlowAddr, _path: &PathInfo) -> TcpReceiver {
        TcpReceiver::new(addr, self)
    }
}

impl SenderEnd for TcpSender {
    sender_inherent!(TcpSender);
    record_via!();

    #[inline]
    fn on_packet(&mut self, now: SimTime, pkt: &Packet, _int: &IntStack, out: &mut impl Emit) {
        TcpSender::on_packet(self, now, pkt, out)
    }

    #[inline(always)]
    fn wants_transmit(&mut self, _now: SimTime) -> bool {
        TcpSender::wants_transmit(self)
    }

    #[inline]
    fn take_rtt_sample(&mut self) -> Option<SimDuration> {
        TcpSender::take_rtt_sample(self)
    }

    fn record(&self) -> FlowRecord {
        TcpSender::record(self)
    }
}

impl ReceiverEnd for TcpReceiver {
    type HostRx = ();

    #[inline]
    fn on_packet(&mut self, now: SimTime, pkt: &Packet, _host: &mut (), out: &mut impl Emit) {
        TcpReceiver::on_packet(self, now, pkt, out)
    }

    fn on_timer(&mut self, now: SimTime, _host: &mut (), out: &mut impl Emit) {
        TcpReceiver::on_timer(self, now, out)
    }

    #[inline]
    fn deadline(&self) -> Option<SimTime> {
        TcpReceiver::deadline(self)
    }

    #[inline]
    fn bytes_received(&self) -> u64 {
        TcpReceiver::bytes_received(self)
    }
}

//! The TCP family at the seam: its configuration names its ends
//! ([`Transport`]), which implement [`SenderEnd`] and [`ReceiverEnd`] by
//! their own methods.

use super::{TcpConfig, TcpReceiver, TcpSender};
use crate::ends::StateOut;
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
    fn start(&mut self, now: SimTime, out: &mut impl Emit) {
        TcpSender::start(self, now, out)
    }

    fn stop_app(&mut self, now: SimTime, out: &mut impl Emit) {
        TcpSender::stop_app(self, now, out)
    }

    #[inline]
    fn on_packet(&mut self, now: SimTime, pkt: &Packet, _int: &IntStack, out: &mut impl Emit) {
        TcpSender::on_packet(self, now, pkt, out)
    }

    fn on_timer(&mut self, now: SimTime, out: &mut impl Emit) {
        TcpSender::on_timer(self, now, out)
    }

    #[inline(always)]
    fn deadline(&self) -> Option<SimTime> {
        TcpSender::deadline(self)
    }

    #[inline(always)]
    fn wants_transmit(&mut self, _now: SimTime) -> bool {
        TcpSender::wants_transmit(self)
    }

    #[inline(always)]
    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        TcpSender::poll_transmit(self, now)
    }

    #[inline]
    fn take_rtt_sample(&mut self) -> Option<SimDuration> {
        TcpSender::take_rtt_sample(self)
    }

    #[inline(always)]
    fn completed_at(&self) -> Option<SimTime> {
        TcpSender::completed_at(self)
    }

    #[inline]
    fn bytes_acked(&self) -> u64 {
        TcpSender::bytes_acked(self)
    }

    fn size_bytes(&self) -> u64 {
        TcpSender::size_bytes(self)
    }

    #[inline(always)]
    fn addr(&self) -> &FlowAddr {
        TcpSender::addr(self)
    }

    fn record(&self) -> FlowRecord {
        TcpSender::record(self)
    }

    fn cc_state(&self, out: &mut StateOut<'_>) {
        TcpSender::cc_state(self, out)
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

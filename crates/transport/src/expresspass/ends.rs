//! The ExpressPass family at the seam: its configuration names its ends
//! ([`Transport`]), which implement [`SenderEnd`] and [`ReceiverEnd`] by
//! their own methods.

use super::{ExpressPassConfig, ExpressPassReceiver, ExpressPassSender};
use crate::ends::StateOut;
use crate::family::Transport;
use crate::record::FlowRecord;
use crate::{Emit, FlowAddr, PathInfo, ReceiverEnd, SenderEnd};
use net::{IntStack, Packet};
use sim_core::SimTime;

impl Transport for ExpressPassConfig {
    type Sender = ExpressPassSender;
    type Receiver = ExpressPassReceiver;
    const BUILT_AT_THE_WIRE: bool = true;
    const CONTROL_IS_HEADER: bool = false;

    fn sender(&self, addr: FlowAddr, size_bytes: u64, _path: &PathInfo) -> ExpressPassSender {
        ExpressPassSender::new(addr, size_bytes, self)
    }

    fn receiver(&self, addr: FlowAddr, path: &PathInfo) -> ExpressPassReceiver {
        ExpressPassReceiver::new(addr, self, path)
    }
}

impl SenderEnd for ExpressPassSender {
    fn start(&mut self, now: SimTime, out: &mut impl Emit) {
        ExpressPassSender::start(self, now, out)
    }

    fn stop_app(&mut self, now: SimTime, out: &mut impl Emit) {
        ExpressPassSender::stop_app(self, now, out)
    }

    #[inline]
    fn on_packet(&mut self, now: SimTime, pkt: &Packet, _int: &IntStack, out: &mut impl Emit) {
        ExpressPassSender::on_packet(self, now, pkt, out)
    }

    fn on_timer(&mut self, now: SimTime, out: &mut impl Emit) {
        ExpressPassSender::on_timer(self, now, out)
    }

    #[inline(always)]
    fn deadline(&self) -> Option<SimTime> {
        ExpressPassSender::deadline(self)
    }

    #[inline(always)]
    fn wants_transmit(&mut self, _now: SimTime) -> bool {
        ExpressPassSender::wants_transmit(self)
    }

    #[inline(always)]
    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        ExpressPassSender::poll_transmit(self, now)
    }

    #[inline(always)]
    fn completed_at(&self) -> Option<SimTime> {
        self.message().completed_at()
    }

    #[inline]
    fn bytes_acked(&self) -> u64 {
        self.message().bytes_acked()
    }

    fn size_bytes(&self) -> u64 {
        self.message().size_bytes()
    }

    #[inline(always)]
    fn addr(&self) -> &FlowAddr {
        self.message().addr()
    }

    fn record(&self) -> FlowRecord {
        self.message().record("expresspass")
    }

    fn cc_state(&self, out: &mut StateOut<'_>) {
        ExpressPassSender::cc_state(self, out)
    }
}

impl ReceiverEnd for ExpressPassReceiver {
    type HostRx = ();

    #[inline]
    fn on_packet(&mut self, now: SimTime, pkt: &Packet, _host: &mut (), out: &mut impl Emit) {
        ExpressPassReceiver::on_packet(self, now, pkt, out)
    }

    fn on_timer(&mut self, now: SimTime, _host: &mut (), out: &mut impl Emit) {
        ExpressPassReceiver::on_timer(self, now, out)
    }

    #[inline]
    fn deadline(&self) -> Option<SimTime> {
        ExpressPassReceiver::deadline(self)
    }

    #[inline]
    fn bytes_received(&self) -> u64 {
        ExpressPassReceiver::bytes_received(self)
    }

    fn cc_state(&self, out: &mut StateOut<'_>) {
        ExpressPassReceiver::cc_state(self, out)
    }
}

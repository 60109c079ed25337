//! The Homa family at the seam: its configuration names its ends
//! ([`Transport`]), which implement [`SenderEnd`] and [`ReceiverEnd`] by
//! their own methods.

use super::{HomaConfig, HomaReceiver, HomaSender};
use crate::ends::StateOut;
use crate::family::Transport;
use crate::record::FlowRecord;
use crate::{Emit, FlowAddr, PathInfo, ReceiverEnd, SenderEnd};
use net::{IntStack, Packet};
use sim_core::SimTime;

impl Transport for HomaConfig {
    type Sender = HomaSender;
    type Receiver = HomaReceiver;
    const BUILT_AT_THE_WIRE: bool = true;
    const CONTROL_IS_HEADER: bool = false;

    fn sender(&self, addr: FlowAddr, size_bytes: u64, _path: &PathInfo) -> HomaSender {
        HomaSender::new(addr, size_bytes, self)
    }

    fn receiver(&self, addr: FlowAddr, _path: &PathInfo) -> HomaReceiver {
        HomaReceiver::new(addr, self)
    }
}

impl SenderEnd for HomaSender {
    fn start(&mut self, now: SimTime, out: &mut impl Emit) {
        HomaSender::start(self, now, out)
    }

    fn stop_app(&mut self, now: SimTime, out: &mut impl Emit) {
        HomaSender::stop_app(self, now, out)
    }

    #[inline]
    fn on_packet(&mut self, now: SimTime, pkt: &Packet, _int: &IntStack, out: &mut impl Emit) {
        HomaSender::on_packet(self, now, pkt, out)
    }

    fn on_timer(&mut self, now: SimTime, out: &mut impl Emit) {
        HomaSender::on_timer(self, now, out)
    }

    #[inline(always)]
    fn deadline(&self) -> Option<SimTime> {
        HomaSender::deadline(self)
    }

    #[inline]
    fn srpt_rank(&self) -> Option<u64> {
        Some(HomaSender::srpt_rank(self))
    }

    #[inline(always)]
    fn wants_transmit(&mut self, _now: SimTime) -> bool {
        HomaSender::wants_transmit(self)
    }

    #[inline(always)]
    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        HomaSender::poll_transmit(self, now)
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
        self.message().record("homa")
    }

    fn cc_state(&self, out: &mut StateOut<'_>) {
        HomaSender::cc_state(self, out)
    }
}

impl ReceiverEnd for HomaReceiver {
    type HostRx = super::RxScheduler;

    #[inline]
    fn on_packet(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        host: &mut super::RxScheduler,
        out: &mut impl Emit,
    ) {
        HomaReceiver::on_packet(self, now, pkt, host, out)
    }

    fn on_timer(&mut self, now: SimTime, host: &mut super::RxScheduler, out: &mut impl Emit) {
        HomaReceiver::on_timer(self, now, host, out)
    }

    #[inline]
    fn deadline(&self) -> Option<SimTime> {
        HomaReceiver::deadline(self)
    }

    #[inline]
    fn bytes_received(&self) -> u64 {
        HomaReceiver::bytes_received(self)
    }
}

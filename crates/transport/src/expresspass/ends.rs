//! The ExpressPass family at the seam: its configuration names its ends
//! ([`Transport`]), which implement [`SenderEnd`] and [`ReceiverEnd`] by
//! their own methods.

use super::{ExpressPassConfig, ExpressPassReceiver, ExpressPassSender};
use crate::ends::{StateOut, record_via, sender_inherent};
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
    sender_inherent!(ExpressPassSender);
    record_via!(message);

    #[inline]
    fn on_packet(&mut self, now: SimTime, pkt: &Packet, _int: &IntStack, out: &mut impl Emit) {
        ExpressPassSender::on_packet(self, now, pkt, out)
    }

    #[inline(always)]
    fn wants_transmit(&mut self, _now: SimTime) -> bool {
        ExpressPassSender::wants_transmit(self)
    }

    fn record(&self) -> FlowRecord {
        self.message().record("expresspass")
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

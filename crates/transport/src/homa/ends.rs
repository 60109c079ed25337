//! The Homa family at the seam: its configuration names its ends
//! ([`Transport`]), which implement [`SenderEnd`] and [`ReceiverEnd`] by
//! their own methods.

use super::{HomaConfig, HomaReceiver, HomaSender};
use crate::ends::{record_via, sender_inherent};
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
    sender_inherent!(HomaSender);
    record_via!(message);

    #[inline]
    fn on_packet(&mut self, now: SimTime, pkt: &Packet, _int: &IntStack, out: &mut impl Emit) {
        HomaSender::on_packet(self, now, pkt, out)
    }

    #[inline]
    fn srpt_rank(&self) -> Option<u64> {
        Some(HomaSender::srpt_rank(self))
    }

    #[inline(always)]
    fn wants_transmit(&mut self, _now: SimTime) -> bool {
        HomaSender::wants_transmit(self)
    }

    fn record(&self) -> FlowRecord {
        self.message().record("homa")
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

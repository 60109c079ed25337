//! The RoCE family at the seam: its configuration names its ends
//! ([`Transport`]), which implement [`SenderEnd`] and [`ReceiverEnd`] by
//! their own methods.

use super::{RoceConfig, RoceReceiver, RoceSender};
use crate::ends::{StateOut, record_via, sender_inherent};
use crate::family::Transport;
use crate::record::{FlowRecord, ReceiverRecord};
use crate::{Emit, FlowAddr, PathInfo, ReceiverEnd, SenderEnd};
use net::{IntStack, Packet};
use sim_core::{SimDuration, SimTime};

impl Transport for RoceConfig {
    type Sender = RoceSender;
    type Receiver = RoceReceiver;
    const BUILT_AT_THE_WIRE: bool = true;
    const CONTROL_IS_HEADER: bool = false;

    fn sender(&self, addr: FlowAddr, size_bytes: u64, path: &PathInfo) -> RoceSender {
        RoceSender::new(addr, size_bytes, self, path)
    }

    fn receiver(&self, addr: FlowAddr, path: &PathInfo) -> RoceReceiver {
        RoceReceiver::new(addr, self, path)
    }
}

impl SenderEnd for RoceSender {
    sender_inherent!(RoceSender);
    record_via!();

    #[inline]
    fn on_packet(&mut self, now: SimTime, pkt: &Packet, int: &IntStack, out: &mut impl Emit) {
        RoceSender::on_packet_int(self, now, pkt, int, out)
    }

    fn retransmission_pending(&self) -> bool {
        RoceSender::retransmission_pending(self)
    }

    #[inline(always)]
    fn wants_transmit(&mut self, now: SimTime) -> bool {
        RoceSender::wants_transmit_at(self, now)
    }

    #[inline]
    fn take_rtt_sample(&mut self) -> Option<SimDuration> {
        RoceSender::take_rtt_sample(self)
    }

    fn record(&self) -> FlowRecord {
        RoceSender::record(self)
    }
}

impl ReceiverEnd for RoceReceiver {
    type HostRx = super::HostRx;

    #[inline]
    fn on_packet(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        host: &mut super::HostRx,
        out: &mut impl Emit,
    ) {
        RoceReceiver::on_packet(self, now, pkt, host, out)
    }

    fn on_timer(&mut self, now: SimTime, _host: &mut super::HostRx, out: &mut impl Emit) {
        RoceReceiver::on_timer(self, now, out)
    }

    #[inline]
    fn deadline(&self) -> Option<SimTime> {
        RoceReceiver::deadline(self)
    }

    #[inline]
    fn bytes_received(&self) -> u64 {
        RoceReceiver::bytes_received(self)
    }

    fn record(&self) -> ReceiverRecord {
        ReceiverRecord {
            naks_sent: Some(self.naks_sent()),
            cnps_sent: Some(self.cnps_sent()),
        }
    }

    fn cc_state(&self, out: &mut StateOut<'_>) {
        RoceReceiver::cc_state(self, out)
    }
}

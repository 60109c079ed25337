//! The NDP family at the seam: its configuration names its ends
//! ([`Transport`]), which implement [`crate::SenderEnd`] and [`ReceiverEnd`] by
//! their own methods.

use super::{NdpConfig, NdpReceiver, NdpSender};
use crate::family::Transport;
use crate::record::ReceiverRecord;
use crate::{Emit, FlowAddr, PathInfo, ReceiverEnd};
use net::Packet;
use sim_core::SimTime;

impl Transport for NdpConfig {
    type Sender = NdpSender;
    type Receiver = NdpReceiver;
    const BUILT_AT_THE_WIRE: bool = true;
    const CONTROL_IS_HEADER: bool = true;

    fn sender(&self, addr: FlowAddr, size_bytes: u64, path: &PathInfo) -> NdpSender {
        NdpSender::new(addr, size_bytes, self, path)
    }

    fn receiver(&self, addr: FlowAddr, path: &PathInfo) -> NdpReceiver {
        NdpReceiver::new(addr, self, path)
    }
}

crate::psn_window::psn_sender_end!(NdpSender);

impl ReceiverEnd for NdpReceiver {
    type HostRx = crate::pull_pacer::PullPacer;

    #[inline]
    fn on_packet(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        host: &mut crate::pull_pacer::PullPacer,
        out: &mut impl Emit,
    ) {
        NdpReceiver::on_packet(self, now, pkt, host, out)
    }

    fn on_timer(
        &mut self,
        now: SimTime,
        _host: &mut crate::pull_pacer::PullPacer,
        out: &mut impl Emit,
    ) {
        NdpReceiver::on_timer(self, now, out)
    }

    #[inline]
    fn deadline(&self) -> Option<SimTime> {
        NdpReceiver::deadline(self)
    }

    #[inline]
    fn bytes_received(&self) -> u64 {
        NdpReceiver::bytes_received(self)
    }

    fn record(&self) -> ReceiverRecord {
        ReceiverRecord {
            naks_sent: Some(self.naks_sent()),
            cnps_sent: None,
        }
    }
}

//! The two ends of a flow, as the world drives them: every family's
//! sender implements [`SenderEnd`] and its receiver [`ReceiverEnd`], and
//! the generated [`crate::Sender`] and [`crate::Receiver`] enums implement
//! them again by dispatching to the family (`crate::families`). Each end
//! is a sans-IO state machine (smoltcp / quinn-proto style): the caller
//! passes `now` and a packet, the end hands packets back through an
//! [`Emit`] sink and exposes its next deadline instead of owning timers.

use crate::FlowAddr;
use crate::record::{FlowRecord, ReceiverRecord};
use net::{IntStack, Kind, Packet};
use sim_core::{SimDuration, SimTime};

/// Where an endpoint puts the packets it sends.
pub trait Emit {
    /// Sends one packet.
    fn emit(&mut self, pkt: Packet);
}

impl Emit for Vec<Packet> {
    fn emit(&mut self, pkt: Packet) {
        self.push(pkt);
    }
}

/// Where an endpoint reports its congestion controller's state: each
/// variable by name (units last in the name: `cwnd_bytes`, `rate_gbps`).
pub type StateOut<'a> = dyn FnMut(&'static str, f64) + 'a;

/// The sending end of a flow.
pub trait SenderEnd {
    /// Opens the flow (a TCP SYN; most families just start sending).
    fn start(&mut self, now: SimTime, out: &mut impl Emit);
    /// Ends the application's data at what has been sent so far.
    fn stop_app(&mut self, now: SimTime, out: &mut impl Emit);
    /// A packet from the receiver; `int` is the INT stack it carried
    /// (HPCC's ACKs), empty for the others.
    fn on_packet(&mut self, now: SimTime, pkt: &Packet, int: &IntStack, out: &mut impl Emit);
    /// Runs the timers that are due.
    fn on_timer(&mut self, now: SimTime, out: &mut impl Emit);
    /// The earliest time [`SenderEnd::on_timer`] must run.
    fn deadline(&self) -> Option<SimTime>;
    /// Whether the flow waits on a timer that resends when it fires (a
    /// retransmission timeout, a SYN's, a probe): it is waiting, not
    /// stuck. Right for a family every timer of which sends when it fires.
    fn retransmission_pending(&self) -> bool {
        self.deadline().is_some()
    }
    /// Whether [`SenderEnd::poll_transmit`] would hand out a packet at
    /// `now` (`&mut`: a family may advance its search hints, and a paced
    /// one notes that its pacer holds a packet back, so that its deadline
    /// wakes it).
    fn wants_transmit(&mut self, now: SimTime) -> bool;
    /// The next data packet for the NIC, if the flow may send one.
    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet>;
    /// The flow's rank when its NIC serves the ready flows shortest first
    /// (the family's [`crate::Family::nic_discipline`] is SRPT), or `None`
    /// when the NIC takes flows in turn.
    fn srpt_rank(&self) -> Option<u64> {
        None
    }
    /// The RTT sample the last packet gave, if the family takes any;
    /// taking it clears it.
    fn take_rtt_sample(&mut self) -> Option<SimDuration> {
        None
    }
    /// When the receiver acknowledged the last data byte (the flow's completion).
    fn completed_at(&self) -> Option<SimTime>;
    /// Data bytes acknowledged so far.
    fn bytes_acked(&self) -> u64;
    /// The flow's data size (after any [`SenderEnd::stop_app`]).
    fn size_bytes(&self) -> u64;
    /// The flow's addressing.
    fn addr(&self) -> &FlowAddr;
    /// What the reports need of the flow.
    fn record(&self) -> FlowRecord;
    /// Its controller's state variables now (`[output] cc_trace`): the
    /// window or rate it applies and the controller's own.
    fn cc_state(&self, out: &mut StateOut<'_>);
}

/// The receiving end of a flow.
pub trait ReceiverEnd {
    /// What the family keeps per receiving host across its flows (RCC's
    /// counts, Homa's grant scheduler, a pull pacer); `()` for none.
    type HostRx: Clone + std::fmt::Debug + Default;
    /// A packet from the sender; `host` is the receiving host's state.
    fn on_packet(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        host: &mut Self::HostRx,
        out: &mut impl Emit,
    );
    /// Runs the timers that are due.
    fn on_timer(&mut self, now: SimTime, host: &mut Self::HostRx, out: &mut impl Emit);
    /// The earliest time [`ReceiverEnd::on_timer`] must run.
    fn deadline(&self) -> Option<SimTime>;
    /// Data bytes received in order.
    fn bytes_received(&self) -> u64;
    /// What the end counted, for the reports (the NAKs and CNPs it sent,
    /// where its family has them).
    fn record(&self) -> ReceiverRecord {
        ReceiverRecord::default()
    }
    /// The state of a controller that runs at the receiver (RCC's,
    /// ExpressPass's credit feedback), by name.
    fn cc_state(&self, _out: &mut StateOut<'_>) {}
}

/// An [`Emit`] that marks the pure acknowledgments passing through as
/// header-only when its family's control packets are headers
/// ([`crate::Transport::CONTROL_IS_HEADER`]), so that trimming switches
/// serve them ahead of data ([`net::Packet::rides_header_queue`]). The
/// generated dispatch wraps every end's sink in one; with `headers`
/// false (a constant of the family) it compiles to the sink itself.
pub(crate) struct MarkHeaders<'a, E: Emit> {
    pub(crate) out: &'a mut E,
    pub(crate) headers: bool,
}

impl<E: Emit> Emit for MarkHeaders<'_, E> {
    #[inline(always)]
    fn emit(&mut self, mut pkt: Packet) {
        if self.headers && pkt.kind == Kind::Ack {
            pkt.feedback.header_only = true;
        }
        self.out.emit(pkt);
    }
}

/// Writes, inside a family's `impl SenderEnd`, the methods its sender
/// already has as inherent methods of the same name and signature
/// (`start`, `stop_app`, `on_timer`, `deadline`, `poll_transmit`,
/// `cc_state`); the family writes those whose signature or meaning differs.
macro_rules! sender_inherent {
    ($t:ty) => {
        fn start(&mut self, now: SimTime, out: &mut impl $crate::Emit) {
            <$t>::start(self, now, out)
        }
        fn stop_app(&mut self, now: SimTime, out: &mut impl $crate::Emit) {
            <$t>::stop_app(self, now, out)
        }
        fn on_timer(&mut self, now: SimTime, out: &mut impl $crate::Emit) {
            <$t>::on_timer(self, now, out)
        }
        #[inline(always)]
        fn deadline(&self) -> Option<SimTime> {
            <$t>::deadline(self)
        }
        #[inline(always)]
        fn poll_transmit(&mut self, now: SimTime) -> Option<net::Packet> {
            <$t>::poll_transmit(self, now)
        }
        fn cc_state(&self, out: &mut $crate::StateOut<'_>) {
            <$t>::cc_state(self, out)
        }
    };
}

/// Writes, inside a family's `impl SenderEnd`, the methods its sender
/// answers from its record, reached by `self.$via()` (a neutral
/// `PsnFlow`'s or `MessageSend`'s, or the sender itself): when it
/// completed, its bytes acknowledged, its size and its addressing.
macro_rules! record_via {
    ($($via:ident)?) => {
        #[inline(always)]
        fn completed_at(&self) -> Option<SimTime> {
            self$(.$via())?.completed_at()
        }
        #[inline]
        fn bytes_acked(&self) -> u64 {
            self$(.$via())?.bytes_acked()
        }
        fn size_bytes(&self) -> u64 {
            self$(.$via())?.size_bytes()
        }
        #[inline(always)]
        fn addr(&self) -> &$crate::FlowAddr {
            self$(.$via())?.addr()
        }
    };
}

pub(crate) use {record_via, sender_inherent};

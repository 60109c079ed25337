//! The list of transport families, and everything generated from it.
//!
//! One row per family names its variant and its configuration type, which
//! implements [`Transport`] (and so [`Family`]). From the list the macro
//! writes the [`TransportConfig`], [`Sender`] and [`Receiver`] enums, the
//! receiving host's state across families ([`HostRx`]), and every
//! dispatch: the enums implement [`SenderEnd`] and [`ReceiverEnd`] by one
//! `match` each, so the world's calls are static (no `dyn` on the hot
//! path; with one family the match compiles away). A new family is a row
//! here; the compiler then asks for its trait items, never for an arm.
//!
//! The generated dispatch also applies the family's
//! [`Transport::CONTROL_IS_HEADER`] to every packet its ends emit
//! (`MarkHeaders`), so that no family marks its control packets by hand.

use crate::ends::MarkHeaders;
use crate::family::{Family, Transport};
use crate::record::{FlowRecord, ReceiverRecord};
use crate::{Emit, FlowAddr, PathInfo, ReceiverEnd, SenderEnd, StateOut};
use crate::{expresspass, homa, ndp, roce, tcp, uec};
use net::{IntStack, Packet};
use sim_core::{SimDuration, SimTime};

/// Writes the enums and their dispatch from the rows: `Variant(module::
/// Config)`, each with its doc and, for a test-only family, `#[cfg(test)]`.
macro_rules! families {
    ($(
        $(#[doc = $doc:expr])*
        $(#[cfg($cfg:meta)])?
        $family:ident($module:ident :: $config:ident)
    ),+ $(,)?) => {
        /// A transport family's configuration: one `[transport.NAME]` table.
        #[derive(Clone, Debug, PartialEq)]
        pub enum TransportConfig {
            $( $(#[doc = $doc])* $(#[cfg($cfg)])? $family($module::$config), )+
        }

        /// The sending end of a flow, of any family.
        #[derive(Clone, Debug)]
        pub enum Sender {
            $( $(#[doc = $doc])* $(#[cfg($cfg)])?
               $family(<$module::$config as Transport>::Sender), )+
        }

        /// The receiving end of a flow, of any family.
        #[derive(Clone, Debug)]
        pub enum Receiver {
            $( $(#[doc = $doc])* $(#[cfg($cfg)])?
               $family(<$module::$config as Transport>::Receiver), )+
        }

        /// A host's receive state across all its connections: each
        /// family's part ([`ReceiverEnd::HostRx`]) side by side.
        #[derive(Clone, Debug, Default)]
        pub struct HostRx {
            $( $(#[cfg($cfg)])? $module:
               <<$module::$config as Transport>::Receiver as ReceiverEnd>::HostRx, )+
        }

        /// Each family's variant and module name, in the list's order (the
        /// architecture test reads which names belong to a family).
        #[allow(clippy::vec_init_then_push)] // a row's `cfg` needs a statement
        pub fn family_names() -> Vec<(&'static str, &'static str)> {
            let mut names = Vec::new();
            $( $(#[cfg($cfg)])? names.push((stringify!($family), stringify!($module))); )+
            names
        }

        impl TransportConfig {
            /// The family's rules ([`Family`]), for dispatch in one place.
            pub fn family_rules(&self) -> &dyn Family {
                match self { $( $(#[cfg($cfg)])? Self::$family(c) => c, )+ }
            }

            /// The family's rules, to settle and prepare.
            pub fn family_rules_mut(&mut self) -> &mut dyn Family {
                match self { $( $(#[cfg($cfg)])? Self::$family(c) => c, )+ }
            }

            /// The sending end of a flow of `size_bytes` (`u64::MAX - 2`
            /// and [`SenderEnd::stop_app`] for an unbounded flow) on `path`.
            pub fn sender(&self, addr: FlowAddr, size_bytes: u64, path: &PathInfo) -> Sender {
                match self {
                    $( $(#[cfg($cfg)])?
                       Self::$family(c) => Sender::$family(Transport::sender(c, addr, size_bytes, path)), )+
                }
            }

            /// The receiving end of a flow on `path`.
            pub fn receiver(&self, addr: FlowAddr, path: &PathInfo) -> Receiver {
                match self {
                    $( $(#[cfg($cfg)])?
                       Self::$family(c) => Receiver::$family(Transport::receiver(c, addr, path)), )+
                }
            }

            /// Whether the family's control packets are headers
            /// ([`Transport::CONTROL_IS_HEADER`]).
            pub fn control_is_header(&self) -> bool {
                match self {
                    $( $(#[cfg($cfg)])?
                       Self::$family(_) => <$module::$config as Transport>::CONTROL_IS_HEADER, )+
                }
            }
        }

        impl Sender {
            /// Whether the NIC builds this flow's packets only when its
            /// port can send them ([`Transport::BUILT_AT_THE_WIRE`]).
            #[inline]
            pub fn built_at_the_wire(&self) -> bool {
                match self {
                    $( $(#[cfg($cfg)])?
                       Self::$family(_) => <$module::$config as Transport>::BUILT_AT_THE_WIRE, )+
                }
            }

            /// The family's own sender, if the flow is of that family
            /// (tests and family-specific inspection).
            pub fn get<S: 'static>(&self) -> Option<&S> {
                match self {
                    $( $(#[cfg($cfg)])?
                       Self::$family(s) => (s as &dyn std::any::Any).downcast_ref(), )+
                }
            }
        }

        impl Receiver {
            /// The family's own receiver, if the flow is of that family.
            pub fn get<R: 'static>(&self) -> Option<&R> {
                match self {
                    $( $(#[cfg($cfg)])?
                       Self::$family(r) => (r as &dyn std::any::Any).downcast_ref(), )+
                }
            }
        }

        impl SenderEnd for Sender {
            fn start(&mut self, now: SimTime, out: &mut impl Emit) {
                match self {
                    $( $(#[cfg($cfg)])? Self::$family(s) => SenderEnd::start(s, now, &mut marked::<$module::$config, _>(out)), )+
                }
            }

            fn stop_app(&mut self, now: SimTime, out: &mut impl Emit) {
                match self {
                    $( $(#[cfg($cfg)])? Self::$family(s) => SenderEnd::stop_app(s, now, &mut marked::<$module::$config, _>(out)), )+
                }
            }

            #[inline]
            fn on_packet(&mut self, now: SimTime, pkt: &Packet, int: &IntStack, out: &mut impl Emit) {
                match self {
                    $( $(#[cfg($cfg)])? Self::$family(s) => SenderEnd::on_packet(s, now, pkt, int, &mut marked::<$module::$config, _>(out)), )+
                }
            }

            fn on_timer(&mut self, now: SimTime, out: &mut impl Emit) {
                match self {
                    $( $(#[cfg($cfg)])? Self::$family(s) => SenderEnd::on_timer(s, now, &mut marked::<$module::$config, _>(out)), )+
                }
            }

            #[inline(always)] // after every packet (`World::arm`); outlined, it cost 1.2% (cachegrind)
            fn deadline(&self) -> Option<SimTime> {
                match self { $( $(#[cfg($cfg)])? Self::$family(s) => SenderEnd::deadline(s), )+ }
            }

            fn retransmission_pending(&self) -> bool {
                match self { $( $(#[cfg($cfg)])? Self::$family(s) => SenderEnd::retransmission_pending(s), )+ }
            }

            #[inline(always)]
            fn wants_transmit(&mut self, now: SimTime) -> bool {
                match self { $( $(#[cfg($cfg)])? Self::$family(s) => SenderEnd::wants_transmit(s, now), )+ }
            }

            #[inline(always)]
            fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
                match self { $( $(#[cfg($cfg)])? Self::$family(s) => SenderEnd::poll_transmit(s, now), )+ }
            }

            #[inline]
            fn srpt_rank(&self) -> Option<u64> {
                match self { $( $(#[cfg($cfg)])? Self::$family(s) => SenderEnd::srpt_rank(s), )+ }
            }

            #[inline]
            fn take_rtt_sample(&mut self) -> Option<SimDuration> {
                match self { $( $(#[cfg($cfg)])? Self::$family(s) => SenderEnd::take_rtt_sample(s), )+ }
            }

            #[inline(always)]
            fn completed_at(&self) -> Option<SimTime> {
                match self { $( $(#[cfg($cfg)])? Self::$family(s) => SenderEnd::completed_at(s), )+ }
            }

            #[inline]
            fn bytes_acked(&self) -> u64 {
                match self { $( $(#[cfg($cfg)])? Self::$family(s) => SenderEnd::bytes_acked(s), )+ }
            }

            fn size_bytes(&self) -> u64 {
                match self { $( $(#[cfg($cfg)])? Self::$family(s) => SenderEnd::size_bytes(s), )+ }
            }

            #[inline(always)]
            fn addr(&self) -> &FlowAddr {
                match self { $( $(#[cfg($cfg)])? Self::$family(s) => SenderEnd::addr(s), )+ }
            }

            fn record(&self) -> FlowRecord {
                match self { $( $(#[cfg($cfg)])? Self::$family(s) => SenderEnd::record(s), )+ }
            }

            fn cc_state(&self, out: &mut StateOut<'_>) {
                match self { $( $(#[cfg($cfg)])? Self::$family(s) => SenderEnd::cc_state(s, out), )+ }
            }
        }

        impl ReceiverEnd for Receiver {
            type HostRx = HostRx;

            #[inline]
            fn on_packet(&mut self, now: SimTime, pkt: &Packet, host: &mut HostRx, out: &mut impl Emit) {
                match self {
                    $( $(#[cfg($cfg)])? Self::$family(r) => ReceiverEnd::on_packet(r, now, pkt, &mut host.$module, &mut marked::<$module::$config, _>(out)), )+
                }
            }

            fn on_timer(&mut self, now: SimTime, host: &mut HostRx, out: &mut impl Emit) {
                match self {
                    $( $(#[cfg($cfg)])? Self::$family(r) => ReceiverEnd::on_timer(r, now, &mut host.$module, &mut marked::<$module::$config, _>(out)), )+
                }
            }

            #[inline]
            fn deadline(&self) -> Option<SimTime> {
                match self { $( $(#[cfg($cfg)])? Self::$family(r) => ReceiverEnd::deadline(r), )+ }
            }

            #[inline]
            fn bytes_received(&self) -> u64 {
                match self { $( $(#[cfg($cfg)])? Self::$family(r) => ReceiverEnd::bytes_received(r), )+ }
            }

            fn record(&self) -> ReceiverRecord {
                match self { $( $(#[cfg($cfg)])? Self::$family(r) => ReceiverEnd::record(r), )+ }
            }

            fn cc_state(&self, out: &mut StateOut<'_>) {
                match self { $( $(#[cfg($cfg)])? Self::$family(r) => ReceiverEnd::cc_state(r, out), )+ }
            }
        }
    };
}

/// `out`, marking the control packets of family `T` as headers when its
/// control packets are.
#[inline(always)]
fn marked<T: Transport, E: Emit>(out: &mut E) -> MarkHeaders<'_, E> {
    MarkHeaders {
        out,
        headers: T::CONTROL_IS_HEADER,
    }
}

families! {
    /// The TCP family (NewReno, ECN*, DCTCP, CUBIC).
    Tcp(tcp::TcpConfig),
    /// The RoCE family (the reliable connection; DCQCN and the others).
    Roce(roce::RoceConfig),
    /// Homa: receiver grants and network priorities.
    Homa(homa::HomaConfig),
    /// ExpressPass: receiver credits, rate-limited at every port.
    ExpressPass(expresspass::ExpressPassConfig),
    /// The UEC transport: entropy spraying, SACK/NACK, NSCC.
    Uec(uec::UecConfig),
    /// NDP: trimming, per-packet spraying, receiver pull pacing.
    Ndp(ndp::NdpConfig),
    /// A test-only family that proves what a new family costs.
    #[cfg(test)]
    Toy(toy::ToyConfig),
}

#[cfg(test)]
use crate::toy;

impl TransportConfig {
    /// The family's name in reports and TOML (`family = "tcp"`).
    pub fn family(&self) -> &'static str {
        self.family_rules().name()
    }

    /// The IP protocol of the family's packets (part of the ECMP hash).
    pub fn protocol(&self) -> net::Protocol {
        self.family_rules().protocol()
    }

    /// Whether [`TransportConfig::sender`] reads [`PathInfo::bdp_bytes`]
    /// (the caller may then skip computing it).
    pub fn needs_bdp(&self) -> bool {
        self.family_rules().needs_bdp()
    }

    /// The largest clock offset a host may have (RCC-async; zero: clocks
    /// are synchronised).
    pub fn clock_offset_max(&self) -> SimDuration {
        self.family_rules().clock_offset_max()
    }

    /// The payload bytes of a full packet (ideal FCTs count packets of this size).
    pub fn mss(&self) -> u64 {
        self.family_rules().mss()
    }

    /// Header bytes of a data packet (IP and transport, options included).
    pub fn data_header_bytes(&self) -> u32 {
        self.family_rules().data_header_bytes()
    }

    /// IP bytes of a pure acknowledgment.
    pub fn ack_bytes(&self) -> u32 {
        self.family_rules().ack_bytes()
    }

    /// Header bytes of a connection-setup packet (TCP's SYN and SYN-ACK);
    /// `None` for a family without a handshake in the flow's time (RoCE's
    /// connections are set up beforehand).
    pub fn handshake_header_bytes(&self) -> Option<u32> {
        self.family_rules().handshake_header_bytes()
    }
}

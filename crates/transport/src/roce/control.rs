//! RoCE congestion controllers behind one small trait.
//!
//! The requester (`sender.rs`) owns PSNs, go-back-N, the pacer and the
//! window check; a controller only sets the rate the pacer applies and,
//! if it has one, the window, from what reaches the sender: CNPs, ACKs
//! (with their echoed timestamps and the receiver's feedback), telemetry
//! (INT stacks), and the bytes it sends. Each controller is one module with
//! its state (implementing [`RateControl`]) and its config (the factory,
//! implementing [`RoceControllerConfig`]); the list in `roce_controllers!`
//! generates the [`RoceCc`] and [`RoceController`] enums and their
//! dispatch, so the per-packet path matches on an enum, not a trait object.
//! Adding a controller: its module, one line in that list, and its row in
//! the simulator's `cc` registry (docs/extending.md).

use crate::{PathInfo, StateOut};
use net::{Feedback, IntStack, Packet};
use sim_core::{SimDuration, SimTime};

/// What a sender tells its controller of an ACK (or NAK).
#[derive(Clone, Copy, Debug)]
pub struct AckView<'a> {
    /// When it arrived.
    pub now: SimTime,
    /// The packet: its echoed timestamp (`ts_ecr`), the receiver's
    /// feedback (`feedback`), its INT bit.
    pub pkt: &'a Packet,
    /// The next expected PSN it carries, at most the message's packets.
    pub ack: u64,
    /// The sender's next PSN to send.
    pub snd_nxt: u64,
    /// The oldest unacknowledged PSN before this ACK.
    pub snd_una: u64,
    /// The telemetry it echoes (empty unless it carries INT).
    pub int: &'a IntStack,
}

/// A RoCE flow's congestion controller at the sender.
pub trait RateControl {
    /// The rate the pacer applies, bits per second (at most `line_bps`).
    fn rate_bps(&self, line_bps: f64) -> f64;
    /// The in-flight cap it sets, bytes (`None`: the transport's `window`).
    fn window_bytes(&self) -> Option<u64> {
        None
    }
    /// Whether data packets ask every switch for telemetry (INT).
    fn wants_int(&self) -> bool {
        false
    }
    /// The send timestamp a data packet carries, at true time `now`.
    fn stamp(&mut self, now: SimTime) -> SimTime {
        now
    }
    /// A data packet of `bytes` IP bytes left the NIC.
    fn on_sent(&mut self, _bytes: u64) {}
    /// A CNP (or an ACK with the CNP bit); whether it reacted.
    fn on_cnp(&mut self, _now: SimTime) -> bool {
        false
    }
    /// An ACK, before the sender's bookkeeping; whether the rate or the
    /// window may have changed.
    fn on_ack(&mut self, _a: &AckView<'_>) -> bool {
        false
    }
    /// An ACK, after the sender's bookkeeping (`snd_nxt` as it is then);
    /// whether the rate or the window may have changed.
    fn after_ack(&mut self, _a: &AckView<'_>) -> bool {
        false
    }
    /// Its next timer, if any (run lazily by the sender, at their times).
    fn deadline(&self) -> Option<SimTime> {
        None
    }
    /// Runs the timer due at `t`.
    fn on_timer(&mut self, _t: SimTime) {}
    /// When a pacer held back until `opens_at(rate)` opens, its timers
    /// (the first at `first`) run ahead on a copy: the first timer instant
    /// at which the pacer is open, or the pacer's time.
    fn wake_with_timers(&self, first: SimTime, _opens_at: &dyn Fn(f64) -> SimTime) -> SimTime {
        first
    }
    /// Its state variables by name (`[output] cc_trace`).
    fn state(&self, _out: &mut StateOut<'_>) {}
}

/// What building a flow's controller may know.
#[derive(Clone, Copy, Debug)]
pub struct FlowCtx<'a> {
    /// The NIC's line rate, bits per second.
    pub line_bps: f64,
    /// The flow's path.
    pub path: &'a PathInfo,
    /// Payload bytes per packet.
    pub mtu_bytes: u64,
    /// The transport's CNP spacing per flow (`cnp_interval`), for a
    /// notification point that paces CNPs.
    pub cnp_interval: SimDuration,
}

impl<'a> FlowCtx<'a> {
    /// What a flow of transport `cfg` on `path` builds its controller's
    /// halves from.
    pub fn new(cfg: &super::RoceConfig, path: &'a PathInfo) -> Self {
        FlowCtx {
            line_bps: path.line_rate.bps() as f64,
            path,
            mtu_bytes: cfg.mtu_bytes as u64,
            cnp_interval: cfg.cnp_interval,
        }
    }
}

/// What a receiver half asks of the responder for a data packet: how
/// congestion is notified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notify {
    /// Nothing now.
    Nothing,
    /// A CNP packet goes out now.
    CnpNow,
    /// The next ACK or NAK carries the CNP bit.
    FlagNextAck,
}

/// The receiver half of a RoCE flow's controller, at the responder: a
/// notification point (DCQCN's) or a receiver that assigns the window
/// (RCC's). The responder (`receiver.rs`) owns PSNs, ACKs and NAKs and
/// the host's message counts; the half sees every data packet and says
/// what the replies carry. Every default is "no receiver half".
pub trait ReceiverControl {
    /// Data packet `pkt` arrived at `now`, before the responder's
    /// bookkeeping; `host` is the receiving host's RoCE state (the half
    /// may register with it). What congestion notification it asks for.
    fn on_data(&mut self, _now: SimTime, _pkt: &Packet, _host: &mut HostRx) -> Notify {
        Notify::Nothing
    }
    /// The feedback the reply to `pkt` carries, after the responder
    /// counted its messages.
    fn feedback(&mut self, _now: SimTime, _pkt: &Packet, _host: &HostRx) -> Feedback {
        Feedback::default()
    }
    /// A CNP went out at `now`.
    fn on_cnp_sent(&mut self, _now: SimTime) {}
    /// Its next timer, if any.
    fn deadline(&self) -> Option<SimTime> {
        None
    }
    /// The timer due at `now` ran: whether a CNP goes out.
    fn on_timer(&mut self, _now: SimTime) -> bool {
        false
    }
    /// Its state variables by name (`[output] cc_trace`).
    fn state(&self, _out: &mut StateOut<'_>) {}
}

/// How a controller's configuration builds its receiver half (`C`: the
/// configuration), named beside its sender half in `roce_controllers!`.
pub trait ReceiverHalf<C>: ReceiverControl + Sized {
    /// A fresh receiver half for one flow.
    fn build(cfg: &C, f: &FlowCtx<'_>) -> Self;
}

/// The receiver half of a controller that has none: the responder only
/// acknowledges.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoReceiver;

impl ReceiverControl for NoReceiver {}

impl<C> ReceiverHalf<C> for NoReceiver {
    fn build(_cfg: &C, _f: &FlowCtx<'_>) -> Self {
        NoReceiver
    }
}

/// What a controller's configuration rules on outside the per-packet path
/// (at load, and when a flow is built). Object-safe: [`RoceCc::rules`]
/// dispatches every method in one place, so a new rule needs no
/// forwarding. Every default is "no such rule".
pub trait ControllerRules {
    /// The rate's floor, if it has one (checked against the line rate).
    fn min_rate_bps(&self) -> Option<f64> {
        None
    }
    /// Whether it needs the path's bandwidth-delay product.
    fn needs_bdp(&self) -> bool {
        false
    }
    /// The largest host clock offset it models (RCC-async).
    fn clock_offset_max(&self) -> SimDuration {
        SimDuration::ZERO
    }
    /// The telemetry bytes its data packets carry (HPCC's INT stack).
    fn telemetry_bytes(&self) -> u32 {
        0
    }
    /// The in-flight cap it runs under when `window` is not given.
    fn default_window(&self) -> Option<crate::roce::WindowMode> {
        None
    }
    /// Whether it assigns its own window, so that `window` may not be
    /// given (RCC).
    fn assigns_window(&self) -> bool {
        false
    }
    /// Whether `cnp_interval` may be given, at this value: only a
    /// notification point that paces CNPs has one.
    fn cnp_interval_rule(&self, _interval: SimDuration) -> Result<(), &'static str> {
        Err("only DCQCN sends CNPs: drop this key, or choose cc = \"dcqcn\"")
    }
}

/// A controller's configuration, which builds one flow's controller.
pub trait RoceControllerConfig: ControllerRules {
    /// The controller it builds.
    type Controller: RateControl;
    /// Its name in scenarios (`cc = "NAME"`).
    const NAME: &'static str;
    /// A fresh controller for one flow.
    fn build(&self, f: &FlowCtx<'_>) -> Self::Controller;
    /// Its name in reports (a variant may name itself).
    fn report_name(&self) -> &'static str {
        Self::NAME
    }
}

/// No congestion control: line rate always.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LineRateConfig;

/// [`LineRateConfig`]'s controller.
#[derive(Clone, Copy, Debug, Default)]
pub struct LineRate;

impl ControllerRules for LineRateConfig {}

impl RoceControllerConfig for LineRateConfig {
    type Controller = LineRate;
    const NAME: &'static str = "none";
    fn build(&self, _f: &FlowCtx<'_>) -> LineRate {
        LineRate
    }
}

impl RateControl for LineRate {
    #[inline]
    fn rate_bps(&self, line_bps: f64) -> f64 {
        line_bps
    }
}

/// Generates, from one list of `Variant: Config => State, Receiver;`, the
/// [`RoceCc`], [`RoceController`] and [`RoceReceiverControl`] enums and
/// their dispatch: a controller's two halves are built from its one line.
macro_rules! roce_controllers {
    ($($(#[$doc:meta])* $variant:ident: $config:ty => $state:ty, $recv:ty;)+) => {
        /// A RoCE flow's congestion controller configuration.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum RoceCc {
            $($(#[$doc])* $variant($config),)+
        }

        /// A RoCE flow's running congestion controller.
        #[derive(Clone, Debug)]
        pub enum RoceController {
            $($(#[$doc])* $variant($state),)+
        }

        /// A RoCE flow's running receiver half ([`ReceiverControl`]).
        #[derive(Clone, Debug)]
        pub enum RoceReceiverControl {
            $($(#[$doc])* $variant($recv),)+
        }

        impl RoceReceiverControl {
            /// The half, for dispatch in one place.
            #[inline]
            pub fn get(&self) -> &dyn ReceiverControl {
                match self {
                    $(RoceReceiverControl::$variant(r) => r,)+
                }
            }
            /// The half, mutably.
            #[inline]
            pub fn get_mut(&mut self) -> &mut dyn ReceiverControl {
                match self {
                    $(RoceReceiverControl::$variant(r) => r,)+
                }
            }
        }

        $(impl From<$config> for RoceCc {
            fn from(c: $config) -> Self {
                RoceCc::$variant(c)
            }
        })+

        impl RoceCc {
            /// A fresh controller for one flow.
            pub fn build(&self, f: &FlowCtx<'_>) -> RoceController {
                match self {
                    $(RoceCc::$variant(c) => RoceController::$variant(c.build(f).into()),)+
                }
            }
            /// A fresh receiver half for one flow.
            pub fn build_receiver(&self, f: &FlowCtx<'_>) -> RoceReceiverControl {
                match self {
                    $(RoceCc::$variant(c) => RoceReceiverControl::$variant(<$recv as ReceiverHalf<$config>>::build(c, f)),)+
                }
            }
            /// Its name in scenarios.
            pub fn name(&self) -> &'static str {
                match self {
                    $(RoceCc::$variant(_) => <$config as RoceControllerConfig>::NAME,)+
                }
            }
            /// Its name in reports.
            pub fn report_name(&self) -> &'static str {
                match self {
                    $(RoceCc::$variant(c) => <$config as RoceControllerConfig>::report_name(c),)+
                }
            }
            /// What its configuration rules on ([`ControllerRules`]).
            pub fn rules(&self) -> &dyn ControllerRules {
                match self {
                    $(RoceCc::$variant(c) => c,)+
                }
            }
        }

        impl RoceController {
            /// The controller, for the cold methods: every method of
            /// [`RateControl`] reaches each controller through here, so a
            /// new one needs no forwarding.
            #[inline]
            pub fn get(&self) -> &dyn RateControl {
                match self {
                    $(RoceController::$variant(c) => c.held(),)+
                }
            }
            /// The controller, mutably.
            #[inline]
            pub fn get_mut(&mut self) -> &mut dyn RateControl {
                match self {
                    $(RoceController::$variant(c) => c.held_mut(),)+
                }
            }
            /// [`RateControl::rate_bps`], statically dispatched (every packet).
            #[inline]
            pub fn rate_bps(&self, line_bps: f64) -> f64 {
                match self {
                    $(RoceController::$variant(c) => RateControl::rate_bps(c.held(), line_bps),)+
                }
            }
            /// [`RateControl::window_bytes`], statically dispatched.
            #[inline]
            pub fn window_bytes(&self) -> Option<u64> {
                match self {
                    $(RoceController::$variant(c) => RateControl::window_bytes(c.held()),)+
                }
            }
            /// [`RateControl::stamp`], statically dispatched.
            #[inline]
            pub fn stamp(&mut self, now: SimTime) -> SimTime {
                match self {
                    $(RoceController::$variant(c) => RateControl::stamp(c.held_mut(), now),)+
                }
            }
            /// [`RateControl::on_sent`], statically dispatched.
            #[inline]
            pub fn on_sent(&mut self, bytes: u64) {
                match self {
                    $(RoceController::$variant(c) => RateControl::on_sent(c.held_mut(), bytes),)+
                }
            }
            /// [`RateControl::on_ack`], statically dispatched (every ACK).
            #[inline]
            pub fn on_ack(&mut self, a: &AckView<'_>) -> bool {
                match self {
                    $(RoceController::$variant(c) => RateControl::on_ack(c.held_mut(), a),)+
                }
            }
            /// [`RateControl::after_ack`], statically dispatched.
            #[inline]
            pub fn after_ack(&mut self, a: &AckView<'_>) -> bool {
                match self {
                    $(RoceController::$variant(c) => RateControl::after_ack(c.held_mut(), a),)+
                }
            }
            /// [`RateControl::deadline`], statically dispatched (after every event).
            #[inline]
            pub fn deadline(&self) -> Option<SimTime> {
                match self {
                    $(RoceController::$variant(c) => RateControl::deadline(c.held()),)+
                }
            }
        }
    };
}

use super::host::HostRx;
use super::{dcqcn, hpcc, rcc, swift, timely};

roce_controllers! {
    /// Line rate always (the RDMA NIC without congestion control).
    None: LineRateConfig => LineRate, NoReceiver;
    /// DCQCN (reaction point at the sender, notification point at the receiver).
    Dcqcn: dcqcn::DcqcnConfig => dcqcn::Dcqcn, dcqcn::NotificationPoint;
    /// RCC (the receiver assigns the window; RCC paper).
    Rcc: rcc::RccConfig => Box<rcc::RccSend>, rcc::RccReceiver;
    /// TIMELY (RTT gradients at the sender).
    Timely: timely::TimelyConfig => Box<timely::TimelySend>, NoReceiver;
    /// HPCC (INT from every hop, at the sender).
    Hpcc: hpcc::HpccConfig => Box<hpcc::Hpcc>, NoReceiver;
    /// Swift (the round trip against a scaled target, at the sender).
    Swift: swift::SwiftConfig => Box<swift::Swift>, NoReceiver;
}

/// A controller's state as [`RoceController`] holds it: inline when
/// small, boxed when large (so the enum stays small), reached the same way.
pub trait Held {
    /// The controller's state.
    type State: RateControl;
    /// The state.
    fn held(&self) -> &Self::State;
    /// The state, mutably.
    fn held_mut(&mut self) -> &mut Self::State;
}

impl<T: RateControl> Held for Box<T> {
    type State = T;
    #[inline(always)]
    fn held(&self) -> &T {
        self
    }
    #[inline(always)]
    fn held_mut(&mut self) -> &mut T {
        self
    }
}

/// [`Held`] for states kept inline.
macro_rules! held_inline {
    ($($state:ty),+) => {
        $(impl Held for $state {
            type State = $state;
            #[inline(always)]
            fn held(&self) -> &$state {
                self
            }
            #[inline(always)]
            fn held_mut(&mut self) -> &mut $state {
                self
            }
        })+
    };
}

held_inline!(LineRate, dcqcn::Dcqcn);

//! Congestion control of the TCP family behind one small trait.
//!
//! The sender owns loss recovery (fast retransmit, NewReno's recovery
//! episode, RTO); a controller only decides how the window grows on ACKs and
//! how it shrinks on a congestion [`Signal`]. Each controller is one module
//! with its state (implementing [`CongestionControl`]) and its config (the
//! factory, implementing [`ControllerConfig`]); the list in
//! `controllers!` generates the [`CcConfig`] and [`Controller`] enums and
//! the dispatch, so the hot path matches on an enum, not a trait object.
//! Adding a controller: its module, one line in that list, and its row in
//! the `cc` registry of the simulator (docs/extending.md).

mod cubic;
mod dctcp;
mod ecn_star;
mod newreno;

pub use cubic::{Cubic, CubicConfig};
pub use dctcp::{Dctcp, DctcpConfig};
pub use ecn_star::{EcnConfig, EcnStar};
pub use newreno::{NewReno, NewRenoConfig};

use sim_core::SimDuration;
use sim_core::SimTime;

/// The congestion window and slow-start threshold, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Congestion window.
    pub cwnd: u64,
    /// Slow-start threshold.
    pub ssthresh: u64,
    /// Sender maximum segment size.
    pub mss: u64,
    /// Bytes acknowledged toward the next congestion-avoidance increase.
    pub ca_acked: u64,
    /// The floor of a reduction (`min_cwnd_mss` segments): ssthresh after
    /// a loss and cwnd after an ECN cut stay at or above it.
    pub min_cwnd: u64,
}

impl Window {
    /// Initial window of `iw` segments, reductions floored at `min_mss`
    /// segments; ssthresh starts "arbitrarily high" (RFC 5681 3.1).
    pub fn new(mss: u64, iw: u32, min_mss: u32) -> Self {
        Window {
            cwnd: mss * iw as u64,
            ssthresh: u64::MAX,
            mss,
            ca_acked: 0,
            min_cwnd: mss * min_mss as u64,
        }
    }

    /// Whether the sender is in slow start.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// RFC 5681 growth with appropriate byte counting (RFC 3465): in slow
    /// start cwnd grows by the bytes acknowledged, at most 2 SMSS per ACK
    /// (L = 2, so delayed ACKs keep exponential growth); in congestion
    /// avoidance by one SMSS per cwnd of acknowledged bytes.
    pub fn reno_increase(&mut self, acked: u64) {
        if self.in_slow_start() {
            self.cwnd += acked.min(2 * self.mss);
        } else {
            self.ca_acked += acked;
            if self.ca_acked >= self.cwnd {
                self.ca_acked -= self.cwnd;
                self.cwnd += self.mss;
            }
        }
    }

    /// ssthresh = max(FlightSize / 2, 2 SMSS) (RFC 5681 eq. (4)), with
    /// `min_cwnd` in place of 2 SMSS.
    pub fn half_flight(&self, flight: u64) -> u64 {
        (flight / 2).max(self.min_cwnd)
    }
}

/// What an acknowledgment of new data tells the controller.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    /// When the ACK arrived.
    pub now: SimTime,
    /// Bytes newly acknowledged by this ACK.
    pub acked_bytes: u64,
    /// Whether the ACK carried ECN-Echo.
    pub ece: bool,
    /// SND.UNA after this ACK.
    pub snd_una: u64,
    /// The highest sequence number sent so far.
    pub snd_max: u64,
    /// Whether the sender is in a loss-recovery episode (no growth then).
    pub in_recovery: bool,
    /// The smoothed RTT after this ACK, if any sample exists (RFC 6298).
    pub srtt: Option<SimDuration>,
    /// The RTT sample this ACK gave, if it gave one.
    pub rtt_sample: Option<SimDuration>,
    /// Whether cwnd, not the peer's rwnd, limited the sender when the ACK
    /// arrived. An rwnd-limited sender does not grow cwnd (RFC 7661's
    /// principle, and Linux's `tcp_is_cwnd_limited`): switches that clamp
    /// rwnd (HSCC, R-AQM, FairQ) would otherwise leave a window that bursts
    /// when the clamp lifts.
    pub cwnd_limited: bool,
}

impl AckSample {
    /// Whether this ACK may grow cwnd.
    #[inline]
    pub fn may_grow(&self) -> bool {
        !self.in_recovery && self.cwnd_limited
    }
}

/// A congestion signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// Three duplicate ACKs: entering fast recovery (RFC 6582 section 3.2 step 2).
    Loss,
    /// The retransmission timer expired (RFC 5681 eq. (4), RFC 6298 (5.5)).
    Timeout,
    /// An ECN-Echo, at most once per window (RFC 3168 section 6.1.2).
    Ecn,
}

/// How a receiver echoes CE marks to the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CeEcho {
    /// ECE from the first CE until the sender's CWR (RFC 3168 6.1.3).
    Latched,
    /// ECE on exactly the ACKs of CE-marked data (RFC 8257 section 3.2).
    Exact,
}

/// A congestion controller.
pub trait CongestionControl {
    /// Whether its endpoints negotiate ECN (RFC 3168 section 6.1.1).
    fn negotiates_ecn(&self) -> bool {
        true
    }

    /// Whether retransmissions carry ECT (RFC 3168 6.1.5 forbids it;
    /// DCTCP in Linux marks every data segment ECT).
    fn ect_on_retransmit(&self) -> bool {
        false
    }

    /// How the receiver echoes CE.
    fn ce_echo(&self) -> CeEcho {
        CeEcho::Latched
    }

    /// An ACK acknowledged new data.
    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        if s.may_grow() {
            w.reno_increase(s.acked_bytes);
        }
    }

    /// A congestion signal; `flight` is the data outstanding (FlightSize).
    /// Sets ssthresh and cwnd for `Ecn` and `Timeout`; for `Loss` sets
    /// ssthresh only (the sender inflates cwnd for fast recovery).
    fn on_congestion(&mut self, w: &mut Window, signal: Signal, flight: u64);

    /// Its own state variables by name, for traces (`[output] cc_trace`);
    /// the window itself is the sender's and traced by it.
    fn state(&self, _out: &mut dyn FnMut(&'static str, f64)) {}
}

/// Loss reaction shared by the TCP family (RFC 5681 section 3.1-3.2).
fn loss_reaction(w: &mut Window, signal: Signal, flight: u64) {
    w.ssthresh = w.half_flight(flight);
    if signal == Signal::Timeout {
        // RFC 5681: the loss window is one segment.
        w.cwnd = w.mss;
    }
    w.ca_acked = 0;
}

/// A controller's configuration, which builds one sender's controller.
pub trait ControllerConfig {
    /// The controller it builds.
    type Controller: CongestionControl;
    /// Its name in scenarios and reports (`cc = "NAME"`).
    const NAME: &'static str;
    /// A fresh controller for one flow.
    fn build(&self) -> Self::Controller;
    /// Checks the keys together: the key at fault (relative to the `cc`
    /// table) and why.
    fn check(&self) -> Result<(), (&'static str, String)> {
        Ok(())
    }
}

/// Generates, from one list of `Variant: Config => State`, the
/// [`CcConfig`] and [`Controller`] enums and their dispatch.
macro_rules! controllers {
    ($($(#[$doc:meta])* $variant:ident: $config:ty => $state:ty,)+) => {
        /// A TCP congestion controller's configuration, one variant per
        /// controller.
        #[derive(Clone, Debug, PartialEq)]
        pub enum CcConfig {
            $($(#[$doc])* $variant($config),)+
        }

        /// A running TCP congestion controller, one variant per controller.
        #[derive(Clone, Debug)]
        pub enum Controller {
            $($(#[$doc])* $variant($state),)+
        }

        impl CcConfig {
            /// Its name (`cc = "NAME"`).
            pub fn name(&self) -> &'static str {
                match self {
                    $(CcConfig::$variant(_) => <$config as ControllerConfig>::NAME,)+
                }
            }

            /// Checks its keys: the key at fault and why.
            pub fn check(&self) -> Result<(), (&'static str, String)> {
                match self {
                    $(CcConfig::$variant(c) => c.check(),)+
                }
            }

            /// A fresh controller.
            pub fn build(&self) -> Controller {
                match self {
                    $(CcConfig::$variant(c) => Controller::$variant(c.build()),)+
                }
            }
        }

        $(impl From<$config> for CcConfig {
            fn from(c: $config) -> Self {
                CcConfig::$variant(c)
            }
        })+

        impl CongestionControl for Controller {
            fn negotiates_ecn(&self) -> bool {
                match self {
                    $(Controller::$variant(c) => c.negotiates_ecn(),)+
                }
            }
            fn ect_on_retransmit(&self) -> bool {
                match self {
                    $(Controller::$variant(c) => c.ect_on_retransmit(),)+
                }
            }
            fn ce_echo(&self) -> CeEcho {
                match self {
                    $(Controller::$variant(c) => c.ce_echo(),)+
                }
            }
            #[inline]
            fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
                match self {
                    $(Controller::$variant(c) => c.on_ack(w, s),)+
                }
            }
            #[inline]
            fn on_congestion(&mut self, w: &mut Window, signal: Signal, flight: u64) {
                match self {
                    $(Controller::$variant(c) => c.on_congestion(w, signal, flight),)+
                }
            }
            fn state(&self, out: &mut dyn FnMut(&'static str, f64)) {
                match self {
                    $(Controller::$variant(c) => c.state(out),)+
                }
            }
        }
    };
}

controllers! {
    /// NewReno (RFC 5681, 6582).
    NewReno: NewRenoConfig => NewReno,
    /// ECN* (RFC 3168).
    Ecn: EcnConfig => EcnStar,
    /// DCTCP (RFC 8257).
    Dctcp: DctcpConfig => Dctcp,
    /// CUBIC (RFC 9438).
    Cubic: CubicConfig => Cubic,
}

impl Default for CcConfig {
    fn default() -> Self {
        CcConfig::NewReno(NewRenoConfig {})
    }
}

//! ECN* (RFC 3168 section 6.1.2): NewReno whose window halves on ECN-Echo, at
//! most once per window of data (the sender enforces "once per window").

use super::{CongestionControl, ControllerConfig, Signal, Window, loss_reaction};

/// ECN* takes no keys.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EcnConfig {}

impl ControllerConfig for EcnConfig {
    type Controller = EcnStar;
    const NAME: &'static str = "ecn";
    fn build(&self) -> EcnStar {
        EcnStar
    }
}

/// ECN*.
#[derive(Clone, Copy, Debug, Default)]
pub struct EcnStar;

impl CongestionControl for EcnStar {
    fn on_congestion(&mut self, w: &mut Window, signal: Signal, flight: u64) {
        loss_reaction(w, signal, flight);
        if signal == Signal::Ecn {
            // RFC 3168 6.1.2: "halve the congestion window ... and reduce the
            // slow start threshold", as for a loss, but without retransmitting.
            w.cwnd = w.ssthresh;
        }
    }
}

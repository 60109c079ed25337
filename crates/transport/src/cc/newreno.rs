//! NewReno (RFC 5681 growth; RFC 6582 recovery lives in the sender).

use super::{CongestionControl, ControllerConfig, Signal, Window, loss_reaction};

/// NewReno takes no keys.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewRenoConfig {}

impl ControllerConfig for NewRenoConfig {
    type Controller = NewReno;
    const NAME: &'static str = "newreno";
    fn build(&self) -> NewReno {
        NewReno
    }
}

/// NewReno: ignores ECN (it never negotiates it).
#[derive(Clone, Copy, Debug, Default)]
pub struct NewReno;

impl CongestionControl for NewReno {
    fn negotiates_ecn(&self) -> bool {
        false
    }

    fn on_congestion(&mut self, w: &mut Window, signal: Signal, flight: u64) {
        if signal != Signal::Ecn {
            loss_reaction(w, signal, flight);
        }
    }
}

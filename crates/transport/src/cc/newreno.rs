//! NewReno (RFC 5681 growth; RFC 6582 recovery lives in the sender).

use super::{CongestionControl, Signal, Window, loss_reaction};

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

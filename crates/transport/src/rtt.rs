//! The retransmission timer's estimator, RFC 6298.

use sim_core::SimDuration;

/// SRTT / RTTVAR / RTO as RFC 6298 section 2 defines them, in picoseconds.
#[derive(Clone, Copy, Debug)]
pub struct RttEstimator {
    srtt_ps: u64,
    rttvar_ps: u64,
    rto: SimDuration,
    has_sample: bool,
    min: SimDuration,
    max: SimDuration,
}

impl RttEstimator {
    /// Before any sample the RTO is `initial` (RFC 6298 (2.1)).
    pub fn new(initial: SimDuration, min: SimDuration, max: SimDuration) -> Self {
        RttEstimator {
            srtt_ps: 0,
            rttvar_ps: 0,
            rto: initial,
            has_sample: false,
            min,
            max,
        }
    }

    /// Takes one RTT measurement.
    pub fn on_sample(&mut self, rtt: SimDuration) {
        let r = rtt.ps();
        if !self.has_sample {
            // RFC 6298 (2.2): SRTT <- R, RTTVAR <- R/2.
            self.srtt_ps = r;
            self.rttvar_ps = r / 2;
            self.has_sample = true;
        } else {
            // RFC 6298 (2.3): beta = 1/4, alpha = 1/8, RTTVAR first.
            let diff = self.srtt_ps.abs_diff(r);
            self.rttvar_ps = (3 * self.rttvar_ps + diff) / 4;
            self.srtt_ps = (7 * self.srtt_ps + r) / 8;
        }
        // RFC 6298 (2.2)/(2.3): RTO <- SRTT + max(G, K*RTTVAR), K = 4; our clock
        // granularity G is 1 ps. (2.4)/(2.5): clamp to [min, max].
        let rto = self.srtt_ps + (4 * self.rttvar_ps).max(1);
        self.rto = SimDuration(rto).clamp(self.min, self.max);
    }

    /// The current RTO, without backoff.
    pub fn rto(&self) -> SimDuration {
        self.rto
    }

    /// Smoothed RTT, if measured.
    pub fn srtt(&self) -> Option<SimDuration> {
        self.has_sample.then_some(SimDuration(self.srtt_ps))
    }

    /// The RTO after `backoff` doublings (RFC 6298 (5.5)), capped at max.
    pub fn backed_off(&self, backoff: u32) -> SimDuration {
        let factor = 1u64 << backoff.min(32);
        self.rto.saturating_mul(factor).min(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6298_first_and_later_samples() {
        let mut e = RttEstimator::new(
            SimDuration::from_secs(1),
            SimDuration::from_us(1),
            SimDuration::from_secs(60),
        );
        assert_eq!(e.rto(), SimDuration::from_secs(1));
        e.on_sample(SimDuration::from_us(100));
        // SRTT 100us, RTTVAR 50us, RTO 300us.
        assert_eq!(e.rto(), SimDuration::from_us(300));
        e.on_sample(SimDuration::from_us(100));
        // RTTVAR = 3/4*50 = 37.5us, SRTT 100us -> RTO 250us.
        assert_eq!(e.rto(), SimDuration::from_us(250));
        assert_eq!(e.backed_off(2), SimDuration::from_us(1000));
    }

    #[test]
    fn clamped_to_min_and_max() {
        let mut e = RttEstimator::new(
            SimDuration::from_secs(1),
            SimDuration::from_ms(200),
            SimDuration::from_secs(60),
        );
        e.on_sample(SimDuration::from_us(10));
        assert_eq!(e.rto(), SimDuration::from_ms(200));
        assert_eq!(e.backed_off(20), SimDuration::from_secs(60));
    }
}

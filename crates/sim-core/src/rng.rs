//! Per-component random streams.
//!
//! One master seed per run; every consumer of randomness (a workload's
//! arrivals, a host's ECMP salt, ...) gets its own stream derived from
//! `(seed, component, purpose)` by SplitMix64 mixing. Adding a component or
//! drawing more numbers in one stream never changes another stream, so runs
//! stay comparable across scenario edits and identical across thread counts.
//!
//! Floats turn into durations only through IEEE basic operations and `libm`
//! (pure Rust), never the platform's `ln`/`exp`, which may differ in the last
//! bit between C libraries.

use crate::time::SimDuration;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Every purpose a stream is drawn for, in one place: a new consumer of
/// randomness adds its constant here, so two consumers never share a stream
/// by accident. The values are arbitrary but fixed (changing one changes
/// results); `docs/architecture.md` lists what each drives.
pub mod purpose {
    /// A packet source's exponential inter-arrival times (component: workload index).
    pub const ARRIVALS: u64 = 1;
    /// A workload's flow start jitter (component: workload index).
    pub const START_JITTER: u64 = 2;
    /// A host's first ephemeral source port (component: host index).
    pub const EPHEMERAL_PORT: u64 = 3;
    /// The ECMP hash salt of the switches of one tier (component: the tier).
    pub const ECMP_SALT: u64 = 4;
    /// A `flows` workload's arrivals, receivers and sizes (component:
    /// workload index x 2^32 + sending host).
    pub const FLOWS: u64 = 5;
    /// A `permutation` workload's derangement (component: workload index).
    pub const PERMUTATION: u64 = 6;
    /// A `shuffle` workload's flow order and arrivals (component: workload
    /// index x 2^32 + sending host).
    pub const SHUFFLE: u64 = 7;
    /// A host's clock offset under RCC-async (component: host index).
    pub const CLOCK_OFFSET: u64 = 8;
    /// The seed of a flow's send-timestamp jitter under RCC-async
    /// (component: flow id).
    pub const CLOCK_JITTER: u64 = 9;
    /// ExpressPass's jitter of a receiver's credit spacing (per flow).
    pub const CREDIT_JITTER: u64 = 10;
    /// A switch's per-packet path draws (component: node id).
    pub const PATH_CHOICE: u64 = 11;
    /// A spraying host's entropy values (component: flow id).
    pub const ENTROPY: u64 = 12;
    /// A collective job's random rank placement (component: workload index).
    pub const PLACEMENT: u64 = 13;
    /// MQ-ECN's random marking (component: port id).
    pub const MQ_ECN: u64 = 0x4d_51;
    /// RED's random marking or dropping (component: port id).
    pub const RED: u64 = 0x52_45_44;
    /// PIE's random dropping (component: port id).
    pub const PIE: u64 = 0x50_49_45;
}

/// SplitMix64's finaliser: a bijective 64-bit mixer.
#[inline]
pub const fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A seeded random stream for one purpose of one component.
#[derive(Clone, Debug)]
pub struct RngStream {
    rng: Pcg64Mcg,
}

impl RngStream {
    /// The stream for `purpose` (a small constant naming the use) of
    /// `component` (e.g. a workload index) under the run's master `seed`.
    pub fn new(seed: u64, component: u64, purpose: u64) -> Self {
        let a = mix64(seed);
        let b = mix64(a ^ component.wrapping_mul(0xD6E8_FEB8_6659_FD93));
        let c = mix64(b ^ purpose.wrapping_mul(0xA076_1D64_78BD_642F));
        let state = ((c as u128) << 64) | mix64(c ^ 0x5851_F42D_4C95_7F2D) as u128;
        RngStream {
            rng: Pcg64Mcg::new(state | 1),
        }
    }

    /// A stream seeded directly (tests).
    pub fn from_seed_u64(seed: u64) -> Self {
        RngStream {
            rng: Pcg64Mcg::seed_from_u64(seed),
        }
    }

    /// A uniform 64-bit integer.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// A uniform float in the open interval (0, 1): 53 random bits, never 0.
    #[inline]
    pub fn uniform_open01(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform integer in `0..n` (Lemire's method, unbiased). `n` must be > 0.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0);
        loop {
            let m = self.next_u64() as u128 * n as u128;
            let lo = m as u64;
            if lo >= n.wrapping_neg() % n {
                return (m >> 64) as u64;
            }
        }
    }

    /// An exponentially distributed duration with the given mean, rounded
    /// once to integer picoseconds; `-mean * ln(U)` with `libm::log`.
    #[inline]
    pub fn exp_duration(&mut self, mean: SimDuration) -> SimDuration {
        let u = self.uniform_open01();
        SimDuration::from_ps_f64(-(mean.ps() as f64) * libm::log(u))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = RngStream::new(7, 1, 2);
                move |_| r.next_u64()
            })
            .collect();
        let mut r = RngStream::new(7, 1, 2);
        assert_eq!(a, (0..4).map(|_| r.next_u64()).collect::<Vec<_>>());
        let mut other = RngStream::new(7, 2, 2);
        assert_ne!(a[0], other.next_u64());
        let mut other = RngStream::new(8, 1, 2);
        assert_ne!(a[0], other.next_u64());
    }

    #[test]
    fn exponential_mean_is_right() {
        let mut r = RngStream::new(1, 0, 0);
        let mean = SimDuration::from_us(10);
        let n = 200_000;
        let sum: u128 = (0..n).map(|_| r.exp_duration(mean).ps() as u128).sum();
        let m = sum as f64 / n as f64;
        assert!((m / mean.ps() as f64 - 1.0).abs() < 0.01, "mean {m}");
    }

    #[test]
    fn below_is_in_range_and_covers() {
        let mut r = RngStream::new(3, 0, 0);
        let mut seen = [0u32; 5];
        for _ in 0..1000 {
            seen[r.below(5) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 150), "{seen:?}");
    }
}

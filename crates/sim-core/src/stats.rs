//! Statistics helpers: exact percentiles, means, Jain's fairness index and
//! time-weighted averages. Exact (sort-based) percentiles are cheap at the
//! sizes we report (one value per flow); nearest-rank is used so that a
//! percentile is always one of the observed values.

/// Summary of a sample: count, mean and nearest-rank percentiles. Every
/// statistic of an empty sample is `None` (`null` in JSON): an empty set has
/// no mean, and a 0 would read as a measurement.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Number of values.
    pub count: usize,
    /// Arithmetic mean.
    pub mean: Option<f64>,
    /// Standard deviation (of the population: the values are all there
    /// is, e.g. every flow's FCT), FairQ's "FCT variation" (VI-A, Fig. 6).
    pub std: Option<f64>,
    /// Smallest value.
    pub min: Option<f64>,
    /// Median (nearest rank).
    pub p50: Option<f64>,
    /// 99th percentile (nearest rank).
    pub p99: Option<f64>,
    /// 99.9th percentile (nearest rank).
    pub p999: Option<f64>,
    /// Largest value.
    pub max: Option<f64>,
}

impl Summary {
    /// Summarises `values` (sorted in place). NaNs are an invariant breach.
    pub fn of(values: &mut [f64]) -> Summary {
        if values.is_empty() {
            return Summary::default();
        }
        values.sort_by(|a, b| a.partial_cmp(b).expect("NaN in statistics"));
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
        Summary {
            count: values.len(),
            mean: Some(mean),
            std: Some(libm::sqrt(var)),
            min: Some(values[0]),
            p50: Some(percentile_sorted(values, 50.0)),
            p99: Some(percentile_sorted(values, 99.0)),
            p999: Some(percentile_sorted(values, 99.9)),
            max: Some(values[values.len() - 1]),
        }
    }
}

/// The nearest-rank `p`th percentile of an ascending, non-empty slice.
pub fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    assert!(!sorted.is_empty() && (0.0..=100.0).contains(&p));
    let rank = libm::ceil(p / 100.0 * sorted.len() as f64) as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Arithmetic mean; `None` for an empty slice.
pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Jain's fairness index (sum x)^2 / (n * sum x^2): 1 when all equal, 1/n when
/// one takes all. `None` for an empty or all-zero sample, where it is 0/0.
pub fn jain_index(values: &[f64]) -> Option<f64> {
    let sum: f64 = values.iter().sum();
    let sq: f64 = values.iter().map(|x| x * x).sum();
    (sq > 0.0).then(|| sum * sum / (values.len() as f64 * sq))
}

/// Integrates a piecewise-constant value over time, exactly, in integer units
/// (value x picoseconds). Updated on every change; read as a mean over any window
/// by differencing two snapshots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TimeIntegral {
    /// Sum of value x duration so far.
    pub area: u128,
    /// Time of the last update (ps).
    pub last_ps: u64,
    /// The value since `last_ps`.
    pub value: u64,
}

impl TimeIntegral {
    /// Records that the value changes to `value` at `now_ps`.
    #[inline]
    pub fn set(&mut self, now_ps: u64, value: u64) {
        self.advance(now_ps);
        self.value = value;
    }

    /// Accounts for the time up to `now_ps` at the current value.
    #[inline]
    pub fn advance(&mut self, now_ps: u64) {
        debug_assert!(now_ps >= self.last_ps);
        // Neither can overflow: a product of two u64s is below 2^128, and
        // the area is at most the largest value times the run's length, two
        // u64s as well. Unchecked, this is one multiply on every queue change.
        let dt = now_ps.wrapping_sub(self.last_ps) as u128;
        self.area = self
            .area
            .wrapping_add((self.value as u128).wrapping_mul(dt));
        self.last_ps = now_ps;
    }

    /// The area as it stands at `now_ps` (without mutating).
    pub fn area_at(&self, now_ps: u64) -> u128 {
        self.area + self.value as u128 * now_ps.saturating_sub(self.last_ps) as u128
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_nearest_rank() {
        let mut v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let s = Summary::of(&mut v);
        assert_eq!(
            (s.count, s.min, s.p50, s.p99, s.max),
            (100, Some(1.0), Some(50.0), Some(99.0), Some(100.0))
        );
        assert_eq!(s.mean, Some(50.5));
        // Population variance of 1..=100: (n^2 - 1) / 12.
        let std = s.std.expect("a std");
        assert!((std - (9999.0f64 / 12.0).sqrt()).abs() < 1e-9, "{std}");
        let s = Summary::of(&mut [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(s.std, Some(2.0));
        let empty = Summary::of(&mut []);
        assert_eq!(
            (empty.count, empty.mean, empty.std, empty.p99),
            (0, None, None, None)
        );
        assert_eq!(mean(&[]), None);
    }

    #[test]
    fn jain() {
        assert_eq!(jain_index(&[2.0, 2.0, 2.0]), Some(1.0));
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]).expect("defined") - 0.25).abs() < 1e-12);
        assert_eq!(jain_index(&[]), None);
        assert_eq!(jain_index(&[0.0, 0.0]), None);
    }

    #[test]
    fn time_integral() {
        let mut t = TimeIntegral::default();
        t.set(0, 4);
        t.set(10, 2);
        assert_eq!(t.area_at(20), 60);
    }
}

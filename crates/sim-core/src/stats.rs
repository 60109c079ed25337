//! Statistics helpers: exact percentiles, means, Jain's fairness index and
//! time-weighted averages. Exact (sort-based) percentiles are cheap at the
//! sizes we report (one value per flow); nearest-rank is used so that a
//! percentile is always one of the observed values.

/// Summary of a sample: count, mean and nearest-rank percentiles.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Number of values.
    pub count: usize,
    /// Arithmetic mean (0 when empty).
    pub mean: f64,
    /// Smallest value.
    pub min: f64,
    /// Median (nearest rank).
    pub p50: f64,
    /// 99th percentile (nearest rank).
    pub p99: f64,
    /// Largest value.
    pub max: f64,
}

impl Summary {
    /// Summarises `values` (sorted in place). NaNs are an invariant breach.
    pub fn of(values: &mut [f64]) -> Summary {
        if values.is_empty() {
            return Summary::default();
        }
        values.sort_by(|a, b| a.partial_cmp(b).expect("NaN in statistics"));
        let sum: f64 = values.iter().sum();
        Summary {
            count: values.len(),
            mean: sum / values.len() as f64,
            min: values[0],
            p50: percentile_sorted(values, 50.0),
            p99: percentile_sorted(values, 99.0),
            max: values[values.len() - 1],
        }
    }
}

/// The nearest-rank `p`th percentile of an ascending, non-empty slice.
pub fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    assert!(!sorted.is_empty() && (0.0..=100.0).contains(&p));
    let rank = libm::ceil(p / 100.0 * sorted.len() as f64) as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Arithmetic mean (0 for an empty slice).
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// Jain's fairness index (sum x)^2 / (n * sum x^2): 1 when all equal, 1/n when
/// one takes all. Defined as 1 for an empty or all-zero sample.
pub fn jain_index(values: &[f64]) -> f64 {
    let sum: f64 = values.iter().sum();
    let sq: f64 = values.iter().map(|x| x * x).sum();
    if values.is_empty() || sq == 0.0 {
        1.0
    } else {
        sum * sum / (values.len() as f64 * sq)
    }
}

/// Integrates a piecewise-constant value over time, exactly, in integer units
/// (value x picoseconds). Updated on every change; read as a mean over any window
/// by differencing two snapshots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
        self.area += self.value as u128 * (now_ps - self.last_ps) as u128;
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
            (100, 1.0, 50.0, 99.0, 100.0)
        );
        assert_eq!(s.mean, 50.5);
        assert_eq!(Summary::of(&mut []).count, 0);
    }

    #[test]
    fn jain() {
        assert_eq!(jain_index(&[2.0, 2.0, 2.0]), 1.0);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn time_integral() {
        let mut t = TimeIntegral::default();
        t.set(0, 4);
        t.set(10, 2);
        assert_eq!(t.area_at(20), 60);
    }
}

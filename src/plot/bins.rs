//! Flow-size percentile bins: the x axis of the field's slowdown figure
//! (HPCC, Homa and pFabric plot slowdown against flow size so that each
//! bin holds about the same number of flows, and print the count).
//!
//! Bins split the flows sorted by size into `n` groups of about equal
//! count; flows of equal size stay in one bin (a workload drawn from a
//! CDF repeats sizes), so a bin may hold more than its share and there may
//! be fewer bins than asked.

use super::chart::Point;
use crate::report::units;

/// How many bins the slowdown figure asks for.
pub const BINS: usize = 10;

/// One bin: flows with size in `(above_bytes, up_to_bytes]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Bin {
    /// The largest size of the previous bin (0 for the first).
    pub above_bytes: u64,
    /// The largest size in the bin.
    pub up_to_bytes: u64,
}

impl Bin {
    /// The bin's name on an axis: its largest size in bytes, short enough
    /// for ten to stand side by side (`1.5K`, `30M`, `512`).
    pub fn label(&self) -> String {
        let s = units::bytes(self.up_to_bytes as f64);
        let v = s.of(self.up_to_bytes as f64);
        let text = if v >= 10.0 || v == libm::round(v) {
            format!("{v:.0}")
        } else {
            format!("{v:.1}")
        };
        format!("{text}{}", s.unit.trim_end_matches('B'))
    }

    /// Whether `size` falls in it.
    pub fn holds(&self, size: u64) -> bool {
        size > self.above_bytes && size <= self.up_to_bytes
    }
}

/// At most `n` bins of about equal count over `sizes` (any order).
pub fn percentile_bins(sizes: &[u64], n: usize) -> Vec<Bin> {
    let mut sorted = sizes.to_vec();
    sorted.sort_unstable();
    let mut bins = Vec::new();
    let mut above = 0u64;
    let total = sorted.len();
    for k in 1..=n.max(1) {
        // The flow that ends bin k if sizes were all distinct.
        let end = (total * k).div_ceil(n.max(1));
        let Some(&up_to) = sorted.get(end.saturating_sub(1)) else {
            break;
        };
        if up_to > above {
            bins.push(Bin {
                above_bytes: above,
                up_to_bytes: up_to,
            });
            above = up_to;
        }
    }
    bins
}

/// The `q`-quantile (nearest rank) of `values`, sorted here.
pub fn quantile(values: &mut [f64], q: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let rank = libm::ceil(q * values.len() as f64) as usize;
    Some(values[rank.clamp(1, values.len()) - 1])
}

/// For each bin, the `q`-quantile of the slowdowns of `flows`
/// ((size, slowdown) pairs), as points at x = the bin's position; bins
/// without flows have no point. Also returns each bin's count.
pub fn quantile_by_bin(bins: &[Bin], flows: &[(u64, f64)], q: f64) -> (Vec<Point>, Vec<usize>) {
    let mut per: Vec<Vec<f64>> = vec![Vec::new(); bins.len()];
    for &(size, sd) in flows {
        if let Some(b) = bins.iter().position(|b| b.holds(size)) {
            per[b].push(sd);
        }
    }
    let counts = per.iter().map(Vec::len).collect();
    let points = per
        .iter_mut()
        .enumerate()
        .filter_map(|(i, v)| {
            quantile(v, q).map(|y| Point {
                x: i as f64,
                y,
                err: None,
            })
        })
        .collect();
    (points, counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_hold_about_equal_counts_and_keep_equal_sizes_together() {
        let sizes: Vec<u64> = (1..=100).collect();
        let bins = percentile_bins(&sizes, 10);
        assert_eq!(bins.len(), 10);
        assert_eq!(bins[0].up_to_bytes, 10);
        assert_eq!(bins[9].up_to_bytes, 100);
        // Half the flows are one size: they fill one bin, not five.
        let mut skewed = vec![1000u64; 50];
        skewed.extend(1001..=1050);
        let bins = percentile_bins(&skewed, 10);
        assert_eq!(bins[0].up_to_bytes, 1000);
        assert_eq!(bins.len(), 6);
        assert!(percentile_bins(&[], 10).is_empty());
    }

    #[test]
    fn quantiles_per_bin_count_every_flow_once() {
        let bins = percentile_bins(&[10, 20, 30, 40], 2);
        let flows = [(10, 1.0), (20, 3.0), (30, 2.0), (40, 8.0)];
        let (p50, counts) = quantile_by_bin(&bins, &flows, 0.5);
        assert_eq!(counts, vec![2, 2]);
        assert_eq!(p50.iter().map(|p| p.y).collect::<Vec<_>>(), vec![1.0, 2.0]);
        let (p99, _) = quantile_by_bin(&bins, &flows, 0.99);
        assert_eq!(p99.iter().map(|p| p.y).collect::<Vec<_>>(), vec![3.0, 8.0]);
    }

    #[test]
    fn labels_read_as_sizes() {
        let b = |up| Bin {
            above_bytes: 0,
            up_to_bytes: up,
        };
        assert_eq!(b(1460).label(), "1.5K");
        assert_eq!(b(16_600).label(), "17K");
        assert_eq!(b(30_000_000).label(), "30M");
        assert_eq!(b(512).label(), "512");
    }
}

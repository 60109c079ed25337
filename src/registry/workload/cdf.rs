//! Flow-size distributions: the piecewise-linear CDFs of `workloads/`
//! (their README gives each file's provenance), or a file in the same format.
//!
//! A file is comment lines (`#`) and `<size in bytes> <cumulative probability>`
//! lines, sizes strictly ascending, probabilities non-decreasing in [0, 1],
//! the last exactly 1. Between two points the CDF is linear, so a draw
//! `u ~ U(0, 1)` falls in the segment with `p[i-1] < u <= p[i]` and its size
//! is interpolated there (the sampling the files' sources and HPCC's
//! `traffic_gen.py` use); a first probability above 0 is a point mass at the
//! first size. Sizes are rounded up to whole bytes, at least 1.

use std::fmt;

/// The distributions shipped with dcnsim, by name (`cdf = "websearch"`).
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "websearch",
        include_str!("../../../workloads/websearch.cdf"),
    ),
    (
        "datamining",
        include_str!("../../../workloads/datamining.cdf"),
    ),
    (
        "fb_hadoop",
        include_str!("../../../workloads/fb_hadoop.cdf"),
    ),
    (
        "fb_webserver",
        include_str!("../../../workloads/fb_webserver.cdf"),
    ),
    (
        "fb_cachefollower",
        include_str!("../../../workloads/fb_cachefollower.cdf"),
    ),
    (
        "websearch_hpcc",
        include_str!("../../../workloads/variants/websearch_hpcc.cdf"),
    ),
    (
        "fb_hadoop_homa",
        include_str!("../../../workloads/variants/fb_hadoop_homa.cdf"),
    ),
    (
        "fb_hadoop_mqecn",
        include_str!("../../../workloads/variants/fb_hadoop_mqecn.cdf"),
    ),
    (
        "fb_cache_mqecn",
        include_str!("../../../workloads/variants/fb_cache_mqecn.cdf"),
    ),
];

/// A flow-size CDF.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowSizeCdf {
    /// `(size in bytes, cumulative probability)`, sizes ascending.
    points: Vec<(u64, f64)>,
    mean_bytes: f64,
}

/// What is wrong with a CDF text, and on which line (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CdfError {
    /// The line at fault (0: the text as a whole).
    pub line: usize,
    /// Why.
    pub message: String,
}

impl fmt::Display for CdfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => f.write_str(&self.message),
            n => write!(f, "line {n}: {}", self.message),
        }
    }
}

/// The mean of the piecewise-linear distribution through `points` (at
/// least one): the point mass at the first size, then each segment's
/// midpoint times its probability.
fn mean_bytes(points: &[(u64, f64)]) -> f64 {
    let (x0, p0) = points[0];
    let mut mean = x0 as f64 * p0;
    for w in points.windows(2) {
        let ((xa, pa), (xb, pb)) = (w[0], w[1]);
        mean += (xa as f64 + xb as f64) / 2.0 * (pb - pa);
    }
    mean
}

impl FlowSizeCdf {
    /// A shipped distribution by name.
    pub fn builtin(name: &str) -> Option<FlowSizeCdf> {
        let (_, text) = BUILTIN.iter().find(|(n, _)| *n == name)?;
        Some(FlowSizeCdf::parse(text).expect("the shipped CDFs are valid"))
    }

    /// The names of the shipped distributions, for error messages.
    pub fn builtin_names() -> String {
        let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
        names.join(", ")
    }

    /// Parses a CDF text.
    pub fn parse(text: &str) -> Result<FlowSizeCdf, CdfError> {
        let mut points: Vec<(u64, f64)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let err = |message: String| CdfError {
                line: i + 1,
                message,
            };
            let fields: Vec<&str> = line.split_whitespace().collect();
            let &[size, p] = fields.as_slice() else {
                return Err(err(format!(
                    "'{line}' has {} fields: expected '<size in bytes> <cumulative probability>'",
                    fields.len()
                )));
            };
            let size: u64 = size
                .parse()
                .map_err(|_| err(format!("size '{size}' is not a whole number of bytes")))?;
            if size > super::MAX_FLOW_BYTES {
                return Err(err(format!(
                    "size {size} is above the largest flow, 1PB ({} B)",
                    super::MAX_FLOW_BYTES
                )));
            }
            let p: f64 = p
                .parse()
                .ok()
                .filter(|p: &f64| (0.0..=1.0).contains(p))
                .ok_or_else(|| err(format!("probability '{p}' is not a number in [0, 1]")))?;
            if let Some(&(last_size, last_p)) = points.last() {
                if size <= last_size {
                    return Err(err(format!(
                        "size {size} does not follow {last_size}: sizes must be strictly ascending"
                    )));
                }
                if p < last_p {
                    return Err(err(format!(
                        "probability {p} is below the previous {last_p}: a CDF never decreases"
                    )));
                }
            }
            points.push((size, p));
        }
        let whole = |message: &str| CdfError {
            line: 0,
            message: message.into(),
        };
        match points.last() {
            None => {
                return Err(whole(
                    "no points: expected '<size in bytes> <probability>' lines",
                ));
            }
            Some(&(_, p)) if p != 1.0 => {
                return Err(whole("the last probability must be exactly 1"));
            }
            Some(_) => {}
        }
        Ok(FlowSizeCdf {
            mean_bytes: mean_bytes(&points).max(1.0),
            points,
        })
    }

    /// The mean flow size in bytes (of the continuous distribution).
    pub fn mean_bytes(&self) -> f64 {
        self.mean_bytes
    }

    /// The size at cumulative probability `u` in (0, 1]: a draw when `u`
    /// is uniform. Rounded up to whole bytes, at least 1.
    pub fn sample(&self, u: f64) -> u64 {
        // The first point with p >= u; u <= 1 = the last p, so it exists.
        let i = self.points.partition_point(|&(_, p)| p < u);
        let (xb, pb) = self.points[i.min(self.points.len() - 1)];
        let size = match i {
            0 => xb as f64, // the point mass at the first size
            _ => {
                let (xa, pa) = self.points[i - 1];
                xa as f64 + (xb - xa) as f64 * (u - pa) / (pb - pa)
            }
        };
        // Arithmetic and ceil only (exact): the same bits on every platform.
        (size.ceil() as u64).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_cdfs_parse_with_the_means_their_headers_state() {
        for (name, text) in BUILTIN {
            let cdf = FlowSizeCdf::builtin(name).expect("shipped");
            let stated: f64 = text
                .lines()
                .find_map(|l| l.strip_prefix("# mean_bytes:"))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse().ok())
                .expect("a mean_bytes comment");
            let rel = (cdf.mean_bytes() - stated).abs() / stated;
            assert!(rel < 1e-6, "{name}: {} vs {stated}", cdf.mean_bytes());
        }
    }

    #[test]
    fn sampling_interpolates_within_segments_and_honours_point_masses() {
        let cdf =
            FlowSizeCdf::parse("# x\n8759 0\n8760 0.15\n18980 0.2\n29200000 1\n").expect("valid");
        // 15% of draws fall at the 6-packet step (8760 B, after rounding up).
        assert_eq!(cdf.sample(0.01), 8760);
        assert_eq!(cdf.sample(0.15), 8760);
        // Halfway through the second segment.
        assert_eq!(cdf.sample(0.175), 13870);
        assert_eq!(cdf.sample(1.0), 29_200_000);
        let mass = FlowSizeCdf::parse("100 0.5\n200 1\n").expect("valid");
        assert_eq!(mass.sample(0.3), 100);
        assert_eq!(mass.mean_bytes(), 100.0 * 0.5 + 150.0 * 0.5);
        // A CDF starting at 0 B never yields an empty flow.
        let zero = FlowSizeCdf::parse("0 0\n10 1\n").expect("valid");
        assert_eq!(zero.sample(1e-9), 1);
    }

    #[test]
    fn the_sample_mean_approaches_the_stated_mean() {
        let cdf = FlowSizeCdf::builtin("websearch").expect("shipped");
        let n = 200_000;
        let sum: f64 = (0..n)
            .map(|i| cdf.sample((i as f64 + 0.5) / n as f64) as f64)
            .sum();
        let rel = (sum / n as f64 - cdf.mean_bytes()).abs() / cdf.mean_bytes();
        assert!(rel < 1e-3, "{rel}");
    }

    #[test]
    fn bad_files_name_the_line_and_the_rule() {
        let cases = [
            ("100 0\n50 1\n", 2, "strictly ascending"),
            ("100 0.5\n200 0.4\n300 1\n", 2, "never decreases"),
            ("100 0\n200 1.5\n", 2, "in [0, 1]"),
            ("100 0\n2e5 1\n", 2, "whole number of bytes"),
            ("100 0 7\n", 1, "3 fields"),
            ("100 0\n200 0.9\n", 0, "exactly 1"),
            ("# only comments\n", 0, "no points"),
        ];
        for (text, line, why) in cases {
            let e = FlowSizeCdf::parse(text).expect_err(text);
            assert_eq!(e.line, line, "{text}: {e}");
            assert!(e.message.contains(why), "{text}: {e}");
        }
    }
}

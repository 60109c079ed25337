//! The verdict engine's rules, on numbers alone: what makes a difference
//! an effect (larger than the spread over seeds), when a series grows,
//! falls or stays flat, and what a number's place on an axis is. Each rule
//! is a pure function of [`Point`]s, so that each is unit-tested apart
//! from any run.
//!
//! **Seed by seed** (issue 57). Every scheme of an experiment runs the same
//! workload for a given seed (common random numbers), so a comparison
//! between two selections is judged on the paired per-seed differences or
//! ratios, not on whether the two ranges over seeds overlap: on MQ-ECN's
//! quick sweep the mean FCT moves about 12% from seed to seed while MQ-ECN
//! over the standard threshold stays 0.962-0.974 on every seed, a real
//! few-percent effect that overlapping ranges could never show. A point
//! keeps its seeds' values for that ([`Point::per_seed`]); where two points
//! do not share their seeds (a hand-made point), the ranges rule applies.

/// The seeds a direction needs before its spread means anything: with
/// fewer, the report says the claim rests on too few seeds.
pub const SEEDS_NEEDED: usize = 3;

/// The smallest difference a direction counts as an effect, relative to
/// the larger of the two numbers: a 0.24% difference (253.8 against 253.2
/// ms) is no effect even when the seeds agree to the microsecond, and no
/// bar chart of a paper could show it. A claim of a smaller effect gives
/// the paper's number and a tolerance instead.
pub const MIN_EFFECT: f64 = 0.02;

/// One of our numbers: a metric at one value of an axis (or the only one),
/// reduced over its seeds, with the range of the seeds' values.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The axis value, as `sweep.csv` writes it ("" without an axis).
    pub at: String,
    /// The selection's statistic over the seeds (the mean unless it asks
    /// for `min` or `max`).
    pub value: f64,
    /// The lowest seed's value.
    pub lo: f64,
    /// The highest seed's value.
    pub hi: f64,
    /// How many seeds.
    pub seeds: usize,
    /// Each seed's value, by seed, in seed order (empty where unknown).
    pub per_seed: Vec<(u64, f64)>,
}

impl Point {
    /// A point of one seed (no spread).
    pub fn one(at: &str, v: f64) -> Point {
        Point {
            at: at.to_string(),
            value: v,
            lo: v,
            hi: v,
            seeds: 1,
            per_seed: Vec::new(),
        }
    }

    /// The point of `values` (one per seed, seeds unknown) reduced by `stat`.
    pub fn of(at: &str, values: &[f64], stat: &str) -> Point {
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let value = match stat {
            "min" => lo,
            "max" => hi,
            _ => values.iter().sum::<f64>() / values.len() as f64,
        };
        Point {
            at: at.to_string(),
            value,
            lo,
            hi,
            seeds: values.len(),
            per_seed: Vec::new(),
        }
    }

    /// The point of `values`, each with its seed, reduced by `stat`.
    pub fn of_seeds(at: &str, values: &[(u64, f64)], stat: &str) -> Point {
        let only: Vec<f64> = values.iter().map(|v| v.1).collect();
        let mut per_seed = values.to_vec();
        per_seed.sort_by_key(|v| v.0);
        Point {
            per_seed,
            ..Point::of(at, &only, stat)
        }
    }

    /// The two points' seeds' values side by side, when they share their
    /// seeds (each point of an experiment's runs does).
    pub fn paired<'a>(&'a self, other: &'a Point) -> Option<Vec<(f64, f64)>> {
        let same = !self.per_seed.is_empty()
            && self.per_seed.len() == other.per_seed.len()
            && (self.per_seed.iter().zip(&other.per_seed)).all(|(a, b)| a.0 == b.0);
        same.then(|| {
            (self.per_seed.iter().zip(&other.per_seed))
                .map(|(a, b)| (a.1, b.1))
                .collect()
        })
    }

    /// The range of the seeds' values.
    pub fn spread(&self) -> f64 {
        self.hi - self.lo
    }

    /// This point divided by `d` (a `per` denominator): its value the
    /// ratio of the two, its range that of the per-seed ratios (seed by
    /// seed), or the widest the two ranges allow where the seeds are not
    /// known; `None` when `d` can be zero.
    pub fn per(&self, d: &Point) -> Option<Point> {
        if d.value == 0.0 || d.lo <= 0.0 && d.hi >= 0.0 {
            return None;
        }
        if let Some(pairs) = self.paired(d) {
            let per_seed: Vec<(u64, f64)> = (self.per_seed.iter().zip(&pairs))
                .map(|(s, (a, b))| (s.0, a / b))
                .collect();
            let ratios = per_seed.iter().map(|r| r.1);
            return Some(Point {
                at: self.at.clone(),
                value: self.value / d.value,
                lo: ratios.clone().fold(f64::INFINITY, f64::min),
                hi: ratios.fold(f64::NEG_INFINITY, f64::max),
                seeds: per_seed.len(),
                per_seed,
            });
        }
        let q = [
            self.lo / d.lo,
            self.lo / d.hi,
            self.hi / d.lo,
            self.hi / d.hi,
        ];
        Some(Point {
            at: self.at.clone(),
            value: self.value / d.value,
            lo: q.iter().copied().fold(f64::INFINITY, f64::min),
            hi: q.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            seeds: self.seeds.min(d.seeds),
            per_seed: Vec::new(),
        })
    }

    /// This point in another unit: `f` a conversion that keeps order.
    pub fn map(&self, f: &dyn Fn(f64) -> f64) -> Point {
        Point {
            value: f(self.value),
            lo: f(self.lo),
            hi: f(self.hi),
            per_seed: self.per_seed.iter().map(|&(s, v)| (s, f(v))).collect(),
            ..self.clone()
        }
    }

    /// The mean of `points` (an `over` claim's number): seed by seed where
    /// they share their seeds (each seed's mean over the points, the range
    /// that of those means), else its range the mean of their ranges' ends.
    pub fn mean(points: &[Point]) -> Point {
        let n = points.len() as f64;
        let sum = |f: fn(&Point) -> f64| points.iter().map(f).sum::<f64>() / n;
        let seeds = points.iter().map(|p| p.seeds).min().unwrap_or(0);
        let shared = points
            .first()
            .is_some_and(|first| points.iter().all(|p| first.paired(p).is_some()));
        if shared {
            let per_seed: Vec<(u64, f64)> = (0..points[0].per_seed.len())
                .map(|i| {
                    let v = points.iter().map(|p| p.per_seed[i].1).sum::<f64>() / n;
                    (points[0].per_seed[i].0, v)
                })
                .collect();
            let means = per_seed.iter().map(|v| v.1);
            return Point {
                at: String::new(),
                value: sum(|p| p.value),
                lo: means.clone().fold(f64::INFINITY, f64::min),
                hi: means.fold(f64::NEG_INFINITY, f64::max),
                seeds,
                per_seed,
            };
        }
        Point {
            at: String::new(),
            value: sum(|p| p.value),
            lo: sum(|p| p.lo),
            hi: sum(|p| p.hi),
            seeds,
            per_seed: Vec::new(),
        }
    }
}

/// A direction against another selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Ours is below theirs: every seed of ours below every seed of theirs.
    Below,
    /// Ours is above theirs: every seed of ours above every seed of theirs.
    Above,
    /// Ours is not clearly above theirs (ties, and differences inside the
    /// seeds' ranges, hold: "drops the fewest" when both drop none).
    NotAbove,
    /// Ours is not clearly below theirs.
    NotBelow,
}

impl Direction {
    /// The claim key that names it.
    pub fn key(self) -> &'static str {
        match self {
            Direction::Below => "below",
            Direction::Above => "above",
            Direction::NotAbove => "not_above",
            Direction::NotBelow => "not_below",
        }
    }

    /// Whether it holds, seed by seed where the two share their seeds.
    /// A strict direction needs an effect: on every seed ours on the
    /// claimed side of theirs (where the seeds are not shared: the two
    /// ranges apart), and the difference of the means at least
    /// [`MIN_EFFECT`] of the larger. A weak one ("no more than") fails on
    /// an effect the other way, and also on an excess the floor is too
    /// small to call an effect but every seed shows: ABQ dropping 227
    /// against ECN's 224 on all three seeds does not drop the fewest.
    pub fn holds(self, ours: &Point, theirs: &Point) -> bool {
        let pairs = ours.paired(theirs);
        // Every seed of `lower` below its pair in `upper` (a difference in
        // the last bits of a float is a tie).
        let beneath = |lower: &Point, upper: &Point| match lower.paired(upper) {
            Some(p) => p.iter().all(|(l, u)| u - l > 1e-9 * l.abs().max(u.abs())),
            None => lower.hi < upper.lo,
        };
        let effect = |lower: &Point, upper: &Point| {
            let scale = lower.value.abs().max(upper.value.abs());
            beneath(lower, upper) && upper.value - lower.value >= MIN_EFFECT * scale
        };
        match (self, pairs) {
            (Direction::Below, _) => effect(ours, theirs),
            (Direction::Above, _) => effect(theirs, ours),
            (Direction::NotAbove, Some(_)) => !beneath(theirs, ours),
            (Direction::NotBelow, Some(_)) => !beneath(ours, theirs),
            (Direction::NotAbove, None) => !effect(theirs, ours),
            (Direction::NotBelow, None) => !effect(ours, theirs),
        }
    }
}

/// A trend's judgement: whether it holds, and the first step that breaks it.
#[derive(Debug, Clone, PartialEq)]
pub struct Trend {
    /// Whether the series moves the claimed way from first to last by
    /// more than the seeds' spread, and no step goes against it.
    pub holds: bool,
    /// The steps that go the claimed way (or stay within the tolerance).
    pub steps_held: usize,
    /// The steps, one fewer than the points.
    pub steps: usize,
    /// The first step against the trend: (from, to).
    pub broken: Option<(Point, Point)>,
}

/// Judges a trend over every step of `points` (in axis order): each step
/// must go the claimed way (`grows`: up), or stay within `tolerance` of
/// the step before it (relative) or within the two points' seed ranges;
/// and the last point must differ from the first the claimed way by more
/// than their spread. A first-against-last rule would pass a series that
/// falls from 24.1% to 17.9% on its way up.
pub fn trend(points: &[Point], grows: bool, tolerance: f64) -> Trend {
    let steps = points.len().saturating_sub(1);
    let mut held = 0;
    let mut broken = None;
    for w in points.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        let slack = tolerance * a.value.abs();
        let ok = if grows {
            b.value >= a.value - slack || b.hi >= a.lo
        } else {
            b.value <= a.value + slack || b.lo <= a.hi
        };
        if ok {
            held += 1;
        } else if broken.is_none() {
            broken = Some((a.clone(), b.clone()));
        }
    }
    let ends = match (points.first(), points.last()) {
        (Some(first), Some(last)) if steps > 0 => {
            let d = if grows {
                Direction::Above
            } else {
                Direction::Below
            };
            d.holds(last, first)
        }
        _ => false,
    };
    Trend {
        holds: ends && held == steps,
        steps_held: held,
        steps,
        broken,
    }
}

/// A flat series' judgement: the mean of the points and the point
/// furthest from it, relative to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Flat {
    /// Whether every point is within the band around the mean.
    pub holds: bool,
    /// The mean of the points' values.
    pub mean: f64,
    /// The point furthest from the mean, and its distance over the mean.
    pub furthest: Option<(Point, f64)>,
}

/// Judges "stays about the same": every point within `within` (relative)
/// of the points' mean. A series that falls tenfold is not flat, whatever
/// its ends say.
pub fn flat(points: &[Point], within: f64) -> Flat {
    if points.is_empty() {
        return Flat {
            holds: false,
            mean: f64::NAN,
            furthest: None,
        };
    }
    let mean = points.iter().map(|p| p.value).sum::<f64>() / points.len() as f64;
    let off = |p: &Point| {
        if mean == 0.0 {
            if p.value == 0.0 { 0.0 } else { f64::INFINITY }
        } else {
            ((p.value - mean) / mean).abs()
        }
    };
    let furthest = points.iter().map(|p| (p.clone(), off(p))).fold(
        None,
        |best: Option<(Point, f64)>, (p, d)| match best {
            Some((_, bd)) if bd >= d => best,
            _ => Some((p, d)),
        },
    );
    let holds = furthest.as_ref().is_some_and(|(_, d)| *d <= within);
    Flat {
        holds,
        mean,
        furthest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seeds(at: &str, v: &[f64]) -> Point {
        Point::of(at, v, "mean")
    }

    fn series(v: &[f64]) -> Vec<Point> {
        v.iter()
            .enumerate()
            .map(|(i, &v)| Point::one(&i.to_string(), v))
            .collect()
    }

    #[test]
    fn a_difference_inside_the_seed_spread_is_not_an_effect() {
        // Means 253.2 and 253.8, seeds overlapping: neither below nor above.
        let a = seeds("", &[250.0, 253.2, 256.4]);
        let b = seeds("", &[251.0, 253.8, 256.6]);
        assert!(a.value < b.value);
        assert!(!Direction::Below.holds(&a, &b));
        assert!(!Direction::Above.holds(&b, &a));
        // ... and so neither is clearly above the other.
        assert!(Direction::NotAbove.holds(&b, &a));
        assert!(Direction::NotBelow.holds(&a, &b));
        // Apart by more than the spread: an effect.
        let c = seeds("", &[260.0, 261.0, 262.0]);
        assert!(Direction::Below.holds(&a, &c));
        assert!(!Direction::NotBelow.holds(&a, &c));
        assert!(!Direction::NotAbove.holds(&c, &a));
    }

    #[test]
    fn one_seed_compares_plainly_but_needs_an_effect() {
        let (a, b) = (Point::one("", 1.85), Point::one("", 1.93));
        assert!(Direction::Below.holds(&a, &b));
        assert!(!Direction::Below.holds(&a, &a), "a tie is not below");
        assert!(Direction::NotAbove.holds(&a, &a), "a tie is not above");
        // Seeds that agree to the microsecond do not make 0.24% an effect.
        let (dt, abq) = (seeds("", &[253.8, 253.8]), seeds("", &[253.2, 253.2]));
        assert!(!Direction::Above.holds(&dt, &abq));
        assert!(Direction::NotAbove.holds(&dt, &abq));
        assert!(Direction::NotBelow.holds(&abq, &dt));
        // 2% is one.
        let c = Point::one("", 258.4);
        assert!(Direction::Above.holds(&c, &abq));
        assert!(!Direction::NotAbove.holds(&c, &abq));
    }

    #[test]
    fn a_non_monotone_series_fails_a_trend() {
        // Up overall, but down from 24.1 to 17.9 on the way.
        let t = trend(&series(&[10.0, 24.1, 17.9, 30.0]), true, 0.05);
        assert!(!t.holds);
        assert_eq!((t.steps_held, t.steps), (2, 3));
        let (a, b) = t.broken.expect("the falling step");
        assert_eq!((a.value, b.value), (24.1, 17.9));
        // Within the tolerance, a dip is allowed.
        assert!(trend(&series(&[10.0, 24.1, 23.5, 30.0]), true, 0.05).holds);
        assert!(!trend(&series(&[10.0, 24.1, 23.5, 30.0]), true, 0.0).holds);
        // Falling trends mirror it.
        assert!(trend(&series(&[5.0, 4.0, 4.0, 1.0]), false, 0.0).holds);
        assert!(!trend(&series(&[5.0, 4.0, 4.5, 1.0]), false, 0.0).holds);
    }

    #[test]
    fn a_trend_needs_its_ends_apart_by_more_than_the_spread() {
        let flat_ends = [seeds("1", &[1.0, 2.0, 3.0]), seeds("2", &[1.5, 2.5, 3.5])];
        assert!(!trend(&flat_ends, true, 0.0).holds);
        let apart = [seeds("1", &[1.0, 2.0, 3.0]), seeds("2", &[4.0, 5.0, 6.0])];
        assert!(trend(&apart, true, 0.0).holds);
        // A dip inside the seeds' ranges is noise, not a break.
        let noisy = [
            seeds("1", &[1.0, 1.1, 1.2]),
            seeds("2", &[2.0, 3.0, 4.0]),
            seeds("3", &[2.5, 2.9, 3.1]),
            seeds("4", &[6.0, 6.1, 6.2]),
        ];
        assert!(trend(&noisy, true, 0.0).holds);
        assert!(
            !trend(&noisy[..1], true, 0.0).holds,
            "one point is no trend"
        );
    }

    #[test]
    fn flat_means_every_point_inside_the_band() {
        let f = flat(&series(&[10.0, 11.0, 9.5, 10.5]), 0.1);
        assert!(f.holds);
        // A tenfold fall is not flat, whatever the ends.
        let f = flat(&series(&[10.0, 5.0, 1.0]), 0.25);
        assert!(!f.holds);
        let (p, off) = f.furthest.expect("a point");
        assert_eq!(p.value, 10.0, "the furthest from the mean 5.33");
        let mean: f64 = 16.0 / 3.0;
        assert!((off - (10.0 - mean) / mean).abs() < 1e-12);
        assert!(!flat(&[], 0.5).holds);
    }

    fn paired(at: &str, v: &[f64]) -> Point {
        let seeds: Vec<(u64, f64)> = (1u64..).zip(v.iter().copied()).collect();
        Point::of_seeds(at, &seeds, "mean")
    }

    /// Issue 57: schemes run the same workload per seed, so a comparison
    /// is judged on the paired seeds. Means 100 and 97, seeds spread by
    /// 24%: the ranges overlap, yet every seed's pair is 3% apart.
    #[test]
    fn a_comparison_is_judged_seed_by_seed() {
        let std = paired("", &[88.0, 100.0, 112.0]);
        let mq = paired("", &[85.36, 97.0, 108.64]);
        assert!(std.lo < mq.hi, "the ranges overlap");
        assert!(Direction::Below.holds(&mq, &std));
        assert!(!Direction::Below.holds(&std, &mq));
        // One seed the other way breaks it, whatever the means.
        let mixed = paired("", &[89.0, 97.0, 108.64]);
        assert!(!Direction::Below.holds(&mixed, &std));
        assert!(Direction::NotAbove.holds(&mixed, &std));
        // Paired but under the 2% floor: no effect.
        let close = paired("", &[87.0, 99.0, 111.0]);
        assert!(!Direction::Below.holds(&close, &std));
    }

    /// ABQ dropping 227 against ECN's 224 on every seed is above it,
    /// however small the excess: "drops the fewest" does not hold.
    #[test]
    fn a_deterministic_excess_breaks_not_above() {
        let abq = paired("", &[227.0, 227.0, 227.0]);
        let ecn = paired("", &[224.0, 224.0, 224.0]);
        assert!(!Direction::NotAbove.holds(&abq, &ecn));
        assert!(!Direction::Above.holds(&abq, &ecn), "nor is it an effect");
        assert!(Direction::NotBelow.holds(&abq, &ecn));
        // A tie, or an excess on some seeds only, holds.
        assert!(Direction::NotAbove.holds(&ecn, &ecn));
        let some = paired("", &[227.0, 220.0, 227.0]);
        assert!(Direction::NotAbove.holds(&some, &ecn));
        // Floats that differ in their last bits are a tie.
        let noise = paired("", &[224.0 * (1.0 + 1e-12), 224.0, 224.0]);
        assert!(Direction::NotAbove.holds(&noise, &ecn));
    }

    #[test]
    fn a_paired_ratio_ranges_over_the_per_seed_ratios_and_a_mean_over_seeds() {
        let a = paired("", &[2.0, 4.0]);
        let b = paired("", &[1.0, 2.0]);
        let r = a.per(&b).expect("a ratio");
        // Seed by seed both ratios are 2: no spread, where the ranges
        // would allow 1 to 4.
        assert_eq!((r.value, r.lo, r.hi), (2.0, 2.0, 2.0));
        assert_eq!(r.per_seed, vec![(1, 2.0), (2, 2.0)]);
        // The mean over an axis keeps each seed's mean.
        let m = Point::mean(&[paired("1", &[1.0, 3.0]), paired("2", &[3.0, 5.0])]);
        assert_eq!((m.value, m.lo, m.hi), (3.0, 2.0, 4.0));
        assert_eq!(m.per_seed, vec![(1, 2.0), (2, 4.0)]);
    }

    #[test]
    fn a_ratio_keeps_the_widest_range_and_refuses_a_zero_denominator() {
        let r = seeds("", &[2.0, 4.0])
            .per(&seeds("", &[1.0, 2.0]))
            .expect("a ratio");
        assert_eq!((r.value, r.lo, r.hi), (2.0, 1.0, 4.0));
        assert!(Point::one("", 1.0).per(&Point::one("", 0.0)).is_none());
        assert!(Point::one("", 1.0).per(&seeds("", &[-1.0, 1.0])).is_none());
    }
}

//! The verdict engine's rules, on numbers alone: what makes a difference
//! an effect (larger than the spread over seeds), when a series grows,
//! falls or stays flat, and what a number's place on an axis is. Each rule
//! is a pure function of [`Point`]s, so that each is unit-tested apart
//! from any run.

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
        }
    }

    /// The point of `values` (one per seed) reduced by `stat`.
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
        }
    }

    /// The range of the seeds' values.
    pub fn spread(&self) -> f64 {
        self.hi - self.lo
    }

    /// This point divided by `d` (a `per` denominator), its range the
    /// widest the two ranges allow; `None` when `d` can be zero.
    pub fn per(&self, d: &Point) -> Option<Point> {
        if d.value == 0.0 || d.lo <= 0.0 && d.hi >= 0.0 {
            return None;
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
        })
    }

    /// This point in another unit: `f` a conversion that keeps order.
    pub fn map(&self, f: &dyn Fn(f64) -> f64) -> Point {
        Point {
            value: f(self.value),
            lo: f(self.lo),
            hi: f(self.hi),
            ..self.clone()
        }
    }

    /// The mean of `points` (an `over` claim's number), its range the mean
    /// of their ranges' ends.
    pub fn mean(points: &[Point]) -> Point {
        let n = points.len() as f64;
        let sum = |f: fn(&Point) -> f64| points.iter().map(f).sum::<f64>() / n;
        Point {
            at: String::new(),
            value: sum(|p| p.value),
            lo: sum(|p| p.lo),
            hi: sum(|p| p.hi),
            seeds: points.iter().map(|p| p.seeds).min().unwrap_or(0),
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

    /// Whether it holds. A strict direction needs an effect: the seeds'
    /// ranges apart (the difference larger than the spread over seeds;
    /// with one seed each, a plain comparison) and the difference at least
    /// [`MIN_EFFECT`]. A weak one holds unless the strict one the other way
    /// does: "no more than" is broken only by an effect.
    pub fn holds(self, ours: &Point, theirs: &Point) -> bool {
        let effect = |lower: &Point, upper: &Point| {
            let scale = lower.value.abs().max(upper.value.abs());
            lower.hi < upper.lo && upper.value - lower.value >= MIN_EFFECT * scale
        };
        match self {
            Direction::Below => effect(ours, theirs),
            Direction::Above => effect(theirs, ours),
            Direction::NotAbove => !effect(theirs, ours),
            Direction::NotBelow => !effect(ours, theirs),
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

//! Units scaled to the data, for people: a time of 200 s reads `200 s`,
//! not `200000000 us`; a queue of 3 MB reads `3 MB`. Files keep their
//! declared units (`columns`); the terminal summary and the figures use
//! these.

/// A unit for a set of values: divide by `div` to express them in `unit`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    /// What a value in the base unit is divided by.
    pub div: f64,
    /// The unit's symbol.
    pub unit: &'static str,
}

impl Scale {
    /// The base unit itself.
    pub const fn unit(unit: &'static str) -> Scale {
        Scale { div: 1.0, unit }
    }

    /// `v` in this unit.
    pub fn of(&self, v: f64) -> f64 {
        v / self.div
    }

    /// An axis label: `words (unit)`, microseconds as `µs` (a figure is
    /// set in a font that has the sign; the terminal and the files keep
    /// `us`).
    pub fn label(&self, words: &str) -> String {
        format!("{words} ({})", self.symbol())
    }

    /// The unit as a figure writes it: `µs` for `us`.
    pub fn symbol(&self) -> &'static str {
        if self.unit == "us" { "µs" } else { self.unit }
    }
}

/// The largest step of `steps` (ascending by divisor) in which `max`
/// reads as at least 1; the first when `max` is below all of them.
fn pick(max: f64, steps: &[(f64, &'static str)]) -> Scale {
    let max = if max.is_finite() { max.abs() } else { 0.0 };
    let (div, unit) = steps
        .iter()
        .rev()
        .find(|(div, _)| max >= *div)
        .copied()
        .unwrap_or(steps[0]);
    Scale { div, unit }
}

/// Times given in microseconds: ns, us, ms or s, the largest unit in
/// which `max_us` is at least 1.
pub fn time_us(max_us: f64) -> Scale {
    pick(
        max_us,
        &[(1e-3, "ns"), (1.0, "us"), (1e3, "ms"), (1e6, "s")],
    )
}

/// Sizes given in bytes: B, KB, MB or GB (powers of 1000, as the field
/// quotes flow sizes and buffers).
pub fn bytes(max_bytes: f64) -> Scale {
    pick(
        max_bytes,
        &[(1.0, "B"), (1e3, "KB"), (1e6, "MB"), (1e9, "GB")],
    )
}

/// Rates given in Gb/s: Mb/s, Gb/s or Tb/s, the largest unit in which
/// `max_gbps` is at least 1 (an aggregate of 400G links reads `1.6 Tb/s`,
/// not `1600 Gb/s` beside `10k`).
pub fn rate_gbps(max_gbps: f64) -> Scale {
    pick(max_gbps, &[(1e-3, "Mb/s"), (1.0, "Gb/s"), (1e3, "Tb/s")])
}

/// The scale for values of a declared column unit (`columns::Column::unit`)
/// whose largest is `max`: times, sizes and rates are scaled, and other
/// units (counts, packets, ratios) are shown as they are.
pub fn for_column_unit(unit: &'static str, max: f64) -> Scale {
    match unit {
        "us" => time_us(max),
        "ns" => {
            let s = time_us(max / 1e3);
            Scale {
                div: s.div * 1e3,
                unit: s.unit,
            }
        }
        "bytes" => bytes(max),
        "gbps" => rate_gbps(max),
        _ => Scale::unit(unit),
    }
}

/// `v` with about four significant digits: `1234`, `123.4`, `12.34`, `1.234`.
pub fn short(v: f64) -> String {
    let a = v.abs();
    let decimals = if a >= 1000.0 || a == 0.0 {
        0
    } else if a >= 100.0 {
        1
    } else if a >= 10.0 {
        2
    } else {
        3
    };
    format!("{v:.decimals$}")
}

/// A time in microseconds in the unit that suits it: `200 s`, `1.234 ms`.
pub fn fmt_time_us(v_us: f64) -> String {
    let s = time_us(v_us);
    format!("{} {}", short(s.of(v_us)), s.unit)
}

/// One `unit` in its family's base unit, as a power of ten, and the
/// family: times in us, sizes in bytes, rates in Gb/s, ratios in 1; `None`
/// for a unit of no family (counts, packets), which converts only to
/// itself.
fn in_base(unit: &str) -> Option<(&'static str, i32)> {
    Some(match unit {
        "ns" => ("time", -3),
        "us" => ("time", 0),
        "ms" => ("time", 3),
        "s" => ("time", 6),
        "B" | "bytes" => ("size", 0),
        "KB" => ("size", 3),
        "MB" => ("size", 6),
        "GB" => ("size", 9),
        "gbps" | "Gb/s" => ("rate", 0),
        "Mb/s" => ("rate", -3),
        "ratio" | "" => ("ratio", 0),
        "%" => ("ratio", -2),
        _ => return None,
    })
}

/// `v` in `from` expressed in `to` (`1500 us` -> `1.5 ms`); `None` when
/// the units measure different things. Scaled by an exact power of ten,
/// multiplied or divided, so `940 Mb/s` is `0.94 Gb/s` to the last bit.
pub fn convert(v: f64, from: &str, to: &str) -> Option<f64> {
    if from == to {
        return Some(v);
    }
    let ((fa, fe), (ta, te)) = (in_base(from)?, in_base(to)?);
    if fa != ta {
        return None;
    }
    let e = fe - te;
    let p = (0..e.unsigned_abs()).fold(1.0f64, |p, _| p * 10.0);
    Some(if e >= 0 { v * p } else { v / p })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_take_the_largest_unit_that_reads_at_least_one() {
        assert_eq!(time_us(200e6).unit, "s");
        assert_eq!(rate_gbps(1600.0).unit, "Tb/s");
        assert_eq!(rate_gbps(1600.0).of(1600.0), 1.6);
        assert_eq!(rate_gbps(25.0).unit, "Gb/s");
        assert_eq!(rate_gbps(0.2).unit, "Mb/s");
        assert_eq!(time_us(5.0).label("FCT"), "FCT (µs)", "a figure's µs");
        assert_eq!(time_us(999.0).unit, "us");
        assert_eq!(time_us(1000.0).unit, "ms");
        assert_eq!(time_us(0.5).unit, "ns");
        assert_eq!(time_us(0.0).unit, "ns", "nothing to show: the smallest");
        assert_eq!(fmt_time_us(200e6), "200.0 s");
        assert_eq!(fmt_time_us(1234.0), "1.234 ms");
        assert_eq!(fmt_time_us(12_800.0), "12.80 ms");
    }

    #[test]
    fn units_convert_within_their_family_only() {
        assert_eq!(convert(1500.0, "us", "ms"), Some(1.5));
        assert_eq!(convert(2.0, "MB", "bytes"), Some(2e6));
        assert_eq!(convert(0.5, "ratio", "%"), Some(50.0));
        assert_eq!(convert(940.0, "Mb/s", "gbps"), Some(0.94));
        assert_eq!(convert(3.0, "packets", "packets"), Some(3.0));
        assert_eq!(convert(3.0, "us", "MB"), None);
        assert_eq!(convert(3.0, "packets", "count"), None);
    }

    #[test]
    fn sizes_and_column_units_scale_as_declared() {
        assert_eq!(bytes(3.2e6).unit, "MB");
        assert_eq!(bytes(900.0).unit, "B");
        assert_eq!(for_column_unit("bytes", 65_000.0).unit, "KB");
        assert_eq!(for_column_unit("ns", 5e6).unit, "ms");
        assert_eq!(for_column_unit("ns", 5e6).of(5e6), 5.0);
        assert_eq!(for_column_unit("gbps", 999.0).unit, "Gb/s");
        assert_eq!(
            for_column_unit("gbps", 1e3).unit,
            "Tb/s",
            "an aggregate of 400G links"
        );
        assert_eq!(for_column_unit("packets", 1e9).unit, "packets");
    }
}

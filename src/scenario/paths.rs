//! `[routing]` (how switches and hosts choose among equal-cost paths) and
//! `[[failure]]` (links that fail or degrade during the run), read into
//! [`net::PathConfig`] and [`net::LinkFault`]s (docs/models.md, "Many
//! paths per flow").

use net::path_choice::{AdaptiveRule, PathChoice, PathConfig, Signal, Spray};
use net::{FaultKind, LinkFault};
use serde::Deserialize;
use sim_core::{SimDuration, SimTime};

/// The keys of `[routing]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RoutingKeys {
    /// A choice for every switch, or a list by tier from the ToRs up.
    pub choice: Option<toml::Value>,
    /// The idle gap that ends a flowlet.
    pub flowlet_gap: Option<SimDuration>,
    /// Entries in each switch's flowlet table.
    pub flowlet_table: Option<u32>,
    /// `"none"` (default) or `"oblivious"`.
    pub spray: Option<String>,
    /// What adaptive routing compares: `"queue"` (default) or `"delay"`.
    pub adaptive_signal: Option<String>,
    /// How adaptive routing weighs ports and moves flowlets:
    /// `"least-queued"` (default) or `"htsim"`.
    pub adaptive_rule: Option<String>,
}

/// `[routing]`, validated.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Routing {
    /// The switches' path choice.
    pub paths: PathConfig,
    /// The hosts' entropy spraying.
    pub spray: Spray,
}

impl Routing {
    /// Whether every packet of a flow takes one path, the same both ways
    /// (what R-AQM, ABQ, FairQ, HSCC and ExpressPass's credits rely on).
    pub fn symmetric(&self) -> bool {
        self.paths.all_ecmp() && self.spray == Spray::None
    }

    /// Why routing is not symmetric, as a key and a phrase.
    pub fn asymmetry(&self) -> Option<(&'static str, String)> {
        if let Some(c) = self.paths.by_tier.iter().find(|c| !c.is_symmetric()) {
            return Some(("choice", format!("choice \"{}\"", c.name())));
        }
        (self.spray != Spray::None).then(|| ("spray", format!("spray \"{}\"", self.spray.name())))
    }
}

/// A key of `[routing]` or `[[failure]]` with what is wrong with it.
pub(crate) type KeyError = (&'static str, String);

/// The names of a `(value, name, meaning)` list, quoted, for errors.
fn valid_names<T>(rows: &[(T, &'static str, &'static str)]) -> String {
    let names: Vec<String> = rows.iter().map(|r| format!("\"{}\"", r.1)).collect();
    names.join(", ")
}

fn one_choice(v: &toml::Value) -> Result<PathChoice, KeyError> {
    let valid = || format!("expected a name: {}", valid_names(&PathChoice::ALL));
    let name = v.as_str().ok_or_else(|| ("choice", valid()))?;
    named(&PathChoice::ALL, Some(name), "choice")
}

impl RoutingKeys {
    /// The validated table, for a fabric of `tiers` switch tiers.
    pub fn build(&self, tiers: usize) -> Result<Routing, KeyError> {
        let d = PathConfig::default();
        let by_tier = match &self.choice {
            None => d.by_tier,
            Some(toml::Value::Array(list)) => {
                if list.is_empty() || list.len() > tiers.max(1) {
                    let msg = format!(
                        "lists a choice per switch tier, from the ToRs up: 1 to {} entries (has {})",
                        tiers.max(1),
                        list.len()
                    );
                    return Err(("choice", msg));
                }
                list.iter().map(one_choice).collect::<Result<_, _>>()?
            }
            Some(v) => vec![one_choice(v)?],
        };
        self.check_applies(&by_tier)?;
        let flowlet_gap = self.flowlet_gap.unwrap_or(d.flowlet_gap);
        if flowlet_gap.ps() == 0 {
            let msg = "must be longer than 0 (e.g. \"50us\")";
            return Err(("flowlet_gap", msg.into()));
        }
        let flowlet_entries = self.flowlet_table.unwrap_or(d.flowlet_entries);
        if !flowlet_entries.is_power_of_two() || flowlet_entries > 1 << 20 {
            let msg = format!("{flowlet_entries} entries: a power of two, 1 to 1048576");
            return Err(("flowlet_table", msg));
        }
        let spray = named(&Spray::ALL, self.spray.as_deref(), "spray")?;
        let signal = named(
            &Signal::ALL,
            self.adaptive_signal.as_deref(),
            "adaptive_signal",
        )?;
        let rule = named(
            &AdaptiveRule::ALL,
            self.adaptive_rule.as_deref(),
            "adaptive_rule",
        )?;
        if rule == AdaptiveRule::Htsim && signal != Signal::Queue {
            let msg = "\"delay\" with adaptive_rule \"htsim\", whose levels are of the queue: \
                       drop adaptive_signal or take adaptive_rule \"least-queued\"";
            return Err(("adaptive_signal", msg.into()));
        }
        Ok(Routing {
            paths: PathConfig {
                by_tier,
                flowlet_gap,
                flowlet_entries,
                signal,
                rule,
            },
            spray,
        })
    }

    /// Refuses a key that no tier's choice reads.
    fn check_applies(&self, by_tier: &[PathChoice]) -> Result<(), KeyError> {
        let flowlets = by_tier.iter().any(|c| c.uses_flowlets());
        for (key, given) in [
            ("flowlet_gap", self.flowlet_gap.is_some()),
            ("flowlet_table", self.flowlet_table.is_some()),
        ] {
            if given && !flowlets {
                let msg =
                    "applies to choice \"flowlet\" or \"adaptive-flowlet\", which no tier runs";
                return Err((key, msg.into()));
            }
        }
        let adaptive = by_tier.iter().any(|c| c.is_adaptive());
        for (key, given) in [
            ("adaptive_signal", self.adaptive_signal.is_some()),
            ("adaptive_rule", self.adaptive_rule.is_some()),
        ] {
            if given && !adaptive {
                let msg = "applies to choice \"adaptive\", \"adaptive-flowlet\" or \"ecmp-adaptive\", \
                           which no tier runs";
                return Err((key, msg.into()));
            }
        }
        Ok(())
    }
}

/// The row of `rows` named `name` (absent: the first, the default), or
/// an error at `key` listing the valid names.
fn named<T: Copy>(
    rows: &[(T, &'static str, &'static str)],
    name: Option<&str>,
    key: &'static str,
) -> Result<T, KeyError> {
    let Some(name) = name else {
        return Ok(rows[0].0);
    };
    let unknown = || {
        let msg = format!("unknown {key} \"{name}\": valid are {}", valid_names(rows));
        (key, msg)
    };
    rows.iter()
        .find(|r| r.1 == name)
        .map(|r| r.0)
        .ok_or_else(unknown)
}

/// The keys of one `[[failure]]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FailureKeys {
    /// The two nodes the failing cable joins, by name.
    pub between: Vec<String>,
    /// When it fails.
    pub at: SimDuration,
    /// The fraction of its rate it keeps (absent: it goes down).
    pub degrade: Option<f64>,
    /// How long until every switch routes around it (absent: never).
    pub reroute_after: Option<SimDuration>,
    /// Whether a degraded link slows only the direction from the first
    /// node of `between` to the second.
    #[serde(default)]
    pub one_way: bool,
    /// Whether a degraded port's buffer shrinks with its rate.
    #[serde(default)]
    pub buffer_scales: bool,
}

impl FailureKeys {
    /// The failure, its cable found among `cables` by the names of its
    /// nodes (topology names or `hN`/`sN`, `scenario::nodes`).
    pub fn build(
        &self,
        nodes: &super::nodes::Nodes,
        cables: &[net::Cable],
    ) -> Result<LinkFault, KeyError> {
        let [a, b] = self.between.as_slice() else {
            let msg = format!(
                "names the two nodes of one cable (has {})",
                self.between.len()
            );
            return Err(("between", msg));
        };
        let node = |name: &String| {
            (nodes.find(name))
                .map(|n| n as usize)
                .map_err(|msg| ("between", msg))
        };
        let (na, nb) = (node(a)?, node(b)?);
        let cable = cables
            .iter()
            .position(|c| {
                let (x, y) = (c.a.idx(), c.b.idx());
                (x, y) == (na, nb) || (x, y) == (nb, na)
            })
            .ok_or_else(|| ("between", format!("no cable joins \"{a}\" and \"{b}\"")))?;
        let kind = match self.degrade {
            None => FaultKind::Down,
            Some(x) if x > 0.0 && x < 1.0 => FaultKind::Degrade(x),
            Some(x) => {
                let msg = format!(
                    "{x}: the fraction of its rate the link keeps, above 0 and below 1 (leave it out for a link that goes down)"
                );
                return Err(("degrade", msg));
            }
        };
        if self.reroute_after.is_some() && kind != FaultKind::Down {
            let msg = "a degraded link stays up and is not routed around: leave reroute_after out";
            return Err(("reroute_after", msg.into()));
        }
        if kind == FaultKind::Down {
            for (key, on) in [
                ("one_way", self.one_way),
                ("buffer_scales", self.buffer_scales),
            ] {
                if on {
                    let msg =
                        format!("applies to a degraded link: give degrade, or leave {key} out");
                    return Err((key, msg));
                }
            }
        }
        Ok(LinkFault {
            cable,
            at: SimTime::ZERO + self.at,
            kind,
            reroute_after: self.reroute_after,
            only_from: self.one_way.then_some(net::NodeId(na as u32)),
            buffer_scales: self.buffer_scales,
        })
    }
}

/// Failures of one cable must make sense together: it goes down once, a
/// degradation after it goes down means nothing, and one direction takes
/// one degradation at a time. Several degradations of a direction at
/// different times each set its rate (and buffer) to their fraction of
/// the original from their time on: the latest in effect wins, they do
/// not compound (docs/models.md, "Link failures"). The failure at fault
/// (its index) and why.
pub(crate) fn check_one_cable(failures: &[LinkFault]) -> Result<(), (usize, String)> {
    use net::FaultKind::{Degrade, Down};
    let at = |f: &LinkFault| f.at.since(sim_core::SimTime::ZERO);
    for (j, b) in failures.iter().enumerate() {
        for (i, a) in failures[..j].iter().enumerate() {
            if a.cable != b.cable {
                continue;
            }
            let msg = match (a.kind, b.kind) {
                (Down, Down) => format!(
                    "its cable already goes down at {} (failure[{i}]): a cable fails once",
                    at(a)
                ),
                (Down, Degrade(_)) | (Degrade(_), Down) => {
                    let (down, other) = if a.kind == Down { (a, b) } else { (b, a) };
                    if other.at < down.at {
                        continue;
                    }
                    format!(
                        "its cable is down from {} (failure[{i}] and this one): a degradation \
                         from then on means nothing",
                        at(down)
                    )
                }
                (Degrade(_), Degrade(_)) => {
                    let overlap = a.only_from.is_none()
                        || b.only_from.is_none()
                        || a.only_from == b.only_from;
                    if a.at != b.at || !overlap {
                        continue;
                    }
                    format!(
                        "failure[{i}] degrades the same direction of its cable at the same time \
                         ({}): give one degradation a time",
                        at(a)
                    )
                }
            };
            return Err((j, msg));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(choice: Option<toml::Value>) -> RoutingKeys {
        RoutingKeys {
            choice,
            flowlet_gap: None,
            flowlet_table: None,
            spray: None,
            adaptive_signal: None,
            adaptive_rule: None,
        }
    }

    #[test]
    fn choice_is_a_name_or_a_list_by_tier() {
        let one = keys(Some("adaptive".into())).build(3).unwrap();
        assert_eq!(one.paths.choice(2), PathChoice::Adaptive);
        // Tier 1 is the ToRs.
        let list = toml::Value::Array(vec!["ecmp".into(), "flowlet".into()]);
        let r = keys(Some(list)).build(3).unwrap();
        assert_eq!(r.paths.choice(1), PathChoice::Ecmp);
        assert_eq!(r.paths.choice(2), PathChoice::Flowlet);
        assert_eq!(r.paths.choice(3), PathChoice::Flowlet);
        let long = toml::Value::Array(vec!["ecmp".into(); 4]);
        assert_eq!(keys(Some(long)).build(3).unwrap_err().0, "choice");
        let bad = keys(Some("spray".into())).build(3).unwrap_err();
        assert!(bad.1.contains("\"adaptive-flowlet\""), "{}", bad.1);
    }

    #[test]
    fn symmetry_is_ecmp_without_spraying() {
        assert!(Routing::default().symmetric());
        let r = keys(Some("random".into())).build(2).unwrap();
        assert_eq!(r.asymmetry().unwrap().0, "choice");
        let mut k = keys(None);
        k.spray = Some("oblivious".into());
        assert_eq!(k.build(2).unwrap().asymmetry().unwrap().0, "spray");
    }

    #[test]
    fn a_failure_names_a_cable() {
        let names: Vec<String> = ["h0", "h1", "s0", "s1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let cable = |a, b| net::Cable {
            a: net::NodeId(a),
            b: net::NodeId(b),
            rate: sim_core::Bandwidth::from_gbps(10),
            delay: SimDuration::from_us(1),
        };
        let cables = [cable(0, 2), cable(1, 3), cable(2, 3)];
        let nodes = super::super::nodes::Nodes::new(&names, 2);
        let mut f = FailureKeys {
            between: vec!["s1".into(), "s0".into()],
            at: SimDuration::from_us(5),
            degrade: None,
            reroute_after: Some(SimDuration::from_us(10)),
            one_way: false,
            buffer_scales: false,
        };
        let built = f.build(&nodes, &cables).unwrap();
        assert_eq!((built.cable, built.kind), (2, FaultKind::Down));
        f.between = vec!["h0".into(), "s1".into()];
        assert!(f.build(&nodes, &cables).unwrap_err().1.contains("no cable"));
        f.between = vec!["h0".into(), "x".into()];
        assert!(f.build(&nodes, &cables).unwrap_err().1.contains("no node"));
        f.between = vec!["s0".into(), "s1".into()];
        f.degrade = Some(1.5);
        assert_eq!(f.build(&nodes, &cables).unwrap_err().0, "degrade");
        f.degrade = None;
        f.one_way = true;
        assert_eq!(
            f.build(&nodes, &cables).unwrap_err().0,
            "one_way",
            "a link down both ways"
        );
        f.degrade = Some(0.5);
        assert_eq!(f.build(&nodes, &cables).unwrap_err().0, "reroute_after");
        f.reroute_after = None;
        let built = f.build(&nodes, &cables).unwrap();
        assert_eq!(
            built.only_from,
            Some(net::NodeId(2)),
            "slows the way out of s0"
        );
        f.degrade = None;
        f.one_way = false;
        f.buffer_scales = true;
        assert_eq!(f.build(&nodes, &cables).unwrap_err().0, "buffer_scales");
    }
}

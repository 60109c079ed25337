//! The link-utilisation series of `links.csv` (`[output] link_interval`):
//! every interval, each tier's utilisation, the bits its links started
//! sending in the interval over what they could have sent. A tier is a
//! direction between two kinds of node, named by the topology's words
//! (`host->tor`, `tor->agg`, `agg->core`, `core->agg`, `agg->tor`,
//! `tor->host`; `host->leaf`, `leaf->spine`, ...), so that a figure shows
//! where a fabric's load sits, as htsim's users read it per layer.

use super::World;
use sim_core::{SimDuration, SimTime};

/// One `links.csv` row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkSample {
    /// The end of the interval (ps).
    pub time_ps: u64,
    /// The tier, an index into `LinkSeries::tiers`.
    pub tier: u16,
    /// Bits started onto the tier's links in the interval over their
    /// capacity in it (0 to 1).
    pub utilisation: f64,
}

/// One tier: its name, its ports' count and their summed rate.
#[derive(Clone, Debug, PartialEq)]
pub struct Tier {
    /// `host->tor`: the kinds of the sending node and of the next.
    pub name: String,
    /// Its links (egress ports).
    pub links: u32,
    /// Their rates summed, bits per second.
    pub capacity_bps: u128,
}

/// What the series keeps between samples.
pub(super) struct LinkSeries {
    pub interval: SimDuration,
    /// The tiers, in the order their first port comes.
    pub tiers: Vec<Tier>,
    /// Each port's tier.
    port_tier: Vec<u16>,
    /// Each port's bytes sent at the last sample.
    last: Vec<u64>,
    /// This interval's bytes per tier (kept to reuse).
    scratch: Vec<u128>,
    /// The rows so far.
    pub rows: Vec<LinkSample>,
}

/// A node's kind in the topology's words: its name without its number
/// (`tor3` -> `tor`, `host17` -> `host`, `p1-tor0` -> `p1-tor`).
fn kind_of(name: &str) -> &str {
    name.trim_end_matches(|c: char| c.is_ascii_digit())
}

impl LinkSeries {
    /// The series every `interval` over the fabric's ports, whose tiers
    /// come from the nodes' names.
    pub fn new(interval: SimDuration, world: &World) -> LinkSeries {
        let name = |n: net::NodeId| world.node_names.get(n.idx()).map_or("?", String::as_str);
        let mut tiers: Vec<Tier> = Vec::new();
        let mut port_tier = Vec::with_capacity(world.fabric.ports().len());
        for port in world.fabric.port_facts_all() {
            let tier = format!(
                "{}->{}",
                kind_of(name(port.node)),
                kind_of(name(port.peer_node))
            );
            let i = match tiers.iter().position(|t| t.name == tier) {
                Some(i) => i,
                None => {
                    tiers.push(Tier {
                        name: tier,
                        links: 0,
                        capacity_bps: 0,
                    });
                    tiers.len() - 1
                }
            };
            tiers[i].links += 1;
            tiers[i].capacity_bps += u128::from(port.rate.bps());
            port_tier.push(i as u16);
        }
        LinkSeries {
            interval,
            scratch: vec![0; tiers.len()],
            last: vec![0; port_tier.len()],
            tiers,
            port_tier,
            rows: Vec::new(),
        }
    }
}

impl World {
    /// Records one interval's utilisation per tier (`series.rs` says
    /// when), over this copy's ports and `others`' (the other LPs' copies
    /// of a cut run): integer sums, the same in any order.
    pub(super) fn record_links(&mut self, now: SimTime, others: &[&World]) {
        let Some(l) = self.links.as_mut() else {
            return;
        };
        l.scratch.iter_mut().for_each(|b| *b = 0);
        let copies = std::iter::once(&self.fabric).chain(others.iter().map(|o| &o.fabric));
        for (p, port) in copies.flat_map(|f| f.ports().iter()) {
            let (i, sent) = (p.idx(), port.stats.tx_bytes);
            l.scratch[l.port_tier[i] as usize] += u128::from(sent - l.last[i]);
            l.last[i] = sent;
        }
        let seconds = l.interval.ps() as f64 / 1e12;
        for (t, (&bytes, tier)) in l.scratch.iter().zip(&l.tiers).enumerate() {
            let possible = tier.capacity_bps as f64 * seconds;
            l.rows.push(LinkSample {
                time_ps: now.ps(),
                tier: t as u16,
                utilisation: if possible > 0.0 {
                    (bytes * 8) as f64 / possible
                } else {
                    0.0
                },
            });
        }
    }

    /// The link series' tiers and rows (`None` when it is off).
    pub fn link_samples(&self) -> Option<(&[Tier], &[LinkSample])> {
        self.links.as_ref().map(|l| (&l.tiers[..], &l.rows[..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_kind_is_its_name_without_its_number() {
        assert_eq!(kind_of("tor3"), "tor");
        assert_eq!(kind_of("host17"), "host");
        assert_eq!(kind_of("p1-tor0"), "p1-tor");
        assert_eq!(kind_of("switch"), "switch");
    }
}

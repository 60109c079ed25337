//! Homa's keys (`[transport]` with `kind = "homa"`) and the priority
//! cutoffs it derives from the workload (Homa section 3.4).

use crate::keys::KeyError;
use serde::Deserialize;
use sim_core::{Bytes, SimDuration};

/// The most priority levels Homa may use (its paper's switches have 8).
pub const MAX_LEVELS: u8 = 8;

/// Homa's configuration. `rtt_bytes` and the cutoffs are set when the run
/// is built ([`HomaConfig::prepare`]), from the paths and the workload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HomaConfig {
    /// Payload bytes per DATA packet (1500 B MTU - 60 B of headers).
    pub mss_bytes: u32,
    /// Priority levels in all (section 5: 8).
    pub levels: u8,
    /// Unscheduled levels as configured (`None`: from the workload's share
    /// of unscheduled bytes, 3.4).
    pub unscheduled_levels: Option<u8>,
    /// RTTbytes as configured (`None`: the largest base BDP of the flows'
    /// paths, 3.3: "the number of bytes that can be transmitted in one
    /// round trip").
    pub rtt_bytes: Option<u64>,
    /// Messages granted at once (`None`: as many as scheduled levels, 3.5).
    pub overcommitment: Option<u32>,
    /// Silence after which a receiver asks for missing bytes (3.7).
    pub resend_timeout: SimDuration,
    /// The levels and cutoffs in force (after [`HomaConfig::prepare`]).
    pub prio: Priorities,
}

/// The priority levels in force: how many are unscheduled, the message
/// lengths that bound each unscheduled level, RTTbytes and the degree of
/// overcommitment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Priorities {
    /// Levels in all.
    pub levels: u8,
    /// The first `unscheduled` levels (0 = highest) carry unscheduled bytes.
    pub unscheduled: u8,
    /// Level `j < unscheduled` carries messages of at most `cutoffs[j]`
    /// bytes (the last is `u64::MAX`).
    pub cutoffs: [u64; MAX_LEVELS as usize],
    /// Bytes sent blindly and kept granted beyond what has arrived.
    pub rtt_bytes: u64,
    /// Messages granted at once.
    pub overcommitment: u32,
}

impl Priorities {
    /// The unscheduled level of a message of `size` bytes.
    pub fn unscheduled_level(&self, size: u64) -> u8 {
        let u = self.unscheduled as usize;
        self.cutoffs[..u]
            .iter()
            .position(|&c| size <= c)
            .unwrap_or(u - 1) as u8
    }

    /// The scheduled level of the message ranked `rank` (0: fewest bytes
    /// left) of `active` granted ones: the highest scheduled level down,
    /// shifted to the lowest levels when fewer messages than levels
    /// (3.4: new arrivals then find a higher level free).
    pub fn scheduled_level(&self, rank: usize, active: usize) -> u8 {
        let sched = (self.levels - self.unscheduled) as usize;
        let top = self.unscheduled as usize + sched.saturating_sub(active);
        (top + rank).min(self.levels as usize - 1) as u8
    }
}

impl Default for HomaConfig {
    fn default() -> Self {
        HomaConfig {
            mss_bytes: 1440,
            levels: MAX_LEVELS,
            unscheduled_levels: None,
            rtt_bytes: None,
            overcommitment: None,
            resend_timeout: SimDuration::from_us(1000),
            prio: Priorities {
                levels: MAX_LEVELS,
                unscheduled: 1,
                cutoffs: [u64::MAX; MAX_LEVELS as usize],
                rtt_bytes: 0,
                overcommitment: 1,
            },
        }
    }
}

impl HomaConfig {
    /// Sets RTTbytes (`path_bdp` unless configured) and the cutoffs from
    /// the lengths of the messages this transport will carry (3.4: each
    /// unscheduled level carries an equal share of the unscheduled bytes,
    /// the shortest messages the highest level; as many unscheduled levels
    /// as the unscheduled bytes' share of all bytes, of `levels`, at
    /// least one and leaving one scheduled).
    pub fn prepare(&mut self, path_bdp: u64, sizes: &[u64]) {
        let rtt = self.rtt_bytes.unwrap_or(path_bdp).max(1);
        let mut sorted: Vec<u64> = sizes.iter().copied().filter(|&s| s > 0).collect();
        sorted.sort_unstable();
        let unsched = |s: u64| s.min(rtt) as f64;
        let total_unsched: f64 = sorted.iter().map(|&s| unsched(s)).sum();
        let total: f64 = sorted.iter().map(|&s| s as f64).sum();
        let levels = self.levels;
        let u = self.unscheduled_levels.unwrap_or_else(|| {
            let share = if total > 0.0 {
                total_unsched / total
            } else {
                1.0
            };
            ((share * levels as f64).round() as u8).clamp(1, levels - 1)
        });
        let mut cutoffs = [u64::MAX; MAX_LEVELS as usize];
        let (mut acc, mut j) = (0.0, 0usize);
        for &s in &sorted {
            acc += unsched(s);
            while j + 1 < u as usize && acc >= total_unsched * (j + 1) as f64 / u as f64 {
                cutoffs[j] = s;
                j += 1;
            }
        }
        let sched = (levels - u) as u32;
        self.prio = Priorities {
            levels,
            unscheduled: u,
            cutoffs,
            rtt_bytes: rtt,
            overcommitment: self.overcommitment.unwrap_or(sched),
        };
    }

    /// IP bytes of a full DATA packet.
    pub fn packet_bytes(&self) -> u32 {
        self.mss_bytes + super::DATA_HEADER_BYTES
    }
}

/// `[transport]` of the Homa family as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HomaKeys {
    /// See [`HomaConfig::mss_bytes`].
    pub mss: Option<Bytes>,
    /// See [`HomaConfig::levels`].
    pub priorities: Option<u8>,
    /// See [`HomaConfig::unscheduled_levels`].
    pub unscheduled_priorities: Option<u8>,
    /// See [`HomaConfig::rtt_bytes`].
    pub rtt_bytes: Option<Bytes>,
    /// See [`HomaConfig::overcommitment`].
    pub overcommitment: Option<u32>,
    /// See [`HomaConfig::resend_timeout`].
    pub resend_timeout: Option<SimDuration>,
}

fn err(key: &'static str, message: impl Into<String>) -> KeyError {
    KeyError {
        key,
        message: message.into(),
    }
}

impl HomaKeys {
    /// The checked configuration, or the first invalid key.
    pub fn build(&self) -> Result<HomaConfig, KeyError> {
        let mut c = HomaConfig::default();
        if let Some(m) = self.mss {
            if !(1..=65_000).contains(&m.0) {
                return Err(err("mss", "must be 1 B to 65000 B"));
            }
            c.mss_bytes = m.0 as u32;
        }
        if let Some(p) = self.priorities {
            if !(2..=MAX_LEVELS).contains(&p) {
                return Err(err(
                    "priorities",
                    format!(
                        "must be 2 to {MAX_LEVELS} (one unscheduled and one scheduled level at least)"
                    ),
                ));
            }
            c.levels = p;
        }
        if let Some(u) = self.unscheduled_priorities {
            if u < 1 || u >= c.levels {
                return Err(err(
                    "unscheduled_priorities",
                    format!(
                        "must be 1 to {} (priorities - 1: one level stays scheduled)",
                        c.levels - 1
                    ),
                ));
            }
            c.unscheduled_levels = Some(u);
        }
        if let Some(r) = self.rtt_bytes {
            if r.0 == 0 {
                return Err(err("rtt_bytes", "must be at least 1 B"));
            }
            c.rtt_bytes = Some(r.0);
        }
        if let Some(k) = self.overcommitment {
            if k == 0 {
                return Err(err("overcommitment", "must be at least 1 message"));
            }
            c.overcommitment = Some(k);
        }
        if let Some(t) = self.resend_timeout {
            if t < SimDuration::from_us(1) {
                return Err(err("resend_timeout", "must be at least 1us"));
            }
            c.resend_timeout = t;
        }
        Ok(c)
    }
}

impl crate::family::Family for HomaConfig {
    fn name(&self) -> &'static str {
        "homa"
    }
    fn protocol(&self) -> net::Protocol {
        net::Protocol::Homa
    }
    /// RTTbytes is the largest path BDP unless configured.
    fn needs_bdp(&self) -> bool {
        self.rtt_bytes.is_none()
    }
    fn mss(&self) -> u64 {
        self.mss_bytes as u64
    }
    fn data_header_bytes(&self) -> u32 {
        super::DATA_HEADER_BYTES
    }
    fn ack_bytes(&self) -> u32 {
        super::CONTROL_BYTES
    }
    fn priority_levels(&self) -> Option<u8> {
        Some(self.levels)
    }
    /// RTTbytes (the largest base BDP of its flows' paths, unless set) and
    /// the priority cutoffs (from the lengths of its messages).
    fn prepare(
        &mut self,
        flows: &[crate::family::PlannedFlow],
        path: &dyn Fn(&crate::family::PlannedFlow) -> crate::PathInfo,
    ) {
        let sizes: Vec<u64> = flows
            .iter()
            .map(|f| f.size.unwrap_or(u64::MAX / 2))
            .collect();
        let bdp = match self.rtt_bytes {
            Some(_) => 0,
            None => flows.iter().map(|f| path(f).bdp_bytes).max().unwrap_or(0),
        };
        HomaConfig::prepare(self, bdp, &sizes);
    }
    /// Homa's sender serves its messages shortest first (3.2).
    fn nic_discipline(&self) -> crate::family::NicDiscipline {
        crate::family::NicDiscipline::Srpt
    }
}

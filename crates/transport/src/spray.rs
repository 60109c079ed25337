//! How a sender sprays: each packet's entropy value (UE 1.0 packet
//! spraying), and REPS's cache of good ones (Bonato et al., "REPS:
//! Recycled Entropy Packet Spraying", 2024; htsim `uec_mp.cpp` and
//! `buffer_reps.cpp` at 40ccb05). Shared ground: UEC sprays by any of
//! these modes, NDP obliviously or not at all.
//!
//! - Oblivious: the flow's `n` entropy values in turn, XORed with a mask
//!   drawn anew each round, so every round visits each value once in a
//!   fresh order.
//! - REPS: an ACK that echoes an entropy value unmarked puts it in a ring
//!   of `buffer` slots; the next packet reuses the oldest fresh one, or
//!   explores a random value when none is fresh. After a timeout (a path
//!   that failed) the ring freezes: packets cycle over the cached values,
//!   fresh or not, for `freeze`; then the ring is emptied and the next 16
//!   packets explore.
//! - Bitmap (htsim's `UecMpBitmap`): the oblivious order, but a value with
//!   a penalty is skipped: an ECN-marked ACK adds 1, a NACK 4, a timeout
//!   15, capped at 15; each packet takes one off the first penalised value
//!   it skips. htsim's timeouts name no value (`UNKNOWN_EV`, 0), so a
//!   timeout penalises value 0, as it does there.
//! - REPS-legacy (htsim's `UecMpRepsLegacy`): while fewer packets than
//!   min(window in packets, values) have been sent, the values in turn;
//!   then the oldest value an unmarked ACK returned (an unbounded queue),
//!   or a random one when the queue is empty.
//! - Mixed (htsim's default, `UecMpMixed`): REPS-legacy's queued value
//!   when there is one, else the bitmap's choice; both hear every
//!   feedback.

use sim_core::rng::{RngStream, purpose};
use sim_core::{SimDuration, SimTime};

/// REPS' cache of entropy values by default (htsim's 8).
pub const REPS_BUFFER: u16 = 8;
/// How long REPS freezes its cache after a timeout by default (10 ms).
pub const REPS_FREEZE: SimDuration = SimDuration::from_us(10_000);

/// How a sender picks each packet's entropy value (UE 1.0's packet
/// spraying, htsim's `UecMultipath`; NDP sprays obliviously or not at all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprayMode {
    /// One entropy value per flow: every packet hashes alike (per-flow ECMP).
    None,
    /// Oblivious spraying: the `entropies` values in turn, in an order
    /// shuffled anew each round.
    Oblivious,
    /// REPS (Bonato et al., "REPS: Recycled Entropy Packet Spraying", 2024):
    /// reuse the entropy values whose ACKs came back unmarked, explore a
    /// random one when none is cached, and freeze the cache after a
    /// timeout (a failed path).
    Reps,
    /// htsim's bitmap (`UecMpBitmap`): the oblivious order, skipping
    /// values with a penalty (an ECN-marked ACK adds 1, a NACK 4, a
    /// timeout 15, capped at 15), each skip taking one off the first
    /// value skipped.
    Bitmap,
    /// htsim's REPS before its ring (`UecMpRepsLegacy`): the first
    /// window's packets take the values in turn; after it, the oldest
    /// value an unmarked ACK returned, or a random one when none is queued.
    RepsLegacy,
    /// htsim's default (`UecMpMixed`, `-load_balancing_algo mixed`): a
    /// value an unmarked ACK returned (REPS-legacy's queue) when there is
    /// one, else the bitmap's; both hear every ACK, NACK and timeout.
    Mixed,
}

impl SprayMode {
    /// Every mode: `(mode, name, meaning)`, the one list the keys, errors
    /// and docs read.
    pub const ALL: [(SprayMode, &'static str, &'static str); 6] = [
        (
            SprayMode::None,
            "none",
            "one entropy value per flow (per-flow ECMP)",
        ),
        (
            SprayMode::Oblivious,
            "oblivious",
            "every entropy value in turn, reshuffled each round",
        ),
        (
            SprayMode::Reps,
            "reps",
            "recycle the entropy values whose ACKs came back unmarked (REPS)",
        ),
        (
            SprayMode::Bitmap,
            "bitmap",
            "every value in turn, skipping those penalised by marks, NACKs and timeouts (htsim's bitmap)",
        ),
        (
            SprayMode::RepsLegacy,
            "reps-legacy",
            "the first window in turn, then the values unmarked ACKs returned, oldest first (htsim's reps_legacy)",
        ),
        (
            SprayMode::Mixed,
            "mixed",
            "a value an unmarked ACK returned, else the bitmap's (htsim's default, mixed)",
        ),
    ];

    /// The mode's name in TOML.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|r| r.0 == self).map_or("?", |r| r.1)
    }
}

/// Packets that explore after a freeze ends (htsim's `explore_counter`).
const EXPLORE_AFTER_FREEZE: u16 = 16;

/// What an ACK or its absence says of the entropy value it echoes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathFeedback {
    /// Acknowledged without a CE mark.
    Good,
    /// Acknowledged CE-marked.
    Ecn,
    /// NACKed: the packet was trimmed.
    Nack,
    /// The retransmission timer expired (the value is not known).
    Timeout,
}

/// REPS's ring of entropy values.
#[derive(Clone, Debug)]
struct Ring {
    values: Vec<(u16, bool)>,
    head: usize,
    count: usize,
    fresh: usize,
    frozen_at: usize,
    frozen_until: Option<SimTime>,
    explore: u16,
}

impl Ring {
    fn new(size: u16) -> Self {
        Ring {
            values: vec![(0, false); size as usize],
            head: 0,
            count: 0,
            fresh: 0,
            frozen_at: 0,
            frozen_until: None,
            explore: 0,
        }
    }

    fn add(&mut self, ev: u16) {
        let cap = self.values.len();
        if !self.values[self.head].1 {
            self.fresh = (self.fresh + 1).min(cap);
        }
        self.values[self.head] = (ev, true);
        self.head = (self.head + 1) % cap;
        self.count = (self.count + 1).min(cap);
    }

    /// The oldest fresh value (there is one).
    fn take_oldest_fresh(&mut self) -> u16 {
        let cap = self.values.len();
        let at = (self.head + cap - self.fresh) % cap;
        self.values[at].1 = false;
        self.fresh -= 1;
        self.values[at].0
    }

    /// The next cached value in turn, fresh or not.
    fn take_frozen(&mut self) -> u16 {
        let at = self.frozen_at % self.count;
        if self.values[at].1 {
            self.values[at].1 = false;
            self.fresh -= 1;
        }
        self.frozen_at = (at + 1) % self.count;
        self.values[at].0
    }

    fn reset(&mut self) {
        self.values.iter_mut().for_each(|v| *v = (0, false));
        self.head = 0;
        self.count = 0;
        self.fresh = 0;
        self.frozen_at = 0;
    }
}

/// The bitmap's largest penalty (htsim's `_max_penalty`), and what each
/// feedback adds.
const MAX_PENALTY: u8 = 15;

/// htsim's bitmap and REPS-legacy state (empty for the other modes).
#[derive(Clone, Debug, Default)]
struct Legacy {
    /// Per value: its bitmap penalty.
    penalty: Vec<u8>,
    /// REPS-legacy: the values unmarked ACKs returned, oldest first.
    queued: std::collections::VecDeque<u16>,
    /// REPS-legacy: the value the first window took last.
    turn: u16,
}

/// One flow's entropy chooser.
#[derive(Clone, Debug)]
pub struct Entropies {
    mode: SprayMode,
    /// Values are `0..n`, `n` a power of two.
    n: u16,
    rng: RngStream,
    /// Oblivious and bitmap: the place in this round and the round's mask.
    index: u16,
    mask: u16,
    ring: Ring,
    freeze: SimDuration,
    legacy: Legacy,
}

impl Entropies {
    /// The chooser of flow `flow` in `mode` over `n` values, REPS caching
    /// `reps_buffer` values and freezing for `reps_freeze` after a timeout.
    pub fn with_reps(
        mode: SprayMode,
        n: u16,
        (reps_buffer, reps_freeze): (u16, SimDuration),
        seed: u64,
        flow: u64,
    ) -> Self {
        let mut e = Entropies::of(mode, n, seed, flow);
        e.ring = Ring::new(reps_buffer);
        e.freeze = reps_freeze;
        e
    }

    /// The chooser of flow `flow` in `mode` over `n` values (REPS, if
    /// asked, with its defaults: 8 values cached, frozen 10 ms).
    pub fn of(mode: SprayMode, n: u16, seed: u64, flow: u64) -> Self {
        let mut rng = RngStream::new(seed, flow, purpose::ENTROPY);
        let n = n.max(1);
        let mask = rng.below(n as u64) as u16;
        let penalised = matches!(mode, SprayMode::Bitmap | SprayMode::Mixed);
        Entropies {
            mode,
            n,
            rng,
            index: 0,
            mask,
            ring: Ring::new(REPS_BUFFER),
            freeze: REPS_FREEZE,
            legacy: Legacy {
                penalty: if penalised {
                    vec![0; n as usize]
                } else {
                    Vec::new()
                },
                ..Legacy::default()
            },
        }
    }

    fn random(&mut self) -> u16 {
        self.rng.below(self.n as u64) as u16
    }

    /// The oblivious order's value at its place, and the place moved on
    /// (a new round draws a new mask).
    fn in_turn(&mut self) -> u16 {
        let ev = (self.index ^ self.mask) & (self.n - 1);
        self.index += 1;
        if self.index == self.n {
            self.index = 0;
            self.mask = self.random();
        }
        ev
    }

    /// The bitmap's next value (htsim's `UecMpBitmap::nextEntropy`): the
    /// oblivious order, skipping penalised values, the first skipped one
    /// losing a point; after a whole round of penalised values, the last.
    fn bitmap(&mut self) -> u16 {
        let mut ev = (self.index ^ self.mask) & (self.n - 1);
        let mut first = true;
        let mut skipped = 0u32;
        while self.legacy.penalty[ev as usize] > 0 {
            if first {
                self.legacy.penalty[ev as usize] -= 1;
                first = false;
            }
            skipped += 1;
            if skipped > u32::from(self.n) {
                break;
            }
            self.in_turn();
            ev = (self.index ^ self.mask) & (self.n - 1);
        }
        self.in_turn();
        ev
    }

    /// REPS-legacy's next value for a packet when `sent` new packets have
    /// gone and the window holds `window` packets; `None` from its queue
    /// alone when `recycled_only` (mixed's first try).
    fn reps_legacy(&mut self, sent: u64, window: u64) -> u16 {
        if sent < window.min(u64::from(self.n)) {
            self.legacy.turn = (self.legacy.turn + 1) % self.n;
            return self.legacy.turn;
        }
        match self.legacy.queued.pop_front() {
            Some(ev) => ev,
            None => self.random(),
        }
    }

    /// The entropy value of the next packet sent, when `sent` new packets
    /// have gone before it and the window holds `window` packets (what
    /// REPS-legacy's first window reads; htsim's `_highest_sent` and
    /// `_cwnd / _mss`).
    pub fn next_value(&mut self, sent: u64, window: u64) -> u16 {
        match self.mode {
            SprayMode::None => 0,
            SprayMode::Oblivious => self.in_turn(),
            SprayMode::Bitmap => self.bitmap(),
            SprayMode::RepsLegacy => self.reps_legacy(sent, window),
            SprayMode::Mixed => match self.legacy.queued.pop_front() {
                Some(ev) => ev,
                None => self.bitmap(),
            },
            SprayMode::Reps => {
                if self.ring.explore > 0 {
                    self.ring.explore -= 1;
                    return self.random();
                }
                if self.ring.frozen_until.is_some() {
                    if self.ring.count == 0 {
                        return self.random();
                    }
                    return self.ring.take_frozen();
                }
                if self.ring.fresh == 0 {
                    return self.random();
                }
                self.ring.take_oldest_fresh()
            }
        }
    }

    /// What an ACK, a NACK or a timeout says of entropy value `ev` at `now`.
    pub fn feedback(&mut self, now: SimTime, ev: u16, fb: PathFeedback) {
        match self.mode {
            SprayMode::None | SprayMode::Oblivious => return,
            SprayMode::Reps => {}
            SprayMode::Bitmap | SprayMode::RepsLegacy | SprayMode::Mixed => {
                return self.legacy_feedback(ev, fb);
            }
        }
        let ring = &mut self.ring;
        if fb == PathFeedback::Timeout
            && ring.frozen_until.is_none()
            && ring.explore == 0
            && self.freeze > SimDuration::ZERO
        {
            ring.frozen_until = Some(now + self.freeze);
        }
        if ring.frozen_until.is_some_and(|t| now > t) {
            ring.frozen_until = None;
            ring.reset();
            ring.explore = EXPLORE_AFTER_FREEZE;
        }
        if fb == PathFeedback::Good {
            ring.add(ev);
        }
    }

    /// htsim's `processEv` for the bitmap and REPS-legacy (mixed: both).
    fn legacy_feedback(&mut self, ev: u16, fb: PathFeedback) {
        let penalised = matches!(self.mode, SprayMode::Bitmap | SprayMode::Mixed);
        let queues = matches!(self.mode, SprayMode::RepsLegacy | SprayMode::Mixed);
        if queues && fb == PathFeedback::Good {
            self.legacy.queued.push_back(ev);
        }
        if penalised {
            // A timeout names no value in htsim (UNKNOWN_EV): value 0.
            let at = if fb == PathFeedback::Timeout {
                0
            } else {
                ev & (self.n - 1)
            };
            let add = match fb {
                PathFeedback::Good => 0,
                PathFeedback::Ecn => 1,
                PathFeedback::Nack => 4,
                PathFeedback::Timeout => MAX_PENALTY,
            };
            let p = &mut self.legacy.penalty[at as usize];
            *p = p.saturating_add(add).min(MAX_PENALTY);
            debug_assert!(*p <= MAX_PENALTY);
        }
    }

    /// Whether REPS's cache is frozen (a timeout's aftermath).
    pub fn frozen(&self) -> bool {
        self.ring.frozen_until.is_some()
    }

    /// Fresh values cached.
    pub fn fresh(&self) -> usize {
        self.ring.fresh
    }
}

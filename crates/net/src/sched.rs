//! Egress schedulers: which class queue of a port sends next.
//!
//! A port has up to [`MAX_CLASSES`] class queues; class 0 is the highest
//! priority. The scheduler sees only the queues' head sizes and is told when a
//! packet left, so it never owns packets.
//!
//! - **Strict priority**: the lowest-numbered backlogged class always goes first.
//! - **DWRR** (Shreedhar and Varghese 1996, as MQ-ECN section 3.3.2 uses it):
//!   each class has a quantum `Q_i` in bytes and a deficit counter. When a
//!   class's turn starts, its deficit grows by `Q_i`; it sends head packets
//!   while the head fits in the deficit; when the head no longer fits the turn
//!   passes on with the remainder kept; when the queue empties its deficit is
//!   reset to 0. A class backlogged for M rounds sends between
//!   `M x Q_i - MTU` and `M x Q_i + MTU` bytes (MQ-ECN eq. (7)).
//! - **WRR** (quantum-based, as on chips; MQ-ECN section 3.3.2 and 4): DWRR with
//!   the deficit reset to 0 whenever a class finishes its turn, so a class
//!   sends at most `Q_i` per round. Quanta must be at least one MTU, or a
//!   class could never send.
//! - **SP over DWRR**: the first `strict` classes are served in strict
//!   priority; the others share by DWRR whenever no strict class is backlogged.

use smallvec::SmallVec;

/// The most class queues a port has: 32, the "more queues" of MQ-ECN 5.3.1
/// (commodity chips have 8; a port of up to 8 keeps its per-class state
/// inline, a larger one on the heap).
pub const MAX_CLASSES: usize = 32;

/// Classes whose per-class state sits inline, in the scheduler and in the
/// built-in AQMs: a port of up to 8 classes (every commodity chip) reads
/// them without following a pointer.
pub const INLINE_CLASSES: usize = 8;

/// The largest quantum, in bytes (a class's state holds it in 32 bits).
pub const MAX_QUANTUM_BYTES: u64 = u32::MAX as u64;

/// The round-robin state of one class: what a turn reads and writes,
/// together in 16 bytes (a port's scheduler of 8 classes stays within the
/// port's lines; see `Port`).
#[derive(Clone, Copy, Debug, Default)]
struct RrClass {
    /// Deficit counter, bytes.
    deficit: u64,
    /// Quantum, bytes.
    quantum: u32,
    /// Completed round-robin turns (wrapping; for tests of eq. (7)).
    turns: u32,
}

/// Which discipline a scheduler follows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Discipline {
    /// Strict priority, class 0 first.
    StrictPriority,
    /// Deficit weighted round robin with per-class quanta in bytes.
    Dwrr {
        /// Quantum of each class, in bytes.
        quanta: Vec<u64>,
    },
    /// Quantum-based weighted round robin (deficit reset after each turn).
    Wrr {
        /// Quantum of each class, in bytes.
        quanta: Vec<u64>,
    },
    /// Classes `0..strict` in strict priority above DWRR among the rest.
    SpDwrr {
        /// How many classes are strict.
        strict: usize,
        /// Quantum of each class (entries for strict classes are unused).
        quanta: Vec<u64>,
    },
}

/// A port's scheduler state.
#[derive(Clone, Debug)]
pub struct Scheduler {
    discipline: Discipline,
    classes: usize,
    /// Classes `0..strict` are served in strict priority (all of them for SP).
    strict: usize,
    /// Whether turns reset the deficit (WRR).
    wrr: bool,
    /// Per class, class 0 first.
    rr: SmallVec<[RrClass; INLINE_CLASSES]>,
    /// The round-robin class whose turn it is.
    cur: usize,
    /// Whether `cur`'s turn has started (its quantum was added).
    in_turn: bool,
}

impl Scheduler {
    /// A scheduler of `classes` class queues.
    pub fn new(discipline: Discipline, classes: usize) -> Self {
        assert!(
            (1..=MAX_CLASSES).contains(&classes),
            "a port has 1 to {MAX_CLASSES} classes"
        );
        if let Discipline::Dwrr { quanta }
        | Discipline::Wrr { quanta }
        | Discipline::SpDwrr { quanta, .. } = &discipline
        {
            assert_eq!(quanta.len(), classes, "one quantum per class");
            assert!(
                quanta.iter().all(|&q| q > 0 && q <= MAX_QUANTUM_BYTES),
                "quanta are positive and at most {MAX_QUANTUM_BYTES} B"
            );
        }
        let (strict, wrr, q) = match &discipline {
            Discipline::StrictPriority => (classes, false, &[][..]),
            Discipline::Dwrr { quanta } => (0, false, &quanta[..]),
            Discipline::Wrr { quanta } => (0, true, &quanta[..]),
            Discipline::SpDwrr { strict, quanta } => (*strict, false, &quanta[..]),
        };
        assert!(strict <= classes);
        let rr = (0..classes)
            .map(|c| RrClass {
                quantum: q.get(c).map_or(0, |&q| q as u32),
                ..RrClass::default()
            })
            .collect();
        Scheduler {
            discipline,
            classes,
            strict,
            wrr,
            rr,
            cur: strict.min(classes - 1),
            in_turn: false,
        }
    }

    /// A single FIFO: one class, strict priority (trivially).
    pub fn fifo() -> Self {
        Scheduler::new(Discipline::StrictPriority, 1)
    }

    /// The number of class queues.
    pub fn classes(&self) -> usize {
        self.classes
    }

    /// The discipline.
    pub fn discipline(&self) -> &Discipline {
        &self.discipline
    }

    /// The deficit counter of a class, in bytes.
    pub fn deficit(&self, class: usize) -> u64 {
        self.rr[class].deficit
    }

    /// Completed round-robin turns of a class.
    pub fn turns(&self, class: usize) -> u64 {
        self.rr[class].turns as u64
    }

    /// Picks the class that sends next. `head(c)` is the size in bytes of
    /// class `c`'s head packet, or `None` if it is empty. Returns `None` only
    /// when every class is empty. `on_turn(c, active)` hears every turn that
    /// ends: `active` when the class was served in it, not when its turn
    /// found it empty (MQ-ECN 3.3.1 samples T_round on active queues only).
    #[inline]
    pub fn pick(
        &mut self,
        head: impl Fn(usize) -> Option<u32>,
        mut on_turn: impl FnMut(usize, bool),
    ) -> Option<usize> {
        let strict = self.strict;
        if let Some(c) = (0..strict).find(|&c| head(c).is_some()) {
            return Some(c);
        }
        if !(strict..self.classes).any(|c| head(c).is_some()) {
            return None;
        }
        // Each pass over the classes adds at least one quantum to a backlogged
        // class, so a head of at most 64 KiB is reached within this many steps.
        let rr = self.classes - strict;
        let min_q = self.rr[strict..self.classes]
            .iter()
            .map(|r| r.quantum as u64)
            .min()
            .unwrap_or(1);
        let bound = 2 * rr * (1 + (u16::MAX as u64 / min_q) as usize) + 2;
        for _ in 0..bound {
            let c = self.cur;
            match head(c) {
                None => {
                    // An empty class keeps no deficit (DWRR) and yields its turn.
                    self.rr[c].deficit = 0;
                    self.end_turn(strict);
                    on_turn(c, false);
                }
                Some(size) => {
                    let r = &mut self.rr[c];
                    if !self.in_turn {
                        r.deficit += r.quantum as u64;
                        self.in_turn = true;
                    }
                    if size as u64 <= r.deficit {
                        return Some(c);
                    }
                    if self.wrr {
                        r.deficit = 0;
                    }
                    r.turns = r.turns.wrapping_add(1);
                    self.end_turn(strict);
                    on_turn(c, true);
                }
            }
        }
        unreachable!("DWRR found no sendable class within {bound} steps");
    }

    fn end_turn(&mut self, strict: usize) {
        self.in_turn = false;
        self.cur = if self.cur + 1 >= self.classes {
            strict
        } else {
            self.cur + 1
        };
    }

    /// Tells the scheduler that `class` sent a packet of `size` bytes and
    /// whether its queue is now empty; returns true when that ended the
    /// class's (active) turn.
    #[inline]
    pub fn on_sent(&mut self, class: usize, size: u32, now_empty: bool) -> bool {
        let strict = self.strict;
        if class < strict {
            return false;
        }
        // `pick` chose this class because its head fitted the deficit.
        let r = &mut self.rr[class];
        r.deficit = r
            .deficit
            .checked_sub(size as u64)
            .expect("a class sent more than its deficit: on_sent without pick");
        if now_empty {
            // DWRR: an emptied queue's deficit resets; its turn ends.
            r.deficit = 0;
            if self.cur == class && self.in_turn {
                r.turns = r.turns.wrapping_add(1);
                self.end_turn(strict);
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    /// Serves `n` packets from queues of given packet sizes; returns the
    /// classes served in order.
    fn serve(s: &mut Scheduler, queues: &mut [VecDeque<u32>], n: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for _ in 0..n {
            let Some(c) = s.pick(|c| queues[c].front().copied(), |_, _| {}) else {
                break;
            };
            let size = queues[c].pop_front().unwrap();
            s.on_sent(c, size, queues[c].is_empty());
            out.push(c);
        }
        out
    }

    #[test]
    fn dwrr_alternates_equal_quanta_and_carries_deficit() {
        let mut s = Scheduler::new(
            Discipline::Dwrr {
                quanta: vec![1500, 1500],
            },
            2,
        );
        let mut q = vec![VecDeque::from(vec![1000; 6]), VecDeque::from(vec![1500; 4])];
        let got = serve(&mut s, &mut q, 10);
        // Class 0: 1500 credit sends one 1000 B packet (500 left), then 2000
        // sends two, then 1500 (500 + 1500 = 2000, minus ...), class 1 one per turn.
        assert_eq!(got, vec![0, 1, 0, 0, 1, 0, 1, 0, 0, 1]);
    }

    #[test]
    fn a_queue_that_empties_ends_its_active_turn() {
        let mut s = Scheduler::new(
            Discipline::Dwrr {
                quanta: vec![3000, 3000],
            },
            2,
        );
        let mut turns = Vec::new();
        let mut q = [
            VecDeque::from(vec![1000u32]),
            VecDeque::from(vec![1000u32; 2]),
        ];
        let c = s
            .pick(|c| q[c].front().copied(), |c, a| turns.push((c, a)))
            .unwrap();
        assert_eq!(c, 0);
        q[0].pop_front();
        // Class 0 sent its only packet: the turn ends, actively.
        assert!(s.on_sent(0, 1000, true));
        assert_eq!(s.deficit(0), 0);
        let c = s
            .pick(|c| q[c].front().copied(), |c, a| turns.push((c, a)))
            .unwrap();
        assert_eq!(c, 1);
        q[1].pop_front();
        assert!(!s.on_sent(1, 1000, false)); // still 2000 of credit: the turn goes on
        assert!(turns.is_empty(), "{turns:?}");
    }

    #[test]
    fn wrr_resets_the_deficit_each_turn() {
        let mut s = Scheduler::new(
            Discipline::Wrr {
                quanta: vec![1500, 1500],
            },
            2,
        );
        let mut q = vec![VecDeque::from(vec![1000; 4]), VecDeque::from(vec![1500; 4])];
        let got = serve(&mut s, &mut q, 8);
        assert_eq!(got, vec![0, 1, 0, 1, 0, 1, 0, 1]);
    }

    #[test]
    fn strict_priority_serves_class_zero_first() {
        let mut s = Scheduler::new(Discipline::StrictPriority, 3);
        let mut q = vec![
            VecDeque::from(vec![100; 2]),
            VecDeque::new(),
            VecDeque::from(vec![100; 2]),
        ];
        assert_eq!(serve(&mut s, &mut q, 4), vec![0, 0, 2, 2]);
    }

    #[test]
    fn sp_over_dwrr_serves_strict_classes_first() {
        let mut s = Scheduler::new(
            Discipline::SpDwrr {
                strict: 1,
                quanta: vec![1, 1500, 3000],
            },
            3,
        );
        let mut q = vec![
            VecDeque::from(vec![500; 2]),
            VecDeque::from(vec![1500; 4]),
            VecDeque::from(vec![1500; 4]),
        ];
        let got = serve(&mut s, &mut q, 8);
        assert_eq!(&got[..2], &[0, 0]);
        assert_eq!(&got[2..], &[1, 2, 2, 1, 2, 2]);
    }

    proptest! {
        /// DWRR: a class backlogged for M of its rounds sends between
        /// M x Q - MTU and M x Q + MTU bytes (MQ-ECN eq. (7)).
        #[test]
        fn dwrr_service_is_bounded_by_quanta(
            quanta in proptest::collection::vec(1500u64..6000, 2..6),
            sizes in proptest::collection::vec(64u32..=1500, 1..40),
        ) {
            let n = quanta.len();
            let mut s = Scheduler::new(Discipline::Dwrr { quanta: quanta.clone() }, n);
            // Every class stays backlogged: a sent packet is queued again at the tail.
            let mut q: Vec<VecDeque<u32>> =
                (0..n).map(|c| sizes.iter().cycle().skip(c).take(sizes.len()).copied().collect()).collect();
            let mut sent = vec![0u64; n];
            for _ in 0..600 {
                let c = s.pick(|c| q[c].front().copied(), |_, _| {}).unwrap();
                let size = q[c].pop_front().unwrap();
                q[c].push_back(size);
                s.on_sent(c, size, false);
                sent[c] += size as u64;
            }
            for c in 0..n {
                let m = s.turns(c);
                // Mid-turn, the class has the current turn's credit too.
                let lo = (m * quanta[c]).saturating_sub(1500);
                let hi = (m + 1) * quanta[c] + 1500;
                prop_assert!(sent[c] >= lo && sent[c] <= hi, "class {c}: sent {} after {m} turns of {}", sent[c], quanta[c]);
            }
        }

        /// Strict priority never serves a class while a higher one is backlogged.
        #[test]
        fn strict_priority_never_inverts(
            arrivals in proptest::collection::vec((0usize..4, 64u32..1500), 1..200),
        ) {
            let mut s = Scheduler::new(Discipline::StrictPriority, 4);
            let mut q: Vec<VecDeque<u32>> = vec![VecDeque::new(); 4];
            for (i, &(c, size)) in arrivals.iter().enumerate() {
                q[c].push_back(size);
                if i % 2 == 1 {
                    let got = s.pick(|c| q[c].front().copied(), |_, _| {}).unwrap();
                    prop_assert!((0..got).all(|h| q[h].is_empty()));
                    q[got].pop_front();
                }
            }
        }
    }
}

//! The serial part of a window: choosing the next, routing the mail,
//! checking the run's bounds. Across MPI ranks every rank runs its own
//! leader on the same reduced values (the earliest next event of all
//! LPs, the events of all, the stop flags, the progress watch's sums), so
//! every rank takes the same decision at the same window's end.

use super::{Lps, SOLO_BELOW, due, lock};
use crate::world::{StopReason, livelock};
use sim_core::{SimDuration, SimTime};
use std::time::{Duration, Instant};

/// How a partitioned run ended.
pub(super) struct Ending {
    pub(super) reason: StopReason,
    /// The progress watch and the time of its check, if it stopped the run.
    pub(super) watch: Option<(livelock::Watch, SimTime)>,
    /// Samples taken between windows (events of an undivided run).
    pub(super) samples: u64,
}

/// The stop flags a window's end reduces over the ranks (a bit each).
const OVERFLOWED: u64 = 1;
const INTERRUPTED: u64 = 2;

/// The serial part of a window.
pub(super) struct Leader {
    /// The earliest pending event of all LPs (`None`: nothing pending).
    next: Option<SimTime>,
    events: u64,
    next_progress: u64,
    every: u64,
    next_check: u64,
    /// The progress watch's next point of simulated time.
    next_time: SimTime,
    watch: livelock::Watch,
    /// When the progress watch stopped the run, if it did.
    watch_fired: Option<SimTime>,
    /// Windows run so far.
    pub(super) windows: u64,
    /// Time in the serial part between windows.
    pub(super) serial: Duration,
    /// Of it, time in the ranks' exchanges.
    pub(super) exchange: Duration,
    /// The sampled series' next samples.
    due: due::Due,
    /// Events in the last window.
    last_window_events: u64,
    /// This rank's progress call asked to stop (across ranks, every rank
    /// stops at the next window's end).
    stop_asked: bool,
}

impl Leader {
    pub(super) fn new(lps: &Lps, every: u64) -> Leader {
        let next = (lps.slots.iter())
            .filter_map(|s| lock(s).world.next_event())
            .min();
        let every = every.clamp(1, livelock::CHECK_EVENTS);
        Leader {
            next: lps.min_over_ranks(next),
            events: 0,
            next_progress: every,
            every,
            next_check: livelock::CHECK_EVENTS,
            next_time: livelock::next_time_check(SimTime::ZERO),
            watch: livelock::Watch::default(),
            watch_fired: None,
            windows: 0,
            serial: Duration::ZERO,
            exchange: Duration::ZERO,
            due: due::Due::new(&lock(&lps.slots[0]).world),
            last_window_events: 0,
            stop_asked: false,
        }
    }

    /// Whether the next window runs on this thread alone: the last one
    /// held fewer than [`SOLO_BELOW`] events, too little work to pay for
    /// waking the others and meeting them at the barriers. Which thread
    /// runs an LP changes no result, so this changes none either.
    pub(super) fn solo(&self) -> bool {
        self.last_window_events < SOLO_BELOW
    }

    /// The end of the next window (inclusive), or why the run is over.
    pub(super) fn next_window(&mut self, lps: &Lps) -> Result<SimTime, StopReason> {
        // Samples due before the next event, or with nothing else left,
        // are taken first, between windows.
        while let Some(t) =
            (self.due.next()).filter(|&t| t <= lps.limit.end && self.next.is_none_or(|n| t <= n))
        {
            self.due.take(lps, t);
        }
        let sample = self.due.next();
        let first = [self.next, sample].into_iter().flatten().min();
        match first {
            None if lps.open_flows() > 0 => Err(StopReason::Stalled),
            None => Err(StopReason::Completed),
            Some(SimTime::MAX) => Err(StopReason::TimeOverflow),
            Some(t) if t > lps.limit.end => Err(StopReason::StopTime),
            Some(t) => {
                let last = t.ps().saturating_add(lps.lookahead.ps() - 1);
                // A window ends before the next sample's time.
                let last = sample.map_or(last, |s| last.min(s.ps() - 1));
                Ok((SimTime::ZERO + SimDuration::from_ps(last)).min(lps.limit.end))
            }
        }
    }

    /// Routes the window's mail and checks the bounds.
    pub(super) fn after_window(
        &mut self,
        lps: &Lps,
        end: SimTime,
        progress: &mut dyn FnMut(SimTime) -> bool,
    ) -> Option<StopReason> {
        self.windows += 1;
        let t0 = Instant::now();
        let (next, events, overflowed) = lps.route_mail();
        let mut flags = if overflowed { OVERFLOWED } else { 0 };
        if self.stop_asked {
            flags |= INTERRUPTED;
        }
        let (next, events, flags) = lps.reduce_window(next, events + self.due.taken, flags);
        if lps.peers.is_some() {
            self.exchange += t0.elapsed();
        }
        self.next = next;
        self.last_window_events = events - self.events;
        self.events = events;
        if flags & OVERFLOWED != 0 {
            return Some(StopReason::TimeOverflow);
        }
        if flags & INTERRUPTED != 0 {
            return Some(StopReason::Interrupted);
        }
        if events >= lps.limit.max_events {
            return Some(StopReason::EventLimit);
        }
        if events >= self.next_progress {
            self.next_progress = events.saturating_add(self.every);
            if !progress(end) {
                if lps.peers.is_none() {
                    return Some(StopReason::Interrupted);
                }
                self.stop_asked = true;
            }
        }
        // The progress watch checks at window ends: the first after each
        // CHECK_EVENTS events, and the first at or after each of its
        // points of simulated time.
        let mut checks = Vec::new();
        if events >= self.next_check {
            self.next_check = events.saturating_add(livelock::CHECK_EVENTS);
            checks.push(livelock::CheckKind::Events);
        }
        if end >= self.next_time {
            while self.next_time <= end {
                self.next_time = livelock::next_time_check(self.next_time);
            }
            checks.push(livelock::CheckKind::Time);
        }
        for kind in checks {
            if self.livelocked(lps, end, kind) {
                self.watch_fired = Some(end);
                return Some(StopReason::Stalled);
            }
        }
        None
    }

    /// The progress watch over all LPs (`livelock.rs`). Each rank keeps
    /// its own flows' timeouts at the quiet's start; what the watch
    /// decides on is summed over the ranks.
    fn livelocked(&mut self, lps: &Lps, now: SimTime, kind: livelock::CheckKind) -> bool {
        let slots = || lps.slots.iter().map(lock);
        let mut seen = livelock::Seen::default();
        for s in slots() {
            seen.add(s.world.seen(now));
        }
        let [delivered, open, sources, due] = lps.sum_over_ranks([
            seen.delivered,
            seen.open as u64,
            seen.sources as u64,
            u64::from(seen.due),
        ]);
        let seen = livelock::Seen {
            delivered,
            open: open as usize,
            sources: sources as usize,
            due: due > 0,
        };
        match self.watch.check(seen, now, kind) {
            livelock::Verdict::Going => false,
            livelock::Verdict::QuietBegins => {
                let mut then = std::mem::take(self.watch.timeouts_then());
                for s in slots() {
                    s.world.timeouts(&mut then);
                }
                *self.watch.timeouts_then() = then;
                false
            }
            livelock::Verdict::Quiet => {
                let mut waits = livelock::Waits::default();
                let then = std::mem::take(self.watch.timeouts_then());
                for s in slots() {
                    waits.add(s.world.waits(&then));
                }
                *self.watch.timeouts_then() = then;
                let [any, patient] =
                    lps.sum_over_ranks([u64::from(waits.any), u64::from(waits.patient)]);
                self.watch.stalled(livelock::Waits {
                    any: any > 0,
                    patient: patient > 0,
                })
            }
        }
    }

    /// The run's end: at its stop time every LP's clock moves there.
    pub(super) fn finish(&mut self, lps: &Lps, reason: StopReason) -> Ending {
        if reason == StopReason::StopTime {
            for s in &lps.slots {
                lock(s).world.advance_to(lps.limit.end);
            }
        }
        Ending {
            reason,
            watch: (self.watch_fired).map(|at| (std::mem::take(&mut self.watch), at)),
            samples: self.due.taken,
        }
    }
}

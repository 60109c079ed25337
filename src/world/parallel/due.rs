//! The sampled series of a partitioned run (`world/series.rs`), taken
//! between windows: a window never runs past a sample's time, and the
//! sample reads every LP's state once all of them have run every event
//! before it. The rows go to LP 0's copy, which keeps them (and streams
//! them) as an undivided run does; what a series reads of the other LPs
//! (their ports and flow halves) it reads in their copies, and the RTT
//! samples of the interval move to LP 0's (`World::gather_rtt`). A series samples again one interval later while
//! traffic remains anywhere and anything else is pending, the undivided
//! run's rule, read over all LPs and their mail.

use super::{Lps, lock};
use crate::world::{Series, World};
use sim_core::SimTime;

/// When each series is next due (`None`: not taken, or stopped).
pub(super) struct Due {
    at: [Option<SimTime>; Series::ALL.len()],
    /// Samples taken (each counts as the event it is in an undivided run).
    pub(super) taken: u64,
}

impl Due {
    /// The first sample of every series `lp0` takes.
    pub(super) fn new(lp0: &World) -> Due {
        Due {
            at: Series::ALL.map(|s| lp0.first_sample(s)),
            taken: 0,
        }
    }

    /// The earliest sample due.
    pub(super) fn next(&self) -> Option<SimTime> {
        self.at.iter().flatten().min().copied()
    }

    /// Takes every sample due at `t`, in [`Series::ALL`]'s order.
    pub(super) fn take(&mut self, lps: &Lps, t: SimTime) {
        let mut guards: Vec<_> = lps.slots.iter().map(lock).collect();
        for (i, s) in Series::ALL.into_iter().enumerate() {
            if self.at[i] != Some(t) {
                continue;
            }
            let (lp0, others) = guards.split_first_mut().expect("several LPs");
            let lp0 = &mut lp0.world;
            if s == Series::Rtt {
                for o in others.iter_mut() {
                    lp0.gather_rtt(&mut o.world);
                }
            }
            let held: Vec<&World> = others.iter().map(|o| &o.world).collect();
            lp0.record(s, t, &held);
            self.taken += 1;
            let mail = |g: &super::Slot| g.inbox.iter().any(|b| !b.is_empty());
            let traffic = guards.iter().any(|g| g.world.traffic_pending() || mail(g));
            let others_due = (0..self.at.len()).any(|j| j != i && self.at[j].is_some());
            let pending = others_due
                || guards
                    .iter()
                    .any(|g| g.world.next_event().is_some() || mail(g));
            let interval = guards[0].world.interval_of(s);
            self.at[i] = interval.filter(|_| traffic && pending).map(|i| t + i);
        }
    }
}

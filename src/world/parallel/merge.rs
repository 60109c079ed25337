//! The end of a partitioned run: every LP's rows (`finished.rs`) merged
//! in LP order into LP 0's copy, which the report reads. Across MPI
//! ranks each rank sends its LPs' rows to rank 0 as bytes, one message,
//! and rank 0 merges them after its own, in rank order: LP order, since
//! a rank holds consecutive LPs.

use super::{Ending, Lps};
use crate::world::finished::{self, Finished, Merge};
use crate::world::{StopReason, World};

impl Lps {
    /// Lands what is still in the mail, then merges every LP's rows into
    /// LP 0's copy. Each other copy is dropped once its rows are taken,
    /// so the merge's peak is LP 0's copy and the rows. `None` at a rank
    /// other than 0, once its rows are sent.
    pub(super) fn merge(self, end: Ending) -> Option<(World, StopReason)> {
        let Ending {
            reason,
            watch,
            samples,
        } = end;
        // Every LP lands its mail and gives back its buffers before any
        // merges: the merge's peak is then the copies' results alone.
        let copies: Vec<World> = (self.slots.into_iter())
            .map(|m| {
                let mut slot = m.into_inner().unwrap_or_else(|e| e.into_inner());
                for from in &mut slot.inbox {
                    slot.world.land(from);
                }
                slot.world.shed_run_buffers();
                slot.world
            })
            .collect();
        // The latest of every rank's (last activity, clock), in one exchange.
        let mut latest = [
            copies
                .iter()
                .map(|w| w.last_activity.ps())
                .max()
                .unwrap_or(0),
            copies.iter().map(|w| w.q.now().ps()).max().unwrap_or(0),
        ];
        if let Some(p) = &self.peers {
            for pair in p.all_words(&latest).chunks_exact(2) {
                latest = [latest[0].max(pair[0]), latest[1].max(pair[1])];
            }
        }
        let [last_activity, now] = latest.map(|ps| Some(sim_core::SimTime(ps)));
        let run_end = finished::end_of(Some(reason), last_activity, now);
        let mut copies = copies.into_iter();
        let Some(peers) = self.peers.as_ref().filter(|p| p.rank() != 0) else {
            // Rank 0, or one process: LP 0's copy takes every LP's rows.
            let mut world = copies.next().expect("several LPs");
            let mut merge = Merge::new(&world);
            let own = world.finished(run_end);
            merge.add(own, &mut world);
            for other in copies {
                merge.add(other.finished(run_end), &mut world);
            }
            if let Some(p) = &self.peers {
                for bytes in p.gather(Vec::new()).expect("rank 0 gathers").iter().skip(1) {
                    let parts: Vec<Finished> =
                        postcard::from_bytes(bytes).expect("a rank of this build sent them");
                    for part in parts {
                        merge.add(part, &mut world);
                    }
                }
            }
            world.close_merged(merge, reason, samples);
            if let Some((watch, at)) = watch {
                world.watch = watch;
                world.livelock = Some(world.livelock_report(at));
            }
            return Some((world, reason));
        };
        let parts: Vec<Finished> = copies.map(|w| w.finished(run_end)).collect();
        let bytes = postcard::to_allocvec(&parts).expect("rows serialise (plain data)");
        peers.gather(bytes);
        None
    }
}

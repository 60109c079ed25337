//! This process as one rank of an MPI job (`mpirun -np N`, `srun
//! --mpi=pmix`): the collectives a run across processes needs
//! ([`Peers`]) over the system's MPI, through the `mpi` crate (rsmpi).
//! Built with the `mpi` feature (docs/architecture.md, "Across
//! machines").
//!
//! A window's mail goes to each other rank as its own nonblocking send
//! (one message per rank pair, empty or not: MPI keeps a pair's messages
//! in order), received rank by rank; the reduced words are an
//! `MPI_Allgather` that every rank reduces the same way (the minimum of
//! the next times, the sum of the events, the or of the stop flags), so
//! no user-defined MPI operation is needed; the rows at the end are an
//! `MPI_Gatherv` to rank 0.

use crate::world::Peers;
use mpi::datatype::PartitionMut;
use mpi::request::WaitGuard;
use mpi::traits::{Communicator, CommunicatorCollectives, Destination, Root, Source};

/// This process's rank in the job that started it. Dropping it ends MPI
/// (`MPI_Finalize`).
pub struct MpiRanks {
    world: mpi::topology::SimpleCommunicator,
    /// Kept to its end: MPI is finalised when it drops.
    _universe: mpi::environment::Universe,
}

impl MpiRanks {
    /// Joins the job (`MPI_Init`); `None` when MPI was initialised
    /// already in this process.
    pub fn join() -> Option<MpiRanks> {
        let universe = mpi::initialize()?;
        let world = universe.world();
        Some(MpiRanks {
            world,
            _universe: universe,
        })
    }

    /// The process at rank `r`.
    fn at(&self, r: usize) -> mpi::topology::Process<'_> {
        self.world.process_at_rank(r as mpi::Rank)
    }
}

impl Peers for MpiRanks {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn all_words(&self, words: &[u64]) -> Vec<u64> {
        let mut all = vec![0u64; words.len() * self.size()];
        self.world.all_gather_into(words, &mut all[..]);
        all
    }

    fn exchange(&self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let me = self.rank();
        assert_eq!(out.len(), self.size(), "an entry per rank");
        mpi::request::scope(|scope| {
            // Sent before any receive, so no rank waits on another's
            // receive to send; each guard waits for its send as it drops.
            let _sent: Vec<WaitGuard<'_, [u8], _>> = (out.iter().enumerate())
                .filter(|&(r, _)| r != me)
                .map(|(r, bytes)| WaitGuard::from(self.at(r).immediate_send(scope, &bytes[..])))
                .collect();
            (0..self.size())
                .map(|r| {
                    if r == me {
                        Vec::new()
                    } else {
                        self.at(r).receive_vec::<u8>().0
                    }
                })
                .collect()
        })
    }

    fn gather(&self, bytes: Vec<u8>) -> Option<Vec<Vec<u8>>> {
        let root = self.at(0);
        let count = bytes.len() as mpi::Count;
        if self.rank() != 0 {
            root.gather_into(&count);
            root.gather_varcount_into(&bytes[..]);
            return None;
        }
        let mut counts = vec![0 as mpi::Count; self.size()];
        root.gather_into_root(&count, &mut counts[..]);
        let displs: Vec<mpi::Count> = (counts.iter())
            .scan(0, |at, &c| {
                let d = *at;
                *at += c;
                Some(d)
            })
            .collect();
        let total = counts.iter().map(|&c| c as usize).sum();
        let mut all = vec![0u8; total];
        let mut into = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
        root.gather_varcount_into_root(&bytes[..], &mut into);
        Some(
            (counts.iter().zip(&displs))
                .map(|(&c, &d)| all[d as usize..(d + c) as usize].to_vec())
                .collect(),
        )
    }
}

//! The other processes of a run across processes (MPI ranks), as the
//! windows see them: a few collectives that every rank calls at the same
//! point of the run, in the same order (docs/architecture.md, "Across
//! machines"). `crate::mpi` implements them over MPI; [`Loopback`] over
//! threads of one process, so that the protocol is tested without MPI.

use std::sync::{Arc, Barrier, Mutex};

/// What a run across processes exchanges with its other ranks. Each
/// method is a collective: every rank calls it, at the same point of the
/// run. Only the thread that leads the windows calls them (an MPI
/// communicator need not be shared between threads).
pub trait Peers {
    /// This process's rank, from 0.
    fn rank(&self) -> usize;
    /// How many ranks run.
    fn size(&self) -> usize;
    /// Every rank's `words`, rank after rank (each rank gives as many).
    fn all_words(&self, words: &[u64]) -> Vec<u64>;
    /// Sends `out[r]` to rank `r` (nothing to itself: its own entry is
    /// ignored); what each rank sent this one, by rank.
    fn exchange(&self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>>;
    /// Every rank's `bytes`, by rank, at rank 0 (`None` at the others).
    fn gather(&self, bytes: Vec<u8>) -> Option<Vec<Vec<u8>>>;
}

/// Whether every rank got here without an error. Rank 0 gets each
/// failed rank's error, naming the rank, and an error every failed rank
/// shares with rank 0 once, as it is; another rank gets an empty error
/// when any failed: rank 0 reports it.
pub fn agree(peers: &dyn Peers, mine: Result<(), String>) -> Result<(), String> {
    let failed = peers.all_words(&[u64::from(mine.is_err())]);
    if failed.iter().all(|&f| f == 0) {
        return Ok(());
    }
    let text = mine.err().unwrap_or_default();
    match peers.gather(text.into_bytes()) {
        None => Err(String::new()),
        Some(all) => {
            // Ranks that failed alike (every rank reads one scenario) are
            // reported once.
            let mut said: Vec<(String, Vec<usize>)> = Vec::new();
            for (r, t) in all.iter().enumerate().filter(|(_, t)| !t.is_empty()) {
                let t = String::from_utf8_lossy(t).into_owned();
                match said.iter_mut().find(|(s, _)| *s == t) {
                    Some((_, ranks)) => ranks.push(r),
                    None => said.push((t, vec![r])),
                }
            }
            let alone = said.len() == 1 && said[0].1.contains(&0);
            let lines: Vec<String> = (said.into_iter())
                .map(|(t, ranks)| match ranks.as_slice() {
                    _ if alone => t,
                    [r] => format!("rank {r}: {t}"),
                    _ => {
                        let list: Vec<String> = ranks.iter().map(usize::to_string).collect();
                        format!("ranks {}: {t}", list.join(", "))
                    }
                })
                .collect();
            Err(lines.join("\n"))
        }
    }
}

/// The exchange board the ranks of a [`Loopback`] share.
struct Board {
    /// Each rank's words of the current collective.
    words: Mutex<Vec<Vec<u64>>>,
    /// Bytes in flight, `[from][to]`.
    bytes: Mutex<Vec<Vec<Vec<u8>>>>,
    /// Where the ranks meet: after posting, and after reading.
    barrier: Barrier,
}

/// Ranks as threads of one process, meeting at a barrier: the
/// collectives of [`Peers`] without MPI, for tests of the protocol.
pub struct Loopback {
    rank: usize,
    board: Arc<Board>,
}

impl Loopback {
    /// `n` ranks, one handle each, by rank.
    pub fn ranks(n: usize) -> Vec<Loopback> {
        let board = Arc::new(Board {
            words: Mutex::new(vec![Vec::new(); n]),
            bytes: Mutex::new(vec![vec![Vec::new(); n]; n]),
            barrier: Barrier::new(n),
        });
        (0..n)
            .map(|rank| Loopback {
                rank,
                board: Arc::clone(&board),
            })
            .collect()
    }

    fn words(&self) -> std::sync::MutexGuard<'_, Vec<Vec<u64>>> {
        self.board.words.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn bytes(&self) -> std::sync::MutexGuard<'_, Vec<Vec<Vec<u8>>>> {
        self.board.bytes.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Peers for Loopback {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.words().len()
    }

    fn all_words(&self, words: &[u64]) -> Vec<u64> {
        self.words()[self.rank] = words.to_vec();
        self.board.barrier.wait();
        let all = self.words().concat();
        self.board.barrier.wait();
        all
    }

    fn exchange(&self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let n = self.size();
        assert_eq!(out.len(), n, "an entry per rank");
        for (to, b) in out.into_iter().enumerate() {
            if to != self.rank {
                self.bytes()[self.rank][to] = b;
            }
        }
        self.board.barrier.wait();
        let got = (0..n)
            .map(|from| std::mem::take(&mut self.bytes()[from][self.rank]))
            .collect();
        self.board.barrier.wait();
        got
    }

    fn gather(&self, bytes: Vec<u8>) -> Option<Vec<Vec<u8>>> {
        let mut out = vec![Vec::new(); self.size()];
        out[0] = bytes;
        if self.rank == 0 {
            let mut got = self.exchange(out.clone());
            got[0] = std::mem::take(&mut out[0]);
            Some(got)
        } else {
            self.exchange(out);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_ranks_see_every_ranks_words_mail_and_errors() {
        let ranks = Loopback::ranks(3);
        let got: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = (ranks.iter())
                .map(|p| {
                    s.spawn(move || {
                        let r = p.rank() as u64;
                        let words = p.all_words(&[r, 10 * r]);
                        let out = (0..3).map(|to| vec![r as u8, to as u8]).collect();
                        let mail = p.exchange(out);
                        let gathered = p.gather(vec![r as u8; p.rank() + 1]);
                        let mine = if p.rank() == 2 {
                            Err("no".into())
                        } else {
                            Ok(())
                        };
                        let alike = if p.rank() == 1 {
                            Ok(())
                        } else {
                            Err("same".into())
                        };
                        (words, mail, gathered, agree(p, mine), agree(p, alike))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a rank"))
                .collect()
        });
        for (r, (words, mail, gathered, agreed, alike)) in got.into_iter().enumerate() {
            assert_eq!(words, vec![0, 0, 1, 10, 2, 20]);
            for (from, m) in mail.iter().enumerate() {
                let want = if from == r {
                    vec![]
                } else {
                    vec![from as u8, r as u8]
                };
                assert_eq!(m, &want, "rank {r} from {from}");
            }
            if r == 0 {
                assert_eq!(gathered, Some(vec![vec![0], vec![1, 1], vec![2, 2, 2]]));
                assert_eq!(agreed, Err("rank 2: no".to_string()));
                assert_eq!(alike, Err("same".to_string()));
            } else {
                assert_eq!(gathered, None);
                assert_eq!(agreed, Err(String::new()));
                assert_eq!(alike, Err(String::new()));
            }
        }
    }
}

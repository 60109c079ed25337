//! Credit queues: ExpressPass's switch support (Cho, Jang, Han, SIGCOMM
//! 2017, section 3.1). Every port queues credits ([`crate::Kind::Credit`])
//! apart from data, in a small FIFO, and lets them onto the link at most at
//! the rate that leaves the rest of the link to the data they buy: one
//! credit per (credit + full data frame) time. A credit that finds the
//! queue full is dropped; the receivers read those drops as congestion.
//!
//! The limiter is a token bucket of `burst_credits` credits, run as its
//! virtual-scheduling equivalent (GCRA): a credit may start when the time
//! is at least its theoretical start time less the burst allowance.

use crate::packet::PacketId;
use sim_core::{SimDuration, SimTime};
use std::collections::VecDeque;

/// The credit queues of every port of a run (one setting for the fabric).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CreditConfig {
    /// Wire bytes of a credit (ExpressPass: a minimum Ethernet frame, 84 B).
    pub credit_wire_bytes: u32,
    /// Wire bytes of the full data frame one credit buys (1538 B with a
    /// 1500 B MTU on Ethernet).
    pub data_wire_bytes: u32,
    /// Credits a port's queue holds (ExpressPass: 8).
    pub queue_credits: u32,
    /// Credits that may leave back to back after an idle spell (the token
    /// bucket's depth; ExpressPass's ns-2 switch: 2).
    pub burst_credits: u32,
}

/// One port's credit queue and limiter.
#[derive(Debug)]
pub struct CreditQueue {
    fifo: VecDeque<PacketId>,
    limit: usize,
    /// One credit per this long on average: (credit + data frame) at the
    /// port's rate.
    interval: SimDuration,
    /// How far ahead of its slot a credit may go (burst - 1 intervals).
    tolerance: SimDuration,
    /// The next credit's theoretical start.
    tat: SimTime,
    /// A `CreditTimer` is pending for this time.
    pub(crate) timer_at: Option<SimTime>,
    /// Credits sent.
    pub sent: u64,
    /// Credits dropped on a full queue.
    pub dropped: u64,
}

impl CreditQueue {
    /// The queue of a port of rate `rate` under `cfg`.
    pub fn new(cfg: &CreditConfig, rate: sim_core::Bandwidth) -> Self {
        let interval = rate.tx_time((cfg.credit_wire_bytes + cfg.data_wire_bytes) as u64);
        CreditQueue {
            fifo: VecDeque::with_capacity(cfg.queue_credits as usize),
            limit: cfg.queue_credits as usize,
            interval,
            tolerance: SimDuration::from_ps(interval.ps() * (cfg.burst_credits.max(1) as u64 - 1)),
            tat: SimTime::ZERO,
            timer_at: None,
            sent: 0,
            dropped: 0,
        }
    }

    /// Queues a credit; false if the queue is full (the caller drops it).
    pub fn push(&mut self, id: PacketId) -> bool {
        if self.fifo.len() >= self.limit {
            self.dropped += 1;
            return false;
        }
        self.fifo.push_back(id);
        true
    }

    /// Whether no credit waits.
    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }

    /// When the head credit may go (`None`: no credit waits).
    pub fn ready_at(&self) -> Option<SimTime> {
        (!self.fifo.is_empty()).then(|| {
            SimTime::ZERO + SimDuration::from_ps(self.tat.ps().saturating_sub(self.tolerance.ps()))
        })
    }

    /// Takes the head credit if the limiter lets it go at `now`.
    pub fn pop(&mut self, now: SimTime) -> Option<PacketId> {
        if self.ready_at()? > now {
            return None;
        }
        self.tat = self.tat.max(now) + self.interval;
        self.sent += 1;
        self.fifo.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::Bandwidth;

    #[test]
    fn credits_leave_at_most_one_per_credit_and_data_frame_after_a_burst() {
        let cfg = CreditConfig {
            credit_wire_bytes: 84,
            data_wire_bytes: 1538,
            queue_credits: 8,
            burst_credits: 2,
        };
        // 10 Gb/s: (84 + 1538) B is 1297.6 ns.
        let mut q = CreditQueue::new(&cfg, Bandwidth::from_bps(10_000_000_000));
        let ns = |n: u64| SimTime::ZERO + SimDuration::from_ps(n * 1000);
        for i in 0..10 {
            let fits = q.push(PacketId(i));
            assert_eq!(fits, i < 8, "the ninth and tenth find it full");
        }
        assert_eq!(q.dropped, 2);
        let t0 = ns(10_000);
        // Two back to back (the burst), then one per interval.
        assert!(q.pop(t0).is_some() && q.pop(t0).is_some());
        assert!(q.pop(t0).is_none());
        let next = q.ready_at().expect("six wait");
        assert_eq!(next.since(t0).ps(), 1_297_600);
        assert!(q.pop(next).is_some());
        assert_eq!(q.ready_at().map(|t| t.since(next).ps()), Some(1_297_600));
    }
}

//! One logical process (LP) of a partitioned run: a copy of the world in
//! which only the LP's own nodes live (their ports, hosts, the flow ends
//! and sources at those hosts), run window by window by `parallel/`,
//! and merged back into one world for the report at the end.
//!
//! Each copy is built whole, in the one build order, so every id, port
//! number and random stream is the same in every copy; a copy then
//! schedules only its own components' first events. Everything an event
//! touches belongs to the LP the event runs in: a flow's sender half to
//! its source host's LP, its receiver half to its destination's; a packet
//! reaches another LP only across a cut link (`net::fabric::cut_stage`).

use super::{Flow, StopReason, World};
use net::{Crossing, HostId, NodeId, Partition};
use sim_core::queue::Stop;
use sim_core::{RunLimit, SimTime};
use std::sync::Arc;
use transport::{SenderEnd, Side};

/// Which LP a copy of the world runs.
#[derive(Clone, Debug)]
pub struct Role {
    /// This LP.
    pub me: u32,
    /// The run's cut.
    pub partition: Arc<Partition>,
    /// The topology, built once for every LP.
    pub graph: Arc<net::TopologyGraph>,
    /// What every LP's copy of the fabric shares (its routes and ports'
    /// facts), built once.
    pub fabric: Arc<net::fabric::Shared>,
}

/// What a merged world reports for the run as a whole (its own queue saw
/// one LP's events).
#[derive(Clone, Debug, Default)]
pub(super) struct Whole {
    pub(super) now: SimTime,
    pub(super) events: u64,
    /// The flows with a packet live in a merged copy's arena when the
    /// run ended (LP 0's own arena is read where it is).
    pub(super) in_network: Vec<u32>,
}

impl World {
    /// Whether this copy runs host `h` (every host, in an unpartitioned run).
    #[inline]
    pub(super) fn owns_host(&self, h: HostId) -> bool {
        (self.role.as_ref()).is_none_or(|r| r.partition.lp(self.fabric.host_node(h)) == r.me)
    }

    /// Whether this copy holds a flow from `src` to `dst`: it runs one of
    /// its ends.
    #[inline]
    pub(super) fn holds_flow(&self, src: HostId, dst: HostId) -> bool {
        self.owns_host(src) || self.owns_host(dst)
    }

    /// Which hosts this copy runs, by host id.
    fn own_hosts(&self) -> Vec<bool> {
        (0..self.hosts.len() as u32)
            .map(|h| self.owns_host(HostId(h)))
            .collect()
    }

    /// Marks every cable that joins two LPs as cut, in this copy.
    pub(super) fn cut_links(&mut self) {
        let Some(r) = self.role.clone() else {
            return;
        };
        let cut: Vec<(net::PortId, u32)> = (self.fabric.ports().iter())
            .map(|(p, port)| (p, r.partition.lp(port.peer_node)))
            .filter(|&(_, far)| far != r.me)
            .collect();
        for (p, far) in cut {
            self.fabric.cut_link(p, far);
        }
    }

    /// Runs every event up to `end` (inclusive) and stops; an `Err` is a
    /// time overflow, the one way a window ends the run by itself.
    pub(super) fn run_window(&mut self, end: SimTime) -> Result<(), StopReason> {
        let lim = RunLimit {
            end,
            max_events: u64::MAX,
        };
        let mut egress = None;
        loop {
            match self.q.pop_within(&lim) {
                Ok((now, ev)) => {
                    self.prefetch_ahead(&mut egress);
                    self.dispatch(now, ev);
                }
                Err(Stop::TimeOverflow) => return Err(StopReason::TimeOverflow),
                Err(Stop::Drained | Stop::EndTime | Stop::EventLimit) => return Ok(()),
            }
        }
    }

    /// The box of what this LP sent to LP `lp` in the window.
    pub(super) fn outbox(&mut self, lp: usize) -> &mut Vec<Crossing> {
        self.fabric.outbox(lp)
    }

    /// The earliest arrival of what this LP sent in the window.
    pub(super) fn first_sent(&mut self) -> Option<SimTime> {
        self.fabric.take_first_arrival()
    }

    /// Lands frames that crossed into this LP.
    pub(super) fn land(&mut self, from: &mut Vec<Crossing>) {
        for c in from.iter() {
            self.fabric.land(c, &mut self.q);
        }
        from.clear();
    }

    /// Gives back what only running needed (the mail's boxes, the
    /// queue's spare storage) before the copies merge, so that the merge's
    /// peak holds the results, not every LP's buffers.
    pub(super) fn shed_run_buffers(&mut self) {
        self.fabric.shed_mail();
        self.q.shed_spare();
    }

    /// The time of this LP's next event.
    pub(super) fn next_event(&self) -> Option<SimTime> {
        self.q.peek_time()
    }

    /// Moves this LP's clock to the run's end time.
    pub(super) fn advance_to(&mut self, t: SimTime) {
        self.q.advance_to(t);
    }

    /// Takes over what LP copy `other` ran: its nodes' ports, its hosts,
    /// the flow halves and source ends at them, and adds its counts and
    /// histograms (integer counts: the sum is the same in any order).
    pub(super) fn absorb(&mut self, mut other: World) {
        let r = other.role.clone().expect("a partitioned copy");
        let theirs = |n: NodeId| r.partition.lp(n) == r.me;
        let hosts = other.own_hosts();
        self.flows.absorb(&mut other.flows, |mine, its| {
            if hosts[its.sender.addr().src.idx()] {
                take_sender(mine, its);
            }
            if hosts[its.receiver_host().idx()] {
                take_receiver(mine, its);
            }
        });
        for (h, (mine, its)) in self
            .hosts
            .iter_mut()
            .zip(other.hosts.iter_mut())
            .enumerate()
        {
            if hosts[h] {
                std::mem::swap(mine, its);
            }
        }
        for (mine, its) in self.sources.iter_mut().zip(other.sources.iter_mut()) {
            if hosts[its.src.idx()] {
                its.take_sender_end(mine);
            }
            if hosts[its.dst.idx()] {
                its.take_receiver_end(mine);
            }
        }
        self.deps.absorb(&other.deps, &hosts);
        self.fabric.absorb(&mut other.fabric, theirs);
        self.metrics.absorb(&other.metrics);
        self.open_flows += other.open_flows;
        self.active_sources += other.active_sources;
        self.last_activity = self.last_activity.max(other.last_activity);
        let whole = self.whole.get_or_insert_with(Whole::default);
        whole.now = whole.now.max(other.q.now());
        whole.events += other.q.events_processed();
        (whole.in_network).extend(super::record::flows_in_flight(&other.fabric));
    }

    /// Ends a merged world's run: its stop reason, and its clock and event
    /// count (with the `samples` taken between windows) made the whole
    /// run's.
    pub(super) fn close_merged(&mut self, reason: StopReason, samples: u64) {
        let whole = self.whole.get_or_insert_with(Whole::default);
        whole.now = whole.now.max(self.q.now());
        whole.events += self.q.events_processed() + samples;
        self.stop = Some(reason);
    }
}

/// Moves the sender half of a flow (and what its sender side counts).
fn take_sender(mine: &mut Flow, its: &mut Flow) {
    std::mem::swap(&mut mine.sender, &mut its.sender);
    // A triggered flow's start is known where it was started.
    mine.start = its.start;
    mine.done = its.done;
    mine.ready = its.ready;
    mine.timers[0] = its.timers[0];
}

/// Moves the receiver half of a flow (and what its receiver side counts).
fn take_receiver(mine: &mut Flow, its: &mut Flow) {
    std::mem::swap(&mut mine.receiver, &mut its.receiver);
    mine.received_at = its.received_at;
    mine.timers[1] = its.timers[1];
}

impl World {
    /// Flow `id` as held by the copy that runs its `side`: this one, or
    /// one of `others` (a cut run's other LPs' copies). The sender's copy
    /// knows the flow's start (a trigger there may have set it).
    pub(super) fn runner_of<'a>(&'a self, others: &[&'a World], id: u32, side: Side) -> &'a Flow {
        let runs = |c: &World, f: &Flow| match side {
            Side::Sender => c.owns_host(f.sender.addr().src),
            Side::Receiver => c.owns_host(f.receiver_host()),
        };
        (std::iter::once(self).chain(others.iter().copied()))
            .find_map(|c| c.flows.get(id).filter(|f| runs(c, f)))
            .expect("some LP runs each end of every flow")
    }

    /// Moves LP copy `other`'s RTT samples of the current interval into
    /// this copy's.
    pub(super) fn gather_rtt(&mut self, other: &mut World) {
        self.metrics.gather_current(&mut other.metrics);
    }
}

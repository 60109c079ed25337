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
use net::{Crossing, HostId, Partition};
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

    /// Ends a merged world's run: the tables of every LP's rows
    /// (`merge`, LP 0's own included) become the run's, with its stop
    /// reason, and the `samples` taken between windows counted as the
    /// events they are in an undivided run.
    pub(super) fn close_merged(
        &mut self,
        mut merge: super::finished::Merge,
        reason: StopReason,
        samples: u64,
    ) {
        self.metrics.set_delays(merge.take_delays());
        let mut tables = merge.tables();
        self.ideal_fcts(&mut tables);
        tables.counts.events += samples;
        self.open_flows = tables.counts.open_flows as usize;
        self.active_sources = tables.counts.active_sources as usize;
        self.last_activity = tables.counts.last_activity;
        self.whole = Some(tables);
        self.stop = Some(reason);
    }
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

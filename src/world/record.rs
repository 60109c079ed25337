//! What each flow reports at the end of a run: its row of `flows.csv`
//! and what the summaries add up, family-neutral. The report reads flows
//! only through these rows, never through the endpoints' state.

use super::{Flow, World};
use net::HostId;
use sim_core::SimTime;
use transport::SenderEnd;
use transport::{FlowRecord, ReceiverRecord};

/// One flow's report.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct FlowRow {
    /// The flow's id.
    pub id: u32,
    /// Index of the `[[workload]]` that created it.
    pub workload: u32,
    /// Index of its transport in the scenario's transports.
    pub transport: u32,
    /// Its round (incast rounds; 0 otherwise).
    pub round: u32,
    /// The data sender's host.
    pub src: HostId,
    /// The data receiver's host.
    pub dst: HostId,
    /// Its sender's and receiver's transport ports.
    pub ports: (u16, u16),
    /// The service class of its packets.
    pub priority: u8,
    /// Bytes the flow sends; `None`: unbounded.
    pub size: Option<u64>,
    /// When it started ([`SimTime::MAX`]: never).
    pub start: SimTime,
    /// When the receiver had every byte in order (sized flows).
    pub received_at: Option<SimTime>,
    /// When its last data byte was acknowledged.
    pub completed_at: Option<SimTime>,
    /// Data bytes acknowledged.
    pub bytes_acked: u64,
    /// The sender's record (its family and counters).
    pub record: FlowRecord,
    /// The receiver's record.
    pub rx: ReceiverRecord,
    /// Its ideal FCT alone on the empty network (sized flows), picoseconds.
    pub ideal_fct_ps: Option<u64>,
    /// At the run's end it was unfinished and nothing but its sender's
    /// timer could move it: a timer that resends (a retransmission
    /// timeout, a SYN's, a probe) was armed, and no packet of the flow
    /// was in the network (queued, on a wire, or at a NIC).
    pub waiting_on_timer: bool,
}

impl FlowRow {
    /// Its addresses, as its sender had them.
    pub fn addr(&self) -> transport::FlowAddr {
        transport::FlowAddr {
            flow: net::FlowId(self.id),
            src: self.src,
            dst: self.dst,
            sport: self.ports.0,
            dport: self.ports.1,
            priority: self.priority,
        }
    }

    /// Its FCT, picoseconds, if it completed.
    pub fn fct_ps(&self) -> Option<u64> {
        self.completed_at.map(|c| c.since(self.start).ps())
    }
}

/// The flow of each packet live in `fabric`'s arena (in the network), a
/// flow once a packet.
pub(super) fn flows_in_flight(fabric: &net::Fabric) -> impl Iterator<Item = u32> + '_ {
    fabric.packets.iter_live().filter_map(|p| match p.origin {
        net::Origin::Flow(f) => Some(f.0),
        _ => None,
    })
}

impl World {
    /// Every flow's report, by flow id.
    pub fn flow_rows(&self) -> Vec<FlowRow> {
        self.tables().flows
    }

    /// The row of flow `id`, whose sender half this copy ran, with its
    /// receiver's fields unset (`finished.rs` fills them in) and
    /// `waiting_on_timer` its sender's part: unfinished with a resending
    /// timer armed.
    pub(super) fn sender_row(&self, id: u32, f: &Flow) -> FlowRow {
        let addr = f.sender.addr();
        FlowRow {
            id,
            workload: f.workload,
            transport: f.transport,
            round: f.round,
            src: addr.src,
            dst: addr.dst,
            ports: (addr.sport, addr.dport),
            priority: addr.priority,
            size: f.size,
            start: f.start,
            received_at: None,
            completed_at: f.sender.completed_at(),
            bytes_acked: f.sender.bytes_acked(),
            record: f.sender.record(),
            rx: ReceiverRecord::default(),
            // Over the links as the whole run left them (`finished.rs`).
            ideal_fct_ps: None,
            waiting_on_timer: f.sender.completed_at().is_none()
                && f.sender.retransmission_pending(),
        }
    }
}

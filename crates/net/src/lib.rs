//! dcnsim network model.
//!
//! A packet travels a chain of stages, htsim-style: host NIC queue -> link ->
//! switch ingress -> forwarding -> egress queue -> link -> ... -> host. Each
//! stage knows only the next. Packets live in one [`PacketArena`] and travel
//! by [`PacketId`]; a link keeps a FIFO of packets in flight and one pending
//! event for its head; a port schedules its next transmission only when it is
//! busy. The [`fabric::Fabric`] owns all of it and turns [`NetEvent`]s into
//! [`Outcome`]s for the layer above (transports and workloads).
//!
//! Plugins see the switch through two hooks, never its internals: the
//! [`aqm::EgressAqm`] of an output queue and the [`ingress::IngressHook`] of a
//! port's ingress stage.

pub mod aqm;
pub mod buffer;
pub mod credit;
pub mod fabric;
pub mod fifo;
pub mod ids;
pub mod ingress;
pub mod int;
pub mod observe;
pub mod packet;
pub mod partition;
pub mod path_choice;
pub mod pfc;
pub mod port;
pub mod routing;
pub mod sched;
pub mod topology;
pub mod wire;

pub use aqm::{EgressAqm, QueueState, Verdict};
pub use fabric::{
    Cargo, Crossing, Fabric, FabricConfig, FaultKind, HostLink, LinkFault, NetEvent, Outcome,
    TRIM_HEADER_BYTES, TRIM_HEADER_QUEUE_BYTES, TrimConfig,
};
pub use ids::{FlowId, HostId, NodeId, Origin, PortId, SourceId};
pub use ingress::{Arrival, IngressHook, IngressView, ViqAction};
pub use int::{INT_HEADER_BYTES, INT_MAX_HOPS, IntHop, IntStack, IntTable};
pub use observe::{Dropped, Observer, PacketEvent, PfcEvent};
pub use packet::{
    Ecn, Feedback, Kind, Packet, PacketArena, PacketId, Protocol, RoceBits, SackBlocks, TcpFlags,
    WireFormat,
};
pub use partition::{Partition, ZeroDelayCut};
pub use path_choice::{PathChoice, PathConfig};
pub use port::{DropCause, PortStats};
pub use routing::RoutingTable;
pub use topology::{Cable, NodeKind, Rails, TopologyError, TopologyGraph};

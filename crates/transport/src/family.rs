//! What a transport family rules on outside its endpoints: at load (its
//! cross-rules against the rest of the scenario), before its flows are
//! built (what it derives from the run's flows), and for its hosts (which
//! NIC discipline it needs). One object-safe trait, implemented by each
//! family's configuration and dispatched in one place
//! ([`crate::TransportConfig::family_rules`]), as `EgressPlugin::check` is
//! for AQMs: the world and the loader ask the trait, never a family by name.

use net::{HostId, Protocol, WireFormat};
use sim_core::SimDuration;

/// A flow as planned, before it is built (what a family prepares from).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlannedFlow {
    /// The data sender's host.
    pub src: HostId,
    /// The data receiver's host.
    pub dst: HostId,
    /// Its bytes (`None`: unbounded).
    pub size: Option<u64>,
}

/// What a family's load-time rules may know of the rest of the scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScenarioView {
    /// PFC's MTU, bytes, when the switches run PFC (its headroom is sized
    /// for it).
    pub pfc_mtu_bytes: Option<u32>,
    /// Whether an ingress stage drops held ACKs (R-AQM's and ABQ's VIQs).
    pub ingress_drops: bool,
    /// Whether the switches rewrite the receive window (RWNDQ).
    pub rewrites_rwnd: bool,
    /// Whether the switches trim packets instead of dropping them.
    pub trims: bool,
}

/// A rule a family's configuration breaks against the rest of the scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FamilyError {
    /// The key at fault, inside its `[transport.NAME]` table (`rto`).
    pub key: &'static str,
    /// What is wrong and how to mend it.
    pub msg: String,
}

/// The order in which a host's NIC serves the flows that have data to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NicDiscipline {
    /// Round robin, a packet a turn.
    RoundRobin,
    /// Shortest remaining first, by [`crate::SenderEnd::srpt_rank`] (Homa 3.2).
    Srpt,
}

/// A family's rules outside its endpoints. Every default is "no such rule".
pub trait Family {
    /// The family's name in reports and TOML (`family = "tcp"`).
    fn name(&self) -> &'static str;
    /// The congestion controller's name in reports (the family's own,
    /// where its congestion control is the family: Homa's grants,
    /// ExpressPass's credit feedback).
    fn cc_name(&self) -> &'static str {
        self.name()
    }
    /// The IP protocol of its packets (part of the ECMP hash).
    fn protocol(&self) -> Protocol;
    /// Whether its endpoints read [`crate::PathInfo::bdp_bytes`] (the
    /// caller may then skip computing it).
    fn needs_bdp(&self) -> bool {
        false
    }
    /// The largest clock offset a host may have (zero: synchronised).
    fn clock_offset_max(&self) -> SimDuration {
        SimDuration::ZERO
    }
    /// The payload bytes of a full packet.
    fn mss(&self) -> u64;
    /// Header bytes of a data packet (IP and transport, options included).
    fn data_header_bytes(&self) -> u32;
    /// IP bytes of a pure acknowledgment.
    fn ack_bytes(&self) -> u32;
    /// Header bytes of a connection-setup packet, if the family has a
    /// handshake in the flow's time.
    fn handshake_header_bytes(&self) -> Option<u32> {
        None
    }
    /// The priority levels one flow's packets span, if more than its
    /// workload's own (Homa's): lossy queues, checked to fit.
    fn priority_levels(&self) -> Option<u8> {
        None
    }
    /// The credit queues it needs on every switch port, for `wire`.
    fn credit_queues(&self, _wire: WireFormat) -> Option<net::credit::CreditConfig> {
        None
    }
    /// Whether it needs every packet of a flow, both ways, on one path
    /// (per-flow ECMP with a symmetric hash, no spraying).
    fn needs_symmetric_paths(&self) -> bool {
        false
    }
    /// Whether its senders give each packet its own entropy value, so
    /// that one flow's packets take many paths (the UEC transport's
    /// spraying): schemes that need symmetric paths then refuse it.
    fn sprays(&self) -> bool {
        false
    }
    /// Settles what depends on the switches (at load, before checks).
    fn settle(&mut self, _v: &ScenarioView) {}
    /// Its rules against the rest of the scenario.
    fn check(&self, _v: &ScenarioView) -> Result<(), FamilyError> {
        Ok(())
    }
    /// Settings that are legal but almost surely a slip, against the
    /// rest of the scenario (warned at load; the run goes on): each a key
    /// and what the run will do. `base_rtt` gives the run's largest
    /// unloaded round trip, computed when first asked.
    fn warnings(
        &self,
        _v: &ScenarioView,
        _base_rtt: &mut dyn FnMut() -> SimDuration,
    ) -> Vec<FamilyError> {
        Vec::new()
    }
    /// Derives what it needs from the run's flows before they are built;
    /// `path` gives what a flow's ends learn of its path (its base RTT
    /// and bandwidth-delay product among it).
    fn prepare(&mut self, _flows: &[PlannedFlow], _path: &dyn Fn(&PlannedFlow) -> crate::PathInfo) {
    }
    /// The NIC discipline its senders need at their host.
    fn nic_discipline(&self) -> NicDiscipline {
        NicDiscipline::RoundRobin
    }
}

/// A transport family, as its configuration names it: the types of its
/// two ends, how they are built, and the properties that decide how its
/// hosts and the switches treat its packets. The properties have no
/// default: a new family states each, and the generated dispatch
/// (`crate::families`) reads them, never a list of families.
pub trait Transport: Family + Clone + std::fmt::Debug + PartialEq {
    /// The sending end of one of its flows.
    type Sender: crate::SenderEnd + Clone + std::fmt::Debug;
    /// The receiving end of one of its flows.
    type Receiver: crate::ReceiverEnd + Clone + std::fmt::Debug;
    /// Whether the NIC builds the flow's packets only when its port can
    /// send them, as an RDMA NIC's scheduler picks a queue pair when the
    /// link is free and its priority not paused (the HPCC ns-3 fork's
    /// `DequeueAndTransmit`), rather than taking them ahead into the
    /// host's NIC buffer as a kernel's queueing discipline does (TCP). A
    /// paced flow's pacing then holds at the wire, also after a PFC pause.
    const BUILT_AT_THE_WIRE: bool;
    /// Whether its control packets (ACKs, NACKs, PULLs) are headers that
    /// a trimming switch serves from its header queue ahead of data, as
    /// NDP's switch does (NDP 3.1) and htsim's composite queue does for
    /// every header-only packet (UEC's too).
    const CONTROL_IS_HEADER: bool;
    /// The sending end of a flow of `size_bytes` (`u64::MAX - 2` and
    /// [`crate::SenderEnd::stop_app`] for an unbounded flow) on `path`.
    fn sender(
        &self,
        addr: crate::FlowAddr,
        size_bytes: u64,
        path: &crate::PathInfo,
    ) -> Self::Sender;
    /// The receiving end of a flow on `path`.
    fn receiver(&self, addr: crate::FlowAddr, path: &crate::PathInfo) -> Self::Receiver;
}

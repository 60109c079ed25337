//! Typed indices into the fabric's arenas. All are `u32`: events stay small.

use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        #[derive(serde::Serialize, serde::Deserialize)]
        pub struct $name(pub u32);
        impl $name {
            /// The index as `usize`, for slicing arenas.
            #[inline]
            pub const fn idx(self) -> usize {
                self.0 as usize
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

id_type!(
    /// A node (host or switch) of the topology.
    NodeId, "node"
);
id_type!(
    /// An egress port: one end of a unidirectional link. A cable is two ports.
    PortId, "port"
);
id_type!(
    /// A host, numbered 0..N in topology order (the index scenarios use).
    HostId, "host"
);
id_type!(
    /// A transport flow: one connection of any transport family.
    FlowId, "flow"
);
id_type!(
    /// An open-loop packet source (Poisson packets, pings): its own id
    /// space, apart from the flows.
    SourceId, "source"
);

/// What a packet belongs to: a transport flow or a packet source. The two
/// id spaces never mix, so a host hands a packet to the right owner
/// without asking which protocol it carries.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Origin {
    /// A transport flow (its sender or its receiver).
    Flow(FlowId),
    /// A packet source.
    Source(SourceId),
}

impl Default for Origin {
    fn default() -> Self {
        Origin::Flow(FlowId(0))
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Flow(id) => id.fmt(f),
            Origin::Source(id) => id.fmt(f),
        }
    }
}

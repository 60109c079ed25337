//! The RoCE family: RDMA over Converged Ethernet's reliable connection and
//! its congestion control. This first piece is DCQCN's reaction
//! point ([`dcqcn`]); the RC transport (PSNs, go-back-N, pacing) builds on it.

pub mod dcqcn;

pub use dcqcn::{Clamp, Dcqcn, DcqcnConfig, Variant};

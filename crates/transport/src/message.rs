//! The sending end of one message, as a receiver-driven transport (Homa,
//! ExpressPass) keeps it: what it is, when it started, and when the
//! receiver said it had all of it. Such a sender learns of nothing in
//! between, so its bytes acknowledged are all or nothing.

use crate::FlowAddr;
use crate::{Counters, FlowRecord};
use sim_core::SimTime;

/// One message's send-side record.
#[derive(Clone, Debug)]
pub struct MessageSend {
    /// The flow's addressing.
    pub addr: FlowAddr,
    /// The message's length (an unbounded one's, until it is stopped).
    pub size_bytes: u64,
    /// When it started.
    pub started_at: Option<SimTime>,
    /// When the receiver acknowledged all of it.
    pub completed_at: Option<SimTime>,
    /// What the sender did.
    pub stats: Counters,
}

impl MessageSend {
    /// A message of `size_bytes` not yet started.
    pub fn new(addr: FlowAddr, size_bytes: u64) -> Self {
        assert!(size_bytes > 0, "a message has at least one byte");
        MessageSend {
            addr,
            size_bytes,
            started_at: None,
            completed_at: None,
            stats: Counters::default(),
        }
    }

    /// Started and not yet acknowledged.
    pub fn running(&self) -> bool {
        self.started_at.is_some() && self.completed_at.is_none()
    }

    /// When the receiver acknowledged the whole message.
    pub fn completed_at(&self) -> Option<SimTime> {
        self.completed_at
    }

    /// Data bytes acknowledged: the message once the receiver has it all.
    pub fn bytes_acked(&self) -> u64 {
        if self.completed_at.is_some() {
            self.size_bytes
        } else {
            0
        }
    }

    /// The message's length.
    pub fn size_bytes(&self) -> u64 {
        self.size_bytes
    }

    /// The flow's addressing.
    pub fn addr(&self) -> &FlowAddr {
        &self.addr
    }

    /// What the reports need of the flow, for `family`.
    pub fn record(&self, family: &'static str) -> FlowRecord {
        FlowRecord {
            family,
            started_at: self.started_at,
            completed_at: self.completed_at,
            closed_at: self.completed_at,
            bytes_acked: self.bytes_acked(),
            counters: self.stats,
        }
    }
}

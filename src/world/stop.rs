//! Why a run ended, and why a world could not be built.

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// No event remained: every flow closed and every source finished.
    Completed,
    /// The scenario's stop time was reached.
    StopTime,
    /// The event cap was reached (a safety net: results are partial).
    EventLimit,
    /// No event remained, but flows are unfinished: nothing could make
    /// progress (e.g. a NIC that can never accept a segment).
    Stalled,
    /// An event would land past the representable end of simulated time
    /// (2^64 ps, about 213 days): some rate or delay is extreme.
    TimeOverflow,
    /// The caller stopped the run (a sweep interrupted by SIGINT); its
    /// results are not written.
    Interrupted,
}

impl StopReason {
    /// The name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Completed => "completed",
            StopReason::StopTime => "stop_time",
            StopReason::EventLimit => "event_limit",
            StopReason::Stalled => "stalled",
            StopReason::TimeOverflow => "time_overflow",
            StopReason::Interrupted => "interrupted",
        }
    }
}

/// The world could not be built from the scenario.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The topology is not a network.
    #[error(transparent)]
    Topology(#[from] net::TopologyError),
    /// The run cannot be spread over the MPI ranks it was started on.
    #[error("{0}")]
    Ranks(String),
}

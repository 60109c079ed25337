//! What the reports read of a flow, in words every family fills: a
//! sender's [`FlowRecord`] with its [`Counters`], a receiver's
//! [`ReceiverRecord`]. A family without a notion leaves its counter zero
//! (or `None`).

use sim_core::SimTime;

/// What a sender did, in counters every family can fill (those it has no
/// notion of stay zero).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Counters {
    /// Data packets sent again.
    pub retransmits: u64,
    /// Connection-setup packets sent again (TCP SYNs).
    pub syn_retransmits: u64,
    /// Connection-teardown packets sent again (TCP FINs).
    pub fin_retransmits: u64,
    /// Retransmission-timer expiries.
    pub timeouts: u64,
    /// RTO episodes: the first expiry after progress (a flow that times out
    /// three times in a row has one episode).
    pub rto_episodes: u64,
    /// Loss-recovery episodes entered (TCP fast recovery).
    pub fast_recoveries: u64,
    /// Window or rate reductions on ECN feedback.
    pub ecn_reductions: u64,
    /// Segments retransmitted because the SACK scoreboard deemed them lost.
    pub sack_recovered: u64,
    /// Zero-window probes.
    pub window_probes: u64,
    /// Tail-loss probes (RFC 8985 section 7).
    pub tail_loss_probes: u64,
    /// Packets given up (timed out, or named by a NACK) and acknowledged
    /// before they went again: a late ACK, the timeout spurious
    /// (families that give packets up one by one, UEC and NDP).
    pub given_up_then_acked: u64,
    /// Packets given up and not yet sent again when the report was taken.
    pub resends_pending: u64,
}

impl std::ops::AddAssign for Counters {
    fn add_assign(&mut self, o: Counters) {
        self.retransmits += o.retransmits;
        self.syn_retransmits += o.syn_retransmits;
        self.fin_retransmits += o.fin_retransmits;
        self.timeouts += o.timeouts;
        self.rto_episodes += o.rto_episodes;
        self.fast_recoveries += o.fast_recoveries;
        self.ecn_reductions += o.ecn_reductions;
        self.sack_recovered += o.sack_recovered;
        self.window_probes += o.window_probes;
        self.tail_loss_probes += o.tail_loss_probes;
        self.given_up_then_acked += o.given_up_then_acked;
        self.resends_pending += o.resends_pending;
    }
}

/// What a flow's receiving end counted, for the reports (`None`: its
/// family has no such packet).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReceiverRecord {
    /// NAKs sent.
    pub naks_sent: Option<u64>,
    /// CNPs sent (CNP packets, or ACKs carrying the CNP bit).
    pub cnps_sent: Option<u64>,
}

/// A flow as the reports see it, whatever its family.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct FlowRecord {
    /// The family (`tcp`).
    pub family: &'static str,
    /// When the flow opened.
    pub started_at: Option<SimTime>,
    /// When its last data byte was acknowledged.
    pub completed_at: Option<SimTime>,
    /// When its connection closed.
    pub closed_at: Option<SimTime>,
    /// Data bytes acknowledged.
    pub bytes_acked: u64,
    /// The counters.
    pub counters: Counters,
}

/// A [`FlowRecord`] as read back from another process's bytes (the merge
/// of a run across MPI ranks): its family's name is owned there, and
/// becomes the one `&'static str` of that name here.
#[derive(serde::Deserialize)]
struct Read {
    family: FamilyName,
    started_at: Option<SimTime>,
    completed_at: Option<SimTime>,
    closed_at: Option<SimTime>,
    bytes_acked: u64,
    counters: Counters,
}

impl<'de> serde::Deserialize<'de> for FlowRecord {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let r = Read::deserialize(d)?;
        Ok(FlowRecord {
            family: r.family.0,
            started_at: r.started_at,
            completed_at: r.completed_at,
            closed_at: r.closed_at,
            bytes_acked: r.bytes_acked,
            counters: r.counters,
        })
    }
}

/// A family's name, kept once per distinct name for the process's life
/// (a run has a handful).
struct FamilyName(&'static str);

impl<'de> serde::Deserialize<'de> for FamilyName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use std::sync::Mutex;
        static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
        let name = String::deserialize(d)?;
        let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&known) = names.iter().find(|&&n| n == name) {
            return Ok(FamilyName(known));
        }
        let leaked: &'static str = Box::leak(name.into_boxed_str());
        names.push(leaked);
        Ok(FamilyName(leaked))
    }
}

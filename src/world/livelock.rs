//! The progress watch: a run whose flows have stopped delivering data
//! ends as stalled, with a report naming the stuck flows and the failure
//! that cut them off where one explains it, instead of running on to the
//! event cap or to the end of representable time.
//!
//! **Progress is data delivered**: bytes newly acknowledged at a sender or
//! received in order at a receiver, summed over every flow. Packets that
//! move are not progress: a sender resending into a dead cable every
//! `rto` moves packets forever and delivers nothing (issue 56).
//!
//! The watch checks at fixed points: every [`CHECK_EVENTS`] events, and at
//! fixed points of simulated time ([`next_time_check`]: every 1 ms at
//! first, then every eighth of the time simulated so far, so that a quiet
//! run of retransmission timeouts that fires few events is checked too,
//! a few hundred times over 213 days). Neither depends on the progress
//! display, so a run stops at the same point with or without one. A run
//! has stalled when nothing was delivered over [`QUIET_CHECKS`] checks in
//! a row while flows are unfinished, no packet source is still sending,
//! no flow is due to start (a later start, a trigger's compute delay) and
//! no switch is due to take new routes around a failure, and either
//!
//! - every unfinished flow whose sender waits on a timer that resends (a
//!   retransmission timeout, a SYN's, a probe) has timed out at least
//!   [`TIMEOUTS_WITHOUT_PROGRESS`] times since the quiet began (a lost
//!   SYN waits one 1 s timeout and then goes through: a wait, not a stall;
//!   a host whose cable failed times out forever), or
//! - no flow waits on such a timer, and the quiet has lasted
//!   [`QUIET_CHECKS`] event checks (about 8.4 million events: a
//!   controller's rate timer that fires and sends nothing, a PFC pause
//!   that never lifts).
//!
//! A timeout is what the transport family counts as one
//! (`Counters::timeouts`): an expiry of its timer, or, for the families
//! that time each packet out, one packet given up.

use super::{FlowRow, PortRow, World};
use sim_core::{SimDuration, SimTime};
use std::fmt::Write as _;
use transport::{ReceiverEnd, SenderEnd};

/// Events between two checks.
pub const CHECK_EVENTS: u64 = 1 << 22;
/// Checks in a row without a byte delivered before the run can be called
/// stalled.
pub const QUIET_CHECKS: u32 = 2;
/// Timeouts a flow waiting on a resending timer sits through, with
/// nothing delivered anywhere, before it counts as stuck (Linux gives a
/// SYN 6 tries, `tcp_syn_retries`).
pub const TIMEOUTS_WITHOUT_PROGRESS: u64 = 8;
/// The first time check, and the least simulated time between two.
pub const CHECK_TIME_MIN: SimDuration = SimDuration::from_ps(1_000_000_000);

/// The time check after the one at `t`: [`CHECK_TIME_MIN`] later, or an
/// eighth of the simulated time later once that is longer.
pub fn next_time_check(t: SimTime) -> SimTime {
    let step = (t.ps() / 8).max(CHECK_TIME_MIN.ps());
    t + SimDuration::from_ps(step)
}

/// Which kind of check is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CheckKind {
    /// Another [`CHECK_EVENTS`] events ran.
    Events,
    /// Simulated time reached a point of [`next_time_check`].
    Time,
}

/// What one check sees of the run (summed over the LPs of a partitioned
/// run).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Seen {
    /// Data bytes acknowledged at senders plus received in order at
    /// receivers, over every flow.
    pub(super) delivered: u64,
    /// Flows not finished.
    pub(super) open: usize,
    /// Packet sources with arrivals to come.
    pub(super) sources: usize,
    /// Whether a flow is due to start later, or a switch to reroute.
    pub(super) due: bool,
}

impl Seen {
    /// Adds what another LP saw.
    pub(super) fn add(&mut self, o: Seen) {
        self.delivered += o.delivered;
        self.open += o.open;
        self.sources += o.sources;
        self.due |= o.due;
    }
}

/// How the flows that wait on a resending timer stand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Waits {
    /// Some flow waits on a resending timer.
    pub(super) any: bool,
    /// Some such flow has timed out fewer than
    /// [`TIMEOUTS_WITHOUT_PROGRESS`] times since the quiet began.
    pub(super) patient: bool,
}

impl Waits {
    /// Adds another LP's.
    pub(super) fn add(&mut self, o: Waits) {
        self.any |= o.any;
        self.patient |= o.patient;
    }
}

/// What the watch remembers between checks.
#[derive(Debug, Default)]
pub struct Watch {
    delivered: u64,
    /// Checks in a row that saw nothing delivered, and of them event checks.
    quiet: u32,
    quiet_event_checks: u32,
    /// The last check that saw a byte delivered (or the start).
    quiet_since: SimTime,
    /// Each flow's timeouts at the first quiet check.
    timeouts_then: Vec<u64>,
}

/// The watch's answer at a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// The run goes on.
    Going,
    /// Nothing delivered since the last check, which was the first quiet
    /// one: take each flow's timeouts now.
    QuietBegins,
    /// Nothing delivered for long enough: ask how the waiting flows stand.
    Quiet,
}

impl Watch {
    /// Counts a check at `now` that saw `seen`.
    pub(super) fn check(&mut self, seen: Seen, now: SimTime, kind: CheckKind) -> Verdict {
        if seen.delivered != self.delivered || seen.open == 0 {
            self.delivered = seen.delivered;
            self.quiet = 0;
            self.quiet_event_checks = 0;
            self.quiet_since = now;
            self.timeouts_then = Vec::new();
            return Verdict::Going;
        }
        self.quiet += 1;
        self.quiet_event_checks += (kind == CheckKind::Events) as u32;
        if self.quiet == 1 {
            return Verdict::QuietBegins;
        }
        if self.quiet < QUIET_CHECKS || seen.sources > 0 || seen.due {
            return Verdict::Going;
        }
        Verdict::Quiet
    }

    /// Each flow's timeouts when the quiet began (filled by the caller).
    pub(super) fn timeouts_then(&mut self) -> &mut Vec<u64> {
        &mut self.timeouts_then
    }

    /// Whether the quiet run with its waiting flows standing as `waits`
    /// has stalled.
    pub(super) fn stalled(&self, waits: Waits) -> bool {
        if waits.any {
            !waits.patient
        } else {
            self.quiet_event_checks >= QUIET_CHECKS
        }
    }
}

impl World {
    /// What this world (or LP copy) sees at a check: the halves it runs.
    pub(super) fn seen(&self, now: SimTime) -> Seen {
        let mut delivered = 0u64;
        let mut due = false;
        for (_, f) in self.flows.iter() {
            let a = f.sender.addr();
            if self.owns_host(a.src) {
                delivered += f.sender.bytes_acked();
                due |= !f.done && f.start > now && f.start != SimTime::MAX;
            }
            if self.owns_host(a.dst) {
                delivered += f.receiver.bytes_received();
            }
        }
        Seen {
            delivered,
            open: self.open_flows,
            sources: self.active_sources,
            due: due || self.fabric.reroute_due_after(now) || self.triggers_due(),
        }
    }

    /// Writes each flow's timeouts into `out` (indexed by flow), for the
    /// flows whose sender this copy runs.
    pub(super) fn timeouts(&self, out: &mut Vec<u64>) {
        out.resize(self.flows.len(), 0);
        for (i, f) in self.flows.iter() {
            if self.owns_host(f.sender.addr().src) {
                out[i as usize] = f.sender.record().counters.timeouts;
            }
        }
    }

    /// How this copy's unfinished flows that wait on a resending timer
    /// stand against their timeouts at the quiet's start, `then`.
    pub(super) fn waits(&self, then: &[u64]) -> Waits {
        let mut w = Waits::default();
        for (i, f) in self.flows.iter() {
            if f.done || !f.sender.retransmission_pending() || !self.owns_host(f.sender.addr().src)
            {
                continue;
            }
            w.any = true;
            let since =
                f.sender.record().counters.timeouts - then.get(i as usize).copied().unwrap_or(0);
            w.patient |= since < TIMEOUTS_WITHOUT_PROGRESS;
        }
        w
    }

    /// A check of the watch at `now` over this whole world: whether the
    /// run has stalled (then [`World::stall_detail`] says why).
    pub(super) fn livelocked(&mut self, now: SimTime, kind: CheckKind) -> bool {
        let seen = self.seen(now);
        match self.watch.check(seen, now, kind) {
            Verdict::Going => false,
            Verdict::QuietBegins => {
                let mut then = std::mem::take(self.watch.timeouts_then());
                self.timeouts(&mut then);
                *self.watch.timeouts_then() = then;
                false
            }
            Verdict::Quiet => {
                let waits = self.waits(&self.watch.timeouts_then);
                if !self.watch.stalled(waits) {
                    return false;
                }
                self.livelock = Some(self.livelock_report(now));
                true
            }
        }
    }

    /// Where a stalled run's flows are stuck, in words: the flows, the
    /// failure that cut them off where one does, and where their packets
    /// sit.
    pub(super) fn livelock_report(&self, now: SimTime) -> String {
        // Read off the report's rows: a merged run's flows and ports ran
        // in other copies.
        let tables = self.tables();
        // Flows that started first: those never started wait on them.
        let (started, waiting): (Vec<&FlowRow>, Vec<&FlowRow>) = (tables.flows.iter())
            .filter(|f| f.completed_at.is_none())
            .partition(|f| f.start <= now);
        let mut s = format!(
            "nothing was delivered between {} and {} of simulated time while flows waited \
             (their timers resending, or nothing left that could move them); {} flows are \
             stuck{}:",
            self.watch.quiet_since,
            now,
            started.len(),
            if waiting.is_empty() {
                String::new()
            } else {
                format!(
                    " and {} more never started, waiting on them (a trigger or a round)",
                    waiting.len()
                )
            }
        );
        let stuck = started;
        let cut = super::cut_off::CutOff::new(self, now);
        for f in stuck.iter().take(5) {
            let _ = write!(
                s,
                " flow {} ({} -> {}, {} of {} bytes acknowledged, {} timeouts{});",
                f.id,
                self.host_name(f.src),
                self.host_name(f.dst),
                f.bytes_acked,
                f.size.map_or("unbounded".into(), |b| b.to_string()),
                f.record.counters.timeouts,
                cut.why(f.src, f.dst)
                    .map_or(String::new(), |why| format!(": {why}"))
            );
        }
        if stuck.len() > 5 {
            let _ = write!(s, " and {} more;", stuck.len() - 5);
        }
        where_packets_sit(&tables, &mut s);
        s
    }

    /// A host's name (`host17`).
    pub(super) fn host_name(&self, h: net::HostId) -> &str {
        self.node_names
            .get(self.fabric.host_node(h).idx())
            .map_or("?", String::as_str)
    }

    /// Why the run stalled, when the progress watch stopped it.
    pub fn stall_detail(&self) -> Option<&str> {
        self.livelock.as_deref()
    }
}

/// Appends where packets are queued, or that none are.
fn where_packets_sit(tables: &super::finished::Tables, s: &mut String) {
    let mut held: Vec<(u64, u64, &PortRow)> = (tables.ports.iter())
        .filter(|p| p.queued_packets + p.viq_packets > 0)
        .map(|p| (p.queued_packets, p.viq_packets, p))
        .collect();
    if held.is_empty() {
        let _ = write!(
            s,
            " no packet of theirs is queued anywhere ({} drops at switches, {} packets lost \
             on failed links)",
            tables.ports.iter().map(|p| p.stats.drops()).sum::<u64>(),
            tables.counts.lost_on_links
        );
    } else {
        held.sort_by_key(|h| std::cmp::Reverse(h.0 + h.1));
        s.push_str(" packets sit at");
        for (q, v, p) in held.iter().take(5) {
            let rate = sim_core::Bandwidth::from_bps(p.rate_bps);
            let _ = write!(
                s,
                " {} ({q} queued, {v} held in the VIQ{});",
                p.name,
                slow_link(rate)
            );
        }
    }
}

/// What a link's rate does to a full packet, where that explains a
/// stall: a 1,500 B packet that takes over a millisecond to send.
fn slow_link(rate: sim_core::Bandwidth) -> String {
    let t = rate.tx_time(1500);
    if t.ps() > 1_000_000_000 {
        format!(", its link at {rate} takes {t} to send a 1500 B packet")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(delivered: u64) -> Seen {
        Seen {
            delivered,
            open: 1,
            sources: 0,
            due: false,
        }
    }

    #[test]
    fn delivery_resets_the_quiet_and_two_quiet_checks_ask_about_the_waits() {
        let mut w = Watch::default();
        let t = |ps| SimTime::ZERO + SimDuration::from_ps(ps);
        assert_eq!(w.check(seen(5), t(1), CheckKind::Time), Verdict::Going);
        assert_eq!(
            w.check(seen(5), t(2), CheckKind::Time),
            Verdict::QuietBegins
        );
        assert_eq!(w.check(seen(5), t(3), CheckKind::Time), Verdict::Quiet);
        assert_eq!(w.check(seen(6), t(4), CheckKind::Time), Verdict::Going);
        assert_eq!(w.quiet_since, t(4));
        // A flow due to start keeps the run going.
        let due = Seen {
            due: true,
            ..seen(6)
        };
        assert_eq!(w.check(due, t(5), CheckKind::Time), Verdict::QuietBegins);
        assert_eq!(w.check(due, t(6), CheckKind::Time), Verdict::Going);
    }

    #[test]
    fn a_run_without_resending_timers_needs_quiet_event_checks() {
        let mut w = Watch::default();
        let none = Waits::default();
        for (i, kind) in [CheckKind::Time, CheckKind::Time, CheckKind::Time]
            .into_iter()
            .enumerate()
        {
            w.check(
                seen(0),
                SimTime::ZERO + SimDuration::from_ps(i as u64),
                kind,
            );
        }
        assert!(!w.stalled(none), "time checks alone never call it");
        w.check(
            seen(0),
            SimTime::ZERO + SimDuration::from_ps(9),
            CheckKind::Events,
        );
        assert!(!w.stalled(none));
        w.check(
            seen(0),
            SimTime::ZERO + SimDuration::from_ps(10),
            CheckKind::Events,
        );
        assert!(w.stalled(none));
        // Flows that wait on timers they have not exhausted keep it going.
        let patient = Waits {
            any: true,
            patient: true,
        };
        assert!(!w.stalled(patient));
        assert!(w.stalled(Waits {
            any: true,
            patient: false
        }));
    }

    #[test]
    fn time_checks_thin_out_geometrically() {
        let mut t = SimTime::ZERO;
        let mut n = 0;
        while t < SimTime::MAX {
            t = next_time_check(t);
            n += 1;
        }
        assert!(n < 300, "{n} checks to the end of time");
        assert_eq!(
            next_time_check(SimTime::ZERO),
            SimTime::ZERO + CHECK_TIME_MIN
        );
    }
}

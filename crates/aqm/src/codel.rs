//! CoDel, "Controlled Delay Active Queue Management" (RFC 8289).
//!
//! CoDel judges a packet by its sojourn time, `now - enqueued_at`, as it
//! leaves the head of its queue (section 3), and drops there (a head drop):
//!
//! - A packet is *above target* when its sojourn time is at least `target`
//!   and more than one packet (`maxpacket_bytes`) stays queued behind it.
//!   Below that, `first_above_time` is cleared. The first packet above
//!   target sets `first_above_time = now + interval`; a packet above target
//!   at or after that time is *ok to drop* (section 5.3, `dodequeue`).
//! - Entering the dropping state (section 5.5): the first ok-to-drop packet
//!   is dropped and the next drop is scheduled at
//!   `now + interval / sqrt(count)` (the control law, section 5.4). `count`
//!   restarts at 1, or, when the last dropping state ended less than 16
//!   intervals ago, at the drops it made beyond the one before it
//!   (`count - lastcount`, if more than 1), so that a returning standing
//!   queue is met at the rate that last controlled it.
//! - In the dropping state, a packet that is not ok to drop ends it; each
//!   packet leaving at or after `drop_next` is dropped, `count` grows by
//!   one and `drop_next` advances by `interval / sqrt(count)` once the next
//!   packet is also ok to drop (the RFC's dequeue loop, one packet a call).
//! - `ecn = true`: an ECN-capable packet is marked CE where it would be
//!   dropped, and then leaves (RFC 8289 5.2 permits ECN; as Linux's
//!   `codel`, the mark advances `drop_next` at once). Packets that are not
//!   ECN-capable are still dropped.
//!
//! Each class queue of a port keeps its own state: a CoDel per queue. The
//! RFC's defaults are Internet-scale (5 ms, 100 ms); a datacenter scales
//! them to its RTTs (e.g. 50 us and 1 ms).

use crate::PortContext;
use net::sched::INLINE_CLASSES;
use net::{Ecn, EgressAqm, Packet, QueueState, Verdict};
use serde::Deserialize;
use sim_core::{SimDuration, SimTime};
use smallvec::SmallVec;

/// `kind = "codel"`: the keys and their RFC 8289 defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodelConfig {
    /// TARGET: the acceptable standing sojourn time (RFC 8289 4.4: 5 ms).
    #[serde(default = "default_target")]
    pub target: SimDuration,
    /// INTERVAL: how long the sojourn time may stay above target before
    /// CoDel drops, and the control law's base (RFC 8289 4.5: 100 ms).
    #[serde(default = "default_interval")]
    pub interval: SimDuration,
    /// MAXPACKET: a queue holding at most this many bytes behind a packet is
    /// never above target (RFC 8289 5.3: the interface MTU; 1500 B).
    #[serde(default = "default_maxpacket")]
    pub maxpacket_bytes: u64,
    /// Mark ECN-capable packets CE instead of dropping them (default false).
    #[serde(default)]
    pub ecn: bool,
}

fn default_target() -> SimDuration {
    SimDuration::from_ms(5)
}
fn default_interval() -> SimDuration {
    SimDuration::from_ms(100)
}
fn default_maxpacket() -> u64 {
    1500
}

impl CodelConfig {
    /// The cross-key rules: both durations positive, target below interval.
    pub fn check(&self) -> Result<(), crate::Invalid> {
        if self.target.ps() == 0 {
            return Err(("target", "must be positive (RFC 8289 4.4: 5ms)".into()));
        }
        if self.interval <= self.target {
            return Err((
                "interval",
                format!(
                    "must be longer than target ({}): CoDel waits an interval above target before it drops",
                    self.target
                ),
            ));
        }
        Ok(())
    }

    /// The plugin of one port: a CoDel per class queue.
    pub fn build(&self, ctx: &PortContext) -> Codel {
        Codel {
            target_ps: self.target.ps(),
            interval_ps: self.interval.ps(),
            maxpacket_bytes: self.maxpacket_bytes,
            ecn: self.ecn,
            queues: (0..ctx.weights.len().max(1))
                .map(|_| CodelState::default())
                .collect(),
        }
    }
}

impl crate::EgressPlugin for CodelConfig {
    fn check(&self, _ctx: &crate::LoadContext) -> Result<(), crate::Invalid> {
        CodelConfig::check(self)
    }
    fn build(&self, ctx: &PortContext) -> Box<dyn EgressAqm> {
        Box::new(CodelConfig::build(self, ctx))
    }
    /// CoDel drops from the head unless it marks ECN-capable packets.
    fn drops_early(&self) -> bool {
        !self.ecn
    }
}

/// One queue's CoDel variables (RFC 8289 5.1), times in ps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodelState {
    /// When the sojourn time will have been above target for an interval;
    /// 0 while it is below target.
    pub first_above_time: u64,
    /// When the next drop is due, in the dropping state.
    pub drop_next: u64,
    /// Drops since the dropping state was entered (the control law's count).
    pub count: u32,
    /// `count` when the dropping state was last entered.
    pub lastcount: u32,
    /// In the dropping state.
    pub dropping: bool,
    /// A packet was dropped in the dropping state: `drop_next` advances if
    /// the next one is ok to drop too (the RFC's loop).
    advance: bool,
}

/// CoDel on every class queue of one port.
#[derive(Clone, Debug)]
pub struct Codel {
    target_ps: u64,
    interval_ps: u64,
    maxpacket_bytes: u64,
    ecn: bool,
    queues: SmallVec<[CodelState; INLINE_CLASSES]>,
}

impl Codel {
    /// The state of class queue `class` (for tests and traces).
    pub fn state(&self, class: usize) -> &CodelState {
        &self.queues[class]
    }

    /// The control law (RFC 8289 5.4): `t + interval / sqrt(count)`.
    fn control_law(&self, t: u64, count: u32) -> u64 {
        let step = self.interval_ps as f64 / libm::sqrt(count.max(1) as f64);
        t + step as u64
    }

    /// RFC 8289 5.3's `dodequeue` verdict on a packet that sojourned
    /// `sojourn_ps` and leaves `bytes_left` behind it.
    fn ok_to_drop(&mut self, class: usize, now: u64, sojourn_ps: u64, bytes_left: u64) -> bool {
        let (target, interval, maxpacket) =
            (self.target_ps, self.interval_ps, self.maxpacket_bytes);
        let st = &mut self.queues[class];
        if sojourn_ps < target || bytes_left <= maxpacket {
            st.first_above_time = 0;
            false
        } else if st.first_above_time == 0 {
            st.first_above_time = now + interval;
            false
        } else {
            now >= st.first_above_time
        }
    }

    /// A drop, or a CE mark where ECN allows it.
    fn signal(&self, pkt: &Packet) -> Verdict {
        if self.ecn && pkt.ecn != Ecn::NotEct {
            Verdict::Mark
        } else {
            Verdict::Drop
        }
    }
}

impl EgressAqm for Codel {
    fn on_enqueue(&mut self, _now: SimTime, _q: QueueState, _pkt: &Packet) -> Verdict {
        Verdict::Accept
    }

    fn on_dequeue(&mut self, now: SimTime, q: QueueState, pkt: &Packet) -> Verdict {
        let class = (q.class as usize).min(self.queues.len() - 1);
        let t = now.ps();
        let ok = self.ok_to_drop(class, t, now.since(pkt.enqueued_at).ps(), q.bytes);
        let signal = self.signal(pkt);
        let mut st = self.queues[class];
        let verdict = if st.dropping {
            if !ok {
                st.dropping = false;
                st.advance = false;
                Verdict::Accept
            } else {
                if st.advance {
                    st.drop_next = self.control_law(st.drop_next, st.count);
                    st.advance = false;
                }
                if t >= st.drop_next {
                    st.count += 1;
                    match signal {
                        Verdict::Mark => st.drop_next = self.control_law(st.drop_next, st.count),
                        _ => st.advance = true,
                    }
                    signal
                } else {
                    Verdict::Accept
                }
            }
        } else if ok {
            // RFC 8289 5.5: enter the dropping state.
            st.dropping = true;
            let delta = st.count.saturating_sub(st.lastcount);
            st.count = 1;
            if delta > 1 && t.saturating_sub(st.drop_next) < 16 * self.interval_ps {
                st.count = delta;
            }
            st.drop_next = self.control_law(t, st.count);
            st.lastcount = st.count;
            signal
        } else {
            Verdict::Accept
        };
        self.queues[class] = st;
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::ctx;
    use sim_core::QueueSize;

    const US: u64 = 1_000_000;

    fn at(us: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_us(us)
    }

    fn codel(ecn: bool) -> Codel {
        CodelConfig {
            target: SimDuration::from_us(50),
            interval: SimDuration::from_ms(1),
            maxpacket_bytes: 1500,
            ecn,
        }
        .build(&ctx(10, QueueSize::Packets(1000)))
    }

    /// A 1500 B packet enqueued at `at_us`, leaving `left` packets behind.
    fn leave(c: &mut Codel, now_us: u64, at_us: u64, left: u64, ecn: Ecn) -> Verdict {
        let pkt = Packet {
            size_bytes: 1500,
            enqueued_at: at(at_us),
            ecn,
            ..Default::default()
        };
        let q = QueueState {
            bytes: left * 1500,
            packets: left,
            ..Default::default()
        };
        c.on_dequeue(at(now_us), q, &pkt)
    }

    #[test]
    fn below_target_or_one_packet_queued_is_never_dropped() {
        let mut c = codel(false);
        for t in 0..5000 {
            // Sojourn 49 us: below target however long it lasts.
            assert_eq!(
                leave(&mut c, t, t.saturating_sub(49), 100, Ecn::NotEct),
                Verdict::Accept
            );
        }
        for t in 5000..10_000 {
            // Sojourn far above target, but only one packet behind: no standing queue.
            assert_eq!(leave(&mut c, t, 0, 1, Ecn::NotEct), Verdict::Accept);
        }
        assert_eq!(c.state(0).first_above_time, 0);
        assert!(!c.state(0).dropping);
    }

    #[test]
    fn drops_only_after_an_interval_above_target_then_by_the_control_law() {
        let mut c = codel(false);
        // Sojourn 100 us from t = 1000 us on: the first packet above target
        // arms first_above_time = 2000 us.
        let mut drops = vec![];
        for t in 1000..6000u64 {
            if leave(&mut c, t, t - 100, 50, Ecn::NotEct) == Verdict::Drop {
                drops.push(t);
                // The RFC's loop: the next head leaves at the same time.
                assert_eq!(leave(&mut c, t, t - 100, 49, Ecn::NotEct), Verdict::Accept);
            }
        }
        assert_eq!(c.state(0).first_above_time, 2000 * US);
        // Entry at 2000 us, then interval / sqrt(count): 1000, 707, 577, 500 us ...
        let gaps: Vec<u64> = drops.windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!(drops[0], 2000);
        assert_eq!(&gaps[..4], &[1000, 708, 577, 500]);
        assert!(c.state(0).dropping);
        assert_eq!(c.state(0).count as usize, drops.len());
    }

    #[test]
    fn a_packet_below_target_ends_the_dropping_state_and_a_quick_return_keeps_the_count() {
        let mut c = codel(false);
        let mut t = 1000;
        let mut drops = 0;
        while drops < 6 {
            if leave(&mut c, t, t - 100, 50, Ecn::NotEct) == Verdict::Drop {
                drops += 1;
            }
            t += 1;
        }
        let before = c.state(0).count;
        assert_eq!(before, 6);
        assert_eq!(leave(&mut c, t, t - 10, 50, Ecn::NotEct), Verdict::Accept);
        assert!(!c.state(0).dropping);
        // Above target again soon after: an interval, then re-entry with
        // count = count - lastcount (6 - 1 = 5), not 1.
        let mut reentered = None;
        for u in t + 1..t + 3000 {
            if leave(&mut c, u, u - 100, 50, Ecn::NotEct) == Verdict::Drop {
                reentered = Some(u);
                break;
            }
        }
        assert_eq!(reentered, Some(t + 1 + 1000));
        assert_eq!(c.state(0).count, before - 1);
    }

    #[test]
    fn with_ecn_an_ect_packet_is_marked_and_a_non_ect_one_still_dropped() {
        let mut c = codel(true);
        let mut seen = vec![];
        for t in 1000..8000u64 {
            let ecn = if t % 2 == 0 { Ecn::Ect0 } else { Ecn::NotEct };
            let v = leave(&mut c, t, t - 100, 50, ecn);
            if v != Verdict::Accept {
                seen.push((t, v));
            }
        }
        assert_eq!(seen[0], (2000, Verdict::Mark));
        assert!(
            seen.iter()
                .all(|&(t, v)| (v == Verdict::Mark) == (t % 2 == 0))
        );
        assert!(seen.iter().any(|&(_, v)| v == Verdict::Drop));
    }

    #[test]
    fn each_class_queue_keeps_its_own_state() {
        let mut c = CodelConfig {
            target: SimDuration::from_us(50),
            interval: SimDuration::from_ms(1),
            maxpacket_bytes: 1500,
            ecn: false,
        }
        .build(&crate::PortContext {
            weights: vec![1, 1],
            ..ctx(10, QueueSize::Packets(100))
        });
        let pkt = Packet {
            size_bytes: 1500,
            ..Default::default()
        };
        let q = |class| QueueState {
            bytes: 30_000,
            packets: 20,
            class,
            ..Default::default()
        };
        c.on_dequeue(at(1000), q(1), &pkt);
        assert_eq!(c.state(1).first_above_time, 2000 * US);
        assert_eq!(c.state(0).first_above_time, 0);
    }

    #[test]
    fn config_checks_name_the_key() {
        let ok = CodelConfig {
            target: SimDuration::from_us(50),
            interval: SimDuration::from_ms(1),
            maxpacket_bytes: 1500,
            ecn: false,
        };
        assert!(ok.check().is_ok());
        let zero = CodelConfig {
            target: SimDuration::ZERO,
            ..ok
        };
        assert_eq!(zero.check().unwrap_err().0, "target");
        let short = CodelConfig {
            interval: SimDuration::from_us(50),
            ..ok
        };
        assert_eq!(short.check().unwrap_err().0, "interval");
    }
}

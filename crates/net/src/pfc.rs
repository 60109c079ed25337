//! Priority flow control (IEEE 802.1Qbb) and the switch memory management
//! unit (MMU) that decides it.
//!
//! A switch counts every packet of a lossless priority against the
//! (ingress port, priority) it arrived on, in three pools of the switch's
//! shared buffer (the HPCC ns-3 fork's `SwitchMmu` in `switch-mmu.cc`):
//!
//! - a **reserve** of `reserve` bytes per (port, lossless priority), always
//!   available;
//! - the **shared** pool, what the buffer leaves after every port's reserve
//!   and headroom, drawn on under a threshold T(p);
//! - the port's **headroom**, which absorbs what is still on its way once
//!   the switch has asked the upstream to pause.
//!
//! When a (port, priority) goes above T(p), or into its headroom, the
//! switch sends PAUSE for that priority out of the same port, towards the
//! upstream; when it has drained (no headroom in use and its shared bytes a
//! `resume_offset` below T(p)) it sends RESUME. T(p) is either dynamic,
//! `xoff_alpha` x the free shared pool (Choudhury-Hahne, as the HPCC fork),
//! or static (`xoff`/`xon` byte thresholds, as htsim).
//!
//! A packet that finds its headroom full is dropped: a *lossless
//! violation*, counted per (port, priority) and never hidden.
//!
//! PAUSE and RESUME are MAC control frames. They are serialised on the
//! port's wire behind the frame in transmission (no pre-emption) and ahead
//! of any queued data, carried by the link's delay, and take effect at the
//! upstream when fully received; the upstream stops only the paused
//! priority's class queue and finishes the frame it is sending
//! (IEEE 802.1Qbb: a quantum is 512 bit times). Hosts obey PFC but never send it (as in the HPCC
//! fork: a host's receive buffer is in effect infinite).

use sim_core::{Bandwidth, SimDuration, SimTime};
use std::collections::VecDeque;

/// Bytes of MAC-control payload in a PAUSE frame: a minimum Ethernet frame
/// (64 B with header and FCS), on the wire as a 46-byte payload through the
/// link's framing: 84 B with Ethernet's preamble and inter-frame gap.
pub const PAUSE_PAYLOAD_BYTES: u32 = 46;

/// How the XOFF threshold T(p) of a (port, priority) is set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Xoff {
    /// T(p) = alpha x (free shared pool), HPCC fork's `pfc_a_shift`
    /// (alpha = 2^-shift; 1/8 at host-rate ports). RESUME when no headroom
    /// is used and shared + `resume_offset` <= T(p).
    Dynamic {
        /// The dynamic-threshold factor.
        alpha: f64,
        /// XON hysteresis in bytes (HPCC fork: 3 KiB).
        resume_offset_bytes: u64,
    },
    /// PAUSE above `xoff_bytes` counted against the (port, priority),
    /// RESUME below `xon_bytes` (htsim's `LosslessInputQueue`).
    Static {
        /// XOFF threshold in bytes.
        xoff_bytes: u64,
        /// XON threshold in bytes (below `xoff_bytes`).
        xon_bytes: u64,
    },
}

/// How each switch port's headroom is sized.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HeadroomRule {
    /// 2 C d + 3 MTU + the PAUSE frame (IEEE 802.1Qbb's headroom rule): the
    /// standard 2 C d + 2 MTU + PAUSE that can still arrive after XOFF is
    /// decided (the frame on the reverse wire finishes, the PAUSE is
    /// serialised and propagates, the upstream's frame in serialisation
    /// finishes, and one cable's worth of bytes is in flight), plus the
    /// packet whose arrival crossed XOFF, which this MMU charges to
    /// headroom as the HPCC fork's does. Without that third MTU a
    /// shuffle over 40 Gb/s links lost lossless packets.
    Standard,
    /// The HPCC fork's 3 C d (no MTU term; not lossless at 10 or 25 Gb/s
    /// with 1 us cables), for side-by-side runs.
    Hpcc3x,
    /// A fixed size per port.
    Bytes(u64),
}

/// What a PAUSE means at the upstream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PauseMode {
    /// Paused until a RESUME (HPCC fork, htsim): the default.
    UntilResume,
    /// Paused for `quanta` x 512 bit times at the link rate unless
    /// refreshed or cleared by a RESUME (real 802.1Qbb NICs, the DCQCN
    /// authors' ns-3); the switch re-sends PAUSE every `refresh` while
    /// still above XON.
    Quanta {
        /// Pause time in quanta (1 quantum = 512 bit times).
        quanta: u16,
        /// How often a switch still congested re-sends PAUSE; `None`: half
        /// the pause time at the port's rate (the DCQCN authors' ns-3
        /// re-sends every PAUSE_TIME / 2).
        refresh: Option<SimDuration>,
    },
}

/// PFC settings of a fabric (`[pfc]` in a scenario).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PfcConfig {
    /// Bit p set: priority p is lossless (PFC-protected).
    pub lossless: u8,
    /// The XOFF/XON rule.
    pub xoff: Xoff,
    /// Bytes reserved per (switch port, lossless priority).
    pub reserve_bytes: u64,
    /// How headroom is sized per switch port.
    pub headroom: HeadroomRule,
    /// The largest frame for the headroom rule, IP bytes (the MTU).
    pub mtu_bytes: u32,
    /// PAUSE semantics at the upstream.
    pub pause: PauseMode,
}

impl PfcConfig {
    /// Whether priority `prio` is lossless.
    #[inline]
    pub fn is_lossless(&self, prio: u8) -> bool {
        self.lossless & (1 << (prio % 8)) != 0
    }

    /// Lossless priorities, counted.
    pub fn lossless_count(&self) -> u64 {
        self.lossless.count_ones() as u64
    }

    /// The headroom of a port driving a `rate` link of one-way `delay`,
    /// with `mtu_wire` and `pause_wire` the wire bytes of a full frame and
    /// of a PAUSE frame.
    pub fn headroom_bytes(
        &self,
        rate: Bandwidth,
        delay: SimDuration,
        mtu_wire: u64,
        pause_wire: u64,
    ) -> u64 {
        let cd = rate.bytes_in(delay);
        match self.headroom {
            HeadroomRule::Standard => 2 * cd + 3 * mtu_wire + pause_wire,
            HeadroomRule::Hpcc3x => 3 * cd,
            HeadroomRule::Bytes(b) => b,
        }
    }
}

/// What PFC leaves of each switch's shared buffer of `buffer_bytes`:
/// the buffer less every port's headroom and every (port, lossless
/// priority)'s reserve. `ports` lists each switch port as (its switch's
/// index among `switches`, its name, the rate and one-way delay of its
/// link); the result is by switch index. The one rule that both the
/// loader (before anything is built, so that `dcnsim validate` refuses
/// what a run would) and the fabric apply.
pub fn switch_pools(
    cfg: &PfcConfig,
    buffer_bytes: u64,
    wire: crate::WireFormat,
    switches: usize,
    ports: impl Iterator<Item = (usize, Bandwidth, SimDuration)>,
    name: impl Fn(usize) -> String,
) -> Result<Vec<u64>, crate::topology::TopologyError> {
    let (mtu, pause) = (
        wire.wire_bytes(cfg.mtu_bytes),
        wire.wire_bytes(PAUSE_PAYLOAD_BYTES),
    );
    let mut held = vec![(0usize, 0u64); switches];
    for (s, rate, delay) in ports {
        held[s].0 += 1;
        held[s].1 = held[s]
            .1
            .saturating_add(cfg.headroom_bytes(rate, delay, mtu, pause));
    }
    let mut pools = Vec::with_capacity(switches);
    for (s, &(ports, headroom)) in held.iter().enumerate() {
        let reserve = (ports as u64)
            .saturating_mul(cfg.reserve_bytes)
            .saturating_mul(cfg.lossless_count());
        let pool = buffer_bytes
            .checked_sub(headroom.saturating_add(reserve))
            .filter(|&b| b > 0 || ports == 0);
        let Some(pool) = pool else {
            return Err(crate::topology::TopologyError::PfcBufferTooSmall {
                node: name(s),
                ports,
                headroom_bytes: headroom,
                reserve_bytes: reserve,
                buffer_bytes,
            });
        };
        pools.push(pool);
    }
    Ok(pools)
}

/// A PAUSE/RESUME frame: for each priority in `mask`, pause (bit set in
/// `pause`) or resume (bit clear), as one 802.1Qbb frame's class-enable
/// vector and timers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PfcFrame {
    /// The priorities the frame addresses.
    pub mask: u8,
    /// Of those, the ones it pauses.
    pub pause: u8,
}

/// Counters of one port's PFC, per priority.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PfcStats {
    /// PAUSE frames sent upstream (this port's ingress was congested).
    pub pauses_sent: [u64; 8],
    /// RESUME frames sent upstream.
    pub resumes_sent: [u64; 8],
    /// PAUSE frames received (this port's egress was paused).
    pub pauses_received: [u64; 8],
    /// RESUME frames received.
    pub resumes_received: [u64; 8],
    /// Time this port's egress spent paused, per priority (ps), up to the
    /// last change; see [`PortPfc::paused_ps_at`] for a running total.
    pub paused_ps: [u64; 8],
    /// The most headroom this port's ingress used, per priority (bytes).
    pub peak_headroom_bytes: [u64; 8],
    /// Lossless packets dropped here: headroom overflow at the ingress
    /// (charged to the ingress port) or any drop at the egress (charged to
    /// the egress port). Each one is a lossless violation.
    pub lossless_drops: [u64; 8],
    /// Of those, the ones that found this port's headroom full.
    pub headroom_drops: [u64; 8],
}

/// The PFC state of one port: its ingress as the downstream that sends
/// PAUSE, and its egress as the upstream that obeys it.
#[derive(Clone, Debug)]
pub struct PortPfc {
    /// This port's headroom (0 at host NICs, which never send PFC).
    pub headroom_bytes: u64,
    /// Per priority: bytes counted in reserve and the shared pool.
    pub ingress_bytes: [u64; 8],
    /// Per priority: bytes counted in headroom.
    pub hdrm_bytes: [u64; 8],
    /// Priorities this port wants the upstream to stop.
    pub xoff: u8,
    /// What the upstream was last told (frames sent, maybe not yet received).
    pub announced: u8,
    /// When a priority in `xoff` was last (re)announced (quanta mode).
    pub announced_at: [SimTime; 8],
    /// Paused priorities whose PAUSE is due again (quanta mode's refresh).
    pub refresh_due: u8,
    /// Frames on this port's wire, with their arrival times at the peer.
    pub in_flight: VecDeque<(SimTime, PfcFrame)>,
    /// Priorities this port's egress is paused on.
    pub paused: u8,
    /// When each paused priority was paused.
    pub paused_since: [SimTime; 8],
    /// Quanta mode: when each paused priority's pause expires.
    pub pause_until: [SimTime; 8],
    /// Counters.
    pub stats: PfcStats,
}

impl PortPfc {
    /// The state of a port with `headroom_bytes` of headroom.
    pub fn new(headroom_bytes: u64) -> Self {
        PortPfc {
            headroom_bytes,
            ingress_bytes: [0; 8],
            hdrm_bytes: [0; 8],
            xoff: 0,
            announced: 0,
            announced_at: [SimTime::ZERO; 8],
            refresh_due: 0,
            in_flight: VecDeque::with_capacity(4),
            paused: 0,
            paused_since: [SimTime::ZERO; 8],
            pause_until: [SimTime::MAX; 8],
            stats: PfcStats::default(),
        }
    }

    /// Bytes of priority `q` above the reserve (the shared pool's part).
    #[inline]
    pub fn shared_used(&self, q: usize, reserve: u64) -> u64 {
        self.ingress_bytes[q].saturating_sub(reserve)
    }

    /// The frame announcing every priority whose wanted state differs from
    /// what the upstream was told, and every PAUSE due for refresh, if any.
    pub fn pending_frame(&self) -> Option<PfcFrame> {
        let mask = (self.xoff ^ self.announced) | (self.refresh_due & self.xoff);
        (mask != 0).then_some(PfcFrame {
            mask,
            pause: self.xoff & mask,
        })
    }

    /// Time priority `q` has been paused up to `now` (ps).
    pub fn paused_ps_at(&self, q: usize, now: SimTime) -> u64 {
        let open = if self.paused & (1 << q) != 0 {
            now.since(self.paused_since[q]).ps()
        } else {
            0
        };
        self.stats.paused_ps[q] + open
    }

    /// Applies a received frame at `now` (quanta mode: each pause lasts
    /// `pause_for`). Returns the priorities it resumed.
    pub fn receive(&mut self, frame: PfcFrame, now: SimTime, pause_for: Option<SimDuration>) -> u8 {
        let mut resumed = 0u8;
        for q in 0..8 {
            let bit = 1u8 << q;
            if frame.mask & bit == 0 {
                continue;
            }
            if frame.pause & bit != 0 {
                self.stats.pauses_received[q] += 1;
                if self.paused & bit == 0 {
                    self.paused |= bit;
                    self.paused_since[q] = now;
                }
                self.pause_until[q] = pause_for.map_or(SimTime::MAX, |d| now + d);
            } else {
                self.stats.resumes_received[q] += 1;
                resumed |= self.unpause(q, now);
            }
        }
        resumed
    }

    /// Ends priority `q`'s pause at `now`, if paused; returns its bit if so.
    pub fn unpause(&mut self, q: usize, now: SimTime) -> u8 {
        let bit = 1u8 << q;
        if self.paused & bit == 0 {
            return 0;
        }
        self.paused &= !bit;
        self.stats.paused_ps[q] += now.since(self.paused_since[q]).ps();
        self.pause_until[q] = SimTime::MAX;
        bit
    }
}

/// Where the MMU put an arriving lossless packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Charge {
    /// In the (port, priority)'s reserve and/or the shared pool; `shared`
    /// bytes of it in the shared pool.
    Buffer {
        /// Bytes taken from the shared pool.
        shared: u64,
    },
    /// In the port's headroom.
    Headroom,
    /// Nowhere: the headroom is full (a lossless violation).
    Drop,
}

/// The XOFF threshold T(p) for a port: dynamic from the free shared pool,
/// or static (`xoff_bytes` less the reserve, so that both compare shared
/// bytes).
#[inline]
pub fn threshold(cfg: &PfcConfig, shared_free: u64) -> u64 {
    match cfg.xoff {
        // Through i64, which x86-64 converts in one instruction each way
        // (u64 takes a dozen); equal, as a pool holds less than 2^63 bytes.
        Xoff::Dynamic { alpha, .. } => (alpha * shared_free as i64 as f64) as i64 as u64,
        Xoff::Static { xoff_bytes, .. } => xoff_bytes.saturating_sub(cfg.reserve_bytes),
    }
}

/// Decides where a lossless packet of `size` bytes of priority `q` goes
/// (HPCC fork `SwitchMmu::CheckIngressAdmission` and `UpdateIngressAdmission`,
/// `switch-mmu.cc`), given T(p) and the free bytes of the shared pool.
/// The shared pool never gives more than it has: a packet that would
/// overfill it goes to headroom.
#[inline]
pub fn charge(
    st: &PortPfc,
    cfg: &PfcConfig,
    q: usize,
    size: u64,
    t: u64,
    shared_free: u64,
) -> Charge {
    let reserve = cfg.reserve_bytes;
    let new = st.ingress_bytes[q] + size;
    if new <= reserve {
        return Charge::Buffer { shared: 0 };
    }
    let shared = size.min(new - reserve);
    if new - reserve <= t && shared <= shared_free {
        return Charge::Buffer { shared };
    }
    if st.hdrm_bytes[q] + size <= st.headroom_bytes {
        Charge::Headroom
    } else {
        Charge::Drop
    }
}

/// Whether a (port, priority) should be paused: it uses headroom or its
/// shared bytes reached T(p).
#[inline]
pub fn should_pause(st: &PortPfc, cfg: &PfcConfig, q: usize, t: u64) -> bool {
    st.hdrm_bytes[q] > 0 || st.shared_used(q, cfg.reserve_bytes) >= t.max(1)
}

/// Whether a paused (port, priority) may resume (HPCC fork
/// `CheckShouldResume`; htsim's low threshold in static mode).
#[inline]
pub fn should_resume(st: &PortPfc, cfg: &PfcConfig, q: usize, t: u64) -> bool {
    if st.hdrm_bytes[q] > 0 {
        return false;
    }
    match cfg.xoff {
        Xoff::Dynamic {
            resume_offset_bytes,
            ..
        } => {
            let shared = st.shared_used(q, cfg.reserve_bytes);
            shared == 0 || shared + resume_offset_bytes <= t
        }
        Xoff::Static { xon_bytes, .. } => st.ingress_bytes[q] < xon_bytes,
    }
}

/// Takes back a departing lossless packet's bytes: headroom first, then the
/// shared pool, then the reserve (HPCC fork `RemoveFromIngressAdmission`).
/// Returns the bytes given back to the shared pool.
#[inline]
pub fn release(st: &mut PortPfc, cfg: &PfcConfig, q: usize, size: u64) -> u64 {
    let from_hdrm = st.hdrm_bytes[q].min(size);
    let rest = size - from_hdrm;
    let from_shared = rest.min(st.shared_used(q, cfg.reserve_bytes));
    st.hdrm_bytes[q] -= from_hdrm;
    st.ingress_bytes[q] = st.ingress_bytes[q]
        .checked_sub(rest)
        .expect("released more lossless bytes than were charged");
    from_shared
}

/// The wait a PAUSE of `quanta` quanta imposes at `rate` (512 bit times each).
pub fn quanta_time(quanta: u16, rate: Bandwidth) -> SimDuration {
    rate.tx_time(quanta as u64 * 512 / 8)
}

/// How often a port of rate `rate` re-sends a PAUSE still wanted.
pub fn refresh_time(quanta: u16, refresh: Option<SimDuration>, rate: Bandwidth) -> SimDuration {
    refresh.unwrap_or_else(|| SimDuration::from_ps(quanta_time(quanta, rate).ps() / 2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::SimDuration;

    fn cfg(xoff: Xoff) -> PfcConfig {
        PfcConfig {
            lossless: 1 << 3,
            xoff,
            reserve_bytes: 4096,
            headroom: HeadroomRule::Standard,
            mtu_bytes: 1500,
            pause: PauseMode::UntilResume,
        }
    }

    fn dynamic() -> PfcConfig {
        cfg(Xoff::Dynamic {
            alpha: 0.125,
            resume_offset_bytes: 3072,
        })
    }

    #[test]
    fn standard_headroom_is_two_cable_bdps_three_mtus_and_a_pause() {
        // The headroom rule plus one frame M: 100G, 1 us, M = 1036 B
        // (HPCC's data packet on its PPP wire), P = 84 B: 28,192 B.
        let c = dynamic();
        let h = c.headroom_bytes(
            Bandwidth::from_bps(100_000_000_000),
            SimDuration::from_us(1),
            1036,
            84,
        );
        assert_eq!(h, 28_192);
        let hpcc = PfcConfig {
            headroom: HeadroomRule::Hpcc3x,
            ..c
        };
        let h10 = hpcc.headroom_bytes(
            Bandwidth::from_bps(10_000_000_000),
            SimDuration::from_us(1),
            1036,
            84,
        );
        assert_eq!(h10, 3_750);
    }

    #[test]
    fn charge_fills_reserve_then_shared_then_headroom_then_drops() {
        let c = dynamic();
        let mut st = PortPfc::new(3000);
        // Reserve: 4096 B.
        assert_eq!(
            charge(&st, &c, 3, 1000, 10_000, 1_000_000),
            Charge::Buffer { shared: 0 }
        );
        st.ingress_bytes[3] = 4000;
        // Crosses the reserve: 904 B of it in the shared pool.
        assert_eq!(
            charge(&st, &c, 3, 1000, 10_000, 1_000_000),
            Charge::Buffer { shared: 904 }
        );
        st.ingress_bytes[3] = 4096 + 9_500;
        // Above T: headroom, while it has room.
        assert_eq!(
            charge(&st, &c, 3, 1000, 10_000, 1_000_000),
            Charge::Headroom
        );
        st.hdrm_bytes[3] = 2500;
        assert_eq!(charge(&st, &c, 3, 1000, 10_000, 1_000_000), Charge::Drop);
        // A shared pool without room sends the packet to headroom too.
        let st = PortPfc::new(3000);
        let mut st2 = st.clone();
        st2.ingress_bytes[3] = 4096;
        assert_eq!(charge(&st2, &c, 3, 1000, 10_000, 999), Charge::Headroom);
    }

    #[test]
    fn pause_and_resume_follow_hpcc_rules() {
        let c = dynamic();
        let mut st = PortPfc::new(30_000);
        st.ingress_bytes[3] = 4096 + 10_000;
        assert!(should_pause(&st, &c, 3, 10_000));
        assert!(!should_pause(&st, &c, 3, 10_001));
        // Resume needs shared + 3072 <= T and no headroom.
        assert!(!should_resume(&st, &c, 3, 12_000));
        assert!(should_resume(&st, &c, 3, 13_072));
        st.hdrm_bytes[3] = 1;
        assert!(!should_resume(&st, &c, 3, 1_000_000));
    }

    #[test]
    fn static_thresholds_have_hysteresis() {
        let c = cfg(Xoff::Static {
            xoff_bytes: 60_000,
            xon_bytes: 48_000,
        });
        let mut st = PortPfc::new(30_000);
        let t = threshold(&c, 0);
        st.ingress_bytes[3] = 60_000;
        assert!(should_pause(&st, &c, 3, t));
        st.ingress_bytes[3] = 50_000;
        assert!(!should_pause(&st, &c, 3, t));
        assert!(!should_resume(&st, &c, 3, t));
        st.ingress_bytes[3] = 47_999;
        assert!(should_resume(&st, &c, 3, t));
    }

    #[test]
    fn release_takes_headroom_first_then_shared_then_reserve() {
        let c = dynamic();
        let mut st = PortPfc::new(30_000);
        st.ingress_bytes[3] = 4096 + 2000;
        st.hdrm_bytes[3] = 1500;
        assert_eq!(release(&mut st, &c, 3, 1000), 0);
        assert_eq!(st.hdrm_bytes[3], 500);
        assert_eq!(release(&mut st, &c, 3, 1500), 1000);
        assert_eq!((st.hdrm_bytes[3], st.ingress_bytes[3]), (0, 5096));
        assert_eq!(release(&mut st, &c, 3, 2000), 1000);
        assert_eq!(st.ingress_bytes[3], 3096);
    }

    #[test]
    fn frames_announce_only_changes_and_receipt_times_pauses() {
        let mut st = PortPfc::new(0);
        st.xoff = 0b1000;
        let f = st.pending_frame().expect("a change to announce");
        assert_eq!(
            f,
            PfcFrame {
                mask: 0b1000,
                pause: 0b1000
            }
        );
        st.announced = st.xoff;
        assert_eq!(st.pending_frame(), None);
        // The upstream side.
        let t0 = SimTime::ZERO + SimDuration::from_us(10);
        assert_eq!(st.receive(f, t0, None), 0);
        assert_eq!(st.paused, 0b1000);
        let t1 = SimTime::ZERO + SimDuration::from_us(15);
        assert_eq!(st.paused_ps_at(3, t1), 5_000_000);
        let resume = PfcFrame {
            mask: 0b1000,
            pause: 0,
        };
        assert_eq!(st.receive(resume, t1, None), 0b1000);
        assert_eq!(st.stats.paused_ps[3], 5_000_000);
        assert_eq!(st.stats.pauses_received[3], 1);
        assert_eq!(st.stats.resumes_received[3], 1);
    }

    #[test]
    fn a_quantum_is_512_bit_times() {
        // 512 bit times a quantum: 65,535 quanta at 100G = 335.5 us; 1 at 100G = 5.12 ns.
        let r = Bandwidth::from_bps(100_000_000_000);
        assert_eq!(quanta_time(1, r).ps(), 5_120);
        assert_eq!(quanta_time(65_535, r).ps(), 335_539_200);
    }
}

//! FairQ (FairQ paper section III, Algorithm 1, and section V): a per-port
//! fair-share window LRwnd, written into the rwnd of the ACKs of the flows
//! that share the port's output queue.
//!
//! What is modelled, and the choices where the paper is open:
//!
//! - **Flow count beta** (V-C): a SYN-ACK increments beta at the port it
//!   arrives on and at the port it leaves by; a segment with FIN, or an RST,
//!   decrements beta at the port it leaves by. beta never goes below 0.
//!   Algorithm 1's rescaling on those events: a new flow scales LRwnd by
//!   beta/(beta+1), a leaving one by (beta+1)/beta; when beta is 0 (no flow,
//!   or the first flow) LRwnd restarts at alpha x B in slow start. beta is
//!   reset (and LRwnd restarts) when the port has seen no packet for
//!   `flow_reset` (default 1 s, V-C).
//! - **rwnd rewrite** (Algorithm 1 lines 19-21, and the choice of
//!   port): a segment that carries a window (ACK flag, no SYN) arriving at
//!   port X gets `min(rwnd, LRwnd_X)`: X's output queue is the data's
//!   egress. With `syn_ack` (the default) the SYN-ACK does too, after it
//!   has counted its flow, in unscaled units: the paper's switch updates
//!   every departing ACK's window (V-B), and so a new connection's first
//!   flight is already its fair share. The window-scale exponent is read from the TCP reserved bits
//!   written by the host shim (V-A; `transport.window_scale_shim`), and the
//!   field is rounded up to the scale unit.
//! - **Window update timer** (lines 22-31): every `t` (default 50 us),
//!   `kappa = 1 - Q / (alpha B)`, `gamma += kappa x LMSS / M`; after `m`
//!   (default 10) updates, LRwnd grows by 2 LMSS in slow start, else by
//!   gamma / beta (beta taken as 1 when 0); slow start ends once Q >= alpha B.
//!   LRwnd is kept within [LMSS, the largest TCP window]. Q is the port's
//!   output queue in bytes (all classes), LMSS the largest TCP payload seen
//!   leaving the port (1460 B until one is seen).
//!   The timer runs on the global grid k x t; its ticks are applied when the
//!   port next sees an event, each with the queue length that held at that
//!   tick (the queue only changes at events, so this is exact), a tick at
//!   the same instant as an event seeing the queue before it.
//! - **B** (Table I, "buffer size of the bottleneck link"): the port's
//!   buffer in bytes; a per-port limit in packets counts 1500 B per packet;
//!   under a dynamic-threshold shared buffer of S bytes with factor a, B is
//!   `S x a / (1 + a)`, the most one queue can hold when it is alone. The
//!   `buffer` key overrides it.
//! - **ECN option** (V-C, ECN_mark): with `ecn = true`, ECT packets are
//!   marked CE when, admitted, the output queue exceeds `ecn_fraction`
//!   (default 25%) of B.

use crate::PortContext;
use crate::rwnd::{MAX_WINDOW_BYTES, carries_window, clamp_window};
use net::{Arrival, Ecn, IngressHook, IngressView, Packet, Protocol};
use serde::Deserialize;
use sim_core::{Bytes, QueueSize, SimDuration, SimTime};

/// `[switch.ingress] kind = "fairq"`: keys and defaults (FairQ paper Table I, V-C).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FairqConfig {
    /// Target occupancy as a fraction alpha of B (default 0.2).
    pub alpha: f64,
    /// Window update interval T (default 50 us).
    pub t: SimDuration,
    /// Updates M per LRwnd change (default 10).
    pub m: u32,
    /// B, overriding the port's buffer (see the module docs).
    pub buffer: Option<Bytes>,
    /// Flow-count reset after this long without packets (default 1 s).
    pub flow_reset: SimDuration,
    /// DCTCP-style marking option (default off).
    pub ecn: bool,
    /// The marking threshold as a fraction of B (default 0.25).
    pub ecn_fraction: f64,
    /// Rewrite the SYN-ACK's window too (default true): V-B's switch
    /// updates "the receive window field of the TCP header" of each ACK
    /// before it departs, and a SYN-ACK is one; its window is unscaled
    /// (RFC 7323 2.2), so a new flow's first flight is its fair share.
    pub syn_ack: bool,
}

impl Default for FairqConfig {
    fn default() -> Self {
        FairqConfig {
            alpha: 0.2,
            t: SimDuration::from_us(50),
            m: 10,
            buffer: None,
            flow_reset: SimDuration::from_secs(1),
            ecn: false,
            ecn_fraction: 0.25,
            syn_ack: true,
        }
    }
}

/// The shortest window update interval `t` allowed.
pub const MIN_T: SimDuration = SimDuration::from_us(1);

impl FairqConfig {
    /// Checks the keys: `(key, message)` for the first problem.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.alpha > 0.0 && self.alpha <= 1.0) {
            return Err(("alpha", "must be in (0, 1]".into()));
        }
        // The update interval is a timer event per port: a floor a switch
        // could run, as DCQCN's timers have.
        if self.t < MIN_T {
            return Err(("t", format!("must be at least {MIN_T} (the paper: 50us)")));
        }
        if self.m == 0 {
            return Err(("m", "must be at least 1".into()));
        }
        if self.buffer.is_some_and(|b| b.0 == 0) {
            return Err(("buffer", "must be positive".into()));
        }
        if !(self.ecn_fraction > 0.0 && self.ecn_fraction <= 1.0) {
            return Err(("ecn_fraction", "must be in (0, 1]".into()));
        }
        if self.flow_reset.ps() == 0 {
            return Err(("flow_reset", "must be positive".into()));
        }
        Ok(())
    }
}

/// The largest TCP payload assumed before one is seen.
const LMSS_INITIAL: u64 = 1460;

/// FairQ at one port.
#[derive(Clone, Debug)]
pub struct FairQ {
    cfg: FairqConfig,
    /// B in bytes.
    b: f64,
    lrwnd: f64,
    lmss: u64,
    beta: u64,
    gamma: f64,
    updates: u32,
    slow_start: bool,
    /// The next tick of the update timer.
    next_tick: SimTime,
    /// The output queue in bytes as of the last event.
    q_bytes: u64,
    last_packet_at: SimTime,
    /// Windows rewritten so far.
    pub rewritten: u64,
}

impl FairQ {
    /// FairQ for the port described by `ctx`. The config must be valid.
    pub fn new(cfg: FairqConfig, ctx: &PortContext) -> Self {
        let b = match (cfg.buffer, ctx.buffer) {
            (Some(b), _) => b.0,
            (None, QueueSize::Bytes(b)) => b,
            (None, QueueSize::Packets(n)) => n.saturating_mul(1500),
        } as f64;
        FairQ {
            lrwnd: cfg.alpha * b,
            next_tick: SimTime::ZERO + cfg.t,
            cfg,
            b,
            lmss: LMSS_INITIAL,
            beta: 0,
            gamma: 0.0,
            updates: 0,
            slow_start: true,
            q_bytes: 0,
            last_packet_at: SimTime::ZERO,
            rewritten: 0,
        }
    }

    /// The local window LRwnd, bytes.
    pub fn lrwnd(&self) -> f64 {
        self.lrwnd
    }

    /// The flow count beta.
    pub fn beta(&self) -> u64 {
        self.beta
    }

    /// Whether LRwnd is in slow start.
    pub fn slow_start(&self) -> bool {
        self.slow_start
    }

    fn target(&self) -> f64 {
        self.cfg.alpha * self.b
    }

    fn restart(&mut self) {
        self.lrwnd = self.target();
        self.slow_start = true;
    }

    fn bound(&mut self) {
        self.lrwnd = self.lrwnd.clamp(self.lmss as f64, MAX_WINDOW_BYTES as f64);
    }

    /// Lines 22-31, once.
    fn tick(&mut self) {
        let q = self.q_bytes as f64;
        let kappa = 1.0 - q / self.target();
        self.gamma += kappa * self.lmss as f64 / self.cfg.m as f64;
        self.updates += 1;
        if self.updates == self.cfg.m {
            if self.slow_start {
                self.lrwnd += 2.0 * self.lmss as f64;
            } else {
                self.lrwnd += self.gamma / self.beta.max(1) as f64;
            }
            if q >= self.target() {
                self.slow_start = false;
            }
            self.bound();
            self.gamma = 0.0;
            self.updates = 0;
        }
    }

    /// Brings the timer and the flow-reset rule up to `now`, then notes the
    /// port's queue after the event being processed.
    fn advance(&mut self, now: SimTime, view: &IngressView) {
        while self.next_tick <= now {
            self.tick();
            self.next_tick += self.cfg.t;
        }
        if self.beta > 0 && now.since(self.last_packet_at) >= self.cfg.flow_reset {
            self.beta = 0;
            self.restart();
        }
        self.last_packet_at = now;
        self.q_bytes = view.out_bytes;
    }

    /// Lines 4-11: a new flow at this port.
    fn flow_opened(&mut self) {
        if self.beta == 0 {
            self.restart();
        } else {
            self.lrwnd = self.lrwnd * self.beta as f64 / (self.beta + 1) as f64;
            self.bound();
        }
        self.beta += 1;
    }

    /// Lines 12-18: a flow left this port (beta guarded at 0).
    fn flow_closed(&mut self) {
        if self.beta <= 1 {
            self.beta = 0;
            self.restart();
        } else {
            self.beta -= 1;
            self.lrwnd = self.lrwnd * (self.beta + 1) as f64 / self.beta as f64;
            self.bound();
        }
    }
}

impl IngressHook for FairQ {
    fn viq_capacity(&self) -> QueueSize {
        QueueSize::Packets(0)
    }

    fn on_arrival(&mut self, now: SimTime, view: &IngressView, pkt: &mut Packet) -> Arrival {
        self.advance(now, view);
        if pkt.accepts_connection() {
            self.flow_opened(); // the "incoming queue" of line 5
            if self.cfg.syn_ack && clamp_window(pkt, self.lrwnd as u64) {
                self.rewritten += 1;
            }
        } else if carries_window(pkt) && clamp_window(pkt, self.lrwnd as u64) {
            self.rewritten += 1;
        }
        Arrival::Forward
    }

    fn on_egress_enqueue(&mut self, now: SimTime, view: &IngressView, pkt: &Packet) -> bool {
        self.advance(now, view);
        if pkt.protocol == Protocol::Tcp {
            self.lmss = self.lmss.max(pkt.payload_bytes as u64);
        }
        if pkt.accepts_connection() {
            self.flow_opened();
        } else if pkt.closes_connection() {
            self.flow_closed();
        }
        self.cfg.ecn
            && pkt.ecn != Ecn::NotEct
            && view.out_bytes as f64 > self.cfg.ecn_fraction * self.b
    }

    fn on_egress_departure(&mut self, now: SimTime, view: &IngressView, _pkt: &Packet) {
        self.advance(now, view);
    }
}

impl crate::IngressPlugin for FairqConfig {
    fn check(&self, _ctx: &crate::LoadContext) -> Result<(), crate::Invalid> {
        self.validate()
    }
    fn build(&self, ctx: &PortContext) -> Box<dyn IngressHook> {
        Box::new(FairQ::new(self.clone(), ctx))
    }
    fn rewrites_rwnd(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use net::TcpFlags;

    fn ctx() -> PortContext {
        crate::testing::ctx(1, QueueSize::Bytes(100_000))
    }

    fn view(out_bytes: u64) -> IngressView {
        IngressView {
            out_bytes,
            out_packets: out_bytes / 1500,
            ..crate::testing::view(0)
        }
    }

    fn syn_ack() -> Packet {
        Packet {
            flags: TcpFlags::SYN | TcpFlags::ACK,
            ..Default::default()
        }
    }

    fn fin() -> Packet {
        Packet {
            flags: TcpFlags::FIN | TcpFlags::ACK,
            ..Default::default()
        }
    }

    #[test]
    fn a_syn_ack_counts_its_flow_and_carries_the_new_share() {
        let mut f = FairQ::new(FairqConfig::default(), &ctx());
        let mut s = syn_ack();
        s.protocol = Protocol::Tcp;
        s.window = 65_535;
        for _ in 0..3 {
            f.on_egress_enqueue(SimTime(0), &view(0), &syn_ack());
        }
        f.on_arrival(SimTime(0), &view(0), &mut s);
        assert_eq!(f.beta(), 4);
        assert_eq!(s.window, 5_000, "20000 B shared by 4 flows, unscaled");
        let mut f = FairQ::new(
            FairqConfig {
                syn_ack: false,
                ..FairqConfig::default()
            },
            &ctx(),
        );
        let mut s2 = syn_ack();
        s2.protocol = Protocol::Tcp;
        s2.window = 65_535;
        f.on_arrival(SimTime(0), &view(0), &mut s2);
        assert_eq!(s2.window, 65_535, "syn_ack = false leaves it");
    }

    #[test]
    fn flow_count_rescales_the_window() {
        let mut f = FairQ::new(FairqConfig::default(), &ctx());
        let v = view(0);
        assert_eq!(f.lrwnd(), 20_000.0); // alpha x B
        for _ in 0..4 {
            f.on_egress_enqueue(SimTime(0), &v, &syn_ack());
        }
        assert_eq!(f.beta(), 4);
        assert_eq!(f.lrwnd(), 5_000.0); // 20000 x 1/2 x 2/3 x 3/4
        f.on_egress_enqueue(SimTime(0), &v, &fin());
        assert_eq!(f.beta(), 3);
        assert!((f.lrwnd() - 20_000.0 / 3.0).abs() < 1e-9);
        for _ in 0..5 {
            f.on_egress_enqueue(SimTime(0), &v, &fin()); // never below zero
        }
        assert_eq!((f.beta(), f.lrwnd(), f.slow_start()), (0, 20_000.0, true));
    }

    /// Slow start adds 2 LMSS per M updates until Q reaches alpha B; then
    /// each M updates add gamma / beta with gamma = sum of kappa x LMSS / M.
    #[test]
    fn window_after_known_updates() {
        let mut f = FairQ::new(FairqConfig::default(), &ctx());
        f.on_egress_enqueue(SimTime(0), &view(0), &syn_ack());
        f.on_egress_enqueue(SimTime(0), &view(0), &syn_ack());
        assert_eq!(f.lrwnd(), 10_000.0);
        // 20 ticks (1 ms) with an empty queue: two slow-start steps.
        let us = 1_000_000;
        f.on_egress_departure(SimTime(1000 * us), &view(30_000), &Packet::default());
        assert_eq!(f.lrwnd(), 10_000.0 + 4.0 * 1460.0);
        assert!(f.slow_start());
        // Ten ticks at Q = 30000 >= alpha B = 20000: slow start ends after
        // one more step of 2 LMSS.
        f.on_egress_departure(SimTime(1500 * us), &view(30_000), &Packet::default());
        assert!(!f.slow_start());
        let w = 10_000.0 + 6.0 * 1460.0;
        assert!((f.lrwnd() - w).abs() < 1e-6);
        // Ten more at Q = 30000: kappa = -0.5, gamma = -0.5 x 1460, over beta = 2.
        f.on_egress_departure(SimTime(2000 * us), &view(30_000), &Packet::default());
        assert!((f.lrwnd() - (w - 0.5 * 1460.0 / 2.0)).abs() < 1e-6);
    }

    #[test]
    fn acks_get_the_local_window_in_scale_units() {
        let mut f = FairQ::new(FairqConfig::default(), &ctx());
        let mut ack = Packet {
            flags: TcpFlags::ACK,
            window: 46_875,
            reserved: 7,
            ..Default::default()
        };
        f.on_arrival(SimTime(0), &view(0), &mut ack);
        assert_eq!(ack.window, 157); // ceil(20000 / 128)
        assert_eq!(f.rewritten, 1);
    }

    #[test]
    fn flow_counter_resets_after_silence() {
        let mut f = FairQ::new(FairqConfig::default(), &ctx());
        f.on_egress_enqueue(SimTime(0), &view(0), &syn_ack());
        f.on_egress_enqueue(SimTime(0), &view(0), &syn_ack());
        assert_eq!(f.beta(), 2);
        f.on_egress_departure(SimTime(1_000_000_000_000), &view(0), &Packet::default());
        assert_eq!(f.beta(), 0);
    }

    #[test]
    fn ecn_option_marks_above_a_quarter_of_b() {
        let cfg = FairqConfig {
            ecn: true,
            ..FairqConfig::default()
        };
        let mut f = FairQ::new(cfg, &ctx());
        let ect = Packet {
            ecn: Ecn::Ect0,
            ..Default::default()
        };
        assert!(!f.on_egress_enqueue(SimTime(0), &view(25_000), &ect));
        assert!(f.on_egress_enqueue(SimTime(0), &view(25_001), &ect));
        assert!(!f.on_egress_enqueue(SimTime(0), &view(90_000), &Packet::default()));
    }
}

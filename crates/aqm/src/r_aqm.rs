//! R-AQM (Du et al., R-AQM paper sections IV-V): reverse-ACK active queue
//! management. The ingress of port X holds the pure ACKs that arrive there
//! in a VIQ and releases them at a rate set by the congestion state of X's
//! own output queue, which (with symmetric routing) carries those flows' data.
//!
//! What is modelled, and how the paper was read:
//!
//! - **VIQ** (IV-A): every pure ACK (no payload, no SYN/FIN/RST) is held;
//!   everything else passes. The VIQ is memory apart from the data buffer,
//!   `viq_capacity` (default 500 pkt, VI-A); a full VIQ drops. Released ACKs
//!   get priority `ack_priority` (default 0, the highest class under the
//!   default class table): "VIQ sets the highest priority of each ACK".
//! - **Token bucket** (IV-B): one token per data packet (payload > 0) that
//!   leaves X's output queue, up to `bucket_depth` tokens (default: the
//!   largest alpha_i). Tokens are kept while the VIQ is empty.
//! - **Algorithm 1** (`viq_send`): run once per new token and once per
//!   arriving ACK (so that an ACK finding tokens in the bucket leaves at
//!   once): in state s, if tokens >= alpha_s, take alpha_s tokens and release
//!   up to n_s ACKs. Defaults (IV-F, VI-A): Normal (1, 1), Draining (1, 2),
//!   Congest (10, 1), i.e. alpha/n = 1, 0.5 and 10.
//! - **State machine** (IV-C, Fig. 5, whose drawing is not in the text). The
//!   state is re-evaluated at every event of the port once at least `t`
//!   (default 3 us) has passed since the last evaluation, from the output
//!   queue q (all classes, in `k_min`'s unit) and its change d since that
//!   last evaluation. Our reading of the three parts of the figure:
//!   last evaluation. Our reading of the three parts of the figure, with the
//!   fluid model of IV-E (R-AQM delays ACKs while q > K) as the tie-breaker:
//!
//!   | change d over T  | q < K_min | K_min <= q <= K_max | q > K_max |
//!   |------------------|-----------|---------------------|-----------|
//!   | rising (d > 0)   | Normal    | Congest             | Congest   |
//!   | stable (d = 0)   | Draining  | Normal              | Congest   |
//!   | falling (d < 0)  | Draining  | Draining            | Congest   |
//!
//!   Rising is a burst: buffer ACKs actively (left part). Falling means the
//!   burst is over: speed the ACKs up before the queue reaches a threshold
//!   (right part). Stable: thresholds, like a classic AQM (middle part).
//!   Two choices where the text and the figure pull apart: above K_max the
//!   state is Congest whatever the trend (the fluid model's r(t) = 1{q > K};
//!   taking "falling" to mean Draining there lets the queue re-grow every
//!   T, which at 10 Gb/s is 2.4 packet times, and the VIQ never fills); and
//!   a queue rising below K_min is the pipe filling, not a burst, so it is
//!   Normal, not Congest (else a lone flow's ACKs would be throttled 10:1
//!   every time its queue ticks up from zero).
//! - **No starvation**: tokens come from departures, so an output queue
//!   that drains would leave ACKs held until they age out. While X's output
//!   queue is empty and ACKs are held, the bucket gains one token per
//!   packet time (a 1500 B packet on the wire, framing included) (the departures
//!   the idle link could have made), by timer.
//! - **Old ACKs** (IV-D): an ACK held for `max_age` (default 5 ms) is
//!   dropped, by timer at its deadline, not only when a token arrives.
//! - **Compensation** (IV-D, VI-B): when X's output queue plus the VIQ,
//!   counting the ACK being released, exceed `compensation_threshold`
//!   (default 65 pkt, the ECN threshold of VI-A), a released ACK gets
//!   ECN-Echo (`compensation = "ece"`) or its window clamped to one `mss`
//!   rounded up to the window-scale unit (`"rwnd"`, the default: it also
//!   limits NewReno senders, which ignore ECE). `"none"` disables it.

use crate::PortContext;
use crate::rwnd::{carries_window, clamp_window};
use net::{Arrival, IngressHook, IngressView, Packet, ViqAction};
use serde::Deserialize;
use sim_core::{Bytes, QueueSize, SimDuration, SimTime};

/// How R-AQM compensates for the senders' window growth (IV-D).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Compensation {
    /// Set ECN-Echo on released ACKs (a BECN-like signal).
    Ece,
    /// Clamp released ACKs' rwnd to one MSS (HSCC-like).
    Rwnd,
    /// No compensation.
    None,
}

/// `[switch.ingress] kind = "r-aqm"`: keys and defaults (R-AQM paper VI-A).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RAqmConfig {
    /// Lower queue threshold K_min (default 20 pkt).
    pub k_min: QueueSize,
    /// Upper queue threshold K_max (default 40 pkt).
    pub k_max: QueueSize,
    /// The gradient period T (default 3 us).
    pub t: SimDuration,
    /// (alpha_1, n_1) of the Normal state: tokens taken, ACKs released (default [1, 1]).
    #[serde(deserialize_with = "pair")]
    pub normal: [u32; 2],
    /// (alpha_2, n_2) of the Draining state (default [1, 2]).
    #[serde(deserialize_with = "pair")]
    pub draining: [u32; 2],
    /// (alpha_3, n_3) of the Congest state (default [10, 1]).
    #[serde(deserialize_with = "pair")]
    pub congest: [u32; 2],
    /// Token bucket depth (default: the largest alpha).
    pub bucket_depth: Option<u32>,
    /// VIQ capacity (default 500 pkt).
    pub viq_capacity: QueueSize,
    /// Held ACKs older than this are dropped (default 5 ms).
    pub max_age: SimDuration,
    /// Compensation mode: "rwnd" (default), "ece" or "none".
    pub compensation: Compensation,
    /// Output queue + VIQ above which released ACKs are compensated (default 65 pkt).
    pub compensation_threshold: QueueSize,
    /// The window of the rwnd compensation (default 1460 B).
    pub mss: Bytes,
    /// The priority released ACKs carry (default 0).
    pub ack_priority: u8,
}

/// An `[alpha, n]` pair: exactly two whole numbers (a third would be
/// accepted by a plain array and silently dropped).
fn pair<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[u32; 2], D::Error> {
    let v = Vec::<u32>::deserialize(d)?;
    <[u32; 2]>::try_from(v.as_slice()).map_err(|_| {
        serde::de::Error::custom(format!(
            "{} numbers: expected an [alpha, n] pair of two whole numbers, e.g. [1, 2]",
            v.len()
        ))
    })
}

impl Default for RAqmConfig {
    fn default() -> Self {
        RAqmConfig {
            k_min: QueueSize::Packets(20),
            k_max: QueueSize::Packets(40),
            t: SimDuration::from_us(3),
            normal: [1, 1],
            draining: [1, 2],
            congest: [10, 1],
            bucket_depth: None,
            viq_capacity: QueueSize::Packets(500),
            max_age: SimDuration::from_ms(5),
            compensation: Compensation::Rwnd,
            compensation_threshold: QueueSize::Packets(65),
            mss: Bytes(1460),
            ack_priority: 0,
        }
    }
}

/// The shortest gradient period `t` allowed.
pub const MIN_T: SimDuration = SimDuration::from_ns(100);

impl RAqmConfig {
    /// Checks the keys together: `(key, message)` for the first problem.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        crate::check_threshold_pair(self.k_min, self.k_max)?;
        for (key, [a, n]) in [
            ("normal", self.normal),
            ("draining", self.draining),
            ("congest", self.congest),
        ] {
            if a == 0 || n == 0 {
                return Err((key, "alpha and n must both be at least 1".into()));
            }
        }
        if self.bucket_depth.is_some_and(|d| d < self.max_alpha()) {
            return Err(("bucket_depth", "must be at least the largest alpha".into()));
        }
        // The gradient period is a timer event per port: a floor a switch
        // could run (a few packet times at 100 Gb/s), as DCQCN's have.
        if self.t < MIN_T {
            return Err(("t", format!("must be at least {MIN_T} (the paper: 3us)")));
        }
        if self.max_age.ps() == 0 {
            return Err(("max_age", "must be positive".into()));
        }
        if self.viq_capacity.amount() == 0 {
            return Err(("viq_capacity", "must be positive".into()));
        }
        if self.ack_priority > 7 {
            return Err(("ack_priority", "must be 0..7".into()));
        }
        Ok(())
    }

    fn max_alpha(&self) -> u32 {
        self.normal[0].max(self.draining[0]).max(self.congest[0])
    }
}

/// R-AQM's congestion state (IV-C).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// NS: uniform ACK response.
    Normal,
    /// DS: the forward queue is about to empty; speed the ACKs up.
    Draining,
    /// CS: congestion; release ACKs slowly, never stop.
    Congest,
}

/// R-AQM at one port.
#[derive(Clone, Debug)]
pub struct RAqm {
    cfg: RAqmConfig,
    depth: u32,
    /// One packet time at the port (`PortContext::packet_time`).
    idle_token_interval: SimDuration,
    state: State,
    tokens: u32,
    /// A `viq_send` is owed (a token or an ACK arrived since the last one).
    pending_send: bool,
    /// ACKs still to release from the last `viq_send`.
    credit: u32,
    q_sample: u64,
    sampled_at: Option<SimTime>,
    /// When the bucket last gained a token (departures and idle tokens).
    last_token_at: SimTime,
    /// ACKs released with compensation.
    pub compensated: u64,
}

impl RAqm {
    /// R-AQM for the port described by `ctx`. The config must be valid.
    pub fn new(cfg: RAqmConfig, ctx: &PortContext) -> Self {
        let depth = cfg.bucket_depth.unwrap_or(cfg.max_alpha());
        RAqm {
            depth,
            idle_token_interval: ctx.packet_time,
            cfg,
            state: State::Normal,
            tokens: 0,
            pending_send: false,
            credit: 0,
            q_sample: 0,
            sampled_at: None,
            last_token_at: SimTime::ZERO,
            compensated: 0,
        }
    }

    /// The current state.
    pub fn state(&self) -> State {
        self.state
    }

    /// Tokens in the bucket.
    pub fn tokens(&self) -> u32 {
        self.tokens
    }

    fn queue(&self, view: &IngressView) -> u64 {
        if self.cfg.k_min.is_bytes() {
            view.out_bytes
        } else {
            view.out_packets
        }
    }

    /// Re-evaluates the state once `t` has passed since the last evaluation.
    fn update_state(&mut self, now: SimTime, view: &IngressView) {
        let q = self.queue(view);
        let Some(at) = self.sampled_at else {
            self.sampled_at = Some(now);
            self.q_sample = q;
            return;
        };
        if now.since(at) < self.cfg.t {
            return;
        }
        self.state = classify(q, q.cmp(&self.q_sample), &self.cfg);
        self.q_sample = q;
        self.sampled_at = Some(now);
    }

    fn add_token(&mut self, now: SimTime) {
        self.tokens = (self.tokens + 1).min(self.depth);
        self.last_token_at = now;
        self.pending_send = true;
        self.credit = 0;
    }

    /// When an idle output queue next earns a token for the held ACKs: one
    /// packet time after the last token or the head's arrival,
    /// whichever is later; `None` while the queue is busy or nothing is held.
    fn idle_token_due(&self, view: &IngressView) -> Option<SimTime> {
        let held = view.head_held_at?;
        (view.out_packets == 0).then(|| self.last_token_at.max(held) + self.idle_token_interval)
    }

    /// Algorithm 1: (alpha, n) of the current state.
    fn cost(&self) -> [u32; 2] {
        match self.state {
            State::Normal => self.cfg.normal,
            State::Draining => self.cfg.draining,
            State::Congest => self.cfg.congest,
        }
    }
}

/// Our reading of Fig. 5 (see the module docs): the state for queue `q`
/// whose change over the last period is `trend`.
fn classify(q: u64, trend: std::cmp::Ordering, cfg: &RAqmConfig) -> State {
    use std::cmp::Ordering::*;
    let (lo, hi) = (cfg.k_min.amount(), cfg.k_max.amount());
    match trend {
        _ if q > hi => State::Congest,
        Greater if q >= lo => State::Congest,
        Greater => State::Normal,
        Less => State::Draining,
        Equal if q < lo => State::Draining,
        Equal => State::Normal,
    }
}

impl IngressHook for RAqm {
    fn viq_capacity(&self) -> QueueSize {
        self.cfg.viq_capacity
    }

    fn on_arrival(&mut self, now: SimTime, view: &IngressView, pkt: &mut Packet) -> Arrival {
        self.update_state(now, view);
        if !pkt.is_ack() {
            return Arrival::Forward;
        }
        self.pending_send = true;
        self.credit = 0;
        Arrival::Hold
    }

    fn on_egress_enqueue(&mut self, now: SimTime, view: &IngressView, _pkt: &Packet) -> bool {
        self.update_state(now, view);
        false
    }

    fn on_egress_departure(&mut self, now: SimTime, view: &IngressView, pkt: &Packet) {
        self.update_state(now, view);
        if pkt.payload_bytes > 0 {
            self.add_token(now);
        }
    }

    fn poll(&mut self, now: SimTime, view: &IngressView) -> ViqAction {
        if let Some(held) = view.head_held_at
            && now.since(held) >= self.cfg.max_age
        {
            return ViqAction::DropAged;
        }
        if self.credit > 0 {
            self.credit -= 1;
            return ViqAction::Release;
        }
        if !self.pending_send {
            return ViqAction::Wait;
        }
        self.pending_send = false;
        let [alpha, n] = self.cost();
        if self.tokens < alpha {
            return ViqAction::Wait;
        }
        self.tokens -= alpha;
        self.credit = n - 1;
        ViqAction::Release
    }

    fn on_release(&mut self, _now: SimTime, view: &IngressView, pkt: &mut Packet) {
        pkt.priority = self.cfg.ack_priority;
        let total_bytes = view.out_bytes + view.viq_bytes + pkt.size_bytes as u64;
        let total_packets = view.out_packets + view.viq_packets + 1;
        if !self
            .cfg
            .compensation_threshold
            .exceeded_by(total_bytes, total_packets)
        {
            return;
        }
        let done = match self.cfg.compensation {
            Compensation::Ece => pkt.set_ecn_echo(),
            Compensation::Rwnd => carries_window(pkt) && clamp_window(pkt, self.cfg.mss.0),
            Compensation::None => false,
        };
        self.compensated += done as u64;
    }

    fn next_timer(&self, view: &IngressView) -> Option<SimTime> {
        let aged = view.head_held_at? + self.cfg.max_age;
        Some(
            self.idle_token_due(view)
                .map_or(aged, |idle| aged.min(idle)),
        )
    }

    fn on_timer(&mut self, now: SimTime, view: &IngressView) {
        self.update_state(now, view);
        if self.idle_token_due(view).is_some_and(|t| now >= t) {
            self.add_token(now);
        }
    }
}

impl crate::IngressPlugin for RAqmConfig {
    fn check(&self, _ctx: &crate::LoadContext) -> Result<(), crate::Invalid> {
        self.validate()
    }
    fn build(&self, ctx: &PortContext) -> Box<dyn IngressHook> {
        Box::new(RAqm::new(self.clone(), ctx))
    }
    fn rewrites_rwnd(&self) -> bool {
        self.compensation == Compensation::Rwnd
    }
    /// The VIQ drops ACKs when full (`viq_capacity`) or older than `max_age`.
    fn drops_held_packets(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use net::{Kind, TcpFlags};

    fn ctx() -> PortContext {
        crate::testing::ctx(10, QueueSize::Packets(300))
    }

    fn view(out: u64, viq: u64, held: Option<u64>) -> IngressView {
        IngressView {
            viq_packets: viq,
            viq_bytes: viq * 40,
            head_held_at: held.map(SimTime),
            ..crate::testing::view(out)
        }
    }

    fn ack() -> Packet {
        Packet {
            flags: TcpFlags::ACK,
            kind: Kind::Ack,
            size_bytes: 40,
            window: 46_875,
            reserved: 7,
            ..Default::default()
        }
    }

    fn data() -> Packet {
        Packet {
            flags: TcpFlags::ACK,
            size_bytes: 1500,
            payload_bytes: 1460,
            ..Default::default()
        }
    }

    /// Releases as the fabric would: poll until Wait, counting releases.
    fn drain(r: &mut RAqm, now: u64, v: &IngressView, held: &mut u64) -> u64 {
        let mut n = 0;
        while *held > 0 {
            match r.poll(SimTime(now), v) {
                ViqAction::Wait => break,
                ViqAction::Release => {
                    n += 1;
                    *held -= 1;
                }
                ViqAction::DropAged => *held -= 1,
            }
        }
        n
    }

    #[test]
    fn only_pure_acks_are_held() {
        let mut r = RAqm::new(RAqmConfig::default(), &ctx());
        let v = view(0, 0, None);
        assert_eq!(r.on_arrival(SimTime(0), &v, &mut ack()), Arrival::Hold);
        assert_eq!(r.on_arrival(SimTime(0), &v, &mut data()), Arrival::Forward);
        let mut fin = Packet {
            flags: TcpFlags::ACK | TcpFlags::FIN,
            kind: Kind::Control,
            ..ack()
        };
        assert_eq!(r.on_arrival(SimTime(0), &v, &mut fin), Arrival::Forward);
    }

    /// A stub transport family that is not TCP: its packets say only what
    /// they are ([`Kind`]). R-AQM holds its ACKs and paces them out like
    /// TCP's; the ECE compensation has no bit to set in them and leaves
    /// them as they are (what the RoCE family will need).
    #[test]
    fn acks_of_another_family_are_held_and_released() {
        let stub = |kind, payload| Packet {
            protocol: net::Protocol::Udp,
            kind,
            size_bytes: 64 + payload,
            payload_bytes: payload,
            ..Default::default()
        };
        let mut r = RAqm::new(RAqmConfig::default(), &ctx());
        let v = view(0, 0, None);
        let mut stub_ack = stub(Kind::Ack, 0);
        assert_eq!(r.on_arrival(SimTime(0), &v, &mut stub_ack), Arrival::Hold);
        let mut stub_data = stub(Kind::Data, 1000);
        assert_eq!(
            r.on_arrival(SimTime(0), &v, &mut stub_data),
            Arrival::Forward
        );
        // Its data leaving the port earns the token that releases the ACK.
        let mut held = 1;
        assert_eq!(drain(&mut r, 0, &v, &mut held), 0);
        r.on_egress_departure(SimTime(0), &v, &stub_data);
        assert_eq!(drain(&mut r, 0, &v, &mut held), 1);
        // Released past the compensation threshold: nothing to rewrite.
        let full = view(10_000_000, 10_000, None);
        let before = stub_ack;
        r.on_release(SimTime(0), &full, &mut stub_ack);
        assert_eq!(stub_ack.flags, before.flags);
        assert_eq!(stub_ack.window, before.window);
        assert_eq!(r.compensated, 0);
    }

    /// The whole table of our reading of Fig. 5 (K_min 20, K_max 40).
    #[test]
    fn state_table() {
        use std::cmp::Ordering::*;
        let c = RAqmConfig::default();
        let table = [
            // (q, trend, state)
            (10, Greater, State::Normal),
            (10, Equal, State::Draining),
            (10, Less, State::Draining),
            (20, Greater, State::Congest),
            (30, Equal, State::Normal),
            (40, Less, State::Draining),
            (41, Greater, State::Congest),
            (41, Equal, State::Congest),
            (41, Less, State::Congest),
        ];
        for (q, trend, want) in table {
            assert_eq!(classify(q, trend, &c), want, "q = {q}, {trend:?}");
        }
    }

    #[test]
    fn state_is_sampled_once_per_t() {
        let mut r = RAqm::new(RAqmConfig::default(), &ctx());
        let us = 1_000_000;
        r.update_state(SimTime(0), &view(25, 0, None));
        r.update_state(SimTime(2 * us), &view(35, 0, None)); // before T: no change
        assert_eq!(r.state(), State::Normal);
        r.update_state(SimTime(3 * us), &view(30, 0, None));
        assert_eq!(r.state(), State::Congest, "rose 25 -> 30 over T");
        r.update_state(SimTime(6 * us), &view(29, 0, None));
        assert_eq!(r.state(), State::Draining, "fell over T");
        r.update_state(SimTime(9 * us), &view(29, 0, None));
        assert_eq!(r.state(), State::Normal, "stable between the thresholds");
    }

    #[test]
    fn algorithm_1_token_costs() {
        let mut r = RAqm::new(RAqmConfig::default(), &ctx());
        let v = view(50, 100, Some(0));
        // Congest: 10 tokens buy one ACK; the bucket holds at most 10.
        r.state = State::Congest;
        let mut held = 100;
        let mut released = 0;
        for _ in 0..30 {
            r.on_egress_departure(SimTime(0), &v, &data());
            r.state = State::Congest;
            released += drain(&mut r, 0, &v, &mut held);
        }
        assert_eq!(released, 3, "30 departures at alpha/n = 10");
        // Draining: one token buys two ACKs.
        r.state = State::Draining;
        r.tokens = 0;
        r.on_egress_departure(SimTime(0), &v, &data());
        r.state = State::Draining;
        assert_eq!(drain(&mut r, 0, &v, &mut held), 2);
        // Normal: one for one; pure ACK departures make no tokens.
        r.state = State::Normal;
        r.on_egress_departure(SimTime(0), &v, &ack());
        assert_eq!(drain(&mut r, 0, &v, &mut held), 0);
        r.on_egress_departure(SimTime(0), &v, &data());
        r.state = State::Normal;
        assert_eq!(drain(&mut r, 0, &v, &mut held), 1);
    }

    #[test]
    fn stored_tokens_release_an_arriving_ack_at_once() {
        let mut r = RAqm::new(RAqmConfig::default(), &ctx());
        let empty = view(0, 0, None);
        for _ in 0..3 {
            r.on_egress_departure(SimTime(0), &empty, &data());
        }
        assert_eq!(r.tokens(), 3, "tokens are kept while the VIQ is empty");
        assert_eq!(r.on_arrival(SimTime(1), &empty, &mut ack()), Arrival::Hold);
        let mut held = 1;
        r.state = State::Normal;
        assert_eq!(drain(&mut r, 1, &view(0, 1, Some(1)), &mut held), 1);
    }

    #[test]
    fn old_acks_are_dropped_and_idle_ports_make_tokens() {
        let mut r = RAqm::new(RAqmConfig::default(), &ctx());
        let v = view(0, 1, Some(0));
        // An empty output queue: a token per packet time (1538 B on the
        // wire: 1.2304 us at 10G).
        let t = r.next_timer(&v).expect("timer while holding");
        assert_eq!(t, SimTime(1_230_400));
        r.on_timer(t, &v);
        assert_eq!(r.tokens(), 1);
        // A busy queue makes no idle tokens; the ACK ages out at 5 ms.
        let busy = view(5, 1, Some(0));
        let t = r.next_timer(&busy).expect("age timer");
        assert_eq!(t, SimTime(5_000_000_000));
        assert_eq!(r.poll(t, &busy), ViqAction::DropAged);
    }

    #[test]
    fn compensation_clamps_rwnd_above_the_threshold() {
        let mut r = RAqm::new(RAqmConfig::default(), &ctx());
        let mut a = ack();
        r.on_release(SimTime(0), &view(40, 24, None), &mut a); // 40 + 24 + 1 = 65
        assert_eq!(a.window, 46_875);
        r.on_release(SimTime(0), &view(40, 25, None), &mut a);
        assert_eq!(a.window, 12);
        let mut r = RAqm::new(
            RAqmConfig {
                compensation: Compensation::Ece,
                ..RAqmConfig::default()
            },
            &ctx(),
        );
        let mut a = ack();
        r.on_release(SimTime(0), &view(100, 0, None), &mut a);
        assert!(a.flags.has(TcpFlags::ECE));
        assert_eq!(a.window, 46_875);
    }
}

//! ABQ, Active Buffer Queueing (Xu et al., ABQ paper): the ingress of port X
//! holds pure ACKs while X's output queue Q_out is congested and releases
//! them all, with ECN-Echo, each time Q_out has drained by half.
//!
//! The state machine (ABQ paper "Queueing discipline", Fig. 2, Algorithm 1),
//! re-evaluated at every change of Q_out and at every ACK arrival, with Q_out
//! counted in `k`'s unit over all class queues of the port:
//!
//! - Q_out > K: **Congested** (CS). Entering CS sets `X = min(Q_max - K, K)`
//!   (`q_max` defaults to the port's buffer). ACKs are held, none released.
//! - In CS or **Light-congested** (LCS), Q_out < X (Algorithm 1's strict
//!   comparison): LCS, `X = X / 2` (integer halving), and *all* held ACKs
//!   are released with ECE set (the congestion-window corrector). If X is
//!   now below 4 MTU (4 packets when K counts packets, `4 x mtu` bytes when
//!   it counts bytes), X = 0 and the state is **Uncongested** (US).
//! - In LCS, arriving ACKs are held until the next release point.
//! - In US, ACKs pass at once.
//!
//! ABQ holds "Ack packets": here pure ACKs only (no payload, no SYN/FIN/RST),
//! since every data segment carries the ACK flag too.
//!
//! **Deviation (documented)**: the paper holds ACKs in CS with no bound, so
//! traffic that is not ACK-clocked could keep Q_out above K and starve the
//! VIQ forever. Here an ACK held for `max_hold` (default 5 ms) is released
//! (without ECE), by timer. The VIQ's capacity (`viq_capacity`, default
//! 500 pkt, the paper gives none) is apart from the data buffer.

use crate::PortContext;
use net::{Arrival, IngressHook, IngressView, Packet, ViqAction};
use serde::Deserialize;
use sim_core::{Bytes, QueueSize, SimDuration, SimTime};

/// `[switch.ingress] kind = "abq"`: keys and defaults.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AbqConfig {
    /// The congestion threshold K on Q_out (default 20 pkt).
    pub k: QueueSize,
    /// Q_max for `X = min(Q_max - K, K)` (default: the port's buffer).
    pub q_max: Option<QueueSize>,
    /// The MTU of "4 MTU" when K counts bytes (default 1500 B).
    pub mtu: Bytes,
    /// Release an ACK held this long (default 5 ms; a deviation, see above).
    pub max_hold: SimDuration,
    /// VIQ capacity (default 500 pkt).
    pub viq_capacity: QueueSize,
    /// Set ECE on ACKs released in LCS (the corrector; default true).
    pub ece: bool,
}

impl Default for AbqConfig {
    fn default() -> Self {
        AbqConfig {
            k: QueueSize::Packets(20),
            q_max: None,
            mtu: Bytes(1500),
            max_hold: SimDuration::from_ms(5),
            viq_capacity: QueueSize::Packets(500),
            ece: true,
        }
    }
}

impl AbqConfig {
    /// Checks the keys with the port's buffer: `(key, message)` for the first problem.
    pub fn validate(&self, port_buffer: QueueSize) -> Result<(), (&'static str, String)> {
        let q_max = self.q_max.unwrap_or(port_buffer);
        if !q_max.same_unit(self.k) {
            let key = if self.q_max.is_some() { "q_max" } else { "k" };
            return Err((
                key,
                format!(
                    "k and q_max (default: the switch buffer, {q_max}) must use the same unit; \
                     set q_max explicitly"
                ),
            ));
        }
        if self.k.amount() == 0 || self.k.amount() >= q_max.amount() {
            return Err(("k", format!("must be positive and below q_max ({q_max})")));
        }
        if self.mtu.0 == 0 || self.max_hold.ps() == 0 || self.viq_capacity.amount() == 0 {
            return Err((
                "viq_capacity",
                "mtu, max_hold and viq_capacity must be positive".into(),
            ));
        }
        Ok(())
    }
}

/// ABQ's congestion state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// US: ACKs pass.
    Uncongested,
    /// CS: ACKs are held.
    Congested,
    /// LCS: ACKs are held and released all at once at each halving of X.
    LightCongested,
}

/// ABQ at one port.
#[derive(Clone, Debug)]
pub struct Abq {
    cfg: AbqConfig,
    q_max: u64,
    four_mtu: u64,
    state: State,
    x: u64,
    /// Release every held ACK now (set at a release point, cleared by the next event).
    flush: bool,
    /// ACKs released because they were held `max_hold`.
    pub released_aged: u64,
}

impl Abq {
    /// ABQ for the port described by `ctx`. The config must be valid for it.
    pub fn new(cfg: AbqConfig, ctx: &PortContext) -> Self {
        let q_max = cfg.q_max.unwrap_or(ctx.buffer).amount();
        let four_mtu = if cfg.k.is_bytes() { 4 * cfg.mtu.0 } else { 4 };
        Abq {
            cfg,
            q_max,
            four_mtu,
            state: State::Uncongested,
            x: 0,
            flush: false,
            released_aged: 0,
        }
    }

    /// The current state.
    pub fn state(&self) -> State {
        self.state
    }

    /// The current X.
    pub fn x(&self) -> u64 {
        self.x
    }

    /// Algorithm 1 on the current Q_out.
    fn evaluate(&mut self, view: &IngressView) {
        self.flush = false;
        let k = self.cfg.k.amount();
        let q = if self.cfg.k.is_bytes() {
            view.out_bytes
        } else {
            view.out_packets
        };
        if q > k {
            if self.state != State::Congested {
                self.state = State::Congested;
                self.x = (self.q_max - k).min(k);
            }
        } else if self.state != State::Uncongested && q < self.x {
            self.x /= 2;
            self.state = State::LightCongested;
            if self.x < self.four_mtu {
                self.x = 0;
                self.state = State::Uncongested;
            }
            self.flush = true;
        }
    }
}

impl IngressHook for Abq {
    fn viq_capacity(&self) -> QueueSize {
        self.cfg.viq_capacity
    }

    fn on_arrival(&mut self, _now: SimTime, view: &IngressView, pkt: &mut Packet) -> Arrival {
        self.evaluate(view);
        if pkt.is_ack() && (self.state != State::Uncongested || view.viq_packets > 0) {
            Arrival::Hold // behind the ACKs already held: FIFO per flow
        } else {
            Arrival::Forward
        }
    }

    fn on_egress_enqueue(&mut self, _now: SimTime, view: &IngressView, _pkt: &Packet) -> bool {
        self.evaluate(view);
        false
    }

    fn on_egress_departure(&mut self, _now: SimTime, view: &IngressView, _pkt: &Packet) {
        self.evaluate(view);
    }

    fn poll(&mut self, now: SimTime, view: &IngressView) -> ViqAction {
        if self.flush || self.state == State::Uncongested {
            return ViqAction::Release;
        }
        match view.head_held_at {
            Some(held) if now.since(held) >= self.cfg.max_hold => {
                self.released_aged += 1;
                ViqAction::Release
            }
            _ => ViqAction::Wait,
        }
    }

    fn on_release(&mut self, _now: SimTime, _view: &IngressView, pkt: &mut Packet) {
        if self.flush && self.cfg.ece {
            pkt.set_ecn_echo();
        }
    }

    fn next_timer(&self, view: &IngressView) -> Option<SimTime> {
        view.head_held_at.map(|t| t + self.cfg.max_hold)
    }
}

impl crate::IngressPlugin for AbqConfig {
    fn check(&self, ctx: &crate::LoadContext) -> Result<(), crate::Invalid> {
        self.validate(ctx.queue_limit)
    }
    fn build(&self, ctx: &PortContext) -> Box<dyn IngressHook> {
        Box::new(Abq::new(self.clone(), ctx))
    }
    /// The VIQ drops ACKs when full (`viq_capacity`).
    fn drops_held_packets(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use net::{Kind, TcpFlags};

    fn ctx() -> PortContext {
        crate::testing::ctx(1, QueueSize::Packets(80))
    }

    use crate::testing::view;

    fn ack() -> Packet {
        Packet {
            flags: TcpFlags::ACK,
            kind: Kind::Ack,
            size_bytes: 40,
            ..Default::default()
        }
    }

    /// The paper's setup (K = 20, Q_max = 80): X = 20, then 10, 5, 2 -> US.
    #[test]
    fn x_halving_sequence() {
        let mut a = Abq::new(AbqConfig::default(), &ctx());
        let mut trace = Vec::new();
        for q in [5, 21, 30, 25, 20, 19, 15, 12, 10, 9, 6, 5, 4, 3, 1] {
            a.evaluate(&view(q));
            trace.push((q, a.state(), a.x(), a.flush));
        }
        use State::*;
        assert_eq!(
            trace,
            vec![
                (5, Uncongested, 0, false),
                (21, Congested, 20, false),
                (30, Congested, 20, false),
                (25, Congested, 20, false),
                (20, Congested, 20, false), // not below X yet
                (19, LightCongested, 10, true),
                (15, LightCongested, 10, false),
                (12, LightCongested, 10, false),
                (10, LightCongested, 10, false),
                (9, LightCongested, 5, true),
                (6, LightCongested, 5, false),
                (5, LightCongested, 5, false),
                (4, Uncongested, 0, true), // X = 2 < 4 MTU
                (3, Uncongested, 0, false),
                (1, Uncongested, 0, false),
            ]
        );
    }

    #[test]
    fn re_entering_congestion_resets_x() {
        let mut a = Abq::new(AbqConfig::default(), &ctx());
        for q in [21, 19, 9, 30] {
            a.evaluate(&view(q));
        }
        assert_eq!((a.state(), a.x()), (State::Congested, 20));
    }

    #[test]
    fn holds_in_congestion_releases_all_with_ece_at_the_release_point() {
        let mut a = Abq::new(AbqConfig::default(), &ctx());
        assert_eq!(
            a.on_arrival(SimTime(0), &view(3), &mut ack()),
            Arrival::Forward
        );
        a.on_egress_enqueue(SimTime(0), &view(21), &ack());
        assert_eq!(
            a.on_arrival(SimTime(0), &view(21), &mut ack()),
            Arrival::Hold
        );
        let mut held = view(21);
        held.viq_packets = 3;
        held.head_held_at = Some(SimTime(0));
        assert_eq!(a.poll(SimTime(1), &held), ViqAction::Wait);
        a.on_egress_departure(SimTime(2), &view(19), &ack());
        assert_eq!(a.poll(SimTime(2), &held), ViqAction::Release);
        let mut p = ack();
        a.on_release(SimTime(2), &held, &mut p);
        assert!(p.flags.has(TcpFlags::ECE));
        // The next event ends the release burst.
        a.on_egress_departure(SimTime(3), &view(18), &ack());
        assert_eq!(a.poll(SimTime(3), &held), ViqAction::Wait);
    }

    #[test]
    fn max_hold_releases_by_timer() {
        let mut a = Abq::new(AbqConfig::default(), &ctx());
        a.evaluate(&view(50));
        let mut v = view(50);
        v.viq_packets = 1;
        v.head_held_at = Some(SimTime(7));
        let t = a.next_timer(&v).expect("a timer while holding");
        assert_eq!(t, SimTime(7 + 5_000_000_000));
        assert_eq!(a.poll(t, &v), ViqAction::Release);
        assert_eq!(a.released_aged, 1);
    }

    #[test]
    fn units_must_agree() {
        let c = AbqConfig::default();
        assert!(c.validate(QueueSize::Packets(80)).is_ok());
        let e = c.validate(QueueSize::Bytes(128_000)).unwrap_err();
        assert_eq!(e.0, "k");
        assert!(c.validate(QueueSize::Packets(20)).is_err(), "K below Q_max");
    }
}

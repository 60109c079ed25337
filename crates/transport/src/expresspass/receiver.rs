//! ExpressPass's receiving end: credit pacing and credit feedback control
//! (sections 3.1-3.2).

use super::config::ExpressPassConfig;
use super::{CONTROL_BYTES, CREDIT_BYTES};
use crate::reassembly::Reassembly;
use crate::{Emit, FlowAddr};
use crate::{PathInfo, Side};
use net::{Kind, Packet, Protocol};
use sim_core::rng::{RngStream, purpose};
use sim_core::{SimDuration, SimTime};

/// Credit feedback control (Algorithm 1): the receiver's credit rate.
#[derive(Clone, Debug)]
pub struct CreditControl {
    /// The current credit rate, credit wire bits per second.
    pub rate_bps: f64,
    /// The maximum: the receiver link's credit share.
    pub max_rate_bps: f64,
    /// The floor: one credit per update period (the authors' ns-2 model's
    /// `min_rate`), so that a flow cut by a burst of losses still hears
    /// back within an RTT.
    pub min_rate_bps: f64,
    /// The aggressiveness w.
    pub w: f64,
    increasing: bool,
    w_min: f64,
    w_max: f64,
    target_loss: f64,
}

impl CreditControl {
    /// The controller at its first rate, alpha x the maximum.
    pub fn new(cfg: &ExpressPassConfig, max_rate_bps: f64, min_rate_bps: f64) -> Self {
        CreditControl {
            rate_bps: cfg.alpha * max_rate_bps,
            max_rate_bps,
            min_rate_bps: min_rate_bps.min(max_rate_bps),
            w: cfg.w_init,
            increasing: false,
            w_min: cfg.w_min,
            w_max: cfg.w_max,
            target_loss: cfg.target_loss,
        }
    }

    /// One update period's credit loss (lost / sent).
    pub fn update(&mut self, loss: f64) {
        if loss <= self.target_loss {
            if self.increasing {
                self.w = (self.w + self.w_max) / 2.0;
            }
            self.rate_bps = (1.0 - self.w) * self.rate_bps
                + self.w * self.max_rate_bps * (1.0 + self.target_loss);
            self.increasing = true;
        } else {
            self.rate_bps *= (1.0 - loss) * (1.0 + self.target_loss);
            self.w = (self.w / 2.0).max(self.w_min);
            self.increasing = false;
        }
        self.rate_bps = self.rate_bps.max(self.min_rate_bps);
    }
}

/// The receiver of one ExpressPass flow.
#[derive(Clone, Debug)]
pub struct ExpressPassReceiver {
    addr: FlowAddr,
    size: u64,
    bytes: Reassembly,
    control: CreditControl,
    /// Wire bits of one credit (its pacing unit).
    credit_bits: f64,
    jitter: f64,
    rng: RngStream,
    sending: bool,
    next_credit_at: SimTime,
    credit_seq: u64,
    /// The feedback period (the path's base RTT) and its next end.
    period: SimDuration,
    next_update: SimTime,
    /// The highest credit number data echoed, and this period's counts.
    last_echo: Option<u64>,
    /// The first credit sent at the rate in force: loss is counted over
    /// the credits sent since the last update, so that the credits of a
    /// rate already cut do not cut it again.
    counted_from: u64,
    echoed: u64,
    lost: u64,
    stopped_at: Option<SimTime>,
    /// Credits resumed after a stop left data missing: they ask the
    /// sender to resend what is missing.
    recovering: bool,
    retransmit_timeout: SimDuration,
    done: bool,
}

impl ExpressPassReceiver {
    /// The receiver of `addr` on `path` under `cfg`.
    pub fn new(addr: FlowAddr, cfg: &ExpressPassConfig, path: &PathInfo) -> Self {
        let q = cfg.credit_queues(path.wire);
        let credit_share =
            q.credit_wire_bytes as f64 / (q.credit_wire_bytes + q.data_wire_bytes) as f64;
        let max_rate_bps = path.rx_line_rate.bps() as f64 * credit_share;
        let period = path.base_rtt.max(SimDuration::from_ps(1));
        let credit_bits = q.credit_wire_bytes as f64 * 8.0;
        let min_rate_bps = credit_bits / (period.ps() as f64 * 1e-12);
        ExpressPassReceiver {
            addr,
            size: 0,
            bytes: Reassembly::default(),
            control: CreditControl::new(cfg, max_rate_bps, min_rate_bps),
            credit_bits,
            jitter: cfg.jitter,
            rng: RngStream::new(path.stream_seed, addr.flow.0 as u64, purpose::CREDIT_JITTER),
            sending: false,
            next_credit_at: SimTime::ZERO,
            credit_seq: 0,
            period,
            next_update: SimTime::MAX,
            last_echo: None,
            counted_from: 0,
            echoed: 0,
            lost: 0,
            stopped_at: None,
            recovering: false,
            retransmit_timeout: cfg.retransmit_timeout,
            done: false,
        }
    }

    fn ack(&self, now: SimTime) -> Packet {
        let mut p = self.addr.header(Side::Receiver, Kind::Ack);
        p.protocol = Protocol::ExpressPass;
        p.size_bytes = CONTROL_BYTES;
        p.ack = self.size;
        p.created_at = now;
        p
    }

    fn resume(&mut self, now: SimTime) {
        self.sending = true;
        self.stopped_at = None;
        self.next_credit_at = self.next_credit_at.max(now);
        if self.next_update == SimTime::MAX {
            self.next_update = now + self.period;
        }
    }

    /// A CREDIT_REQUEST, CREDIT_STOP or data packet.
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet, out: &mut impl Emit) {
        if pkt.protocol != Protocol::ExpressPass {
            return;
        }
        match pkt.kind {
            Kind::Control if !pkt.feedback.flag => {
                self.size = pkt.ack;
                if self.done {
                    out.emit(self.ack(now)); // the acknowledgment was lost
                } else if !self.sending {
                    self.resume(now);
                }
            }
            Kind::Control => {
                self.size = pkt.ack;
                if !self.done {
                    self.sending = false;
                    self.stopped_at = Some(now);
                }
            }
            Kind::Data if !self.done => {
                let echo = pkt.ack;
                let first_unseen = self.last_echo.map_or(0, |l| l + 1).max(self.counted_from);
                if echo >= first_unseen {
                    self.lost += echo - first_unseen;
                    self.echoed += 1;
                }
                self.last_echo = self.last_echo.max(Some(echo));
                self.bytes.add(pkt.seq, pkt.seq + pkt.payload_bytes as u64);
                if self.size > 0 && self.bytes.received() >= self.size {
                    self.done = true;
                    self.sending = false;
                    out.emit(self.ack(now));
                }
            }
            Kind::Data => out.emit(self.ack(now)),
            _ => {}
        }
    }

    /// The next credit, or the end of a stop's grace.
    pub fn deadline(&self) -> Option<SimTime> {
        if self.done {
            None
        } else if self.sending {
            Some(self.next_credit_at.min(self.next_update))
        } else {
            self.stopped_at.map(|t| t + self.retransmit_timeout)
        }
    }

    /// Ends a feedback period when one is due (Algorithm 1 on the loss of
    /// the credits sent at the current rate), sends a credit when one is
    /// due, or resumes credits a stop left the flow short of.
    #[inline(never)] // kept out of the world's per-packet code, which other families run
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl Emit) {
        if self.done {
            return;
        }
        if !self.sending {
            match self.stopped_at {
                Some(t) if now >= t + self.retransmit_timeout => {
                    self.recovering = true;
                    self.resume(now);
                }
                _ => return,
            }
        }
        if now >= self.next_update {
            // A period without feedback leaves the rate as it is.
            let total = self.echoed + self.lost;
            if total > 0 {
                self.control.update(self.lost as f64 / total as f64);
                self.counted_from = self.credit_seq;
            }
            self.echoed = 0;
            self.lost = 0;
            self.next_update = now + self.period;
        }
        if now < self.next_credit_at {
            return;
        }
        let mut c = self.addr.header(Side::Receiver, Kind::Credit);
        c.protocol = Protocol::ExpressPass;
        c.size_bytes = CREDIT_BYTES;
        c.seq = self.credit_seq;
        c.ack = self.bytes.in_order();
        c.feedback.flag = self.recovering;
        c.created_at = now;
        out.emit(c);
        self.credit_seq += 1;
        let spread = 1.0 + self.jitter * (2.0 * self.rng.uniform_open01() - 1.0);
        let gap_s = self.credit_bits / self.control.rate_bps * spread;
        self.next_credit_at = now + SimDuration::from_ps((gap_s * 1e12).round().max(1.0) as u64);
    }

    /// Data bytes received (distinct).
    pub fn bytes_received(&self) -> u64 {
        self.bytes.received()
    }

    /// The credit controller (tests, traces).
    pub fn control(&self) -> &CreditControl {
        &self.control
    }

    /// Its state for `[output] cc_trace`.
    pub fn cc_state(&self, out: &mut crate::StateOut<'_>) {
        out("credit_rate_gbps", self.control.rate_bps / 1e9);
        out("w", self.control.w);
    }
}

//! A packet-numbered sender's record of what it sent (the UEC transport's
//! and NDP's): each PSN at or above the cumulative ACK is outstanding,
//! given up (NACKed or timed out, waiting to be resent) or selectively
//! acknowledged; a packet outstanding `rto` after it was sent is given
//! up. Packets are the flow's bytes in MSS pieces, each with `header`
//! bytes of headers; what is in flight counts whole packets. Its
//! receiver's record is [`Arrivals`].

use sim_core::{SimDuration, SimTime};
use std::collections::VecDeque;

/// Where a sent packet stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Sent, neither acknowledged nor given up.
    Outstanding,
    /// NACKed or timed out: waiting in the resend queue.
    Lost,
    /// Acknowledged (selectively, above the cumulative ACK).
    Acked,
}

/// A packet at or above the cumulative ACK.
#[derive(Clone, Copy, Debug)]
struct Sent {
    at: SimTime,
    entropy: u16,
    state: State,
}

/// A packet given up: its PSN, the entropy value it went with, its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GivenUp {
    /// Its PSN.
    pub psn: u64,
    /// The entropy value it was sent with.
    pub entropy: u16,
    /// Its IP bytes.
    pub bytes: u64,
    /// When it was sent.
    pub sent_at: SimTime,
}

/// One flow's sent packets.
#[derive(Clone, Debug)]
pub struct PsnWindow {
    size_bytes: u64,
    mss: u64,
    header: u64,
    packets: u64,
    /// The next PSN never sent.
    next_psn: u64,
    /// Every PSN below it is acknowledged.
    cum: u64,
    /// PSNs `cum..next_psn`.
    sent: VecDeque<Sent>,
    /// PSNs to send again, oldest loss first (stale entries skipped).
    resend: VecDeque<u64>,
    /// Sends in time order, `(when, psn)`: the oldest still outstanding
    /// sets the timeout (stale entries skipped).
    sends: VecDeque<(SimTime, u64)>,
    in_flight: u64,
    rto: SimDuration,
    rto_at: Option<SimTime>,
    /// Packets given up and acknowledged before they went again.
    given_up_then_acked: u64,
}

impl PsnWindow {
    /// A flow of `size_bytes` in packets of `mss` payload bytes and
    /// `header` header bytes, each given up `rto` after it was sent.
    pub fn new(size_bytes: u64, mss: u64, header: u64, rto: SimDuration) -> Self {
        assert!(
            size_bytes > 0 && mss > 0,
            "a flow has a byte, a packet carries one"
        );
        PsnWindow {
            size_bytes,
            mss,
            header,
            packets: size_bytes.div_ceil(mss),
            next_psn: 0,
            cum: 0,
            sent: VecDeque::new(),
            resend: VecDeque::new(),
            sends: VecDeque::new(),
            in_flight: 0,
            rto,
            rto_at: None,
            given_up_then_acked: 0,
        }
    }

    /// Packets given up and acknowledged before they went again (a late
    /// ACK: the timeout, or the NACK, was spurious).
    pub fn given_up_then_acked(&self) -> u64 {
        self.given_up_then_acked
    }

    /// Packets given up and still waiting to go again.
    pub fn resends_pending(&self) -> u64 {
        self.sent.iter().filter(|s| s.state == State::Lost).count() as u64
    }

    /// The flow's bytes.
    pub fn size_bytes(&self) -> u64 {
        self.size_bytes
    }

    /// New packets sent so far (one past the highest PSN sent).
    pub fn sent_new(&self) -> u64 {
        self.next_psn
    }

    /// The flow's packets.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Whether every packet is acknowledged.
    pub fn all_acked(&self) -> bool {
        self.cum >= self.packets
    }

    /// Bytes in flight (whole packets).
    pub fn in_flight(&self) -> u64 {
        self.in_flight
    }

    /// Data bytes acknowledged cumulatively.
    pub fn bytes_acked(&self) -> u64 {
        (self.cum * self.mss).min(self.size_bytes)
    }

    /// When the oldest outstanding packet is given up.
    pub fn rto_at(&self) -> Option<SimTime> {
        self.rto_at
    }

    /// IP bytes still to send: the packets never sent and those waiting
    /// to be resent (an estimate: a stale resend entry counts too).
    pub fn backlog_bytes(&self) -> u64 {
        let new = self.packets.saturating_sub(self.next_psn);
        (new + self.resend.len() as u64) * (self.mss + self.header)
    }

    /// IP bytes of packet `psn`.
    pub fn bytes_of(&self, psn: u64) -> u64 {
        let payload = self.size_bytes.saturating_sub(psn * self.mss).min(self.mss);
        payload + self.header
    }

    fn slot(&mut self, psn: u64) -> Option<&mut Sent> {
        let i = psn.checked_sub(self.cum)?;
        self.sent.get_mut(usize::try_from(i).ok()?)
    }

    /// The PSN that goes next, resends first, and whether it is a resend.
    pub fn next_to_send(&mut self) -> Option<(u64, bool)> {
        while let Some(&psn) = self.resend.front() {
            if self.slot(psn).is_some_and(|s| s.state == State::Lost) {
                return Some((psn, true));
            }
            self.resend.pop_front();
        }
        (self.next_psn < self.packets).then_some((self.next_psn, false))
    }

    /// Packet `psn` (what [`PsnWindow::next_to_send`] gave) goes now with
    /// `entropy`; returns its bytes.
    pub fn send(&mut self, now: SimTime, psn: u64, again: bool, entropy: u16) -> u64 {
        let record = Sent {
            at: now,
            entropy,
            state: State::Outstanding,
        };
        if again {
            debug_assert_eq!(self.resend.front(), Some(&psn));
            self.resend.pop_front();
            *self.slot(psn).expect("a resend is in the window") = record;
        } else {
            debug_assert_eq!(psn, self.next_psn);
            self.sent.push_back(record);
            self.next_psn += 1;
        }
        let bytes = self.bytes_of(psn);
        self.in_flight += bytes;
        self.sends.push_back((now, psn));
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rto);
        }
        bytes
    }

    /// Acknowledges `psn` selectively; returns the bytes newly acknowledged.
    pub fn ack_one(&mut self, psn: u64) -> u64 {
        if psn >= self.next_psn {
            return 0;
        }
        let bytes = self.bytes_of(psn);
        let Some(s) = self.slot(psn) else { return 0 };
        let was = s.state;
        s.state = State::Acked;
        match was {
            State::Acked => 0,
            State::Lost => {
                self.given_up_then_acked += 1;
                bytes
            }
            State::Outstanding => {
                self.in_flight -= bytes;
                bytes
            }
        }
    }

    /// Everything below `cum` arrived, and the ranges `sacked`; returns
    /// the bytes newly acknowledged.
    pub fn ack(&mut self, cum: u64, sacked: impl Iterator<Item = (u64, u64)>) -> u64 {
        let mut bytes = 0;
        for psn in self.cum..cum.min(self.next_psn) {
            bytes += self.ack_one(psn);
        }
        for (start, end) in sacked {
            for psn in start..end.min(self.next_psn) {
                bytes += self.ack_one(psn);
            }
        }
        bytes
    }

    /// Retires what is acknowledged from the front and resets the timeout.
    pub fn settle(&mut self) {
        while self.sent.front().is_some_and(|s| s.state == State::Acked) {
            self.sent.pop_front();
            self.cum += 1;
        }
        while let Some(&(at, psn)) = self.sends.front() {
            let live = self
                .slot(psn)
                .is_some_and(|s| s.state == State::Outstanding && s.at == at);
            if live {
                self.rto_at = Some(at + self.rto);
                return;
            }
            self.sends.pop_front();
        }
        self.rto_at = None;
    }

    /// Gives up outstanding packet `psn` (a NACK named it): it leaves the
    /// bytes in flight and waits to be resent. `None` if it was not
    /// outstanding.
    pub fn give_up(&mut self, psn: u64) -> Option<GivenUp> {
        let bytes = self.bytes_of(psn);
        let s = self.slot(psn).filter(|s| s.state == State::Outstanding)?;
        s.state = State::Lost;
        let given = GivenUp {
            psn,
            entropy: s.entropy,
            bytes,
            sent_at: s.at,
        };
        self.in_flight -= bytes;
        self.resend.push_back(psn);
        Some(given)
    }

    /// Gives up the oldest outstanding packet if its timeout is due at `now`.
    pub fn expire(&mut self, now: SimTime) -> Option<GivenUp> {
        self.settle();
        if self.rto_at.is_none_or(|t| t > now) {
            return None;
        }
        let (_, psn) = self.sends.pop_front().expect("a timeout has its packet");
        let given = self
            .give_up(psn)
            .expect("the timeout's packet is outstanding");
        self.settle();
        Some(given)
    }

    /// Ends an unbounded flow at what has been sent; returns whether all
    /// of it is acknowledged already. The last packet is given up if it is
    /// outstanding, so that it goes again (with whatever the transport
    /// asks of its last packet).
    pub fn stop_at_sent(&mut self) -> bool {
        self.packets = self.next_psn.max(1);
        self.size_bytes = self.packets * self.mss;
        if self.all_acked() {
            return true;
        }
        self.give_up(self.packets - 1);
        false
    }
}

/// Implements [`crate::SenderEnd`] for a packet-numbered family's sender
/// (UEC's, NDP's) from its inherent methods and its [`PsnFlow`] record,
/// reached by `flow()` and `flow_mut()`: the two families' senders meet
/// the seam the same way.
macro_rules! psn_sender_end {
    ($t:ty) => {
        impl $crate::SenderEnd for $t {
            $crate::ends::sender_inherent!($t);
            $crate::ends::record_via!(flow);

            #[inline]
            fn on_packet(
                &mut self,
                now: SimTime,
                pkt: &net::Packet,
                _int: &net::IntStack,
                out: &mut impl $crate::Emit,
            ) {
                <$t>::on_packet(self, now, pkt, out)
            }

            #[inline(always)]
            fn wants_transmit(&mut self, _now: SimTime) -> bool {
                <$t>::wants_transmit(self)
            }

            #[inline]
            fn take_rtt_sample(&mut self) -> Option<sim_core::SimDuration> {
                self.flow_mut().take_rtt_sample()
            }

            fn record(&self) -> $crate::FlowRecord {
                self.flow().record()
            }
        }
    };
}

pub(crate) use psn_sender_end;

#[cfg(test)]
mod tests {
    use super::*;

    fn t(us: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_us(us)
    }

    #[test]
    fn sends_acks_gives_up_and_resends_by_psn() {
        let mut w = PsnWindow::new(2_500, 1_000, 64, SimDuration::from_us(100));
        assert_eq!(w.packets(), 3);
        for i in 0..3 {
            assert_eq!(w.next_to_send(), Some((i, false)));
            w.send(t(i), i, false, i as u16);
        }
        assert_eq!(w.next_to_send(), None);
        assert_eq!(w.in_flight(), 1_064 * 2 + 564);
        // PSN 1 is NACKed: it goes again ahead of nothing new.
        let g = w.give_up(1).expect("outstanding");
        assert_eq!((g.psn, g.entropy, g.bytes, g.sent_at), (1, 1, 1_064, t(1)));
        assert_eq!(w.give_up(1), None, "once");
        assert_eq!(w.next_to_send(), Some((1, true)));
        // A SACK of 2 and a cumulative ACK of 0 retire two packets.
        assert_eq!(w.ack(1, [(2, 3)].into_iter()), 1_064 + 564);
        w.settle();
        assert!(!w.all_acked());
        assert_eq!(w.bytes_acked(), 1_000);
        w.send(t(10), 1, true, 9);
        assert_eq!(w.rto_at(), Some(t(110)), "the resend's own send time");
        assert_eq!(w.expire(t(109)), None);
        let g = w.expire(t(110)).expect("due");
        assert_eq!((g.psn, g.entropy), (1, 9));
        assert_eq!(w.in_flight(), 0);
        w.send(t(120), 1, true, 3);
        assert_eq!(w.ack_one(1), 1_064);
        w.settle();
        assert!(w.all_acked() && w.rto_at().is_none());
        assert_eq!(w.bytes_acked(), 2_500);
    }

    #[test]
    fn stopping_an_unbounded_flow_resends_its_last_packet() {
        let mut w = PsnWindow::new(u64::MAX - 2, 1_000, 64, SimDuration::from_us(100));
        for i in 0..4 {
            w.send(t(i), i, false, 0);
        }
        w.ack(3, std::iter::empty());
        w.settle();
        assert!(!w.stop_at_sent());
        assert_eq!((w.packets(), w.size_bytes()), (4, 4_000));
        assert_eq!(w.next_to_send(), Some((3, true)));
    }
}

/// A packet-numbered flow's sending end as the world and the reports see
/// it: its addressing, times, counters and sent packets (the UEC and NDP
/// senders each keep one beside their own congestion state, as Homa's and
/// ExpressPass's keep a [`crate::message::MessageSend`]).
#[derive(Clone, Debug)]
pub struct PsnFlow {
    /// The flow's addressing.
    pub addr: crate::FlowAddr,
    /// When it started.
    pub started_at: Option<SimTime>,
    /// When the receiver acknowledged its last packet.
    pub completed_at: Option<SimTime>,
    /// What the sender did.
    pub stats: crate::Counters,
    /// Its sent packets.
    pub window: PsnWindow,
    /// The RTT sample the last ACK gave.
    pub rtt_sample: Option<SimDuration>,
    family: &'static str,
}

impl PsnFlow {
    /// Flow `addr` of `family` over `window`, not yet started.
    pub fn new(addr: crate::FlowAddr, family: &'static str, window: PsnWindow) -> Self {
        PsnFlow {
            addr,
            started_at: None,
            completed_at: None,
            stats: crate::Counters::default(),
            window,
            rtt_sample: None,
            family,
        }
    }

    /// Started and not yet acknowledged.
    pub fn running(&self) -> bool {
        self.started_at.is_some() && self.completed_at.is_none()
    }

    /// Starts it.
    pub fn start(&mut self, now: SimTime) {
        self.started_at = Some(now);
    }

    /// Ends an unbounded flow at what has been sent.
    pub fn stop_app(&mut self, now: SimTime) {
        if self.completed_at.is_none() && self.window.stop_at_sent() {
            self.completed_at = Some(now);
        }
    }

    /// Retires what is acknowledged; the flow completes with its last packet.
    pub fn settle(&mut self, now: SimTime) {
        self.window.settle();
        if self.window.all_acked() {
            self.completed_at = Some(now);
        }
    }

    /// When its oldest outstanding packet times out, while it runs.
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        if self.running() {
            self.window.rto_at()
        } else {
            None
        }
    }

    /// The RTT sample the last ACK gave; taking it clears it.
    pub fn take_rtt_sample(&mut self) -> Option<SimDuration> {
        self.rtt_sample.take()
    }

    /// When the receiver acknowledged the last packet.
    pub fn completed_at(&self) -> Option<SimTime> {
        self.completed_at
    }

    /// Data bytes acknowledged cumulatively.
    pub fn bytes_acked(&self) -> u64 {
        if self.completed_at.is_some() {
            self.window.size_bytes()
        } else {
            self.window.bytes_acked()
        }
    }

    /// The flow's size.
    pub fn size_bytes(&self) -> u64 {
        self.window.size_bytes()
    }

    /// The flow's addressing.
    pub fn addr(&self) -> &crate::FlowAddr {
        &self.addr
    }

    /// What the reports need of the flow.
    pub fn record(&self) -> crate::FlowRecord {
        crate::FlowRecord {
            family: self.family,
            started_at: self.started_at,
            completed_at: self.completed_at,
            closed_at: self.completed_at,
            bytes_acked: self.bytes_acked(),
            // Every packet given up (`timeouts`, `sack_recovered`) went
            // again (`retransmits`), was acknowledged first, or still waits.
            counters: crate::Counters {
                given_up_then_acked: self.window.given_up_then_acked(),
                resends_pending: self.window.resends_pending(),
                ..self.stats
            },
        }
    }
}

/// What a packet-numbered receiver holds (UEC's and NDP's): every PSN
/// below `expected`, and those above it that arrived out of order; and
/// the message's length, as its packets tell it.
#[derive(Clone, Debug)]
pub struct Arrivals {
    expected: u64,
    above: crate::psn_set::PsnSet,
    /// One past the highest PSN arrived.
    high: u64,
    length: u64,
}

impl Default for Arrivals {
    fn default() -> Self {
        Arrivals {
            expected: 0,
            above: Default::default(),
            high: 0,
            length: u64::MAX,
        }
    }
}

impl Arrivals {
    /// The next PSN expected: every one below it has arrived.
    pub fn expected(&self) -> u64 {
        self.expected
    }

    /// Whether `psn` has arrived.
    pub fn has(&self, psn: u64) -> bool {
        psn < self.expected || self.above.contains(psn)
    }

    /// Whether nothing above the expected PSN has arrived (no hole).
    pub fn in_order(&self) -> bool {
        self.high <= self.expected
    }

    /// A packet's word on the message's length.
    pub fn note_length(&mut self, length: u64) {
        self.length = self.length.min(length);
    }

    /// `psn`, not yet had, arrives; returns whether it was the expected
    /// one (the expected PSN then moves past what was held above it).
    pub fn arrive(&mut self, psn: u64) -> bool {
        debug_assert!(!self.has(psn), "PSN {psn} arrives twice");
        self.high = self.high.max(psn + 1);
        if psn != self.expected {
            self.above.insert(psn);
            return false;
        }
        self.expected += 1;
        while self.above.contains(self.expected) {
            self.expected += 1;
        }
        self.above.advance(self.expected);
        true
    }

    /// The runs of PSNs held above the expected one, lowest first, as
    /// `[start, end)`.
    pub fn held_runs(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let mut psn = self.expected + 1;
        std::iter::from_fn(move || {
            while psn < self.high && !self.above.contains(psn) {
                psn += 1;
            }
            if psn >= self.high {
                return None;
            }
            let start = psn;
            while psn < self.high && self.above.contains(psn) {
                psn += 1;
            }
            Some((start, psn))
        })
    }

    /// Whether the whole message arrived, for packets of `mss` payload bytes.
    pub fn complete(&self, mss: u64) -> bool {
        self.expected * mss >= self.length
    }

    /// Data bytes received in order, for packets of `mss` payload bytes.
    pub fn bytes_in_order(&self, mss: u64) -> u64 {
        (self.expected * mss).min(self.length)
    }
}

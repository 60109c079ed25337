//! A two-endpoint harness on virtual time for unit tests: the sender's
//! packets leave one at a time at `rate`, every packet takes `delay` one way,
//! and test hooks may drop or rewrite packets in flight. It drives any
//! family's ends through the seam's traits ([`SenderEnd`], [`ReceiverEnd`]),
//! the enums of every family included.

use crate::{FlowAddr, ReceiverEnd, SenderEnd};
use net::{FlowId, HostId, IntStack, Packet};
use sim_core::{Bandwidth, EventQueue, SimDuration, SimTime};

/// The addressing every harness flow uses.
pub fn addr() -> FlowAddr {
    FlowAddr {
        flow: FlowId(0),
        src: HostId(0),
        dst: HostId(1),
        sport: 1000,
        dport: 80,
        priority: 0,
    }
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    ToReceiver(usize),
    ToSender(usize),
    SenderTimer,
    ReceiverTimer,
}

/// The queue's bound: the harness's queue keeps insertion order, so this
/// orders only a queue set to the model's order (packets by their place
/// in the store, the order they were sent, then the timers).
impl sim_core::Tiebreak for Ev {
    fn tiebreak(&self, _: SimTime) -> u64 {
        match *self {
            Ev::ToReceiver(i) | Ev::ToSender(i) => i as u64,
            Ev::SenderTimer => 1 << 46,
            Ev::ReceiverTimer => (1 << 46) + 1,
        }
    }
}

/// Hooks on packets in flight: return false to drop.
pub type Filter<'a> = Box<dyn FnMut(SimTime, &mut Packet) -> bool + 'a>;

/// What the path does with a packet its filter let through: how many
/// copies arrive (0: lost, 2: duplicated), each this much later than the
/// one-way delay (a later packet may overtake it: reordering).
#[derive(Clone, Copy, Debug)]
pub struct Fate {
    pub copies: u8,
    pub extra: SimDuration,
}

/// A hook that decides each packet's [`Fate`].
pub type PathFate<'a> = Box<dyn FnMut(&Packet) -> Fate + 'a>;

/// The fate of a clean path: one copy, on time.
pub fn on_time(_: &Packet) -> Fate {
    Fate {
        copies: 1,
        extra: SimDuration::ZERO,
    }
}

pub struct Harness<'a, S, R: ReceiverEnd> {
    pub sender: S,
    pub receiver: R,
    pub rate: Bandwidth,
    pub delay: SimDuration,
    pub data_filter: Filter<'a>,
    pub ack_filter: Filter<'a>,
    /// The data path's fate for each packet (after `data_filter`).
    pub data_fate: PathFate<'a>,
    /// The reverse path's fate for each packet (after `ack_filter`).
    pub ack_fate: PathFate<'a>,
    q: EventQueue<Ev>,
    store: Vec<Packet>,
    nic_free: SimTime,
    sender_timer: Option<SimTime>,
    receiver_timer: Option<SimTime>,
    pub data_packets: Vec<Packet>,
    /// The receiving host's state for the receiver's family.
    pub nic: R::HostRx,
}

impl<'a, S: SenderEnd, R: ReceiverEnd> Harness<'a, S, R> {
    pub fn with(sender: S, receiver: R) -> Self {
        Harness {
            sender,
            receiver,
            rate: Bandwidth::from_gbps(10),
            delay: SimDuration::from_us(10),
            data_filter: Box::new(|_, _| true),
            ack_filter: Box::new(|_, _| true),
            data_fate: Box::new(on_time),
            ack_fate: Box::new(on_time),
            q: EventQueue::new(),
            store: Vec::new(),
            nic_free: SimTime::ZERO,
            sender_timer: None,
            receiver_timer: None,
            data_packets: Vec::new(),
            nic: R::HostRx::default(),
        }
    }

    fn send_data(&mut self, p: Packet) {
        let now = self.q.now();
        let start = self.nic_free.max(now);
        self.nic_free = start + self.rate.tx_time(p.size_bytes as u64);
        let mut p = p;
        self.data_packets.push(p);
        if (self.data_filter)(now, &mut p) {
            let fate = (self.data_fate)(&p);
            self.store.push(p);
            for _ in 0..fate.copies {
                let at = self.nic_free + self.delay + fate.extra;
                self.q.schedule(at, Ev::ToReceiver(self.store.len() - 1));
            }
        }
    }

    fn send_ack(&mut self, p: Packet) {
        let now = self.q.now();
        let mut p = p;
        if (self.ack_filter)(now, &mut p) {
            let fate = (self.ack_fate)(&p);
            self.store.push(p);
            for _ in 0..fate.copies {
                let at = now + self.delay + fate.extra;
                self.q.schedule(at, Ev::ToSender(self.store.len() - 1));
            }
        }
    }

    fn pump(&mut self) {
        let now = self.q.now();
        let mut out = Vec::new();
        // As a host's NIC pump asks: whether the flow wants to send (a
        // paced flow arms its pacer's wake-up here), then the packet.
        while self.sender.wants_transmit(now) {
            let Some(p) = self.sender.poll_transmit(now) else {
                break;
            };
            out.push(p);
        }
        for p in out {
            self.send_data(p);
        }
        if let Some(t) = self.sender.deadline()
            && self.sender_timer.is_none_or(|a| t < a)
        {
            self.sender_timer = Some(t);
            self.q.schedule(t, Ev::SenderTimer);
        }
        if let Some(t) = self.receiver.deadline()
            && self.receiver_timer.is_none_or(|a| t < a)
        {
            self.receiver_timer = Some(t);
            self.q.schedule(t, Ev::ReceiverTimer);
        }
    }

    /// Runs until both ends are idle or `until`.
    pub fn run(&mut self, until: SimTime) {
        let mut out = Vec::new();
        self.sender.start(SimTime::ZERO, &mut out);
        for p in out.drain(..) {
            self.send_data(p);
        }
        self.pump();
        while let Some(t) = self.q.peek_time() {
            if t > until {
                break;
            }
            let (now, ev) = self.q.pop().unwrap();
            let mut to_recv = Vec::new();
            let mut to_send = Vec::new();
            match ev {
                Ev::ToReceiver(i) => self.receiver.on_packet(
                    now,
                    &self.store[i].clone(),
                    &mut self.nic,
                    &mut to_send,
                ),
                Ev::ToSender(i) => self.sender.on_packet(
                    now,
                    &self.store[i].clone(),
                    &IntStack::EMPTY,
                    &mut to_recv,
                ),
                Ev::SenderTimer => {
                    if self.sender_timer == Some(now) {
                        self.sender_timer = None;
                        self.sender.on_timer(now, &mut to_recv);
                    }
                }
                Ev::ReceiverTimer => {
                    if self.receiver_timer == Some(now) {
                        self.receiver_timer = None;
                        self.receiver.on_timer(now, &mut self.nic, &mut to_send);
                    }
                }
            }
            for p in to_recv {
                self.send_data(p);
            }
            for p in to_send {
                self.send_ack(p);
            }
            self.pump();
        }
    }
}

//! A host: its NIC discipline, its per-host receive state, and the
//! ephemeral ports it hands out.
//!
//! The world keeps one [`Host`] per host. The flows' endpoints stay in
//! the world's flow table (indexed by flow id, the order every output
//! keeps); a host names its sending flows by id in its ready list and
//! reaches them, and its NIC, through [`HostIo`], so that it holds no
//! reference into the world and hosts share nothing but packets. Each
//! family keeps its own per-host state in its own module (the RoCE NIC's
//! message and byte counts, Homa's grant scheduler); [`HostRx`], generated
//! from the list of families, only holds them side by side.

use crate::family::NicDiscipline;
use crate::{HostRx, Sender, SenderEnd};
use net::{HostId, HostLink, Packet};
use sim_core::{RngStream, SimTime};
use std::collections::VecDeque;

/// What a host's NIC pump reaches outside the host: its flows' senders
/// and its ports (a NIC's; a GPU's NIC and NVLink). The world implements
/// it over its flow table and the fabric.
pub trait HostIo {
    /// The sender of flow `f` (one of this host's).
    fn sender(&self, f: u32) -> &Sender;
    /// The sender of flow `f`, and whether the flow is in the ready list.
    fn sender_mut(&mut self, f: u32) -> (&mut Sender, &mut bool);
    /// The link flow `f` sends by (fixed for the flow).
    fn link_of(&self, f: u32) -> HostLink;
    /// Whether the port on `link` takes a packet of priority `prio` now:
    /// for a flow built at the wire, whether the port can send it; else
    /// whether its buffer (its class's queue, when it has one per class)
    /// has room.
    fn nic_room(&self, link: HostLink, at_the_wire: bool, prio: u8) -> bool;
    /// Whether the port on `link` is sending.
    fn nic_busy(&self, link: HostLink) -> bool;
    /// Hands flow `f`'s packet `p` to the NIC, and re-arms the flow's timer.
    fn send(&mut self, f: u32, p: Packet);
    /// Re-arms flow `f`'s timer (its deadline may have moved).
    fn rearm(&mut self, f: u32);
}

/// How the NIC pump takes turns (the family's discipline, on the NIC's
/// queues).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pump {
    /// One queue, round robin: the head waits for room.
    RoundRobin,
    /// A queue per class, round robin: a flow whose class is full keeps
    /// its place without holding back the others.
    PerClass,
    /// Shortest remaining first, at the wire.
    Srpt,
}

/// One host.
#[derive(Clone, Debug)]
pub struct Host {
    id: HostId,
    /// Flows with data the windows allow, in the order the port serves
    /// them: a list per link ([`HostLink`]), so that a GPU's full rail
    /// never holds back its NVLink flows.
    ready: [VecDeque<u32>; 2],
    pump: Pump,
    /// Every flow it sends builds its packets at the wire (RoCE), so the
    /// NIC pulls nothing while its port is busy.
    wire_built_only: bool,
    /// Its next ephemeral source port; 0: none handed out yet.
    next_port: u16,
    /// Its receive state across connections.
    pub rx: HostRx,
}

impl Host {
    /// Host `id`; `per_class`: its NIC has a queue per class (PFC with
    /// several classes).
    pub fn new(id: HostId, per_class: bool) -> Self {
        Host {
            id,
            ready: [VecDeque::new(), VecDeque::new()],
            pump: if per_class {
                Pump::PerClass
            } else {
                Pump::RoundRobin
            },
            wire_built_only: true,
            next_port: 0,
            rx: HostRx::default(),
        }
    }

    /// A flow of it sends: built at the wire or not, under its family's
    /// NIC discipline. A discipline other than round robin wins over it on
    /// a NIC with a single queue.
    pub fn add_sender(&mut self, at_the_wire: bool, discipline: NicDiscipline) {
        self.wire_built_only &= at_the_wire;
        if discipline == NicDiscipline::Srpt && self.pump == Pump::RoundRobin {
            self.pump = Pump::Srpt;
        }
    }

    /// The next ephemeral source port, from Linux's default range
    /// (`ip_local_port_range` 32768-60999): the first at a random offset
    /// drawn from the seed, then one after another, wrapping (RFC 6056's
    /// simple per-host counter), so no two of a host's first 28,232
    /// connections share a port.
    pub fn ephemeral_port(&mut self, seed: u64) -> u16 {
        const FIRST: u16 = 32768;
        const COUNT: u16 = 28232;
        if self.next_port == 0 {
            let purpose = sim_core::rng::purpose::EPHEMERAL_PORT;
            let offset = RngStream::new(seed, self.id.0 as u64, purpose).below(COUNT as u64);
            self.next_port = FIRST + offset as u16;
        }
        let port = self.next_port;
        self.next_port = if port == FIRST + COUNT - 1 {
            FIRST
        } else {
            port + 1
        };
        port
    }

    /// Flow `f`'s sender changed: it joins the ready list if it has data
    /// to send now (asked before its timer is re-armed: a pacer that holds
    /// the packet back sets the deadline that wakes the flow).
    #[inline]
    pub fn offer(&mut self, now: SimTime, f: u32, io: &mut impl HostIo) {
        let link = io.link_of(f);
        let (sender, ready) = io.sender_mut(f);
        if !*ready && sender.wants_transmit(now) {
            *ready = true;
            self.ready[link.idx()].push_back(f);
        }
    }

    /// Each port pulls data packets from its ready flows while it has room.
    #[inline]
    pub fn pump(&mut self, now: SimTime, io: &mut impl HostIo) {
        for link in HostLink::ALL {
            if self.ready[link.idx()].is_empty() {
                continue;
            }
            match self.pump {
                Pump::RoundRobin => self.pump_round_robin(now, link, io),
                Pump::PerClass => self.pump_per_class(now, link, io),
                Pump::Srpt => self.pump_srpt(now, link, io),
            }
        }
    }

    /// One queue: the ready flows send in turn while the port has room
    /// for the head.
    #[inline]
    fn pump_round_robin(&mut self, now: SimTime, link: HostLink, io: &mut impl HostIo) {
        while let Some(&f) = self.ready[link.idx()].front() {
            let sender = io.sender(f);
            if !io.nic_room(link, sender.built_at_the_wire(), sender.addr().priority) {
                break;
            }
            self.ready[link.idx()].pop_front();
            self.send_next(now, link, f, io);
        }
    }

    /// A queue per class (under PFC): the ready flows send one packet each
    /// in turn while their own class has room; a flow whose class is full
    /// (paused downstream, say) keeps its place without holding back the
    /// others.
    #[inline(never)]
    fn pump_per_class(&mut self, now: SimTime, link: HostLink, io: &mut impl HostIo) {
        let l = link.idx();
        let mut stalled = 0; // flows passed over in a row for want of room
        while stalled < self.ready[l].len() {
            if self.wire_built_only && io.nic_busy(link) {
                break; // no flow of this host can send before the port frees
            }
            let Some(f) = self.ready[l].pop_front() else {
                break;
            };
            let sender = io.sender(f);
            if !io.nic_room(link, sender.built_at_the_wire(), sender.addr().priority) {
                self.ready[l].push_back(f);
                stalled += 1;
                continue;
            }
            stalled = 0;
            self.send_next(now, link, f, io);
        }
    }

    /// Shortest remaining first (Homa's sender, Homa 3.2): while the port
    /// can send, the ready flow with the fewest bytes left sends one
    /// packet (ties to the flow queued first).
    #[inline(never)]
    fn pump_srpt(&mut self, now: SimTime, link: HostLink, io: &mut impl HostIo) {
        let l = link.idx();
        while let Some((at, _)) = self.ready[l]
            .iter()
            .enumerate()
            .min_by_key(|&(i, &f)| (io.sender(f).srpt_rank(), i))
        {
            let f = self.ready[l][at];
            if !io.nic_room(link, true, io.sender(f).addr().priority) {
                break;
            }
            self.ready[l].remove(at);
            self.send_next(now, link, f, io);
        }
    }

    /// Ready flow `f` hands the NIC its next packet, if it has one, and
    /// keeps its turn in the ready list while it has more.
    #[inline]
    fn send_next(&mut self, now: SimTime, link: HostLink, f: u32, io: &mut impl HostIo) {
        let (sender, ready) = io.sender_mut(f);
        match sender.poll_transmit(now) {
            Some(p) => {
                if sender.wants_transmit(now) {
                    self.ready[link.idx()].push_back(f);
                } else {
                    *ready = false;
                }
                io.send(f, p);
            }
            None => {
                // Nothing now, but perhaps at a deadline the poll just set
                // (a pacer that holds the packet back).
                *ready = false;
                io.rearm(f);
            }
        }
    }
}

#[cfg(test)]
#[path = "host_tests.rs"]
mod tests;

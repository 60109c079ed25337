//! A host's NIC as the transports see it: whether it has room (in all,
//! or in a class), whether its wire is free for a packet built at the
//! wire, and handing it a packet. A GPU has two such ports, its NIC and
//! its NVLink ([`HostLink`]); each is asked on its own, so that a full
//! rail never holds back NVLink traffic nor the reverse.

use super::{Fabric, Scheduler};
use crate::ids::HostId;
use crate::int::IntStack;
use crate::packet::{NO_PORT, PRIORITIES, Packet, PacketId};
use crate::path_choice::Spray;
use crate::port::Port;

/// Which of a host's egress links: its NIC, or a GPU's NVLink to its
/// server's scale-up switch ([`Fabric::link_towards`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostLink {
    /// The NIC's port into the fabric (a GPU's rail).
    Nic = 0,
    /// A GPU's NVLink port to its server's scale-up switch.
    ScaleUp = 1,
}

impl HostLink {
    /// Both links, by index.
    pub const ALL: [HostLink; 2] = [HostLink::Nic, HostLink::ScaleUp];

    /// Its index in [`HostLink::ALL`].
    #[inline(always)]
    pub fn idx(self) -> usize {
        self as usize
    }
}

impl Fabric {
    /// Whether host `h`'s port on `link` accepts more transport data now.
    #[inline]
    pub fn nic_has_room(&self, h: HostId, link: HostLink) -> bool {
        self.ports[self.host_link_port(h, link)].bytes < self.config.nic_buffer_bytes
    }

    /// Whether host `h`'s NIC has a queue per class (under PFC), so that
    /// room must be asked per priority ([`Fabric::nic_has_room_for`]).
    #[inline]
    pub fn nic_per_class(&self, h: HostId) -> bool {
        // From the configuration, as the port was built: any copy may ask
        // of any host.
        let per_class = super::build::classes_at(&self.config, false) > 1;
        debug_assert!(
            !self.ports.holds(self.host_ports[h.idx()])
                || per_class != self.ports[self.host_ports[h.idx()]].queues.is_single()
        );
        per_class
    }

    /// Whether host `h`'s NIC accepts more data of priority `prio`: each
    /// class queue has the NIC buffer's size, so a paused priority fills
    /// its own queue and holds back only its own flows.
    #[inline]
    pub fn nic_has_room_for(&self, h: HostId, link: HostLink, prio: u8) -> bool {
        let (port, class) = self.nic_class(h, link, prio);
        port.queues[class].bytes() < self.config.nic_buffer_bytes
    }

    /// Host `h`'s port on `link` and the class queue its priority `prio` uses.
    #[inline]
    fn nic_class(&self, h: HostId, link: HostLink, prio: u8) -> (&Port, usize) {
        let port = &self.ports[self.host_link_port(h, link)];
        let class = if port.queues.is_single() {
            0
        } else {
            self.config.class_of_priority[prio as usize % PRIORITIES] as usize
        };
        (port, class)
    }

    /// Whether host `h`'s NIC can put a packet of priority `prio` on the
    /// wire now: its port idle, nothing queued in that class, and the class
    /// not paused. A NIC that builds its packets at the wire builds one only then (see
    /// `transport::Transport::BUILT_AT_THE_WIRE`).
    #[inline]
    pub fn nic_wire_free(&self, h: HostId, link: HostLink, prio: u8) -> bool {
        let (port, class) = self.nic_class(h, link, prio);
        !port.busy && port.queues[class].is_empty() && port.paused_classes & (1u32 << class) == 0
    }

    /// Whether host `h`'s port on `link` is serialising a frame.
    #[inline]
    pub fn nic_busy(&self, h: HostId, link: HostLink) -> bool {
        self.ports[self.host_link_port(h, link)].busy
    }

    /// Hands a packet to host `h`'s port towards its destination
    /// ([`Fabric::link_towards`]). Hosts never drop their own packets.
    #[inline]
    pub fn host_send<S: Scheduler>(&mut self, h: HostId, pkt: Packet, sched: &mut S) -> PacketId {
        self.host_send_int(h, pkt, &IntStack::EMPTY, sched)
    }

    /// [`Fabric::host_send`], giving a packet that carries INT the stack
    /// `int` (an HPCC ACK's echo; a data packet's starts empty).
    #[inline]
    pub fn host_send_int<S: Scheduler>(
        &mut self,
        h: HostId,
        pkt: Packet,
        int: &IntStack,
        sched: &mut S,
    ) -> PacketId {
        assert_eq!(pkt.src, h, "{h} sends a packet of {}", pkt.src); // pairs with deliver's
        // Set in the arena's slot: a struct update would copy all 128 bytes
        // once more on the way in.
        let carries_int = pkt.carries_int();
        let port = self.host_port_towards(h, pkt.dst);
        let id = self.packets.alloc(pkt);
        let slot = self.packets.get_mut(id);
        slot.ingress_port = NO_PORT;
        if self.config.spray == Spray::Oblivious {
            slot.entropy = crate::path_choice::oblivious_entropy(slot, self.config.seed);
        }
        if carries_int {
            self.int.set(id, int);
        }
        self.enqueue(port, id, sched);
        id
    }
}

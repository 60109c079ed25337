//! Packets, their header fields, the wire format, and the packet arena.
//!
//! A packet is created once, stored in the [`PacketArena`], and moved between
//! queues and links as a 4-byte [`PacketId`]; it is never copied on the hot path.
//!
//! Sizes: `size_bytes` is the IP packet (IP + TCP headers + payload), which is
//! what queues and buffers count. Links serialise the Ethernet frame on the
//! wire, `size_bytes` padded to the 46-byte minimum plus 38 bytes of framing
//! (preamble+SFD 8, MAC header 14, FCS 4, inter-frame gap 12), unless the
//! scenario turns framing off ([`WireFormat`]).
//!
//! Sequence numbers are 64-bit byte offsets that never wrap (a run never
//! sends 2^64 bytes); the receive window is the on-wire 16-bit field with its
//! scale, because switch plugins (FairQ, HSCC, R-AQM) rewrite it.

use crate::ids::{HostId, Origin};
use sim_core::SimTime;

/// IP + TCP header bytes without options (RFC 791 + RFC 9293: 20 + 20).
pub const TCP_IP_HEADER_BYTES: u32 = 40;
/// The TCP timestamps option as Linux sends it on every segment after the
/// handshake: two NOPs and the 10-byte option (RFC 7323 section 3).
pub const TCP_TIMESTAMPS_OPTION_BYTES: u32 = 12;
/// Packet priorities (DSCP's six bits): what a switch's
/// class-of-priority table covers.
pub const PRIORITIES: usize = 64;

/// At most this many SACK blocks fit beside the timestamps option in the
/// 40 bytes of TCP options (RFC 2018 section 3).
pub const MAX_SACK_BLOCKS: usize = 3;
/// `Packet::wscale_option` value meaning "no window-scale option".
pub const WSCALE_NONE: u8 = u8::MAX;
/// IP + UDP header bytes (20 + 8).
pub const UDP_IP_HEADER_BYTES: u32 = 28;

/// How an IP packet is framed on a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireFormat {
    /// Bytes added to every frame on the wire (Ethernet: 38).
    pub overhead_bytes: u32,
    /// Smallest IP payload of a frame; shorter packets are padded (Ethernet: 46).
    pub min_packet_bytes: u32,
}

impl WireFormat {
    /// PPP over a point-to-point link (RFC 1661 as ns-3's
    /// `PointToPointNetDevice` models it): a 2-byte protocol field, no
    /// padding, no gap. What ns-3 simulations of the papers serialise.
    pub const PPP: WireFormat = WireFormat {
        overhead_bytes: 2,
        min_packet_bytes: 0,
    };
    /// IEEE 802.3: 8 preamble+SFD, 14 MAC header, 4 FCS, 12 inter-frame gap;
    /// minimum frame 64 B, i.e. at least 46 B of IP packet.
    pub const ETHERNET: WireFormat = WireFormat {
        overhead_bytes: 38,
        min_packet_bytes: 46,
    };
    /// No framing: the IP packet alone is serialised.
    pub const NONE: WireFormat = WireFormat {
        overhead_bytes: 0,
        min_packet_bytes: 0,
    };

    /// Bytes serialised on the wire for an IP packet of `ip_bytes`.
    #[inline]
    pub fn wire_bytes(self, ip_bytes: u32) -> u64 {
        (ip_bytes.max(self.min_packet_bytes) + self.overhead_bytes) as u64
    }

    /// "One packet time" at `rate`: a full [`MTU_BYTES`] packet on the wire,
    /// framing included (1538 B with Ethernet). The one definition every
    /// plugin uses (R-AQM's idle tokens, RED's idle decay, MQ-ECN's t_idle).
    pub fn packet_time(self, rate: sim_core::Bandwidth) -> sim_core::SimDuration {
        rate.tx_time(self.wire_bytes(MTU_BYTES))
    }
}

/// The IP MTU: the size of a full packet, and so of "one packet" wherever a
/// model speaks of one packet's transmission time.
pub const MTU_BYTES: u32 = 1500;

/// The two-bit ECN field of the IP header (RFC 3168 section 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-capable transport.
    #[default]
    NotEct = 0,
    /// ECN-capable transport, ECT(0).
    Ect0 = 2,
    /// Congestion experienced.
    Ce = 3,
}

/// TCP header flags (RFC 9293 section 3.1; ECE and CWR from RFC 3168).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    /// FIN: no more data from sender.
    pub const FIN: TcpFlags = TcpFlags(0x01);
    /// SYN: synchronise sequence numbers.
    pub const SYN: TcpFlags = TcpFlags(0x02);
    /// RST: reset the connection.
    pub const RST: TcpFlags = TcpFlags(0x04);
    /// PSH.
    pub const PSH: TcpFlags = TcpFlags(0x08);
    /// ACK: the acknowledgment field is significant.
    pub const ACK: TcpFlags = TcpFlags(0x10);
    /// ECE: ECN-Echo.
    pub const ECE: TcpFlags = TcpFlags(0x40);
    /// CWR: congestion window reduced.
    pub const CWR: TcpFlags = TcpFlags(0x80);
    /// No flags.
    pub const NONE: TcpFlags = TcpFlags(0);

    /// Whether all flags of `other` are set.
    #[inline]
    pub const fn has(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }
    /// `self` with the flags of `other` set.
    #[inline]
    pub const fn with(self, other: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | other.0)
    }
    /// `self` with the flags of `other` cleared.
    #[inline]
    pub const fn without(self, other: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 & !other.0)
    }
}

impl std::ops::BitOr for TcpFlags {
    type Output = TcpFlags;
    fn bitor(self, rhs: TcpFlags) -> TcpFlags {
        self.with(rhs)
    }
}

/// What a packet is to its transport, in words every family shares: what
/// switches need to know of a packet without parsing its protocol (R-AQM
/// and ABQ hold [`Kind::Ack`]s of any family).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[repr(u8)]
pub enum Kind {
    /// Carries payload of a flow (a data segment, a RoCE data packet).
    #[default]
    Data,
    /// A pure acknowledgment: no payload, opens or closes nothing.
    Ack,
    /// Connection control (TCP's SYN, SYN-ACK, FIN, FIN-ACK).
    Control,
    /// A datagram of a packet source.
    Datagram,
    /// A credit of a receiver-driven transport (ExpressPass): it buys the
    /// sender one data packet. Switches queue credits apart from data and
    /// rate-limit them per port when credit queues are on ([`crate::credit`]).
    Credit,
    /// A data packet a switch cut to its header instead of dropping it
    /// (NDP, Handley et al., SIGCOMM 2017, 3.1; UEC 1.0's packet
    /// trimming): its payload is gone, its header (`seq`, the flow) tells
    /// the receiver at once which packet was lost. A receiver that does
    /// not know trimming takes it for the loss it stands for.
    Trimmed,
}

/// Up to [`MAX_SACK_BLOCKS`] SACK blocks (RFC 2018), each stored as byte
/// offsets above the packet's cumulative ACK so that they take 24 bytes of
/// the packet, not 48. The first block holds the most recently received
/// segment (RFC 2018 section 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SackBlocks {
    /// `(start, end)` offsets above the ACK; `end == 0` marks an unused slot.
    blocks: [(u32, u32); MAX_SACK_BLOCKS],
}

impl SackBlocks {
    /// Appends the block `[start, end)` (absolute sequence numbers, above
    /// `ack`); returns false when all slots are used.
    pub fn push(&mut self, ack: u64, start: u64, end: u64) -> bool {
        debug_assert!(ack < start && start < end, "SACK block below the ACK");
        let Some(slot) = self.blocks.iter_mut().find(|b| b.1 == 0) else {
            return false;
        };
        let off = |x: u64| u32::try_from(x - ack).expect("SACK block 4 GB above the ACK");
        *slot = (off(start), off(end));
        true
    }

    /// How many blocks are used.
    pub fn len(&self) -> usize {
        self.blocks.iter().take_while(|b| b.1 != 0).count()
    }

    /// Whether no block is used.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.blocks[0].1 == 0
    }

    /// The blocks as absolute `[start, end)` ranges for a packet whose ACK is `ack`.
    pub fn iter(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.blocks
            .iter()
            .take_while(|b| b.1 != 0)
            .map(move |b| (ack + b.0 as u64, ack + b.1 as u64))
    }

    /// Bytes the SACK option adds to a TCP header: two NOPs, kind and
    /// length, and 8 bytes a block (RFC 2018 section 3; 0 without blocks).
    #[inline]
    pub fn option_bytes(&self) -> u32 {
        if self.is_empty() {
            return 0;
        }
        match self.len() {
            0 => 0,
            n => 4 + 8 * n as u32,
        }
    }
}

/// The transport protocol carried by a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[repr(u8)]
pub enum Protocol {
    /// TCP: the header fields below are meaningful.
    #[default]
    Tcp,
    /// A UDP-like datagram (packet sources); TCP fields are zero.
    Udp,
    /// RoCE v2 (RDMA over UDP/IP): `seq` is the PSN, `ack` the next
    /// expected PSN of an ACK/NAK, and [`Packet::roce`] holds the opcode's
    /// place in its message and the NAK and CNP bits.
    Roce,
    /// Homa (SIGCOMM 2018), a message transport over IP: a data packet's
    /// `seq` is its offset and `ack` the message length; a grant's `ack`
    /// is the offset granted up to.
    Homa,
    /// ExpressPass (SIGCOMM 2017): data packets carry the credit they
    /// spend, credits their sequence number.
    ExpressPass,
    /// The Ultra Ethernet transport (UE 1.0, over UDP port 4793): `seq`
    /// is the PSN; an ACK's `ack` the next PSN expected (the fields'
    /// meaning: `transport::uec`).
    Uec,
    /// NDP (SIGCOMM 2017): `seq` is the PSN; ACK, NACK and PULL are
    /// told apart by `feedback.count` (`transport::ndp`).
    Ndp,
}

/// The RoCE header bits the model uses (the BTH opcode's place in its
/// message, the AETH syndrome, the CNP opcode), in one byte.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct RoceBits(pub u8);

impl RoceBits {
    /// The first packet of a message (SEND/WRITE First, or Only with `LAST`).
    pub const FIRST: RoceBits = RoceBits(1);
    /// The last packet of a message (Last, or Only with `FIRST`).
    pub const LAST: RoceBits = RoceBits(2);
    /// An ACK whose AETH syndrome is a NAK (PSN sequence error): go back to `ack`.
    pub const NAK: RoceBits = RoceBits(4);
    /// A congestion notification packet (BTH opcode 0x81).
    pub const CNP: RoceBits = RoceBits(8);
    /// The packet carries an INT stack (a controller asked for telemetry,
    /// HPCC's): switches stamp data packets
    /// at egress, ACKs echo the stack ([`crate::int`]).
    pub const INT: RoceBits = RoceBits(16);
    /// A switch's reverse-path AQM marked this ACK congestion-experienced
    /// (R-AQM VII: it "can mark ECN more accurately in the reverse path");
    /// the sender reacts as its notification point would to a CE-marked
    /// packet (see `transport::roce`'s sender).
    pub const ECE: RoceBits = RoceBits(32);

    /// Whether every bit of `other` is set.
    #[inline]
    pub fn has(self, other: RoceBits) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for RoceBits {
    type Output = RoceBits;
    fn bitor(self, o: RoceBits) -> RoceBits {
        RoceBits(self.0 | o.0)
    }
}

/// Congestion feedback a receiver puts on its ACKs for the sender's
/// controller, in whatever meaning that controller gives the fields (a
/// receiver-driven controller's assigned window; a count such as the
/// receiver's active messages; a flag such as a saturated last hop). Eight
/// bytes, in what was the packet's tail padding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Feedback {
    /// A window the receiver assigns, bytes; 0: none.
    pub window_bytes: u32,
    /// A count the receiver reports.
    pub count: u16,
    /// A condition the receiver reports.
    pub flag: bool,
    /// The packet is all header, a control packet of a transport whose
    /// control packets are headers (NDP 3.1's ACKs, NACKs and PULLs; UEC's):
    /// a trimming switch serves it from its header queue, ahead of data.
    /// Set by the transport's dispatch, not by a family's code
    /// (`transport::Transport::CONTROL_IS_HEADER`).
    pub header_only: bool,
}

/// One packet. Header fields are those of DESIGN.md's network model.
///
/// `repr(C)` and aligned to a cache line: what every hop reads or writes
/// (forwarding, queueing, ECN, ingress accounting, window rewrites) lies in
/// the first 64 bytes, so a hop finds it in one line; the transport's
/// fields fill the second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[repr(C, align(64))]
pub struct Packet {
    /// When the packet entered the queue it is in now (waiting-time statistics).
    pub enqueued_at: SimTime,
    /// The flow or packet source the packet belongs to.
    pub origin: Origin,
    /// IP source host.
    pub src: HostId,
    /// IP destination host.
    pub dst: HostId,
    /// IP packet size in bytes (headers + payload): what queues count.
    pub size_bytes: u32,
    /// The switch port the packet arrived on at the switch it is in now
    /// (`NO_PORT` at hosts and on links).
    pub ingress_port: u32,
    /// Transport source port (part of the ECMP 5-tuple).
    pub sport: u16,
    /// Transport destination port.
    pub dport: u16,
    /// ECN codepoint.
    pub ecn: Ecn,
    /// Service class: the DSCP class, 0 to [`PRIORITIES`] - 1 (0 = default),
    /// which each switch maps to a class queue; PFC's 802.1p priorities
    /// are 0 to 7 (a PFC run uses only those).
    pub priority: u8,
    /// The priority the packet was counted under at its switch's ingress
    /// (hooks may rewrite `priority` afterwards).
    pub ingress_priority: u8,
    /// Hops taken so far.
    pub hops: u8,
    /// Transport protocol.
    pub protocol: Protocol,
    /// What the packet is to its transport, whatever the protocol.
    pub kind: Kind,
    /// TCP flags.
    pub flags: TcpFlags,
    /// Direction within the flow: false = from the flow's source (data),
    /// true = from its destination (ACKs).
    pub reverse: bool,
    /// Transport payload bytes.
    pub payload_bytes: u32,
    /// The 16-bit receive-window field, in units of 2^`wscale_shift` bytes.
    pub window: u16,
    /// Window-scale option on SYN and SYN-ACK (RFC 7323 2.2): the shift, or
    /// [`WSCALE_NONE`] when the option is absent.
    pub wscale_option: u8,
    /// The TCP header's reserved bits (FairQ's host shim writes the sender's
    /// window-scale exponent here, FairQ paper section V-A).
    pub reserved: u8,
    /// Counted by its switch's PFC memory manager (a lossless packet that
    /// entered the data buffer; see [`crate::pfc`]).
    pub mmu_charged: bool,
    /// RoCE's opcode place, NAK and CNP bits (zero for other protocols).
    pub roce: RoceBits,
    /// The entropy value switches hash with the 5-tuple (UEC 1.0's
    /// entropy field; a spraying host sets one per packet): 0 for a host
    /// that does not spray.
    pub entropy: u16,
    /// TCP sequence number of the first payload byte (64-bit, never wraps).
    pub seq: u64,
    /// TCP cumulative acknowledgment number.
    pub ack: u64,
    /// Sender's timestamp (TSval, RFC 7323); also a RoCE data packet's send
    /// timestamp.
    pub ts_val: SimTime,
    /// Echoed timestamp (TSecr).
    pub ts_ecr: SimTime,
    /// When the packet was created (for delay statistics).
    pub created_at: SimTime,
    /// SACK blocks of a TCP ACK (RFC 2018).
    pub sack: SackBlocks,
    /// A receiver's congestion feedback on an ACK.
    pub feedback: Feedback,
}

/// `Packet::ingress_port` outside a switch.
pub const NO_PORT: u32 = u32::MAX;

impl Packet {
    /// Whether it is a congestion notification packet (RoCE v2's CNP
    /// opcode; DCQCN's notification point sends them).
    #[inline]
    pub fn is_cnp(&self) -> bool {
        self.protocol == Protocol::Roce && self.roce.has(RoceBits::CNP)
    }

    /// Whether it is a negative acknowledgment in its header's own bits
    /// (RoCE v2's AETH NAK syndrome).
    #[inline]
    pub fn is_nak(&self) -> bool {
        self.protocol == Protocol::Roce && self.roce.has(RoceBits::NAK)
    }

    /// One past the last sequence number a data packet covers: its PSN
    /// plus one where sequence numbers count packets (RoCE's, UEC's and
    /// NDP's PSNs), else its first byte plus its payload.
    #[inline]
    pub fn seq_end(&self) -> u64 {
        match self.protocol {
            Protocol::Roce | Protocol::Uec | Protocol::Ndp => self.seq + 1,
            Protocol::Tcp | Protocol::Udp | Protocol::Homa | Protocol::ExpressPass => {
                self.seq + self.payload_bytes as u64
            }
        }
    }

    /// Whether it carries in-band telemetry (an INT stack in the fabric's
    /// side table: asked for by a data packet, echoed by its ACK).
    #[inline]
    pub fn carries_int(&self) -> bool {
        self.roce.has(RoceBits::INT)
    }

    /// A pure acknowledgment of any transport family: what R-AQM and ABQ hold.
    #[inline]
    pub fn is_ack(&self) -> bool {
        self.kind == Kind::Ack
    }

    /// The flow the packet belongs to (`None` for a packet source's).
    #[inline]
    pub fn flow(&self) -> Option<crate::FlowId> {
        match self.origin {
            Origin::Flow(f) => Some(f),
            Origin::Source(_) => None,
        }
    }

    /// Whether the packet carries a receive window a switch may rewrite:
    /// TCP with the ACK flag and without SYN (RFC 7323 2.2: the window of
    /// a SYN or SYN-ACK is never scaled). No other family has a window field.
    #[inline]
    pub fn carries_window(&self) -> bool {
        self.protocol == Protocol::Tcp
            && self.flags.has(TcpFlags::ACK)
            && !self.flags.has(TcpFlags::SYN)
    }

    /// Whether the packet echoes congestion to its sender (TCP's ECE).
    #[inline]
    pub fn ecn_echo(&self) -> bool {
        self.protocol == Protocol::Tcp && self.flags.has(TcpFlags::ECE)
    }

    /// Sets the congestion echo of an acknowledgment, as a switch
    /// compensating for held ACKs does (R-AQM, ABQ). Returns false when
    /// the packet's family has no echo bit in its ACKs.
    #[inline]
    pub fn set_ecn_echo(&mut self) -> bool {
        match self.protocol {
            Protocol::Tcp => {
                self.flags = self.flags | TcpFlags::ECE;
                true
            }
            // RoCE's ACK has no ECN-Echo flag: the echo is a bit beside
            // the AETH, which the sender reads as its NP reads CE.
            Protocol::Roce if self.kind == Kind::Ack => {
                self.roce = self.roce | RoceBits::ECE;
                true
            }
            // UEC's ACK echoes its packet's CE mark in `feedback.flag`.
            Protocol::Uec if self.kind == Kind::Ack => {
                self.feedback.flag = true;
                true
            }
            Protocol::Udp
            | Protocol::Roce
            | Protocol::Homa
            | Protocol::ExpressPass
            | Protocol::Uec
            | Protocol::Ndp => false,
        }
    }

    /// Whether a trimming switch port serves it from its header queue,
    /// ahead of the data: a header trimmed upstream, and a control packet
    /// marked header-only by its transport ([`Feedback::header_only`];
    /// htsim's composite queue serves every header-only packet first, as
    /// NDP's switch does its headers, ACKs, NACKs and PULLs, NDP 3.1).
    #[inline]
    pub fn rides_header_queue(&self) -> bool {
        self.kind == Kind::Trimmed || (self.kind == Kind::Ack && self.feedback.header_only)
    }

    /// Whether the packet accepts a new connection (TCP's SYN-ACK): FairQ
    /// counts flows by these.
    #[inline]
    pub fn accepts_connection(&self) -> bool {
        self.protocol == Protocol::Tcp && self.flags.has(TcpFlags::SYN | TcpFlags::ACK)
    }

    /// Whether the packet closes its connection (TCP's FIN or RST).
    #[inline]
    pub fn closes_connection(&self) -> bool {
        self.protocol == Protocol::Tcp
            && (self.flags.has(TcpFlags::FIN) || self.flags.has(TcpFlags::RST))
    }
}

/// Index of a packet in the [`PacketArena`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PacketId(pub u32);

/// Storage for every live packet, with a free list so that steady-state runs
/// never allocate: a freed slot is reused by the next packet.
///
/// Each slot knows whether it holds a live packet, so freeing a packet twice
/// is caught where it happens (always, in release builds too: a double free
/// would hand one slot to two packets and corrupt a run silently), and so is
/// reading a freed packet in debug builds.
#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    live: Vec<bool>,
    free: Vec<u32>,
}

impl PacketArena {
    /// An empty arena with room for `cap` packets.
    pub fn with_capacity(cap: usize) -> Self {
        PacketArena {
            slots: Vec::with_capacity(cap),
            live: Vec::with_capacity(cap),
            free: Vec::with_capacity(cap),
        }
    }

    /// Stores `p` and returns its id.
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        match self.free.pop() {
            Some(i) => {
                let live = &mut self.live[i as usize];
                assert!(!*live, "packet slot {i} on the free list is live");
                *live = true;
                self.slots[i as usize] = p;
                PacketId(i)
            }
            None => {
                let i = u32::try_from(self.slots.len()).expect("more than 2^32 live packets");
                self.slots.push(p);
                self.live.push(true);
                PacketId(i)
            }
        }
    }

    /// Releases a packet's slot. The id must not be used again.
    #[inline]
    pub fn free(&mut self, id: PacketId) {
        let live = &mut self.live[id.0 as usize];
        assert!(*live, "packet {} freed twice", id.0);
        *live = false;
        self.free.push(id.0);
    }

    /// The packet behind `id`.
    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        debug_assert!(self.live[id.0 as usize], "packet {} read after free", id.0);
        &self.slots[id.0 as usize]
    }

    /// The packet behind `id`, mutably (ECN marking, rwnd rewriting).
    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        debug_assert!(
            self.live[id.0 as usize],
            "packet {} written after free",
            id.0
        );
        &mut self.slots[id.0 as usize]
    }

    /// Packets currently stored (allocated and not freed).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Every live packet (for reports at a run's end, not the hot path).
    pub fn iter_live(&self) -> impl Iterator<Item = &Packet> {
        (self.slots.iter().zip(&self.live))
            .filter(|(_, live)| **live)
            .map(|(p, _)| p)
    }

    /// The largest number of packets ever stored at once.
    pub fn high_water(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    /// Pins what the `Packet` doc promises: the fields a switch hop reads
    /// or writes lie in the first 64 bytes (one cache line) of a line-aligned packet.
    #[test]
    fn per_hop_fields_share_the_first_cache_line() {
        assert_eq!(align_of::<Packet>(), 64);
        for end in [
            offset_of!(Packet, enqueued_at) + size_of::<SimTime>(),
            offset_of!(Packet, ingress_port) + 4,
            offset_of!(Packet, dport) + 2,
            offset_of!(Packet, hops) + 1,
            offset_of!(Packet, flags) + 1,
            offset_of!(Packet, window) + 2,
            offset_of!(Packet, payload_bytes) + 4,
            offset_of!(Packet, kind) + 1,
            offset_of!(Packet, origin) + size_of::<Origin>(),
            offset_of!(Packet, mmu_charged) + 1,
            offset_of!(Packet, roce) + 1,
            offset_of!(Packet, entropy) + 2,
        ] {
            assert!(end <= 64, "a per-hop field ends at {end}");
        }
        // Two cache lines in all, SACK blocks included.
        assert_eq!(size_of::<Packet>(), 128);
    }

    #[test]
    fn arena_reuses_slots() {
        let mut a = PacketArena::with_capacity(2);
        let x = a.alloc(Packet {
            seq: 1,
            ..Default::default()
        });
        let y = a.alloc(Packet {
            seq: 2,
            ..Default::default()
        });
        a.free(x);
        let z = a.alloc(Packet {
            seq: 3,
            ..Default::default()
        });
        assert_eq!(z, x);
        assert_eq!(a.get(z).seq, 3);
        assert_eq!(a.get(y).seq, 2);
        assert_eq!((a.live(), a.high_water()), (2, 2));
    }

    #[test]
    #[should_panic(expected = "packet 0 freed twice")]
    fn a_double_free_is_caught() {
        let mut a = PacketArena::with_capacity(1);
        let x = a.alloc(Packet::default());
        a.free(x);
        a.free(x);
    }

    #[test]
    fn wire_bytes_pad_and_frame() {
        assert_eq!(WireFormat::ETHERNET.wire_bytes(1500), 1538);
        assert_eq!(WireFormat::ETHERNET.wire_bytes(40), 84);
        assert_eq!(WireFormat::NONE.wire_bytes(40), 40);
    }

    #[test]
    fn ack_and_window_predicates() {
        let ack = Packet {
            flags: TcpFlags::ACK,
            kind: Kind::Ack,
            ..Default::default()
        };
        assert!(ack.is_ack() && ack.carries_window() && !ack.ecn_echo());
        let mut echoed = ack;
        assert!(echoed.set_ecn_echo() && echoed.ecn_echo());
        let syn_ack = Packet {
            flags: TcpFlags::SYN | TcpFlags::ACK,
            kind: Kind::Control,
            ..ack
        };
        assert!(!syn_ack.is_ack() && !syn_ack.carries_window() && syn_ack.accepts_connection());
        // Another family's ACK: held like TCP's, but it has no window or ECE.
        let mut other = Packet {
            protocol: Protocol::Udp,
            kind: Kind::Ack,
            ..Default::default()
        };
        assert!(other.is_ack() && !other.carries_window() && !other.set_ecn_echo());
    }

    #[test]
    fn sack_blocks_are_offsets_above_the_ack() {
        let mut b = SackBlocks::default();
        assert!(b.is_empty() && b.option_bytes() == 0);
        assert!(b.push(1000, 3000, 4000));
        assert!(b.push(1000, 1500, 2000));
        assert!(b.push(1000, 5000, 6000));
        assert!(!b.push(1000, 7000, 8000));
        assert_eq!(
            b.iter(1000).collect::<Vec<_>>(),
            vec![(3000, 4000), (1500, 2000), (5000, 6000)]
        );
        assert_eq!(b.option_bytes(), 28);
    }
}

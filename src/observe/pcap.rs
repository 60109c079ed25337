//! pcap captures: each packet leaving an observed port as the Ethernet frame
//! a tap on its link would record, so that Wireshark and tshark decode it.
//!
//! The file is classic pcap (the libpcap format of
//! <https://www.tcpdump.org/manpages/pcap-savefile.5.txt>) with nanosecond
//! timestamps (magic `0xa1b23c4d`) and link type 1 (Ethernet). A frame is:
//!
//! - Ethernet II: the sending node's and the next node's MACs,
//!   `02:00:00:NN:NN:NN` (locally administered, NN the node's index), type
//!   IPv4. Frames below Ethernet's 60-byte minimum are padded with zeros.
//! - IPv4: host N is `10.0.0.0 + N` (host 17 is 10.0.0.17); DSCP the
//!   packet's priority, the ECN field as the port left it, TTL 64 less the
//!   hops taken, total length the packet's size in the model, a valid
//!   header checksum.
//! - TCP: the ports, sequence and ACK numbers (the model's 64-bit byte
//!   offsets, modulo 2^32), flags, window (the receiver's, on its ACKs;
//!   65535 from the sender, whose window the model does not carry), and
//!   the options the model
//!   carries in the header bytes it counts: window scale on a SYN,
//!   SACK-permitted and timestamps (TSval and TSecr in microseconds), SACK
//!   blocks; bytes the model counts but whose option it does not carry
//!   (the SYN's MSS) are NOPs.
//! - RoCEv2: UDP to port 4791 with the InfiniBand BTH: opcode RC SEND
//!   First/Middle/Last/Only by the packet's place in its message, RC
//!   Acknowledge with an AETH (ACK, or NAK "PSN sequence error" for a
//!   NAK), or CNP (0x81); the destination QP is 16 + the flow id, the PSN the
//!   model's (an ACK's is the last PSN it acknowledges, a NAK's the one it
//!   expects); the ICRC is left zero.
//! - UEC: UDP to port 4793 (UET's), then dcnsim's packet-number header
//!   ([`psn_header`]: type, flags, entropy, PSN, acknowledgment, credit).
//!   UE 1.0's own headers are not written: the model does not carry their
//!   fields.
//! - NDP: IP protocol 253 (RFC 3692's experimentation value, NDP having
//!   no standard encapsulation), then the same packet-number header.
//! - A datagram of a packet source: UDP. Homa and ExpressPass are IP
//!   protocol 253 with the payload zeros.
//!
//! Payload bytes are zeros up to the snap length.

use net::packet::{Kind, Protocol, RoceBits, TcpFlags, WSCALE_NONE};
use net::{Ecn, Packet};
use std::io::Write;

/// The default snap length: whole frames, as tcpdump's default (a
/// `snaplen` of 128 keeps every header dcnsim writes, and files ten times
/// smaller; Wireshark then flags a cut RoCE packet as malformed, as its
/// InfiniBand dissector checks the payload's length).
pub const DEFAULT_SNAPLEN: u32 = 262_144;
/// The smallest snap length (Ethernet, IPv4 and a UDP or TCP header).
pub const MIN_SNAPLEN: u32 = 64;
/// The largest: what libpcap allows.
pub const MAX_SNAPLEN: u32 = 262_144;

/// The UDP port of RoCEv2 (IANA).
pub const ROCE_UDP_PORT: u16 = 4791;

/// The UDP port of the Ultra Ethernet transport (UE 1.0).
pub const UEC_UDP_PORT: u16 = 4793;
/// IP protocol numbers.
const IPPROTO_TCP: u8 = 6;
const IPPROTO_UDP: u8 = 17;
const IPPROTO_EXPERIMENT: u8 = 253;
/// Ethernet's minimum frame without its FCS.
const MIN_FRAME_BYTES: usize = 60;
const ETH_BYTES: usize = 14;
const IP_BYTES: usize = 20;

/// A node's MAC address.
pub fn mac(node: u32) -> [u8; 6] {
    let n = node.to_be_bytes();
    [0x02, 0, 0, n[1], n[2], n[3]]
}

/// A host's IPv4 address: 10.0.0.0 + index.
pub fn ip(host: u32) -> [u8; 4] {
    (0x0a00_0000u32.wrapping_add(host)).to_be_bytes()
}

/// The RFC 1071 checksum of `bytes`.
fn checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The headers of `pkt`'s frame from node `from` to node `to`, into `out`
/// (cleared first); returns the whole frame's length on the wire (without
/// its FCS), payload and padding included.
pub fn frame_headers(pkt: &Packet, from: u32, to: u32, out: &mut Vec<u8>) -> usize {
    out.clear();
    out.extend_from_slice(&mac(to));
    out.extend_from_slice(&mac(from));
    out.extend_from_slice(&0x0800u16.to_be_bytes());
    let ip_len = pkt.size_bytes.clamp(IP_BYTES as u32 + 8, u16::MAX as u32) as usize;
    let proto = match pkt.protocol {
        Protocol::Tcp => IPPROTO_TCP,
        Protocol::Udp | Protocol::Roce | Protocol::Uec => IPPROTO_UDP,
        Protocol::Homa | Protocol::ExpressPass | Protocol::Ndp => IPPROTO_EXPERIMENT,
    };
    let ecn = match pkt.ecn {
        Ecn::NotEct => 0,
        Ecn::Ect0 => 2,
        Ecn::Ce => 3,
    };
    let mut iph = [0u8; IP_BYTES];
    iph[0] = 0x45;
    iph[1] = (pkt.priority & 0x3f) << 2 | ecn;
    iph[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
    iph[6] = 0x40; // don't fragment
    iph[8] = 64u8.saturating_sub(pkt.hops);
    iph[9] = proto;
    iph[12..16].copy_from_slice(&ip(pkt.src.0));
    iph[16..20].copy_from_slice(&ip(pkt.dst.0));
    let sum = checksum(&iph);
    iph[10..12].copy_from_slice(&sum.to_be_bytes());
    out.extend_from_slice(&iph);
    let l4 = ip_len - IP_BYTES;
    match pkt.protocol {
        Protocol::Tcp => tcp_header(pkt, l4, out),
        Protocol::Roce => {
            udp_header(pkt.sport, ROCE_UDP_PORT, l4, out);
            roce_headers(pkt, out);
        }
        Protocol::Udp => udp_header(pkt.sport, pkt.dport, l4, out),
        Protocol::Uec => {
            udp_header(pkt.sport, UEC_UDP_PORT, l4, out);
            psn_header(pkt, out);
        }
        Protocol::Ndp => psn_header(pkt, out),
        Protocol::Homa | Protocol::ExpressPass => {}
    }
    out.truncate(ETH_BYTES + ip_len);
    (ETH_BYTES + ip_len).max(MIN_FRAME_BYTES)
}

/// Bytes of [`psn_header`].
pub const PSN_HEADER_BYTES: usize = 24;

/// The packet-number header of UEC's and NDP's packets as dcnsim writes
/// it (docs/outputs.md, "pcap"), all fields big-endian, 24 bytes (inside
/// the 64 header bytes both transports count):
///
/// | offset | bytes | field |
/// |---|---|---|
/// | 0 | 1 | type: 1 DATA, 2 ACK, 3 NACK, 4 credit (UEC's RCCC) or PULL (NDP), 5 a DATA a switch trimmed to its header |
/// | 1 | 1 | flags: 0x01 on DATA an ACK request, on an ACK the CE echo; 0x02 the packet goes from receiver to sender |
/// | 2 | 2 | entropy (the value switches hash; 0 from a host that does not spray) |
/// | 4 | 8 | PSN: a DATA's own, the one an ACK or NACK answers |
/// | 12 | 8 | acknowledgment: on DATA the message's length; on an ACK or NACK the next PSN expected; on a credit the credit granted so far; on a PULL the pull counter |
/// | 20 | 4 | on a DATA the credit it asks for (64 B units, UEC with `rccc`); 0 otherwise |
pub fn psn_header(pkt: &Packet, out: &mut Vec<u8>) {
    let kind = match (pkt.kind, pkt.feedback.count) {
        (Kind::Trimmed, _) => 5,
        (Kind::Ack, 1) => 3,
        (Kind::Ack, 2) => 4,
        (Kind::Ack, _) => 2,
        _ => 1,
    };
    let flags = u8::from(pkt.feedback.flag) | u8::from(pkt.reverse) << 1;
    out.extend_from_slice(&[kind, flags]);
    out.extend_from_slice(&pkt.entropy.to_be_bytes());
    out.extend_from_slice(&pkt.seq.to_be_bytes());
    out.extend_from_slice(&pkt.ack.to_be_bytes());
    out.extend_from_slice(&pkt.feedback.window_bytes.to_be_bytes());
}

fn udp_header(sport: u16, dport: u16, len: usize, out: &mut Vec<u8>) {
    out.extend_from_slice(&sport.to_be_bytes());
    out.extend_from_slice(&dport.to_be_bytes());
    out.extend_from_slice(&(len.min(u16::MAX as usize) as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0]); // no checksum (allowed over IPv4)
}

/// TCP's header in the `l4` bytes after IP: 20 bytes, then the model's
/// option bytes (`l4` - 20 - payload, at most 40), filled with the options
/// it carries.
fn tcp_header(pkt: &Packet, l4: usize, out: &mut Vec<u8>) {
    let space = l4.saturating_sub(20 + pkt.payload_bytes as usize).min(40) & !3;
    let mut h = [0u8; 20];
    h[0..2].copy_from_slice(&pkt.sport.to_be_bytes());
    h[2..4].copy_from_slice(&pkt.dport.to_be_bytes());
    h[4..8].copy_from_slice(&(pkt.seq as u32).to_be_bytes());
    h[8..12].copy_from_slice(&(pkt.ack as u32).to_be_bytes());
    h[12] = (((20 + space) / 4) as u8) << 4;
    h[13] = pkt.flags.0;
    // The model carries a receive window only from a flow's receiver (its
    // ACKs); the sender's side gets the largest, not a zero window.
    let window = if pkt.reverse { pkt.window } else { u16::MAX };
    h[14..16].copy_from_slice(&window.to_be_bytes());
    out.extend_from_slice(&h);
    let start = out.len();
    let ts = |out: &mut Vec<u8>| {
        out.extend_from_slice(&[8, 10]);
        out.extend_from_slice(&((pkt.ts_val.ps() / 1_000_000) as u32).to_be_bytes());
        out.extend_from_slice(&((pkt.ts_ecr.ps() / 1_000_000) as u32).to_be_bytes());
    };
    let sack = pkt.sack.option_bytes() as usize;
    if pkt.flags.has(TcpFlags::SYN) {
        if pkt.wscale_option != WSCALE_NONE && space >= 4 {
            out.extend_from_slice(&[1, 3, 3, pkt.wscale_option]);
        }
        let left = space - (out.len() - start);
        if left >= 16 {
            out.extend_from_slice(&[4, 2]); // SACK permitted, packed with the timestamps
            ts(out);
        } else if left >= 8 {
            out.extend_from_slice(&[1, 1, 4, 2]);
        }
    } else {
        if space >= 12 + sack {
            out.extend_from_slice(&[1, 1]);
            ts(out);
        }
        if sack > 0 && space - (out.len() - start) >= sack {
            out.extend_from_slice(&[1, 1, 5, (sack - 2) as u8]);
            for (a, b) in pkt.sack.iter(pkt.ack) {
                out.extend_from_slice(&(a as u32).to_be_bytes());
                out.extend_from_slice(&(b as u32).to_be_bytes());
            }
        }
    }
    // The MSS option's bytes and any the model counts beyond what it carries.
    let written = out.len() - start;
    out.extend(std::iter::repeat_n(1u8, space - written.min(space)));
    out.truncate(start + space);
}

/// The BTH, and the AETH of an ACK/NAK or the CNP's reserved bytes.
fn roce_headers(pkt: &Packet, out: &mut Vec<u8>) {
    let cnp = pkt.roce.has(RoceBits::CNP);
    let ack = pkt.kind == Kind::Ack && !cnp;
    let opcode = if cnp {
        0x81
    } else if ack {
        0x11
    } else {
        match (pkt.roce.has(RoceBits::FIRST), pkt.roce.has(RoceBits::LAST)) {
            (true, true) => 0x04,
            (true, false) => 0x00,
            (false, false) => 0x01,
            (false, true) => 0x02,
        }
    };
    let nak = pkt.roce.has(RoceBits::NAK);
    let psn = match (ack, nak) {
        (true, false) => pkt.ack.wrapping_sub(1),
        (true, true) => pkt.ack,
        _ => pkt.seq,
    } as u32
        & 0x00ff_ffff;
    // QPs 0 and 1 are InfiniBand's management QPs: flows start at 16.
    let qp = pkt.flow().map_or(0, |f| f.0 + 16) & 0x00ff_ffff;
    let mut bth = [0u8; 12];
    bth[0] = opcode;
    bth[2..4].copy_from_slice(&0xffffu16.to_be_bytes()); // default P_Key
    bth[4..8].copy_from_slice(&qp.to_be_bytes());
    bth[8..12].copy_from_slice(&psn.to_be_bytes());
    if !ack && !cnp && pkt.roce.has(RoceBits::LAST) {
        bth[8] = 0x80; // AckReq on a message's last packet
    }
    out.extend_from_slice(&bth);
    if ack {
        // Syndrome: ACK with credits not given (0x1f), or NAK code 0.
        let syndrome: u8 = if nak { 0x60 } else { 0x1f };
        out.extend_from_slice(&[syndrome, 0, 0, 0]);
    } else if cnp {
        out.extend_from_slice(&[0; 16]);
    }
}

/// A pcap file being written.
pub struct PcapWriter<W: Write> {
    out: W,
    snaplen: u32,
    /// The frame's headers, reused.
    frame: Vec<u8>,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the file header.
    pub fn new(mut out: W, snaplen: u32) -> std::io::Result<Self> {
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&0xa1b2_3c4du32.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes());
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&[0; 8]); // thiszone, sigfigs
        h.extend_from_slice(&snaplen.to_le_bytes());
        h.extend_from_slice(&1u32.to_le_bytes()); // LINKTYPE_ETHERNET
        out.write_all(&h)?;
        Ok(PcapWriter {
            out,
            snaplen,
            frame: Vec::with_capacity(128),
        })
    }

    /// Records `pkt` leaving node `from` for node `to` at `time_ps`.
    pub fn record(
        &mut self,
        time_ps: u64,
        pkt: &Packet,
        from: u32,
        to: u32,
    ) -> std::io::Result<()> {
        let len = frame_headers(pkt, from, to, &mut self.frame);
        let caught = len.min(self.snaplen as usize);
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&((time_ps / 1_000_000_000_000) as u32).to_le_bytes());
        rec[4..8].copy_from_slice(&((time_ps % 1_000_000_000_000 / 1000) as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&(caught as u32).to_le_bytes());
        rec[12..16].copy_from_slice(&(len as u32).to_le_bytes());
        self.out.write_all(&rec)?;
        let headers = self.frame.len().min(caught);
        self.out.write_all(&self.frame[..headers])?;
        const ZEROS: [u8; 256] = [0; 256];
        let mut rest = caught - headers;
        while rest > 0 {
            let n = rest.min(ZEROS.len());
            self.out.write_all(&ZEROS[..n])?;
            rest -= n;
        }
        Ok(())
    }

    /// Flushes and returns the writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use net::packet::SackBlocks;
    use net::{FlowId, HostId, Origin};
    use sim_core::SimTime;

    fn data() -> Packet {
        Packet {
            src: HostId(3),
            dst: HostId(17),
            size_bytes: 1500,
            payload_bytes: 1448,
            sport: 40000,
            dport: 5001,
            seq: (1u64 << 32) + 1000,
            ack: 1,
            flags: TcpFlags::ACK,
            ecn: Ecn::Ce,
            priority: 3,
            window: 512,
            ts_val: SimTime(7_000_000),
            ts_ecr: SimTime(5_000_000),
            origin: Origin::Flow(FlowId(4)),
            ..Default::default()
        }
    }

    #[test]
    fn a_tcp_segment_has_valid_ip_and_the_models_fields() {
        let mut f = Vec::new();
        let len = frame_headers(&data(), 5, 9, &mut f);
        assert_eq!(len, 1514);
        assert_eq!(&f[0..6], &mac(9));
        assert_eq!(&f[6..12], &mac(5));
        let ip = &f[14..34];
        assert_eq!(checksum(ip), 0, "a valid header sums to zero");
        assert_eq!(ip[1], 3 << 2 | 3, "DSCP 3, CE");
        assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 1500);
        assert_eq!(&ip[12..16], &[10, 0, 0, 3]);
        assert_eq!(&ip[16..20], &[10, 0, 0, 17]);
        let tcp = &f[34..];
        assert_eq!(tcp.len(), 32, "20 bytes and the timestamps option");
        assert_eq!(u32::from_be_bytes(tcp[4..8].try_into().unwrap()), 1000);
        assert_eq!(tcp[12] >> 4, 8);
        assert_eq!(&tcp[20..24], &[1, 1, 8, 10]);
        assert_eq!(u32::from_be_bytes(tcp[24..28].try_into().unwrap()), 7);
    }

    #[test]
    fn sack_blocks_and_a_syns_options_are_written() {
        let mut ack = Packet {
            size_bytes: 40 + 12 + 20,
            payload_bytes: 0,
            ack: 10_000,
            flags: TcpFlags::ACK,
            ..data()
        };
        let mut sack = SackBlocks::default();
        assert!(sack.push(10_000, 20_000, 30_000));
        assert!(sack.push(10_000, 40_000, 50_000));
        ack.sack = sack;
        let mut f = Vec::new();
        frame_headers(&ack, 1, 2, &mut f);
        let opts = &f[34 + 20..];
        assert_eq!(opts.len(), 32);
        assert_eq!(&opts[12..16], &[1, 1, 5, 18]);
        assert_eq!(u32::from_be_bytes(opts[16..20].try_into().unwrap()), 20_000);
        let syn = Packet {
            size_bytes: 40 + 4 + 4 + 12,
            payload_bytes: 0,
            flags: TcpFlags::SYN,
            wscale_option: 9,
            ..data()
        };
        frame_headers(&syn, 1, 2, &mut f);
        let opts = &f[34 + 20..];
        assert_eq!(opts.len(), 20);
        assert_eq!(&opts[0..6], &[1, 3, 3, 9, 4, 2]);
        assert_eq!(
            &opts[16..20],
            &[1, 1, 1, 1],
            "the MSS the model does not carry"
        );
    }

    /// UEC's and NDP's packets carry their numbers (they were zeros
    /// after the UDP header).
    #[test]
    fn uec_and_ndp_packets_carry_their_psn_header() {
        let mut f = Vec::new();
        let uec = Packet {
            protocol: Protocol::Uec,
            size_bytes: 4150,
            payload_bytes: 4086,
            seq: 0x0102_0304_0506,
            ack: 61,
            entropy: 0xbeef,
            feedback: net::packet::Feedback {
                window_bytes: 9000,
                count: 0,
                flag: true,
                ..Default::default()
            },
            ..data()
        };
        frame_headers(&uec, 1, 2, &mut f);
        assert_eq!(u16::from_be_bytes([f[36], f[37]]), UEC_UDP_PORT);
        let h = &f[42..42 + PSN_HEADER_BYTES];
        assert_eq!(&h[0..2], &[1, 0x01], "DATA asking for an ACK");
        assert_eq!(u16::from_be_bytes([h[2], h[3]]), 0xbeef);
        assert_eq!(
            u64::from_be_bytes(h[4..12].try_into().unwrap()),
            0x0102_0304_0506
        );
        assert_eq!(u64::from_be_bytes(h[12..20].try_into().unwrap()), 61);
        assert_eq!(u32::from_be_bytes(h[20..24].try_into().unwrap()), 9000);
        let nack = Packet {
            kind: Kind::Ack,
            reverse: true,
            size_bytes: 64,
            payload_bytes: 0,
            feedback: net::packet::Feedback {
                count: 1,
                ..uec.feedback
            },
            ..uec
        };
        frame_headers(&nack, 2, 1, &mut f);
        assert_eq!(
            &f[42..44],
            &[3, 0x03],
            "a NACK from the receiver, CE echoed"
        );
        let ndp_trimmed = Packet {
            protocol: Protocol::Ndp,
            kind: Kind::Trimmed,
            size_bytes: 64,
            payload_bytes: 0,
            seq: 9,
            ..uec
        };
        frame_headers(&ndp_trimmed, 1, 2, &mut f);
        assert_eq!(f[23], 253, "NDP: IP protocol 253");
        assert_eq!(f[34], 5, "a trimmed DATA, right after IP");
        assert_eq!(u64::from_be_bytes(f[38..46].try_into().unwrap()), 9);
    }

    #[test]
    fn roce_packets_carry_bth_aeth_and_cnp() {
        let mut f = Vec::new();
        let roce = Packet {
            protocol: Protocol::Roce,
            size_bytes: 1044,
            payload_bytes: 1000,
            seq: 77,
            roce: RoceBits::FIRST,
            ..data()
        };
        frame_headers(&roce, 1, 2, &mut f);
        assert_eq!(f[23], 17, "UDP");
        assert_eq!(u16::from_be_bytes([f[36], f[37]]), ROCE_UDP_PORT);
        let bth = &f[42..54];
        assert_eq!(bth[0], 0x00, "SEND First");
        assert_eq!(u32::from_be_bytes(bth[8..12].try_into().unwrap()), 77);
        assert_eq!(
            u32::from_be_bytes(bth[4..8].try_into().unwrap()),
            20,
            "QP = 16 + flow 4"
        );
        let nak = Packet {
            kind: Kind::Ack,
            size_bytes: 48,
            payload_bytes: 0,
            ack: 12,
            roce: RoceBits::NAK,
            ..roce
        };
        frame_headers(&nak, 1, 2, &mut f);
        assert_eq!(f[42], 0x11);
        assert_eq!(u32::from_be_bytes(f[50..54].try_into().unwrap()), 12);
        assert_eq!(f[54], 0x60, "NAK: PSN sequence error");
        let cnp = Packet {
            kind: Kind::Control,
            size_bytes: 60,
            roce: RoceBits::CNP,
            ..nak
        };
        let len = frame_headers(&cnp, 1, 2, &mut f);
        assert_eq!(f[42], 0x81);
        assert_eq!(len, 74);
    }

    #[test]
    fn records_are_cut_at_the_snap_length_and_timed_in_nanoseconds() {
        let mut w = PcapWriter::new(Vec::new(), 100).expect("in memory");
        w.record(1_500_000_123_456, &data(), 1, 2)
            .expect("in memory");
        let out = w.finish().expect("in memory");
        assert_eq!(&out[0..4], &0xa1b2_3c4du32.to_le_bytes());
        let rec = &out[24..40];
        assert_eq!(u32::from_le_bytes(rec[0..4].try_into().unwrap()), 1);
        assert_eq!(
            u32::from_le_bytes(rec[4..8].try_into().unwrap()),
            500_000_123
        );
        assert_eq!(u32::from_le_bytes(rec[8..12].try_into().unwrap()), 100);
        assert_eq!(u32::from_le_bytes(rec[12..16].try_into().unwrap()), 1514);
        assert_eq!(out.len(), 24 + 16 + 100);
    }
}

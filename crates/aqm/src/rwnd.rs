//! Rewriting the receive window of a TCP segment in a switch.
//!
//! A segment's 16-bit window field counts units of `2^shift` bytes, where
//! `shift` is the window-scale exponent its sender announced at the
//! handshake (RFC 7323). A switch has no per-flow state, so it reads the
//! exponent that FairQ's host shim writes into the TCP reserved bits
//! (FairQ paper section V-A; `transport.window_scale_shim`).

use net::Packet;

/// The largest window a TCP segment can carry: 65,535 x 2^14 bytes.
pub const MAX_WINDOW_BYTES: u64 = (u16::MAX as u64) << 14;

/// Whether the segment carries a window a switch may rewrite
/// ([`Packet::carries_window`]).
#[inline]
pub fn carries_window(pkt: &Packet) -> bool {
    pkt.carries_window()
}

/// The window the segment advertises, in bytes.
#[inline]
pub fn window_bytes(pkt: &Packet) -> u64 {
    (pkt.window as u64) << pkt.reserved.min(14)
}

/// Lowers the segment's window to `bytes` if it advertises more. The field
/// is rounded *up* to the next scale unit, so that a clamp to one MSS never
/// becomes a zero window (HSCC: "rwnd = 1 MSS, rounded up to the flow's
/// window-scale unit"). Returns whether the field changed.
#[inline]
pub fn clamp_window(pkt: &mut Packet, bytes: u64) -> bool {
    let shift = pkt.reserved.min(14);
    let field = bytes.div_ceil(1u64 << shift).clamp(1, u16::MAX as u64) as u16;
    if field < pkt.window {
        pkt.window = field;
        true
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use net::TcpFlags;

    #[test]
    fn clamp_rounds_up_to_the_scale_unit() {
        let mut p = Packet {
            flags: TcpFlags::ACK,
            window: 46_875, // 6 MB at shift 7
            reserved: 7,
            ..Default::default()
        };
        assert!(clamp_window(&mut p, 1460));
        assert_eq!(p.window, 12); // ceil(1460 / 128)
        assert_eq!(window_bytes(&p), 1536);
        // Never raises a window.
        assert!(!clamp_window(&mut p, 1_000_000));
        assert_eq!(p.window, 12);
    }

    #[test]
    fn syn_ack_windows_are_not_rewritable() {
        let syn_ack = Packet {
            flags: TcpFlags::SYN | TcpFlags::ACK,
            ..Default::default()
        };
        assert!(!carries_window(&syn_ack));
        let ack = Packet {
            flags: TcpFlags::ACK,
            ..Default::default()
        };
        assert!(carries_window(&ack));
    }
}

//! Whether the sender is limited by its congestion window, so that cwnd
//! may grow (RFC 7661 section 4's principle as Linux applies it:
//! `tcp_is_cwnd_limited` and `tcp_cwnd_validate`, net/ipv4/tcp_output.c).
//!
//! A sender whose window is never full (its NIC or the path's bottleneck
//! paces it below cwnd) does not grow cwnd: otherwise cwnd climbs to the
//! receive window while the flow runs alone, and the first competitor
//! that halves its share meets a window thousands of packets above the
//! path's buffer. Linux's rules, kept here in bytes:
//! - per window of data (until `snd_una` passes the `snd_nxt` of the
//!   largest flight seen), remember the largest flight and whether any
//!   send in it left the window full;
//! - cwnd is limited if a send of that window left it full, or, in slow
//!   start, while cwnd is below twice the largest flight ("ensure cwnd
//!   grows to twice what was ACKed").

/// Linux's `max_packets_out`, `max_packets_seq` and `is_cwnd_limited`, in
/// 8 bytes (the sender's size is bounded): the window's end is a 32-bit
/// sequence number compared as TCP compares them (RFC 9293 3.4), as
/// Linux keeps `max_packets_seq`; the flight's top bit is the "full" flag
/// (a flight is below 2^31 B: the receive window is at most 65,535 x 2^14).
/// `CwndLimit::off`, all ones, stands for validation turned off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CwndLimit {
    /// The largest flight of this window, bytes; bit 31: a send of this
    /// window left cwnd full.
    max_flight_full: u32,
    /// The low 32 bits of `snd_nxt` when the largest flight was taken.
    end_seq: u32,
}

const FULL: u32 = 1 << 31;

impl CwndLimit {
    /// Validation off (`cwnd_validation = false`): cwnd always may grow.
    pub const OFF: CwndLimit = CwndLimit {
        max_flight_full: u32::MAX,
        end_seq: u32::MAX,
    };

    /// Validation on, before the first send.
    pub fn new(on: bool) -> Self {
        if on {
            CwndLimit::default()
        } else {
            CwndLimit::OFF
        }
    }

    fn max_flight(&self) -> u64 {
        (self.max_flight_full & !FULL) as u64
    }

    fn full(&self) -> bool {
        self.max_flight_full & FULL != 0
    }

    /// After a send: `flight` is what is now in flight, `full` whether the
    /// window has no room for another segment.
    pub fn on_sent(&mut self, flight: u64, snd_una: u64, snd_nxt: u64, full: bool) {
        if *self == CwndLimit::OFF {
            return;
        }
        // Linux's !before(snd_una, max_packets_seq), on 32-bit sequences.
        let window_over = (snd_una as u32).wrapping_sub(self.end_seq) as i32 >= 0;
        debug_assert!(flight < FULL as u64, "a flight above 2 GB");
        if window_over || flight > self.max_flight() {
            self.max_flight_full = flight as u32 | if full { FULL } else { 0 };
            self.end_seq = snd_nxt as u32;
        } else if full {
            self.max_flight_full |= FULL;
        }
    }

    /// Whether cwnd may grow: the window was full, or slow start has not
    /// yet reached twice the largest flight.
    pub fn limited(&self, cwnd: u64, in_slow_start: bool) -> bool {
        *self == CwndLimit::OFF || self.full() || (in_slow_start && cwnd < 2 * self.max_flight())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    #[test]
    fn a_full_window_lets_cwnd_grow_until_the_next_window_ends() {
        let mut l = CwndLimit::default();
        l.on_sent(10 * MSS, 0, 10 * MSS, true);
        assert!(l.limited(10 * MSS, false));
        // Later sends of the same window that leave room keep the verdict.
        l.on_sent(5 * MSS, 5 * MSS, 15 * MSS, false);
        assert!(l.limited(10 * MSS, false));
        // Once the window's end is acknowledged, a send that leaves room
        // starts a window that is not limited.
        l.on_sent(4 * MSS, 10 * MSS, 16 * MSS, false);
        assert!(!l.limited(10 * MSS, false));
    }

    #[test]
    fn a_paced_sender_grows_in_slow_start_only_to_twice_its_flight() {
        let mut l = CwndLimit::default();
        // 10 segments in flight under a cwnd of 15: never full.
        l.on_sent(10 * MSS, 0, 10 * MSS, false);
        assert!(l.limited(15 * MSS, true));
        assert!(l.limited(19 * MSS, true));
        assert!(!l.limited(20 * MSS, true));
        // Out of slow start, a window that is never full does not grow.
        assert!(!l.limited(15 * MSS, false));
    }

    #[test]
    fn off_always_lets_cwnd_grow() {
        let mut l = CwndLimit::new(false);
        l.on_sent(10 * MSS, 0, 10 * MSS, false);
        assert!(l.limited(100 * MSS, false));
        assert_eq!(l, CwndLimit::OFF);
    }

    #[test]
    fn sequence_numbers_compare_across_the_32_bit_wrap() {
        let mut l = CwndLimit::default();
        let base = (1u64 << 32) - 5 * MSS;
        l.on_sent(10 * MSS, base, base + 10 * MSS, true);
        // snd_una below the window's end, across the wrap: still this window.
        l.on_sent(5 * MSS, base + 6 * MSS, base + 12 * MSS, false);
        assert!(l.limited(10 * MSS, false));
        l.on_sent(2 * MSS, base + 10 * MSS, base + 12 * MSS, false);
        assert!(!l.limited(10 * MSS, false));
    }

    #[test]
    fn a_larger_flight_restarts_the_window() {
        let mut l = CwndLimit::default();
        l.on_sent(10 * MSS, 0, 10 * MSS, true);
        // A larger flight (more room opened) before the window ends.
        l.on_sent(12 * MSS, 2 * MSS, 14 * MSS, false);
        assert!(!l.limited(12 * MSS, false));
        assert!(
            l.limited(12 * MSS, true),
            "slow start: below 2 x 12 segments"
        );
    }
}

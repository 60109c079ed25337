//! Selective repeat for the RoCE reliable connection, IRN-style (Mittal
//! et al., "Revisiting Network Support for RDMA", SIGCOMM 2018, 3.1):
//! go-back-N resends everything after a hole, which collapses when a
//! sprayed fabric reorders packets; selective repeat resends only what
//! was lost.
//!
//! - The responder keeps the packets that arrive above the expected PSN
//!   and answers each with a NACK: the cumulative ACK (the expected PSN)
//!   and, as a SACK block, the PSN that arrived. A trimmed header
//!   (`Kind::Trimmed`) is answered the same way without the block: the
//!   PSN it names was lost.
//! - The requester marks the SACKed PSNs. A NACK opens (or widens) a
//!   recovery: every PSN from the cumulative ACK up to the one the NACK
//!   names that is not SACKed is resent once, in order, ahead of new data
//!   (IRN's "retransmit ... lost packets ... before sending new
//!   packets"). A resent packet lost again is recovered by the timeout
//!   (IRN's RTO, which resends everything unSACKed from the cumulative
//!   ACK).
//!
//! IRN's BDP-FC (at most a BDP of packets outstanding) is the `window =
//! "bdp"` key, which every RoCE flow may set; IRN's two timeouts are one
//! (`rto`).

/// A set of PSNs at or above a moving base, as a bitmap that grows with
/// the highest PSN marked (no allocation once it has grown to the
/// flow's window).
#[derive(Clone, Debug, Default)]
pub struct PsnSet {
    base: u64,
    words: std::collections::VecDeque<u64>,
}

impl PsnSet {
    /// Adds `psn` (ignored below the base).
    pub fn insert(&mut self, psn: u64) {
        if psn < self.base {
            return;
        }
        let off = psn - self.base;
        let w = (off / 64) as usize;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << (off % 64);
    }

    /// Whether `psn` is in the set (everything below the base is).
    pub fn contains(&self, psn: u64) -> bool {
        if psn < self.base {
            return true;
        }
        let off = psn - self.base;
        let w = (off / 64) as usize;
        w < self.words.len() && self.words[w] & (1 << (off % 64)) != 0
    }

    /// Moves the base up to `to`, forgetting what lies below.
    pub fn advance(&mut self, to: u64) {
        while self.base + 64 <= to {
            if self.words.pop_front().is_none() {
                self.base = to;
                return;
            }
            self.base += 64;
        }
        if to > self.base {
            // Shift the bits of the partly passed word down: rebuild from
            // the marks still above `to`.
            let shift = to - self.base;
            let mut carry = 0u64;
            for w in self.words.iter_mut().rev() {
                let next_carry = *w << (64 - shift);
                *w = (*w >> shift) | carry;
                carry = next_carry;
            }
            self.base = to;
        }
    }

    /// The first PSN at or above `from` (and at or above the base) that
    /// is not in the set.
    pub fn first_missing_from(&self, from: u64) -> u64 {
        let mut psn = from.max(self.base);
        while self.contains(psn) {
            psn += 1;
        }
        psn
    }
}

/// The requester's side: what is SACKed and what to resend.
#[derive(Clone, Debug, Default)]
pub struct Recovery {
    /// PSNs the responder holds (SACKed), above the cumulative ACK.
    sacked: PsnSet,
    /// The next PSN the scan for holes looks at.
    next: u64,
    /// The scan resends holes below this (the PSN the latest NACK named,
    /// plus one for a trimmed one).
    end: u64,
}

impl Recovery {
    /// A cumulative ACK: everything below `ack` has arrived.
    pub fn on_ack(&mut self, ack: u64) {
        self.sacked.advance(ack);
        self.next = self.next.max(ack);
        self.end = self.end.max(ack);
    }

    /// A NACK naming `psn`: held by the responder (`held`), or lost (a
    /// trimmed header's). Holes below it are to be resent.
    pub fn on_nack(&mut self, ack: u64, psn: u64, held: bool) {
        self.on_ack(ack);
        if held {
            self.sacked.insert(psn);
            self.end = self.end.max(psn);
        } else {
            // A header names its own loss: resend it even if the scan
            // passed it (a resend that was trimmed again).
            self.next = self.next.min(psn);
            self.end = self.end.max(psn + 1);
        }
    }

    /// The next PSN to resend, if any, below `high_sent` (taken: it is
    /// not offered again in this recovery).
    pub fn next_resend(&mut self, high_sent: u64) -> Option<u64> {
        let limit = self.end.min(high_sent);
        let psn = self.sacked.first_missing_from(self.next);
        if psn >= limit {
            self.next = self.next.max(limit);
            return None;
        }
        self.next = psn + 1;
        Some(psn)
    }

    /// Whether a resend is waiting below `high_sent`.
    pub fn pending(&self, high_sent: u64) -> bool {
        self.sacked.first_missing_from(self.next) < self.end.min(high_sent)
    }

    /// The timeout: everything unSACKed from `ack` up to `high_sent` is
    /// resent.
    pub fn on_timeout(&mut self, ack: u64, high_sent: u64) {
        self.next = ack;
        self.end = high_sent;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_psn_set_slides_with_its_base() {
        let mut s = PsnSet::default();
        for p in [3, 64, 65, 200] {
            s.insert(p);
        }
        assert!(s.contains(3) && s.contains(200) && !s.contains(4));
        s.advance(60);
        assert!(s.contains(59), "below the base counts as held");
        assert!(s.contains(64) && s.contains(65) && !s.contains(66) && s.contains(200));
        s.advance(130);
        assert!(!s.contains(131) && s.contains(200) && !s.contains(199));
        assert_eq!(s.first_missing_from(0), 130);
        s.advance(1_000);
        assert!(!s.contains(1_000));
    }

    #[test]
    fn a_nack_resends_only_the_holes_once() {
        let mut r = Recovery::default();
        // 0..10 sent; 2 and 5 lost; the responder holds 3, 4 and 6..10.
        r.on_ack(2);
        for p in [3, 4, 6, 7] {
            r.on_nack(2, p, true);
        }
        assert_eq!(r.next_resend(10), Some(2));
        assert_eq!(r.next_resend(10), Some(5));
        assert_eq!(r.next_resend(10), None, "8 and 9 are not known lost yet");
        r.on_nack(2, 9, true);
        assert_eq!(r.next_resend(10), Some(8));
        assert_eq!(r.next_resend(10), None);
        assert!(!r.pending(10));
        // The timeout resends what is still missing.
        r.on_timeout(2, 10);
        assert_eq!(r.next_resend(10), Some(2));
        assert_eq!(r.next_resend(10), Some(5));
        assert_eq!(r.next_resend(10), Some(8));
    }

    #[test]
    fn a_trimmed_header_names_its_own_loss() {
        let mut r = Recovery::default();
        r.on_nack(0, 4, false);
        assert_eq!(r.next_resend(10), Some(0));
        r.on_nack(0, 0, true);
        r.on_nack(1, 1, true);
        // 1..4: 2 and 3 are holes too (nothing SACKed them), then 4 itself.
        assert_eq!(r.next_resend(10), Some(2));
        assert_eq!(r.next_resend(10), Some(3));
        assert_eq!(r.next_resend(10), Some(4));
        assert_eq!(r.next_resend(10), None);
        // The resend of 4 is trimmed again: it is resent again.
        r.on_nack(1, 4, false);
        assert_eq!(r.next_resend(10), Some(4));
    }
}

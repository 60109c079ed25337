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

use crate::psn_set::PsnSet;

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

//! Proportional rate reduction (RFC 6937): during a window reduction (loss
//! recovery, or an ECN reduction: Linux's CWR state) the sender sends in
//! proportion to what the receiver reports delivered, so that the window
//! comes down to ssthresh smoothly instead of stalling for half an RTT, and
//! climbs back by slow start (PRR-SSRB) when losses took pipe below ssthresh.

/// PRR's state for one reduction (RFC 6937 section 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prr {
    /// FlightSize when the reduction began.
    recover_fs: u64,
    /// Bytes delivered to the receiver since then.
    prr_delivered: u64,
    /// Bytes sent since then.
    prr_out: u64,
}

impl Prr {
    /// A reduction begins with `flight` bytes outstanding.
    pub fn start(flight: u64) -> Self {
        Prr {
            recover_fs: flight.max(1),
            prr_delivered: 0,
            prr_out: 0,
        }
    }

    /// An ACK reported `delivered` bytes (DeliveredData); `pipe` is the
    /// estimate after it. Returns sndcnt, the bytes the sender may send now:
    /// in proportion to delivery while pipe is above ssthresh, else the
    /// slow-start reduction bound (PRR-SSRB), at most delivered + one MSS
    /// more than was sent.
    #[inline]
    pub fn sndcnt(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64) -> u64 {
        self.prr_delivered += delivered;
        if pipe > ssthresh {
            // CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out, the
            // ceiling taken in whole segments as Linux counts (and as the
            // RFC's examples do), so that the first ACK sends.
            // In u64 unless the product overflows (a u128 division is a
            // library call, and this runs on every ACK of a reduction).
            let scaled = match self.prr_delivered.checked_mul(ssthresh) {
                Some(p) => p.div_ceil(self.recover_fs),
                None => (self.prr_delivered as u128 * ssthresh as u128)
                    .div_ceil(self.recover_fs as u128) as u64,
            };
            scaled.next_multiple_of(mss).saturating_sub(self.prr_out)
        } else {
            let limit = self
                .prr_delivered
                .saturating_sub(self.prr_out)
                .max(delivered)
                + mss;
            (ssthresh - pipe).min(limit)
        }
    }

    /// `bytes` were sent (new data or retransmitted).
    pub fn on_sent(&mut self, bytes: u64) {
        self.prr_out += bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// RFC 6937 section 6's first example: 20 segments out, the first lost,
    /// ssthresh = 10. Each ACK delivers one segment; PRR sends one segment
    /// for every two delivered, spread over the recovery, so that pipe
    /// comes down to ssthresh exactly when recovery ends.
    #[test]
    fn single_loss_sends_one_segment_per_two_delivered() {
        let mut prr = Prr::start(20 * MSS);
        let ssthresh = 10 * MSS;
        let mut pipe = 19 * MSS; // the lost segment left pipe
        let mut sent = Vec::new();
        for _ack in 0..19 {
            pipe -= MSS;
            let n = prr.sndcnt(MSS, pipe, ssthresh, MSS) / MSS;
            prr.on_sent(n * MSS);
            pipe += n * MSS;
            sent.push(n);
        }
        // The RFC's table: 1 0 1 0 ... (ceil rounds the first ACK up).
        assert_eq!(&sent[..6], &[1, 0, 1, 0, 1, 0], "{sent:?}");
        assert_eq!(sent.iter().sum::<u64>(), 10);
        assert_eq!(pipe, ssthresh);
    }

    /// The second example: with many losses pipe falls below ssthresh, and
    /// PRR-SSRB sends at most delivered + one MSS per ACK (slow start)
    /// until pipe is back at ssthresh, never beyond it.
    #[test]
    fn below_ssthresh_it_grows_by_slow_start() {
        let mut prr = Prr::start(20 * MSS);
        let ssthresh = 10 * MSS;
        let mut pipe = 4 * MSS;
        let mut sent = Vec::new();
        for _ack in 0..7 {
            pipe -= MSS;
            let n = prr.sndcnt(MSS, pipe, ssthresh, MSS) / MSS;
            prr.on_sent(n * MSS);
            pipe += n * MSS;
            sent.push(n);
        }
        assert_eq!(
            sent,
            vec![2, 2, 2, 2, 2, 2, 1],
            "delivered + 1 each, capped at ssthresh"
        );
        assert_eq!(pipe, ssthresh);
    }
}

//! The sender's scoreboard (RFC 6675 section 3): every segment sent and not
//! yet cumulatively acknowledged, what the receiver SACKed, what is deemed
//! lost, and what was retransmitted. From it come `pipe` (section 4's
//! SetPipe, kept incrementally as Linux's `tcp_packets_in_flight`: out -
//! SACKed - lost + retransmitted), the three-SACK loss rule (IsLost, with
//! DupThresh = 3), and the segments NextSeg's rules (1) and (3) pick.
//!
//! Without SACK (NewReno), each duplicate ACK counts one segment as if
//! SACKed without saying which (Linux's Reno emulation), so `pipe` and PRR
//! work alike in both modes.
//!
//! Segments keep the boundaries they were first sent with; a
//! retransmission resends the same bytes.
//!
//! RACK (RFC 8985 section 6), when on, adds time-based loss detection: a
//! segment sent before the most recently sent segment that was delivered
//! is lost once it has been out longer than that segment's RTT plus a
//! reordering window; [`Scoreboard::rack_detect`] returns when the next
//! such verdict falls due, for the sender's reordering timer.
//!
//! Beyond RFC 6675, a retransmission is itself deemed lost once data sent
//! after it is SACKed (Linux's `tcp_mark_lost_retrans`, what RACK later
//! generalised): RFC 6675 alone would wait for the RTO whenever a
//! retransmission is dropped, which in an incast is most recoveries.

use sim_core::{SimDuration, SimTime};
use std::collections::VecDeque;

/// One segment as sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Segment {
    start: u64,
    len: u32,
    sacked: bool,
    lost: bool,
    /// A retransmission of it is in flight (it is below HighRxt).
    retransmitted: bool,
    /// HighData when it was last retransmitted: a SACK above this means
    /// the retransmission should have arrived.
    rxt_high: u64,
    /// When it was last sent (RACK's xmit_ts).
    sent_at: SimTime,
}

impl Segment {
    fn end(&self) -> u64 {
        self.start + self.len as u64
    }
}

/// What one ACK delivered (RFC 6937's DeliveredData, split).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delivered {
    /// Bytes newly acknowledged cumulatively.
    pub acked: u64,
    /// Change of the SACKed bytes (negative when SACKed bytes became
    /// cumulatively acknowledged).
    pub sacked_delta: i64,
}

impl Delivered {
    /// DeliveredData = change in snd.una + change in SACKed bytes (RFC 6937 section 3).
    pub fn bytes(&self) -> u64 {
        (self.acked as i64 + self.sacked_delta).max(0) as u64
    }
}

/// The scoreboard.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<Segment>,
    out_bytes: u64,
    sacked_bytes: u64,
    /// Lost and not SACKed.
    lost_bytes: u64,
    /// Retransmitted, in flight: not SACKed or acknowledged since.
    retrans_bytes: u64,
    /// An upper bound on the segments with a retransmission in flight
    /// (exact after [`Scoreboard::mark_lost_retransmits`]; 0 skips it).
    retrans_out: u32,
    /// Duplicate ACKs counted as SACKed bytes without SACK (Reno emulation).
    reno_sacked: u64,
    /// One past the highest SACKed byte (HighSACK's end).
    high_sacked: u64,
    /// Every unSACKed segment starting below this that the three-SACK rule
    /// could mark is marked: the rule's scan stops here.
    marked_to: u64,
    /// No segment below this is lost and not yet retransmitted.
    rxt_hint: u64,
    /// No segment below this is unSACKed and not retransmitted (rule 3).
    rule3_hint: u64,
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent segment
    /// delivered (acknowledged or SACKed), and its RTT (RACK.rtt).
    rack_sent_at: SimTime,
    rack_end: u64,
    rack_rtt: SimDuration,
}

impl Scoreboard {
    /// An empty scoreboard.
    pub fn new() -> Self {
        Scoreboard::default()
    }

    /// A new segment `[start, start + len)` left at `now` (it extends the
    /// highest sequence sent).
    #[inline]
    pub fn on_send(&mut self, start: u64, len: u32, now: SimTime) {
        debug_assert!(self.segs.back().is_none_or(|s| s.end() <= start));
        self.segs.push_back(Segment {
            start,
            len,
            sacked: false,
            lost: false,
            retransmitted: false,
            rxt_high: 0,
            sent_at: now,
        });
        self.out_bytes += len as u64;
    }

    /// The segment starting at `start` was retransmitted; `high_data` is
    /// one past the highest sequence sent so far.
    pub fn on_retransmit(&mut self, start: u64, high_data: u64, now: SimTime) {
        let i = self.index_of(start);
        let s = &mut self.segs[i];
        debug_assert!(!s.sacked && !s.retransmitted);
        s.retransmitted = true;
        s.rxt_high = high_data;
        s.sent_at = now;
        self.retrans_bytes += s.len as u64;
        self.retrans_out += 1;
    }

    /// Marks lost again every retransmission that data sent after it has
    /// overtaken (a SACK beyond the HighData of its sending). Returns
    /// whether any was.
    #[inline]
    pub fn mark_lost_retransmits(&mut self) -> bool {
        if self.retrans_out == 0 {
            return false;
        }
        self.mark_lost_retransmits_slow()
    }

    fn mark_lost_retransmits_slow(&mut self) -> bool {
        let high_sacked = self.high_sacked;
        let mut lowest = u64::MAX;
        let mut still_out = 0;
        for s in self
            .segs
            .iter_mut()
            .filter(|s| s.retransmitted && !s.sacked)
        {
            if s.lost && s.start < high_sacked && high_sacked > s.rxt_high {
                s.retransmitted = false;
                self.retrans_bytes -= s.len as u64;
                lowest = lowest.min(s.start);
            } else {
                still_out += 1;
            }
        }
        self.retrans_out = still_out as u32;
        self.rxt_hint = self.rxt_hint.min(lowest);
        lowest != u64::MAX
    }

    fn index_of(&self, start: u64) -> usize {
        let i = self.segs.partition_point(|s| s.start < start);
        assert!(
            self.segs.get(i).is_some_and(|s| s.start == start),
            "no segment starts at {start}"
        );
        i
    }

    /// RACK's update for a segment just delivered (RFC 8985 6.2 step 2).
    fn rack_delivered(&mut self, s: &Segment, now: SimTime) {
        let newer = (s.sent_at, s.end()) > (self.rack_sent_at, self.rack_end);
        if newer {
            self.rack_sent_at = s.sent_at;
            self.rack_end = s.end();
            self.rack_rtt = now.since(s.sent_at);
        }
    }

    /// Takes an ACK that arrived at `now`: `ack` is the cumulative ACK,
    /// `blocks` its SACK blocks.
    #[inline] // once per ACK; outlined by a code move, it cost 1.1% (cachegrind)
    pub fn on_ack(
        &mut self,
        now: SimTime,
        ack: u64,
        blocks: impl Iterator<Item = (u64, u64)>,
    ) -> Delivered {
        let sacked_before = self.sacked_bytes as i64;
        let mut acked = 0;
        while let Some(front) = self.segs.front_mut() {
            if front.start >= ack {
                break;
            }
            if front.end() <= ack {
                let s = *front;
                self.segs.pop_front();
                self.forget(&s, s.len as u64);
                if !s.sacked {
                    self.rack_delivered(&s, now);
                }
                acked += s.len as u64;
            } else {
                // Acknowledged in part (a receiver never splits a segment,
                // but a stopped application may shorten its last one).
                let cut = ack - front.start;
                let s = *front;
                front.start = ack;
                front.len -= cut as u32;
                self.forget(&s, cut);
                acked += cut;
                break;
            }
        }
        for (start, end) in blocks {
            self.sack_range(start.max(ack), end, now);
        }
        if self.segs.is_empty() {
            self.high_sacked = ack;
        }
        Delivered {
            acked,
            sacked_delta: self.sacked_bytes as i64 - sacked_before,
        }
    }

    fn forget(&mut self, s: &Segment, bytes: u64) {
        self.out_bytes -= bytes;
        if s.sacked {
            self.sacked_bytes -= bytes;
        } else {
            if s.lost {
                self.lost_bytes -= bytes;
            }
            if s.retransmitted {
                self.retrans_bytes -= bytes;
            }
        }
    }

    fn sack_range(&mut self, start: u64, end: u64, now: SimTime) {
        let mut i = self.segs.partition_point(|s| s.start < start);
        while let Some(s) = self.segs.get_mut(i) {
            if s.end() > end {
                break;
            }
            if !s.sacked {
                s.sacked = true;
                let seg = *s;
                self.rack_delivered(&seg, now);
                let s = &mut self.segs[i];
                let len = s.len as u64;
                self.sacked_bytes += len;
                if s.lost {
                    self.lost_bytes -= len;
                }
                if s.retransmitted {
                    self.retrans_bytes -= len;
                }
                self.high_sacked = self.high_sacked.max(s.end());
            }
            i += 1;
        }
    }

    /// RFC 6675 IsLost, applied to every segment: an unSACKed segment with
    /// at least `dup_thresh` SACKed segments above it is lost. Returns
    /// whether any segment was newly marked.
    #[inline]
    pub fn mark_lost_by_sacks(&mut self, dup_thresh: u32) -> bool {
        if self.sacked_bytes == 0 {
            return false; // nothing SACKed above any hole
        }
        self.mark_lost_by_sacks_slow(dup_thresh)
    }

    fn mark_lost_by_sacks_slow(&mut self, dup_thresh: u32) -> bool {
        let mut above = 0u32;
        let mut marked = false;
        let mut lowest = u64::MAX;
        let floor = self.marked_to;
        let mut new_floor = floor;
        // Segments above HighSACK have nothing SACKed above them.
        let top = self.segs.partition_point(|s| s.end() <= self.high_sacked);
        for s in self.segs.range_mut(..top).rev() {
            if s.start < floor && above >= dup_thresh {
                break; // below here the rule already ran with fewer SACKs
            }
            if s.sacked {
                above += 1;
            } else if above >= dup_thresh {
                new_floor = new_floor.max(s.end());
                if !s.lost {
                    s.lost = true;
                    self.lost_bytes += s.len as u64;
                    marked = true;
                    lowest = lowest.min(s.start);
                }
            }
        }
        self.marked_to = new_floor;
        self.rxt_hint = self.rxt_hint.min(lowest);
        marked
    }

    /// RACK's loss detection (RFC 8985 section 6.2 step 5): every segment
    /// sent before the RACK segment (earlier, or at the same time and
    /// lower in sequence) and out for longer than RACK.rtt + `reo_wnd` is
    /// lost, a retransmission included. Returns whether any segment was
    /// newly marked, and the earliest time another would be (the
    /// reordering timer).
    #[inline]
    pub fn rack_detect(&mut self, now: SimTime, reo_wnd: SimDuration) -> (bool, Option<SimTime>) {
        if self.sacked_bytes == 0 && self.retrans_bytes == 0 {
            // Cumulative ACKs only: every segment still out was sent after
            // (or with a higher sequence than) everything delivered.
            return (false, None);
        }
        self.rack_detect_slow(now, reo_wnd)
    }

    fn rack_detect_slow(&mut self, now: SimTime, reo_wnd: SimDuration) -> (bool, Option<SimTime>) {
        let (rack_at, rack_end) = (self.rack_sent_at, self.rack_end);
        let wait = self.rack_rtt + reo_wnd;
        let mut marked = false;
        let mut lowest = u64::MAX;
        let mut timer: Option<SimTime> = None;
        for s in self.segs.iter_mut() {
            if s.sacked || (s.lost && !s.retransmitted) {
                continue;
            }
            if (s.sent_at, s.end()) >= (rack_at, rack_end) {
                continue;
            }
            let due = s.sent_at + wait;
            if now >= due {
                if s.retransmitted {
                    s.retransmitted = false;
                    self.retrans_bytes -= s.len as u64;
                }
                if !s.lost {
                    s.lost = true;
                    self.lost_bytes += s.len as u64;
                }
                marked = true;
                lowest = lowest.min(s.start);
            } else {
                timer = Some(timer.map_or(due, |t| t.min(due)));
            }
        }
        self.rxt_hint = self.rxt_hint.min(lowest);
        (marked, timer)
    }

    /// Bytes deemed lost and not yet retransmitted or delivered, plus lost
    /// bytes whose retransmission is in flight.
    #[inline]
    pub fn lost(&self) -> u64 {
        self.lost_bytes
    }

    /// The segment with the highest sequence still out and not SACKed: a
    /// tail-loss probe's retransmission (RFC 8985 section 7.3).
    pub fn last_unsacked(&self) -> Option<(u64, u32)> {
        self.segs
            .iter()
            .rev()
            .find(|s| !s.sacked)
            .map(|s| (s.start, s.len))
    }

    /// Marks the first unacknowledged segment lost (NewReno's fast
    /// retransmit and partial ACKs, RFC 6582).
    pub fn mark_head_lost(&mut self) {
        if let Some(s) = self.segs.front_mut()
            && !s.sacked
            && !s.lost
        {
            s.lost = true;
            if s.retransmitted {
                // Its retransmission is deemed lost too (a partial ACK
                // after a retransmission that did not fill the hole).
                s.retransmitted = false;
                self.retrans_bytes -= s.len as u64;
            }
            self.lost_bytes += s.len as u64;
            self.rxt_hint = self.rxt_hint.min(s.start);
        }
    }

    /// After an RTO: every unSACKed segment is lost, and no retransmission
    /// is in flight any more (RFC 6675 section 5.1; Linux's `tcp_enter_loss`).
    pub fn mark_all_lost(&mut self) {
        for s in self.segs.iter_mut().filter(|s| !s.sacked) {
            s.lost = true;
            s.retransmitted = false;
        }
        self.lost_bytes = self.out_bytes - self.sacked_bytes;
        self.retrans_bytes = 0;
        self.retrans_out = 0;
        self.reno_sacked = 0;
        self.rxt_hint = 0;
        self.rule3_hint = 0;
    }

    /// A duplicate ACK without SACK: one more segment of `mss` left the
    /// network (Linux's `tcp_add_reno_sack`), never more than what is out.
    pub fn add_reno_sack(&mut self, mss: u64) {
        let room = self.out_bytes - self.lost_bytes.min(self.out_bytes);
        self.reno_sacked = (self.reno_sacked + mss).min(room.saturating_sub(mss));
    }

    /// New data acknowledged without SACK: the duplicate ACKs it accounts for
    /// leave the count, less the retransmitted head (`tcp_remove_reno_sacks`).
    pub fn remove_reno_sacks(&mut self, acked: u64, mss: u64) {
        self.reno_sacked = self.reno_sacked.saturating_sub(acked.saturating_sub(mss));
    }

    /// Forgets the Reno duplicate-ACK count (recovery ended).
    pub fn reset_reno_sacks(&mut self) {
        self.reno_sacked = 0;
    }

    /// RFC 6675 SetPipe: the bytes the sender estimates in the network.
    #[inline]
    pub fn pipe(&self) -> u64 {
        (self.out_bytes + self.retrans_bytes)
            .saturating_sub(self.sacked_bytes + self.lost_bytes + self.reno_sacked)
    }

    /// Bytes sent and not cumulatively acknowledged (FlightSize).
    #[inline]
    pub fn outstanding(&self) -> u64 {
        self.out_bytes
    }

    /// Whether the first unacknowledged segment is deemed lost.
    #[cfg(test)]
    pub fn head_lost(&self) -> bool {
        self.segs.front().is_some_and(|s| s.lost && !s.sacked)
    }

    /// NextSeg rule (1): the first lost segment not yet retransmitted, as
    /// `(start, len)`. Advances a hint past segments that cannot qualify.
    #[inline]
    pub fn next_lost(&mut self) -> Option<(u64, u32)> {
        if self.lost_bytes == 0 {
            return None;
        }
        let mut i = self.segs.partition_point(|s| s.start < self.rxt_hint);
        while let Some(s) = self.segs.get(i) {
            if s.lost && !s.sacked && !s.retransmitted {
                self.rxt_hint = s.start;
                return Some((s.start, s.len));
            }
            i += 1;
        }
        self.rxt_hint = u64::MAX;
        None
    }

    /// NextSeg rule (3): the first unSACKed segment below HighSACK not yet
    /// retransmitted (for when neither a lost segment nor new data can go).
    pub fn next_unsacked_below_high_sack(&mut self) -> Option<(u64, u32)> {
        let mut i = self.segs.partition_point(|s| s.start < self.rule3_hint);
        while let Some(s) = self.segs.get(i) {
            if s.end() > self.high_sacked {
                break;
            }
            if !s.sacked && !s.retransmitted {
                self.rule3_hint = s.start;
                return Some((s.start, s.len));
            }
            i += 1;
        }
        None
    }

    /// Frees the segment store (the flow is done).
    pub fn release(&mut self) {
        self.segs = VecDeque::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    const T: SimTime = SimTime::ZERO;

    /// Ten segments 1..=10000 in flight.
    fn board() -> Scoreboard {
        let mut b = Scoreboard::new();
        for k in 0..10 {
            b.on_send(1 + k * MSS, MSS as u32, T);
        }
        b
    }

    fn seg(k: u64) -> u64 {
        1 + k * MSS
    }

    /// RFC 6675's scripted case: segment 0 is lost, SACKs arrive for 1, 2, 3.
    #[test]
    fn three_sacks_above_a_hole_make_it_lost() {
        let mut b = board();
        assert_eq!(b.pipe(), 10 * MSS);
        for (n, k) in (1..=3).enumerate() {
            let d = b.on_ack(T, seg(0), std::iter::once((seg(1), seg(k + 1))));
            assert_eq!(d.acked, 0);
            assert_eq!(d.bytes(), MSS, "each dupack delivers one segment");
            let lost = b.mark_lost_by_sacks(3);
            // Lost only once three segments above it are SACKed.
            assert_eq!(lost, n == 2, "after {} SACKed", n + 1);
            assert_eq!(b.head_lost(), n == 2);
        }
        // pipe = 10 out - 3 SACKed - 1 lost.
        assert_eq!(b.pipe(), 6 * MSS);
        // NextSeg (1): the hole; after its retransmission, it counts again.
        assert_eq!(b.next_lost(), Some((seg(0), MSS as u32)));
        b.on_retransmit(seg(0), seg(10), T);
        assert_eq!(b.pipe(), 7 * MSS);
        assert_eq!(b.next_lost(), None);
        // The retransmission arrives: cumulative ACK to segment 4.
        let d = b.on_ack(T, seg(4), std::iter::empty());
        assert_eq!(d.acked, 4 * MSS);
        assert_eq!(d.bytes(), MSS, "only the hole is newly delivered");
        assert_eq!(b.pipe(), 6 * MSS);
    }

    /// Two holes (2 and 5), SACKs for 3, 4, 6, 7, 8: both become lost,
    /// 2 first (five SACKed above it, 5 has three above it).
    #[test]
    fn several_holes_are_marked_and_retransmitted_in_order() {
        let mut b = board();
        b.on_ack(T, seg(2), std::iter::empty());
        let blocks = [(seg(6), seg(9)), (seg(3), seg(5))];
        b.on_ack(T, seg(2), blocks.into_iter());
        assert!(b.mark_lost_by_sacks(3));
        // out 8 segments - 5 SACKed - 2 lost.
        assert_eq!(b.pipe(), MSS);
        assert_eq!(b.next_lost(), Some((seg(2), MSS as u32)));
        b.on_retransmit(seg(2), seg(10), T);
        assert_eq!(b.next_lost(), Some((seg(5), MSS as u32)));
        b.on_retransmit(seg(5), seg(10), T);
        assert_eq!(b.next_lost(), None);
        assert_eq!(b.pipe(), 3 * MSS);
        // Segment 9 has no SACK above: rule (3) finds nothing below HighSACK.
        assert_eq!(b.next_unsacked_below_high_sack(), None);
    }

    /// Rule (3): a hole with fewer than three SACKs above is not lost, but
    /// may be retransmitted when nothing else can be sent.
    #[test]
    fn rule_three_picks_an_unsacked_hole_below_high_sack() {
        let mut b = board();
        b.on_ack(T, seg(0), std::iter::once((seg(8), seg(10))));
        assert!(!b.mark_lost_by_sacks(3));
        assert_eq!(b.next_lost(), None);
        assert_eq!(
            b.next_unsacked_below_high_sack(),
            Some((seg(0), MSS as u32))
        );
        b.on_retransmit(seg(0), seg(10), T);
        assert_eq!(
            b.next_unsacked_below_high_sack(),
            Some((seg(1), MSS as u32))
        );
    }

    /// A retransmission overtaken by later data is lost again.
    #[test]
    fn a_lost_retransmission_is_detected_by_a_later_sack() {
        let mut b = board();
        b.on_ack(T, seg(0), std::iter::once((seg(1), seg(4))));
        b.mark_lost_by_sacks(3);
        b.on_retransmit(seg(0), seg(10), T);
        assert!(
            !b.mark_lost_retransmits(),
            "nothing sent after it is SACKed yet"
        );
        // New data 10 goes after the retransmission and is SACKed; the
        // retransmission did not fill the hole.
        b.on_send(seg(10), MSS as u32, T);
        let blocks = [(seg(10), seg(11)), (seg(1), seg(4))];
        b.on_ack(T, seg(0), blocks.into_iter());
        assert!(b.mark_lost_retransmits());
        assert_eq!(b.next_lost(), Some((seg(0), MSS as u32)));
    }

    /// RACK: ten segments sent 1 us apart; the last is SACKed 11 us after
    /// it left. With a 2 us reordering window, those out longer than 13 us
    /// are lost; the next falls due at its own send time + 13 us.
    #[test]
    fn rack_marks_older_segments_lost_after_rtt_plus_reo_wnd() {
        let us = SimDuration::from_us;
        let mut b = Scoreboard::new();
        for k in 0..10 {
            b.on_send(seg(k), MSS as u32, SimTime::ZERO + us(k));
        }
        let now = SimTime::ZERO + us(20);
        b.on_ack(now, seg(0), std::iter::once((seg(9), seg(10))));
        let (marked, timer) = b.rack_detect(now, us(2));
        assert!(marked);
        // Sent at 0..=7 us: out for 13 us or more by 20 us.
        assert_eq!(b.lost(), 8 * MSS);
        assert_eq!(
            timer,
            Some(SimTime::ZERO + us(21)),
            "segment 8 is due at 8 + 13 us"
        );
        let (again, _) = b.rack_detect(SimTime::ZERO + us(21), us(2));
        assert!(again);
        assert_eq!(b.lost(), 9 * MSS);
    }

    #[test]
    fn an_rto_marks_everything_unsacked_lost() {
        let mut b = board();
        b.on_ack(T, seg(0), std::iter::once((seg(5), seg(7))));
        b.mark_all_lost();
        assert_eq!(b.pipe(), 0);
        let mut order = Vec::new();
        while let Some((s, _)) = b.next_lost() {
            b.on_retransmit(s, seg(10), T);
            order.push((s - 1) / MSS);
        }
        // The SACKed segments 5 and 6 are not sent again.
        assert_eq!(order, vec![0, 1, 2, 3, 4, 7, 8, 9]);
        assert_eq!(b.pipe(), 8 * MSS);
    }

    #[test]
    fn reno_dupacks_count_as_sacked_segments() {
        let mut b = board();
        for _ in 0..3 {
            b.add_reno_sack(MSS);
        }
        b.mark_head_lost();
        assert_eq!(b.pipe(), 6 * MSS);
        b.on_retransmit(seg(0), seg(10), T);
        assert_eq!(b.pipe(), 7 * MSS);
        // A partial ACK of 4 segments: the three dupacks are accounted for.
        b.on_ack(T, seg(4), std::iter::empty());
        b.remove_reno_sacks(4 * MSS, MSS);
        assert_eq!(b.pipe(), 6 * MSS);
    }
}

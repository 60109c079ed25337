//! Which bytes of a message have arrived, in any order: what a
//! receiver-driven transport (Homa, ExpressPass) counts, with no
//! cumulative ACK stream to keep.

/// The bytes of one message received so far. In-order arrivals touch only
/// a counter; only a packet that overtook another (a priority raised
/// mid-message, a resend) is kept as a range.
#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    /// Bytes received in order from the start.
    in_order: u64,
    /// Ranges received above `in_order`, sorted and disjoint.
    above: Vec<(u64, u64)>,
    /// Distinct bytes received.
    received: u64,
}

impl Reassembly {
    /// Adds `[start, end)`; returns the bytes it added.
    pub fn add(&mut self, start: u64, end: u64) -> u64 {
        let start = start.max(self.in_order);
        if end <= start {
            return 0;
        }
        let overlap: u64 = self
            .above
            .iter()
            .map(|&(s, e)| e.min(end).saturating_sub(s.max(start)))
            .sum();
        if start == self.in_order {
            self.in_order = end;
        } else {
            let at = self.above.partition_point(|r| r.0 < start);
            self.above.insert(at, (start, end));
        }
        // Merge what now touches: the in-order prefix, then neighbours.
        let mut kept = 0;
        for i in 0..self.above.len() {
            let (s, e) = self.above[i];
            if s <= self.in_order {
                self.in_order = self.in_order.max(e);
            } else if kept > 0 && s <= self.above[kept - 1].1 {
                self.above[kept - 1].1 = self.above[kept - 1].1.max(e);
            } else {
                self.above[kept] = (s, e);
                kept += 1;
            }
        }
        self.above.truncate(kept);
        let new = end - start - overlap;
        self.received += new;
        new
    }

    /// Distinct bytes received.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Bytes received in order from the start: the first missing byte.
    pub fn in_order(&self) -> u64 {
        self.in_order
    }

    /// The end of the first hole: where the next range above begins
    /// (`None`: nothing arrived above the in-order bytes).
    pub fn hole_end(&self) -> Option<u64> {
        self.above.first().map(|r| r.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever the order and overlap of the ranges, the count is the
        /// size of their union, and `in_order` its prefix from 0.
        #[test]
        fn counts_the_union_of_ranges(ranges in prop::collection::vec((0u64..60, 1u64..12), 1..40)) {
            let mut r = Reassembly::default();
            let mut have = [false; 72];
            for &(s, len) in &ranges {
                r.add(s, s + len);
                for b in s..s + len { have[b as usize] = true; }
            }
            let union = have.iter().filter(|&&h| h).count() as u64;
            prop_assert_eq!(r.received(), union);
            let prefix = have.iter().take_while(|&&h| h).count() as u64;
            prop_assert_eq!(r.in_order(), prefix);
        }
    }
}

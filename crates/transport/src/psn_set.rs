//! A set of packet sequence numbers above a moving base: what a
//! packet-numbered requester has had SACKed (RoCE's selective repeat) and
//! what a packet-numbered receiver holds above its expected PSN (UEC's,
//! NDP's).

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
}

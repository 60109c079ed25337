//! Switch buffer admission: a static limit per port, or one buffer shared by
//! all ports of a switch under the dynamic-threshold policy.
//!
//! Dynamic threshold (A. K. Choudhury and E. L. Hahne, "Dynamic queue length
//! thresholds for shared-memory packet switches", IEEE/ACM ToN 6(2), 1998):
//! a class queue may grow while its length is below `dt_alpha` times the free
//! shared buffer, `q < dt_alpha x (B - used)`, and never beyond the buffer
//! itself. Lengths are in bytes. The key is named `dt_alpha` to keep it apart
//! from DCTCP's alpha and the plugins' alphas.

use sim_core::QueueSize;

/// How a switch's packet memory is divided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferPolicy {
    /// Each port has its own limit over all its class queues.
    PerPort(QueueSize),
    /// One buffer of `bytes` per switch, shared by the dynamic threshold.
    Shared {
        /// Capacity of the switch's buffer, in bytes.
        bytes: u64,
        /// The dynamic-threshold factor.
        dt_alpha: f64,
    },
}

/// The shared buffer of one switch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SharedBuffer {
    /// Capacity in bytes.
    pub capacity: u64,
    /// Bytes held now.
    pub used: u64,
    /// The most bytes ever held.
    pub max_used: u64,
}

impl SharedBuffer {
    /// An empty buffer of `capacity` bytes.
    pub fn new(capacity: u64) -> Self {
        SharedBuffer {
            capacity,
            used: 0,
            max_used: 0,
        }
    }

    /// The free bytes.
    #[inline]
    pub fn free(&self) -> u64 {
        self.capacity - self.used
    }

    /// Whether a packet of `size` bytes may join a class queue holding
    /// `queue_bytes`: the queue is below its dynamic threshold and the packet
    /// fits in the free buffer.
    #[inline]
    pub fn admits(&self, queue_bytes: u64, size: u32, dt_alpha: f64) -> bool {
        let free = self.free();
        (size as u64) <= free && (queue_bytes as f64) < dt_alpha * free as f64
    }

    /// Takes `size` bytes (after `admits`).
    #[inline]
    pub fn take(&mut self, size: u32) {
        self.used += size as u64;
        assert!(
            self.used <= self.capacity,
            "shared buffer over capacity: {} > {}",
            self.used,
            self.capacity
        );
        self.max_used = self.max_used.max(self.used);
    }

    /// Gives back `size` bytes when a packet leaves.
    #[inline]
    pub fn release(&mut self, size: u32) {
        self.used = self
            .used
            .checked_sub(size as u64)
            .expect("released more than was taken");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn threshold_follows_the_free_buffer() {
        let mut b = SharedBuffer::new(10_000);
        // Empty: a queue may grow to alpha x 10,000.
        assert!(b.admits(4_999, 1500, 0.5));
        assert!(!b.admits(5_000, 1500, 0.5));
        b.take(6_000);
        // 4,000 free: threshold 2,000 at alpha 0.5.
        assert!(b.admits(1_999, 1500, 0.5));
        assert!(!b.admits(2_000, 1500, 0.5));
        // Never beyond the buffer, whatever alpha.
        assert!(!b.admits(0, 4_001, 16.0));
    }

    proptest! {
        /// Over random arrivals and departures at several queues: the buffer
        /// never exceeds its capacity, and every admitted packet found its
        /// queue below dt_alpha x free.
        #[test]
        fn occupancy_and_thresholds_hold(
            ops in proptest::collection::vec((0usize..4, 40u32..1500, any::<bool>()), 1..400),
            alpha_log2 in -3i32..4,
        ) {
            let alpha = if alpha_log2 >= 0 { (1u32 << alpha_log2) as f64 } else { 1.0 / (1u32 << -alpha_log2) as f64 };
            let mut b = SharedBuffer::new(20_000);
            let mut queues: Vec<std::collections::VecDeque<u32>> = vec![Default::default(); 4];
            for (q, size, arrive) in ops {
                if arrive {
                    let qb: u64 = queues[q].iter().map(|&s| s as u64).sum();
                    if b.admits(qb, size, alpha) {
                        prop_assert!((qb as f64) < alpha * b.free() as f64);
                        b.take(size);
                        queues[q].push_back(size);
                    }
                } else if let Some(s) = queues[q].pop_front() {
                    b.release(s);
                }
                let held: u64 = queues.iter().flatten().map(|&s| s as u64).sum();
                prop_assert_eq!(held, b.used);
                prop_assert!(b.used <= b.capacity);
            }
        }
    }
}

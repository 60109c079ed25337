//! A FIFO that keeps its head inline.
//!
//! The queues of a port (its class queues, the packets in flight on its
//! link) are read at their head by the port's next event: the packet to send
//! or to deliver. With the head in the port's own cache lines, that event
//! reaches the packet in one dependent load instead of two (port, then ring
//! buffer, then packet); on a fabric whose ports are all cold in the cache,
//! each dependent load is a trip to memory. The tail stays in a ring buffer,
//! written at enqueue, where nothing waits for it.

use std::collections::VecDeque;

/// A FIFO of small `Copy` items whose head is stored inline.
#[derive(Clone, Debug)]
pub struct HeadFifo<T> {
    head: Option<T>,
    rest: VecDeque<T>,
}

impl<T> Default for HeadFifo<T> {
    fn default() -> Self {
        HeadFifo {
            head: None,
            rest: VecDeque::new(),
        }
    }
}

impl<T: Copy> HeadFifo<T> {
    /// The oldest item, if any.
    #[inline]
    pub fn front(&self) -> Option<T> {
        self.head
    }

    /// Appends `x`.
    #[inline]
    pub fn push_back(&mut self, x: T) {
        if self.head.is_none() {
            debug_assert!(self.rest.is_empty(), "a FIFO with a tail and no head");
            self.head = Some(x);
        } else {
            self.rest.push_back(x);
        }
    }

    /// Removes and returns the oldest item.
    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        let x = self.head.take()?;
        self.head = self.rest.pop_front();
        Some(x)
    }

    /// The number of items.
    #[inline]
    pub fn len(&self) -> usize {
        self.head.is_some() as usize + self.rest.len()
    }

    /// Whether the FIFO holds nothing.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    /// The items, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        self.head.into_iter().chain(self.rest.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        Push(u32),
        Pop,
    }

    proptest! {
        /// Any sequence of pushes and pops behaves as a `VecDeque`.
        #[test]
        fn behaves_as_a_deque(ops in prop::collection::vec(
            prop_oneof![any::<u32>().prop_map(Op::Push), Just(Op::Pop)], 0..200)) {
            let mut f = HeadFifo::default();
            let mut model = VecDeque::new();
            for op in ops {
                match op {
                    Op::Push(x) => {
                        f.push_back(x);
                        model.push_back(x);
                    }
                    Op::Pop => prop_assert_eq!(f.pop_front(), model.pop_front()),
                }
                prop_assert_eq!(f.front(), model.front().copied());
                prop_assert_eq!(f.len(), model.len());
                prop_assert_eq!(f.is_empty(), model.is_empty());
                prop_assert!(f.iter().eq(model.iter().copied()));
            }
        }
    }
}

//! The order of one picosecond's events (issue 60): a key made from the
//! events alone, so that one queue and every cut into logical processes
//! run each component's events in one order and write the same bytes
//! (docs/architecture.md, "One order for every cut").

use super::Event;
#[cfg(test)]
use super::Series;
use net::NetEvent;
use sim_core::SimTime;

impl sim_core::Tiebreak for Event {
    /// The order of one picosecond's events, from the events alone, so that
    /// every cut of the run orders them alike (docs/architecture.md, "One
    /// order for every cut"): samples first (a sample at `t` sees every
    /// event before `t` and none at it, as between a cut run's windows),
    /// in [`Series::ALL`](super::Series::ALL)'s order; then every other event in an order of
    /// kind and id drawn anew at each picosecond
    /// ([`sim_core::queue::tiebreak_of`]).
    #[inline(always)]
    fn tiebreak(&self, at: SimTime) -> u64 {
        let (kind, id) = match *self {
            Event::Net(n) => return n.tiebreak(at),
            Event::Sample(s) => return s as u64,
            Event::FlowStart(f) => (NetEvent::LAST_KIND + 1, f),
            Event::FlowStop(f) => (NetEvent::LAST_KIND + 2, f),
            Event::Arrival(a) => (NetEvent::LAST_KIND + 3, a),
            Event::Timer(t) => (NetEvent::LAST_KIND + 4, t.0),
            Event::Trigger(t) => (NetEvent::LAST_KIND + 5, t.bits()),
        };
        sim_core::queue::tiebreak_of(kind, id, at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::Tiebreak;

    /// Samples run first in their picosecond, in `Series::ALL`'s order, as
    /// a cut run takes them between windows.
    #[test]
    fn samples_run_first_in_series_order() {
        let at = SimTime(123_456_789);
        let samples: Vec<u64> = Series::ALL.map(|s| Event::Sample(s).tiebreak(at)).to_vec();
        assert!(samples.windows(2).all(|w| w[0] < w[1]), "{samples:?}");
        let last = *samples.last().expect("series");
        for t in [0, 1, 65_535, 1 << 40] {
            let at = SimTime(t);
            for e in [
                Event::FlowStart(0),
                Event::Timer(super::super::FlowTimer::new(0, transport::Side::Sender)),
                Event::Net(NetEvent::Fault(0)),
                Event::Net(NetEvent::TxDone(net::PortId(0))),
            ] {
                assert!(e.tiebreak(at) > last, "{e:?} at {t}");
            }
        }
    }

    /// Distinct events at one time have distinct keys, within the queue's
    /// 48 bits; across times the order of two kinds or two ids changes.
    #[test]
    fn keys_are_distinct_and_ties_go_either_way() {
        let events = |id: u32| {
            [
                Event::FlowStart(id),
                Event::FlowStop(id),
                Event::Arrival(id),
                Event::Trigger(super::super::TriggerEvent::fire(id)),
                Event::Net(NetEvent::Deliver(net::PortId(id))),
                Event::Net(NetEvent::TxDone(net::PortId(id))),
                Event::Net(NetEvent::PfcTimer(net::PortId(id))),
            ]
        };
        let mut firsts = [0u32; 2];
        for t in 0..200u64 {
            let at = SimTime(t * 1_000_003);
            let mut keys: Vec<u64> = (0..4).flat_map(events).map(|e| e.tiebreak(at)).collect();
            assert!(
                keys.iter()
                    .all(|&k| k < 1 << sim_core::queue::TIEBREAK_BITS)
            );
            let deliver_first = keys[3] < keys[4];
            firsts[usize::from(deliver_first)] += 1;
            keys.sort_unstable();
            keys.dedup();
            assert_eq!(keys.len(), 28, "at {t}");
        }
        assert!(
            firsts.iter().all(|&n| n > 50),
            "arrival before departure: {firsts:?}"
        );
    }
}

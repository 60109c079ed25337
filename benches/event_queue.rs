//! Event queue throughput: push + pop pairs in the steady state of a busy
//! simulation (each pop schedules one new event a pseudo-random distance
//! ahead). `push_pop_10k_pending` spreads 10,000 events over a millisecond
//! (timers); `fabric_crowd_*` keeps a fabric's density, events 5 ns to 1.4
//! us ahead (a transmission to a delivery), so a 65 ns wheel slot holds
//! hundreds (k = 8) or thousands (k = 24) of them.
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use sim_core::rng::mix64;
use sim_core::{EventQueue, SimTime};
use std::hint::black_box;

#[derive(Clone, Copy)]
struct Ev(u64);
impl sim_core::Tiebreak for Ev {
    fn tiebreak(&self, _: SimTime) -> u64 {
        self.0 & ((1 << sim_core::queue::TIEBREAK_BITS) - 1)
    }
}

fn prefilled(pending: u64) -> EventQueue<Ev> {
    let mut q = EventQueue::with_capacity(pending as usize * 2);
    for i in 0..pending {
        q.schedule(SimTime(mix64(i) % 1_000_000_000), Ev(i));
    }
    q
}

fn bench(c: &mut Criterion) {
    const PAIRS: u64 = 100_000;
    let mut g = c.benchmark_group("event_queue");
    g.throughput(Throughput::Elements(PAIRS));
    g.bench_function("push_pop_10k_pending", |b| {
        b.iter_batched_ref(
            || prefilled(10_000),
            |q| {
                for i in 0..PAIRS {
                    let (t, e) = q.pop().expect("non-empty");
                    black_box(e);
                    q.schedule(SimTime(t.ps() + 1 + mix64(i) % 1_000_000_000), Ev(i));
                }
            },
            BatchSize::LargeInput,
        )
    });
    // Events per 65.5 ns slot: about the k = 8 and k = 24 permutations'.
    for per_slot in [200u64, 5_000] {
        let span_ps = 1_400_000;
        let pending = per_slot * span_ps / 65_536;
        g.bench_function(format!("fabric_crowd_{per_slot}_per_slot"), |b| {
            b.iter_batched_ref(
                || {
                    let mut q = EventQueue::with_capacity(1024);
                    for i in 0..pending {
                        q.schedule(SimTime(5_000 + mix64(i) % span_ps), Ev(i));
                    }
                    q
                },
                |q| {
                    for i in 0..PAIRS {
                        let (t, e) = q.pop().expect("non-empty");
                        black_box(e);
                        q.schedule(SimTime(t.ps() + 5_000 + mix64(i) % span_ps), Ev(i));
                    }
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

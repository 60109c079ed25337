//! Event queue throughput: push + pop pairs with 10,000 events pending, the
//! steady state of a busy simulation (each pop schedules one new event a
//! pseudo-random distance ahead).
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use sim_core::rng::mix64;
use sim_core::{EventQueue, SimTime};
use std::hint::black_box;

#[derive(Clone, Copy)]
struct Ev(#[allow(dead_code)] u64);

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
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! What the whole-run benchmarks share: time `World::run` on a scenario,
//! with building left out of the timing.
use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Throughput};
use dcnsim::scenario::Scenario;
use dcnsim::world::World;

/// Benchmarks whole runs of `sc` at seed 1 as `name`; `elements` says what
/// one run counts as throughput (packet hops, events) from a finished world.
pub fn whole_run(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    sc: &Scenario,
    elements: fn(&World) -> u64,
) {
    let count = {
        let mut w = World::build(sc, 1).expect("builds");
        w.run();
        elements(&w)
    };
    g.throughput(Throughput::Elements(count));
    g.bench_function(name, |b| {
        b.iter_batched(
            || World::build(sc, 1).expect("builds"),
            |mut w| {
                w.run();
                w
            },
            BatchSize::LargeInput,
        )
    });
}

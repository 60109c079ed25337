//! Whole runs at fabric scale (issues 8 and 31): the k-ary fat-tree
//! permutations of `benches/scenarios/` (every host sends 100 MB to one
//! other host, 100 Gb/s, per-flow ECMP, DCTCP) cut to 50 us of simulated
//! time (20 us from k = 20 on, and for the k = 32 fat-tree with 4,096
//! flows) so that a sample takes a few seconds at most, and the 100-to-1
//! incast on the k = 8 fat-tree. Throughput is in events (criterion
//! "elements"), so criterion's time per element is the ns per event of
//! docs/performance.md's scaling table; building is untimed. Longer runs,
//! peak memory and cache misses come from scripts/bench-scaling.sh. The
//! `fabric_cut` group runs k = 16 and k = 24 cut into their default 8
//! logical processes on 1 and 2 threads (issue 43; same bytes at both).
//! The `paths` group runs k = 16 under each way of choosing among
//! equal-cost paths (issue 44), in packet hops, so that a choice's cost
//! per hop reads off directly (docs/performance.md, "Many paths per flow").
//! The `collectives` group runs one iteration of the shipped collective
//! jobs on the k = 8 fat-tree (issue 45), in packet hops, every transfer
//! after the receipts it waits on (docs/performance.md, "Dependencies
//! between transfers").
use criterion::measurement::WallTime;
use criterion::{
    BatchSize, BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main,
};
use dcnsim::scenario::{Scenario, load};
use dcnsim::world::World;
use std::path::Path;

mod common;

fn scenario(file: &str, overrides: &[&str]) -> Scenario {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    load(&Path::new("benches/scenarios").join(file), &overrides).expect("valid scenario")
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("fabric");
    g.sample_size(10);
    let short = ["simulation.stop_time=50us"];
    let shorter = ["simulation.stop_time=20us"];
    for (name, sc) in [
        ("incast_100to1_k8", scenario("incast-k8.toml", &[])),
        ("perm_k8_50us", scenario("perm-k8-0.5ms.toml", &short)),
        ("perm_k12_50us", scenario("perm-k12-0.5ms.toml", &short)),
        ("perm_k16_50us", scenario("perm-k16-0.5ms.toml", &short)),
        ("perm_k20_20us", scenario("perm-k20-0.5ms.toml", &shorter)),
        ("perm_k24_20us", scenario("perm-k24-0.5ms.toml", &shorter)),
        (
            "ft32_4096flows_20us",
            scenario("ft32-4096flows-0.1ms.toml", &shorter),
        ),
    ] {
        common::whole_run(&mut g, name, &sc, World::events_processed);
    }
    g.finish();
    let mut g = c.benchmark_group("paths");
    g.sample_size(10);
    for (name, routing) in [
        ("perm_k16_50us_ecmp", "routing.choice=ecmp"),
        ("perm_k16_50us_random", "routing.choice=random"),
        ("perm_k16_50us_adaptive", "routing.choice=adaptive"),
        ("perm_k16_50us_spray", "routing.spray=oblivious"),
    ] {
        let sc = scenario("perm-k16-0.5ms.toml", &[short[0], routing]);
        common::whole_run(&mut g, name, &sc, |w| w.fabric().hops);
    }
    g.finish();
    let mut g = c.benchmark_group("collectives");
    g.sample_size(10);
    for (name, file) in [
        ("ring_allreduce_k8_32ranks", "ring-allreduce-k8.toml"),
        ("moe_alltoall_k8_128ranks", "moe-alltoall-k8.toml"),
    ] {
        let path = Path::new("scenarios/ai-fabric").join(file);
        let one = ["workload[0].iterations=1".to_string()];
        let sc = load(&path, &one).expect("valid scenario");
        common::whole_run(&mut g, name, &sc, |w| w.fabric().hops);
    }
    g.finish();
    let mut g = c.benchmark_group("fabric_cut");
    g.sample_size(10);
    for (name, sc) in [
        ("perm_k16_50us", scenario("perm-k16-0.5ms.toml", &short)),
        ("perm_k24_20us", scenario("perm-k24-0.5ms.toml", &shorter)),
    ] {
        for threads in [1, 2] {
            cut_run(&mut g, &format!("{name}_{threads}t"), &sc, threads);
        }
    }
    g.finish();
}

/// Benchmarks whole runs of `sc` at seed 1 cut into its default logical
/// processes (docs/architecture.md, "One run on many cores") on `threads`
/// threads, as `name`, in events; building the LP copies is untimed.
fn cut_run(g: &mut BenchmarkGroup<'_, WallTime>, name: &str, sc: &Scenario, threads: usize) {
    use dcnsim::world::{Lps, Threads, partition_for};
    let planned = dcnsim::registry::workload::plan_all(sc, 1);
    let build = || {
        let cut = partition_for(sc, &planned).expect("the default cut");
        assert!(cut.lps > 1, "{name}: the fabric is cut");
        Lps::build(sc, 1, &planned, cut, Threads(threads)).expect("builds")
    };
    let count = build()
        .run(Threads(threads), u64::MAX, &mut |_| true)
        .0
        .events_processed();
    g.throughput(Throughput::Elements(count));
    g.bench_function(name, |b| {
        b.iter_batched(
            build,
            |lps| lps.run(Threads(threads), u64::MAX, &mut |_| true),
            BatchSize::LargeInput,
        )
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);

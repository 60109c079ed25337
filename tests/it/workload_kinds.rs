//! The workload kinds of issue 9 end to end: incast rounds, shuffle,
//! permutation, scheduled long flows, ping, and the per-workload delay
//! metrics, RTT series and chosen-flow fairness.
use crate::common;
use dcnsim::report::round_rows;
use sim_core::{SimDuration, SimTime};
use transport::SenderEnd;

/// A 10 Gb/s star of `hosts` hosts with 1 us links, DCTCP at K = 20 packets.
fn star(hosts: u32, rest: &str) -> String {
    common::fill(
        include_str!("scenarios/workload_kinds/star.toml"),
        &[("hosts", &hosts.to_string()), ("rest", rest)],
    )
}

#[test]
fn closed_loop_rounds_start_after_the_last_flow_of_the_round_before() {
    let (w, s) = common::run(&star(
        9,
        r#"
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = "1-8"
        size = "20KB"
        rounds = 4
        round_gap = "5us"
        start_jitter = "1us"
        "#,
    ));
    assert_eq!((s.flows.total, s.flows.completed), (32, 32));
    let rows = round_rows(&w.run_record());
    println!("{rows:?}");
    assert_eq!(rows.len(), 4);
    for pair in rows.windows(2) {
        let end = pair[0].3.expect("round complete");
        let next = pair[1].2.expect("round started");
        let gap = next.since(end);
        // round_gap, plus the earliest of eight jitters below 1 us.
        assert!(
            gap >= SimDuration::from_us(5) && gap < SimDuration::from_us(6),
            "{gap}"
        );
    }
    // Every flow of round r + 1 starts after every flow of round r is received.
    for r in 1..4 {
        let last_received = w
            .flows()
            .iter()
            .filter(|f| f.round == r - 1)
            .filter_map(|f| f.received_at)
            .max()
            .expect("received");
        assert!(
            w.flows()
                .iter()
                .filter(|f| f.round == r)
                .all(|f| f.start > last_received)
        );
    }
    let rounds = s.workloads[0].rounds.as_ref().expect("incast has rounds");
    assert_eq!((rounds.rounds, rounds.completed), (4, 4));
    // 160 KB over a 10 Gb/s last hop: at least 128 us a round.
    assert!(
        rounds.duration_us.min.expect("rounds") > 128.0,
        "{rounds:?}"
    );
}

#[test]
fn open_loop_rounds_start_every_interval_whatever_happened() {
    let (w, s) = common::run(&star(
        9,
        r#"
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = "1-8"
        size = "20KB"
        rounds = 3
        interval = "50us"
        start = "10us"
        "#,
    ));
    assert_eq!(s.flows.completed, 24);
    let starts: Vec<SimTime> = round_rows(&w.run_record())
        .iter()
        .map(|r| r.2.expect("started"))
        .collect();
    let us = |t| SimTime::ZERO + SimDuration::from_us(t);
    // 160 KB takes over 128 us: the rounds overlap, as an open loop may.
    assert_eq!(starts, vec![us(10), us(60), us(110)]);
}

#[test]
fn shuffle_sends_an_elephant_and_k_mice_per_ordered_pair() {
    let (w, s) = common::run(&star(
        5,
        r#"
        [[workload]]
        kind = "shuffle"
        hosts = [1, 2, 3, 4]
        mice = 3
        elephant_size = "50KB"
        mouse_size = "2KB"
        start_jitter = "20us"
        "#,
    ));
    assert_eq!(s.flows.total, 4 * 3 * 4);
    assert_eq!(s.flows.completed, s.flows.total);
    for a in 1..=4u32 {
        for b in (1..=4u32).filter(|&b| b != a) {
            let mut sizes: Vec<u64> = w
                .flows()
                .iter()
                .filter(|f| (f.sender.addr().src.0, f.sender.addr().dst.0) == (a, b))
                .filter_map(|f| f.size)
                .collect();
            sizes.sort_unstable();
            assert_eq!(sizes, vec![2000, 2000, 2000, 50_000], "{a} -> {b}");
        }
    }
}

#[test]
fn shuffle_at_a_load_offers_it() {
    let (w, s) = common::run(&star(
        9,
        r#"
        [[workload]]
        kind = "shuffle"
        hosts = "1-8"
        load = 0.3
        "#,
    ));
    let load = &s.loads[0];
    println!(
        "shuffle: {} flows, offered {:.3} for {:.3}",
        w.flows().len(),
        load.offered,
        load.target
    );
    assert_eq!(w.flows().len(), 8 * 7 * 51);
    assert!((load.offered - 0.3).abs() < 0.05, "{load:?}");
    // Flows are numbered in start order.
    assert!(w.flows().windows(2).all(|p| p[0].start <= p[1].start));
}

#[test]
fn a_permutation_is_a_seeded_derangement() {
    let text = |seed: u64| {
        star(
            11,
            &format!(
                r#"
                [simulation]
                seed = {seed}
                [[workload]]
                kind = "permutation"
                hosts = "1-10"
                size = "30KB"
                "#
            ),
        )
    };
    let pairs = |seed| {
        let (w, s) = common::run(&text(seed));
        assert_eq!(s.flows.completed, 10);
        let p: Vec<(u32, u32)> = w
            .flows()
            .iter()
            .map(|f| (f.sender.addr().src.0, f.sender.addr().dst.0))
            .collect();
        p
    };
    let p1 = pairs(1);
    println!("{p1:?}");
    let mut srcs: Vec<u32> = p1.iter().map(|p| p.0).collect();
    let mut dsts: Vec<u32> = p1.iter().map(|p| p.1).collect();
    srcs.sort_unstable();
    dsts.sort_unstable();
    assert_eq!(srcs, (1..=10).collect::<Vec<_>>());
    assert_eq!(dsts, srcs, "every host receives exactly once");
    assert!(p1.iter().all(|(a, b)| a != b));
    assert_eq!(pairs(1), p1, "the same seed, the same permutation");
    assert_ne!(pairs(2), p1, "another seed, another permutation");
}

#[test]
fn scheduled_long_flows_join_and_leave_on_time() {
    let (w, s) = common::run(&star(
        4,
        r#"
        [simulation]
        stop_time = "4ms"
        [output]
        goodput_interval = "250us"
        [[workload]]
        kind = "long-flows"
        schedule = [
            { src = 1, dst = 0, start = "0s", stop = "3ms" },
            { src = 2, dst = 0, start = "1ms", stop = "2ms" },
            { src = 3, dst = 0, start = "1500us", size = "500KB" },
        ]
        "#,
    ));
    let us = |t| SimTime::ZERO + SimDuration::from_us(t);
    assert_eq!(
        w.flows().iter().map(|f| f.start).collect::<Vec<_>>(),
        vec![us(0), us(1000), us(1500)]
    );
    assert_eq!(s.flows.completed, 3);
    // A stopped flow completes once what it had sent is acknowledged:
    // after its stop, within a queue's drain time.
    for (f, stop) in [(&w.flows()[0], us(3000)), (&w.flows()[1], us(2000))] {
        let done = f.sender.completed_at().expect("done");
        assert!(
            done > stop && done < stop + SimDuration::from_us(500),
            "{done:?}"
        );
    }
    // Flow 0 was alone for its first millisecond, and no flow has goodput
    // before it starts.
    let rows = w.goodput_samples();
    for (id, start) in [(1, us(1000)), (2, us(1500))] {
        let first = rows
            .iter()
            .find(|g| g.of == dcnsim::world::GoodputOf::Flow(id))
            .expect("rows");
        assert!(first.time_ps > start.ps(), "flow {id}");
    }
    let first_ms: u64 = rows
        .iter()
        .filter(|g| g.of == dcnsim::world::GoodputOf::Flow(0) && g.time_ps <= us(1000).ps())
        .map(|g| g.bytes)
        .sum();
    println!("flow 0 alone: {} bytes in 1 ms", first_ms);
    assert!(first_ms > 1_000_000, "{first_ms}");
}

#[test]
fn ping_rtt_on_an_idle_network_is_twice_the_one_way_delay() {
    let (w, s) = common::run(&star(
        3,
        r#"
        [[workload]]
        kind = "ping"
        src = 1
        dst = 2
        interval = "20us"
        count = 10
        "#,
    ));
    // Each way two hops of (84 + 38 framing) B at 10 Gb/s (97.6 ns) + 1 us.
    let one_way_ps = 2 * (97_600 + 1_000_000);
    let src = &w.sources()[0];
    assert_eq!(src.rtt_ps, vec![2 * one_way_ps; 10]);
    assert_eq!(src.sent_ps[3], 60_000_000);
    let p = &s.workloads[0];
    let probes = p.probes.as_ref().expect("ping has probes");
    assert_eq!((probes.sent, probes.answered, probes.lost), (10, 10, 0));
    assert_eq!(p.rtt_us.count, 10);
    assert!(
        (p.rtt_us.p99.expect("rtt") - 4.3904).abs() < 0.005,
        "{:?}",
        p.rtt_us
    );
    assert!((p.one_way_delay_us.p50.expect("owd") - 2.1952).abs() < 0.003);
}

#[test]
fn ping_sees_the_queue_a_long_flow_builds() {
    let text = |aqm: &str| {
        common::fill(
            include_str!("scenarios/workload_kinds/ping_sees_the_queue_a_long_flow_builds.toml"),
            &[("aqm", aqm)],
        )
    };
    let (_, tail) = common::run(&text("kind = \"droptail\""));
    let (_, dctcp) = common::run(&text("kind = \"step-ecn\"\nk = \"20pkt\""));
    let p50 = |s: &dcnsim::report::RunSummary| s.workloads[1].rtt_us.p50.expect("rtt");
    println!(
        "ping p50: DropTail {:.1} us, DCTCP K=20 {:.1} us",
        p50(&tail),
        p50(&dctcp)
    );
    // A full 300-packet DropTail queue is 369 us at 10 Gb/s; K = 20 about 25 us.
    assert!(p50(&tail) > 200.0);
    assert!(p50(&dctcp) < 60.0);
}

#[test]
fn delay_metrics_and_the_rtt_series_agree() {
    let (w, s) = common::run(&star(
        5,
        r#"
        [output]
        rtt_interval = "50us"
        jain_flows = [0, 1]
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = "1-4"
        size = "200KB"
        "#,
    ));
    let wl = &s.workloads[0];
    // The base RTT is 4 us plus serialisation: no sample below it.
    assert!(wl.rtt_us.min.expect("samples") > 4.0, "{:?}", wl.rtt_us);
    assert!(wl.one_way_delay_us.min.expect("samples") > 2.0);
    let in_series: u64 = w.rtt_rows().iter().map(|r| r.samples).sum();
    assert_eq!(in_series as usize, wl.rtt_us.count);
    let fairness = s.fairness.as_ref().expect("jain_flows set");
    assert_eq!(fairness.flows, vec![0, 1]);
    assert!(fairness.jain_index.expect("active") > 0.9);
}

#[test]
fn bad_workloads_name_the_key_and_the_fix() {
    let cases = [
        (
            "kind = \"incast\"\nreceiver = 0\nsenders = \"1-3\"\nsize = \"1KB\"\nrounds = 3\ninterval = \"1ms\"\nround_gap = \"1us\"",
            "workload[0].interval",
            "not both",
        ),
        (
            "kind = \"incast\"\nreceiver = 0\nsenders = \"1-3\"\nsize = \"1KB\"\nrounds = 0",
            "workload[0].rounds",
            "give 1 to",
        ),
        (
            "kind = \"long-flows\"\npairs = [[1, 0]]\nschedule = [{ src = 1, dst = 0 }]\nsize = \"1KB\"",
            "workload[0].schedule",
            "not both",
        ),
        (
            "kind = \"long-flows\"\nschedule = [{ src = 1, dst = 0, start = \"2ms\", stop = \"1ms\" }]",
            "workload[0].schedule[0].stop",
            "stop must be after start",
        ),
        (
            "kind = \"shuffle\"\nhosts = [1, 2, 2]",
            "workload[0].hosts",
            "host 2 is listed twice",
        ),
        (
            "kind = \"shuffle\"\nhosts = \"1-3\"\nload = 0.5\nstart_jitter = \"1us\"",
            "workload[0].start_jitter",
            "Poisson",
        ),
        (
            "kind = \"permutation\"\nhosts = [1]\nsize = \"1KB\"",
            "workload[0].hosts",
            "at least 2",
        ),
        (
            "kind = \"ping\"\nsrc = 1\ndst = 2\ninterval = \"0s\"\ncount = 3",
            "workload[0].interval",
            "positive",
        ),
        (
            "kind = \"ping\"\nsrc = 1\ndst = 2\ninterval = \"1us\"",
            "workload[0]",
            "a ping with neither stop nor count never ends",
        ),
    ];
    for (workload, key, words) in cases {
        let text = star(4, &format!("[[workload]]\n{workload}"));
        let err = dcnsim::scenario::parse_str("bad.toml", &text)
            .expect_err(workload)
            .to_string();
        println!("{err}");
        assert!(err.contains(&format!("key `{key}`")), "{err}");
        assert!(err.contains(words), "{err}");
    }
}

//! `queues.csv`: time-sampled occupancy, without disturbing the run.
use crate::common;

use net::HostId;

const INCAST: &str = include_str!("scenarios/queue_sampling/incast.toml");

#[test]
fn sampling_records_the_queue_and_changes_nothing_else() {
    let (plain, a) = common::run(INCAST);
    let sampled_text =
        format!("{INCAST}\n[output]\nqueue_interval = \"10us\"\nqueue_ports = [0]\n");
    let (w, b) = common::run(&sampled_text);
    // Same flows, same finish times: sampling only observes.
    assert_eq!(a.flows, b.flows);
    assert_eq!(
        dcnsim::report::flows_csv(&plain.run_record()),
        dcnsim::report::flows_csv(&w.run_record())
    );
    let port = w.fabric().port_towards_host(HostId(0));
    let rows = w.queue_samples();
    assert!(rows.iter().all(|r| r.port == port.0 && r.class == 0));
    // One row per 10 us over the ~3.3 ms run.
    let span = w.end_time().ps();
    assert!(
        rows.len() as u64 >= span / 10_000_000,
        "{} rows over {span} ps",
        rows.len()
    );
    let max = rows.iter().map(|r| r.packets).max().unwrap();
    let st = &w.fabric().port(port).stats;
    assert!(
        max > 0 && max <= st.max_packets,
        "sampled max {max}, true max {}",
        st.max_packets
    );
    assert!(
        rows.windows(2)
            .all(|p| p[1].time_ps - p[0].time_ps == 10_000_000)
    );
    let csv = dcnsim::report::queues_csv(&w.run_record());
    assert!(
        csv.starts_with("time_us,port,node,name,class,bytes,packets\n0.000000,"),
        "{}",
        &csv[..80]
    );
}

#[test]
fn the_cli_writes_queues_csv_for_every_switch_port() {
    let dir = std::env::temp_dir().join(format!("dcnsim-queues-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("q.toml");
    std::fs::write(
        &f,
        format!("{INCAST}\n[output]\nqueue_interval = \"100us\"\n"),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args(["run"])
        .arg(&f)
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(dir.join("out/queues.csv")).unwrap();
    // Nine switch ports sampled at t = 0.
    assert_eq!(
        csv.lines().filter(|l| l.starts_with("0.000000,")).count(),
        9
    );
    // Streamed to disk, the same bytes as kept in memory.
    let (w, _) = common::run(&format!("{INCAST}\n[output]\nqueue_interval = \"100us\"\n"));
    assert_eq!(csv, dcnsim::report::queues_csv(&w.run_record()));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn sampling_stops_when_the_traffic_ends() {
    // A stop time far beyond the ~3.3 ms of traffic: sampling ends with the
    // traffic (the last packet delivered, every flow closed), not at 1 s.
    let text = format!(
        "[simulation]\nstop_time = \"1s\"\n{INCAST}\n[output]\nqueue_interval = \"10us\"\nqueue_ports = [0]\n"
    );
    let (w, s) = common::run(&text);
    assert_eq!(s.flows.completed, 8);
    let last = w.queue_samples().last().expect("samples").time_ps;
    let end = w.end_time().ps();
    assert!(
        last >= end && last < end + 10_000_000,
        "last sample at {last} ps, traffic ended at {end} ps"
    );
}

#[test]
fn queue_ports_need_an_interval_and_real_hosts() {
    let e = dcnsim::scenario::parse_str(
        "q.toml",
        &format!("{INCAST}\n[output]\nqueue_ports = [0]\n"),
    )
    .unwrap_err();
    assert_eq!(e.key, "output.queue_ports", "{e}");
    let e = dcnsim::scenario::parse_str(
        "q.toml",
        &format!("{INCAST}\n[output]\nqueue_interval = \"1us\"\nqueue_ports = [9]\n"),
    )
    .unwrap_err();
    assert!(e.to_string().contains("host 9 does not exist"), "{e}");
}

const DUMBBELL: &str = include_str!("scenarios/queue_sampling/dumbbell.toml");

#[test]
fn queue_ports_can_name_any_switch_port_or_link() {
    // The dumbbell's bottleneck: switch s0's port towards s1.
    let (w, _) = common::run(&format!("{DUMBBELL}queue_ports = [\"s0->s1\"]\n"));
    let ports: std::collections::BTreeSet<u32> = w.queue_samples().iter().map(|r| r.port).collect();
    assert_eq!(ports.len(), 1);
    let p = w
        .fabric()
        .port(net::PortId(*ports.first().expect("one port")));
    assert_eq!(
        (p.node.0, w.fabric().port(p.peer).node.0),
        (4, 5),
        "s0 is node 4, s1 node 5"
    );
    // The bottleneck is where the queue builds (10 Gb/s into 1 Gb/s).
    assert!(w.queue_samples().iter().any(|r| r.packets > 10));

    // A switch names all its ports (s1: two hosts and the bottleneck), an
    // entry already chosen is not sampled twice.
    let (w, _) = common::run(&format!(
        "{DUMBBELL}queue_ports = [\"s1\", \"s1->h2\", 3]\n"
    ));
    let first: Vec<u32> = w
        .queue_samples()
        .iter()
        .take_while(|r| r.time_ps == 0)
        .map(|r| r.node)
        .collect();
    assert_eq!(first, [5, 5, 5]);
}

#[test]
fn queue_port_errors_name_the_entry() {
    for (entry, want) in [
        (
            "\"s2\"",
            "key `output.queue_ports[1]`: switch s2 does not exist: the topology has switches s0 to s1",
        ),
        (
            "\"s0->h2\"",
            "key `output.queue_ports[1]`: s0 and h2 are not linked",
        ),
        (
            "\"h0->s0\"",
            "key `output.queue_ports[1]`: 'h0->s0' is not a switch port: expected",
        ),
        (
            "9",
            "key `output.queue_ports[1]`: host 9 does not exist: the topology has hosts 0 to 3",
        ),
    ] {
        let text = format!("{DUMBBELL}queue_ports = [0, {entry}]\n");
        let e = dcnsim::scenario::parse_str("q.toml", &text).expect_err(want);
        let line = DUMBBELL.lines().count() + 1; // the appended `queue_ports`
        assert!(e.to_string().contains(want) && e.line == line, "{e}");
    }
}

/// `output.queue_from` (RCC Fig. 8's standing queue): summary.json's
/// `queue_after` is the mean and largest of the sampled port's queue over
/// exactly the samples at or after that time, the burst before it left out.
#[test]
fn queue_after_reports_the_samples_from_its_time_on() {
    let from_ps = 1_000_000_000u64; // 1 ms: the first flights' burst is over
    let text = format!(
        "{INCAST}\n[output]\nqueue_interval = \"10us\"\nqueue_ports = [0]\nqueue_from = \"1ms\"\n"
    );
    let (w, s) = common::run(&text);
    let after = s.queue_after.as_ref().expect("queue_after");
    let rows: Vec<_> = w
        .queue_samples()
        .iter()
        .filter(|r| r.time_ps >= from_ps)
        .collect();
    assert_eq!(after.samples, rows.len() as u64);
    let mean = rows.iter().map(|r| r.bytes as f64).sum::<f64>() / rows.len() as f64;
    assert!(
        (after.mean_bytes - mean).abs() < 1e-6,
        "{after:?} against {mean}"
    );
    assert_eq!(after.max_bytes, rows.iter().map(|r| r.bytes).max().unwrap());
    assert_eq!(after.from_us, 1000.0);
    // The burst before it is larger than anything after: DCTCP settles.
    let all_max = w.queue_samples().iter().map(|r| r.bytes).max().unwrap();
    assert!(
        after.max_bytes < all_max,
        "{} against {all_max}",
        after.max_bytes
    );
    // Past the run's end there is no sample: nothing is reported.
    let late = text.replace("queue_from = \"1ms\"", "queue_from = \"1s\"");
    assert!(common::run(&late).1.queue_after.is_none());
    // Without sampling it would read nothing: refused.
    let e = dcnsim::scenario::parse_str(
        "t.toml",
        &format!("{INCAST}\n[output]\nqueue_from = \"1ms\"\n"),
    )
    .expect_err("refused");
    assert!(e.to_string().contains("output.queue_from"), "{e}");
}

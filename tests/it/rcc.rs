//! RCC end to end: RCC paper Fig. 6 (convergence and fairness) scaled down
//! from the shipped scenario, and the runs' determinism.
use crate::common;
use sim_core::{SimDuration, SimTime};
use transport::SenderEnd;

/// `scenarios/rcc/convergence.toml` scaled by `1 / scale` in time and
/// size (flows 100 ms / scale apart; the same rates, delays and keys).
pub(crate) fn fig6(scale: u64, extra_cc: &str) -> String {
    let text = std::fs::read_to_string("scenarios/rcc/convergence.toml").expect("shipped");
    let size = |gb: f64| format!("\"{}B\"", (gb * 1e9 / scale as f64) as u64);
    let start = |ms: u64| format!("\"{}us\"", ms * 1000 / scale);
    text.replace("\"4.4GB\"", &size(4.4))
        .replace("\"2.2GB\"", &size(2.2))
        .replace("\"1.1GB\"", &size(1.1))
        .replace("\"0.27GB\"", &size(0.27))
        .replace("\"100ms\"", &start(100))
        .replace("\"200ms\"", &start(200))
        .replace("\"300ms\"", &start(300))
        .replace(
            "stop_time = \"700ms\"",
            &format!("stop_time = \"{}us\"", 700_000 / scale),
        )
        .replace(
            "error_unit = \"s\" }",
            &format!("error_unit = \"s\"{extra_cc} }}"),
        )
}

pub(crate) fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let q: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * q)
}

/// Runs `w` to `until` in 100 us windows and returns, for every steady
/// window (no flow joined or left in it or in the `settle` before it), its
/// start and the goodput in Gb/s of each flow open through it.
pub(crate) fn steady_windows(
    w: &mut dcnsim::world::World,
    settle: SimDuration,
    until: SimTime,
) -> Vec<(SimTime, Vec<f64>)> {
    let step = SimDuration::from_us(100);
    let mut t = SimTime::ZERO;
    let mut last: Vec<u64> = vec![0; w.flows().len()];
    let mut windows = Vec::new();
    while t < until {
        let end = t + step;
        w.run_until(end);
        let acked: Vec<u64> = w.flows().iter().map(|f| f.sender.bytes_acked()).collect();
        let changed = |c: SimTime| c + settle > t && c <= end;
        let steady = !w
            .flows()
            .iter()
            .any(|f| changed(f.start) || f.sender.completed_at().is_some_and(changed));
        // In a steady window a flow is open through it if it started
        // before it and has not completed by its end.
        let rates: Vec<f64> = (0..w.flows().len())
            .filter(|&i| w.flows()[i].start <= t && w.flows()[i].sender.completed_at().is_none())
            .map(|i| (acked[i] - last[i]) as f64 * 8.0 / 100e-6 / 1e9)
            .collect();
        if steady && !rates.is_empty() {
            windows.push((t, rates));
        }
        last = acked;
        t = end;
    }
    windows
}

#[test]
fn rcc_fig6_converges_to_fair_shares_and_finishes_on_schedule() {
    // 1/100 of Fig. 6: joins 1 ms apart, 44 / 22 / 11 / 2.7 MB; steady
    // windows start 5 base RTTs after a join or leave.
    let sc = common::scenario(&fig6(100, ""));
    let mut w = dcnsim::world::World::build(&sc, 1).expect("builds");
    let steady = steady_windows(
        &mut w,
        SimDuration::from_us(60),
        SimTime::ZERO + SimDuration::from_us(7_000),
    );
    let mut worst: f64 = 0.0;
    let mut worst_jain: f64 = 1.0;
    for (t, rates) in &steady {
        let n = rates.len() as f64;
        for r in rates {
            let off = (r - 95.0 / n).abs() / (95.0 / n);
            worst = worst.max(off);
            assert!(
                off <= 0.05,
                "at {t:?}, {n} flows: {rates:?} Gb/s, fair share {:.2}",
                95.0 / n
            );
        }
        worst_jain = worst_jain.min(jain(rates));
    }
    let windows = steady.len();
    // At 95 Gb/s the fair schedule ends flow 4, 3, 2, 1 at 390.9, 500.6,
    // 585.9 and 671.2 ms of the full-size run.
    let ideal_ms = [671.2, 585.9, 500.6, 390.9];
    let finish: Vec<f64> = w
        .flows()
        .iter()
        .map(|f| f.sender.completed_at().expect("finished").as_secs_f64() * 1e3 * 100.0)
        .collect();
    println!(
        "RCC Fig. 6 at 1/100: {windows} steady 100-us windows, worst {:.2}% from 95/N Gb/s, Jain >= {worst_jain:.5}; finish (x100) {finish:.1?} ms vs {ideal_ms:?}",
        worst * 100.0
    );
    assert!(windows >= 50, "only {windows} steady windows");
    assert!(worst_jain >= 0.998, "Jain {worst_jain}");
    for (f, i) in finish.iter().zip(ideal_ms) {
        assert!(
            (f - i).abs() / i <= 0.01,
            "finish {f:.1} ms vs the fair schedule's {i}"
        );
    }
    let max_queue = w
        .fabric()
        .ports()
        .values()
        .map(|p| p.stats.max_packets)
        .max()
        .unwrap_or(0);
    println!("RCC Fig. 6 at 1/100: largest queue {max_queue} packets");
}

#[test]
fn rcc_runs_repeat_exactly_and_async_with_zero_offset_is_rcc() {
    let summary = |text: &str| {
        let (w, s) = common::run(text);
        let finish: Vec<Option<SimTime>> =
            w.flows().iter().map(|f| f.sender.completed_at()).collect();
        let base_delays: Vec<Option<SimDuration>> = w
            .flows()
            .iter()
            .map(
                |f| match f.receiver.get::<transport::roce::RoceReceiver>()?.control() {
                    transport::roce::RoceReceiverControl::Rcc(r) => r.control()?.base_delay(),
                    _ => None,
                },
            )
            .collect();
        (
            serde_json::to_string(&s).expect("serialises"),
            finish,
            base_delays,
        )
    };
    let rcc = summary(&fig6(1000, ""));
    assert_eq!(rcc, summary(&fig6(1000, "")), "two runs of one seed differ");
    let zero = summary(&fig6(
        1000,
        ", clock_offset = \"0s\", clock_jitter = \"0s\"",
    ));
    assert_eq!(
        rcc, zero,
        "RCC-async with zero offset and jitter is not RCC"
    );
    let skewed = summary(&fig6(
        1000,
        ", clock_offset = \"2us\", clock_jitter = \"500ns\"",
    ));
    // The offsets and jitter move the delays the receiver reads (here the
    // last hop is the bottleneck, so EWA decides and the finish times may
    // stay).
    println!(
        "base one-way delays, synchronised: {:?}; skewed: {:?}",
        rcc.2, skewed.2
    );
    assert_ne!(rcc.2, skewed.2, "clock offsets and jitter changed nothing");
}

/// Table II's incast (`scenarios/rcc/incast-pfc.toml`) with `n` senders,
/// RCC, TIMELY or the sweep's DCQCN case: the most paused (port,
/// priority)'s share of the run.
fn table2_pause(n: u32, cc: &str) -> f64 {
    let text = std::fs::read_to_string("scenarios/rcc/incast-pfc.toml").expect("shipped");
    let mut text = text.replace("senders = \"1-256\"", &format!("senders = \"1-{n}\""));
    if cc == "timely" {
        text = text.replace("cc = \"rcc\"", "cc = \"timely\"");
    }
    if cc == "dcqcn" {
        text = text.replace(
            "cc = \"rcc\"",
            "cc = { kind = \"dcqcn\", variant = \"ns3rdma\" }\n[switch.aqm]\nkind = \"red\"\nk_min = \"400KB\"\nk_max = \"1600KB\"\np_max = 0.2\nmark_at = \"dequeue\"\nspread = false",
        );
    }
    let (_, s) = common::run(&text);
    assert_eq!(s.flows.completed, n as usize, "every flow completes");
    s.pfc.as_ref().expect("PFC is on").max_paused_fraction
}

#[test]
fn table2_rcc_keeps_pfc_quiet_where_dcqcn_and_timely_pause() {
    let rcc_256 = table2_pause(256, "rcc");
    let dcqcn: Vec<f64> = [64, 192, 256]
        .iter()
        .map(|&n| table2_pause(n, "dcqcn"))
        .collect();
    let timely_256 = table2_pause(256, "timely");
    println!(
        "Table II, pause time: RCC at N = 256 {:.1}%; DCQCN at N = 64 / 192 / 256 {:.1}% / {:.1}% / {:.1}% (paper 0 / 27.6 / 42.1); TIMELY at 256 {:.1}% (54.9)",
        rcc_256 * 100.0,
        dcqcn[0] * 100.0,
        dcqcn[1] * 100.0,
        dcqcn[2] * 100.0,
        timely_256 * 100.0
    );
    assert!(
        rcc_256 <= 0.01,
        "RCC pauses {:.1}% at N = 256",
        rcc_256 * 100.0
    );
    assert_eq!(dcqcn[0], 0.0, "DCQCN pauses at N = 64");
    assert!(
        dcqcn[1] > 0.10 && dcqcn[2] > 0.10,
        "DCQCN at 192 / 256: {dcqcn:?}"
    );
    assert!(
        timely_256 > 0.10,
        "TIMELY pauses {:.1}% at N = 256",
        timely_256 * 100.0
    );
}

/// The ablations and RCC-sender on Fig. 6 at 1/100: with the last hop as
/// the bottleneck, RCC-EWA and RCC-sender (the sender's PID fed by the
/// receiver's N and last-hop bit) keep RCC's schedule; RCC-PID, without
/// the fair share, does not (its flows keep the offsets they entered PID
/// with).
#[test]
fn rcc_variants_on_fig6() {
    // Finish times x 100 in ms; 0 for a flow unfinished at the end (7 ms).
    let finish = |variant: &str| -> Vec<f64> {
        // Each variant with the keys it reads (a key it ignores is an error).
        let keys = match variant {
            "rcc-ewa" => String::new(),
            "rcc-pid" => ", delta = 0.2, kp = 1e4, kd = 1e5, error_unit = \"s\"".into(),
            _ => ", n = 3, delta = 0.2, eta = 0.95, kp = 1e4, kd = 1e5, error_unit = \"s\"".into(),
        };
        let text = fig6(100, "").replace(
            "variant = \"rcc\", n = 3, delta = 0.2, eta = 0.95, kp = 1e4, kd = 1e5, error_unit = \"s\"",
            &format!("variant = \"{variant}\"{keys}"),
        );
        assert!(text.contains(variant), "the scenario's cc line changed");
        let (w, _) = common::run(&text);
        w.flows()
            .iter()
            .map(|f| {
                f.sender
                    .completed_at()
                    .map_or(0.0, |t| t.as_secs_f64() * 1e5)
            })
            .collect()
    };
    let ideal_ms = [671.2, 585.9, 500.6, 390.9];
    let within = |f: &[f64]| {
        f.iter()
            .zip(ideal_ms)
            .all(|(f, i)| (f - i).abs() / i <= 0.01)
    };
    let (ewa, sender, pid) = (finish("rcc-ewa"), finish("rcc-sender"), finish("rcc-pid"));
    println!(
        "Fig. 6 at 1/100, finish (x100, ms): RCC-EWA {ewa:.1?}, RCC-sender {sender:.1?}, RCC-PID {pid:.1?}"
    );
    assert!(within(&ewa), "RCC-EWA {ewa:?}");
    assert!(within(&sender), "RCC-sender {sender:?}");
    assert!(!within(&pid), "RCC-PID kept the fair schedule: {pid:?}");
}

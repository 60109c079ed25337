//! Figures: every figure type renders, and every PNG and SVG decodes as an
//! image of the expected size.
use crate::common;
use std::path::Path;

const SIZE: (u32, u32) = dcnsim::plot::chart::SIZE;

/// Checks every figure under `dir/plots` and returns their stems.
fn check_figures(dir: &Path) -> Vec<String> {
    let plots = dir.join("plots");
    let mut stems = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&plots)
        .expect("plots folder")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    for f in files {
        match f.extension().and_then(|e| e.to_str()) {
            Some("png") => {
                let img = image::open(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
                assert_eq!((img.width(), img.height()), SIZE, "{}", f.display());
                // Something was drawn: not a blank canvas.
                let rgb = img.to_rgb8();
                let dark = rgb
                    .pixels()
                    .filter(|p| p.0.iter().all(|&c| c < 100))
                    .count();
                assert!(dark > 1000, "{}: {dark} dark pixels", f.display());
                stems.push(f.file_stem().expect("stem").to_string_lossy().into_owned());
            }
            Some("svg") => {
                let text = std::fs::read_to_string(&f).expect("svg");
                let head = &text[..text.find('>').expect("a root element")];
                assert!(head.contains("<svg"), "{}", f.display());
                assert!(head.contains(&format!("width=\"{}\"", SIZE.0)), "{head}");
                assert!(head.contains(&format!("height=\"{}\"", SIZE.1)), "{head}");
                assert!(text.trim_end().ends_with("</svg>"));
                assert!(text.contains("<text"), "{}: no text", f.display());
            }
            _ => {}
        }
    }
    for s in &stems {
        assert!(plots.join(format!("{s}.svg")).exists(), "{s}.svg");
    }
    stems
}

#[test]
fn a_run_draws_every_run_figure() {
    let dir = common::temp_dir("plots-run");
    let scenario = dir.join("plotted.toml");
    std::fs::write(
        &scenario,
        include_str!("scenarios/plots/a_run_draws_every_run_figure.toml"),
    )
    .expect("written");
    let out = dir.join("out");
    let run = common::run_cli(&[
        "run".to_string(),
        scenario.display().to_string(),
        "--out".into(),
        out.display().to_string(),
    ]);
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(said.contains("plots             5 figures"), "{said}");
    let stems = check_figures(&out);
    // No slowdown-by-size: every flow is 100 KB, one bin, one point.
    assert_eq!(
        stems,
        ["fct_cdf", "goodput", "ping_rtt_cdf", "queues", "rtt"]
    );
    // --no-plots draws nothing; `dcnsim plot` draws them after the fact.
    let bare = dir.join("bare");
    common::run_cli(&[
        "run".to_string(),
        scenario.display().to_string(),
        "--out".into(),
        bare.display().to_string(),
        "--no-plots".into(),
    ]);
    assert!(!bare.join("plots").exists());
    common::run_cli(&[
        "plot".to_string(),
        bare.display().to_string(),
        "--format".into(),
        "svg".into(),
    ]);
    assert!(bare.join("plots/queues.svg").exists());
    assert!(!bare.join("plots/queues.png").exists());
    std::fs::remove_dir_all(dir).expect("cleaned");
}

#[test]
fn a_sweep_draws_metric_and_size_figures_from_its_plot_tables() {
    let dir = common::temp_dir("plots-sweep");
    std::fs::write(
        dir.join("base.toml"),
        include_str!(
            "scenarios/plots/a_sweep_draws_metric_and_size_figures_from_its_plot_tables.toml"
        ),
    )
    .expect("written");
    let sweep = dir.join("s.toml");
    std::fs::write(
        &sweep,
        r#"
        [sweep]
        base = "base.toml"
        seeds = 2
        [sweep.grid]
        "workload[0].load" = [0.3, 0.6]
        [[sweep.case]]
        name = "DropTail"
        [[sweep.case]]
        name = "DCTCP"
        set = { "switch.aqm" = { kind = "step-ecn", k = "20pkt" }, "transport.cc" = "dctcp" }

        [[plot]]
        y = "fct_p99_us"
        log_y = true

        [[plot]]
        y = "workloads.1.rtt_us.p99"
        y_label = "ping RTT p99 (us)"
        name = "ping"

        [[plot]]
        kind = "slowdown-by-size"
        stat = "mean"

        [[plot]]
        kind = "fct-cdf"
        series = "workload[0].load"
        "#,
    )
    .expect("written");
    let out = dir.join("out");
    let run = common::run_cli(&[
        "sweep".to_string(),
        sweep.display().to_string(),
        "--out".into(),
        out.display().to_string(),
        "-j".into(),
        "2".into(),
    ]);
    let said = String::from_utf8_lossy(&run.stdout);
    println!("{said}");
    let stems = check_figures(&out);
    assert_eq!(
        stems,
        [
            "fct_cdf-1",
            "fct_cdf-2",
            "fct_p99_us-vs-workload_0__load",
            "ping",
            "slowdown_mean-by-size-1",
            "slowdown_mean-by-size-2"
        ]
    );
    // Size bins: every completed flow of a case falls in one bin, over
    // both seeds, and the bins are the same for both cases.
    let bins =
        std::fs::read_to_string(out.join("plots/slowdown_mean-by-size-1.csv")).expect("bins");
    println!("{bins}");
    let mut per_case: std::collections::BTreeMap<String, (u64, Vec<String>)> =
        std::collections::BTreeMap::new();
    for row in bins.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let e = per_case.entry(f[0].to_string()).or_default();
        e.0 += f[3].parse::<u64>().expect("count");
        e.1.push(f[1].to_string());
    }
    assert_eq!(per_case.len(), 2, "{bins}");
    let sweep_csv = std::fs::read_to_string(out.join("sweep.csv")).expect("table");
    let header: Vec<&str> = sweep_csv
        .lines()
        .next()
        .expect("header")
        .split(',')
        .collect();
    let at = |name: &str| header.iter().position(|h| *h == name).expect(name);
    for (case, (count, _)) in &per_case {
        // load 0.3 runs of this case: flows_completed summed over seeds.
        let (c, l, done) = (at("case"), at("workload[0].load"), at("flows_completed"));
        let want: u64 = sweep_csv
            .lines()
            .skip(1)
            .map(|r| r.split(',').collect::<Vec<_>>())
            .filter(|r| r[c] == case && r[l] == "0.3")
            .map(|r| r[done].parse::<u64>().expect("n"))
            .sum();
        assert_eq!(*count, want, "{case}: {bins}");
    }
    // Each row names the load its run offered, as its summary.json does.
    let (offered, syn, run_col) = (at("offered_load"), at("syn_retransmissions"), at("run"));
    for row in sweep_csv.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let summary: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.join("runs").join(f[run_col]).join("summary.json"))
                .expect("summary"),
        )
        .expect("json");
        let want = summary["loads"][0]["offered"].as_f64().expect("offered");
        let got = f[offered].parse::<f64>().expect("a number");
        assert!((got - want).abs() <= 1e-12 * want, "{row}: {want}");
        assert!(f[syn].parse::<u64>().is_ok(), "{row}");
    }
    let labels: Vec<&Vec<String>> = per_case.values().map(|v| &v.1).collect();
    assert!(labels[0].len() >= 5, "about ten bins: {bins}");
    // The panels of one [[plot]] sit side by side: the same size bins and
    // the same y ticks in both loads' slowdown figures, the same x ticks in
    // both FCT CDFs.
    let bins_of = |n: u32| -> Vec<String> {
        let text =
            std::fs::read_to_string(out.join(format!("plots/slowdown_mean-by-size-{n}.csv")))
                .expect("bins");
        let mut v: Vec<String> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(1).expect("bin").to_string())
            .collect();
        v.sort();
        v.dedup();
        v
    };
    assert_eq!(bins_of(1), bins_of(2));
    let svg =
        |name: &str| std::fs::read_to_string(out.join(format!("plots/{name}.svg"))).expect("svg");
    let y_ticks = |name: &str| svg_texts(&svg(name), "end");
    assert_eq!(
        y_ticks("slowdown_mean-by-size-1"),
        y_ticks("slowdown_mean-by-size-2")
    );
    assert!(y_ticks("slowdown_mean-by-size-1").len() >= 3);
    let x_ticks = |name: &str| -> Vec<String> {
        svg_texts(&svg(name), "middle")
            .into_iter()
            .filter(|t| !t.contains("CDF") && !t.contains("flow completion"))
            .collect()
    };
    assert_eq!(x_ticks("fct_cdf-1"), x_ticks("fct_cdf-2"));
    // The FCT CDF per load: a line per series, each ending at 1.
    let cdf = std::fs::read_to_string(out.join("plots/fct_cdf-1.csv")).expect("cdf");
    assert!(cdf.starts_with("series,fct_us,fraction\n"), "{cdf}");
    assert!(
        cdf.lines()
            .any(|l| l.starts_with("workload[0].load=0.6,") && l.ends_with(",1"))
    );
    // The numbers beside a figure: a row per case and load, over 2 seeds.
    let data = std::fs::read_to_string(out.join("plots/ping.csv")).expect("data");
    println!("{data}");
    let rows: Vec<&str> = data.lines().collect();
    assert_eq!(rows[0], "series,x,mean,min,max,n");
    assert_eq!(rows.len(), 1 + 2 * 2);
    assert!(
        rows[1].starts_with("DropTail,0.3,") && rows[1].ends_with(",2"),
        "{data}"
    );
    std::fs::remove_dir_all(dir).expect("cleaned");
}

/// Runs the sweep file `sweep` into `out`.
fn sweep_into(sweep: &Path, out: &Path) {
    common::run_cli(&[
        "sweep".to_string(),
        sweep.display().to_string(),
        "--out".into(),
        out.display().to_string(),
    ]);
}

/// The texts of an SVG figure anchored `anchor` (`end`: the y ticks;
/// `middle`: the title, the x label and the x ticks), in order.
fn svg_texts(svg: &str, anchor: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = svg.lines();
    while let Some(l) = lines.next() {
        if l.contains("<text") && l.contains(&format!("text-anchor=\"{anchor}\"")) {
            out.push(lines.next().unwrap_or_default().trim().to_string());
        }
    }
    out
}

#[test]
fn plot_refuses_a_folder_without_results() {
    let dir = common::temp_dir("plots-none");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args(["plot", &dir.display().to_string()])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("holds neither a run"), "{err}");
    std::fs::remove_dir_all(dir).expect("cleaned");
}

/// A sweep of cases without a grid axis gets its headline metrics by case:
/// the cases on x, markers without a joining line.
#[test]
fn a_sweep_of_cases_alone_gets_figures_by_case() {
    let dir = common::temp_dir("plots-cases");
    let sweep = dir.join("s.toml");
    std::fs::write(
        &sweep,
        format!(
            "[sweep]\nbase = \"{}\"\nseeds = 1\n\
             [[sweep.case]]\nname = \"DropTail\"\nset = {{ \"switch.aqm\" = {{ kind = \"droptail\" }}, \"transport.cc\" = \"newreno\" }}\n\
             [[sweep.case]]\nname = \"DCTCP\"\n",
            std::fs::canonicalize("scenarios/quickstart.toml")
                .expect("shipped")
                .display()
        ),
    )
    .expect("written");
    let out = dir.join("out");
    sweep_into(&sweep, &out);
    let stems = check_figures(&out);
    for stem in [
        "goodput_gbps-by-case",
        "fct_p99_us-by-case",
        "slowdown_p99-by-case",
    ] {
        assert!(stems.iter().any(|s| s == stem), "{stems:?}");
    }
    let svg = std::fs::read_to_string(out.join("plots/goodput_gbps-by-case.svg")).expect("svg");
    let middle = svg_texts(&svg, "middle");
    assert!(middle.contains(&"DropTail".to_string()) && middle.contains(&"DCTCP".to_string()));
    // The series' colour (the palette's first, #0072B2) on markers only.
    let lines_in_colour = svg
        .lines()
        .filter(|l| l.contains("<polyline") && l.contains("#0072B2"))
        .count();
    assert!(svg.contains("#0072B2"), "the markers are drawn");
    assert_eq!(lines_in_colour, 0, "no line joins the cases");
    std::fs::remove_dir_all(dir).expect("cleaned");
}

/// `kind = "over-time"`: one time series of several runs in one figure,
/// a line per case (DCQCN's rate beside HPCC's, the queue per case), each
/// the case's run with the lowest seed; a sweep whose runs did not write
/// the series is told which key writes it.
#[test]
fn over_time_plots_overlay_the_runs_of_a_sweep() {
    let dir = common::temp_dir("plots-over-time");
    let base = std::fs::canonicalize("scenarios/cc/incast-none.toml").expect("shipped");
    let sweep_text = |trace: &str| {
        format!(
            "[sweep]\nbase = \"{}\"\nseeds = 2\n[sweep.set]\n{trace}\n\
             [[sweep.case]]\nname = \"DCQCN\"\nset = {{ \"transport.cc\" = \"dcqcn\" }}\n\
             [[sweep.case]]\nname = \"HPCC\"\nset = {{ \"transport.cc\" = \"hpcc\" }}\n\
             [[plot]]\nkind = \"over-time\"\ny = \"cc_rate\"\n\
             [[plot]]\nkind = \"over-time\"\ny = \"queue\"\nname = \"q\"\n",
            base.display()
        )
    };
    let sweep = dir.join("s.toml");
    std::fs::write(
        &sweep,
        sweep_text(
            "\"output.cc_trace\" = { flows = [0], interval = \"5us\" }\n\"output.queue_interval\" = \"5us\"",
        ),
    )
    .expect("written");
    let out = dir.join("out");
    sweep_into(&sweep, &out);
    for name in ["cc_rate-over-time", "q"] {
        let data = std::fs::read_to_string(out.join(format!("plots/{name}.csv"))).expect("data");
        assert!(data.starts_with("series,time_us,value\n"), "{data}");
        let series: std::collections::BTreeSet<&str> = data
            .lines()
            .skip(1)
            .filter_map(|l| l.split(',').next())
            .collect();
        assert_eq!(
            series.into_iter().collect::<Vec<_>>(),
            ["DCQCN", "HPCC"],
            "{name}"
        );
        let svg = std::fs::read_to_string(out.join(format!("plots/{name}.svg"))).expect("svg");
        assert!(svg.contains("(seed 1)"), "the title names the seed");
    }
    // The rates differ: HPCC's controller is not DCQCN's.
    let data = std::fs::read_to_string(out.join("plots/cc_rate-over-time.csv")).expect("data");
    let mean = |case: &str| {
        let v: Vec<f64> = data
            .lines()
            .filter(|l| l.starts_with(&format!("{case},")))
            .map(|l| l.rsplit(',').next().expect("v").parse::<f64>().expect("n"))
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    assert!((mean("DCQCN") - mean("HPCC")).abs() > 1.0);
    // Without the trace, the plot names the key that writes it.
    let bare = dir.join("bare.toml");
    std::fs::write(&bare, sweep_text("\"output.queue_interval\" = \"5us\"")).expect("written");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args([
            "sweep",
            &bare.display().to_string(),
            "--out",
            &dir.join("bare").display().to_string(),
        ])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("output.cc_trace"), "{err}");
    std::fs::remove_dir_all(dir).expect("cleaned");
}

/// The event log's timelines: a figure per chosen port (its queue with
/// the marks, drops and PFC frames on it) and per chosen flow (sequence
/// over time with its retransmissions), each legend naming what is drawn
/// and nothing the log did not hold: the two ports logged carry flow 0's
/// data and none of its receiver's ACKs (its sender's own FIN ACK, which
/// leaves by the data's ports, was drawn as "ACKs leaving switch").
#[test]
fn an_event_log_draws_port_and_flow_timelines() {
    let dir = common::temp_dir("plots-timeline");
    let text = std::fs::read_to_string("scenarios/examples/capture-tcp.toml")
        .expect("shipped")
        .replace(
            "events = { flows = [0, 1] }",
            "events = { flows = [0], ports = [\"switch->host0\", \"host1->switch\"] }",
        );
    let scenario = dir.join("timeline.toml");
    std::fs::write(&scenario, text).expect("written");
    let out = dir.join("out");
    common::run_cli(&[
        "run".to_string(),
        scenario.display().to_string(),
        "--out".into(),
        out.display().to_string(),
    ]);
    let stems = check_figures(&out);
    assert_eq!(
        stems,
        [
            "fct_cdf",
            "timeline_flow_0",
            "timeline_port_host1-switch",
            "timeline_port_switch-host0"
        ]
    );
    let svg =
        |stem: &str| std::fs::read_to_string(out.join(format!("plots/{stem}.svg"))).expect("svg");
    // The legend's names (anchored at their start).
    let legend = |stem: &str| svg_texts(&svg(stem), "start");
    assert_eq!(
        legend("timeline_port_switch-host0"),
        ["queue", "CE mark", "drop: overflow"]
    );
    let flow = legend("timeline_flow_0");
    assert!(
        !flow.iter().any(|t| t.starts_with("ACKs")),
        "no ACK stream was logged: {flow:?}"
    );
    for name in [
        "data leaving host1",
        "retransmission",
        "data dropped",
        "CE mark",
    ] {
        assert!(
            flow.iter().any(|t| t == name),
            "flow timeline lacks {name}: {flow:?}"
        );
    }
    std::fs::remove_dir_all(dir).expect("cleaned");
}

/// Issue 58: a run of two collective jobs draws each job's timeline but no
/// "slowdown by size" (the transfers' sizes are the jobs' pieces, not a
/// distribution: it drew a two-bin trend of the two jobs).
#[test]
fn collective_jobs_draw_timelines_and_no_size_trend() {
    let dir = common::temp_dir("plots-two-jobs");
    let out = dir.join("run");
    common::run_cli(&[
        "run",
        "scenarios/ai-fabric/two-jobs-k8.toml",
        "--set",
        "workload[*].iterations=1",
        "--set",
        "workload[0].size=1MB",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let stems = check_figures(&out);
    assert!(
        stems.contains(&"collective_timeline_0".to_string())
            && stems.contains(&"collective_timeline_1".to_string()),
        "{stems:?}"
    );
    assert!(
        !stems.contains(&"slowdown_by_size".to_string()),
        "{stems:?}"
    );
    std::fs::remove_dir_all(dir).ok();
}

/// A sweep's `bound` that differs between cases (two algorithms) is one
/// line per case, named for it and drawn in its colour; one shared by
/// every case (one collective under two path choices) stays one grey
/// `bound`.
#[test]
fn a_bound_that_differs_between_cases_is_drawn_per_case() {
    let dir = crate::common::temp_dir("bound");
    let base = std::fs::read_to_string("scenarios/ai-training/nccl-allreduce.toml").expect("read");
    std::fs::write(dir.join("base.toml"), base).expect("written");
    let sweep = "[sweep]\nbase = \"base.toml\"\nseeds = 1\n\
        [sweep.grid]\n\"workload[0].size\" = [\"16B\", \"16KB\"]\n\
        [[sweep.case]]\nname = \"ring\"\n\
        [[sweep.case]]\nname = \"tree\"\nset = { \"workload[0].algorithm\" = \"tree\" }\n\
        [[plot]]\ny = \"jobs.0.collectives.0.busbw_gbps.mean\"\n\
        bound = \"jobs.0.collectives.0.busbw_bound_gbps\"\nname = \"busbw\"\n\
        [[plot]]\ny = \"jobs.0.collectives.0.cct_us.mean\"\n\
        bound = \"jobs.0.collectives.0.size_bytes\"\nname = \"same\"\n";
    std::fs::write(dir.join("sweep.toml"), sweep).expect("written");
    let out = dir.join("out");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args(["sweep", "sweep.toml", "--out", "out", "--no-plots"])
        .current_dir(&dir)
        .status()
        .expect("runs");
    assert!(status.success());
    let figures = dcnsim::plot::sweep::figures(&out).expect("figures");
    let refs = |name: &str| -> Vec<String> {
        let f = figures.iter().find(|f| f.name == name).expect(name);
        f.chart.references.iter().map(|r| r.name.clone()).collect()
    };
    assert_eq!(refs("busbw"), ["bound: ring", "bound: tree"]);
    assert_eq!(refs("same"), ["bound"]);
    let _ = std::fs::remove_dir_all(&dir);
}

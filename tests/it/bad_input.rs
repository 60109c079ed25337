//! Bad scenarios get clear errors naming the file, the line, the key and
//! the valid choices.
use dcnsim::scenario::{ScenarioError, parse_str};

const GOOD: &str = include_str!("scenarios/bad_input/good.toml");

fn err(text: &str) -> ScenarioError {
    match parse_str("bad.toml", text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .expect("needle")
        + 1
}

#[test]
fn the_good_scenario_parses() {
    assert!(parse_str("good.toml", GOOD).is_ok());
}

#[test]
fn unknown_key_is_named_with_its_line_and_the_valid_keys() {
    let text = GOOD.replace("hosts = 4", "hosts = 4\nlink_speed = \"10Gbps\"");
    let e = err(&text);
    let s = e.to_string();
    assert_eq!(e.line, line_of(&text, "link_speed"), "{s}");
    assert!(s.starts_with("bad.toml:"), "{s}");
    assert!(s.contains("link_speed") && s.contains("link_rate"), "{s}");
}

#[test]
fn unknown_top_level_table_lists_the_tables() {
    let e = err(&format!("{GOOD}\n[simulaton]\nseed = 1\n"));
    let s = e.to_string();
    assert!(s.contains("simulaton") && s.contains("simulation"), "{s}");
}

#[test]
fn unknown_kind_lists_the_kinds() {
    let text = GOOD.replace("kind = \"incast\"", "kind = \"incest\"");
    let e = err(&text);
    let s = e.to_string();
    assert_eq!(e.line, line_of(&text, "incest"));
    assert_eq!(e.key, "workload[0].kind");
    assert!(
        s.contains("\"incast\"")
            && s.contains("\"long-flows\"")
            && s.contains("\"poisson-packets\""),
        "{s}"
    );
    let e = err(&GOOD.replace("kind = \"star\"", "kind = \"ring\""));
    assert!(e.to_string().contains("\"star\", \"dumbbell\""), "{e}");
    let e = err(&format!("{GOOD}\n[switch.aqm]\nkind = \"no-such-aqm\"\n"));
    assert!(e.to_string().contains("\"droptail\", \"step-ecn\""), "{e}");
}

#[test]
fn negative_and_zero_rates_are_refused() {
    let text = GOOD.replace("\"10Gbps\"", "\"-10Gbps\"");
    let e = err(&text);
    assert_eq!(e.line, line_of(&text, "-10Gbps"));
    assert!(e.to_string().contains("negative"), "{e}");
    assert_eq!(e.key, "topology.link_rate");
    let text = GOOD.replace("\"10Gbps\"", "\"0Gbps\"");
    let e = err(&text);
    assert_eq!(e.line, line_of(&text, "0Gbps"));
    assert!(e.to_string().contains("greater than zero"), "{e}");
}

#[test]
fn missing_host_is_named_with_the_valid_range() {
    let text = GOOD.replace("senders = [1, 2, 3]", "senders = [1, 2, 7]");
    let e = err(&text);
    let s = e.to_string();
    assert_eq!(e.line, line_of(&text, "senders"));
    assert_eq!(e.key, "workload[0].senders");
    assert!(
        s.contains("host 7 does not exist") && s.contains("0 to 3"),
        "{s}"
    );
    let text = GOOD.replace("receiver = 0", "receiver = 4");
    assert_eq!(err(&text).line, line_of(&text, "receiver"));
}

#[test]
fn unit_that_does_not_parse_lists_the_units() {
    let text = GOOD.replace("\"1us\"", "\"1 fortnight\"");
    let e = err(&text);
    let s = e.to_string();
    assert_eq!(e.line, line_of(&text, "fortnight"));
    assert!(s.contains("ps, ns, us, ms, s"), "{s}");
    let e = err(&GOOD.replace("\"100pkt\"", "\"100 packets\""));
    assert!(e.to_string().contains("pkt, B, KB"), "{e}");
    let e = err(&GOOD.replace("\"1MB\"", "\"1Mb\""));
    assert!(e.to_string().contains("B, KB, MB"), "{e}");
}

#[test]
fn unbounded_runs_need_a_stop_time() {
    let text = format!("{GOOD}\n[[workload]]\nkind = \"long-flows\"\npairs = [[1, 0]]\n");
    let e = err(&text);
    assert!(e.to_string().contains("stop_time"), "{e}");
    let ok = format!("[simulation]\nstop_time = \"1ms\"\n{text}");
    assert!(parse_str("ok.toml", &ok).is_ok());
}

#[test]
fn transport_ranges_are_checked() {
    let e = err(&format!(
        "{GOOD}\n[transport]\nrto_min = \"2s\"\nrto_max = \"1s\"\n"
    ));
    assert_eq!(e.key, "transport.rto_min");
    assert!(e.line > 0, "{e}");
    // A name no registry will ever hold (a real controller, such as Vegas,
    // may be added one day).
    let e = err(&format!("{GOOD}\n[transport]\ncc = \"no-such-cc\"\n"));
    assert!(
        e.to_string().contains("newreno") && e.to_string().contains("dctcp"),
        "{e}"
    );
}

#[test]
fn syntax_errors_carry_the_line() {
    let e = err("[topology\nkind = 1\n");
    assert_eq!(e.line, 1, "{e}");
}

#[test]
fn cli_reports_errors_without_panicking() {
    let dir = std::env::temp_dir().join(format!("dcnsim-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.toml");
    std::fs::write(&f, GOOD.replace("\"1us\"", "\"1 fortnight\"")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args(["run"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.toml:5:") && err.contains("topology.link_delay"),
        "{err}"
    );
    assert!(!err.contains("panicked"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn stop_before_start_is_refused() {
    let text = format!(
        "{GOOD}\n[[workload]]\nkind = \"long-flows\"\npairs = [[1, 0]]\nstart = \"2ms\"\nstop = \"1ms\"\n"
    );
    let e = err(&text);
    assert_eq!(e.key, "workload[1].stop");
    assert_eq!(e.line, line_of(&text, "stop = "));
}

#[test]
fn unknown_ingress_plugin_lists_the_plugins() {
    let text = format!("{GOOD}\n[switch.ingress]\nkind = \"r_aqm\"\n");
    let e = err(&text);
    let s = e.to_string();
    assert_eq!(e.line, line_of(&text, "r_aqm"), "{s}");
    assert!(s.contains("switch.ingress.kind"), "{s}");
    for k in ["none", "r-aqm", "abq", "fairq", "hscc"] {
        assert!(s.contains(k), "{s}");
    }
}

#[test]
fn ingress_plugin_keys_are_checked_with_their_line() {
    let text = format!(
        "{GOOD}\n[switch.ingress]\nkind = \"r-aqm\"\nk_min = \"50pkt\"\nk_max = \"40pkt\"\n"
    );
    let e = err(&text);
    let s = e.to_string();
    assert_eq!(e.line, line_of(&text, "k_max"), "{s}");
    assert!(
        s.contains("switch.ingress.k_max") && s.contains("k_min"),
        "{s}"
    );
    let text = format!("{GOOD}\n[switch.ingress]\nkind = \"fairq\"\nalpha = 1.5\n");
    let s = err(&text).to_string();
    assert!(
        s.contains("switch.ingress.alpha") && s.contains("(0, 1]"),
        "{s}"
    );
    let text = format!("{GOOD}\n[switch.ingress]\nkind = \"hscc\"\nthreshold = \"65pkt\"\n");
    let s = err(&text).to_string();
    assert!(s.contains("threshold") && s.contains("mss"), "{s}");
}

/// ABQ's Q_max defaults to the port buffer; a K in another unit is an
/// error that says so, not a silent conversion.
#[test]
fn abq_units_must_match_the_buffer() {
    let text = GOOD.replace("buffer = \"100pkt\"", "buffer = \"150KB\"")
        + "\n[switch.ingress]\nkind = \"abq\"\n";
    let s = err(&text).to_string();
    assert!(s.contains("switch.ingress.k") && s.contains("q_max"), "{s}");
    let ok = GOOD.replace("buffer = \"100pkt\"", "buffer = \"150KB\"")
        + "\n[switch.ingress]\nkind = \"abq\"\nk = \"30KB\"\n";
    assert!(parse_str("ok.toml", &ok).is_ok());
}

/// A reader that went away (`dcnsim list | head -1`) ends the program
/// quietly with success, not with a panic about a broken pipe.
#[test]
fn a_closed_stdout_is_not_a_panic() {
    use std::process::Command;
    // A pipe whose reading end is closed before dcnsim writes a byte.
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    for args in [
        &["list"][..],
        &["validate", "scenarios/quickstart.toml"][..],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_dcnsim"))
            .args(args)
            .stdout(writer.try_clone().expect("the pipe"))
            .output()
            .expect("dcnsim runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {:?}: {err}", out.status);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

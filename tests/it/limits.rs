//! A limit on everything: inputs that once wrapped, allocated without
//! bound, spun or reported nonsense are refused with a message that names
//! the key, the value and the limit. Each case runs the real binary under a
//! memory and a time bound, so a regression that aborts or hangs fails here
//! instead of taking the test run down.
use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const STAR: &str =
    "[topology]\nkind = \"star\"\nhosts = 4\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n";
const SWITCH: &str = "[switch]\nbuffer = \"100pkt\"\n";
const INCAST: &str =
    "[[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = [1, 2, 3]\nsize = \"1MB\"\n";

/// Runs `dcnsim <args>` with at most 1 GiB of address space and 20 s;
/// returns (exit success, stderr). Panics if it hangs or dies by a signal.
fn bounded(args: &[&str]) -> (bool, String) {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_dcnsim"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dcnsim starts");
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if t0.elapsed() > Duration::from_secs(20) {
            child.kill().ok();
            panic!("dcnsim {args:?} hung for 20 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut err).ok();
    assert!(
        status.code().is_some(),
        "dcnsim {args:?} died by a signal:\n{err}"
    );
    assert!(
        !err.contains("panicked"),
        "dcnsim {args:?} panicked:\n{err}"
    );
    (status.success(), err)
}

#[test]
fn bad_inputs_are_refused_within_bounds() {
    let dir = crate::common::temp_dir("limits");
    // (name, scenario text, command, expected error substring)
    let cases: Vec<(&str, String, &str, &str)> = vec![
        (
            "fat-tree host count wraps 32 bits",
            format!(
                "[topology]\nkind = \"fat-tree\"\npods = 65536\ntors_per_pod = 65536\nhosts_per_tor = 65536\nhost_rate = \"10Gbps\"\nfabric_rate = \"40Gbps\"\nlink_delay = \"1us\"\n{SWITCH}"
            ),
            "validate",
            "a topology may have at most 4194304 nodes",
        ),
        (
            "dumbbell host count wraps 32 bits",
            format!(
                "[topology]\nkind = \"dumbbell\"\nleft = 4294967295\nright = 4294967295\nhost_rate = \"10Gbps\"\nhost_delay = \"1us\"\nbottleneck_rate = \"10Gbps\"\nbottleneck_delay = \"1us\"\n{SWITCH}"
            ),
            "validate",
            "8589934590 hosts and 2 switches: a topology may have at most 4194304 nodes",
        ),
        (
            "leaf-spine host count",
            format!(
                "[topology]\nkind = \"leaf-spine\"\nleaves = 100000\nspines = 4\nhosts_per_leaf = 100000\nhost_rate = \"10Gbps\"\nfabric_rate = \"40Gbps\"\nlink_delay = \"1us\"\n{SWITCH}"
            ),
            "validate",
            "at most 4194304 nodes",
        ),
        (
            "k-ary fat-tree k^3 overflows",
            format!(
                "[topology]\nkind = \"k-ary-fat-tree\"\nk = 4294967294\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n{SWITCH}"
            ),
            "validate",
            "key `topology.k`",
        ),
        (
            "a huge sender range is checked before it is expanded",
            format!(
                "{STAR}{SWITCH}{}",
                INCAST.replace("[1, 2, 3]", "\"1-4294967295\"")
            ),
            "validate",
            "host 4294967295 does not exist",
        ),
        (
            "a pair has exactly two hosts",
            format!(
                "{STAR}{SWITCH}[simulation]\nstop_time = \"1ms\"\n[[workload]]\nkind = \"long-flows\"\npairs = [[0, 1, 2]]\n"
            ),
            "validate",
            "key `workload[0].pairs[0]`: [0, 1, 2] has 3 hosts: a pair is [src, dst]",
        ),
        (
            "a zero buffer",
            format!("{STAR}[switch]\nbuffer = \"0pkt\"\n{INCAST}"),
            "validate",
            "key `switch.buffer`: must hold at least one full packet",
        ),
        (
            "a zero NIC buffer",
            format!("{STAR}nic_buffer = \"0B\"\n{SWITCH}{INCAST}"),
            "validate",
            "key `topology.nic_buffer`: must hold at least one full packet",
        ),
        (
            "a picosecond RTO",
            format!(
                "{STAR}{SWITCH}{INCAST}[transport]\nrto_min = \"1ps\"\nrto_initial = \"1ps\"\n"
            ),
            "validate",
            "key `transport.rto_min`: must be at least 1us",
        ),
        (
            "stop_time beyond the representable end",
            format!("[simulation]\nstop_time = \"300000000s\"\n{STAR}{SWITCH}{INCAST}"),
            "validate",
            "key `simulation.stop_time`: '300000000s' is too large: the largest is 18446744073709551615 picoseconds",
        ),
        (
            "an empty output folder",
            format!("{STAR}{SWITCH}{INCAST}[output]\ndir = \"\"\n"),
            "validate",
            "key `output.dir`: must name a folder",
        ),
        (
            "a fat-tree whose routing table outgrows any machine",
            format!(
                "[topology]\nkind = \"k-ary-fat-tree\"\nk = 160\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n{SWITCH}{INCAST}"
            ),
            "run",
            "for 32000 switches x 12800 edge switches",
        ),
        (
            "a run above --max-memory",
            format!("{STAR}{SWITCH}{INCAST}"),
            "run --max-memory 100KB",
            "above the memory limit of 97.7 KiB (set by --max-memory)",
        ),
        (
            "a --max-memory without a unit",
            format!("{STAR}{SWITCH}{INCAST}"),
            "run --max-memory 12",
            "'12' has unknown unit '' for a size: valid units are",
        ),
    ];
    for (i, (name, text, cmd, want)) in cases.iter().enumerate() {
        let path = dir.join(format!("case{i}.toml"));
        std::fs::File::create(&path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .expect("scenario written");
        let out = dir.join(format!("out{i}"));
        let p = path.to_string_lossy().to_string();
        let o = out.to_string_lossy().to_string();
        let mut words = cmd.split(' ');
        let mut args: Vec<&str> = match words.next() {
            Some("run") => vec!["run", &p, "--out", &o],
            _ => vec!["validate", &p],
        };
        args.extend(words);
        let (ok, err) = bounded(&args);
        assert!(!ok, "{name}: accepted");
        assert!(err.contains(want), "{name}: expected `{want}` in:\n{err}");
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_run_that_cannot_finish_never_reports_completed() {
    // The smallest legal nic_buffer holds one full packet: flows complete.
    let text = format!("{}nic_buffer = \"1500B\"\n{SWITCH}{INCAST}", STAR);
    let (_, s) = crate::common::run(&text);
    assert_eq!(s.stop_reason, "completed");
    // A switch that drops every data packet: the senders back off to
    // rto_max forever, until simulated time runs out. The run says so.
    let text = format!(
        "{STAR}[switch]\nbuffer = \"1pkt\"\n[switch.aqm]\nkind = \"red\"\nk_min = \"0pkt\"\nk_max = \"0pkt\"\np_max = 1.0\necn = false\n{INCAST}"
    );
    // Nothing is ever delivered: the progress watch ends the run as
    // stalled after each sender's 8th timeout (issue 56; it ran on to the
    // end of representable time before).
    let (w, s) = crate::common::run(&text);
    assert_eq!(w.unfinished_flows(), 3);
    assert_eq!(s.stop_reason, "stalled", "{s:?}");
    assert!(s.simulated_time_us < 600e6, "{}", s.simulated_time_us);
    // A 1 bps link sends a SYN in 8 minutes: the same, and the report
    // says what the link does to a packet.
    let text = format!("{}{SWITCH}{INCAST}", STAR.replace("10Gbps", "1bps"));
    let (w, s) = crate::common::run(&text);
    assert_eq!(s.stop_reason, "stalled", "{s:?}");
    let why = w.stall_detail().expect("a report");
    assert!(why.contains("its link at 1bps takes 12000s"), "{why}");
}

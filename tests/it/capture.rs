//! pcap captures and the packet event log (`[output] pcap`, `events`):
//! read back by an independent pcap reader, counted against ports.csv and
//! flows.csv, harmless to every result, refused with a clear error when
//! they name what does not exist. (CI decodes the same captures with
//! tshark: scripts/pcap-tshark-check.sh.)
use crate::common;
use transport::SenderEnd;

use dcnsim::scenario::{EventsConfig, OutputConfig, parse_str};
use dcnsim::world::World;
use pcap_file::pcap::PcapReader;
use std::collections::HashMap;

const TCP: &str = "scenarios/examples/capture-tcp.toml";

/// A column of a CSV text by name, per row.
fn column<'a>(csv: &'a str, name: &str) -> Vec<&'a str> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let i = header.iter().position(|h| *h == name).expect("column");
    lines.map(|l| l.split(',').nth(i).expect("cell")).collect()
}

/// ports.csv's `col` of the port named `name` (its class-all row).
fn port_stat(ports_csv: &str, name: &str, col: &str) -> u64 {
    let names = column(ports_csv, "name");
    let classes = column(ports_csv, "class");
    let values = column(ports_csv, col);
    let row = (0..names.len())
        .find(|&r| names[r] == name && classes[r] == "all")
        .expect("the port's row");
    values[row].parse().expect("a count")
}

#[test]
fn a_capture_reads_back_through_an_independent_pcap_reader() {
    let out = common::temp_dir("capture-read");
    common::run_cli(&[
        "run",
        TCP,
        "--out",
        out.to_str().expect("utf-8"),
        "--no-plots",
    ]);
    let ports = std::fs::read_to_string(out.join("ports.csv")).expect("ports.csv");
    let file = std::fs::File::open(out.join("pcap-switch-host0.pcap")).expect("the capture");
    let mut reader = PcapReader::new(file).expect("a pcap file");
    let header = reader.header();
    assert_eq!(header.ts_resolution, pcap_file::TsResolution::NanoSecond);
    assert_eq!(header.datalink, pcap_file::DataLink::ETHERNET);
    let (mut frames, mut ce, mut last) = (0u64, 0u64, std::time::Duration::ZERO);
    while let Some(pkt) = reader.next_packet() {
        let pkt = pkt.expect("a whole record");
        assert!(pkt.timestamp >= last, "records in time order");
        last = pkt.timestamp;
        let d = &pkt.data;
        assert_eq!(&d[12..14], &[0x08, 0x00], "IPv4");
        let ip_len = u16::from_be_bytes([d[16], d[17]]) as u32;
        assert_eq!(pkt.orig_len, (14 + ip_len).max(60), "the frame's length");
        assert_eq!(d.len() as u32, pkt.orig_len, "whole frames by default");
        assert_eq!(d[23], 6, "TCP");
        assert_eq!(&d[30..33], &[10, 0, 0], "to host 0's 10.0.0.0");
        assert_eq!(d[33], 0);
        ce += (d[15] & 3 == 3) as u64;
        frames += 1;
    }
    assert_eq!(frames, port_stat(&ports, "switch->host0", "tx_packets"));
    assert_eq!(ce, port_stat(&ports, "switch->host0", "ecn_marks"));
    assert!(
        ce > 0 && port_stat(&ports, "switch->host0", "drops") > 0,
        "a run that marks and drops"
    );
    std::fs::remove_dir_all(&out).ok();
}

/// Runs `text` with everything logged (or nothing), returning the world
/// and the event log's text.
fn run_logged(text: &str, log: bool) -> (World, String) {
    // Tests run in parallel: each run its own folder.
    static RUNS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut sc = parse_str("capture.toml", text).unwrap_or_else(|e| panic!("{e}"));
    sc.output = OutputConfig {
        events: log.then_some(EventsConfig {
            flows: None,
            ports: None,
            kinds: None,
        }),
        pcap: None,
        ..sc.output
    };
    let dir = common::temp_dir(&format!("events-{n}"));
    let mut w = World::build(&sc, sc.simulation.seed).expect("builds");
    dcnsim::observe::attach(&mut w, &sc.output, &mut |n| {
        std::fs::File::create(dir.join(n))
    })
    .expect("files");
    w.run();
    dcnsim::observe::finish(&mut w).expect("written");
    let events = std::fs::read_to_string(dir.join("events.csv")).unwrap_or_default();
    std::fs::remove_dir_all(&dir).ok();
    (w, events)
}

#[test]
fn the_event_log_counts_what_ports_csv_and_flows_csv_count() {
    let text = std::fs::read_to_string(TCP).expect("shipped");
    let (w, events) = run_logged(&text, true);
    let mut by_port: HashMap<(String, String), u64> = HashMap::new();
    let (ev, port) = (column(&events, "event"), column(&events, "port"));
    for (e, p) in ev.iter().zip(&port) {
        *by_port.entry((e.to_string(), p.to_string())).or_default() += 1;
    }
    let n = |e: &str, p: &str| by_port.get(&(e.into(), p.into())).copied().unwrap_or(0);
    for (i, p) in w.fabric().ports().values().enumerate() {
        let name = w.port_name(net::PortId(i as u32));
        assert_eq!(n("dequeue", &name), p.stats.tx_packets, "{name} departures");
        assert_eq!(n("drop", &name), p.stats.drops(), "{name} drops");
        assert_eq!(n("mark", &name), p.stats.ecn_marks, "{name} marks");
        // Every packet that joined the queue left it or is still there.
        assert_eq!(
            n("enqueue", &name),
            n("dequeue", &name) + p.packets,
            "{name}"
        );
    }
    let resent: u64 = w
        .flows()
        .iter()
        .map(|f| f.sender.record().counters.retransmits)
        .sum();
    assert_eq!(
        ev.iter().filter(|e| **e == "retransmit").count() as u64,
        resent
    );
    assert!(resent > 0);
    // Each drop names its cause; the queue column is the port's after it.
    let detail = column(&events, "detail");
    assert!(
        ev.iter()
            .zip(&detail)
            .all(|(e, d)| (*e == "drop") == (*d == "overflow"))
    );
}

#[test]
fn the_event_log_counts_every_pfc_frame_that_pfc_csv_counts() {
    let text = std::fs::read_to_string("scenarios/pfc/incast-lossless.toml").expect("shipped");
    let (w, events) = run_logged(&text, true);
    let ev = column(&events, "event");
    let (port, detail) = (column(&events, "port"), column(&events, "detail"));
    let mut frames = 0;
    for (i, p) in w.fabric().ports().values().enumerate() {
        let Some(st) = p.pfc.as_deref() else { continue };
        let name = w.port_name(net::PortId(i as u32));
        for q in 0..8 {
            let logged = |kind: &str| {
                (0..ev.len())
                    .filter(|&r| {
                        ev[r] == kind && port[r] == name && detail[r] == format!("priority {q}")
                    })
                    .count() as u64
            };
            let s = &st.stats;
            assert_eq!(logged("pause_sent"), s.pauses_sent[q], "{name} {q}");
            assert_eq!(logged("resume_sent"), s.resumes_sent[q], "{name} {q}");
            assert_eq!(logged("pause_received"), s.pauses_received[q], "{name} {q}");
            assert_eq!(
                logged("resume_received"),
                s.resumes_received[q],
                "{name} {q}"
            );
            frames += s.pauses_sent[q];
        }
    }
    assert!(frames > 0, "a run that pauses");
}

#[test]
fn observing_a_run_changes_none_of_its_results() {
    let text = std::fs::read_to_string(TCP).expect("shipped");
    let (on, events) = run_logged(&text, true);
    let (off, none) = (run_logged(&text, false).0, String::new());
    assert!(!events.is_empty());
    assert_eq!(none, "");
    assert_eq!(
        dcnsim::report::flows_csv(&on.run_record()),
        dcnsim::report::flows_csv(&off.run_record())
    );
    assert_eq!(
        dcnsim::report::ports_csv(&on.run_record()),
        dcnsim::report::ports_csv(&off.run_record())
    );
    assert_eq!(on.now(), off.now());
}

#[test]
fn the_filters_keep_only_the_chosen_flows_ports_and_kinds() {
    let text = std::fs::read_to_string(TCP).expect("shipped").replace(
        "events = { flows = [0, 1] }",
        "events = { flows = [1], ports = [\"switch->host0\", \"host2->switch\"], kinds = [\"dequeue\", \"retransmit\"] }",
    );
    let out = common::temp_dir("capture-filter");
    let file = out.join("filtered.toml");
    std::fs::write(&file, &text).expect("written");
    let dir = out.join("run");
    let run = std::ffi::OsStr::new("run");
    common::run_cli(&[
        run,
        file.as_os_str(),
        "--out".as_ref(),
        dir.as_os_str(),
        "--no-plots".as_ref(),
    ]);
    let events = std::fs::read_to_string(dir.join("events.csv")).expect("events.csv");
    let rows = column(&events, "flow").len();
    assert!(rows > 0);
    assert!(column(&events, "flow").iter().all(|f| *f == "1"));
    assert!(
        column(&events, "port")
            .iter()
            .all(|p| *p == "switch->host0" || *p == "host2->switch")
    );
    assert!(
        column(&events, "event")
            .iter()
            .all(|e| *e == "dequeue" || *e == "retransmit")
    );
    assert!(column(&events, "event").contains(&"retransmit"));
    std::fs::remove_dir_all(&out).ok();
}

fn load_error(output: &str) -> String {
    let text = format!(
        "[topology]\nkind = \"star\"\nhosts = 3\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n[switch]\nbuffer = \"100pkt\"\n\
         [[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = [1, 2]\nsize = \"10KB\"\n\
         [output]\n{output}\n"
    );
    match parse_str("bad.toml", &text) {
        Ok(_) => panic!("accepted: {output}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_capture_or_log_of_what_does_not_exist_is_refused_with_the_valid_names() {
    let e = load_error("pcap = { ports = [\"switch->host9\"] }");
    assert!(
        e.contains("output.pcap.ports[0]") && e.contains("host9") && e.contains("host0"),
        "{e}"
    );
    let e = load_error("pcap = { ports = [\"host1->host2\"] }");
    assert!(e.contains("not linked") && e.contains("->"), "{e}");
    let e = load_error("pcap = { ports = [\"switch\"] }");
    assert!(e.contains("not a port") && e.contains("ports.csv"), "{e}");
    let e = load_error("pcap = { ports = [] }");
    assert!(e.contains("output.pcap.ports"), "{e}");
    let e = load_error("pcap = { ports = [\"switch->host0\"], snaplen = 10 }");
    assert!(e.contains("output.pcap.snaplen") && e.contains("64"), "{e}");
    let e = load_error("events = { flows = [7] }");
    assert!(
        e.contains("output.events.flows") && e.contains("flow 7"),
        "{e}"
    );
    let e = load_error("events = { kinds = [\"teleport\"] }");
    assert!(e.contains("teleport") && e.contains("retransmit"), "{e}");
    let e = load_error("events = { kinds = [] }");
    assert!(e.contains("output.events.kinds"), "{e}");
    let e = load_error("events = { ports = [\"switch->host0\", \"switch->host0\"] }");
    assert!(e.contains("named twice"), "{e}");
}

#[test]
fn every_event_kind_is_documented_and_listed_in_its_column() {
    let docs = std::fs::read_to_string("docs/outputs.md").expect("docs");
    let col = dcnsim::report::columns::EVENTS
        .columns
        .iter()
        .find(|c| c.name == "event")
        .expect("event column");
    for k in dcnsim::observe::EventKind::ALL {
        assert!(
            docs.contains(&format!("`{}`", k.name())),
            "docs/outputs.md lacks `{}`",
            k.name()
        );
        assert!(
            col.meaning.contains(k.name()),
            "the event column lacks {}",
            k.name()
        );
    }
}

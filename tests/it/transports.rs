//! Transports per workload (issue 10): named `[transport.NAME]` tables, a
//! workload's `transport = "NAME"`, and the mixed DCTCP/NewReno incast of
//! R-AQM paper VI-D Fig. 11 reported per transport.
use crate::common;

use dcnsim::scenario::parse_str;

/// The shipped mixed scenario with 3.2 MB flows instead of 32 MB (the
/// paper's 100-to-1 size), so that the test stays short.
fn mixed() -> String {
    std::fs::read_to_string("scenarios/r-aqm/mixed-dctcp-newreno.toml")
        .expect("scenario")
        .replace("size = \"32MB\"", "size = \"3.2MB\"")
}

#[test]
fn a_mixed_dctcp_newreno_incast_reports_each_transport() {
    let text = mixed();
    let (w, s) = common::run(&text);
    assert_eq!(s.flows.completed, 10);
    let [dctcp, reno] = &s.transports[..] else {
        panic!("two transports: {:?}", s.transports)
    };
    for t in [dctcp, reno] {
        println!(
            "{} ({}): {}/{} flows, {:.3} Gb/s, Jain {:.4}, mean FCT {:.0} us",
            t.name,
            t.cc,
            t.completed,
            t.flows,
            t.goodput_gbps.expect("ran"),
            t.jain_index.expect("ran"),
            t.fct_us.mean.expect("completed")
        );
        assert_eq!((t.flows, t.completed), (5, 5), "{}", t.name);
        assert!(t.jain_index.expect("ran") > 0.9, "{}", t.name);
    }
    assert_eq!((dctcp.name.as_str(), dctcp.cc), ("dctcp", "dctcp"));
    assert_eq!((reno.name.as_str(), reno.cc), ("reno", "newreno"));
    // NewReno fills the buffer past DCTCP's marking threshold and takes
    // the larger share (the gap Fig. 11 shows without R-AQM).
    assert!(reno.goodput_gbps > dctcp.goodput_gbps);
    // Only DCTCP's packets are ECN-capable; only its flows cut on marks.
    let csv = dcnsim::report::flows_csv(&w.run_record());
    for line in csv.lines().skip(1) {
        let cols: Vec<&str> = line.split(',').collect();
        let header = dcnsim::report::columns::FLOWS;
        let at = |name: &str| header.index(name).expect("a column");
        let (ecn_cuts, transport) = (cols[at("ecn_reductions")], cols[at("transport")]);
        match transport {
            "dctcp" => assert_ne!(ecn_cuts, "0", "{line}"),
            "reno" => assert_eq!(ecn_cuts, "0", "{line}"),
            other => panic!("transport {other}"),
        }
    }
    // The same run again is byte-identical.
    let (w2, s2) = common::run(&text);
    assert_eq!(csv, dcnsim::report::flows_csv(&w2.run_record()));
    assert_eq!(
        serde_json::to_string(&s).expect("json"),
        serde_json::to_string(&s2).expect("json")
    );
}

const BASE: &str = include_str!("scenarios/transports/base.toml");

#[test]
fn a_workload_names_its_transport_and_bad_names_are_errors() {
    let named = format!(
        "{BASE}[transport.fast]\ncc = \"dctcp\"\n[transport.slow]\ncc = \"newreno\"\n\
         [[workload]]\nkind = \"incast\"\ntransport = \"slow\"\nreceiver = 0\nsenders = [1]\nsize = \"10KB\"\n"
    );
    let sc = parse_str("t.toml", &named).expect("valid");
    let names: Vec<&str> = sc.transports.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["fast", "slow"]);
    assert_eq!(sc.workload_transport, [1]);

    let unknown = named.replace("transport = \"slow\"", "transport = \"medium\"");
    let e = parse_str("t.toml", &unknown)
        .expect_err("unknown")
        .to_string();
    assert!(
        e.contains("workload[0].transport")
            && e.contains("\"fast\", \"slow\"")
            && e.contains("t.toml:"),
        "{e}"
    );
    let missing = named.replace("transport = \"slow\"\n", "");
    let e = parse_str("t.toml", &missing)
        .expect_err("missing")
        .to_string();
    assert!(e.contains("missing `transport`"), "{e}");

    // One unnamed [transport] keeps working, its cc a name or a table.
    for cc in ["\"dctcp\"", "{ kind = \"dctcp\", g = 0.125 }"] {
        let one = format!(
            "{BASE}[transport]\ncc = {cc}\n[[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = [1]\nsize = \"10KB\"\n"
        );
        let sc = parse_str("t.toml", &one).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((sc.transports.len(), sc.transports[0].cc()), (1, "dctcp"));
    }
    let bad_cc = format!("{BASE}[transport]\ncc = {{ kind = \"dctcp\", gain = 1 }}\n");
    let e = parse_str("t.toml", &bad_cc)
        .expect_err("bad key")
        .to_string();
    assert!(e.contains("gain"), "{e}");
    let rack = format!("{BASE}[transport]\nsack = false\nrack_tlp = true\n");
    let e = parse_str("t.toml", &rack)
        .expect_err("rack without sack")
        .to_string();
    assert!(
        e.contains("transport.rack_tlp") && e.contains("sack"),
        "{e}"
    );
}

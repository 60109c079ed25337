//! Outputs a newcomer can trust: no statistic of an empty set reads as a
//! measurement, an unbounded flow has no size, and every retransmission
//! (SYN and FIN too) is counted.
use crate::common;

const STAR: &str =
    "[topology]\nkind = \"star\"\nhosts = 17\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n";

#[test]
fn statistics_of_nothing_are_null_not_zero() {
    // Long flows cut by the stop time: none completes, so FCTs do not exist.
    let text = format!(
        "[simulation]\nstop_time = \"1ms\"\n{STAR}[switch]\nbuffer = \"100pkt\"\n\
         [[workload]]\nkind = \"long-flows\"\npairs = [[1, 0], [2, 0]]\n"
    );
    let (w, s) = common::run(&text);
    assert_eq!(s.flows.completed, 0);
    let json = serde_json::to_value(&s).expect("json");
    let fct = &json["flows"]["fct_us"];
    assert_eq!(fct["count"], 0);
    for k in ["mean", "min", "p50", "p99", "max"] {
        assert!(fct[k].is_null(), "fct_us.{k} = {}", fct[k]);
    }
    assert!(s.flows.goodput_gbps.is_some_and(|g| g > 1.0));
    assert!(
        s.human()
            .contains("FCT               n/a (no flow completed)"),
        "{}",
        s.human()
    );
    // The unbounded flows' size is empty, not 2^64 - 3.
    let csv = dcnsim::report::flows_csv(&w.run_record());
    let row = csv.lines().nth(1).expect("a flow");
    assert!(row.starts_with("0,0,1,0,,0.000000,,,"), "{row}");

    // A source that never gets to send: no wait, no delay.
    let text = format!(
        "[simulation]\nstop_time = \"1us\"\n{STAR}[switch]\nbuffer = \"100pkt\"\n\
         [[workload]]\nkind = \"poisson-packets\"\nsrc = 1\ndst = 0\nload = 0.5\nstart = \"2us\"\n"
    );
    let (_, s) = common::run(&text);
    let src = &s.sources[0];
    assert_eq!(
        (src.packets_sent, src.mean_nic_wait_ns, src.mean_delay_us),
        (0, None, None)
    );
    assert_eq!((s.flows.goodput_gbps, s.flows.jain_index), (None, None));
    assert!(s.human().contains("NIC wait n/a ns"), "{}", s.human());
}

#[test]
fn lost_syns_are_counted() {
    // Sixteen SYNs at once into a two-packet buffer: most are dropped and sent
    // again after the initial RTO.
    let text = format!(
        "{STAR}[switch]\nbuffer = \"2pkt\"\n[[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = \"1-16\"\nsize = \"10KB\"\n"
    );
    let (w, s) = common::run(&text);
    assert_eq!(s.flows.completed, 16);
    assert!(s.flows.syn_retransmissions > 0, "{:?}", s.flows);
    assert!(s.flows.timeouts >= s.flows.syn_retransmissions);
    let csv = dcnsim::report::flows_csv(&w.run_record());
    assert!(csv.starts_with(
        "id,workload,src,dst,size_bytes,start_us,finish_us,fct_us,received_us,ideal_fct_us,\
         slowdown,bytes_acked,retransmissions,syn_retransmissions,fin_retransmissions,timeouts,\
         rto_episodes,fast_recoveries,ecn_reductions,sack_recovered,tail_loss_probes,\
         window_probes,naks_sent,cnps_sent,transport\n"
    ));
    let per_flow: u64 = csv
        .lines()
        .skip(1)
        .map(|l| {
            l.split(',')
                .nth(13)
                .expect("column")
                .parse::<u64>()
                .expect("count")
        })
        .sum();
    assert_eq!(per_flow, s.flows.syn_retransmissions);
}

#[test]
fn ideal_fct_follows_the_documented_formula() {
    // Star, 10 Gb/s and 1 us per link, Ethernet framing; 3000 B in segments
    // of 1448, 1448 and 104 B with 52 B of headers each (wire 1538, 1538,
    // 194 B); SYN and SYN-ACK 60 B (98 B on the wire, 78.4 ns), the last
    // ACK 52 B (90 B, 72 ns). Ideal = 2 x 2 x (1000 + 78.4) ns + 2 x (1000
    // + 72) ns + 2 x (1000 + 1230.4) ns (first segment) + 1732 B at
    // 10 Gb/s (1385.6 ns) = 12304 ns.
    let text = format!(
        "{STAR}[switch]\nbuffer = \"100pkt\"\n[[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = [1]\nsize = \"3000B\"\n"
    );
    let (w, s) = common::run(&text);
    let csv = dcnsim::report::flows_csv(&w.run_record());
    let row: Vec<&str> = csv.lines().nth(1).expect("one flow").split(',').collect();
    assert_eq!(row[9], "12.304000", "{csv}");
    // Alone on the network with the whole flow in its initial window, the
    // flow takes exactly its ideal time.
    let slowdown: f64 = row[10].parse().expect("slowdown");
    println!(
        "one 3000 B flow alone: FCT {} us, ideal {} us, slowdown {slowdown}",
        row[7], row[9]
    );
    assert!((1.0..1.0001).contains(&slowdown), "{csv}");
    assert_eq!(s.flows.slowdown.count, 1);
    // The default buckets: <=100KB holds it.
    assert_eq!(s.flows.by_size[0].bucket, "<=100KB");
    assert_eq!(s.flows.by_size[0].flows, 1);
    assert_eq!(s.flows.by_size[1].bucket, "100KB-10MB");
    assert_eq!(s.flows.by_size[2].bucket, ">10MB");
}

#[test]
fn slowdowns_are_never_below_one_and_unfinished_flows_are_counted() {
    // Web-search flows on a leaf-spine, arrivals for 10 ms, the run cut at
    // 2 ms: some flows do not finish.
    let text = "[simulation]\nstop_time = \"2ms\"\n\
        [topology]\nkind = \"leaf-spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 4\n\
        host_rate = \"10Gbps\"\nfabric_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
        [switch]\nbuffer = \"200pkt\"\n\
        [[workload]]\nkind = \"flows\"\ncdf = \"websearch\"\nload = 0.6\nhosts = \"0-7\"\nstop = \"10ms\"\n\
        [output]\nsize_buckets = [\"10KB\", \"1MB\"]\n";
    let (w, s) = common::run(text);
    let csv = dcnsim::report::flows_csv(&w.run_record());
    let slowdowns: Vec<f64> = csv
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').nth(10).and_then(|x| x.parse().ok()))
        .collect();
    assert!(!slowdowns.is_empty());
    assert!(slowdowns.iter().all(|&x| x >= 1.0), "{slowdowns:?}");
    let b = &s.flows.by_size;
    assert_eq!(b.len(), 3);
    assert_eq!(b[1].bucket, "10KB-1MB");
    let total: usize = b.iter().map(|b| b.flows).sum();
    assert_eq!(total, s.flows.total);
    let unfinished: usize = b.iter().map(|b| b.unfinished).sum();
    assert_eq!(unfinished, s.flows.total - s.flows.completed);
    assert!(unfinished > 0, "the cut leaves flows unfinished");
    for x in b {
        assert_eq!(x.completed, x.fct_us.count);
        if x.completed == 0 {
            assert!(x.slowdown.mean.is_none());
        }
    }
}

#[test]
fn goodput_series_adds_up_to_the_bytes_acknowledged() {
    let text = format!(
        "{STAR}[switch]\nbuffer = \"100pkt\"\n[[workload]]\nkind = \"incast\"\nreceiver = 0\n\
         senders = \"1-4\"\nsize = \"300KB\"\nstart_jitter = \"50us\"\n\
         [output]\ngoodput_interval = \"100us\"\n"
    );
    let (w, s) = common::run(&text);
    let csv = dcnsim::report::goodput_csv(&w.run_record());
    let mut all = std::collections::BTreeMap::<String, f64>::new();
    let mut per_flow = std::collections::BTreeMap::<String, f64>::new();
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let gbps: f64 = f[2].parse().expect("number");
        let slot = if f[1] == "all" {
            &mut all
        } else {
            &mut per_flow
        };
        *slot.entry(f[0].to_string()).or_default() += gbps;
    }
    // Each interval's aggregate is the sum of its flows' rows.
    for (t, g) in &all {
        let sum = per_flow.get(t).copied().unwrap_or(0.0);
        assert!((g - sum).abs() < 1e-5, "at {t}: {g} vs {sum}");
    }
    // Over the run, the series carries every acknowledged byte.
    let bytes: f64 = all.values().map(|g| g * 1e9 / 8.0 * 100e-6).sum();
    assert!((bytes - s.flows.bytes_acked as f64).abs() < 1.0, "{bytes}");
    assert!(
        all.values().any(|&g| g > 9.0),
        "the link runs near line rate"
    );
}

#[test]
fn a_workload_line_keeps_its_words_apart_whatever_the_kind_name() {
    // "permutation" is long enough that the column padding ran out and
    // the kind touched its RTT ("(permutation)RTT").
    let text = format!(
        "{STAR}[switch]\nbuffer = \"100pkt\"\n[[workload]]\nkind = \"permutation\"\nhosts = \"0-3\"\nsize = \"20KB\"\n"
    );
    let (_, s) = common::run(&text);
    let human = s.human();
    assert!(
        human.contains("workload 0 (permutation) RTT p50"),
        "{human}"
    );
}

/// Issue 58: `links.csv`, each tier's utilisation per interval, adds up
/// to what `ports.csv` says the tier's ports sent, in a run cut into LPs
/// too (the first LP reads every other LP's ports at each sample), and
/// every reading lies between 0 and a packet a link above 1.
#[test]
fn link_utilisation_adds_up_to_the_ports_bytes() {
    let dir = common::temp_dir("links");
    for (n, partition) in ["none", "pods"].iter().enumerate() {
        let out = dir.join(format!("run{n}"));
        common::run_cli(&[
            "run",
            "scenarios/ai-fabric/adaptive-k4.toml",
            "--set",
            "output.link_interval=10us",
            "--set",
            &format!("simulation.partition={partition}"),
            "--no-plots",
            "--out",
            out.to_str().expect("utf-8"),
        ]);
        let links = std::fs::read_to_string(out.join("links.csv")).expect("links.csv");
        let mut sent_bits: std::collections::BTreeMap<String, f64> = Default::default();
        let mut tiers = std::collections::BTreeSet::new();
        for line in links.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            let (links, u): (f64, f64) = (f[2].parse().expect("links"), f[3].parse().expect("u"));
            assert!((0.0..1.2).contains(&u), "{line}");
            // 100 Gb/s links, 10 us intervals.
            *sent_bits.entry(f[1].to_string()).or_default() += u * links * 100e9 * 10e-6;
            tiers.insert(f[1].to_string());
        }
        for t in [
            "host->tor",
            "tor->agg",
            "agg->core",
            "core->agg",
            "agg->tor",
            "tor->host",
        ] {
            assert!(tiers.contains(t), "{partition}: {tiers:?}");
        }
        let ports = std::fs::read_to_string(out.join("ports.csv")).expect("ports.csv");
        let header: Vec<&str> = ports.lines().next().expect("header").split(',').collect();
        let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
        let (name, class, tx) = (col("name"), col("class"), col("tx_bytes"));
        let mut port_bits: std::collections::BTreeMap<String, f64> = Default::default();
        for line in ports.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            if f[class] != "all" {
                continue;
            }
            let kind = |s: &str| s.trim_end_matches(|c: char| c.is_ascii_digit()).to_string();
            let (a, b) = f[name].split_once("->").expect("a port name");
            let bits = f[tx].parse::<f64>().expect("bytes") * 8.0;
            *port_bits
                .entry(format!("{}->{}", kind(a), kind(b)))
                .or_default() += bits;
        }
        assert!(port_bits.len() >= 4, "{port_bits:?}");
        for (tier, bits) in &port_bits {
            let got = sent_bits.get(tier).copied().unwrap_or(0.0);
            assert!(
                (got - bits).abs() <= 1e-4 * bits + 1.0,
                "{partition}: {tier}: links.csv {got} bits, ports.csv {bits}"
            );
        }
    }
    std::fs::remove_dir_all(dir).ok();
}

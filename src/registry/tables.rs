//! The tables of fixed keys that are not families of kinds:
//! `[simulation]`, `[routing]` (whose `choice`, `spray`,
//! `adaptive_signal` and `adaptive_rule` name rows of their own lists),
//! `[switch.pfc]`, `[switch.trim]`, `[[failure]]` and `[output]`. `dcnsim
//! list` prints them beside the families, and tests hold each key list
//! against the keys serde accepts and against docs/scenarios.md, as the
//! families' rows are.

use super::{Key, key};
use net::path_choice::{AdaptiveRule, PathChoice, Signal, Spray};

/// One table: its name for `dcnsim list NAME`, where it stands in a
/// scenario, what it does, its keys and the named values its keys take.
#[derive(Debug, Clone)]
pub struct TableInfo {
    /// `dcnsim list NAME`.
    pub name: &'static str,
    /// The TOML table (`[[failure]]` for an array of tables).
    pub table: &'static str,
    /// What it models.
    pub about: &'static str,
    /// Its keys.
    pub keys: &'static [Key],
    /// For a key whose value is a name: the key and each name with its
    /// meaning (the one lists the loader reads).
    pub choices: Vec<(&'static str, Vec<(&'static str, &'static str)>)>,
}

/// Every table, in the order of a scenario file.
pub fn tables() -> Vec<TableInfo> {
    use crate::scenario::{Cut, TieOrder};
    vec![
        TableInfo {
            name: "simulation",
            table: "simulation",
            about: "the run's seed, its bounds, and how it is cut into logical processes that threads run side by side",
            keys: SIMULATION,
            choices: vec![
                ("partition", names(&Cut::ALL)),
                ("order", names(&TieOrder::ALL)),
            ],
        },
        TableInfo {
            name: "pfc",
            table: "switch.pfc",
            about: "priority flow control (IEEE 802.1Qbb) in every switch and NIC; needs shared_buffer",
            keys: PFC,
            choices: Vec::new(),
        },
        TableInfo {
            name: "trim",
            table: "switch.trim",
            about: "packet trimming at every switch port (NDP 3.1; UEC 1.0): a packet that would be dropped is cut to its header",
            keys: TRIM,
            choices: Vec::new(),
        },
        TableInfo {
            name: "routing",
            table: "routing",
            about: "how packets choose among equal-cost paths: switches by tier, hosts by entropy",
            keys: ROUTING,
            choices: vec![
                ("choice", names(&PathChoice::ALL)),
                ("spray", names(&Spray::ALL)),
                ("adaptive_signal", names(&Signal::ALL)),
                ("adaptive_rule", names(&AdaptiveRule::ALL)),
            ],
        },
        TableInfo {
            name: "failure",
            table: "[failure]",
            about: "a cable that goes down or degrades during the run; one table per failure",
            keys: FAILURE,
            choices: Vec::new(),
        },
        TableInfo {
            name: "output",
            table: "output",
            about: "where the results go and which optional series, captures and reports a run writes (the files and their columns: dcnsim list outputs)",
            keys: OUTPUT,
            choices: Vec::new(),
        },
    ]
}

/// The names and meanings of one of `net::path_choice`'s lists.
fn names<T>(rows: &[(T, &'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    rows.iter().map(|r| (r.1, r.2)).collect()
}

/// `[simulation]`'s keys (`scenario::SimulationConfig`).
#[rustfmt::skip]
static SIMULATION: &[Key] = &[
    key("seed", "1", "integer", "master seed; every random stream derives from it; --seed overrides it"),
    key("stop_time", "none", "duration", "stop here (absent: run until every flow closes and every source ends)"),
    key("max_events", "10^10", "integer", "safety cap on the events run; the run reports event_limit if it is hit"),
    key("threads", "every core", "integer, 1 to 1024", "threads for one run (one a run inside a sweep); --threads overrides it; the same bytes at any count"),
    key("partition", "auto", "name", "how the fabric is cut into logical processes (LPs)"),
    key("lps", "8", "integer, 1 to 1024", "the most LPs the cut makes (pods beyond it share one)"),
    key("order", "model", "name", "how one picosecond's events are ordered"),
];

/// `[switch.pfc]`'s keys (`scenario::pfc::PfcKeys`).
#[rustfmt::skip]
static PFC: &[Key] = &[
    key("lossless", "all of 0..7", "[priority, ...]", "the lossless priorities"),
    key("xoff", "dynamic", "choice", "\"dynamic\" (xoff_alpha x the free shared pool) or \"static\" (byte thresholds)"),
    key("xoff_alpha", "0.125", "fraction", "dynamic XOFF: the share of the free pool a (port, priority) may hold"),
    key("resume_offset", "3KiB", "size", "dynamic XON hysteresis"),
    key("xoff_threshold", "none", "size", "static XOFF threshold per (port, priority)"),
    key("xon_threshold", "none", "size", "static XON threshold per (port, priority)"),
    key("reserve", "4KiB", "size", "bytes reserved per (switch port, lossless priority)"),
    key("headroom", "standard", "choice or size", "\"standard\" (2 C d + 3 MTU + PAUSE), \"hpcc_3x\" (3 C d) or a size per port"),
    key("mtu", "1500B", "size", "the largest IP packet, for the headroom rule"),
    key("pause", "until-resume", "choice", "\"until-resume\" or \"quanta\""),
    key("quanta", "65535", "integer", "quanta mode: pause time per PAUSE, in 512-bit times"),
    key("refresh", "half the pause time", "duration, >= 100ns", "quanta mode: how often a congested switch re-sends PAUSE"),
];

/// `[switch.trim]`'s keys (`scenario::trim::TrimKeys`).
#[rustfmt::skip]
static TRIM: &[Key] = &[
    key("header", "64B", "size, 20 to 512 B", "the size a trimmed packet keeps (htsim's -trimsize); below every transport's full packet"),
    key("threshold", "none", "queue size, > 0", "also trim an arriving data packet when its class queue holds more (absent: only what would be dropped)"),
    key("header_queue", "64000B", "size, >= header", "the most a port's header queue holds"),
];

/// `[routing]`'s keys (`scenario::paths::RoutingKeys`).
#[rustfmt::skip]
static ROUTING: &[Key] = &[
    key("choice", "ecmp", "name or [name, ...]", "how switches pick among equal-cost ports, for all or by tier from the ToRs up"),
    key("flowlet_gap", "50us", "duration, > 0", "a flow idle this long starts a new flowlet (only with a flowlet choice)"),
    key("flowlet_table", "4096", "power of two, <= 1048576", "entries in each switch's flowlet table (only with a flowlet choice)"),
    key("spray", "none", "name", "how hosts set their packets' entropy values"),
    key("adaptive_signal", "queue", "name", "what adaptive routing compares (only with an adaptive choice)"),
    key("adaptive_rule", "least-queued", "name", "how adaptive routing weighs ports and moves flowlets: exact loads, or htsim's levels and rules (only with an adaptive choice)"),
];

/// `[[failure]]`'s keys (`scenario::paths::FailureKeys`).
#[rustfmt::skip]
static FAILURE: &[Key] = &[
    key("between", "required", "[node, node]", "the cable, by its two nodes' names (\"agg0\", \"core0\")"),
    key("at", "required", "duration", "when it fails"),
    key("degrade", "none", "fraction, (0, 1)", "the rate it keeps from `at` on, of the original (absent: the cable goes down)"),
    key("reroute_after", "none", "duration", "how long after `at` every switch routes around it (absent: never; not with degrade)"),
    key("one_way", "false", "bool", "with degrade: only the direction from the first node to the second slows"),
    key("buffer_scales", "false", "bool", "with degrade: the degraded switch ports' buffers shrink by the same fraction"),
];

/// `[output]`'s keys (`scenario::OutputConfig`).
#[rustfmt::skip]
static OUTPUT: &[Key] = &[
    key("dir", "results/<file stem>", "path", "the output folder; --out overrides it"),
    key("queue_interval", "off", "duration, >= 1ns", "sample queue occupancy into queues.csv every this long"),
    key("queue_ports", "switch", "\"switch\" or [host, switch or link, ...]", "which ports queues.csv samples"),
    key("queue_from", "off", "duration", "report the sampled ports' standing queue from this time on (summary.json's queue_after); needs queue_interval"),
    key("size_buckets", "[100KB, 10MB]", "[size, ...]", "upper edges of the flow-size buckets FCT and slowdown are reported by"),
    key("goodput_interval", "off", "duration, >= 1ns", "write goodput.csv: each interval's goodput, over all flows, per workload and per flow"),
    key("goodput_flows", "every flow", "[flow id, ...]", "the flows with their own goodput.csv rows"),
    key("rtt_interval", "off", "duration, >= 1ns", "write rtt.csv: each interval's RTT samples per workload"),
    key("link_interval", "off", "duration, >= 1ns", "write links.csv: each interval's link utilisation per tier"),
    key("jain_flows", "none", "[flow id, ...]", "summary.json's fairness: Jain's index over these flows' goodput"),
    key("cc_trace", "off", "{ flows, interval }", "write cc.csv: the listed flows' congestion-control state every interval"),
    key("pcap", "off", "{ ports, snaplen }", "write a pcap capture of each listed port"),
    key("events", "off", "{ flows, ports, kinds }", "write events.csv, the event log of the chosen packets at the chosen ports"),
    key("max_min", "false", "bool", "summary.json's max_min: the flows' max-min fair rates over their routed paths"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;

    /// A valid scenario with `table` holding its keys and a probe key.
    fn probe(t: &TableInfo) -> String {
        let topology = "[topology]\nkind = \"k-ary-fat-tree\"\nk = 4\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n";
        let workload =
            "[[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = [1]\nsize = \"1MB\"\n";
        let switch = if t.name == "pfc" {
            "[switch]\nshared_buffer = \"9MB\"\n"
        } else {
            "[switch]\nbuffer = \"100pkt\"\n"
        };
        let body = match t.name {
            "failure" => "between = [\"agg0\", \"core0\"]\nat = \"1us\"\n",
            _ => "",
        };
        let header = format!("[{}]", t.table); // `[[failure]]` for the array
        format!("{topology}{switch}{workload}{header}\n{body}__probe__ = 0\n")
    }

    #[test]
    fn every_table_documents_exactly_the_keys_it_accepts() {
        for t in tables() {
            let e = load_str("probe.toml", &probe(&t), &[]).expect_err("the probe is unknown");
            assert!(
                e.message.contains("unknown key `__probe__`"),
                "{}: {e}",
                t.name
            );
            let list = e.message.split(": ").nth(1).unwrap_or_default();
            let mut accepted: Vec<String> = list
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect();
            let mut documented: Vec<String> = t.keys.iter().map(|k| k.name.to_string()).collect();
            accepted.sort();
            documented.sort();
            assert_eq!(documented, accepted, "{}", t.table);
        }
    }

    /// `[simulation]`'s choices are the names serde reads, one row per
    /// variant (a new variant fails to compile here until it has one).
    #[test]
    fn the_simulation_choices_are_the_names_the_loader_reads() {
        use crate::scenario::{Cut, TieOrder};
        #[derive(serde::Deserialize)]
        struct Probe {
            partition: Cut,
            order: TieOrder,
        }
        let read = |partition: &str, order: &str| -> Probe {
            let text = format!("partition = \"{partition}\"\norder = \"{order}\"");
            toml::from_str(&text).expect("a listed name")
        };
        for (i, (cut, name, _)) in Cut::ALL.into_iter().enumerate() {
            assert!(read(name, "model").partition == cut, "{name}");
            let row = match cut {
                Cut::Auto => 0,
                Cut::None => 1,
                Cut::Pods => 2,
            };
            assert_eq!(row, i, "{name}");
        }
        for (i, (order, name, _)) in TieOrder::ALL.into_iter().enumerate() {
            assert!(read("auto", name).order == order, "{name}");
            let row = match order {
                TieOrder::Model => 0,
                TieOrder::Insertion => 1,
            };
            assert_eq!(row, i, "{name}");
        }
    }

    #[test]
    fn every_table_key_and_choice_is_in_the_scenario_reference() {
        let docs =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/scenarios.md"))
                .expect("docs/scenarios.md");
        for t in tables() {
            assert!(docs.contains(&format!("[{}]", t.table)), "{}", t.table);
            for k in t.keys {
                assert!(
                    docs.contains(&format!("`{}`", k.name)),
                    "{}.{}",
                    t.table,
                    k.name
                );
            }
            for (key, names) in &t.choices {
                for (name, _) in names {
                    assert!(docs.contains(&format!("`{name}`")), "{key} = \"{name}\"");
                }
            }
        }
    }
}

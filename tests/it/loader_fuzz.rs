//! The loader never panics (and never runs away) on generated scenario
//! files: extreme numbers, odd units, wrong types and nesting at every key
//! of a scenario that uses most tables, RoCE and TCP alike. Each input
//! either loads or gets an error naming the file.
use dcnsim::scenario::parse_str;
use proptest::prelude::*;

/// A scenario with a slot `@N@` for each value the test replaces.
const TEMPLATE: &str = include_str!("scenarios/loader_fuzz/template.toml");

const SLOTS: usize = 19;

/// A TOML value of any shape: numbers at the edges, quantities with real
/// and made-up units, words, arrays and tables.
fn value() -> impl Strategy<Value = String> {
    let number = prop_oneof![
        Just("0".to_string()),
        Just("-1".to_string()),
        Just("9223372036854775807".to_string()),
        Just("-9223372036854775808".to_string()),
        Just("1e308".to_string()),
        Just("nan".to_string()),
        Just("inf".to_string()),
        Just("-0.0".to_string()),
        (0u64..5000).prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
    ];
    let unit = prop_oneof![
        Just("ps"),
        Just("ns"),
        Just("us"),
        Just("ms"),
        Just("s"),
        Just("B"),
        Just("KB"),
        Just("GiB"),
        Just("pkt"),
        Just("bps"),
        Just("Gbps"),
        Just("Tbps"),
        Just(""),
        Just("xx"),
    ];
    let mantissa = prop_oneof![
        Just("0".to_string()),
        Just("18446744073709551615".to_string()),
        Just("99999999999999999999999".to_string()),
        Just("0.0000000000001".to_string()),
        Just("-3".to_string()),
        Just("1.5".to_string()),
        (1u64..100_000).prop_map(|n| n.to_string()),
    ];
    let quantity = (mantissa, unit).prop_map(|(m, u)| format!("\"{m}{u}\""));
    let word = prop_oneof![
        Just("\"dctcp\"".to_string()),
        Just("\"dcqcn\"".to_string()),
        Just("\"rcc\"".to_string()),
        Just("\"hpcc\"".to_string()),
        Just("\"nonsense\"".to_string()),
        Just("\"\"".to_string()),
        Just("true".to_string()),
    ];
    let leaf = prop_oneof![number, quantity, word];
    leaf.prop_recursive(3, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec(inner, 0..3).prop_map(|v| {
                let keys = ["kind", "variant", "k", "size", "n"];
                let fields: Vec<String> = v
                    .iter()
                    .zip(keys)
                    .map(|(x, k)| format!("{k} = {x}"))
                    .collect();
                format!("{{ {} }}", fields.join(", "))
            }),
        ]
    })
}

/// Plausible values for each slot, so that many inputs get deep into the
/// loader before one key is wrong.
fn plausible(slot: usize) -> &'static str {
    [
        "1",
        "\"1ms\"",
        "2",
        "2",
        "4",
        "\"10Gbps\"",
        "\"1us\"",
        "\"200pkt\"",
        "\"20pkt\"",
        "\"40pkt\"",
        "tcp",
        "\"dctcp\"",
        "mss",
        "\"1448B\"",
        "0.5",
        "\"0-7\"",
        "20",
        "\"10us\"",
        "[\"100KB\"]",
    ][slot]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
    #[test]
    fn generated_scenarios_load_or_are_refused_without_panicking(
        picks in prop::collection::vec((0usize..SLOTS, value()), 1..5),
        roce in any::<bool>(),
    ) {
        let mut text = TEMPLATE.to_string();
        if roce {
            text = text.replace("@10@", "roce").replace("@12@", "mtu").replace("@11@", "\"dcqcn\"");
        }
        for (slot, v) in &picks {
            text = text.replacen(&format!("@{slot}@"), v, 1);
        }
        for slot in 0..SLOTS {
            text = text.replace(&format!("@{slot}@"), plausible(slot));
        }
        if let Err(e) = parse_str("fuzz.toml", &text) {
            prop_assert!(e.to_string().starts_with("fuzz.toml"), "{e}");
        }
    }
}

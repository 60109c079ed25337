//! Swift end to end (Kumar et al., SIGCOMM 2020): two long RoCE flows into
//! one 100 Gb/s port settle where their round trip meets the target
//! (25 us plus one switch hop's 3.8 us), sharing the link equally, with
//! the queue holding the difference.
use crate::common;

const TWO_FLOWS: &str = include_str!("scenarios/swift/two_flows.toml");

#[test]
fn swift_holds_a_two_flow_incasts_round_trip_at_its_target() {
    let (w, s) = common::run(TWO_FLOWS);
    let target_us = 25.0 + 3.8;
    for flow in [0, 1] {
        let late: Vec<f64> = w
            .cc_samples()
            .iter()
            .filter(|c| c.flow == flow && c.variable == "srtt_us" && c.time_ps >= 1_000_000_000)
            .map(|c| c.value)
            .collect();
        assert!(late.len() > 300, "flow {flow}: {} samples", late.len());
        let mean = late.iter().sum::<f64>() / late.len() as f64;
        assert!(
            (mean - target_us).abs() / target_us < 0.05,
            "flow {flow}: smoothed RTT {mean:.2} us against the target {target_us} us"
        );
        let target = w
            .cc_samples()
            .iter()
            .rev()
            .find(|c| c.flow == flow && c.variable == "target_delay_us")
            .map(|c| c.value);
        assert_eq!(
            target,
            Some(target_us),
            "25 us + one hop x 3.8 us (no flow scaling at 172 packets)"
        );
    }
    let gbps = s.flows.goodput_gbps.expect("goodput");
    assert!(gbps > 95.0, "the link stays full: {gbps} Gb/s");
    assert!(
        s.flows.jain_index.expect("jain") > 0.999,
        "{:?}",
        s.flows.jain_index
    );
    assert_eq!(s.drops, 0);
}

//! CUBIC end to end (RFC 9438): alone it fills a long fat link; a second
//! flow that joins later converges towards an equal share over CUBIC's
//! epochs (`scenarios/cubic/long-fat-link.toml`).
use crate::common;
use sim_core::{SimDuration, SimTime};
use transport::SenderEnd;

/// Each flow's goodput in Mb/s over [from_s, to_s).
fn goodputs(w: &mut dcnsim::world::World, from_s: u64, to_s: u64) -> Vec<f64> {
    w.run_until(SimTime::ZERO + SimDuration::from_secs(from_s));
    let before: Vec<u64> = w.flows().iter().map(|f| f.sender.bytes_acked()).collect();
    w.run_until(SimTime::ZERO + SimDuration::from_secs(to_s));
    w.flows()
        .iter()
        .zip(before)
        .map(|(f, b)| (f.sender.bytes_acked() - b) as f64 * 8.0 / (to_s - from_s) as f64 / 1e6)
        .collect()
}

#[test]
fn cubic_fills_a_long_fat_link_and_shares_it_with_a_newcomer() {
    let text = std::fs::read_to_string("scenarios/cubic/long-fat-link.toml").expect("shipped");
    let sc = common::scenario(&text);
    let mut w = dcnsim::world::World::build(&sc, 1).expect("builds");
    // Alone: 1448 B of payload per 1538 B on the wire is 94.1 Mb/s at 100 Mb/s.
    let alone = goodputs(&mut w, 2, 5);
    assert!(alone[0] > 92.0, "flow 0 alone: {alone:?} Mb/s");
    let early = goodputs(&mut w, 5, 10);
    let late = goodputs(&mut w, 30, 40);
    println!("CUBIC goodput, Mb/s: alone {alone:.1?}, 5-10 s {early:.1?}, 30-40 s {late:.1?}");
    let total: f64 = late.iter().sum();
    assert!(total > 92.0, "the two keep the link full: {late:?}");
    let jain = total * total / (2.0 * late.iter().map(|x| x * x).sum::<f64>());
    assert!(jain > 0.99, "Jain {jain:.4} over 30-40 s: {late:?}");
    assert!(
        early[1] < late[1],
        "the newcomer gains: {early:?} then {late:?}"
    );
}

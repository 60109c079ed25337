//! The shared buffer under the dynamic threshold, end to end.
use crate::common;

use net::HostId;

/// A 32-to-1 NewReno incast into a switch with a 150 KB shared buffer.
fn incast(dt_alpha: f64) -> (u64, u64, u64) {
    let (w, s) = common::run(&common::fill(
        include_str!("scenarios/shared_buffer/incast.toml"),
        &[("dt_alpha", &dt_alpha.to_string())],
    ));
    assert_eq!(s.flows.completed, 32);
    let hot = w.fabric().port(w.fabric().port_towards_host(HostId(0)));
    let switch = hot.node;
    (
        hot.stats.max_bytes,
        w.fabric().shared_buffer(switch).max_used,
        s.drops,
    )
}

#[test]
fn one_congested_queue_stops_at_alpha_over_one_plus_alpha_of_the_buffer() {
    // The peaks docs/architecture.md quotes ("Buffers"), pinned.
    for (alpha, bound, peak) in [(1.0, 75_000u64, 75_508), (4.0, 120_000, 120_508)] {
        let (max_q, max_used, drops) = incast(alpha);
        assert_eq!(
            max_q, peak,
            "alpha {alpha}: the peak docs/architecture.md states"
        );
        eprintln!(
            "dt_alpha {alpha}: max queue {max_q} B, max buffer use {max_used} B, {drops} drops"
        );
        // Admission compares before adding the packet: at most one MTU over.
        assert!(
            max_q <= bound + 1500,
            "alpha {alpha}: queue reached {max_q} B"
        );
        assert!(
            max_q >= bound - 3000,
            "alpha {alpha}: queue only reached {max_q} B"
        );
        assert!(max_used <= 150_000);
        assert!(drops > 0);
    }
}

#[test]
fn buffer_keys_are_checked() {
    let base = "[topology]\nkind = \"star\"\nhosts = 2\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n[switch]\n";
    let err =
        |extra: &str| dcnsim::scenario::parse_str("b.toml", &format!("{base}{extra}")).unwrap_err();
    assert!(err("").to_string().contains("missing `buffer`"));
    let e = err("buffer = \"100pkt\"\nshared_buffer = \"1MB\"\n");
    assert!(e.to_string().contains("not both"), "{e}");
    let e = err("buffer = \"100pkt\"\ndt_alpha = 2.0\n");
    assert_eq!(e.key, "switch.dt_alpha");
    let e = err("shared_buffer = \"1MB\"\ndt_alpha = -1.0\n");
    assert!(e.to_string().contains("positive"), "{e}");
}

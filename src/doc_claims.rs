//! docs/architecture.md's numbers, each pinned to the constant that makes
//! it true: a claim that drifts from the code fails here, naming the
//! phrase. (Claims about a structure are pinned beside it: the wheel's in
//! `sim_core::queue`, a packet's and a port's layout in `net`, the code's
//! shape in `tests/it/architecture.rs`.)

/// The doc, its whitespace collapsed (a phrase may wrap).
fn doc() -> String {
    let text = include_str!("../docs/architecture.md");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

use crate::reproduce::eval::thousands;

/// `2^k` for a power of two.
fn pow2(x: u64) -> String {
    assert!(x.is_power_of_two(), "{x}");
    format!("2^{}", x.trailing_zeros())
}

#[test]
fn docs_architecture_states_the_constants_as_built() {
    use crate::world::livelock::{CHECK_EVENTS, QUIET_CHECKS, TIMEOUTS_WITHOUT_PROGRESS};
    use crate::world::parallel::{AUTO_MIN_HOSTS, SOLO_BELOW};
    let eth = net::WireFormat::ETHERNET;
    let min_check_ms = crate::world::livelock::CHECK_TIME_MIN.ps() / 1_000_000_000;
    let quiet = ["zero", "one", "two", "three"][QUIET_CHECKS as usize];
    let fallback_gib = crate::memory::FALLBACK_LIMIT_BYTES >> 30;
    let doc = doc();
    for phrase in [
        format!(
            "checked every {} events",
            pow2(crate::runner::PROGRESS_EVENTS)
        ),
        format!("The watch checks every {} events", pow2(CHECK_EVENTS)),
        format!("(every {min_check_ms} ms, then"),
        format!("has timed out {TIMEOUTS_WITHOUT_PROGRESS} times"),
        format!(
            "after {quiet} quiet checks of {} events",
            pow2(CHECK_EVENTS)
        ),
        format!(
            "`MAX_NODES` = {}",
            pow2(crate::registry::topology::MAX_NODES)
        ),
        format!(
            "regular files of at most {} MiB",
            crate::scenario::inputs::MAX_INPUT_BYTES >> 20
        ),
        format!("({fallback_gib} GiB where it is unreadable)"),
        format!("least {AUTO_MIN_HOSTS} hosts where it can"),
        format!("fewer than {} events", thousands(SOLO_BELOW as i64)),
        format!(
            "`simulation.lps` (default {})",
            crate::scenario::DEFAULT_LPS
        ),
        format!(
            "a full segment is {} B on the wire and a pure ACK {} B",
            eth.wire_bytes(1500),
            eth.wire_bytes(40)
        ),
        format!(
            "`\"2.5ms\"` is {} ps",
            thousands(
                sim_core::units::parse_duration("2.5ms")
                    .expect("parses")
                    .ps() as i64
            )
        ),
    ] {
        assert!(
            doc.contains(&phrase),
            "docs/architecture.md states '{phrase}'"
        );
    }
}

#[test]
fn numbers_are_written_as_the_doc_writes_them() {
    assert_eq!(
        (pow2(1 << 20), thousands(2048), thousands(999)),
        ("2^20".into(), "2,048".into(), "999".into())
    );
}

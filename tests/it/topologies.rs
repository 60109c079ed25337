//! Multipath and explicit topologies end to end from TOML.
use crate::common;

#[test]
fn default_fat_tree_has_320_hosts_and_a_12us_base_rtt() {
    let (w, s) = common::run(include_str!(
        "scenarios/topologies/default_fat_tree_has_320_hosts_and_a_12us_base_rtt.toml"
    ));
    assert_eq!(w.fabric().host_count(), 320);
    assert_eq!(s.flows.completed, 4);
    // Senders in other pods (a pod holds 64 hosts): 6 links each way, so one
    // round trip is 12 us of propagation. A one-segment flow takes two round
    // trips (SYN/SYN-ACK, data/ACK): 24 us plus a few us of serialisation.
    let fct = s.flows.fct_us.min.expect("flows completed");
    assert!(fct > 24.0 && fct < 34.0, "FCT {fct} us");
}

#[test]
fn leaf_spine_12x12_carries_cross_rack_flows() {
    let (w, s) = common::run(include_str!(
        "scenarios/topologies/leaf_spine_12x12_carries_cross_rack_flows.toml"
    ));
    assert_eq!(w.fabric().host_count(), 144);
    assert_eq!((s.flows.completed, s.drops), (4, 0));
}

#[test]
fn an_explicit_dumbbell_matches_the_built_in_one() {
    let workload = r#"
        [switch]
        buffer = "50pkt"
        [[workload]]
        kind = "incast"
        receiver = 3
        senders = [0, 1, 2]
        size = "300KB"
    "#;
    let builtin = format!(
        "[topology]\nkind = \"dumbbell\"\nleft = 3\nright = 1\nhost_rate = \"10Gbps\"\nhost_delay = \"1us\"\n\
         bottleneck_rate = \"1Gbps\"\nbottleneck_delay = \"5us\"\n{workload}"
    );
    let explicit = common::fill(
        include_str!("scenarios/topologies/an_explicit_dumbbell_matches_the_built_in_one.toml"),
        &[("workload", workload)],
    );
    let (_, mut a) = common::run(&builtin);
    let (_, mut b) = common::run(&explicit);
    assert_eq!(a.flows.completed, 3);
    // The same bottleneck, named by each topology's own node names.
    let names = |s: &mut dcnsim::report::RunSummary| {
        s.busiest_port.as_mut().map(|p| std::mem::take(&mut p.name))
    };
    assert_eq!(names(&mut a).as_deref(), Some("left->right"));
    assert_eq!(names(&mut b).as_deref(), Some("s0->s1"));
    assert_eq!(a, b);
}

#[test]
fn explicit_topology_errors_name_the_problem() {
    let base =
        "[switch]\nbuffer = \"10pkt\"\n[topology]\nkind = \"explicit\"\nhosts = 2\nswitches = 1\n";
    let e = dcnsim::scenario::parse_str(
        "x.toml",
        &format!(
            "{base}links = [{{ a = \"h0\", b = \"s1\", rate = \"1Gbps\", delay = \"1us\" }}]\n"
        ),
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("'s1' is not a node") && e.line == 7,
        "{e}"
    );
    // The structure is checked at load, with the line and the names as written.
    let link = |a: &str, b: &str| {
        format!("{{ a = \"{a}\", b = \"{b}\", rate = \"1Gbps\", delay = \"1us\" }}")
    };
    for (links, line, want) in [
        (
            vec![link("h0", "s0")],
            7,
            "key `topology.links`: 'h1' has no link: every host needs exactly one",
        ),
        (
            vec![link("h0", "s0"), link("h1", "s0"), link("s0", "h0")],
            7,
            "key `topology.links[2].b`: 'h0' already has a link (links[0]): a host has exactly one",
        ),
        (
            vec![link("h0", "s0"), link("h1", "s0"), link("s0", "s0")],
            7,
            "key `topology.links[2]`: 's0' is linked to itself",
        ),
        (
            vec![link("h0", "s0"), link("h1", "s1")],
            7,
            "key `topology.links`: the network is disconnected: 'h1' cannot reach 'h0'",
        ),
    ] {
        let text = format!(
            "{}links = [{}]\n",
            base.replace("switches = 1", "switches = 2"),
            links.join(", ")
        );
        let e = dcnsim::scenario::parse_str("x.toml", &text).expect_err(want);
        let shown = e.to_string();
        assert!(shown.contains(want) && e.line == line, "{shown}");
        assert_eq!(shown.matches("topology").count(), 1, "said once: {shown}");
    }
}

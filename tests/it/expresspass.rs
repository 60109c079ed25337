//! ExpressPass end to end: credits, not data, take the incast's losses
//! (ExpressPass 3.1), and the credit feedback control keeps the link busy.

use crate::common;
use transport::SenderEnd;

#[test]
fn an_incast_keeps_a_short_queue_and_drops_credits_not_data() {
    let (w, s) = common::run_file("scenarios/expresspass/incast.toml", &[]);
    assert_eq!(s.flows.completed, s.flows.total);
    assert_eq!(s.drops, 0, "no data packet is dropped");
    let credits = s.credits.as_ref().expect("credit queues are on");
    assert!(
        credits.nic_dropped > 1000,
        "the receiver's NIC drops excess credits: {credits:?}"
    );
    // The switch's port to the receiver never holds more than a few data
    // packets (the 64 credit requests at the start are 40 B each).
    let to_receiver = w
        .fabric()
        .port(w.fabric().port_towards_host(net::HostId(0)));
    assert!(
        to_receiver.stats.max_bytes <= 8 * 1500,
        "{} B queued",
        to_receiver.stats.max_bytes
    );
    // 12.8 MB through a 10 Gb/s link: at least 85% of it busy with data.
    let busy = 12_800_000.0 * 8.0 / 10e9 / (s.simulated_time_us * 1e-6);
    assert!(busy > 0.85, "the incast took {} us", s.simulated_time_us);
    // TCP on the same network overflows the 100-packet buffer.
    let (_, tcp) = common::run_file(
        "scenarios/expresspass/incast.toml",
        &["transport.kind=\"tcp\"".into()],
    );
    assert!(tcp.drops > 0);
}

#[test]
fn credits_and_data_of_a_flow_take_mirrored_paths_on_a_fat_tree() {
    // ExpressPass needs the data to follow its credits' path back (3.1):
    // the symmetric ECMP hash gives a flow's two directions the same
    // switches.
    let sc = common::scenario(
        "[topology]\nkind = \"k-ary-fat-tree\"\nk = 4\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
         [switch]\nbuffer = \"100pkt\"\n[transport]\nkind = \"expresspass\"\n\
         [[workload]]\nkind = \"permutation\"\nhosts = \"0-15\"\nsize = \"100KB\"\n",
    );
    let rcc = common::scenario_file(
        "scenarios/rcc/fat-tree-workloads.toml",
        &[
            "transport={kind=\"expresspass\"}".into(),
            "workload[0].stop=\"20us\"".into(),
        ],
    );
    for sc in [sc, rcc] {
        mirrored(&dcnsim::world::World::build(&sc, 1).expect("builds"));
    }
}

fn mirrored(w: &dcnsim::world::World) {
    assert!(!w.flows().is_empty());
    for f in w.flows() {
        let a = f.sender.addr();
        let mut data = a.header(transport::Side::Sender, net::Kind::Data);
        data.protocol = net::Protocol::ExpressPass;
        let mut credit = a.header(transport::Side::Receiver, net::Kind::Credit);
        credit.protocol = net::Protocol::ExpressPass;
        let nodes = |p: &net::Packet| -> Vec<u32> {
            w.fabric()
                .path(p)
                .iter()
                .map(|&q| w.fabric().port(q).node.0)
                .collect()
        };
        let mut back = nodes(&credit);
        back.reverse();
        let forth = nodes(&data);
        // The data's path from the sender's edge switch is the credit's
        // from the receiver's, reversed (hosts' own ports aside).
        assert_eq!(forth[1..], back[..back.len() - 1], "flow {:?}", a.flow);
    }
}

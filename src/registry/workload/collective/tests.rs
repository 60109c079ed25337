use super::*;
use crate::registry::topology::Shape;

#[derive(Debug)]
struct Star(u32);

impl Shape for Star {
    fn size(&self) -> Result<crate::registry::topology::Size, (String, String)> {
        unreachable!()
    }
    fn build(&self) -> net::TopologyGraph {
        net::TopologyGraph::star(
            self.0,
            sim_core::Bandwidth::from_gbps(100),
            SimDuration::from_us(1),
        )
    }
    fn host_rate(&self, _host: u32) -> sim_core::Bandwidth {
        sim_core::Bandwidth::from_gbps(100)
    }
    fn longest_delay(&self) -> (String, SimDuration) {
        unreachable!()
    }
    fn node_names(&self) -> Vec<String> {
        unreachable!()
    }
}

fn job(toml: &str) -> Collective {
    toml::from_str(toml).expect("a valid job")
}

fn plan(j: &Collective, hosts: u32) -> Plan {
    j.check(hosts).expect("checks");
    let shape = Star(hosts);
    let env = PlanEnv {
        seed: 1,
        index: 0,
        topology: &shape,
    };
    let p = j.plan(&env);
    p.check_triggers().expect("local, acyclic triggers");
    p
}

#[test]
fn a_ring_all_reduce_plans_two_n_minus_one_steps_of_one_part() {
    let j = job(r#"hosts = "0-3"
op = "all-reduce"
size = "4000B""#);
    let p = plan(&j, 4);
    assert_eq!(p.flows.len(), 2 * 3 * 4);
    assert!(
        p.flows
            .iter()
            .all(|f| f.size == Some(1000) && f.dst == (f.src + 1) % 4)
    );
    // Step 0's four flows start at once; every later one waits on one receipt.
    assert_eq!(p.triggers.len(), 4 * 5);
    assert!(
        p.triggers
            .iter()
            .all(|t| t.inputs.len() == 1 && t.targets.len() == 1)
    );
    let c = &p.collectives[0];
    assert_eq!(
        (c.op, c.algorithm, c.iteration),
        (Op::AllReduce, Algorithm::Ring, 0)
    );
    assert_eq!(c.transfers.iter().map(|t| t.step).max(), Some(5));
}

#[test]
fn iterations_wait_on_each_ranks_last_receipts_and_acknowledgments_after_compute() {
    let j = job(r#"hosts = [5, 6, 7]
op = "all-gather"
size = "3MB"
iterations = 2
compute = "10us""#);
    let p = plan(&j, 8);
    assert_eq!(p.collectives.len(), 2);
    let per_iteration = 2 * 3;
    assert_eq!(p.flows.len(), 2 * per_iteration);
    // Iteration 1's first flow of rank 0 (host 5) waits on what host 5
    // received and sent in iteration 0: two receipts, two sends.
    let of = p.trigger_of();
    let f = per_iteration as u32; // iteration 1, step 0, rank 0
    assert_eq!(p.flows[f as usize].src, 5);
    let t = &p.triggers[of[f as usize].expect("triggered") as usize];
    assert_eq!(t.host, 5);
    assert_eq!(t.delay, SimDuration::from_us(10));
    let received = t.inputs.iter().filter(|i| i.1 == Done::Received).count();
    assert_eq!((received, t.inputs.len()), (2, 4));
    assert!(t.inputs.iter().all(|&(i, _)| (i as usize) < per_iteration));
    // Iteration 0 starts after one compute.
    assert_eq!(p.flows[0].start, SimDuration::from_us(10));
    assert_eq!(p.flows[per_iteration].round, 1);
}

#[test]
fn chunks_pipeline_piece_by_piece_and_channels_split_the_buffer() {
    let j = job(r#"hosts = "0-2"
op = "broadcast"
root = 1
size = "600KB"
channels = 2
chunk = "100KB""#);
    let p = plan(&j, 3);
    // Two channels of 300 KB, each 2 hops of 3 pieces.
    assert_eq!(p.flows.len(), 2 * 2 * 3);
    assert!(p.flows.iter().all(|f| f.size == Some(100_000)));
    let c = &p.collectives[0];
    // Piece j of the second hop (rank 2 -> 0) waits on piece j of the first.
    let of = p.trigger_of();
    for t in c.transfers.iter().filter(|t| t.step == 1) {
        assert_eq!((t.src, t.dst), (2, 0));
        let tr = &p.triggers[of[t.flow as usize].unwrap() as usize];
        let input = c
            .transfers
            .iter()
            .find(|x| x.flow == tr.inputs[0].0)
            .unwrap();
        assert_eq!(
            (input.step, input.piece, input.channel),
            (0, t.piece, t.channel)
        );
    }
}

#[test]
fn a_reduce_chains_the_partial_sums_to_its_root() {
    let j = job("hosts = [5, 6, 7, 8]\nop = \"reduce\"\nroot = 1\nsize = \"1MB\"");
    let p = plan(&j, 9);
    // Ranks 2, 3, 0 then 1 (hosts 7, 8, 5, 6): three hops of the whole buffer.
    let hops: Vec<(u32, u32)> = (p.flows.iter()).map(|f| (f.src, f.dst)).collect();
    assert_eq!(hops, [(7, 8), (8, 5), (5, 6)]);
    assert!(p.flows.iter().all(|f| f.size == Some(1_000_000)));
    let far = job("hosts = \"0-3\"\nop = \"reduce\"\nroot = 4\nsize = \"1MB\"");
    assert_eq!(far.check(4).expect_err("no rank 4").0, "root");
}

#[test]
fn placement_striped_and_random_reorder_the_ranks() {
    let j = job(r#"hosts = "0-3"
placement = "random"
op = "all-to-all"
size = "4KB""#);
    let p = plan(&j, 4);
    let mut ranks = p.collectives[0].ranks.clone();
    assert_eq!(p.flows.len(), 12);
    ranks.sort_unstable();
    assert_eq!(ranks, vec![0, 1, 2, 3]);
}

#[test]
fn bad_jobs_name_their_key() {
    let bad = |toml: &str, hosts: u32| job(toml).check(hosts).unwrap_err();
    let (k, m) = bad(
        "hosts = \"0-2\"\nop = \"all-reduce\"\nalgorithm = \"halving-doubling\"\nsize = \"1MB\"",
        3,
    );
    assert_eq!(k, "algorithm");
    assert!(m.contains("power of two"), "{m}");
    let (k, m) = bad(
        "hosts = \"0-3\"\nop = \"all-gather\"\nalgorithm = \"direct\"\nsize = \"1MB\"",
        4,
    );
    assert_eq!(k, "algorithm");
    assert!(m.contains("valid algorithms are ring"), "{m}");
    let (k, _) = bad(
        "hosts = \"0-3\"\nop = \"all-reduce\"\nroot = 1\nsize = \"1MB\"",
        4,
    );
    assert_eq!(k, "root");
    let (k, _) = bad(
        "hosts = \"0-3\"\nop = \"broadcast\"\nroot = 4\nsize = \"1MB\"",
        4,
    );
    assert_eq!(k, "root");
    let (k, m) = bad("hosts = \"0-3\"\nop = \"all-reduce\"\nsize = \"3B\"", 4);
    assert_eq!(k, "size");
    assert!(m.contains("one byte per rank"), "{m}");
    let (k, _) = bad(
        "hosts = \"0-3\"\nop = \"all-reduce\"\nsize = \"1MB\"\nchannels = 0",
        4,
    );
    assert_eq!(k, "channels");
    let (k, _) = bad(
        "hosts = \"0-1023\"\nop = \"all-to-all\"\nsize = \"1GB\"\niterations = 100",
        1024,
    );
    assert_eq!(k, "iterations");
}

#[test]
fn collectives_of_an_iteration_follow_each_other_rank_by_rank() {
    // Dispatch and combine all-to-alls, then an all-reduce, twice.
    let j = job(r#"hosts = "0-3"
op = "all-to-all"
size = "4KB"
then = [{ op = "all-to-all", size = "4KB" }, { op = "all-reduce", size = "8KB", channels = 2 }]
iterations = 2
compute = "5us""#);
    let p = plan(&j, 4);
    let idx: Vec<(u32, u32)> = p
        .collectives
        .iter()
        .map(|c| (c.iteration, c.index))
        .collect();
    assert_eq!(idx, vec![(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]);
    let of = p.trigger_of();
    // The combine's first flows of rank 0 wait on rank 0's dispatch, at once.
    let combine = &p.collectives[1];
    let t = combine.transfers.iter().find(|t| t.src == 0).unwrap();
    let tr = &p.triggers[of[t.flow as usize].unwrap() as usize];
    assert_eq!(tr.delay, SimDuration::ZERO);
    let dispatch: Vec<u32> = p.collectives[0].transfers.iter().map(|t| t.flow).collect();
    assert!(tr.inputs.iter().all(|(f, _)| dispatch.contains(f)));
    assert_eq!(tr.inputs.len(), 6, "3 sent and 3 received by rank 0");
    // The next iteration's dispatch waits on the all-reduce, after compute.
    let next = &p.collectives[3];
    let t = next.transfers.iter().find(|t| t.src == 0).unwrap();
    let tr = &p.triggers[of[t.flow as usize].unwrap() as usize];
    assert_eq!(tr.delay, SimDuration::from_us(5));
    let reduce: Vec<u32> = p.collectives[2].transfers.iter().map(|t| t.flow).collect();
    assert!(tr.inputs.iter().all(|(f, _)| reduce.contains(f)));
    // A bad entry names its place.
    let bad = job(r#"hosts = "0-3"
op = "all-to-all"
size = "4KB"
then = [{ op = "all-gather", size = "4KB", algorithm = "direct" }]"#);
    assert_eq!(bad.check(4).unwrap_err().0, "then[0].algorithm");
}

/// `dcnsim list`'s `collective` keys and collectives.csv's columns name
/// every operation and every algorithm [`algo::IMPLEMENTED`] runs.
#[test]
fn the_listings_name_every_operation_and_algorithm() {
    let row = crate::registry::workload::FAMILY
        .find("collective")
        .expect("the collective row");
    let valid = |name: &str| {
        let k = row.doc.keys.iter().find(|k| k.name == name);
        k.unwrap_or_else(|| panic!("key {name}")).unit
    };
    let column = |name: &str| {
        let c = crate::report::columns::COLLECTIVES
            .columns
            .iter()
            .find(|c| c.name == name);
        c.unwrap_or_else(|| panic!("column {name}")).meaning
    };
    let words = |text: &str| -> Vec<String> {
        text.split([',', ' ', '(', ')'])
            .filter(|w| !w.is_empty())
            .map(String::from)
            .collect()
    };
    for op in Op::ALL {
        for text in [valid("op"), column("op")] {
            assert!(
                words(text).iter().any(|w| w == op.name()),
                "{} in {text}",
                op.name()
            );
        }
    }
    for i in algo::IMPLEMENTED {
        let a = i.algorithm.name();
        for text in [valid("algorithm"), column("algorithm")] {
            assert!(words(text).iter().any(|w| w == a), "{a} in {text}");
        }
    }
}

//! Reads one rank's Chakra execution trace: a stream of varint-delimited
//! protobuf messages (Chakra's `protolib.encodeMessage`), a
//! `GlobalMetadata` first and then the rank's `Node`s, into the nodes
//! dcnsim runs. Everything a run cannot carry out as written is refused
//! here, naming the node: an unknown or unsupported node type, a
//! collective type dcnsim has no algorithm for, a missing size or peer, a
//! dependency on no node, a cycle.
//!
//! The attributes read are the ones ASTRA-sim's trace feeder reads
//! (astra-sim/chakra `src/feeder/et_feeder_node.cpp`): `comm_type`,
//! `comm_size`, `comm_src`, `comm_dst`, `comm_tag`, `pg_name` and
//! `is_cpu_op`, and one of dcnsim's own, `comm_sizes` (a variable
//! all-to-all's bytes to each rank of the group, which Chakra's schema
//! lacks). Any other attribute is passed over, as the feeder does.

use super::schema::{self, AttributeProto, CollectiveCommType, NodeType, Value};
use crate::registry::workload::collective::algo::Op;
use prost::Message as _;
use std::collections::BTreeMap;

/// What a node does, once read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Work {
    /// Compute for the node's duration: on the GPU's compute stream, or
    /// on the host CPU's (`is_cpu_op`).
    Compute {
        /// The node ran on the CPU.
        cpu: bool,
    },
    /// A collective over a communicator group.
    Collective {
        /// Which one.
        op: Op,
        /// `comm_size`, bytes (ASTRA-sim's meaning: see `mod.rs`); for a
        /// variable all-to-all, the sum of `sizes`.
        size: u64,
        /// `pg_name`: the group (absent: every rank of the job).
        group: Option<String>,
        /// `comm_sizes` (an all-to-all only, dcnsim's attribute): the
        /// bytes this rank sends to each rank of its group, in the group's
        /// order (MoE's variable all-to-all, which Chakra's schema lacks).
        sizes: Option<Vec<u64>>,
    },
    /// A send of `size` bytes to rank `peer`.
    Send {
        /// The receiving rank.
        peer: u32,
        /// Bytes.
        size: u64,
        /// `comm_tag` (0 when absent).
        tag: u64,
    },
    /// A receive of `size` bytes from rank `peer`.
    Recv {
        /// The sending rank.
        peer: u32,
        /// Bytes.
        size: u64,
        /// `comm_tag` (0 when absent).
        tag: u64,
    },
    /// No work: a metadata node or an invalid one, which ASTRA-sim passes
    /// over (`Workload::skip_invalid`) but whose dependencies still hold.
    Pass,
}

/// One node of a rank's trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceNode {
    /// Its id in the trace.
    pub id: u64,
    /// Its name in the trace.
    pub name: String,
    /// What it does.
    pub work: Work,
    /// Its duration (compute), picoseconds: `duration_micros` x 10^6.
    pub duration_ps: u64,
    /// The nodes it waits on, data and control dependencies together, by
    /// index into the trace's nodes, ascending.
    pub deps: Vec<u32>,
}

/// One rank's trace, read and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankTrace {
    /// Its nodes, in the file's order.
    pub nodes: Vec<TraceNode>,
}

/// Why a trace file cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TraceError {
    /// The bytes are not a delimited protobuf stream of Chakra messages.
    #[error("not a Chakra execution trace: message {index} (from byte {offset}): {why}")]
    Decode {
        /// The message, from 0 (0: the `GlobalMetadata`).
        index: usize,
        /// Its first byte.
        offset: usize,
        /// What the decoder said.
        why: String,
    },
    /// A node cannot be run as written.
    #[error("node {id} ('{name}'): {why}")]
    Node {
        /// Its id.
        id: u64,
        /// Its name.
        name: String,
        /// Why.
        why: String,
    },
    /// The dependencies form a cycle.
    #[error("nodes {0:?} wait on each other in a cycle, so none of them would run")]
    Cycle(Vec<u64>),
    /// No node at all.
    #[error("the trace has no nodes")]
    Empty,
}

/// The node types dcnsim runs, as Chakra names them.
pub const SUPPORTED_NODES: &str =
    "COMP_NODE, COMM_COLL_NODE, COMM_SEND_NODE, COMM_RECV_NODE, METADATA_NODE, INVALID_NODE";

/// The collective types dcnsim runs, as Chakra names them.
pub const SUPPORTED_COLLECTIVES: &str =
    "ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, BROADCAST, REDUCE";

/// Reads the trace of rank `rank` of a job of `ranks` ranks from `bytes`.
pub fn read(bytes: &[u8], rank: u32, ranks: u32) -> Result<RankTrace, TraceError> {
    let mut buf = bytes;
    let mut index = 0;
    let decode_err = |index: usize, offset: usize, e: prost::DecodeError| TraceError::Decode {
        index,
        offset,
        why: e.to_string(),
    };
    schema::GlobalMetadata::decode_length_delimited(&mut buf).map_err(|e| decode_err(0, 0, e))?;
    let mut raw = Vec::new();
    while !buf.is_empty() {
        index += 1;
        let offset = bytes.len() - buf.len();
        let node = schema::Node::decode_length_delimited(&mut buf)
            .map_err(|e| decode_err(index, offset, e))?;
        raw.push(node);
    }
    if raw.is_empty() {
        return Err(TraceError::Empty);
    }
    let mut at: BTreeMap<u64, u32> = BTreeMap::new();
    for (i, n) in (0u32..).zip(&raw) {
        if at.insert(n.id, i).is_some() {
            return Err(node_err(
                n,
                "its id is used by another node of this trace".into(),
            ));
        }
    }
    let mut nodes = Vec::with_capacity(raw.len());
    for n in &raw {
        let work = work(n, rank, ranks).map_err(|why| node_err(n, why))?;
        let mut deps = Vec::with_capacity(n.ctrl_deps.len() + n.data_deps.len());
        for &d in n.ctrl_deps.iter().chain(&n.data_deps) {
            let Some(&i) = at.get(&d) else {
                return Err(node_err(
                    n,
                    format!("it depends on node {d}, which the trace does not have"),
                ));
            };
            if d == n.id {
                return Err(node_err(n, "it depends on itself".into()));
            }
            deps.push(i);
        }
        deps.sort_unstable();
        deps.dedup();
        let duration_ps = n.duration_micros.checked_mul(1_000_000).ok_or_else(|| {
            node_err(
                n,
                format!("duration_micros {} is beyond 2^64 ps", n.duration_micros),
            )
        })?;
        nodes.push(TraceNode {
            id: n.id,
            name: n.name.clone(),
            work,
            duration_ps,
            deps,
        });
    }
    let trace = RankTrace { nodes };
    trace.check_acyclic()?;
    Ok(trace)
}

fn node_err(n: &schema::Node, why: String) -> TraceError {
    TraceError::Node {
        id: n.id,
        name: n.name.clone(),
        why,
    }
}

/// What node `n` of rank `rank` does, or why it cannot run.
fn work(n: &schema::Node, rank: u32, ranks: u32) -> Result<Work, String> {
    let ty = NodeType::try_from(n.r#type).map_err(|_| {
        format!(
            "node type {} is not one of Chakra's (valid: {SUPPORTED_NODES})",
            n.r#type
        )
    })?;
    let attrs = Attrs(&n.attr);
    let size = || -> Result<u64, String> {
        match attrs.u64("comm_size")? {
            Some(0) | None => Err(format!("a {} needs a positive comm_size", ty.name())),
            Some(s) => Ok(s),
        }
    };
    Ok(match ty {
        NodeType::CompNode => Work::Compute {
            cpu: attrs.bool("is_cpu_op")?.unwrap_or(false),
        },
        NodeType::CommCollNode => {
            let op = collective_op(&attrs)?;
            let sizes = attrs.u64_list("comm_sizes")?;
            let size = match &sizes {
                None => size()?,
                Some(_) if op != Op::AllToAll => {
                    return Err(format!(
                        "comm_sizes is an all-to-all's; this is {}",
                        op.name()
                    ));
                }
                Some(row) => {
                    let sum = row.iter().fold(0u64, |a, &b| a.saturating_add(b));
                    match attrs.u64("comm_size")? {
                        Some(s) if s != sum => {
                            return Err(format!(
                                "comm_size {s} is not the sum of comm_sizes ({sum})"
                            ));
                        }
                        _ if sum == 0 => return Err("comm_sizes sends nothing".into()),
                        _ => sum,
                    }
                }
            };
            let group = attrs.string("pg_name")?;
            Work::Collective {
                op,
                size,
                group,
                sizes,
            }
        }
        NodeType::CommSendNode => {
            let (peer, tag) = peer_of(&attrs, ty, ("comm_src", "comm_dst"), rank, ranks)?;
            let size = size()?;
            Work::Send { peer, size, tag }
        }
        NodeType::CommRecvNode => {
            let (peer, tag) = peer_of(&attrs, ty, ("comm_dst", "comm_src"), rank, ranks)?;
            let size = size()?;
            Work::Recv { peer, size, tag }
        }
        NodeType::MetadataNode | NodeType::InvalidNode => Work::Pass,
        NodeType::MemLoadNode | NodeType::MemStoreNode => {
            return Err(format!(
                "{} (remote memory) is not run by dcnsim (valid: {SUPPORTED_NODES})",
                ty.name()
            ));
        }
    })
}

/// A send's or receive's peer and tag: `keys` are (its own end's key,
/// which must be this `rank` if given, the peer's key).
fn peer_of(
    attrs: &Attrs<'_>,
    ty: NodeType,
    (own, other): (&str, &str),
    rank: u32,
    ranks: u32,
) -> Result<(u32, u64), String> {
    if let Some(me) = attrs.u64(own)?
        && me != rank as u64
    {
        return Err(format!("{own} {me} is not this trace's rank {rank}"));
    }
    let p = (attrs.u64(other)?).ok_or_else(|| format!("a {} needs {other}", ty.name()))?;
    if p >= ranks as u64 {
        let last = ranks - 1;
        return Err(format!(
            "{other} {p} is not a rank: the job has ranks 0 to {last}"
        ));
    }
    if p == rank as u64 {
        return Err(format!("{other} {p} is this trace's own rank"));
    }
    Ok((p as u32, attrs.u64("comm_tag")?.unwrap_or(0)))
}

/// A collective node's operation, from `comm_type`.
fn collective_op(attrs: &Attrs<'_>) -> Result<Op, String> {
    let raw = attrs
        .u64("comm_type")?
        .ok_or("a COMM_COLL_NODE needs comm_type")?;
    let op = i32::try_from(raw)
        .ok()
        .and_then(|t| CollectiveCommType::try_from(t).ok())
        .ok_or_else(|| format!("comm_type {raw} is not one of Chakra's collectives"))?;
    Ok(match op {
        CollectiveCommType::AllReduce => Op::AllReduce,
        CollectiveCommType::AllGather => Op::AllGather,
        CollectiveCommType::ReduceScatter => Op::ReduceScatter,
        CollectiveCommType::AllToAll => Op::AllToAll,
        CollectiveCommType::Broadcast => Op::Broadcast,
        CollectiveCommType::Reduce => Op::Reduce,
        other => {
            return Err(format!(
                "collective {} is not run by dcnsim (valid: {SUPPORTED_COLLECTIVES})",
                other.name()
            ));
        }
    })
}

/// A node's attributes, looked up by name (the last of a name wins, as in
/// the feeder's map).
struct Attrs<'a>(&'a [AttributeProto]);

impl Attrs<'_> {
    fn get(&self, name: &str) -> Option<&Value> {
        (self.0.iter().rev().find(|a| a.name == name)).and_then(|a| a.value.as_ref())
    }

    /// An integer attribute of any of the schema's integer types.
    fn u64(&self, name: &str) -> Result<Option<u64>, String> {
        let signed = |v: i64| {
            u64::try_from(v).map_err(|_| format!("attribute {name} is {v}: it must be at least 0"))
        };
        Ok(Some(match self.get(name) {
            None => return Ok(None),
            Some(Value::Int32Val(v) | Value::Sint32Val(v) | Value::Sfixed32Val(v)) => {
                signed(*v as i64)?
            }
            Some(Value::Int64Val(v) | Value::Sint64Val(v) | Value::Sfixed64Val(v)) => signed(*v)?,
            Some(Value::Uint32Val(v) | Value::Fixed32Val(v)) => *v as u64,
            Some(Value::Uint64Val(v) | Value::Fixed64Val(v)) => *v,
            Some(_) => return Err(format!("attribute {name} is not an integer")),
        }))
    }

    /// A list attribute of any of the schema's integer types.
    fn u64_list(&self, name: &str) -> Result<Option<Vec<u64>>, String> {
        let neg = |v: i64| format!("attribute {name} has {v}: each must be at least 0");
        let signed = |l: &[i64]| -> Result<Vec<u64>, String> {
            l.iter()
                .map(|&v| u64::try_from(v).map_err(|_| neg(v)))
                .collect()
        };
        let widen = |l: &[i32]| l.iter().map(|&v| v as i64).collect::<Vec<i64>>();
        Ok(Some(match self.get(name) {
            None => return Ok(None),
            Some(Value::Int64List(l)) => signed(&l.values)?,
            Some(Value::Sint64List(l)) => signed(&l.values)?,
            Some(Value::Sfixed64List(l)) => signed(&l.values)?,
            Some(Value::Int32List(l)) => signed(&widen(&l.values))?,
            Some(Value::Sint32List(l)) => signed(&widen(&l.values))?,
            Some(Value::Sfixed32List(l)) => signed(&widen(&l.values))?,
            Some(Value::Uint64List(l)) => l.values.clone(),
            Some(Value::Fixed64List(l)) => l.values.clone(),
            Some(Value::Uint32List(l)) => l.values.iter().map(|&v| v as u64).collect(),
            Some(Value::Fixed32List(l)) => l.values.iter().map(|&v| v as u64).collect(),
            Some(_) => return Err(format!("attribute {name} is not a list of integers")),
        }))
    }

    fn bool(&self, name: &str) -> Result<Option<bool>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::BoolVal(b)) => Ok(Some(*b)),
            Some(_) => Err(format!("attribute {name} is not a bool")),
        }
    }

    fn string(&self, name: &str) -> Result<Option<String>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::StringVal(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("attribute {name} is not a string")),
        }
    }
}

impl RankTrace {
    /// Refuses a cycle of dependencies, naming its nodes' ids.
    fn check_acyclic(&self) -> Result<(), TraceError> {
        // Kahn's algorithm over the dependency edges.
        let n = self.nodes.len();
        let mut waiting: Vec<u32> = self.nodes.iter().map(|x| x.deps.len() as u32).collect();
        let mut next: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, x) in (0u32..).zip(&self.nodes) {
            for &d in &x.deps {
                next[d as usize].push(i);
            }
        }
        let mut ready: Vec<u32> = (0..n as u32)
            .filter(|&i| waiting[i as usize] == 0)
            .collect();
        let mut done = 0;
        while let Some(i) = ready.pop() {
            done += 1;
            for &j in &next[i as usize] {
                waiting[j as usize] -= 1;
                if waiting[j as usize] == 0 {
                    ready.push(j);
                }
            }
        }
        if done == n {
            return Ok(());
        }
        let stuck: Vec<u64> = (self.nodes.iter().zip(&waiting))
            .filter(|(_, w)| **w > 0)
            .map(|(x, _)| x.id)
            .take(8)
            .collect();
        Err(TraceError::Cycle(stuck))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str) -> Vec<u8> {
        let path = format!("{}/tests/traces/chakra/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// Chakra's generator writes one attribute of every type of the
    /// schema; each decodes to the value it wrote, so every field number
    /// and wire type of `schema.rs` matches Chakra's.
    #[test]
    fn every_attribute_type_decodes_as_chakra_wrote_it() {
        let bytes = file("generator/one_metadata_node_all_types.0.et");
        let mut buf = &bytes[..];
        let meta = schema::GlobalMetadata::decode_length_delimited(&mut buf).expect("metadata");
        assert_eq!(meta.version, "1.0.0");
        let node = schema::Node::decode_length_delimited(&mut buf).expect("a node");
        assert!(buf.is_empty());
        assert_eq!(node.r#type, NodeType::MetadataNode as i32);
        let a = Attrs(&node.attr);
        let get = |n: &str| a.get(n).cloned().unwrap_or_else(|| panic!("{n}"));
        assert_eq!(get("double"), Value::DoubleVal(1.2345));
        assert_eq!(get("float"), Value::FloatVal(1.2345));
        assert_eq!(get("int32"), Value::Int32Val(12345));
        assert_eq!(get("int64"), Value::Int64Val(9_876_543_210));
        assert_eq!(get("uint32"), Value::Uint32Val(12345));
        assert_eq!(get("uint64"), Value::Uint64Val(9_876_543_210));
        assert_eq!(get("sint32"), Value::Sint32Val(-12345));
        assert_eq!(get("sint64"), Value::Sint64Val(-9_876_543_210));
        assert_eq!(get("fixed32"), Value::Fixed32Val(12345));
        assert_eq!(get("fixed64"), Value::Fixed64Val(9_876_543_210));
        assert_eq!(get("sfixed32"), Value::Sfixed32Val(-12345));
        assert_eq!(get("sfixed64"), Value::Sfixed64Val(-9_876_543_210));
        assert_eq!(get("bool"), Value::BoolVal(true));
        assert_eq!(get("string"), Value::StringVal("12345".into()));
        assert_eq!(get("bytes"), Value::BytesVal(b"12345".to_vec()));
        assert!(
            matches!(get("int64_list"), Value::Int64List(l) if l.values == [9_876_543_210, 1_234_567_890])
        );
        assert!(
            matches!(get("string_list"), Value::StringList(l) if l.values.len() == 10 && l.values[1] == "12346")
        );
        assert!(matches!(get("sint32_list"), Value::Sint32List(l) if l.values == [12345, -23456]));
        assert!(
            matches!(get("sfixed64_list"), Value::Sfixed64List(l) if l.values == [9_876_543_210, -1_234_567_890])
        );
        assert!(
            matches!(get("bool_list"), Value::BoolList(l) if l.values.len() == 10 && l.values[0] && !l.values[1])
        );
        assert!(matches!(get("double_list"), Value::DoubleList(l) if l.values == [1.2345, 2.3456]));
        assert_eq!(
            a.u64("sint32"),
            Err("attribute sint32 is -12345: it must be at least 0".into())
        );
        assert_eq!(a.u64("fixed64"), Ok(Some(9_876_543_210)));
        assert_eq!(
            a.u64("string"),
            Err("attribute string is not an integer".into())
        );
        // The metadata node does no work.
        let t = read(&bytes, 0, 4).expect("reads");
        assert_eq!(t.nodes[0].work, Work::Pass);
    }

    /// ASTRA-sim's shipped all-reduce: one COMM_COLL_NODE of 1 MiB.
    #[test]
    fn astra_sims_microbenchmark_reads_as_one_collective() {
        let t = read(
            &file("astra-sim/all_reduce_4npus_1MB/all_reduce.2.et"),
            2,
            4,
        )
        .expect("reads");
        assert_eq!(t.nodes.len(), 1);
        assert_eq!(t.nodes[0].id, 2);
        let want = Work::Collective {
            op: Op::AllReduce,
            size: 1 << 20,
            group: None,
            sizes: None,
        };
        assert_eq!(t.nodes[0].work, want);
    }

    /// Dependencies become indices; durations picoseconds.
    #[test]
    fn dependencies_and_durations_are_read() {
        let t = read(&file("generator/two_comp_nodes_dependent.1.et"), 1, 4).expect("reads");
        assert_eq!(t.nodes.len(), 2);
        assert_eq!(t.nodes[1].deps, [0]);
        assert_eq!(t.nodes[0].duration_ps, 5_000_000);
        assert_eq!(t.nodes[0].work, Work::Compute { cpu: false });
    }

    /// REDUCE (which Chakra's generator does not write) is a reduce.
    #[test]
    fn a_reduce_node_is_a_reduce() {
        use super::super::schema::{AttributeProto, Value};
        let comm_type = AttributeProto {
            name: "comm_type".into(),
            doc_string: String::new(),
            value: Some(Value::Int64Val(CollectiveCommType::Reduce as i64)),
        };
        let attrs = [comm_type];
        assert_eq!(collective_op(&Attrs(&attrs)), Ok(Op::Reduce));
    }

    /// What dcnsim cannot run is refused by name, with the node.
    #[test]
    fn unsupported_nodes_are_refused_by_name() {
        let err = |name: &str| read(&file(name), 0, 4).expect_err(name).to_string();
        let e = err("generator/one_remote_mem_load_node.0.et");
        assert!(
            e.contains("MEM_LOAD_NODE (remote memory) is not run by dcnsim"),
            "{e}"
        );
        assert!(e.starts_with("node "), "{e}");
        let e = err("generator/BARRIER.0.et");
        assert!(e.contains("collective BARRIER is not run by dcnsim"), "{e}");
        assert!(e.contains(SUPPORTED_COLLECTIVES), "{e}");
        // Chakra's generator writes a send with no peer.
        let e = err("generator/one_comm_send_node.0.et");
        assert!(e.contains("a COMM_SEND_NODE needs comm_dst"), "{e}");
        let e = read(b"\x05abc", 0, 1).expect_err("garbage").to_string();
        assert!(
            e.starts_with("not a Chakra execution trace: message 0"),
            "{e}"
        );
    }

    fn encode(nodes: &[schema::Node]) -> Vec<u8> {
        let mut out = Vec::new();
        let meta = schema::GlobalMetadata {
            version: "0.0.4".into(),
            attr: Vec::new(),
        };
        meta.encode_length_delimited(&mut out).expect("encodes");
        for n in nodes {
            n.encode_length_delimited(&mut out).expect("encodes");
        }
        out
    }

    fn comp(id: u64, deps: &[u64]) -> schema::Node {
        schema::Node {
            id,
            name: format!("c{id}"),
            r#type: NodeType::CompNode as i32,
            data_deps: deps.to_vec(),
            duration_micros: 1,
            ..Default::default()
        }
    }

    #[test]
    fn bad_graphs_are_refused_naming_the_nodes() {
        let e = read(&encode(&[comp(1, &[2]), comp(2, &[1])]), 0, 1).expect_err("cycle");
        assert_eq!(e, TraceError::Cycle(vec![1, 2]));
        let e = read(&encode(&[comp(1, &[9])]), 0, 1).expect_err("dangling");
        assert!(
            e.to_string()
                .contains("node 1 ('c1'): it depends on node 9"),
            "{e}"
        );
        let e = read(&encode(&[comp(1, &[]), comp(1, &[])]), 0, 1).expect_err("twice");
        assert!(
            e.to_string().contains("its id is used by another node"),
            "{e}"
        );
        let e = read(&encode(&[]), 0, 1).expect_err("empty");
        assert_eq!(e, TraceError::Empty);
        let mut odd = comp(3, &[]);
        odd.r#type = 42;
        let e = read(&encode(&[odd]), 0, 1).expect_err("type");
        assert!(
            e.to_string()
                .contains("node type 42 is not one of Chakra's"),
            "{e}"
        );
    }
}

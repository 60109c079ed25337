//! Chakra's execution-trace messages (MLCommons Chakra,
//! `schema/protobuf/et_def.proto` at 21585d8, vendored beside this file as
//! `et_def.proto`), derived for `prost` by hand so that a build needs no
//! `protoc`: each field keeps the schema's name, number and wire type. The
//! tests of `read.rs` decode traces written by Chakra's own generator and
//! shipped with ASTRA-sim, which a wrong number or type would garble.

#![allow(missing_docs)] // The schema's own names; et_def.proto documents them.

/// `AttributeProto`: one named attribute of a node.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeProto {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub doc_string: String,
    #[prost(
        oneof = "Value",
        tags = "3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32"
    )]
    pub value: Option<Value>,
}

/// `AttributeProto.value`: the oneof of an attribute's value.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Value {
    #[prost(double, tag = "3")]
    DoubleVal(f64),
    #[prost(message, tag = "4")]
    DoubleList(DoubleList),
    #[prost(float, tag = "5")]
    FloatVal(f32),
    #[prost(message, tag = "6")]
    FloatList(FloatList),
    #[prost(int32, tag = "7")]
    Int32Val(i32),
    #[prost(message, tag = "8")]
    Int32List(Int32List),
    #[prost(int64, tag = "9")]
    Int64Val(i64),
    #[prost(message, tag = "10")]
    Int64List(Int64List),
    #[prost(uint32, tag = "11")]
    Uint32Val(u32),
    #[prost(message, tag = "12")]
    Uint32List(Uint32List),
    #[prost(uint64, tag = "13")]
    Uint64Val(u64),
    #[prost(message, tag = "14")]
    Uint64List(Uint64List),
    #[prost(sint32, tag = "15")]
    Sint32Val(i32),
    #[prost(message, tag = "16")]
    Sint32List(Sint32List),
    #[prost(sint64, tag = "17")]
    Sint64Val(i64),
    #[prost(message, tag = "18")]
    Sint64List(Sint64List),
    #[prost(fixed32, tag = "19")]
    Fixed32Val(u32),
    #[prost(message, tag = "20")]
    Fixed32List(Fixed32List),
    #[prost(fixed64, tag = "21")]
    Fixed64Val(u64),
    #[prost(message, tag = "22")]
    Fixed64List(Fixed64List),
    #[prost(sfixed32, tag = "23")]
    Sfixed32Val(i32),
    #[prost(message, tag = "24")]
    Sfixed32List(Sfixed32List),
    #[prost(sfixed64, tag = "25")]
    Sfixed64Val(i64),
    #[prost(message, tag = "26")]
    Sfixed64List(Sfixed64List),
    #[prost(bool, tag = "27")]
    BoolVal(bool),
    #[prost(message, tag = "28")]
    BoolList(BoolList),
    #[prost(string, tag = "29")]
    StringVal(String),
    #[prost(message, tag = "30")]
    StringList(StringList),
    #[prost(bytes = "vec", tag = "31")]
    BytesVal(Vec<u8>),
    #[prost(message, tag = "32")]
    BytesList(BytesList),
}

/// `DoubleList`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DoubleList {
    #[prost(double, repeated, tag = "1")]
    pub values: Vec<f64>,
}

/// `FloatList`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FloatList {
    #[prost(float, repeated, tag = "1")]
    pub values: Vec<f32>,
}

/// `Int32List`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Int32List {
    #[prost(int32, repeated, tag = "1")]
    pub values: Vec<i32>,
}

/// `Int64List`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Int64List {
    #[prost(int64, repeated, tag = "1")]
    pub values: Vec<i64>,
}

/// `Uint32List`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Uint32List {
    #[prost(uint32, repeated, tag = "1")]
    pub values: Vec<u32>,
}

/// `Uint64List`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Uint64List {
    #[prost(uint64, repeated, tag = "1")]
    pub values: Vec<u64>,
}

/// `Sint32List`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Sint32List {
    #[prost(sint32, repeated, tag = "1")]
    pub values: Vec<i32>,
}

/// `Sint64List`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Sint64List {
    #[prost(sint64, repeated, tag = "1")]
    pub values: Vec<i64>,
}

/// `Fixed32List`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Fixed32List {
    #[prost(fixed32, repeated, tag = "1")]
    pub values: Vec<u32>,
}

/// `Fixed64List`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Fixed64List {
    #[prost(fixed64, repeated, tag = "1")]
    pub values: Vec<u64>,
}

/// `Sfixed32List`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Sfixed32List {
    #[prost(sfixed32, repeated, tag = "1")]
    pub values: Vec<i32>,
}

/// `Sfixed64List`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Sfixed64List {
    #[prost(sfixed64, repeated, tag = "1")]
    pub values: Vec<i64>,
}

/// `BoolList`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BoolList {
    #[prost(bool, repeated, tag = "1")]
    pub values: Vec<bool>,
}

/// `StringList`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StringList {
    #[prost(string, repeated, tag = "1")]
    pub values: Vec<String>,
}

/// `BytesList`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BytesList {
    #[prost(bytes = "vec", repeated, tag = "1")]
    pub values: Vec<Vec<u8>>,
}

/// `GlobalMetadata`: the first message of a trace file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GlobalMetadata {
    #[prost(string, tag = "1")]
    pub version: String,
    #[prost(message, repeated, tag = "2")]
    pub attr: Vec<AttributeProto>,
}

/// `NodeType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum NodeType {
    InvalidNode = 0,
    MetadataNode = 1,
    MemLoadNode = 2,
    MemStoreNode = 3,
    CompNode = 4,
    CommSendNode = 5,
    CommRecvNode = 6,
    CommCollNode = 7,
}

impl NodeType {
    /// Its name in the schema.
    pub fn name(self) -> &'static str {
        match self {
            NodeType::InvalidNode => "INVALID_NODE",
            NodeType::MetadataNode => "METADATA_NODE",
            NodeType::MemLoadNode => "MEM_LOAD_NODE",
            NodeType::MemStoreNode => "MEM_STORE_NODE",
            NodeType::CompNode => "COMP_NODE",
            NodeType::CommSendNode => "COMM_SEND_NODE",
            NodeType::CommRecvNode => "COMM_RECV_NODE",
            NodeType::CommCollNode => "COMM_COLL_NODE",
        }
    }
}

/// `CollectiveCommType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum CollectiveCommType {
    AllReduce = 0,
    Reduce = 1,
    AllGather = 2,
    Gather = 3,
    Scatter = 4,
    Broadcast = 5,
    AllToAll = 6,
    ReduceScatter = 7,
    ReduceScatterBlock = 8,
    Barrier = 9,
}

impl CollectiveCommType {
    /// Its name in the schema.
    pub fn name(self) -> &'static str {
        match self {
            CollectiveCommType::AllReduce => "ALL_REDUCE",
            CollectiveCommType::Reduce => "REDUCE",
            CollectiveCommType::AllGather => "ALL_GATHER",
            CollectiveCommType::Gather => "GATHER",
            CollectiveCommType::Scatter => "SCATTER",
            CollectiveCommType::Broadcast => "BROADCAST",
            CollectiveCommType::AllToAll => "ALL_TO_ALL",
            CollectiveCommType::ReduceScatter => "REDUCE_SCATTER",
            CollectiveCommType::ReduceScatterBlock => "REDUCE_SCATTER_BLOCK",
            CollectiveCommType::Barrier => "BARRIER",
        }
    }
}

/// `Node`: one operation of a rank's trace.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Node {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(enumeration = "NodeType", tag = "3")]
    pub r#type: i32,
    #[prost(uint64, repeated, tag = "4")]
    pub ctrl_deps: Vec<u64>,
    #[prost(uint64, repeated, tag = "5")]
    pub data_deps: Vec<u64>,
    #[prost(uint64, tag = "6")]
    pub start_time_micros: u64,
    #[prost(uint64, tag = "7")]
    pub duration_micros: u64,
    #[prost(message, optional, tag = "8")]
    pub inputs: Option<IoInfo>,
    #[prost(message, optional, tag = "9")]
    pub outputs: Option<IoInfo>,
    #[prost(message, repeated, tag = "10")]
    pub attr: Vec<AttributeProto>,
}

/// `IOInfo`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IoInfo {
    #[prost(string, tag = "1")]
    pub values: String,
    #[prost(string, tag = "2")]
    pub shapes: String,
    #[prost(string, tag = "3")]
    pub types: String,
}

#!/usr/bin/env python3
"""Writes the Chakra execution traces dcnsim ships, with Chakra's own
Python package (MLCommons Chakra, https://github.com/mlcommons/chakra,
built at 21585d8: `pip install --no-deps .` in its checkout), so that they
are made the way a user's traces are.

    python3 scripts/chakra/make_traces.py OUT_DIR

writes, for each trace below, OUT_DIR/NAME/NAME.RANK.et:

- `dp-4layer` (8 ranks): one data-parallel training iteration, PyTorch
  DDP's shape. Forward over 4 layers, then backward from the last layer
  to the first; each layer's gradient all-reduce depends on that layer's
  backward only, so it runs while the earlier layers' backward computes
  (the overlap DDP's gradient buckets give); the optimizer step waits on
  every all-reduce.
- `every-kind` (4 ranks): one node of each kind dcnsim runs, with data
  and control dependencies: GPU and CPU compute, a metadata node, a
  collective on a named group, a send and its receive.
- `moe-2layer` (8 ranks): two mixture-of-experts layers: attention
  compute, an all-to-all dispatch, expert compute, an all-to-all combine,
  then a data-parallel all-reduce of the dense weights overlapping the
  second layer.

Every size and duration is stated in the trace as Chakra defines it
(`comm_size` in bytes, `duration_micros` in microseconds).
"""

import os
import sys

from chakra.schema.protobuf.et_def_pb2 import (
    ALL_REDUCE,
    ALL_TO_ALL,
    COMM_COLL_NODE,
    COMM_RECV_NODE,
    COMM_SEND_NODE,
    COMP_NODE,
    METADATA_NODE,
    AttributeProto as Attr,
    GlobalMetadata,
    Node,
)
from chakra.src.third_party.utils.protolib import encodeMessage


class Trace:
    """One rank's nodes, numbered from 0 in the order they are added."""

    def __init__(self):
        self.nodes = []

    def add(self, name, kind, deps=(), ctrl=(), **attrs):
        n = Node(id=len(self.nodes), name=name, type=kind)
        n.data_deps.extend(deps)
        n.ctrl_deps.extend(ctrl)
        duration = attrs.pop("duration_micros", None)
        if duration is not None:
            n.duration_micros = duration
        n.attr.append(Attr(name="is_cpu_op", bool_val=attrs.pop("is_cpu_op", False)))
        for key, value in attrs.items():
            if isinstance(value, str):
                n.attr.append(Attr(name=key, string_val=value))
            else:
                n.attr.append(Attr(name=key, int64_val=value))
        self.nodes.append(n)
        return n.id

    def comp(self, name, us, deps=(), ctrl=(), cpu=False):
        return self.add(name, COMP_NODE, deps, ctrl, duration_micros=us, is_cpu_op=cpu)

    def coll(self, name, op, size, deps=(), ctrl=(), **attrs):
        return self.add(name, COMM_COLL_NODE, deps, ctrl, comm_type=op, comm_size=size, **attrs)

    def write(self, path):
        with open(path, "wb") as f:
            encodeMessage(f, GlobalMetadata(version="0.0.4"))
            for n in self.nodes:
                encodeMessage(f, n)


def dp_4layer(rank, ranks):
    t = Trace()
    fwd_us, bwd_us, grad = 300, 600, 4 << 20  # per layer; 4 MiB of gradient
    last = None
    for layer in range(4):
        last = t.comp(f"fwd{layer}", fwd_us, deps=[last] if last is not None else [])
    reduces = []
    for layer in reversed(range(4)):
        last = t.comp(f"bwd{layer}", bwd_us, deps=[last])
        reduces.append(t.coll(f"allreduce{layer}", ALL_REDUCE, grad, deps=[last]))
    t.comp("optimizer", 50, deps=reduces)
    return t


def every_kind(rank, ranks):
    t = Trace()
    meta = t.add("pg_metadata", METADATA_NODE)
    a = t.comp("gpu_compute", 20, ctrl=[meta])
    b = t.comp("cpu_compute", 5, deps=[meta], cpu=True)
    group = "0" if rank < 2 else "1"
    c = t.coll("allreduce_pair", ALL_REDUCE, 1 << 20, deps=[a], pg_name=group)
    peer = (rank + 1) % ranks
    src = (rank - 1) % ranks
    s = t.add("send", COMM_SEND_NODE, deps=[c], comm_dst=peer, comm_size=256 << 10, comm_tag=7)
    r = t.add("recv", COMM_RECV_NODE, deps=[b], comm_src=src, comm_size=256 << 10, comm_tag=7)
    t.comp("after", 10, deps=[s, r])
    return t


def moe_2layer(rank, ranks):
    t = Trace()
    dense = 4 << 20
    last = None
    reduces = []
    for layer in range(2):
        att = t.comp(f"attention{layer}", 80, deps=[last] if last is not None else [])
        disp = t.coll(f"dispatch{layer}", ALL_TO_ALL, 2 << 20, deps=[att])
        exp = t.comp(f"experts{layer}", 120, deps=[disp])
        last = t.coll(f"combine{layer}", ALL_TO_ALL, 2 << 20, deps=[exp])
        reduces.append(t.coll(f"allreduce_dense{layer}", ALL_REDUCE, dense, deps=[att]))
    t.comp("optimizer", 40, deps=[last] + reduces)
    return t


TRACES = {
    "dp-4layer": (dp_4layer, 8),
    "every-kind": (every_kind, 4),
    "moe-2layer": (moe_2layer, 8),
}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    for name, (make, ranks) in TRACES.items():
        os.makedirs(os.path.join(out, name), exist_ok=True)
        for r in range(ranks):
            make(r, ranks).write(os.path.join(out, name, f"{name}.{r}.et"))
        print(f"{name}: {ranks} ranks")


if __name__ == "__main__":
    main()

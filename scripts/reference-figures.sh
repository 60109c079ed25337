#!/usr/bin/env bash
# Draws the reference figures of docs/sweeps.md (one of each kind) into
# docs/figures/ from shipped scenarios. Needs a release build; takes
# a few minutes on 2 cores.
#
#   scripts/reference-figures.sh [DCNSIM]    (default: target/release/dcnsim)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/dcnsim}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=docs/figures
mkdir -p "$out"

"$bin" sweep scenarios/examples/incast-sweep.toml --out "$work/incast" -j 2 > /dev/null 2>&1
cp "$work/incast/plots/fct_p99_us-vs-workload_0__senders.png" "$out/metric.png"
cp "$work/incast/plots/fct_cdf-4.png" "$out/fct_cdf.png"

"$bin" sweep scenarios/examples/websearch-sweep.toml --out "$work/web" -j 2 > /dev/null 2>&1
cp "$work/web/plots/slowdown_mean-by-size-3.png" "$out/slowdown_by_size.png"

"$bin" run scenarios/rcc/incast-long-flow.toml --out "$work/rcc-incast" > /dev/null 2>&1
cp "$work/rcc-incast/plots/queues.png" "$out/queues.png"

"$bin" run scenarios/rcc/convergence.toml --out "$work/rcc-conv" > /dev/null 2>&1
cp "$work/rcc-conv/plots/cc_rate.png" "$out/cc_rate.png"
cp "$work/rcc-conv/plots/goodput.png" "$out/goodput.png"

"$bin" run scenarios/cubic/long-fat-link.toml --out "$work/cubic" > /dev/null 2>&1
cp "$work/cubic/plots/cc_window.png" "$out/cc_window.png"

"$bin" run scenarios/examples/mq-ecn.toml --out "$work/mq-ecn" > /dev/null 2>&1
cp "$work/mq-ecn/plots/ping_rtt_cdf.png" "$out/ping_rtt_cdf.png"

"$bin" run scenarios/examples/websearch.toml --out "$work/rtt" \
    --set output.rtt_interval=1ms > /dev/null 2>&1
cp "$work/rtt/plots/rtt.png" "$out/rtt.png"

"$bin" run scenarios/examples/capture-tcp.toml --out "$work/capture" > /dev/null 2>&1
cp "$work/capture/plots/timeline_port_switch-host0.png" "$out/timeline_port.png"
cp "$work/capture/plots/timeline_flow_0.png" "$out/timeline_flow.png"

"$bin" sweep scenarios/ai-fabric/cct-vs-size-sweep.toml --out "$work/cct" -j 2 > /dev/null 2>&1
cp "$work/cct/plots/cct-vs-size.png" "$out/collective_cct_vs_size.png"

"$bin" run scenarios/ai-fabric/moe-alltoall-k8.toml --out "$work/moe" > /dev/null 2>&1
cp "$work/moe/plots/collective_timeline_0.png" "$out/collective_timeline.png"

"$bin" run scenarios/ai-fabric/perm-k8.toml --out "$work/links" \
    --set output.link_interval=20us > /dev/null 2>&1
cp "$work/links/plots/link_utilisation.png" "$out/link_utilisation.png"

"$bin" sweep scenarios/ai-training/nccl-busbw-sweep.toml --out "$work/busbw" -j 2 > /dev/null 2>&1
cp "$work/busbw/plots/busbw-vs-size.png" "$out/nccl_busbw_vs_size.png"

"$bin" run scenarios/ai-training/chakra-dp.toml --out "$work/trace" > /dev/null 2>&1
cp "$work/trace/plots/trace_timeline_0.png" "$out/trace_timeline.png"

"$bin" sweep scenarios/ai-training/rail-congestion-sweep.toml --out "$work/rails" -j 2 > /dev/null 2>&1
cp "$work/rails/plots/dp-cct.png" "$out/rail_congestion_dp_cct.png"

echo "reference figures in $out:"
ls "$out"

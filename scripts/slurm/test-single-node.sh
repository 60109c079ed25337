#!/bin/bash
# Tests scripts/slurm/sweep.sbatch on a real Slurm: a single-node cluster
# on 127.0.0.1, started here and stopped again.
#
#   bash scripts/slurm/test-single-node.sh [DCNSIM]
#
# Installs Slurm and munge from Debian's packages when they are missing
# (needs root and apt), starts munged, slurmctld and slurmd with a config
# under a temporary folder, submits a small sweep as an 8-task job array
# held, then released at once so that every shard starts at the same moment
# into the one fresh output folder (what a real array does when a cluster
# has room), submits the merge job after it (--dependency=afterok), waits,
# and checks
# that sweep.csv equals the one a local (unsharded) sweep writes and that
# the figures were drawn. With DCNSIM_MPI (a build with the `mpi`
# feature), it then submits scripts/slurm/run-mpi.sbatch as a 4-task job
# (one run across 4 MPI ranks) and checks that it writes one process's
# bytes. The daemons it started are stopped by their pids, whatever
# happens. DCNSIM defaults to target/release/dcnsim.
#
#   bash scripts/slurm/test-single-node.sh [DCNSIM [DCNSIM_MPI]]
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
dcnsim=$(realpath "${1:-$root/target/release/dcnsim}")
dcnsim_mpi=${2:+$(realpath "$2")}
[ -x "$dcnsim" ] || { echo "no dcnsim binary at $dcnsim (cargo build --release)" >&2; exit 1; }

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
    || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    echo "slurm: installing slurmctld, slurmd, slurm-client and munge"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        slurmctld slurmd slurm-client munge >/dev/null
fi

work=$(mktemp -d /tmp/dcnsim-slurm.XXXXXX)
chmod 755 "$work" # munged (user munge) reaches its folder inside
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
    local limit=$1 what=$2; shift 2
    for _ in $(seq $((limit * 10))); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.1
    done
    echo "slurm: $what did not happen within ${limit}s" >&2
    for log in "$work"/*.log "$work"/munge/*.log; do echo "--- $log" >&2; tail -20 "$log" >&2; done
    return 1
}

# munge: its own key and socket folder, run as user munge.
mkdir -p "$work/munge" /run/munge
chown munge:munge "$work/munge" /run/munge
if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
    chown munge:munge /etc/munge/munge.key
    chmod 400 /etc/munge/munge.key
fi
socket=/run/munge/munge.socket.2
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    setpriv --reuid=munge --regid=munge --init-groups \
        /usr/sbin/munged -F --socket="$socket" --pid-file="$work/munge/munged.pid" \
        --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed" \
        >"$work/munge/out.log" 2>&1 &
    pids+=($!)
    wait_for 10 "munged answering" bash -c "munge -n | unmunge"
fi

host=$(hostname -s)
shards=8
cpus=$(( $(nproc) > shards ? $(nproc) : shards ))
mkdir -p "$work/state" "$work/spool"
export SLURM_CONF="$work/slurm.conf"
cat > "$SLURM_CONF" <<CONF
ClusterName=dcnsim-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SchedulerParameters=batch_sched_delay=0
# The node claims 8 CPUs whatever it has, so that the 8 shards run at once.
SlurmdParameters=config_overrides
MailProg=/bin/true
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
SlurmctldPort=6917
SlurmdPort=6918
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

/usr/sbin/slurmctld -D -c -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
wait_for 30 "slurmctld up" bash -c "scontrol ping | grep -q UP"
/usr/sbin/slurmd -D -N "$host" -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
pids+=($!)
wait_for 30 "the node idle" bash -c "sinfo -h -o %t | grep -q idle"
echo "slurm: single-node cluster up ($host, $cpus CPUs)"

# A small sweep: 2 cases x 2 buffers x 2 seeds = 8 runs, 8 shards, on
# the shipped incast example cut down to 8 senders of 200 KB.
cp "$root/scenarios/examples/incast.toml" "$work/base.toml"
cat > "$work/sweep.toml" <<TOML
[sweep]
base = "base.toml"
seeds = 2
[sweep.set]
"workload[0].senders" = "1-8"
"workload[0].size" = "200KB"
[sweep.grid]
"switch.buffer" = ["50pkt", "200pkt"]
[[sweep.case]]
name = "DropTail"
[[sweep.case]]
name = "DCTCP"
set = { "switch.aqm" = { kind = "step-ecn", k = "20pkt" }, "transport.cc" = "dctcp" }
TOML

cd "$work"
"$dcnsim" sweep sweep.toml --out local -j 2 >/dev/null 2>&1
# The array and its merge job, as docs/sweeps.md submits them, with the
# binary from DCNSIM.
export DCNSIM="$dcnsim"
job=$(sbatch --parsable --hold --array=0-$((shards - 1)) --output="$work/task-%a.out" \
    "$root/scripts/slurm/sweep.sbatch" "$work/sweep.toml" "$work/cluster")
# Released together: the shards race to create and claim the fresh folder.
scontrol release "$job"
sbatch --parsable --wait --dependency=afterok:"$job" --output="$work/merge.out" \
    "$root/scripts/slurm/merge.sbatch" "$work/cluster" >/dev/null || {
    echo "slurm: the job array or its merge job failed" >&2
    cat "$work"/task-*.out "$work/merge.out" >&2 || true
    exit 1
}
tables=$(ls "$work"/cluster/sweep.shard-*.csv | wc -l)
echo "slurm: job array $job ($shards shards released at once) and its merge job done: $tables shard tables"
[ "$tables" -eq "$shards" ] || { echo "slurm: $tables shard tables, not $shards" >&2; exit 1; }
if cmp -s local/sweep.csv cluster/sweep.csv; then
    echo "slurm: ok: the merged sweep.csv of the job array equals the local sweep's ($(($(wc -l < local/sweep.csv) - 1)) runs)"
else
    echo "slurm: the merged sweep.csv differs from the local sweep's" >&2
    diff local/sweep.csv cluster/sweep.csv >&2 || true
    exit 1
fi
ls "$work"/cluster/plots/*.png >/dev/null || { echo "slurm: the merge job drew no figures" >&2; exit 1; }

[ -n "$dcnsim_mpi" ] || exit 0
# One run across 4 MPI ranks, as docs/sweeps.md submits it: the cut PFC
# fabric of the MPI test, against one process.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
cut=(--set simulation.partition=pods --set simulation.lps=4 --set simulation.order=model --no-plots)
sc="$root/tests/mpi/pfc-permutation-k4.toml"
"$dcnsim" run "$sc" "${cut[@]}" --out "$work/mpi-one" >/dev/null
DCNSIM="$dcnsim_mpi" sbatch --parsable --wait --ntasks=4 --cpus-per-task=1 \
    --output="$work/mpi-job.out" "$root/scripts/slurm/run-mpi.sbatch" "$sc" "$work/mpi-job" \
    "${cut[@]}" >/dev/null || {
    echo "slurm: the MPI job failed" >&2
    cat "$work/mpi-job.out" >&2 || true
    exit 1
}
grep -q '"ranks": 4' "$work/mpi-job/perf.json" || { echo "slurm: the MPI job did not run 4 ranks" >&2; exit 1; }
for f in $(cd "$work/mpi-one" && find . -type f ! -name perf.json ! -name .dcnsim | sort); do
    cmp -s "$work/mpi-one/$f" "$work/mpi-job/$f" || { echo "slurm: the MPI job's $f differs" >&2; exit 1; }
done
echo "slurm: ok: run-mpi.sbatch ran one run across 4 MPI ranks and wrote one process's bytes"

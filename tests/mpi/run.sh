#!/usr/bin/env bash
# `mpirun -np 2 build/lucid TASK` prints exactly what `build/lucid TASK` prints: runs TASK
# (and its arguments) both ways on this machine (loopback / shared memory only) and diffs the
# outputs. Skipped (77) when mpirun is missing or the executable was built without MPI.
set -euo pipefail
lucid=$1; shift
command -v mpirun >/dev/null || { echo "mpirun not installed: skipped"; exit 77; }
# (ldd's output read whole: `grep -q` would close the pipe early, and under pipefail ldd's
# SIGPIPE made an MPI build look like one without MPI - a skip now and then)
libs=$(ldd "$lucid")
grep libmpi >/dev/null <<<"$libs" || { echo "$lucid built without MPI: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Local ranks only: shared memory and self (no network transport, no ptrace-based copies that
# containers forbid); root is allowed, and more ranks than cores.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_plm_rsh_agent=false
LUCID_EXPECT_RANKS=1 "$lucid" "$@" >"$work/serial.txt"
mpirun --allow-run-as-root --oversubscribe -np 2 -x LUCID_EXPECT_RANKS=2 "$lucid" "$@" \
    >"$work/mpi.txt"
if ! diff -u "$work/serial.txt" "$work/mpi.txt"; then
    echo "mpirun -np 2 printed something else than the serial run"; exit 1
fi
[ -s "$work/serial.txt" ] || { echo "the task printed nothing"; exit 1; }
echo "serial and mpirun -np 2 outputs identical ($(wc -l <"$work/serial.txt") lines):"
head -3 "$work/serial.txt"

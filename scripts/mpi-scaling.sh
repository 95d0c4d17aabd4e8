#!/usr/bin/env bash
# Speed-up of `favorlab mse` (its plain Monte Carlo sweep: --importance-trials 0) from 1 to 2 MPI ranks, one OpenMP
# thread per rank: the two runs alternate (repeats times, same seed and options, so the same rows) and the ratios of
# the median wall times are printed, for the whole job (mpirun's start-up included) and inside the run — a
# measurement of one run on this machine, not a timed test.
# Usage: scripts/mpi-scaling.sh [build/release/favorlab] [repeats]
set -euo pipefail
favorlab="${1:-build/release/favorlab}"
repeats="${2:-3}"
command -v mpirun > /dev/null || { echo "mpi-scaling: mpirun not found (apt-get install openmpi-bin)" >&2; exit 2; }
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
args=(mse --x-norm 0.5,1,1.5 --y-norm 0.5,1 --cos -0.5,0,0.5 --trials 400000 --importance-trials 0 --threads 1 --quiet)
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
for i in $(seq "$repeats"); do
  for n in 1 2; do
    start=$EPOCHREALTIME
    "${mpi[@]}" -np "$n" "$favorlab" "${args[@]}" --out "$dir/np$n.json"
    end=$EPOCHREALTIME
    inside=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['provenance']['wall_seconds'])" \
             "$dir/np$n.json")
    echo "$n $start $end $inside" >> "$dir/times"
  done
done
/usr/bin/python3 - "$dir/times" "$dir/np1.json" "$dir/np2.json" <<'PY'
import json, statistics, sys
times, inside = {}, {}
for line in open(sys.argv[1]):
    n, start, end, wall = line.split()
    times.setdefault(int(n), []).append(float(end) - float(start))
    inside.setdefault(int(n), []).append(float(wall))
a, b = (json.load(open(p)) for p in sys.argv[2:4])
assert a["rows"] == b["rows"], "1 and 2 ranks gave different rows"
t1, t2 = statistics.median(times[1]), statistics.median(times[2])
i1, i2 = statistics.median(inside[1]), statistics.median(inside[2])
print(f"mse, 1 thread per rank, medians of {len(times[1])}: whole job 1 rank {t1:.2f} s, 2 ranks {t2:.2f} s, "
      f"speed-up {t1 / t2:.2f}x; inside the run (provenance wall_seconds) {i1:.2f} s vs {i2:.2f} s, "
      f"{i1 / i2:.2f}x; rows identical")
PY

#!/usr/bin/env bash
# favorlab under MPI (mpirun from Open MPI): the rows and checks of unbiased (fixed trials and with looks until
# conclusive), mse, orthogonal and estimators (with their importance-sampled checks; fixed and with looks) and tails are identical
# to a single process with the same seed for 2 and 3 ranks (and 1 or 2 threads per rank); speed refuses to run under
# MPI; a refusal one rank alone meets ends the job with status 2; an experiment that runs on rank 0 alone still writes
# its result, with looks too; compare reports once; a rank killed mid-run ends the job with a non-zero exit, no result
# file and no temporary file.
set -euo pipefail
favorlab="$1"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
# Containers often forbid the cross-memory attach Open MPI uses for large shared-memory messages: copy instead.
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl_vader_single_copy_mechanism none)

same_rows() {  # file file: rows and checks equal
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
if a["rows"] != b["rows"] or a["checks"] != b["checks"]:
    sys.exit(f"{sys.argv[2]}: rows or checks differ from the single-process run {sys.argv[1]}")
PY
}

grid=(--x-norm 0.5,1 --y-norm 0.5 --cos -0.5,0.5 --quiet)
cases=(
  "unbiased ${grid[*]} --trials 40000"
  "unbiased ${grid[*]} --trials 2000 --until-conclusive --max-looks 5"
  "mse ${grid[*]} --trials 40000 --importance-trials 20000"
  "orthogonal --d 4 --m 1,4 --trials 3000 --importance-trials 2000 --quiet"
  "orthogonal --d 4 --m 2,4 --cos 0,1 --trials 3000 --importance-trials 2048 --max-looks 3 --quiet"
  "estimators --d 4 --x-norm 0.5,1 --y-norm 0.5 --cos 0,0.5 --trials 3000 --importance-trials 2000 --quiet"
  "estimators --d 4 --x-norm 0.5,1 --y-norm 0.5 --cos 0,0.5 --trials 3000 --importance-trials 2000 --max-looks 4 --quiet"
  "tails --d 2 --trials 3000 --quiet"
)
for c in "${cases[@]}"; do
  read -r -a args <<< "$c"
  name=${args[0]}
  "$favorlab" "${args[@]}" --threads 1 --out "$dir/$name-1.json"
  "${mpi[@]}" -np 2 "$favorlab" "${args[@]}" --threads 1 --out "$dir/$name-2.json"
  "${mpi[@]}" -np 3 "$favorlab" "${args[@]}" --threads 2 --out "$dir/$name-3.json"
  same_rows "$dir/$name-1.json" "$dir/$name-2.json"
  same_rows "$dir/$name-1.json" "$dir/$name-3.json"
  /usr/bin/python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['provenance']; assert p['mpi_ranks']==3 and 'trial blocks' in p['mpi_distribution'], p" "$dir/$name-3.json"
done

# compare under MPI: every rank compares (so every rank exits alike), rank 0 alone reports: one summary line, one
# report file.
summary=$("${mpi[@]}" -np 2 "$favorlab" compare "$dir/tails-1.json" "$dir/tails-2.json" --out "$dir/compare.json")
if [ "$(grep -c '^tails: unchanged' <<< "$summary")" -ne 1 ]; then
  echo "compare under mpirun -np 2 did not report exactly once:" >&2; echo "$summary" >&2; exit 1
fi
/usr/bin/python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['schema'] == 'favorlab.compare/1'" \
  "$dir/compare.json"

# speed measures time: refused under MPI, exit 2, one line, no file.
if "${mpi[@]}" -np 2 "$favorlab" speed --quiet --out "$dir/speed.json" 2> "$dir/speed.err"; then
  echo "speed ran under MPI" >&2; exit 1
fi
grep -q "measures time" "$dir/speed.err" || { cat "$dir/speed.err" >&2; exit 1; }
[ ! -e "$dir/speed.json" ] || { echo "speed wrote a file under MPI" >&2; exit 1; }

# A refusal one rank alone meets ends the whole job at once, status 2, no file: rank 0's output cannot be written
# (the ranks agree before the work: rank 0's one line), one rank's own option is bad (an MPMD launch: that rank's
# line, and MPI_Abort, since the other rank is already waiting in a collective). Once these hung for ever.
for launch in "-np 2 $favorlab unbiased --quick --threads 1 --quiet --out /proc/favorlab-none/x.json" \
              "-np 1 $favorlab unbiased --quick --threads 1 --quiet --out $dir/asym.json : -np 1 $favorlab unbiased --quick --threads 1 --quiet --trials 1 --out $dir/asym.json"; do
  read -r -a args <<< "$launch"
  status=0
  timeout 120 "${mpi[@]}" "${args[@]}" > /dev/null 2> "$dir/asym.err" || status=$?
  if [ "$status" -ne 2 ]; then
    echo "a refusal on one rank gave status $status (124: the job hung), not 2: mpirun $launch" >&2
    cat "$dir/asym.err" >&2; exit 1
  fi
  grep -q "^favorlab: error: " "$dir/asym.err" || { cat "$dir/asym.err" >&2; exit 1; }
  [ ! -e "$dir/asym.json" ] || { echo "a refused MPI job wrote its result" >&2; exit 1; }
done

# A refusal at run time that one rank alone meets (an MPMD launch: rank 1 compares a file that is no result while
# rank 0 is at work): that rank's one line, naming it, status 2, no file. Once this ended the job with MPI's abort
# notice and no word of why.
echo '{}' > "$dir/not-a-result.json"
status=0
timeout 120 "${mpi[@]}" -np 1 "$favorlab" mse "${grid[@]}" --trials 4000000 --threads 1 --out "$dir/alone.json" \
  : -np 1 "$favorlab" compare "$dir/not-a-result.json" "$dir/not-a-result.json" > /dev/null 2> "$dir/alone.err" ||
  status=$?
if [ "$status" -ne 2 ] || [ "$(grep -c '^favorlab: error: rank 1 of 2: baseline has no "schema"' "$dir/alone.err")" -ne 1 ] ||
  [ "$(grep -c '^favorlab: error: ' "$dir/alone.err")" -ne 1 ] || [ -e "$dir/alone.json" ]; then
  echo "a run-time refusal of rank 1 alone: status $status, not its one line naming the rank:" >&2
  cat "$dir/alone.err" >&2; exit 1
fi
# Both ranks refusing alike at run time: rank 0's one line, without a rank.
status=0
timeout 120 "${mpi[@]}" -np 2 "$favorlab" compare "$dir/not-a-result.json" "$dir/not-a-result.json" \
  > /dev/null 2> "$dir/alike.err" || status=$?
if [ "$status" -ne 2 ] || [ "$(grep -c '^favorlab: error: baseline has no' "$dir/alike.err")" -ne 1 ] ||
  [ "$(grep -c '^favorlab: error: ' "$dir/alike.err")" -ne 1 ]; then
  echo "a run-time refusal every rank meets: status $status, not rank 0's one line:" >&2
  cat "$dir/alike.err" >&2; exit 1
fi

# A bad option every rank sees: one line (rank 0's), status 2.
status=0
"${mpi[@]}" -np 2 "$favorlab" unbiased --quick --trials 1 --out "$dir/parse.json" > /dev/null 2> "$dir/parse.err" || status=$?
if [ "$status" -ne 2 ] || [ "$(grep -c '^favorlab: error: ' "$dir/parse.err")" -ne 1 ]; then
  echo "a bad option under mpirun -np 2: status $status, not one error line:" >&2; cat "$dir/parse.err" >&2; exit 1
fi

# An experiment of rank 0 alone: written once, with the same rows; with looks too, whose budget test is then rank
# 0's alone (a collective there would wait for ranks that are not running it).
"$favorlab" attention-matrix --L 8 --d 4 --m 8 --quiet --out "$dir/am-1.json"
"${mpi[@]}" -np 2 "$favorlab" attention-matrix --L 8 --d 4 --m 8 --quiet --out "$dir/am-2.json"
same_rows "$dir/am-1.json" "$dir/am-2.json"
structured=(structured --d 4 --x-norm 1 --y-norm 1 --cos 0,0.5 --estimators trig --no-speed --trials 400
            --until-conclusive --max-looks 4 --budget 1h --quiet)
"$favorlab" "${structured[@]}" --out "$dir/st-1.json"
timeout 300 "${mpi[@]}" -np 2 "$favorlab" "${structured[@]}" --out "$dir/st-2.json"
same_rows "$dir/st-1.json" "$dir/st-2.json"
/usr/bin/python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['provenance']; assert p['looks_reached']>1, p" \
  "$dir/st-2.json"

# A rank killed mid-run: non-zero exit, no result file, no temporary file.
"${mpi[@]}" -np 2 "$favorlab" mse "${grid[@]}" --trials 400000000 --threads 1 --out "$dir/killed.json" \
  > /dev/null 2>&1 &
job=$!
victim=""
for _ in $(seq 100); do
  for p in $(pgrep -f "favorlab mse" || true); do
    # Process substitution, not a pipe: under pipefail, tr's SIGPIPE after grep -q's early exit would hide the rank.
    if grep -qx "OMPI_COMM_WORLD_RANK=1" < <(tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null); then victim=$p; fi
  done
  [ -n "$victim" ] && [ -n "$(ls -A "$dir" | grep killed || true)" ] && break
  sleep 0.1
done
[ -n "$victim" ] || { echo "rank 1 never started" >&2; kill "$job" || true; exit 1; }
sleep 0.5
kill -9 "$victim"
if wait "$job"; then echo "the job survived a killed rank" >&2; exit 1; fi
if ls -A "$dir" | grep -q killed; then echo "a killed job left: $(ls -A "$dir" | grep killed)" >&2; exit 1; fi
echo "mpi_check: all cases passed"

#!/usr/bin/env bash
# simgrad under mpirun with 1, 2, 3 and 4 processes gives the same bits as the plain run:
# a sweep's table with gradients, a CMA-ES tuning run, and a run interrupted on two processes and
# resumed on three. Bad input under mpirun ends with one clear error and exit 2.
#   ranks_test.sh SIMGRAD MPIEXEC SOURCE_DIR
set -euo pipefail
simgrad=$1 mpiexec=$2 source=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Open MPI refuses root unless told, and CI runs as root; --oversubscribe lets 4 processes share
# 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpi() { local n=$1; shift; "$mpiexec" -n "$n" --oversubscribe "$@"; }
scenario=$source/examples/mass_spring_simple.json
fail() { echo "FAIL: $*" >&2; exit 1; }

# The tuning run's result without the figures that differ between any two runs (wall and load times).
result_bits() {
  python3 - "$1" <<'PY'
import json, sys
def strip(v):
    if isinstance(v, dict): return {k: strip(x) for k, x in v.items() if 'wall' not in k and not k.endswith('load_s')}
    if isinstance(v, list): return [strip(x) for x in v]
    return v
print(json.dumps(strip(json.load(open(sys.argv[1]))), sort_keys=True))
PY
}

sweep=(sweep "$scenario" --param "rest_length[0]=0.05:0.2:7" --param "rest_length[2]=0.1,0.14,0.2" --gradient --quiet)
"$simgrad" "${sweep[@]}" --out "$work/sweep_alone" > /dev/null
tune=(tune "$scenario" --optimizer cmaes --iterations 4 --quiet)
"$simgrad" "${tune[@]}" --out "$work/tune_alone" > /dev/null
result_bits "$work/tune_alone/result.json" > "$work/tune_alone.bits"
for n in 1 2 3 4; do
  mpi "$n" "$simgrad" "${sweep[@]}" --out "$work/sweep_$n" > "$work/sweep_$n.out"
  cmp "$work/sweep_alone/sweep.csv" "$work/sweep_$n/sweep.csv" || fail "sweep on $n processes differs from the plain run"
  grep -q "processes: $n" "$work/sweep_$n.out" || fail "sweep on $n processes does not say so"
  # The work was spread: 21 points in blocks that differ by at most one.
  expected=$(python3 -c "n=$n; print(','.join(str(21 // n + (r < 21 % n)) for r in range(n)))")
  grep -q "batch_items_per_process: \[$expected\]" "$work/sweep_$n.out" || { cat "$work/sweep_$n.out"; fail "the sweep's points were not split $expected over $n processes"; }
  mpi "$n" "$simgrad" "${tune[@]}" --out "$work/tune_$n" > "$work/tune_$n.out"
  result_bits "$work/tune_$n/result.json" | cmp - "$work/tune_alone.bits" || fail "CMA-ES tuning on $n processes differs"
  # 4 generations of 7 samples, each generation split over the processes.
  expected=$(python3 -c "n=$n; print(','.join(str(4 * (7 // n + (r < 7 % n))) for r in range(n)))")
  grep -q "batch_items_per_process: \[$expected\]" "$work/tune_$n.out" || { cat "$work/tune_$n.out"; fail "the CMA-ES generations were not split $expected over $n processes"; }
  echo "ok: $n processes give the plain run's bits (sweep of 21 points with gradients, 4 CMA-ES generations)"
done

# The other batches: Levenberg-Marquardt's finite-difference Jacobian (a telemetry fit) and a
# loss averaged over 5 noise seeds (the boarding-school epidemic, tuned by Adam, whose every
# gradient is a batch of the seeds).
seeded=$work/contagion_boarding_school_seeds.json
ln -s "$source/examples/data" "$work/data"  # the data file the scenario names, relative to it
sed 's/"loss": {"scale": "sqrt"}/"loss": {"scale": "sqrt", "seeds": 5}/' "$source/examples/contagion_boarding_school.json" > "$seeded"
grep -q '"seeds": 5' "$seeded" || fail "the seeded scenario was not written"
lm=(tune "$source/examples/vehicle/orca_fit.json" --optimizer levenberg_marquardt --iterations 2 --quiet)
seeds=(tune "$seeded" --iterations 3 --quiet)
"$simgrad" "${lm[@]}" --out "$work/lm_alone" > /dev/null
"$simgrad" "${seeds[@]}" --out "$work/seeds_alone" > /dev/null
for n in 2 3; do
  mpi "$n" "$simgrad" "${lm[@]}" --out "$work/lm_$n" > /dev/null
  diff <(result_bits "$work/lm_$n/result.json") <(result_bits "$work/lm_alone/result.json") > /dev/null ||
    fail "Levenberg-Marquardt on $n processes differs"
  mpi "$n" "$simgrad" "${seeds[@]}" --out "$work/seeds_$n" > "$work/seeds_$n.out"
  diff <(result_bits "$work/seeds_$n/result.json") <(result_bits "$work/seeds_alone/result.json") > /dev/null ||
    fail "the seed-averaged tuning on $n processes differs"
  grep -q "batch_items_per_process: \[$(python3 -c "n=$n; print(','.join(str(4 * (5 // n + (r < 5 % n))) for r in range(n)))")\]" \
    "$work/seeds_$n.out" || { cat "$work/seeds_$n.out"; fail "the seeds were not split over $n processes"; }
  echo "ok: $n processes give the plain run's bits (Levenberg-Marquardt's Jacobian, an average over 5 seeds)"
done

# Two generations on two processes, then resumed to four on three: the four-generation bits.
mpi 2 "$simgrad" tune "$scenario" --optimizer cmaes --iterations 2 --quiet --out "$work/resumed" > /dev/null
mpi 3 "$simgrad" tune "$scenario" --optimizer cmaes --iterations 4 --quiet --out "$work/resumed" --resume > /dev/null
result_bits "$work/resumed/result.json" | cmp - "$work/tune_alone.bits" || fail "a run resumed on another number of processes differs"
echo "ok: 2 generations on 2 processes resumed to 4 on 3 give the uninterrupted run's bits"

# A process killed mid-run: the launcher ends the job, the state on disk is the last whole
# iteration's, and resuming it on another number of processes gives the uninterrupted run's bits.
long=(tune "$scenario" --optimizer cmaes --iterations 300 --quiet)
"$simgrad" "${long[@]}" --out "$work/long_alone" > /dev/null
mpi 2 "$simgrad" "${long[@]}" --out "$work/killed" > /dev/null 2>&1 &
launcher=$!
for _ in $(seq 200); do [ -f "$work/killed/state.txt" ] && break; sleep 0.05; done
sleep 0.2
victim=$(pgrep -f "^$simgrad tune .*$work/killed" | tail -1)
[ -n "$victim" ] || fail "no process of the run to kill"
kill -9 "$victim"
set +e
wait "$launcher"
code=$?
set -e
[ "$code" != 0 ] || fail "the run finished before one of its processes was killed, or did not notice"
saved=$(grep -c . "$work/killed/state.txt")
[ "$saved" -gt 10 ] || fail "the saved state is not whole after a process was killed"
mpi 3 "$simgrad" "${long[@]}" --out "$work/killed" --resume > /dev/null
diff <(result_bits "$work/killed/result.json") <(result_bits "$work/long_alone/result.json") > /dev/null ||
  fail "a run resumed after a process was killed differs from the uninterrupted run"
echo "ok: a process killed mid-run ends the job (exit $code); the saved state resumes on 3 processes to the plain run's bits"

# Bad input: one message (from rank 0), exit 2, nothing written.
set +e
mpi 3 "$simgrad" sweep "$scenario" --param "stiffnes=1,2" --out "$work/bad" > /dev/null 2> "$work/bad.err"
code=$?
set -e
[ "$code" = 2 ] || fail "an unknown parameter under mpirun exits $code, not 2"
[ "$(grep -c "no tuned parameter 'stiffnes'" "$work/bad.err")" = 1 ] || { cat "$work/bad.err"; fail "the error is not printed once"; }
[ ! -e "$work/bad" ] || fail "a failed sweep wrote its folder"
# An error inside an iteration, which every process meets (Levenberg-Marquardt on a loss that
# is not a sum of squares): agreed, printed once, no abort.
set +e
mpi 2 "$simgrad" tune "$scenario" --optimizer levenberg_marquardt --quiet --out "$work/not_squares" > /dev/null 2> "$work/lm.err"
code=$?
set -e
[ "$code" = 2 ] || { cat "$work/lm.err"; fail "an error every process meets in an iteration exits $code, not 2"; }
[ "$(grep -c "needs a loss that is a sum of squares" "$work/lm.err")" = 1 ] || { cat "$work/lm.err"; fail "the iteration's error is not printed once"; }
! grep -q MPI_ABORT "$work/lm.err" || fail "an error every process meets aborted the job"
sed 's/"stiffness": 10/"stiffness": 11/' "$scenario" > "$work/other.json"
set +e
"$mpiexec" --oversubscribe -n 1 "$simgrad" run "$scenario" --quiet : -n 1 "$simgrad" run "$work/other.json" --quiet \
  > /dev/null 2> "$work/mixed.err"
code=$?
set -e
[ "$code" = 2 ] || fail "processes with different scenario files exit $code, not 2"
grep -q "rank 1 of 2 has a different scenario file" "$work/mixed.err" || { cat "$work/mixed.err"; fail "no clear error for different scenario files"; }
echo "ok: bad input under mpirun is one clear error and exit 2"

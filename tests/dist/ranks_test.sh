#!/usr/bin/env bash
# simgrad under mpirun with 1, 2, 3 and 4 processes gives the same bits as the plain run:
# a sweep's table with gradients, a CMA-ES tuning run, and a run interrupted on two processes and
# resumed on three; and with --split, the Franklin network's epidemic split over the processes
# (its gradient, a tuning run, one resumed on another number of processes, one whose process was
# killed), a mass-spring lattice split into slabs of nodes and a smoke grid split into slabs of
# rows (their gradients, a tuning run, one resumed on another number of processes). Bad input
# under mpirun ends with one clear error and exit 2.
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
# With "tuned", without the summary too (a split run's leaves out what replays the whole model).
result_bits() {
  python3 - "$@" <<'PY'
import json, sys
def strip(v):
    if isinstance(v, dict): return {k: strip(x) for k, x in v.items() if 'wall' not in k and not k.endswith('load_s')}
    if isinstance(v, list): return [strip(x) for x in v]
    return v
result = strip(json.load(open(sys.argv[1])))
if sys.argv[2:] == ["tuned"]: result.pop("summary")
print(json.dumps(result, sort_keys=True))
PY
}

# Starts `simgrad tune ... --out DIR` on 2 processes, kills one of them with SIGKILL once DIR
# holds a saved state, and checks that the job ends with an error (its exit status in $code).
run_and_kill_one() {
  local dir=$1 launcher victim
  shift
  mpi 2 "$simgrad" "$@" --out "$dir" > /dev/null 2>&1 &
  launcher=$!
  for _ in $(seq 400); do [ -f "$dir/state.txt" ] && break; sleep 0.05; done
  sleep 0.2
  victim=$(pgrep -f "^$simgrad tune .*$dir" | tail -1)
  [ -n "$victim" ] || fail "no process of the run in $dir to kill"
  kill -9 "$victim"
  set +e
  wait "$launcher"
  code=$?
  set -e
  [ "$code" != 0 ] || fail "the run in $dir finished before one of its processes was killed, or did not notice"
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
run_and_kill_one "$work/killed" "${long[@]}"
saved=$(grep -c . "$work/killed/state.txt")
[ "$saved" -gt 10 ] || fail "the saved state is not whole after a process was killed"
mpi 3 "$simgrad" "${long[@]}" --out "$work/killed" --resume > /dev/null
diff <(result_bits "$work/killed/result.json") <(result_bits "$work/long_alone/result.json") > /dev/null ||
  fail "a run resumed after a process was killed differs from the uninterrupted run"
echo "ok: a process killed mid-run ends the job (exit $code); the saved state resumes on 3 processes to the plain run's bits"

# One model split over the processes: GradABM's Franklin network (70,916 agents, 139 groups of
# 512), its loss and gradient, and 3 Adam iterations; each process holds its run of agents.
franklin=$source/examples/contagion_franklin.json
"$simgrad" grad "$franklin" --json > "$work/grad_alone.json"
split_tune=(tune "$franklin" --iterations 3 --quiet --split)
"$simgrad" "${split_tune[@]}" --out "$work/split_alone" > /dev/null
for n in 1 2 3 4; do
  mpi "$n" "$simgrad" grad "$franklin" --json --split > "$work/grad_$n.json"
  python3 - "$work/grad_alone.json" "$work/grad_$n.json" "$n" <<'PY' || fail "the split gradient on $n processes differs"
import json, sys
alone, split, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
assert split["loss"] == alone["loss"] and split["gradient"] == alone["gradient"], "loss or gradient"
if n > 1:
    # Whole groups of 512 agents, as even as groups allow, every agent once.
    elements = split["split"]["elements_per_process"]
    assert sum(elements) == 70916 and max(elements) - min(elements) <= 1024, elements
    assert all(g > 0 for g in split["split"]["ghosts_per_process"]), split["split"]
PY
  mpi "$n" "$simgrad" "${split_tune[@]}" --out "$work/split_$n" > /dev/null
  diff <(result_bits "$work/split_$n/result.json" tuned) <(result_bits "$work/split_alone/result.json" tuned) > /dev/null ||
    fail "the split tuning run on $n processes differs"
  echo "ok: the epidemic split over $n processes gives the plain run's bits (loss, gradient, 3 Adam iterations)"
done
# The forward run and the gradient check, split over 2 processes: the plain run's loss, and the
# plain check's every number and exit status. The check runs on the relaxed model with a step
# small enough to fall between the jumps its hard events make (its pathwise gradient is exact on
# each smooth piece; a larger step straddles jumps).
"$simgrad" run "$franklin" --json | python3 -c "import json, sys; print(json.load(sys.stdin)['loss'])" > "$work/run_alone.loss"
mpi 2 "$simgrad" run "$franklin" --json --split | python3 -c "import json, sys; print(json.load(sys.stdin)['loss'])" |
  cmp - "$work/run_alone.loss" || fail "the split forward run differs"
relaxed=$work/franklin_relaxed.json
sed 's/"deaths": "expected"}/"deaths": "expected", "straight_through": false}/' "$franklin" > "$relaxed"
grep -q '"straight_through": false' "$relaxed" || fail "the relaxed Franklin scenario was not written"
set +e
"$simgrad" gradcheck "$relaxed" --json --step 1e-8 > "$work/check_alone.json"
alone_code=$?
mpi 2 "$simgrad" gradcheck "$relaxed" --json --step 1e-8 --split > "$work/check_split.json" 2> /dev/null
split_code=$?
set -e
[ "$alone_code" = 0 ] || { cat "$work/check_alone.json"; fail "the relaxed Franklin gradient check fails"; }
[ "$split_code" = 0 ] || fail "the split gradient check exits $split_code"
cmp "$work/check_split.json" "$work/check_alone.json" || fail "the split gradient check differs"
echo "ok: the epidemic split over 2 processes gives the plain run's loss and gradient check"
mpi 2 "$simgrad" tune "$franklin" --iterations 2 --quiet --split --out "$work/split_resumed" > /dev/null
mpi 3 "$simgrad" "${split_tune[@]}" --out "$work/split_resumed" --resume > /dev/null
diff <(result_bits "$work/split_resumed/result.json" tuned) <(result_bits "$work/split_alone/result.json" tuned) > /dev/null ||
  fail "a split run resumed on another number of processes differs"
echo "ok: a split run of 2 iterations on 2 processes resumed to 3 on 3 gives the uninterrupted run's bits"
# A process of a split run killed mid-run: the job ends, the state is whole, and it resumes on 3.
split_long=(tune "$franklin" --iterations 200 --quiet --split)
"$simgrad" tune "$franklin" --iterations 6 --quiet --out "$work/split_long_alone" > /dev/null
run_and_kill_one "$work/split_killed" "${split_long[@]}"
# (A record per iteration and one for the start.)
records=$(grep -c '^wall_s' "$work/split_killed/state.txt" || true)
[ "$records" -ge 2 ] && [ "$records" -le 6 ] || fail "the killed split run saved $((records - 1)) iterations, not 1 to 5"
mpi 3 "$simgrad" tune "$franklin" --iterations 6 --quiet --split --out "$work/split_killed" --resume > /dev/null
diff <(result_bits "$work/split_killed/result.json" tuned) <(result_bits "$work/split_long_alone/result.json" tuned) > /dev/null ||
  fail "a split run resumed after a process was killed differs from the uninterrupted run"
echo "ok: a process of a split run killed mid-run ends the job (exit $code); its state resumes on 3 processes to the plain run's bits"

# A model split over 1, 2, 3 and 4 processes: its loss and gradient are the plain run's, its
# elements add up to ELEMENTS and every split process copies at least GHOSTS of the others'; a
# tuning run of 2 iterations on 2 processes resumed on RESUME_ON processes is the plain run's.
check_split_model() {  # NAME SCENARIO ELEMENTS GHOSTS RESUME_ON
  local name=$1 file=$2 elements=$3 ghosts=$4 resume_on=$5
  "$simgrad" grad "$file" --json > "$work/${name}_alone.json"
  "$simgrad" tune "$file" --quiet --out "$work/${name}_tuned" > /dev/null
  for n in 1 2 3 4; do
    mpi "$n" "$simgrad" grad "$file" --json --split > "$work/${name}_$n.json"
    python3 - "$work/${name}_alone.json" "$work/${name}_$n.json" "$n" "$elements" "$ghosts" <<'PY' || fail "the split $name's gradient on $n processes differs"
import json, sys
alone, split = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
n, elements, ghosts = (int(a) for a in sys.argv[3:6])
assert split["loss"] == alone["loss"] and split["gradient"] == alone["gradient"], "loss or gradient"
assert sum(split["split"]["elements_per_process"]) == elements, split["split"]
assert n == 1 or min(split["split"]["ghosts_per_process"]) >= ghosts, split["split"]
PY
  done
  echo "ok: the $name split over 1, 2, 3 and 4 processes gives the plain run's loss and gradient"
  mpi 2 "$simgrad" tune "$file" --iterations 2 --quiet --split --out "$work/${name}_resumed" > /dev/null
  mpi "$resume_on" "$simgrad" tune "$file" --quiet --split --out "$work/${name}_resumed" --resume > /dev/null
  diff <(result_bits "$work/${name}_resumed/result.json" tuned) <(result_bits "$work/${name}_tuned/result.json" tuned) > /dev/null ||
    fail "a split $name tuning run resumed on another number of processes differs"
  echo "ok: a split $name tuning run of 2 iterations on 2 processes resumed on $resume_on gives the plain run's bits"
}

# A mass-spring lattice of 48 x 48 nodes (5 blocks of 512) split into slabs of nodes (ghosts: a
# row either side): the loss, every parameter's gradient (stiffness and damping shared by all
# springs, gravity) and 4 L-BFGS iterations, resumed from 2 processes on 4.
check_split_model lattice "$source/tests/data/softbody_lattice_split.json" $((48 * 48)) 48 4
# Losses that read a few nodes (40 listed markers; a triangle across three slabs): each process
# copies them and computes the whole loss.
for loss in markers triangle; do
  "$simgrad" grad "$source/tests/data/softbody_lattice_$loss.json" --json > "$work/lattice_${loss}_alone.json"
  for n in 2 3; do
    mpi "$n" "$simgrad" grad "$source/tests/data/softbody_lattice_$loss.json" --json --split > "$work/lattice_${loss}_$n.json"
    python3 - "$work/lattice_${loss}_alone.json" "$work/lattice_${loss}_$n.json" <<'PY' || fail "the split lattice's $loss loss on $n processes differs"
import json, sys
alone, split = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert split["loss"] == alone["loss"] and split["gradient"] == alone["gradient"], "loss or gradient"
PY
  done
done
echo "ok: the split lattice's losses over listed markers and over a triangle give the plain run's bits on 2 and 3 processes"
# A periodic smoke grid of 40 x 37 cells (5 bands of 8 rows) split into slabs of rows (halos:
# at least three rows either side): the loss, the gradient over the whole initial velocity
# field, and 4 L-BFGS iterations resumed from 2 processes on 3.
check_split_model smoke "$source/tests/data/smoke_split.json" $((40 * 37)) $((6 * 40)) 3
# A room of 40 x 40 cells with walls, an open top (its y-faces a band more than the cells),
# obstacles, heavy smoke, viscosity and an emitter: the same (the gradient over the initial
# velocity field and the emitter's position and rate), resumed from 2 processes on 4.
check_split_model room "$source/tests/data/smoke_split_room.json" $((40 * 40)) $((4 * 40)) 4

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
# A split over more processes than the population has groups of agents (763 agents: 2 groups).
set +e
mpi 3 "$simgrad" grad "$source/examples/contagion_boarding_school.json" --split > /dev/null 2> "$work/groups.err"
code=$?
set -e
[ "$code" = 2 ] || { cat "$work/groups.err"; fail "a split over more processes than groups exits $code, not 2"; }
[ "$(grep -c "use at most 2 processes" "$work/groups.err")" = 1 ] || { cat "$work/groups.err"; fail "no single clear error for too many processes"; }
set +e
mpi 2 "$simgrad" grad "$source/examples/fem_cantilever.json" --split > /dev/null 2> "$work/nosplit.err"
code=$?
set -e
[ "$code" = 2 ] || fail "--split of a simulator that does not split exits $code, not 2"
grep -q "does not split over processes" "$work/nosplit.err" || { cat "$work/nosplit.err"; fail "no clear error for --split of an FEM scenario"; }
set +e
mpi 2 "$simgrad" grad "$source/examples/vent_room.json" --split > /dev/null 2> "$work/nosplit_smoke.err"
code=$?
set -e
[ "$code" = 2 ] || fail "--split of a smoke grid that does not split exits $code, not 2"
[ "$(grep -c "does not split over processes with" "$work/nosplit_smoke.err")" = 1 ] ||
  { cat "$work/nosplit_smoke.err"; fail "no single clear error for --split of a smoke room with vents"; }
echo "ok: bad input under mpirun is one clear error and exit 2"

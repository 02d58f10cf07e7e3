#!/usr/bin/env bash
# Runs a `worl compare` grid as a Slurm job array: array task K runs shard K/N, appending to
# results/shard-K.jsonl; a merge job that waits for the whole array (afterok) joins the
# shards into the same outputs a single `worl compare` writes.
#
# Usage (on a Slurm login node, with `worl` on PATH on every node and a shared directory):
#   scripts/grid/slurm_array.sh N OUT_DIR -- WORKLOAD... --cluster C [compare options]
# e.g.
#   scripts/grid/slurm_array.sh 16 grid-out -- data/*.json --cluster pai-mix:64 \
#       --schedulers heft,rtgs,worl-rtgs --seeds 10 --evaluations 20000
#
# Env: WORL (default `worl`), WORL_SBATCH_ARGS (extra sbatch options for every job, e.g.
# `--partition=cpu --time=60`), SBATCH (default `sbatch`).
# A shard that is killed (time limit, preemption) can be resubmitted as is: its results file
# keeps every finished run, and the rerun does only the rest (`--results` is resumable).
set -euo pipefail
if [ $# -lt 4 ] || [ "$3" != "--" ]; then
  sed -n '2,16p' "$0" >&2
  exit 2
fi
N=$1
OUT=$2
shift 3
WORL=${WORL:-worl}
SBATCH=${SBATCH:-sbatch}
read -r -a EXTRA <<< "${WORL_SBATCH_ARGS:-}"
mkdir -p "$OUT/results" "$OUT/logs"
OUT=$(cd "$OUT" && pwd)

# the compare arguments, quoted for the batch scripts
ARGS=$(printf '%q ' "$@")

array=$("$SBATCH" --parsable --job-name=worl-grid --array="0-$((N - 1))" \
  --output="$OUT/logs/shard-%a.out" "${EXTRA[@]}" <<SCRIPT
#!/usr/bin/env bash
set -euo pipefail
$WORL compare $ARGS --shard "\$SLURM_ARRAY_TASK_ID/$N" \
  --results "$OUT/results/shard-\$SLURM_ARRAY_TASK_ID.jsonl"
SCRIPT
)
array=${array%%;*}

merge=$("$SBATCH" --parsable --job-name=worl-grid-merge --dependency="afterok:$array" \
  --output="$OUT/logs/merge.out" "${EXTRA[@]}" <<SCRIPT
#!/usr/bin/env bash
set -euo pipefail
$WORL merge "$OUT"/results/shard-*.jsonl --out "$OUT"
SCRIPT
)
merge=${merge%%;*}
echo "array job $array ($N shards), merge job $merge -> $OUT/{summary.md,runs.csv,results.json,...}"

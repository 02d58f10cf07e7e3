#!/usr/bin/env bash
# Which static plans survive execution? (docs/simulation.md, "Which plans survive execution")
#
# Replays the plans of HEFT, ILS and WORL-RTGS (1 s of CPU per ILS / WORL-RTGS plan) and runs
# online EFT in `worl simulate` on 8 workflows x 2 clusters under four settings, 3 seeds each,
# one run at a time, then prints the summary table of the doc.
#
# Usage: examples/robustness.sh DATA_DIR [OUT_DIR] [WORL_BINARY]
#   DATA_DIR     the directory holding pegasus-dax-workflowsim/, wfcommons-wfinstances/, stg/
#   OUT_DIR      where each run's `worl simulate --out` goes (default: robustness-out)
#   WORL_BINARY  default: worl on the PATH
# Takes about 6.5 minutes of CPU (11 min wall on a shared 2-core machine); needs python3.
set -euo pipefail

data=${1:?usage: examples/robustness.sh DATA_DIR [OUT_DIR] [WORL_BINARY]}
out=${2:-robustness-out}
worl=${3:-worl}

workloads=(
  "$data/pegasus-dax-workflowsim/Montage_50.xml"
  "$data/pegasus-dax-workflowsim/Montage_100.xml"
  "$data/pegasus-dax-workflowsim/CyberShake_100.xml"
  "$data/pegasus-dax-workflowsim/Epigenomics_100.xml"
  "$data/wfcommons-wfinstances/seismology-chameleon-300p-001.json"
  "$data/wfcommons-wfinstances/blast-chameleon-small-001.json"
  "$data/wfcommons-wfinstances/montage-chameleon-2mass-005d-001.json"
  "$data/stg/robot.stg"
)
clusters=("paper-pool:8:500" "pai-mix:16")
# name|flags
settings=(
  "a-none|--contention none --noise none"
  "b-fair|--contention fair --noise none"
  "c-noise|--contention none --noise lognormal:0.3"
  "d-both|--contention fair --noise lognormal:0.3"
)

mkdir -p "$out"
for cluster in "${clusters[@]}"; do
  for s in "${settings[@]}"; do
    name=${s%%|*}
    flags=${s#*|}
    dir="$out/${cluster//:/_}/$name"
    echo "== $cluster $name: $flags" >&2
    # shellcheck disable=SC2086 # $flags is a list of options
    "$worl" simulate "${workloads[@]}" --cluster "$cluster" \
      --policy plan:heft,plan:ils,plan:worl-rtgs,eft \
      --arrivals batch $flags --seeds 3 --time 1 --out "$dir" -q 2>/dev/null >/dev/null
  done
done

python3 - "$out" <<'EOF'
import csv, math, os, sys
from collections import defaultdict

out = sys.argv[1]
plans = ["plan:heft", "plan:ils", "plan:worl-rtgs"]
policies = plans + ["eft"]
settings = ["a-none", "b-fair", "c-noise", "d-both"]
label = {
    "a-none": "(a) none",
    "b-fair": "(b) fair contention",
    "c-noise": "(c) lognormal 0.3",
    "d-both": "(d) fair + lognormal 0.3",
}
rel = 1e-9  # planned makespans closer than this (relative) count as ties

print("| cluster | setting | policy | realised ÷ HEFT's realised | realised ÷ planned "
      "| plan better than HEFT's, realises worse | better plan realises worse (all pairs) |")
print("|---|---|---|---:|---:|---:|---:|")
for cluster in sorted(os.listdir(out)):
    for s in settings:
        path = os.path.join(out, cluster, s, "sim.csv")
        if not os.path.exists(path):
            continue
        # (problem, seed, policy) -> (planned, realised)
        runs = {}
        for r in csv.DictReader(open(path)):
            planned = float(r["planned_makespan"]) if r["planned_makespan"] else None
            runs[(r["problem"], int(r["seed"]), r["policy"])] = (planned, float(r["makespan"]))
        problems = sorted({k[0] for k in runs})
        seeds = sorted({k[1] for k in runs})

        def mean_over_seeds(p, pol, i):
            return sum(runs[(p, sd, pol)][i] for sd in seeds) / len(seeds)

        # all-pairs count among the three plans, per (problem, seed)
        pairs = flipped = 0
        for p in problems:
            for sd in seeds:
                for i, a in enumerate(plans):
                    for b in plans[i + 1:]:
                        (pa, ra), (pb, rb) = runs[(p, sd, a)], runs[(p, sd, b)]
                        if abs(pa - pb) <= rel * max(pa, pb):
                            continue
                        pairs += 1
                        if (pa < pb) != (ra < rb) and ra != rb:
                            flipped += 1
        for k, pol in enumerate(policies):
            logs = [math.log(mean_over_seeds(p, pol, 1) / mean_over_seeds(p, "plan:heft", 1))
                    for p in problems]
            vs_heft = math.exp(sum(logs) / len(logs))
            if pol in plans:
                ratios = [runs[(p, sd, pol)][1] / runs[(p, sd, pol)][0]
                          for p in problems for sd in seeds]
                rp = f"{sum(ratios) / len(ratios):.4f}"
            else:
                rp = "–"
            if pol in plans and pol != "plan:heft":
                better = worse = 0
                for p in problems:
                    for sd in seeds:
                        (pa, ra), (ph, rh) = runs[(p, sd, pol)], runs[(p, sd, "plan:heft")]
                        if pa < ph * (1 - rel):
                            better += 1
                            worse += ra > rh
                fl = f"{worse}/{better}"
            else:
                fl = "–"
            allp = f"{flipped}/{pairs}" if k == 0 else ""
            print(f"| {cluster.replace('_', ':')} | {label[s]} | {pol} | {vs_heft:.4f} | {rp} "
                  f"| {fl} | {allp} |")
EOF

#!/usr/bin/env bash
# The Python package (crates/worl-py): lint its PyO3 code, build the abi3 wheel with
# maturin, install it in a fresh virtual environment and run its pytest suite.
#
# Needs python3 (>= 3.9, with venv or pip) and network access to PyPI for maturin, pytest,
# networkx and pandas; no Python headers or libpython (the module links neither). With
# python3 >= 3.11 the test environment also gets the `wfcommons` package (WfCommons' own
# reader, which checks that `worl schedule --out plan.wf.json` loads with every task's
# machine and start time; the test hands its reader the WfFormat 1.5 schema's execution part,
# as WfCommons would fetch the schema from GitHub). WORL_PY_NO_WFCOMMONS=1 skips it.
# CARGO_TARGET_DIR defaults to the workspace's target/, so a build after `cargo test
# --workspace --release` reuses its compiled dependencies. The wheel has pyproject.toml's
# features (`python,ddqn`: every registered scheduler); WORL_PY_FEATURES replaces `ddqn`
# (WORL_PY_FEATURES= , empty, builds the wheel without burn).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n=== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
work="$CARGO_TARGET_DIR/python-ci"
extra="${WORL_PY_FEATURES-ddqn}"
features="python${extra:+,$extra}"
mkdir -p "$work"

new_venv() { # a fresh virtual environment at $1
  rm -rf "$1"
  if ! python3 -m venv "$1" 2>/dev/null; then
    python3 -m pip install --user --quiet virtualenv
    python3 -m virtualenv --quiet "$1"
  fi
  "$1/bin/python" -m pip install --quiet --upgrade pip
}

step "python tools (maturin, pytest, networkx, pandas)"
python3 --version
if [ ! -x "$work/tools/bin/maturin" ]; then
  new_venv "$work/tools"
  "$work/tools/bin/python" -m pip install --quiet "maturin>=1.9.4,<2"
fi
"$work/tools/bin/maturin" --version

step "clippy of the PyO3 module (feature python)"
cargo clippy -p worl-py --features "$features" --all-targets --locked -- -D warnings

step "wheel"
rm -rf "$work/wheels"
wheel_log="$work/wheel.log"
"$work/tools/bin/maturin" build --release --locked --features "$features" \
  -m crates/worl-py/Cargo.toml -o "$work/wheels" 2>&1 | tee "$wheel_log" | { grep -v '^ *Compiling ' || true; }
ls -l "$work/wheels"
# After `cargo test --workspace --release` (WORL_PY_SHARED_BUILD=1, as .ci/run sets it) the
# default wheel compiles only worl's crates and pyo3's: worl-py pins the features the tests
# turn on (crates/worl-py/Cargo.toml).
if [ "${WORL_PY_SHARED_BUILD:-0}" = 1 ] && [ "$extra" = ddqn ]; then
  if grep -E '^ +Compiling ' "$wheel_log" | grep -v -E 'Compiling (worl(-[a-z]+)?|pyo3(-[a-z-]+)?|target-lexicon|heck|memoffset|indoc|unindent) '; then
    echo "the wheel compiled dependencies again: its features differ from the test build's" >&2
    exit 1
  fi
fi

step "install in a fresh virtual environment"
new_venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet "$work"/wheels/worl-*.whl pytest networkx pandas
"$work/venv/bin/python" -c "import worl; print('worl', worl.__version__, 'WORL-RTGS:', worl.HAS_WORL_RTGS)"
# the wheel holds WORL-RTGS, DQN and MDTS exactly when it was built with `ddqn`
want=False; [[ ",$features," == *,ddqn,* ]] && want=True
"$work/venv/bin/python" -c "import sys, worl; sys.exit(worl.HAS_WORL_RTGS != $want or ('worl-rtgs' in worl.schedulers()) != $want)"

# WfCommons' reader for the WfFormat plan check (tests_py/test_wfformat_plan.py); it needs
# Python >= 3.11 (wfcommons 1.6 and its scipy).
if [ "${WORL_PY_NO_WFCOMMONS:-0}" != 1 ] \
  && "$work/venv/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  step "wfcommons (WfCommons' WfFormat reader)"
  "$work/venv/bin/python" -m pip install --quiet wfcommons
  "$work/venv/bin/python" -c "import wfcommons, importlib.metadata as m; print('wfcommons', m.version('wfcommons'))"
else
  echo "wfcommons skipped (WORL_PY_NO_WFCOMMONS=1 or Python < 3.11)"
fi

step "pytest"
(cd crates/worl-py && "$work/venv/bin/python" -m pytest -q tests_py)

step "python done"

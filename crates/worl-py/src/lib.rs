//! # worl-py: worl from Python
//!
//! The Python package `worl`, built by [maturin](https://www.maturin.rs) from this crate
//! as an abi3 wheel (CPython 3.9 and later): load workloads in any format worl reads and
//! clusters from files or short descriptions, schedule them with any registered scheduler,
//! check schedules (a Python scheduler's too) with worl's validator, and compare schedulers.
//! `docs/python.md` is the tour; `python/worl/__init__.pyi` the typed API.
//!
//! ```text
//! pip install ./crates/worl-py
//! python -c "import worl; w = worl.Workload.layered(100); print(worl.schedule(w, '2x4:A100-80GB', 'heft'))"
//! ```
//!
//! | module | holds |
//! |---|---|
//! | [`core`] | what the Python functions do, without Python (loading, cluster descriptions, specs with options, scheduling, schedule files, comparisons, simulations); built and tested by plain `cargo test` |
//! | `py` (feature `python`) | the PyO3 classes and functions of the module `worl._worl` |
//!
//! Features: `python` (the PyO3 module; maturin switches it on, see `pyproject.toml`; plain
//! cargo builds leave it off, so the workspace builds and tests without Python headers or
//! libpython), `ddqn` (WORL-RTGS in the registry; pulls burn with its flex CPU backend).

pub mod core;
#[cfg(feature = "python")]
mod py;

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;
use worl::cluster::Cluster;
use worl::sched::Budget;

/// The best of `repeats` wall times (s) of loading the workload at `path`
/// ([`core::load_workload`]) and of building its problem on `cluster` and running HEFT on it
/// ([`core::problem`] + [`core::schedule`]): the Rust side of the Python overhead benchmark
/// (`examples/heft_timing.rs`, `bench/overhead.py`), which times the same two steps through
/// `worl.Workload.load` and `worl.schedule`.
///
/// Errors: the loader's or the scheduler's; `"repeats must be at least 1"`.
pub fn timing(path: &Path, cluster: Arc<Cluster>, repeats: usize) -> core::Result<(f64, f64)> {
    if repeats == 0 {
        return Err(worl::Error::invalid_argument(
            "repeats",
            0,
            "must be at least 1",
        ));
    }
    let spec = "heft".parse()?;
    let (mut load_s, mut heft_s) = (f64::INFINITY, f64::INFINITY);
    let mut workload = None;
    for _ in 0..repeats {
        let t = Instant::now();
        let l = core::load_workload(path)?;
        load_s = load_s.min(t.elapsed().as_secs_f64());
        workload = Some(Arc::new(l.workload));
    }
    let workload = workload.expect("repeats >= 1");
    for _ in 0..repeats {
        let t = Instant::now();
        let p = core::problem(workload.clone(), cluster.clone())?;
        let s = core::schedule(&p, &spec, 0, Budget::default())?;
        heft_s = heft_s.min(t.elapsed().as_secs_f64());
        assert!(s.schedule.makespan() > 0.0);
    }
    Ok((load_s, heft_s))
}

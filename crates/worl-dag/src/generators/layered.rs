//! Random layered DAGs in the style of DAGGEN (F. Suter, "DAGGEN: a synthetic task graph
//! generator", github.com/frs69wq/daggen; used by Arabnejad & Barbosa, PEFT, TPDS 2014).
//!
//! Tasks are placed level by level until `n` are placed. The mean level size is
//! `n^fat` (`fat` near 0: a chain; near 1: one wide level); each level's size is drawn
//! uniformly in `mean · [regularity, 2 - regularity]` (at least 1; `regularity = 1`: every
//! level has the mean size). Every task below the first level gets one parent drawn from the
//! level just above (so its level is exact), plus, for each other task of that level, one
//! more parent with probability `density`, drawn from the `jump` levels above (`jump = 1`:
//! edges only link consecutive levels). Work is drawn from `work`; edge bytes are set for
//! the target `ccr` at `bandwidth` ([`crate::ccr`]).

use crate::ccr::{REFERENCE_BANDWIDTH, assign_ccr_bytes};
use crate::error::{DagError, Result};
use crate::generators::{
    EdgeCap, WorkDistribution, bytes_seed, check_edge_count, check_nonneg, check_task_count,
    check_unit,
};
use crate::ids::TaskId;
use crate::workload::{Workload, WorkloadBuilder};
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Parameters of [`layered`]; build from [`LayeredParams::new`] with chained setters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayeredParams {
    /// Number of tasks (`1..=`[`MAX_GENERATED_TASKS`](crate::generators::MAX_GENERATED_TASKS)).
    pub n: usize,
    /// Width exponent in `[0, 1]`: mean level size `n^fat`. Default 0.5.
    pub fat: f64,
    /// Regularity of level sizes in `[0, 1]`. Default 0.5.
    pub regularity: f64,
    /// Probability of each extra parent, in `[0, 1]`. Default 0.2.
    pub density: f64,
    /// How many levels up a parent may be (`>= 1`). Default 1.
    pub jump: usize,
    /// Target CCR at `bandwidth` (`>= 0`). Default 1.0.
    pub ccr: f64,
    /// Bandwidth of the CCR, bytes/s. Default [`REFERENCE_BANDWIDTH`].
    pub bandwidth: f64,
    /// Distribution of task work. Default uniform on `[1, 100]` s.
    pub work: WorkDistribution,
}

impl LayeredParams {
    /// Defaults for `n` tasks.
    pub fn new(n: usize) -> Self {
        Self {
            n,
            fat: 0.5,
            regularity: 0.5,
            density: 0.2,
            jump: 1,
            ccr: 1.0,
            bandwidth: REFERENCE_BANDWIDTH,
            work: WorkDistribution::default(),
        }
    }
    /// Sets `fat`.
    pub fn fat(mut self, fat: f64) -> Self {
        self.fat = fat;
        self
    }
    /// Sets `regularity`.
    pub fn regularity(mut self, regularity: f64) -> Self {
        self.regularity = regularity;
        self
    }
    /// Sets `density`.
    pub fn density(mut self, density: f64) -> Self {
        self.density = density;
        self
    }
    /// Sets `jump`.
    pub fn jump(mut self, jump: usize) -> Self {
        self.jump = jump;
        self
    }
    /// Sets the target CCR and its bandwidth.
    pub fn ccr(mut self, ccr: f64, bandwidth: f64) -> Self {
        self.ccr = ccr;
        self.bandwidth = bandwidth;
        self
    }
    /// Sets the work distribution.
    pub fn work(mut self, work: WorkDistribution) -> Self {
        self.work = work;
        self
    }

    /// Checks every parameter.
    ///
    /// Errors: [`DagError::InvalidParameter`] naming the first bad one.
    pub fn validate(&self) -> Result<()> {
        if self.n == 0 {
            return Err(DagError::InvalidParameter {
                name: "n",
                reason: "a DAG needs at least one task".into(),
            });
        }
        check_task_count("n", self.n as u128, &format!("n = {}", self.n))?;
        if self.jump == 0 {
            return Err(DagError::InvalidParameter {
                name: "jump",
                reason: "must be >= 1".into(),
            });
        }
        check_unit("fat", self.fat)?;
        check_unit("regularity", self.regularity)?;
        check_unit("density", self.density)?;
        check_nonneg("ccr", self.ccr, false)?;
        check_nonneg("bandwidth", self.bandwidth, true)?;
        self.work.validate()
    }
}

/// A random layered DAG (one job `layered`, tasks `t0..` in level order).
///
/// ```
/// use worl_dag::generators::layered::{layered, LayeredParams};
/// let w = layered(&LayeredParams::new(100).fat(0.4).density(0.3), 42)?;
/// assert_eq!(w.graph().n_tasks(), 100);
/// assert_eq!(w, layered(&LayeredParams::new(100).fat(0.4).density(0.3), 42)?);
/// # Ok::<(), worl_dag::DagError>(())
/// ```
///
/// Errors: [`LayeredParams::validate`]'s; [`DagError::InvalidParameter`] naming `density`
/// when the drawn levels make more than
/// [`MAX_GENERATED_EDGES`](crate::generators::MAX_GENERATED_EDGES) edges expected (checked
/// before any task is made) or drawn; [`DagError::InvalidBytes`] if the CCR bytes overflow.
pub fn layered(p: &LayeredParams, seed: u64) -> Result<Workload> {
    p.validate()?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mean = (p.n as f64).powf(p.fat).max(1.0);
    let (lo, hi) = (mean * p.regularity, mean * (2.0 - p.regularity));
    // Level sizes.
    let mut sizes = Vec::new();
    let mut placed = 0usize;
    while placed < p.n {
        let size = if lo < hi {
            rng.random_range(lo..=hi)
        } else {
            mean
        };
        let size = (size.round() as usize).clamp(1, p.n - placed);
        sizes.push(size);
        placed += size;
    }
    // Expected edges of the drawn levels: one parent, plus `density` per other task of the
    // level above.
    let expected: f64 = sizes
        .windows(2)
        .map(|w| w[1] as f64 * (1.0 + p.density * (w[0] - 1) as f64))
        .sum();
    check_edge_count(
        "density",
        expected as u128,
        &format!("density = {} with n = {}, fat = {}", p.density, p.n, p.fat),
    )?;
    let mut cap = EdgeCap::new("density");
    let mut b = WorkloadBuilder::new("layered");
    let j = b.add_job("layered")?;
    let mut level_start = Vec::with_capacity(sizes.len() + 1);
    level_start.push(0usize);
    for (l, &size) in sizes.iter().enumerate() {
        level_start.push(level_start[l] + size);
    }
    for i in 0..p.n {
        b.add_task(j, format!("t{i}"), p.work.sample(&mut rng), None)?;
    }
    for l in 1..sizes.len() {
        let (prev_lo, prev_hi) = (level_start[l - 1], level_start[l]);
        let window_lo = level_start[l.saturating_sub(p.jump)];
        let window = prev_hi - window_lo;
        for v in level_start[l]..level_start[l + 1] {
            let first = rng.random_range(prev_lo..prev_hi);
            let extra = (1..sizes[l - 1])
                .filter(|_| rng.random_bool(p.density))
                .count()
                .min(window - 1);
            cap.add(1 + extra)?;
            b.add_edge(TaskId::new(first), TaskId::new(v), 0.0)?;
            // `extra` distinct parents from the window, other than `first`.
            for k in sample(&mut rng, window - 1, extra) {
                let mut u = window_lo + k;
                if u >= first {
                    u += 1;
                }
                b.add_edge(TaskId::new(u), TaskId::new(v), 0.0)?;
            }
        }
    }
    assign_ccr_bytes(&mut b, p.ccr, p.bandwidth, bytes_seed(seed))?;
    b.build()
}

//! Random DAGs of the DAGGEN family (F. Suter and S. Hunold, *daggen: a synthetic task graph
//! generator*, github.com/frs69wq/daggen; used e.g. by H. Arabnejad and J. G. Barbosa, PEFT,
//! IEEE TPDS 25(3), 2014, §5.1), with DAGGEN's parameters, defaults and level/parent rules,
//! and worl's units for work and data.
//!
//! **Levels.** The ideal level width is `w = ⌊n^fat⌋` (`fat = 0`: one task per level, a
//! chain; `fat = 1`: one level of `n` independent tasks; `fat = 0.5`: `√n`; some papers write
//! `fat · √n`, which the tool does not compute). Levels are drawn one after the other until
//! `n` tasks are placed: each has `max(1, ⌊w · (1 + r)⌋)` tasks with `r` uniform in
//! `[−(1 − regularity), 1 − regularity)` (`regularity = 1`: every level has `w` tasks), the
//! last one cut to the tasks left.
//!
//! **Parents.** Every task of level `i ≥ 1` gets `min(1 + ⌊U[0, density · |L_{i−1}|)⌋,
//! |L_{i−1}|)` parent draws (`density = 0`: exactly one parent; `density = 1`: up to the whole
//! previous level). Each draw picks a level `i − ⌊U[1, jump + 1)⌋` (at least 0; `jump = 1`:
//! always the previous level) and a task of it uniformly; if that task is already a parent,
//! the next one of the level (cyclically) is taken, and if every task of the level is, the
//! draw is dropped. So every task below the first level has at least one parent, and edges
//! never skip more than `jump` levels.
//!
//! **Costs, in worl's units.** DAGGEN draws a matrix size per task and derives FLOP and bytes
//! from it; worl draws each task's work in reference GPU-seconds from `work` (default uniform
//! on `[1, 100]` s, as [`layered`](super::layered)) and each task's output in bytes uniformly
//! from `[data_min, data_max]` (default DAGGEN's matrix sizes 2048 and 11264 as 8-byte
//! elements, `8 · 2048²` to `8 · 11264²` bytes); every out-edge of a task carries its output,
//! as in DAGGEN. With `ccr` set, edge bytes are instead drawn for that communication-to-
//! computation ratio at `bandwidth` by [`assign_ccr_bytes`] (DAGGEN's own `--ccr` selects a
//! cost complexity, not a ratio). DAGGEN's Amdahl parameters (`minalpha`, `maxalpha`) have no
//! counterpart: worl's tasks run on one GPU.
//!
//! Tasks are `t0, t1, …` in level order in one job `daggen`. Draws come from
//! `ChaCha8Rng::seed_from_u64(seed)` (levels, then per task its work and output, then the
//! parents), so a configuration gives the same workload on every platform.

use crate::ccr::{REFERENCE_BANDWIDTH, assign_ccr_bytes};
use crate::error::{DagError, Result};
use crate::generators::{
    EdgeCap, WorkDistribution, bytes_seed, check_edge_count, check_nonneg, check_task_count,
    check_unit,
};
use crate::ids::TaskId;
use crate::workload::{Workload, WorkloadBuilder};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Parameters of [`generate`], with DAGGEN's names and defaults (`n = 100`, `fat = 0.5`,
/// `density = 0.5`, `regularity = 0.9`, `jump = 1`; data sizes of DAGGEN's default matrix
/// sizes; no target CCR) and worl's default work (uniform on `[1, 100]` reference
/// GPU-seconds).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DaggenParams {
    /// Number of tasks (`-n`, `1..=`[`MAX_GENERATED_TASKS`](crate::generators::MAX_GENERATED_TASKS)).
    pub n: usize,
    /// Width exponent (`--fat`, in `[0, 1]`): ideal level width `⌊n^fat⌋`.
    pub fat: f64,
    /// Parent density (`--density`, in `[0, 1]`).
    pub density: f64,
    /// Regularity of level widths (`--regular`, in `[0, 1]`).
    pub regularity: f64,
    /// Most levels an edge spans (`--jump`, `>= 1`).
    pub jump: usize,
    /// Target communication-to-computation ratio at `bandwidth` (`>= 0`), or `None` for
    /// output sizes drawn from `[data_min, data_max]`.
    pub ccr: Option<f64>,
    /// Bandwidth of the CCR, bytes/s (`> 0`). Default [`REFERENCE_BANDWIDTH`].
    pub bandwidth: f64,
    /// Distribution of task work, reference GPU-seconds. Default uniform on `[1, 100]`.
    pub work: WorkDistribution,
    /// Smallest task output, bytes (`>= 0`). Default `8 · 2048²` = 33,554,432.
    pub data_min: f64,
    /// Largest task output, bytes (`>= data_min`). Default `8 · 11264²` = 1,015,021,568.
    pub data_max: f64,
    /// Seed of every draw.
    pub seed: u64,
}

impl Default for DaggenParams {
    fn default() -> Self {
        DaggenParams {
            n: 100,
            fat: 0.5,
            density: 0.5,
            regularity: 0.9,
            jump: 1,
            ccr: None,
            bandwidth: REFERENCE_BANDWIDTH,
            work: WorkDistribution::default(),
            data_min: 8.0 * 2048.0 * 2048.0,
            data_max: 8.0 * 11264.0 * 11264.0,
            seed: 0,
        }
    }
}

impl DaggenParams {
    /// The defaults with `n` tasks and `seed`.
    pub fn new(n: usize, seed: u64) -> Self {
        DaggenParams {
            n,
            seed,
            ..DaggenParams::default()
        }
    }

    /// Checks every parameter.
    ///
    /// Errors: [`DagError::InvalidParameter`] naming the first bad one (`n`, `fat`,
    /// `density`, `regularity`, `jump`, `ccr`, `bandwidth`, `work`, `data_min`, `data_max`).
    pub fn validate(&self) -> Result<()> {
        if self.n == 0 {
            return Err(DagError::InvalidParameter {
                name: "n",
                reason: "a DAG needs at least one task".into(),
            });
        }
        check_task_count("n", self.n as u128, &format!("n = {}", self.n))?;
        check_unit("fat", self.fat)?;
        check_unit("density", self.density)?;
        check_unit("regularity", self.regularity)?;
        if self.jump == 0 {
            return Err(DagError::InvalidParameter {
                name: "jump",
                reason: "must be >= 1".into(),
            });
        }
        if let Some(ccr) = self.ccr {
            check_nonneg("ccr", ccr, false)?;
        }
        check_nonneg("bandwidth", self.bandwidth, true)?;
        self.work.validate()?;
        check_nonneg("data_min", self.data_min, false)?;
        check_nonneg("data_max", self.data_max, false)?;
        if self.data_max < self.data_min {
            return Err(DagError::InvalidParameter {
                name: "data_max",
                reason: format!("{} is below data_min {}", self.data_max, self.data_min),
            });
        }
        Ok(())
    }

    /// The ideal level width `⌊n^fat⌋` (at least 1; a relative `1e-12` guards against
    /// `100^0.5` rounding to 9.999…).
    pub fn ideal_width(&self) -> usize {
        let w = (self.n as f64).powf(self.fat) * (1.0 + 1e-12);
        (w.floor() as usize).max(1)
    }
}

/// Level widths, drawn first from `rng` (see the module docs).
fn draw_levels(c: &DaggenParams, rng: &mut ChaCha8Rng) -> Vec<usize> {
    let w = c.ideal_width() as f64;
    let spread = 1.0 - c.regularity;
    let mut sizes = Vec::new();
    let mut placed = 0;
    while placed < c.n {
        let r = if spread > 0.0 {
            rng.random_range(-spread..spread)
        } else {
            0.0
        };
        let size = ((w * (1.0 + r)).floor() as usize).clamp(1, c.n - placed);
        sizes.push(size);
        placed += size;
    }
    sizes
}

/// The level widths [`generate`] uses for `config` (in level order, summing to `n`; task
/// `t_i` of the workload is in the level holding index `i`).
///
/// ```
/// use worl_dag::generators::daggen::{DaggenParams, level_widths};
/// let c = DaggenParams { n: 10, fat: 0.5, regularity: 1.0, ..DaggenParams::default() };
/// assert_eq!(level_widths(&c)?, [3, 3, 3, 1]); // ⌊10^0.5⌋ = 3 per level
/// # Ok::<(), worl_dag::DagError>(())
/// ```
///
/// Errors: [`DaggenParams::validate`]'s.
pub fn level_widths(config: &DaggenParams) -> Result<Vec<usize>> {
    config.validate()?;
    Ok(draw_levels(
        config,
        &mut ChaCha8Rng::seed_from_u64(config.seed),
    ))
}

/// A random DAGGEN-style workload (see the [module docs](self)).
///
/// ```
/// use worl_dag::generators::daggen::{generate, DaggenParams};
/// let c = DaggenParams { fat: 0.3, density: 0.2, jump: 2, ..DaggenParams::new(50, 7) };
/// let w = generate(&c)?;
/// assert_eq!(w.graph().n_tasks(), 50);
/// assert_eq!(w, generate(&c)?);
/// # Ok::<(), worl_dag::DagError>(())
/// ```
///
/// Errors: [`DaggenParams::validate`]'s; [`DagError::InvalidParameter`] naming `density`
/// when the drawn levels make more than
/// [`MAX_GENERATED_EDGES`](crate::generators::MAX_GENERATED_EDGES) edges expected (checked
/// before any task is made) or drawn; [`DagError::InvalidBytes`] if the CCR bytes overflow.
pub fn generate(config: &DaggenParams) -> Result<Workload> {
    let c = config;
    c.validate()?;
    let mut rng = ChaCha8Rng::seed_from_u64(c.seed);
    let sizes = draw_levels(c, &mut rng);
    let mut start = Vec::with_capacity(sizes.len() + 1);
    start.push(0usize);
    for &s in &sizes {
        start.push(start.last().copied().unwrap_or(0) + s);
    }
    // Expected parents of a task below the first level: about 1 + density · |L_{i-1}| / 2,
    // at most |L_{i-1}|.
    let expected: f64 = sizes
        .windows(2)
        .map(|w| w[1] as f64 * (1.0 + c.density * w[0] as f64 / 2.0).min(w[0] as f64))
        .sum();
    check_edge_count(
        "density",
        expected as u128,
        &format!("density = {} with n = {}, fat = {}", c.density, c.n, c.fat),
    )?;
    let mut cap = EdgeCap::new("density");
    let mut b = WorkloadBuilder::new("daggen");
    let job = b.add_job("daggen")?;
    let mut output = Vec::with_capacity(c.n);
    for i in 0..c.n {
        let work = c.work.sample(&mut rng);
        let bytes = if c.data_min < c.data_max {
            rng.random_range(c.data_min..=c.data_max)
        } else {
            c.data_min
        };
        output.push(bytes);
        b.add_task(job, format!("t{i}"), work, None)?;
    }
    let mut parents: Vec<usize> = Vec::new();
    for level in 1..sizes.len() {
        let above = sizes[level - 1];
        let span = c.density * above as f64;
        for v in start[level]..start[level + 1] {
            let extra = if span > 0.0 {
                rng.random_range(0.0..span) as usize
            } else {
                0
            };
            let draws = (1 + extra).min(above);
            parents.clear();
            for _ in 0..draws {
                let back = if c.jump > 1 {
                    rng.random_range(1.0..(c.jump + 1) as f64) as usize
                } else {
                    1
                };
                let l = level.saturating_sub(back);
                let (lo, width) = (start[l], sizes[l]);
                let mut k = rng.random_range(0..width);
                let mut tries = 0;
                while tries < width && parents.contains(&(lo + k)) {
                    k = (k + 1) % width;
                    tries += 1;
                }
                if tries < width {
                    parents.push(lo + k);
                }
            }
            cap.add(parents.len())?;
            for &u in &parents {
                b.add_edge(TaskId::new(u), TaskId::new(v), output[u])?;
            }
        }
    }
    if let Some(ccr) = c.ccr {
        assign_ccr_bytes(&mut b, ccr, c.bandwidth, bytes_seed(c.seed))?;
    }
    b.build()
}

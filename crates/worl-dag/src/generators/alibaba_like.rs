//! Jobs shaped like the Alibaba cluster-trace-v2018 batch DAGs.
//!
//! Sizes (tasks per job), shapes (depth, placement of tasks on levels, in-degree) and task
//! durations follow statistics measured on the first 50,000 rows of `batch_task.csv`
//! (`shared/data/alibaba-v2018/batch_task_head50k.csv`), loaded with the
//! [Alibaba loader](crate::formats::alibaba)'s default options (14,285 jobs, 49,606 tasks,
//! 33,193 edges kept). `docs/generators.md` states how each table below was measured; the
//! test `alibaba_like_tables_match_the_trace` recomputes them from the trace.
//!
//! Model of one job:
//! 1. its size `n` is drawn from [`JOB_SIZE_COUNTS`] (restricted to the requested range);
//! 2. with the probability of its size bucket ([`SHAPE_BUCKETS`]) it is a job of independent
//!    tasks (`task_<k>`, no edge, as the trace's `task_<base64>` jobs); otherwise a DAG whose
//!    depth `d <= n` is drawn from the bucket's depth counts;
//! 3. one task is put on each of the `d` levels; each remaining task goes to the first level
//!    with probability [`SPARE_ON_FIRST_LEVEL`], else to a uniformly drawn later level;
//! 4. a task on level `l >= 1` draws its in-degree `k` from [`IN_DEGREE_COUNTS`] (capped by
//!    the tasks above it), takes one parent on level `l - 1` and `k - 1` more, distinct, from
//!    any level above;
//! 5. its duration is the trace's 1 s minimum with probability [`ZERO_DURATION_SHARE`]
//!    (the loader's repair of zero durations), else `max(1, exp(N(mu, sigma^2)))` s with
//!    [`DURATION_LN_MU`], [`DURATION_LN_SIGMA`]; work = duration · `work_scale`.
//!
//! Tasks are named as in the trace, so the DAG can be read back from the names: `M<k>` for
//! an entry, `R<k>_<p>` for one parent, `J<k>_<p>_<q>...` for several (`k` = 1-based
//! position in the job, parents listed in ascending order). Edge bytes are drawn for the
//! target CCR ([`crate::ccr`]).

use crate::ccr::{REFERENCE_BANDWIDTH, assign_ccr_bytes};
use crate::error::{DagError, Result};
use crate::generators::{EdgeCap, MAX_GENERATED_TASKS, bytes_seed, check_nonneg, check_task_count};
use crate::ids::TaskId;
use crate::workload::{Workload, WorkloadBuilder};
use rand::distr::{Distribution, weighted::WeightedIndex};
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::LogNormal;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// `(n, jobs)`: how many kept jobs of the trace sample have `n` tasks (every size that
/// occurs; 14,285 jobs in all).
pub const JOB_SIZE_COUNTS: &[(usize, u32)] = &[
    (1, 5788),
    (2, 2154),
    (3, 2766),
    (4, 832),
    (5, 604),
    (6, 418),
    (7, 422),
    (8, 208),
    (9, 160),
    (10, 132),
    (11, 119),
    (12, 105),
    (13, 68),
    (14, 61),
    (15, 59),
    (16, 64),
    (17, 44),
    (18, 37),
    (19, 26),
    (20, 14),
    (21, 47),
    (22, 12),
    (23, 14),
    (24, 13),
    (25, 17),
    (26, 8),
    (27, 5),
    (28, 14),
    (29, 7),
    (30, 6),
    (31, 6),
    (32, 5),
    (33, 3),
    (35, 2),
    (36, 6),
    (39, 1),
    (40, 1),
    (42, 1),
    (43, 2),
    (45, 1),
    (47, 2),
    (48, 2),
    (50, 1),
    (57, 1),
    (62, 1),
    (63, 1),
    (64, 2),
    (65, 20),
    (93, 2),
    (127, 1),
];

/// Shape statistics of the trace's jobs with `min_tasks..=max_tasks` tasks.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SizeBucket {
    /// Smallest size in the bucket.
    pub min_tasks: usize,
    /// Largest size in the bucket.
    pub max_tasks: usize,
    /// Jobs of independent tasks only (no DAG name) among them.
    pub independent_jobs: u32,
    /// `depth_counts[i]`: DAG jobs (at least one DAG-named task) of depth `i + 1`.
    pub depth_counts: &'static [u32],
}

/// Shape statistics per size bucket (sizes 1..5 exactly, then 6-10, 11-20, 21-50, 51+).
pub const SHAPE_BUCKETS: &[SizeBucket] = &[
    SizeBucket {
        min_tasks: 1,
        max_tasks: 1,
        independent_jobs: 0,
        depth_counts: &[1],
    },
    SizeBucket {
        min_tasks: 2,
        max_tasks: 2,
        independent_jobs: 64,
        depth_counts: &[45, 2045],
    },
    SizeBucket {
        min_tasks: 3,
        max_tasks: 3,
        independent_jobs: 1319,
        depth_counts: &[25, 306, 1116],
    },
    SizeBucket {
        min_tasks: 4,
        max_tasks: 4,
        independent_jobs: 0,
        depth_counts: &[6, 97, 327, 402],
    },
    SizeBucket {
        min_tasks: 5,
        max_tasks: 5,
        independent_jobs: 11,
        depth_counts: &[5, 47, 163, 279, 99],
    },
    SizeBucket {
        min_tasks: 6,
        max_tasks: 10,
        independent_jobs: 0,
        depth_counts: &[8, 54, 163, 382, 363, 246, 96, 20, 8],
    },
    SizeBucket {
        min_tasks: 11,
        max_tasks: 20,
        independent_jobs: 0,
        depth_counts: &[2, 7, 26, 60, 137, 109, 113, 67, 43, 28, 4, 1],
    },
    SizeBucket {
        min_tasks: 21,
        max_tasks: 50,
        independent_jobs: 0,
        depth_counts: &[
            0, 12, 3, 11, 14, 21, 36, 24, 19, 6, 10, 14, 2, 1, 0, 1, 0, 0, 0, 0, 2,
        ],
    },
    SizeBucket {
        min_tasks: 51,
        max_tasks: usize::MAX,
        independent_jobs: 21,
        depth_counts: &[0, 0, 0, 1, 2, 0, 2, 0, 0, 2],
    },
];

/// `IN_DEGREE_COUNTS[k - 1]`: tasks with `k` parents among the trace's non-entry tasks.
pub const IN_DEGREE_COUNTS: &[u32] = &[
    18351, 3565, 1022, 392, 173, 107, 48, 50, 25, 11, 9, 5, 6, 3, 3, 0, 4, 6,
];

/// Share of the "spare" tasks of DAG jobs (tasks beyond one per level) that sit on the
/// first level: 7,452 of 13,783.
pub const SPARE_ON_FIRST_LEVEL: f64 = 7452.0 / 13783.0;

/// Share of tasks with `end_time == start_time`: 2,735 of 49,606.
pub const ZERO_DURATION_SHARE: f64 = 2735.0 / 49606.0;

/// Mean of `ln(duration / 1 s)` over the 46,871 tasks with a positive duration.
pub const DURATION_LN_MU: f64 = 2.568_81;

/// Sample standard deviation of `ln(duration / 1 s)` over the same tasks.
pub const DURATION_LN_SIGMA: f64 = 1.833_48;

/// Parameters of [`alibaba_like`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AlibabaLikeParams {
    /// Number of jobs (`>= 1`; the jobs' tasks together at most
    /// [`MAX_GENERATED_TASKS`]).
    pub jobs: usize,
    /// Smallest job size drawn. Default 1.
    pub min_tasks: usize,
    /// Largest job size drawn. Default `usize::MAX` (the trace's largest is 127).
    pub max_tasks: usize,
    /// Reference GPU-seconds per trace second. Default 1.0.
    pub work_scale: f64,
    /// Target CCR at `bandwidth`. Default 1.0.
    pub ccr: f64,
    /// Bandwidth of the CCR, bytes/s. Default [`REFERENCE_BANDWIDTH`].
    pub bandwidth: f64,
}

impl AlibabaLikeParams {
    /// Defaults for `jobs` jobs.
    pub fn new(jobs: usize) -> Self {
        Self {
            jobs,
            min_tasks: 1,
            max_tasks: usize::MAX,
            work_scale: 1.0,
            ccr: 1.0,
            bandwidth: REFERENCE_BANDWIDTH,
        }
    }
    /// Only sizes in `min..=max`.
    pub fn task_range(mut self, min: usize, max: usize) -> Self {
        self.min_tasks = min;
        self.max_tasks = max;
        self
    }
    /// Sets the target CCR and its bandwidth.
    pub fn ccr(mut self, ccr: f64, bandwidth: f64) -> Self {
        self.ccr = ccr;
        self.bandwidth = bandwidth;
        self
    }
    /// Sets the work scale.
    pub fn work_scale(mut self, scale: f64) -> Self {
        self.work_scale = scale;
        self
    }
}

fn bucket(n: usize) -> &'static SizeBucket {
    SHAPE_BUCKETS
        .iter()
        .find(|b| (b.min_tasks..=b.max_tasks).contains(&n))
        .unwrap_or(&SHAPE_BUCKETS[SHAPE_BUCKETS.len() - 1])
}

/// `jobs` Alibaba-like jobs `j_1, j_2, ...` in one workload (see the module docs).
///
/// ```
/// use worl_dag::generators::alibaba_like::{alibaba_like, AlibabaLikeParams};
/// let w = alibaba_like(&AlibabaLikeParams::new(20).task_range(2, 50), 1)?;
/// assert_eq!(w.n_jobs(), 20);
/// assert!(w.jobs().iter().all(|j| (2..=50).contains(&j.tasks.len())));
/// # Ok::<(), worl_dag::DagError>(())
/// ```
///
/// Errors: [`DagError::InvalidParameter`] for `jobs == 0`, a size range holding no trace
/// size, or a bad `work_scale`, `ccr` or `bandwidth`; naming `jobs` when the jobs would hold
/// more than [`MAX_GENERATED_TASKS`] tasks (checked before allocating with the smallest
/// size of the range, then while drawing) or more than
/// [`MAX_GENERATED_EDGES`](crate::generators::MAX_GENERATED_EDGES) edges.
pub fn alibaba_like(p: &AlibabaLikeParams, seed: u64) -> Result<Workload> {
    if p.jobs == 0 {
        return Err(DagError::InvalidParameter {
            name: "jobs",
            reason: "at least one job is needed".into(),
        });
    }
    check_nonneg("work_scale", p.work_scale, true)?;
    check_nonneg("ccr", p.ccr, false)?;
    check_nonneg("bandwidth", p.bandwidth, true)?;
    let sizes: Vec<(usize, u32)> = JOB_SIZE_COUNTS
        .iter()
        .copied()
        .filter(|&(n, _)| n >= p.min_tasks && n <= p.max_tasks)
        .collect();
    let size_pick =
        WeightedIndex::new(sizes.iter().map(|s| s.1)).map_err(|_| DagError::InvalidParameter {
            name: "min_tasks",
            reason: format!(
                "no trace job has {}..={} tasks (sizes 1..=127 occur)",
                p.min_tasks, p.max_tasks
            ),
        })?;
    // Every job has at least the smallest size of the range.
    let smallest = sizes.iter().map(|s| s.0).min().unwrap_or(1);
    check_task_count(
        "jobs",
        p.jobs as u128 * smallest as u128,
        &format!(
            "jobs = {} of at least {smallest} task(s) each (min_tasks = {})",
            p.jobs, p.min_tasks
        ),
    )?;
    let indeg_pick = WeightedIndex::new(IN_DEGREE_COUNTS).expect("positive counts");
    let duration =
        LogNormal::new(DURATION_LN_MU, DURATION_LN_SIGMA).expect("valid lognormal parameters");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut b = WorkloadBuilder::new("alibaba-like");
    let mut level_of: Vec<usize> = Vec::new();
    let mut parents: Vec<usize> = Vec::new();
    let mut name = String::new();
    let mut cap = EdgeCap::new("jobs");
    let mut made = 0usize;
    for job_no in 1..=p.jobs {
        let n = sizes[size_pick.sample(&mut rng)].0;
        made += n;
        if made > MAX_GENERATED_TASKS {
            return Err(DagError::InvalidParameter {
                name: "jobs",
                reason: format!(
                    "the first {job_no} of jobs = {} hold {made} tasks; generators make at most {MAX_GENERATED_TASKS}",
                    p.jobs
                ),
            });
        }
        let shape = bucket(n);
        let dag_jobs: u32 = shape.depth_counts.iter().sum();
        let independent = n > 1
            && rng.random_range(0..dag_jobs + shape.independent_jobs) < shape.independent_jobs;
        let j = b.add_job(format!("j_{job_no}"))?;
        let base = b.n_tasks();
        let work = |rng: &mut ChaCha8Rng| {
            let d = if rng.random_bool(ZERO_DURATION_SHARE) {
                1.0
            } else {
                duration.sample(rng).max(1.0)
            };
            d * p.work_scale
        };
        if independent {
            for k in 1..=n {
                b.add_task(j, format!("task_{k}"), work(&mut rng), None)?;
            }
            continue;
        }
        // Depth d <= n from the bucket's counts.
        let depths = &shape.depth_counts[..shape.depth_counts.len().min(n)];
        let d = match WeightedIndex::new(depths) {
            Ok(w) => w.sample(&mut rng) + 1,
            Err(_) => 1,
        };
        // Levels: one task each, spare tasks on level 0 or a later level.
        let mut level_size = vec![1usize; d];
        for _ in d..n {
            let l = if d == 1 || rng.random_bool(SPARE_ON_FIRST_LEVEL) {
                0
            } else {
                rng.random_range(1..d)
            };
            level_size[l] += 1;
        }
        level_of.clear();
        for (l, &s) in level_size.iter().enumerate() {
            level_of.extend(std::iter::repeat_n(l, s));
        }
        let mut level_start = vec![0usize; d + 1];
        for l in 0..d {
            level_start[l + 1] = level_start[l] + level_size[l];
        }
        for (v, &l) in level_of.iter().enumerate() {
            parents.clear();
            if l > 0 {
                let above = level_start[l];
                let k = (indeg_pick.sample(&mut rng) + 1).min(above);
                let first = rng.random_range(level_start[l - 1]..above);
                parents.push(first);
                for x in sample(&mut rng, above - 1, k - 1) {
                    parents.push(if x >= first { x + 1 } else { x });
                }
                parents.sort_unstable();
            }
            name.clear();
            name.push(match parents.len() {
                0 => 'M',
                1 => 'R',
                _ => 'J',
            });
            let _ = write!(name, "{}", v + 1);
            for &u in &parents {
                let _ = write!(name, "_{}", u + 1);
            }
            let t = b.add_task(j, name.as_str(), work(&mut rng), None)?;
            cap.add(parents.len())?;
            for &u in &parents {
                b.add_edge(TaskId::new(base + u), t, 0.0)?;
            }
        }
    }
    assign_ccr_bytes(&mut b, p.ccr, p.bandwidth, bytes_seed(seed))?;
    b.build()
}

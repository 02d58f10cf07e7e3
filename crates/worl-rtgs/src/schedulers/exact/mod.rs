//! `exact`: a depth-first branch-and-bound that finds an optimal (minimum-makespan) schedule
//! of small problems and says whether it proved optimality.
//!
//! # Method
//!
//! A node is a partial schedule built by **appending**: each step picks a *ready* task
//! (every predecessor placed) and a GPU it fits, and starts the task at its earliest start on
//! that GPU given the earlier placements, `max(r_k, finish of the last task on k,
//! max over predecessors u of F_u + comm(d_uv, π(u), k))`, moved past every busy window
//! of `k` that `[start, start + exec)` would meet ([`Problem::busy`]; issue 21) — exactly
//! [`PartialSchedule::place`](worl_cluster::PartialSchedule::place) with
//! [`Policy::Append`](worl_cluster::Policy::Append). Children are tried best first (smaller
//! finish time, then smaller task id, then smaller GPU id), depth first. The incumbent is
//! the better of HEFT's and PEFT's schedules (insertion policy), so the result is never
//! worse than either.
//!
//! # Why the search space holds an optimal schedule
//!
//! The model's schedules (`docs/model.md`; [`Schedule::validate`]) give each task `v` a GPU
//! `π(v)` it fits, a start `S_v ≥ r_π(v)` (the GPU's ready time) and finish
//! `F_v = S_v + exec(v, π(v))` (background load is already in the effective speed), with
//! `S_v ≥ F_u + comm(d_uv, π(u), π(v))` for every edge `u → v` (communication depends only
//! on the two GPUs: no link contention, 0 on one GPU), and no two tasks of one GPU overlap.
//! With busy windows, `[S_v, F_v)` also meets no window of `π(v)`. Nothing else constrains
//! a start time, so:
//!
//! 1. **Left shift.** Take any feasible schedule `S` and order its tasks by
//!    `(S_v, F_v, topological position)`. This order `σ` is topological (for `u → v`,
//!    `S_u ≤ F_u ≤ S_v`, and `S_u = S_v` forces `F_u = S_u ≤ F_v`, so ties fall to the
//!    topological position) and lists every GPU's tasks in their timeline order. Appending
//!    the tasks in `σ` to the same GPUs gives starts `S'_v ≤ S_v`, by induction along `σ`:
//!    `S'_v` is the maximum of `r_π(v)`, of `F'_u + comm ≤ F_u + comm ≤ S_v` over the
//!    predecessors and of the finish `F'_w ≤ F_w ≤ S_v` of the task before `v` on its GPU,
//!    then moved to the earliest point that meets no busy window: `S_v` is such a point at
//!    or after that maximum, so the earliest one is no later.
//!    The appended schedule is feasible and its makespan is no larger.
//! 2. The search branches over every ready task and every GPU that fits it, so every
//!    topological order × GPU assignment is a path: the optimal schedule's left shift is
//!    reachable, before the reductions below.
//!
//! The insertion policy is not needed: an insertion-decoded schedule is feasible, so no
//! better than the optimum, which an appended one reaches (the tests check both against
//! brute-force enumeration).
//!
//! # Reductions (each keeps an optimal schedule reachable)
//!
//! * **Commutation.** Two consecutive placements `(u, k)`, `(v, l)` with `k ≠ l` and no edge
//!   between `u` and `v` can be swapped without changing any start time (neither reads what
//!   the other writes: `v`'s data, `l`'s free time and `l`'s busy windows do not depend on
//!   `u`). Sequences equal
//!   up to such swaps form a *trace* (Mazurkiewicz), and every trace has a lexicographically
//!   smallest sequence by task id, which has no adjacent independent pair in decreasing
//!   task order (swapping it would give a smaller sequence). So after `(u, k)` a task
//!   `v < u` independent of `u` is only tried on `k`.
//! * **Symmetry** (processor normalisation, Sinnen 2014). GPUs `k < l` are *twins* when
//!   swapping them maps the problem to itself: equal execution time of every task on both
//!   (memory fit included), equal ready times, equal busy windows, and equal links to every
//!   other GPU and between them. While both are empty the state is symmetric, so a task goes to the
//!   first empty GPU of a twin class only. Combined with commutation this is still sound:
//!   relabelling twins maps traces to traces and keeps task order, so relabelling the
//!   optimal trace's smallest sequence so that each class's GPUs are first used in id
//!   order gives a sequence both rules keep.
//! * **Bounds** (see `bound.rs`). A child is cut when a lower bound on every completion
//!   reaches `best · (1 − 10⁻¹²)` (the bounds ignore busy windows, which only delay starts,
//!   so they stay lower bounds with windows): (a) its finish plus `after(v, k)`, the longest chain
//!   after `v` finishing on GPU `k`, each successor on its best GPU with the communication
//!   from `k` (0 on `k` itself); (b) the **path bound**: along the topological order, each
//!   unplaced task's least finish time on each GPU it fits, from the GPU's free time
//!   (appending: nothing starts on `k` before `avail_k`), the real communication from placed
//!   predecessors and, from unplaced ones, their least finish on any GPU plus the
//!   communication from there (0 from the same GPU); the bound is the largest over tasks of
//!   the least over GPUs of that finish plus `after`; (c) the **load bound**: the smallest
//!   `T` with `Σ_k rate_k · max(0, T − avail_k)` at least the remaining load (work and
//!   effective speed for related machines, minimum execution time and rate 1 for unrelated
//!   ones). The root bound is also at least [`Problem::lower_bound`]. Above 32 GPUs the
//!   bounds take communication between unplaced tasks as 0 (the `O(m²)` per edge would
//!   dominate).
//! * **State dominance** (up to 64 tasks and 64 GPUs). Each expanded state is remembered
//!   under a key: its placed tasks, its non-empty GPUs, its latest placement and the GPU of
//!   each *frontier* task (placed, with an unplaced successor). A state is not expanded when
//!   a remembered state with the same key has a makespan, GPU free times and frontier
//!   finish times all no later. Its branches are then exactly the remembered state's (the
//!   ready tasks, the symmetry rule and the commutation rule read only what the key fixes),
//!   and every sequence of placements starts each task no later from the remembered state
//!   (start times are maxima of sums of these times, moved past busy windows, which is
//!   monotone: a later time never moves to an earlier start), so nothing in its subtree beats what
//!   the remembered subtree (searched to the end before, as it sits at the same depth) was cut
//!   or searched for: the cutoff only falls.
//!   At most 2²² numbers (32 MiB) and 16 states per key are kept.
//!
//! No rule restricting the search to *active* schedules is used.
//!
//! # Optimality, budgets and the outcome
//!
//! [`Exact::solve`] returns an [`ExactOutcome`]: the schedule, whether the search finished
//! (then the makespan is optimal up to the relative tolerance `10⁻¹²` of the pruning test,
//! which absorbs rounding between sums taken in different orders), the nodes spent and a
//! lower bound. It stops early, with `proven_optimal == false` and the best schedule so far,
//! after `nodes` placements (option `nodes`, default [`Exact::DEFAULT_NODES`], or the
//! evaluation budget [`Budget::max_evaluations`](crate::Budget) when smaller: a node is
//! one evaluated placement, reported as one evaluation), when the
//! CPU-time budget ([`Budget::max_time`](crate::Budget)) is spent, or when the progress
//! observer asks it to (it reports every 65,536 nodes); also when its child lists would
//! take more than 192 MiB (a deep dive into a wide graph of thousands of tasks). With a node
//! budget only, results are reproducible. [`Scheduler::schedule`] runs [`Exact::solve`]
//! and keeps the outcome for [`Exact::last_outcome`].
//!
//! # Complexity
//!
//! The tree has up to `n! · m^n` leaves; each node costs `O(n · m² · (1 + d̄))` for the
//! bound (`d̄` the mean in-degree; `O(n · m · (1 + d̄))` above 32 GPUs), `O(n + |E| + m)` for
//! the dominance key and a scan of at most 16 remembered states, plus
//! `O(r · m log(r · m))` to list and sort its children (`r` ready tasks). Memory
//! `O(n · (n + m) + |E|)` plus the memo (at most 32 MiB). In practice it proves instances of
//! up to about 10 tasks on 4 GPUs in milliseconds (rarely seconds); past a few dozen tasks
//! the result is a budget-limited improvement of HEFT/PEFT.
//!
//! # References
//!
//! * O. Sinnen, "Reducing the solution space of optimal task scheduling", *Computers &
//!   Operations Research* 43:201–214, 2014 (state-space search over (ready task,
//!   processor) placements; processor normalisation).
//! * V. Diekert and G. Rozenberg (eds.), *The Book of Traces*, World Scientific, 1995
//!   (Mazurkiewicz traces and their lexicographic normal form).
//! * M. L. Pinedo, *Scheduling: Theory, Algorithms, and Systems*, Springer (semi-active
//!   schedules and left shifts).
//!
//! ```
//! use std::sync::Arc;
//! use worl_cluster::{presets, GpuModel, Problem};
//! use worl_dag::generators::shapes;
//! use worl_rtgs::schedulers::Exact;
//! use worl_rtgs::RunContext;
//!
//! let w = Arc::new(shapes::fork_join(3, 10.0, 1.0e6)?);
//! let p = Problem::new(w, Arc::new(presets::homogeneous(2, &GpuModel::v100_16gb())?))?;
//! let outcome = Exact::new().solve(&p, &mut RunContext::new(0))?;
//! assert!(outcome.proven_optimal);
//! assert!(outcome.schedule.validate(&p).is_empty());
//! assert!(outcome.schedule.makespan() >= p.lower_bound().value);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bound;
mod search;
#[cfg(test)]
mod tests;

use crate::error::{Result, ScheduleError};
use crate::registry::Options;
use crate::scheduler::{RunContext, Scheduler};
use crate::schedulers::list::{Heft, Peft};
use worl_cluster::{Problem, Schedule};

/// Most task–GPU pairs `exact` takes: its bounds keep three `f64` tables of tasks × GPUs
/// (`2^22` pairs: 96 MiB); larger problems are refused with [`ScheduleError::TooLarge`]
/// before any allocation (2,000 tasks on 65,536 GPUs took 3 GB).
pub const MAX_TASK_GPU_PAIRS: usize = 1 << 22;

/// The result of one [`Exact::solve`].
#[derive(Clone, Debug, PartialEq)]
pub struct ExactOutcome {
    /// The best schedule found: optimal when [`proven_optimal`](Self::proven_optimal), never
    /// worse than HEFT's or PEFT's.
    pub schedule: Schedule,
    /// Whether the search finished, proving the makespan optimal (up to a relative
    /// `10⁻¹²`); `false` when a node, time or observer budget stopped it.
    pub proven_optimal: bool,
    /// Search nodes (evaluated placements) spent.
    pub nodes: u64,
    /// A lower bound on the optimal makespan, s: the makespan itself when proven, else the
    /// bound at the root of the search (at least [`Problem::lower_bound`]).
    pub lower_bound: f64,
}

/// The exact branch-and-bound scheduler (see the [module documentation](self)).
#[derive(Clone, Debug, PartialEq)]
pub struct Exact {
    max_nodes: u64,
    last: Option<ExactOutcome>,
}

impl Default for Exact {
    fn default() -> Self {
        Self::new()
    }
}

impl Exact {
    /// Registry name.
    pub const NAME: &'static str = "exact";

    /// Default node budget: 50 million placements (a minute or so on 10 tasks and 4 GPUs,
    /// longer on larger problems: a node costs `O(n · m²)`).
    pub const DEFAULT_NODES: u64 = 50_000_000;

    /// The scheduler with the default node budget.
    pub fn new() -> Self {
        Self {
            max_nodes: Self::DEFAULT_NODES,
            last: None,
        }
    }

    /// Sets the node budget: the most placements the search evaluates (0: the heuristics'
    /// schedule, proven only if it meets the root bound).
    pub fn with_max_nodes(mut self, nodes: u64) -> Self {
        self.max_nodes = nodes;
        self
    }

    /// The node budget.
    pub fn max_nodes(&self) -> u64 {
        self.max_nodes
    }

    /// From registry options: `nodes` (a non-negative integer, default
    /// [`DEFAULT_NODES`](Self::DEFAULT_NODES)).
    ///
    /// Errors: [`ScheduleError::InvalidOption`],
    /// [`ScheduleError::UnknownOption`].
    pub fn from_options(mut options: Options) -> Result<Self> {
        let nodes = options.take_or("nodes", Self::DEFAULT_NODES)?;
        options.finish()?;
        Ok(Self::new().with_max_nodes(nodes))
    }

    /// The outcome of the latest [`Scheduler::schedule`] call (`None` before the first), so
    /// that a harness holding the scheduler can ask whether its schedule is proven optimal.
    pub fn last_outcome(&self) -> Option<&ExactOutcome> {
        self.last.as_ref()
    }

    /// Searches an optimal schedule of `problem` within the node budget (capped by `ctx`'s
    /// evaluation budget), `ctx`'s CPU-time budget and observer (see the [module documentation](self)).
    ///
    /// Errors: [`ScheduleError::TooLarge`] for more than [`MAX_TASK_GPU_PAIRS`] task–GPU
    /// pairs; those of HEFT and PEFT (which give the first incumbent) and of
    /// [`Schedule::new`].
    pub fn solve(&self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<ExactOutcome> {
        let cells = problem.n_tasks().saturating_mul(problem.n_gpus());
        if cells > MAX_TASK_GPU_PAIRS {
            return Err(ScheduleError::TooLarge {
                scheduler: Self::NAME.to_owned(),
                tasks: problem.n_tasks(),
                gpus: problem.n_gpus(),
                reason: format!(
                    "its bounds keep three tables of tasks x GPUs, at most {MAX_TASK_GPU_PAIRS} pairs (exact is for small instances)"
                ),
            });
        }
        let seed = ctx.seed();
        let heft = Heft::new().schedule(problem, &mut RunContext::new(seed))?;
        let peft = Peft::new().schedule(problem, &mut RunContext::new(seed))?;
        let mut incumbent = if peft.makespan() < heft.makespan() {
            peft
        } else {
            heft
        };
        let inst = bound::Instance::new(problem);
        let mut search = search::Search::new(&inst, incumbent.makespan());
        let root = search.bound(f64::INFINITY).max(problem.lower_bound().value);
        if root >= incumbent.makespan() * (1.0 - search::REL_TOL) {
            // The heuristics meet the bound: optimal without search.
            return Ok(ExactOutcome {
                lower_bound: incumbent.makespan(),
                schedule: incumbent,
                proven_optimal: true,
                nodes: 0,
            });
        }
        // a node is one evaluated placement: an evaluation budget caps the nodes
        let max_nodes = ctx
            .budget()
            .max_evaluations
            .map_or(self.max_nodes, |b| b.min(self.max_nodes));
        let end = search.run(max_nodes, ctx);
        if let Some((_, tasks)) = end.best {
            incumbent = Schedule::new(problem.n_gpus(), tasks)?;
        }
        Ok(ExactOutcome {
            lower_bound: if end.complete {
                incumbent.makespan()
            } else {
                root
            },
            schedule: incumbent,
            proven_optimal: end.complete,
            nodes: end.nodes,
        })
    }
}

impl Scheduler for Exact {
    fn name(&self) -> &str {
        "Exact"
    }

    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        let outcome = self.solve(problem, ctx)?;
        let schedule = outcome.schedule.clone();
        self.last = Some(outcome);
        Ok(schedule)
    }
}

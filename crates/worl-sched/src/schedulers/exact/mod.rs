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
//! worse than either. A gang task (one needing `g > 1` GPUs at once, issue 21) branches over
//! GPU **sets** instead of GPUs (see [Gang tasks](#gang-tasks) below).
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
//! # Gang tasks
//!
//! With gang tasks ([`Problem::has_gangs`]; without one none of this code runs and every
//! result, node count included, is the single-GPU search's) a gang task `v` of `g` GPUs
//! branches over its GPU **sets**: every set of `g` distinct GPUs that fit its memory and
//! its span (the GPUs of one machine for span `machine`, any GPUs for `cluster`), each set
//! once — sets, not orderings, since its run time [`Problem::exec_time_on`] and its
//! data-ready time depend only on the set. A set's GPUs are kept in ascending id order, so
//! its **lead** (the schedule entry's GPU, the first of its
//! [`Schedule::gpus`](worl_cluster::Schedule::gpus)) is its smallest GPU id; the heuristic
//! incumbent's sets are reordered the same way (its times do not change). The task starts
//! at the earliest common append start of the set, exactly
//! [`PartialSchedule::slot_set`](worl_cluster::PartialSchedule::slot_set) with
//! [`Policy::Append`](worl_cluster::Policy::Append): after the last task on every GPU of the
//! set and its inputs' arrival on every GPU of it (a gang predecessor's data leaving from
//! the nearest GPU of its set), at the least point past the busy windows of all of them.
//! Tasks on one GPU read a gang predecessor's data the same way.
//!
//! * **Left shift** still holds: in a feasible schedule a gang's start is a point at or
//!   after all of those times where none of its GPUs has a window, and appending in start
//!   order moves each of those times earlier (by induction), so the least such point is no
//!   later. Every topological order × set assignment is a path of the search.
//! * **Commutation** holds for placements `(u, K)`, `(v, L)` on *disjoint* GPU sets (`v`
//!   reads neither `u`'s data nor the free times of `K`), so after `(u, K)` a task `v < u`
//!   independent of `u` is only tried on sets meeting `K` (on GPUs of `K` for a task on one
//!   GPU).
//! * **Symmetry**: twins must also share a machine (swapping GPUs of two machines could move
//!   a span-`machine` set off its machine, and a set's all-reduce time reads its machines);
//!   a swap of same-machine twins maps every set to one of equal run time, so the problem to
//!   itself. A set holding an empty GPU whose previous twin is empty and *outside* the set is
//!   skipped (the set with the twin instead is its image). Relabelling each class so that its
//!   GPUs are first used in id order (a set taking several at once takes the smallest)
//!   keeps the optimal trace's smallest sequence, as for single GPUs, and it passes this rule.
//! * **Bounds**: the tables take as `exec(v, k)` of a gang the least run time over its sets
//!   holding `k` (a lower bound on its run time on any such set), and as its tail after a set
//!   `S` `max over successors w of min over k in S of X(k, w)`, `X(k, w)` the least
//!   `comm(k, j) + exec(w, j) + after(w, j)` over GPUs `j` (its successors' data leaves from
//!   the nearest GPU of `S`; `after(v, k)` of a gang is the least such tail over its sets
//!   holding `k`); the path bound's argument then holds on every GPU of a gang's set, and
//!   placed gang predecessors send from the nearest GPU of their set. Taking the *least* of
//!   `after(v, k)` over the GPUs of `S` instead would be unsound (two successors may sit
//!   nearest to different GPUs of the set). The load bound needs no change: a gang on `S`
//!   holds each GPU of `S` for at least `max_{k∈S} exec(v, k) / (g · e_v)` with efficiency
//!   `e_v <= 1`, so it uses at least `w_v` units of the related GPUs' capacity (at least its
//!   least single-GPU time on unrelated ones).
//! * **Dominance**: the key holds the latest placement as (task, set) and lists every GPU of
//!   a frontier gang's set; start times with sets are still maxima of sums moved past
//!   windows, monotone in every time of the state.
//!
//! A problem whose gang tasks have more than [`MAX_GANG_SETS`] sets together is refused with
//! [`ScheduleError::TooLarge`] naming the task with the most, before any search; the task
//! and GPU limits are those of single-GPU problems.
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
//! The tree has up to `n! · m^n` leaves (`m^n` for the product of the tasks' set counts with
//! gangs, a gang counting `C(m, g)` sets at most); each node costs `O(n · m² · (1 + d̄))` for the
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
//! use worl_sched::schedulers::Exact;
//! use worl_sched::RunContext;
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

use crate::builtin::{Builtin, Family, boxed};
use crate::error::{Result, ScheduleError};
use crate::options::{OptionDoc, Options};
use crate::scheduler::{RunContext, Scheduler};
use crate::schedulers::list::{Heft, Peft};
use worl_cluster::{GpuSet, Problem, Schedule};

/// Most task–GPU pairs `exact` takes: its bounds keep three `f64` tables of tasks × GPUs
/// (`2^22` pairs: 96 MiB); larger problems are refused with [`ScheduleError::TooLarge`]
/// before any allocation (2,000 tasks on 65,536 GPUs took 3 GB).
pub const MAX_TASK_GPU_PAIRS: usize = 1 << 22;

/// Most GPU sets `exact` enumerates, summed over the gang tasks (`2^20`: a set is kept with
/// its GPUs, run time and tail, about 50 bytes for `g = 4`, and each is a branch at every
/// node where its task is ready); a problem whose gang tasks have more (e.g. a 4-GPU gang
/// of span `cluster` on 64 GPUs: 635,376 sets, twice over) is refused with
/// [`ScheduleError::TooLarge`] naming the task with the most, before any search.
pub const MAX_GANG_SETS: usize = 1 << 20;

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

    /// Its registration: name, description, family, declared options.
    pub const BUILTIN: Builtin = Builtin {
        name: Self::NAME,
        description: "exact: depth-first branch-and-bound over (ready task, GPU or gang GPU set) append placements with path and load bounds, GPU symmetry and commutation pruning, HEFT/PEFT incumbent; proves optimality of small problems",
        family: Family::Exact,
        quick: "nodes=20000",
        options: &[&[OptionDoc::new(
            "nodes",
            ">= 0",
            "50000000",
            "search-tree nodes before the best schedule found is returned unproven",
        )]],
        build: |o| boxed(Self::from_options(o)),
    };

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
    /// pairs or, with gang tasks, more than [`MAX_GANG_SETS`] GPU sets; those of HEFT and
    /// PEFT (which give the first incumbent) and of [`Schedule::with_sets`].
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
        if problem.has_gangs() {
            check_gang_sets(problem)?;
        }
        let seed = ctx.seed();
        let heft = Heft::new().schedule(problem, &mut RunContext::new(seed))?;
        let peft = Peft::new().schedule(problem, &mut RunContext::new(seed))?;
        let mut incumbent = if peft.makespan() < heft.makespan() {
            peft
        } else {
            heft
        };
        if problem.has_gangs() {
            incumbent = ascending_sets(incumbent)?;
        }
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
        if let Some((_, tasks, sets)) = end.best {
            incumbent = Schedule::with_sets(problem.n_gpus(), tasks, sets)?;
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

/// `schedule` with every gang's GPU set in ascending id order, its lead (the task's entry
/// GPU) the smallest id, as the search builds its own; the times are unchanged (a set's run
/// time and data-ready time do not depend on its order). `O(n + Σ g log g)`.
///
/// Errors: those of [`Schedule::with_sets`] (none for a schedule built by it).
fn ascending_sets(schedule: Schedule) -> Result<Schedule> {
    if !schedule.has_sets() {
        return Ok(schedule);
    }
    let mut tasks = schedule.tasks().to_vec();
    let sets: Vec<GpuSet> = schedule
        .sets()
        .map(|(task, gpus)| {
            let mut gpus = gpus.to_vec();
            gpus.sort_unstable();
            tasks[task.index()].gpu = gpus[0];
            GpuSet { task, gpus }
        })
        .collect();
    Ok(Schedule::with_sets(schedule.n_gpus(), tasks, sets)?)
}

/// Refuses a problem whose gang tasks have more than [`MAX_GANG_SETS`] GPU sets together,
/// naming the task with the most. `O(n + gangs · m)`.
///
/// Errors: [`ScheduleError::TooLarge`].
fn check_gang_sets(problem: &Problem) -> Result<()> {
    let mut total = 0usize;
    let mut most: Option<(usize, worl_dag::TaskId)> = None;
    for v in problem.graph().task_ids() {
        let count = bound::gang_set_count(problem, v, MAX_GANG_SETS);
        if count == 0 {
            continue;
        }
        total = total.saturating_add(count);
        if most.is_none_or(|(c, _)| count > c) {
            most = Some((count, v));
        }
        if total > MAX_GANG_SETS {
            break;
        }
    }
    match most {
        Some((count, v)) if total > MAX_GANG_SETS => Err(ScheduleError::TooLarge {
            scheduler: Exact::NAME.to_owned(),
            tasks: problem.n_tasks(),
            gpus: problem.n_gpus(),
            reason: format!(
                "its gang tasks have more than {MAX_GANG_SETS} GPU sets to branch over \
                 (task {} needing {} GPUs has {}; exact is for small instances)",
                problem.task_label(v),
                problem.gpus(v),
                if count > MAX_GANG_SETS {
                    format!("more than {MAX_GANG_SETS}")
                } else {
                    count.to_string()
                },
            ),
        }),
        _ => Ok(()),
    }
}

impl Scheduler for Exact {
    fn name(&self) -> &str {
        "Exact"
    }

    fn supports_gangs(&self) -> bool {
        true
    }

    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        let outcome = self.solve(problem, ctx)?;
        let schedule = outcome.schedule.clone();
        self.last = Some(outcome);
        Ok(schedule)
    }
}

//! Schedule validation: every violated constraint of the model, as typed [`Violation`]s.

use crate::error::num;
use crate::ids::GpuId;
use crate::problem::Problem;
use crate::schedule::Schedule;
use serde::{Deserialize, Serialize};
use worl_dag::TaskId;

/// One violated constraint of a schedule (`docs/model.md`, "Schedules"). Amounts are in seconds
/// (GiB for memory) and positive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[non_exhaustive]
pub enum Violation {
    /// The problem's task has no entry in the schedule.
    #[error("missing task: {task} is not scheduled")]
    MissingTask {
        /// The task.
        task: TaskId,
    },
    /// The schedule has an entry for a task the problem does not have.
    #[error("unknown task: schedule entry {task} is not a task of the problem")]
    UnknownTask {
        /// The entry's id.
        task: TaskId,
    },
    /// A task is on a GPU the problem does not have.
    #[error("unknown GPU: {task} is on GPU {gpu}, which the cluster lacks")]
    UnknownGpu {
        /// The task.
        task: TaskId,
        /// The GPU.
        gpu: GpuId,
    },
    /// `S_v < F_u + comm(d_uv, π(u), π(v))` for an edge `u → v`.
    #[error(
        "precedence: {to} starts at {} s but its data from {from} is ready at {} s (finish + communication), {} s too early",
        num(*start),
        num(*data_ready),
        num(*amount)
    )]
    Precedence {
        /// Parent `u`.
        from: TaskId,
        /// Child `v`.
        to: TaskId,
        /// `F_u + comm`, s.
        data_ready: f64,
        /// `S_v`, s.
        start: f64,
        /// `data_ready − start`, s.
        amount: f64,
    },
    /// Two tasks overlap on one GPU: `second` starts before `first` finishes.
    #[error("overlap on GPU {gpu}: {second} starts {} s before {first} finishes", num(*amount))]
    Overlap {
        /// The GPU.
        gpu: GpuId,
        /// The earlier task.
        first: TaskId,
        /// The later task.
        second: TaskId,
        /// `F_first − S_second`, s.
        amount: f64,
    },
    /// A task starts before its GPU's ready time: `S_v < r_π(v)`.
    #[error(
        "ready time: {task} starts at {} s, before GPU {gpu} is ready at {} s",
        num(*start),
        num(*ready_time)
    )]
    BeforeReady {
        /// The task.
        task: TaskId,
        /// Its GPU.
        gpu: GpuId,
        /// `r_k`, s.
        ready_time: f64,
        /// `S_v`, s.
        start: f64,
        /// `r_k − S_v`, s.
        amount: f64,
    },
    /// A task runs during a busy window of one of its GPUs
    /// ([`Gpu::busy`](crate::Gpu::busy)): `[S_v, F_v)` meets `[from, to)` (a zero-duration
    /// task: `from < S_v < to`).
    #[error(
        "window: {task} runs [{}, {}) s on GPU {gpu}, which is busy over [{}, {}) s ({} s inside)",
        num(*start),
        num(*finish),
        num(*from),
        num(*to),
        num(*amount)
    )]
    Window {
        /// The task.
        task: TaskId,
        /// The GPU.
        gpu: GpuId,
        /// Start of the window, s.
        from: f64,
        /// End of the window, s.
        to: f64,
        /// `S_v`, s.
        start: f64,
        /// `F_v`, s.
        finish: f64,
        /// How deep the task reaches into the window, s: the length of the intersection,
        /// or for a zero-duration task its distance to the nearer edge.
        amount: f64,
    },
    /// A task needs more memory than its GPU has: `mem_v > mem(π(v))`.
    #[error("memory: {task} needs {} GiB, GPU {gpu} has {} GiB", num(*need_gib), num(*have_gib))]
    Memory {
        /// The task.
        task: TaskId,
        /// Its GPU.
        gpu: GpuId,
        /// `mem_v`, GiB.
        need_gib: f64,
        /// `mem(k)`, GiB.
        have_gib: f64,
    },
    /// `F_v − S_v` differs from `exec(v, π(v))`.
    #[error(
        "duration: {task} runs {} s on GPU {gpu}, its execution time there is {} s",
        num(*actual),
        num(*expected)
    )]
    Duration {
        /// The task.
        task: TaskId,
        /// Its GPU.
        gpu: GpuId,
        /// `exec(v, π(v))`, s.
        expected: f64,
        /// `F_v − S_v`, s.
        actual: f64,
    },
    /// A time the validator cannot check because `f64` numbers are too coarse where it lies.
    ///
    /// Without `from`: a task whose execution time exceeds its [`Tolerance`] but whose
    /// times are so large that the rounding of `f64` numbers near them
    /// ([`PRECISION_MARGIN`] spacings) is at least its whole execution time: there
    /// `F_v − S_v` cannot tell whether the task ran at all (a 1 s task at `1e308 s`, where
    /// `1e308 + 1 == 1e308`), so its duration, ready time, precedences and overlaps cannot
    /// be checked. With the default tolerance this starts at about `2e15 s` for a 1 s task
    /// and `2e9 s` for a 1 µs one; tasks shorter than their tolerance (zero durations among
    /// them) are never this violation.
    ///
    /// With `from: Some(u)`: the edge `u → task`, whose communication time exceeds the
    /// tolerance of its precedence check but not the rounding allowance of the times
    /// compared (`F_u`, `F_u + comm`, `S_v`): there a start too early by up to the whole
    /// communication time is not seen (at `1e12 s`, 4 spacings are 488 µs, so a 370 µs
    /// transfer can be skipped entirely). Edges whose communication time is within the
    /// tolerance (zero on one GPU among them) are never this violation.
    ///
    /// Either way, move the schedule's time origin nearer its start.
    #[error(
        "precision: {}'s times reach {} s, where f64 numbers are {} s apart, too coarse for its {} s tolerance",
        precision_subject(*task, *from),
        num(*time),
        num(*spacing),
        num(*tolerance)
    )]
    Precision {
        /// The task (for an edge, its child `v`).
        task: TaskId,
        /// For an edge `u → task` whose communication time drowns in the rounding: its
        /// parent `u`; `None` for the task's own duration.
        #[serde(default)]
        from: Option<TaskId>,
        /// The largest time compared: `max(|S_v|, |F_v|)` for a task, `max(|F_u|,
        /// |F_u + comm|, |S_v|)` for an edge, s.
        time: f64,
        /// [`spacing`] of `time`, s.
        spacing: f64,
        /// The tolerance of the check: [`Tolerance::of`] the task's execution time for a
        /// task, the precedence check's (of the larger execution time of the two tasks and
        /// the communication time) for an edge, s.
        tolerance: f64,
    },
    /// A task runs on a GPU set whose size is not its demand `g` ([`Problem::gpus`]): a gang
    /// task on too few or too many GPUs, or a single-GPU task on several.
    #[error("gang size: {task} runs on {} GPUs ({}), it needs {expected}", gpus.len(), crate::schedule::set_label(gpus))]
    GangSize {
        /// The task.
        task: TaskId,
        /// Its GPU set as scheduled, lead first.
        gpus: Vec<GpuId>,
        /// Its demand `g`.
        expected: u32,
    },
    /// A GPU appears more than once in a task's GPU set.
    #[error("gang set: {task} lists GPU {gpu} more than once in its set")]
    GangRepeated {
        /// The task.
        task: TaskId,
        /// The repeated GPU.
        gpu: GpuId,
    },
    /// A gang task with span `machine` runs on GPUs of several machines.
    #[error(
        "gang span: {task} must run on one machine but its GPUs {lead} and {other} are on different machines"
    )]
    GangSpan {
        /// The task.
        task: TaskId,
        /// Its lead GPU.
        lead: GpuId,
        /// The first GPU of its set on another machine than the lead.
        other: GpuId,
    },
    /// A schedule file has more than one row for a task (reported by
    /// `worl_io::ScheduleFile::validate`; a [`Schedule`]
    /// holds one entry per task and cannot repeat one). The first row is the one checked.
    #[error("duplicate task: {task} has {rows} rows")]
    DuplicateTask {
        /// The task.
        task: TaskId,
        /// Number of rows naming it (`>= 2`).
        rows: usize,
    },
    /// A schedule file's declared makespan differs from the latest finish of its rows
    /// (reported by `worl_io::ScheduleFile::validate`,
    /// with the tolerance `abs + rel · |max_v F_v|` of [`Tolerance::DEFAULT`]; a declared
    /// makespan that is not a finite number is always this violation).
    #[error("makespan: the file declares {} s, its latest finish is {} s", num(*declared), num(*actual))]
    Makespan {
        /// The makespan written in the file, s.
        declared: f64,
        /// `max_v F_v` over the rows, s.
        actual: f64,
    },
}

/// The tolerance of the validator's time comparisons (`docs/model.md`, "Schedules"): a
/// comparison whose durations are `d` seconds accepts an error of up to
/// [`of(d)`](Self::of) `= abs + rel · d` seconds.
///
/// `d` is what the comparison is about, never an absolute time: the task's execution time
/// `exec(v, π(v))` for its duration ([`Violation::Duration`]) and ready time
/// ([`Violation::BeforeReady`]); the larger of the two tasks' execution times and the
/// edge's communication time for a precedence ([`Violation::Precedence`]); the larger of the
/// two tasks' execution times for an overlap ([`Violation::Overlap`]). To it the validator
/// adds the rounding of the times compared, [`PRECISION_MARGIN`] [`spacing`]s of `f64`
/// numbers at the largest of them (below 10 ns for times under `2^27 s`, about 4 years):
/// a difference that small is an artefact of computing times in `f64`, not a violation. So
/// moving the time origin (adding one offset to every start, finish and ready time) changes
/// no verdict for any error larger than the rounding at the old and the new times; a task
/// whose whole duration drowns in that rounding is a [`Violation::Precision`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Tolerance {
    /// Absolute part, s (`>= 0`).
    pub abs: f64,
    /// Part relative to the durations compared (`>= 0`, dimensionless).
    pub rel: f64,
}

impl Tolerance {
    /// The tolerance of [`Schedule::validate`]: 100 ns plus `1e-9` of the durations
    /// compared. 100 ns is far below any time the model resolves (the shortest link latency
    /// is about 1 µs) and far above the rounding error of a schedule computed in `f64` with
    /// times up to years (`f64` numbers below `2^27 s`, about 4 years, are at most 15 ns
    /// apart).
    pub const DEFAULT: Self = Self {
        abs: 1e-7,
        rel: 1e-9,
    };

    /// The tolerance of a comparison about durations `d` (s): `abs + rel · |d|`.
    pub fn of(&self, d: f64) -> f64 {
        self.abs + self.rel * d.abs()
    }
}

impl Default for Tolerance {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// How many spacings of `f64` numbers at the times compared a comparison allows for
/// rounding (see [`Tolerance`] and [`Violation::Precision`]): each computed time carries a
/// few roundings of half a spacing, and a shift of the time origin a few more.
pub const PRECISION_MARGIN: f64 = 4.0;

/// The spacing of `f64` numbers at `t` (s): the distance from `|t|` to the next larger
/// number (at `f64::MAX`, to the next smaller one; infinite for infinite or NaN `t`).
pub fn spacing(t: f64) -> f64 {
    let a = t.abs();
    if !a.is_finite() {
        return f64::INFINITY;
    }
    let next = f64::from_bits(a.to_bits() + 1);
    if next.is_finite() {
        next - a
    } else {
        // at f64::MAX, the distance to the number below
        a - f64::from_bits(a.to_bits() - 1)
    }
}

impl Schedule {
    /// Every constraint of `problem` this schedule violates, with the default
    /// [`Tolerance`] (`100 ns + 1e-9 ·` the durations compared); empty if feasible.
    ///
    /// Checks: every task scheduled once ([`Violation::MissingTask`],
    /// [`Violation::UnknownTask`]), on an existing GPU ([`Violation::UnknownGpu`]),
    /// `S_v >= F_u + comm` per edge ([`Violation::Precedence`]), no overlap on a GPU
    /// ([`Violation::Overlap`], each task against the latest-finishing earlier task),
    /// `S_v >= r_π(v)` ([`Violation::BeforeReady`]), no task in a busy window of its GPU
    /// ([`Violation::Window`]), `mem_v <= mem(π(v))`
    /// ([`Violation::Memory`]), `F_v = S_v + exec(v, π(v))` ([`Violation::Duration`]), and
    /// times precise enough to be checked ([`Violation::Precision`]).
    ///
    /// Gang tasks (when `problem` has one or the schedule has GPU sets): each task's set
    /// `S_v` ([`Schedule::gpus`]) must have its demand's size ([`Violation::GangSize`]), no
    /// repeated GPU ([`Violation::GangRepeated`]), one machine for span `machine`
    /// ([`Violation::GangSpan`]); ready time, windows, memory and overlaps are checked on
    /// every GPU of the set, the duration against [`Problem::exec_time_on`], and an edge
    /// `u → v` against `max_{l∈S_v} min_{k∈S_u} (F_u + comm(d_uv, k, l))` (each GPU of
    /// `v` receives the data from the nearest GPU of `u`); a single-GPU task is a set of
    /// one, for which these are the single-GPU checks.
    ///
    /// The verdict does not depend on the time origin: adding one offset to every start,
    /// finish and ready time changes nothing but the rounding allowance of [`Tolerance`]
    /// (below 10 ns for times under `2^27 s`); a task whose duration drowns in the rounding
    /// at its times is a [`Violation::Precision`].
    pub fn validate(&self, problem: &Problem) -> Vec<Violation> {
        self.validate_with_tolerance(problem, Tolerance::DEFAULT)
    }

    /// Whether [`validate`](Self::validate) finds nothing.
    pub fn is_valid(&self, problem: &Problem) -> bool {
        self.validate(problem).is_empty()
    }

    /// [`validate`](Self::validate) with an explicit [`Tolerance`].
    pub fn validate_with_tolerance(&self, problem: &Problem, tol: Tolerance) -> Vec<Violation> {
        let mut out = Vec::new();
        let n = problem.n_tasks();
        let m = problem.n_gpus();
        let entries = self.tasks();
        for i in entries.len()..n {
            out.push(Violation::MissingTask {
                task: TaskId::new(i),
            });
        }
        for i in n..entries.len() {
            out.push(Violation::UnknownTask {
                task: TaskId::new(i),
            });
        }
        let gangs = problem.has_gangs() || self.has_sets();
        // exec(v, π(v)) of a task with a known GPU (exec(v, S_v) with gangs: 0 when a GPU of
        // the set is unknown, which is reported).
        let exec_of = |v: TaskId| {
            if gangs {
                let set = self.gpus(v);
                if set.iter().all(|k| k.index() < m) {
                    problem.exec_time_on(v, set)
                } else {
                    0.0
                }
            } else {
                problem.exec_time(v, entries[v.index()].gpu)
            }
        };
        // every task's own checks, on its GPU set (a one-element set for a single-GPU task,
        // where every check and figure is the single-GPU one)
        for v in problem.graph().task_ids().take(entries.len()) {
            self.check_on_set(problem, tol, v, &mut out);
        }
        for k in 0..self.n_gpus().min(m) {
            let gpu = GpuId::new(k);
            let mut latest: Option<TaskId> = None;
            for &v in self.timeline(gpu) {
                if v.index() >= n {
                    continue;
                }
                let e = entries[v.index()];
                if let Some(u) = latest {
                    let fu = entries[u.index()].finish;
                    let t = tol.of(exec_of(u).max(exec_of(v))) + rounding(&[fu, e.start]);
                    if late(fu, e.start, t) {
                        out.push(Violation::Overlap {
                            gpu,
                            first: u,
                            second: v,
                            amount: fu - e.start,
                        });
                    }
                    if e.finish > fu {
                        latest = Some(v);
                    }
                } else {
                    latest = Some(v);
                }
            }
        }
        out
    }
}

impl Schedule {
    /// The checks of one task on its GPU set `S_v` (one GPU for a single-GPU task): those of
    /// a single-GPU task on every GPU of its set
    /// (ready time, windows, memory), its set's size, repetitions and span, the duration
    /// `F_v − S_v = exec(v, S_v)`, and each precedence with the set formula
    /// `S_v >= max_{l∈S_v} min_{k∈S_u} (F_u + comm(d_uv, k, l))`. On one-GPU sets every
    /// check and figure is the single-GPU one.
    fn check_on_set(&self, problem: &Problem, tol: Tolerance, v: TaskId, out: &mut Vec<Violation>) {
        let m = problem.n_gpus();
        let entries = self.tasks();
        let e = entries[v.index()];
        let set = self.gpus(v);
        if let Some(&k) = set.iter().find(|k| k.index() >= m) {
            out.push(Violation::UnknownGpu { task: v, gpu: k });
            return;
        }
        let need = problem.gpus(v);
        if set.len() != need as usize {
            out.push(Violation::GangSize {
                task: v,
                gpus: set.to_vec(),
                expected: need,
            });
        }
        let distinct = |i: usize| !set[..i].contains(&set[i]);
        if let Some(i) = (0..set.len()).find(|&i| !distinct(i)) {
            out.push(Violation::GangRepeated {
                task: v,
                gpu: set[i],
            });
        }
        if problem.graph().task(v).gang.span == worl_dag::Span::Machine {
            let home = problem.machine_of(set[0]);
            if let Some(&other) = set.iter().find(|&&k| problem.machine_of(k) != home) {
                out.push(Violation::GangSpan {
                    task: v,
                    lead: set[0],
                    other,
                });
            }
        }
        let exec = problem.exec_time_on(v, set);
        let own = tol.of(exec);
        let time = e.start.abs().max(e.finish.abs());
        let gap = spacing(time);
        if exec > own && PRECISION_MARGIN * gap >= exec {
            out.push(Violation::Precision {
                task: v,
                from: None,
                time,
                spacing: gap,
                tolerance: own,
            });
        }
        for (i, &k) in set.iter().enumerate() {
            if !distinct(i) {
                continue;
            }
            let r = problem.ready_time(k);
            if late(r, e.start, own + rounding(&[r, e.start])) {
                out.push(Violation::BeforeReady {
                    task: v,
                    gpu: k,
                    ready_time: r,
                    start: e.start,
                    amount: r - e.start,
                });
            }
            if let Some((from, to, amount)) = window_met(
                problem.busy(k),
                e.start,
                e.finish,
                own,
                rounding(&[e.start, e.finish]),
            ) {
                out.push(Violation::Window {
                    task: v,
                    gpu: k,
                    from,
                    to,
                    start: e.start,
                    finish: e.finish,
                    amount,
                });
            }
            if !problem.fits(v, k) {
                out.push(Violation::Memory {
                    task: v,
                    gpu: k,
                    need_gib: problem.mem_need(v),
                    have_gib: problem.gpu_mem(k),
                });
            }
        }
        let actual = e.finish - e.start;
        if exceeds((actual - exec).abs(), own + rounding(&[e.start, e.finish])) {
            out.push(Violation::Duration {
                task: v,
                gpu: set[0],
                expected: exec,
                actual,
            });
        }
        for nb in problem.graph().preds(v) {
            let u = nb.task;
            if u.index() >= entries.len() {
                continue;
            }
            let su = self.gpus(u);
            if su.iter().any(|k| k.index() >= m) {
                continue;
            }
            let eu = entries[u.index()];
            let data_ready = set_data_ready(problem, nb.bytes, eu.finish, su, set);
            let comm = data_ready - eu.finish;
            let own = tol.of(exec.max(problem.exec_time_on(u, su)).max(comm));
            let compared = [eu.finish, data_ready, e.start];
            let allowance = rounding(&compared);
            if comm > own && allowance >= comm {
                let time = compared.iter().fold(0.0f64, |a, t| a.max(t.abs()));
                out.push(Violation::Precision {
                    task: v,
                    from: Some(u),
                    time,
                    spacing: spacing(time),
                    tolerance: own,
                });
            }
            if late(data_ready, e.start, own + allowance) {
                out.push(Violation::Precedence {
                    from: u,
                    to: v,
                    data_ready,
                    start: e.start,
                    amount: data_ready - e.start,
                });
            }
        }
    }
}

/// When the data of an edge carrying `bytes` from a task finishing at `finish` on the GPU
/// set `from` is on every GPU of the set `to`: each GPU `l` of `to` receives it from the
/// nearest GPU of `from`, `max_{l∈to} min_{k∈from} (finish + comm(bytes, k, l))`, s. With
/// one GPU on each side this is `finish + comm(bytes, k, l)`.
pub(crate) fn set_data_ready(
    problem: &Problem,
    bytes: f64,
    finish: f64,
    from: &[GpuId],
    to: &[GpuId],
) -> f64 {
    let mut ready = f64::NEG_INFINITY;
    for &l in to {
        let mut nearest = f64::INFINITY;
        for &k in from {
            let t = finish + problem.comm_time(bytes, k, l);
            if t < nearest {
                nearest = t;
            }
        }
        if nearest > ready {
            ready = nearest;
        }
    }
    ready
}

/// The rounding allowance of a comparison of `times` (s): [`PRECISION_MARGIN`] spacings of
/// `f64` numbers at the largest of them. A difference below it is an artefact of computing
/// the times in `f64`, never a violation; it is below 10 ns for times under `2^27 s` (about 4
/// years). Infinite and NaN times get none (they are never within tolerance).
fn rounding(times: &[f64]) -> f64 {
    let largest = times.iter().fold(0.0f64, |a, t| a.max(t.abs()));
    let r = PRECISION_MARGIN * spacing(largest);
    if r.is_finite() { r } else { 0.0 }
}

/// The first busy window among `busy` (sorted, non-overlapping) that `[start, finish)` meets
/// by more than `tol + allowance`: `(from, to, depth)`, the depth being the length of the
/// intersection, or for a zero-duration task the distance to the nearer edge of the window
/// it sits strictly inside.
fn window_met(
    busy: &[(f64, f64)],
    start: f64,
    finish: f64,
    tol: f64,
    allowance: f64,
) -> Option<(f64, f64, f64)> {
    let first = busy.partition_point(|w| w.1 <= start);
    busy[first..]
        .iter()
        .take_while(|w| w.0 <= finish)
        .find_map(|&(from, to)| {
            let depth = if finish > start {
                finish.min(to) - start.max(from)
            } else {
                (start - from).min(to - start)
            };
            exceeds(depth, tol + allowance).then_some((from, to, depth))
        })
}

/// The subject of a [`Violation::Precision`]: the task (`t3`), or the edge `t1 -> t3`.
fn precision_subject(task: TaskId, from: Option<TaskId>) -> String {
    match from {
        Some(u) => format!("edge {u} -> {task}"),
        None => task.to_string(),
    }
}

/// Whether `start` is before `earliest` by more than `tol` (also when the difference is not
/// a number: an infinite time is never within tolerance).
fn late(earliest: f64, start: f64, tol: f64) -> bool {
    exceeds(earliest - start, tol)
}

/// Whether `x > tol`, or either is NaN (a NaN is never within tolerance): the comparison
/// every check of a [`Tolerance`] makes.
pub fn exceeds(x: f64, tol: f64) -> bool {
    !matches!(
        x.partial_cmp(&tol),
        Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
    )
}

impl Violation {
    /// The tasks this violation names (none for [`Violation::Makespan`]; the edge's two
    /// for [`Violation::Precedence`], the pair for [`Violation::Overlap`]).
    pub fn tasks(&self) -> Vec<TaskId> {
        match *self {
            Violation::MissingTask { task }
            | Violation::UnknownTask { task }
            | Violation::DuplicateTask { task, .. }
            | Violation::UnknownGpu { task, .. }
            | Violation::BeforeReady { task, .. }
            | Violation::Memory { task, .. }
            | Violation::Window { task, .. }
            | Violation::Duration { task, .. }
            | Violation::GangSize { task, .. }
            | Violation::GangRepeated { task, .. }
            | Violation::GangSpan { task, .. }
            | Violation::Precision {
                task, from: None, ..
            } => vec![task],
            Violation::Precision {
                task,
                from: Some(from),
                ..
            } => vec![from, task],
            Violation::Precedence { from, to, .. } => vec![from, to],
            Violation::Overlap { first, second, .. } => vec![first, second],
            Violation::Makespan { .. } => Vec::new(),
        }
    }

    /// The constraint broken, as the one word or phrase every message starts with:
    /// `missing task`, `unknown task`, `duplicate task`, `unknown GPU`, `precedence`,
    /// `overlap`, `ready time`, `window`, `memory`, `duration`, `precision`, `makespan`,
    /// `gang size`, `gang set` or `gang span`.
    pub fn constraint(&self) -> &'static str {
        match self {
            Self::MissingTask { .. } => "missing task",
            Self::UnknownTask { .. } => "unknown task",
            Self::DuplicateTask { .. } => "duplicate task",
            Self::UnknownGpu { .. } => "unknown GPU",
            Self::Precedence { .. } => "precedence",
            Self::Overlap { .. } => "overlap",
            Self::BeforeReady { .. } => "ready time",
            Self::Memory { .. } => "memory",
            Self::Window { .. } => "window",
            Self::Duration { .. } => "duration",
            Self::Precision { .. } => "precision",
            Self::Makespan { .. } => "makespan",
            Self::GangSize { .. } => "gang size",
            Self::GangRepeated { .. } => "gang set",
            Self::GangSpan { .. } => "gang span",
        }
    }

    /// This violation as one line for a person: tasks as `` `job/task` (t3) ``, GPUs as
    /// `` g1 (V100-16GB on `node-1`) ``, and the times involved taken from `schedule`
    /// (both intervals of an overlap; the parent's finish and the communication time of a
    /// precedence). Starts with [`constraint`](Self::constraint) like the plain
    /// [`Display`](std::fmt::Display), which names tasks and GPUs by id only.
    ///
    /// `problem` and `schedule` are those the violation was found on; ids outside them
    /// are printed bare (`t7`, `g9`), so this never panics.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use worl_cluster::{presets, GpuId, GpuModel, Problem, Schedule, ScheduledTask};
    /// use worl_dag::WorkloadBuilder;
    /// let mut b = WorkloadBuilder::new("w");
    /// let j = b.add_job("j")?;
    /// b.add_task(j, "a", 4.0, None)?;
    /// let p = Problem::new(Arc::new(b.build()?), Arc::new(presets::homogeneous(1, &GpuModel::v100_16gb())?))?;
    /// let s = Schedule::new(1, vec![ScheduledTask { gpu: GpuId::new(0), start: 1.0, finish: 3.0 }])?;
    /// let v = s.validate(&p);
    /// assert_eq!(v[0].to_string(), "duration: t0 runs 2 s on GPU g0, its execution time there is 4 s");
    /// assert_eq!(
    ///     v[0].explain(&p, &s).to_string(),
    ///     "duration: `j/a` (t0) runs 2 s on g0 (V100-16GB on `node-0`) (start 1 s, finish 3 s), its execution time there is 4 s",
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn explain<'a>(&'a self, problem: &'a Problem, schedule: &'a Schedule) -> Explained<'a> {
        Explained {
            violation: self,
            problem,
            schedule,
        }
    }
}

/// A [`Violation`] with the names and times of its problem and schedule, from
/// [`Violation::explain`]; its [`Display`](std::fmt::Display) is one line.
#[derive(Copy, Clone, Debug)]
pub struct Explained<'a> {
    violation: &'a Violation,
    problem: &'a Problem,
    schedule: &'a Schedule,
}

impl Explained<'_> {
    fn task(&self, v: TaskId) -> String {
        if v.index() < self.problem.n_tasks() {
            format!("`{}` ({v})", self.problem.task_label(v))
        } else {
            v.to_string()
        }
    }

    fn gpu(&self, k: GpuId) -> String {
        let c = self.problem.cluster();
        if k.index() < c.n_gpus() {
            let g = c.gpu(k);
            format!("{k} ({} on `{}`)", g.model, c.machines()[g.machine.index()])
        } else {
            k.to_string()
        }
    }

    /// `(start, finish)` of `v` in the schedule, if it has an entry.
    fn times(&self, v: TaskId) -> Option<(f64, f64)> {
        self.schedule
            .tasks()
            .get(v.index())
            .map(|e| (e.start, e.finish))
    }

    /// The communication time of the edge `u → v` between the GPUs of the schedule, if
    /// both tasks have an entry on a GPU of the problem and the edge exists.
    fn comm(&self, u: TaskId, v: TaskId) -> Option<f64> {
        let entry = |t: TaskId| {
            self.schedule.tasks().get(t.index()).filter(|e| {
                e.gpu.index() < self.problem.n_gpus() && t.index() < self.problem.n_tasks()
            })
        };
        let (eu, ev) = (entry(u)?, entry(v)?);
        let edge = self
            .problem
            .graph()
            .preds(v)
            .iter()
            .find(|nb| nb.task == u)?;
        Some(self.problem.comm_time(edge.bytes, eu.gpu, ev.gpu))
    }

    fn interval(&self, v: TaskId) -> String {
        match self.times(v) {
            Some((s, f)) => format!(" [{} s, {} s]", num(s), num(f)),
            None => String::new(),
        }
    }
}

impl std::fmt::Display for Explained<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = self.violation.constraint();
        match *self.violation {
            Violation::MissingTask { task } => {
                write!(f, "{c}: {} is not scheduled", self.task(task))
            }
            Violation::UnknownTask { task } => write!(
                f,
                "{c}: schedule entry {task} is not a task of workload `{}` ({} tasks)",
                self.problem.workload().name(),
                self.problem.n_tasks()
            ),
            Violation::DuplicateTask { task, rows } => {
                write!(f, "{c}: {} has {rows} rows", self.task(task))
            }
            Violation::UnknownGpu { task, gpu } => write!(
                f,
                "{c}: {} is on GPU {gpu}, which cluster `{}` lacks ({} GPUs)",
                self.task(task),
                self.problem.cluster().name(),
                self.problem.n_gpus()
            ),
            Violation::Precedence {
                from,
                to,
                data_ready,
                start,
                amount,
            } => {
                write!(
                    f,
                    "{c}: {} starts at {} s but its data from {} is ready at {} s",
                    self.task(to),
                    num(start),
                    self.task(from),
                    num(data_ready)
                )?;
                if let Some((_, fu)) = self.times(from) {
                    write!(
                        f,
                        " (finish {} s + communication {} s)",
                        num(fu),
                        num(data_ready - fu)
                    )?;
                }
                write!(f, ", {} s too early", num(amount))
            }
            Violation::Overlap {
                gpu,
                first,
                second,
                amount,
            } => write!(
                f,
                "{c} on {}: {}{} starts {} s before {}{} finishes",
                self.gpu(gpu),
                self.task(second),
                self.interval(second),
                num(amount),
                self.task(first),
                self.interval(first)
            ),
            Violation::BeforeReady {
                task,
                gpu,
                ready_time,
                start,
                amount,
            } => write!(
                f,
                "{c}: {} starts at {} s on {}, which is ready at {} s ({} s early)",
                self.task(task),
                num(start),
                self.gpu(gpu),
                num(ready_time),
                num(amount)
            ),
            Violation::Window {
                task,
                gpu,
                from,
                to,
                start,
                finish,
                amount,
            } => write!(
                f,
                "{c}: {} runs [{} s, {} s) on {}, which is busy over [{} s, {} s) ({} s inside)",
                self.task(task),
                num(start),
                num(finish),
                self.gpu(gpu),
                num(from),
                num(to),
                num(amount)
            ),
            Violation::Memory {
                task,
                gpu,
                need_gib,
                have_gib,
            } => write!(
                f,
                "{c}: {} needs {} GiB but {} has {} GiB",
                self.task(task),
                num(need_gib),
                self.gpu(gpu),
                num(have_gib)
            ),
            Violation::Duration {
                task,
                gpu,
                expected,
                actual,
            } => {
                write!(
                    f,
                    "{c}: {} runs {} s on {}",
                    self.task(task),
                    num(actual),
                    self.gpu(gpu)
                )?;
                if let Some((s, fin)) = self.times(task) {
                    write!(f, " (start {} s, finish {} s)", num(s), num(fin))?;
                }
                write!(f, ", its execution time there is {} s", num(expected))
            }
            Violation::Precision {
                task,
                from: Some(from),
                time,
                spacing,
                tolerance,
            } => {
                write!(
                    f,
                    "{c}: the data of {}{} for {}{}",
                    self.task(from),
                    self.interval(from),
                    self.task(task),
                    self.interval(task)
                )?;
                if let Some(comm) = self.comm(from, task) {
                    write!(f, " takes {} s of communication, which", num(comm))?;
                }
                write!(
                    f,
                    " drowns at {} s, where f64 times are {} s apart, too coarse to check the precedence to its {} s tolerance (move the time origin nearer the schedule's start)",
                    num(time),
                    num(spacing),
                    num(tolerance)
                )
            }
            Violation::Precision {
                task,
                from: None,
                time,
                spacing,
                tolerance,
            } => write!(
                f,
                "{c}: {}{} reaches {} s, where f64 times are {} s apart, too coarse to check it to its {} s tolerance (move the time origin nearer the schedule's start)",
                self.task(task),
                self.interval(task),
                num(time),
                num(spacing),
                num(tolerance)
            ),
            Violation::Makespan { .. } => write!(f, "{}", self.violation),
            Violation::GangSize {
                task,
                ref gpus,
                expected,
            } => write!(
                f,
                "{c}: {} runs on {} GPUs ({}), it needs {expected}",
                self.task(task),
                gpus.len(),
                crate::schedule::set_label(gpus)
            ),
            Violation::GangRepeated { task, gpu } => write!(
                f,
                "{c}: {} lists {} more than once in its set",
                self.task(task),
                self.gpu(gpu)
            ),
            Violation::GangSpan { task, lead, other } => write!(
                f,
                "{c}: {} must run on one machine but runs on {} and {}",
                self.task(task),
                self.gpu(lead),
                self.gpu(other)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ClusterBuilder, GpuModel, Link, Network, ScheduledTask};
    use std::sync::Arc;
    use worl_dag::WorkloadBuilder;

    /// a(1 s) -> b(1 s) with 0 bytes, each on its own single-GPU machine (speed 1), linked
    /// by a link of 370 µs latency: the edge's communication time is 370 µs.
    fn edge_problem() -> Problem {
        let mut w = WorkloadBuilder::new("w");
        let j = w.add_job("j").unwrap();
        let a = w.add_task(j, "a", 1.0, None).unwrap();
        let b = w.add_task(j, "b", 1.0, None).unwrap();
        w.add_edge(a, b, 0.0).unwrap();
        let mut c = ClusterBuilder::new("c");
        let model = GpuModel::custom("S1", 1.0, 32.0).unwrap();
        for i in 0..2 {
            let m = c.add_machine(format!("node-{i}"));
            c.add_gpu(m, &model).unwrap();
        }
        c.network(Network::uniform(
            Link::NVLINK2,
            Link::new(1e9, 370e-6).unwrap(),
        ));
        Problem::new(Arc::new(w.build().unwrap()), Arc::new(c.build().unwrap())).unwrap()
    }

    /// a on g0 at `[t0, t0 + 1]`, b on g1 starting `gap` s after a finishes.
    fn edge_schedule(t0: f64, gap: f64) -> Schedule {
        let fa = t0 + 1.0;
        let entry = |gpu: usize, start: f64| ScheduledTask {
            gpu: GpuId::new(gpu),
            start,
            finish: start + 1.0,
        };
        Schedule::new(2, vec![entry(0, t0), entry(1, fa + gap)]).unwrap()
    }

    #[test]
    fn an_edge_drowned_in_rounding_at_1e12_is_a_precision_violation() {
        let p = edge_problem();
        let (a, b) = (TaskId::new(0), TaskId::new(1));
        // near 0 the 370 µs transfer is checked: skipping it is a precedence violation
        assert_eq!(edge_schedule(0.0, 370e-6).validate(&p), vec![]);
        let v = edge_schedule(0.0, 0.0).validate(&p);
        assert_eq!(v.len(), 1);
        assert!(
            matches!(v[0], Violation::Precedence { from, to, amount, .. }
                if from == a && to == b && (amount - 370e-6).abs() < 1e-12),
            "{v:?}"
        );
        // at 1e12 s f64 numbers are 2^-13 s = 122 µs apart: 4 spacings (488 µs) swallow the
        // transfer, so skipping it passes the precedence check; the edge is a precision
        // violation whether the schedule waits for the data or not
        let fa = 1e12 + 1.0;
        assert_eq!(spacing(fa), 2f64.powi(-13));
        for gap in [0.0, 370e-6] {
            let s = edge_schedule(1e12, gap);
            let sb = s.tasks()[1].start;
            let v = s.validate(&p);
            assert_eq!(
                v,
                vec![Violation::Precision {
                    task: b,
                    from: Some(a),
                    time: sb.max(fa + 370e-6),
                    spacing: 2f64.powi(-13),
                    tolerance: 1e-7 + 1e-9,
                }],
                "gap {gap}"
            );
            assert_eq!(
                v[0].to_string(),
                format!(
                    "precision: edge t0 -> t1's times reach {} s, where f64 numbers are \
                     0.0001220703125 s apart, too coarse for its 1.0099999999999999e-7 s tolerance",
                    num(sb.max(fa + 370e-6))
                )
            );
            let line = v[0].explain(&p, &s).to_string();
            assert!(
                line.starts_with("precision: the data of `j/a` (t0) [1000000000000 s, ")
                    && line.contains("for `j/b` (t1)")
                    && line.contains("takes 0.00037 s of communication, which drowns at"),
                "{line}"
            );
        }
        // a task of 1 s is not a precision violation there: only the edge is
        assert!(
            edge_schedule(1e12, 370e-6)
                .validate(&p)
                .iter()
                .all(|v| matches!(v, Violation::Precision { from: Some(_), .. }))
        );
        // a transfer longer than the allowance is still checked at 1e12 s: 1 ms skipped is a
        // precedence violation, not a precision one
        let slow = {
            let mut w = WorkloadBuilder::new("w");
            let j = w.add_job("j").unwrap();
            let a = w.add_task(j, "a", 1.0, None).unwrap();
            let b = w.add_task(j, "b", 1.0, None).unwrap();
            w.add_edge(a, b, 1e6).unwrap(); // 1 MB at 1 GB/s: 1 ms + 370 µs
            Problem::new(Arc::new(w.build().unwrap()), Arc::new(p.cluster().clone())).unwrap()
        };
        let v = edge_schedule(1e12, 0.0).validate(&slow);
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].constraint(), "precedence");
    }
}

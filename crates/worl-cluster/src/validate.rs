//! Schedule validation: every violated constraint of the model, as typed [`Violation`]s.

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
    #[error("task {task} is not scheduled")]
    MissingTask {
        /// The task.
        task: TaskId,
    },
    /// The schedule has an entry for a task the problem does not have.
    #[error("schedule entry {task} is not a task of the problem")]
    UnknownTask {
        /// The entry's id.
        task: TaskId,
    },
    /// A task is on a GPU the problem does not have.
    #[error("task {task} is on GPU {gpu}, which the cluster lacks")]
    UnknownGpu {
        /// The task.
        task: TaskId,
        /// The GPU.
        gpu: GpuId,
    },
    /// `S_v < F_u + comm(d_uv, π(u), π(v))` for an edge `u → v`.
    #[error(
        "{to} starts at {start} but its data from {from} is ready at {data_ready} ({amount} too early)"
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
    #[error("{second} starts {amount} before {first} finishes on GPU {gpu}")]
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
    #[error("{task} starts at {start} before GPU {gpu} is ready at {ready_time}")]
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
    /// A task needs more memory than its GPU has: `mem_v > mem(π(v))`.
    #[error("{task} needs {need_gib} GiB, GPU {gpu} has {have_gib} GiB")]
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
    #[error("{task} runs {actual} on GPU {gpu}, its execution time is {expected}")]
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
}

impl Schedule {
    /// Every constraint of `problem` this schedule violates, with the default tolerance
    /// `1e-9 · max(1, makespan)` s on time comparisons; empty if feasible.
    ///
    /// Checks: every task scheduled once ([`Violation::MissingTask`],
    /// [`Violation::UnknownTask`]), on an existing GPU ([`Violation::UnknownGpu`]),
    /// `S_v >= F_u + comm` per edge ([`Violation::Precedence`]), no overlap on a GPU
    /// ([`Violation::Overlap`], each task against the latest-finishing earlier task),
    /// `S_v >= r_π(v)` ([`Violation::BeforeReady`]), `mem_v <= mem(π(v))`
    /// ([`Violation::Memory`]), `F_v = S_v + exec(v, π(v))` ([`Violation::Duration`]).
    pub fn validate(&self, problem: &Problem) -> Vec<Violation> {
        self.validate_with_tolerance(problem, 1e-9 * self.makespan().max(1.0))
    }

    /// Whether [`validate`](Self::validate) finds nothing.
    pub fn is_valid(&self, problem: &Problem) -> bool {
        self.validate(problem).is_empty()
    }

    /// [`validate`](Self::validate) with an explicit absolute tolerance `tol` (s).
    pub fn validate_with_tolerance(&self, problem: &Problem, tol: f64) -> Vec<Violation> {
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
        let known = |v: TaskId| v.index() < entries.len() && entries[v.index()].gpu.index() < m;
        for v in problem.graph().task_ids().take(entries.len()) {
            let e = entries[v.index()];
            let k = e.gpu;
            if k.index() >= m {
                out.push(Violation::UnknownGpu { task: v, gpu: k });
                continue;
            }
            let r = problem.ready_time(k);
            if e.start < r - tol {
                out.push(Violation::BeforeReady {
                    task: v,
                    gpu: k,
                    ready_time: r,
                    start: e.start,
                    amount: r - e.start,
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
            let exec = problem.exec_time(v, k);
            let actual = e.finish - e.start;
            if (actual - exec).abs() > tol {
                out.push(Violation::Duration {
                    task: v,
                    gpu: k,
                    expected: exec,
                    actual,
                });
            }
            for nb in problem.graph().preds(v) {
                let u = nb.task;
                if !known(u) {
                    continue;
                }
                let eu = entries[u.index()];
                let data_ready = eu.finish + problem.comm_time(nb.bytes, eu.gpu, k);
                if e.start < data_ready - tol {
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
                    if e.start < fu - tol {
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

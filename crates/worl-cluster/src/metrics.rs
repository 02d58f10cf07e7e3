//! Schedule metrics (makespan, SLR, speedup, efficiency, utilisation) and the makespan
//! lower bound.
//!
//! Definitions (Topcuoglu et al. 2002, §5; `docs/model.md`, "Metrics"):
//! * `SLR = makespan / Σ_{v ∈ CP_MIN} min_k exec(v, k)`, `CP_MIN` the critical path under
//!   minimum execution costs and zero communication;
//! * `speedup = min_k Σ_v exec(v, k) / makespan` (the best single-GPU sequential time);
//! * `efficiency = speedup / m`;
//! * `utilisation = Σ_v |S_v| (F_v − S_v) / (m · makespan)` (`|S_v|` GPUs of a gang task, 1
//!   otherwise);
//! * `gap = makespan / LB`, the lower bound of [`Problem::lower_bound`];
//! * the service measures of the MDTS study (Multi-task Deep Reinforcement Learning for
//!   Scalable Parallel Task Scheduling): mean **job execution time** (per job, its last finish
//!   minus its release; every job of a workload is released at 0), **load imbalance** (the
//!   coefficient of variation of the GPUs' busy time) and **total cost** (busy GPU-seconds
//!   priced per GPU model, [`gpu_hour_price`]).
//!
//! The ratios (SLR, gap, speedup) are always finite: `0 / 0 = 1`, and a ratio whose
//! denominator is 0 while its numerator is not (or that exceeds it) is reported as
//! [`RATIO_CAP`] `= 2⁵² ≈ 4.5 · 10¹⁵`. That happens when every task has zero execution time
//! on some GPU and the GPUs are ready at 0 (then the optimum makespan is 0 and the lower
//! bound is 0), yet the schedule paid communication latency: no finite ratio exists, and
//! [`RATIO_CAP`] marks it while keeping JSON and CSV output and means over runs finite.

use crate::problem::Problem;
use crate::schedule::Schedule;
use serde::{Deserialize, Serialize};
use worl_dag::TaskId;

/// A lower bound on the makespan of every feasible schedule of a problem, and its two parts.
///
/// * `critical_path`: the longest path under minimum costs, starting no earlier than the
///   GPUs can: `est(v) = max(min_{k fits v} r_k, max_{u → v} est(u) + min_k exec(u, k))`,
///   `critical_path = max_v est(v) + min_k exec(v, k)` (minimum over GPUs that fit the task;
///   communication 0). With all `r_k = 0` it is the min-cost critical path; it is never
///   below `min_k r_k + CP_MIN`. Valid because along any path every task runs after its
///   predecessor finishes, takes at least its minimum execution time, and starts no
///   earlier than the ready time of some GPU it fits.
/// * `area` (water-filling over ready times): the smallest `T` with
///   `Σ_k s̃_k · max(0, T − r_k) >= Σ_v w_v`, `s̃_k` the effective speed, for related
///   machines; for unrelated machines the smallest `T` with
///   `Σ_k max(0, T − r_k) >= Σ_v min_k exec(v, k)`. Valid because by time `T` GPU `k`,
///   busy only after `r_k` and one task at a time, can finish at most `s̃_k (T − r_k)`
///   reference-seconds of work (resp. `T − r_k` seconds of the minimum run times). With all
///   `r_k = 0` it is `Σ w / Σ s̃` (resp. `Σ_v min_k exec / m`).
///
/// `value = max(critical_path, area)`.
///
/// **Gang tasks** (`g_v > 1` GPUs, efficiency `e_v`; [`Problem::exec_time_on`]): on any set
/// `S` of `g_v` GPUs, `exec(v, S) >= max_{k∈S} exec(v, k) / (g_v e_v) >= min_k exec(v, k) /
/// (g_v e_v)` (the all-reduce term is `>= 0`), which is the gang's time in the critical
/// path. For the area, the gang holds each GPU `k` of `S` for `exec(v, S)`: on related
/// machines it uses `Σ_{k∈S} s̃_k exec(v, S) >= Σ_{k∈S} s̃_k · w_v / (s̃_k g_v e_v) = w_v /
/// e_v` reference-seconds of capacity (each `s̃_k · max_{k'} w_v / s̃_k'` is at least
/// `s̃_k · w_v / s̃_k`), on unrelated machines `g_v exec(v, S) >= min_k exec(v, k) / e_v`
/// GPU-seconds, so its work counts as `w_v / e_v` (resp. `min_k exec(v, k) / e_v`): with
/// `e_v = 1` exactly its single-GPU work, `g_v` shares of `w_v / g_v`. Single-GPU tasks
/// count as above, so without gangs the bound is unchanged.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LowerBound {
    /// Critical-path bound, s.
    pub critical_path: f64,
    /// Area (work over capacity) bound, s.
    pub area: f64,
    /// The bound: `max(critical_path, area)`, s.
    pub value: f64,
}

/// Quality measures of one schedule (all dimensionless except makespan and lower bound).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// `max_v F_v`, s.
    pub makespan: f64,
    /// Schedule length ratio `makespan / Σ_{CP_MIN} min_k exec` (`>= 1` without ready times);
    /// [`RATIO_CAP`] if the denominator is 0 and the makespan is not, 1 if both are 0.
    pub slr: f64,
    /// `min_k Σ_v exec(v, k) / makespan` (GPUs that fit every task; all GPUs if none does).
    pub speedup: f64,
    /// `speedup / m`.
    pub efficiency: f64,
    /// `Σ_v |S_v| (F_v − S_v) / (m · makespan)` (a gang counts on each GPU of its set `S_v`),
    /// in `[0, 1]` for a feasible schedule.
    pub utilisation: f64,
    /// [`LowerBound::value`], s.
    pub lower_bound: f64,
    /// `makespan / lower_bound` (`>= 1` for a feasible schedule); [`RATIO_CAP`] if the lower
    /// bound is 0 and the makespan is not, 1 if both are 0.
    pub gap: f64,
    /// Mean over jobs of the job execution time `max_{v ∈ job} F_v − release` (release 0:
    /// a workload's jobs are all submitted at time 0), s; 0 for a workload without jobs.
    pub mean_job_time: f64,
    /// Load imbalance: the coefficient of variation `σ / μ` of the busy time
    /// `Σ_{v on k} (F_v − S_v)` over all `m` GPUs (population σ), dimensionless; 0 when no
    /// GPU is busy.
    pub load_imbalance: f64,
    /// Total cost `Σ_v Σ_{k∈S_v} (F_v − S_v) / 3600 · price(model of k)`, US dollars, with the
    /// on-demand prices of [`gpu_hour_price`].
    pub cost: f64,
}

/// On-demand price of one GPU of `model` for one hour, US dollars: the cost unit of
/// [`Metrics::cost`].
///
/// Catalog models (public cloud list prices per GPU, on-demand, US East, as of 2024–2025,
/// divided by the GPUs of the instance): K80 0.90 (AWS p2.xlarge), M60 0.75 (AWS
/// g3s.xlarge), P100 1.46 (Google Cloud), V100-16GB 3.06 (AWS p3.2xlarge), V100-32GB 3.90
/// (AWS p3dn.24xlarge / 8), T4 0.526 (AWS g4dn.xlarge), A10 1.006 (AWS g5.xlarge, A10G),
/// A100-40GB 4.10 (AWS p4d.24xlarge / 8), A100-80GB 5.12 (AWS p4de.24xlarge / 8), H100
/// 12.29 (AWS p5.48xlarge / 8), H200 10.60 (AWS p5en.48xlarge / 8). Any other model is
/// priced by speed, `3.06 · relative_speed` (the V100's price per unit of speed). Prices
/// move; the figure is a yardstick for comparing schedules, not a bill.
pub fn gpu_hour_price(model: &crate::GpuModel) -> f64 {
    match model.name.as_str() {
        "K80" => 0.90,
        "M60" => 0.75,
        "P100" => 1.46,
        "V100-16GB" | "V100" => 3.06,
        "V100-32GB" => 3.90,
        "T4" => 0.526,
        "A10" => 1.006,
        "A100-40GB" | "A100" => 4.10,
        "A100-80GB" => 5.12,
        "H100" => 12.29,
        "H200" => 10.60,
        _ => 3.06 * model.relative_speed,
    }
}

/// The largest ratio [`Metrics`] report, `2⁵² = 1 / f64::EPSILON ≈ 4.5 · 10¹⁵`: the value of
/// SLR, gap and speedup when their denominator is 0 and their numerator is not (no finite
/// ratio exists), and the cap of any larger ratio. A denominator below `ε ·` numerator is
/// beyond the resolution of the numerator, so the cap loses no information a finite ratio
/// could carry.
pub const RATIO_CAP: f64 = 4_503_599_627_370_496.0;

/// `num / den` with `0 / 0 = 1` and `x / 0 = RATIO_CAP`, capped at [`RATIO_CAP`].
fn ratio(num: f64, den: f64) -> f64 {
    if den > 0.0 {
        (num / den).min(RATIO_CAP)
    } else if num > 0.0 {
        RATIO_CAP
    } else {
        1.0
    }
}

impl Problem {
    /// `Σ_{v ∈ CP_MIN} min_k exec(v, k)`: the critical path under minimum execution costs and
    /// zero communication, s (the denominator of SLR; Topcuoglu et al. 2002, eq. 11).
    pub fn min_critical_path(&self) -> f64 {
        let g = self.graph();
        if self.has_gangs() {
            return g
                .critical_path(|t| self.min_run_time(t), |_, _, _| 0.0)
                .length;
        }
        g.critical_path(|t| self.min_exec_time(t), |_, _, _| 0.0)
            .length
    }

    /// The least run time of `task` on any GPU set it may take, s: `min_k exec(v, k)` for a
    /// single-GPU task, `min_k exec(v, k) / (g · e_v)` for a gang task (see [`LowerBound`]);
    /// the minimum over GPUs that fit it.
    ///
    /// # Panics
    /// If `task` is out of range.
    pub fn min_run_time(&self, task: TaskId) -> f64 {
        let t = self.graph().task(task);
        if t.is_gang() {
            self.min_exec_time(task) / (f64::from(t.gpus) * t.gang.efficiency)
        } else {
            self.min_exec_time(task)
        }
    }

    /// `min_k Σ_v exec(v, k)`: the best sequential time on one GPU, over GPUs that fit every
    /// task (every GPU if none does), s (the numerator of speedup).
    pub fn sequential_time(&self) -> f64 {
        let n = self.n_tasks();
        let mut best = f64::INFINITY;
        let mut best_any = f64::INFINITY;
        for c in self.class_ids() {
            let k = self.class_gpus(c)[0];
            let mut sum = 0.0;
            let mut fits_all = true;
            for v in 0..n {
                let t = TaskId::new(v);
                sum += self.exec_time(t, k);
                fits_all &= self.fits(t, k);
            }
            best_any = best_any.min(sum);
            if fits_all {
                best = best.min(sum);
            }
        }
        if best.is_finite() { best } else { best_any }
    }

    /// The makespan lower bound (see [`LowerBound`]). `O(n + |E| + m log m)`.
    pub fn lower_bound(&self) -> LowerBound {
        let g = self.graph();
        let m = self.n_gpus();
        // Earliest ready time among GPUs with at least a given memory: GPUs sorted by
        // memory descending, prefix minimum of ready times.
        let mut by_mem: Vec<(f64, f64)> = self
            .cluster()
            .gpu_ids()
            .map(|k| (self.gpu_mem(k), self.ready_time(k)))
            .collect();
        by_mem.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut prefix_min = Vec::with_capacity(m);
        let mut r = f64::INFINITY;
        for &(_, rk) in &by_mem {
            r = r.min(rk);
            prefix_min.push(r);
        }
        let earliest_ready = |need: f64| {
            // number of GPUs with memory >= need (>= 1 by Problem's construction check)
            let fit = by_mem.partition_point(|&(mem, _)| mem >= need);
            prefix_min[fit.max(1) - 1]
        };
        let gangs = self.has_gangs();
        let mut est = vec![0.0f64; self.n_tasks()];
        let mut critical_path = 0.0f64;
        for &v in g.topo_order() {
            let mut s = earliest_ready(self.mem_need(v));
            if gangs {
                for nb in g.preds(v) {
                    let u = nb.task;
                    s = s.max(est[u.index()] + self.min_run_time(u));
                }
                est[v.index()] = s;
                critical_path = critical_path.max(s + self.min_run_time(v));
                continue;
            }
            for nb in g.preds(v) {
                let u = nb.task;
                s = s.max(est[u.index()] + self.min_exec_time(u));
            }
            est[v.index()] = s;
            critical_path = critical_path.max(s + self.min_exec_time(v));
        }
        // a gang's work over its efficiency (see `LowerBound`)
        let per_eff = |v: TaskId, x: f64| {
            let t = g.task(v);
            if t.is_gang() {
                x / t.gang.efficiency
            } else {
                x
            }
        };

        // Water-filling over ready times.
        let (work, speeds): (f64, Vec<(f64, f64)>) = if self.is_unrelated() {
            (
                if gangs {
                    g.task_ids()
                        .map(|t| per_eff(t, self.min_exec_time(t)))
                        .sum()
                } else {
                    g.task_ids().map(|t| self.min_exec_time(t)).sum()
                },
                self.cluster()
                    .gpu_ids()
                    .map(|k| (self.ready_time(k), 1.0))
                    .collect(),
            )
        } else {
            (
                if gangs {
                    g.tasks().map(|(v, t)| per_eff(v, t.work)).sum()
                } else {
                    g.tasks().map(|(_, t)| t.work).sum()
                },
                self.cluster()
                    .gpu_ids()
                    .map(|k| (self.ready_time(k), self.effective_speed(k)))
                    .collect(),
            )
        };
        let area = water_fill(work, speeds);
        LowerBound {
            critical_path,
            area,
            value: critical_path.max(area),
        }
    }
}

/// The smallest `T` with `Σ_k s_k · max(0, T − r_k) >= work`, for `(r_k, s_k)` pairs
/// (`s_k > 0`); the smallest ready time when `work == 0`.
///
/// Finite for finite inputs: if the direct sums `Σ s_k`, `Σ s_k r_k` overflow (speeds and
/// ready times near `f64::MAX`), it is recomputed with speeds scaled by the largest one.
fn water_fill(work: f64, mut gpus: Vec<(f64, f64)>) -> f64 {
    gpus.sort_by(|a, b| a.0.total_cmp(&b.0));
    let t = water_fill_sorted(work, &gpus);
    if t.is_finite() {
        return t;
    }
    // T = (work + Σ s r) / Σ s = (work / s_max) / Σ s' + Σ (s' / Σ s') r with
    // s' = s / s_max in (0, 1]: Σ s' <= m and the weights s' / Σ s' sum to 1.
    let s_max = gpus.iter().map(|g| g.1).fold(0.0f64, f64::max);
    let scaled_work = work / s_max;
    let (mut speed, mut mean_ready) = (0.0f64, 0.0f64);
    for j in 0..gpus.len() {
        let (r, s) = (gpus[j].0, gpus[j].1 / s_max);
        speed += s;
        // running weighted mean of the ready times
        mean_ready += (s / speed) * (r - mean_ready);
        let t = scaled_work / speed + mean_ready;
        match gpus.get(j + 1) {
            Some(&(next, _)) if t > next => continue,
            _ => return t.max(r),
        }
    }
    0.0
}

fn water_fill_sorted(work: f64, gpus: &[(f64, f64)]) -> f64 {
    let (mut speed, mut weighted_ready) = (0.0, 0.0);
    for j in 0..gpus.len() {
        let (r, s) = gpus[j];
        speed += s;
        weighted_ready += s * r;
        let t = (work + weighted_ready) / speed;
        if !t.is_finite() {
            return f64::NAN; // overflowed: the caller rescales
        }
        match gpus.get(j + 1) {
            Some(&(next, _)) if t > next => continue,
            _ => return t.max(r),
        }
    }
    0.0
}

impl Schedule {
    /// The metrics of this schedule for `problem` (see [`Metrics`]).
    pub fn metrics(&self, problem: &Problem) -> Metrics {
        let makespan = self.makespan();
        let m = problem.n_gpus() as f64;
        let speedup = ratio(problem.sequential_time(), makespan);
        let busy: f64 = if self.has_sets() {
            // a gang is busy on every GPU of its set
            (0..self.n_tasks())
                .map(|v| {
                    let t = &self.tasks()[v];
                    (t.finish - t.start) * self.gpus(TaskId::new(v)).len() as f64
                })
                .sum()
        } else {
            self.tasks().iter().map(|t| t.finish - t.start).sum()
        };
        let lb = problem.lower_bound().value;
        let (mean_job_time, load_imbalance, cost) = self.service_measures(problem);
        Metrics {
            makespan,
            slr: ratio(makespan, problem.min_critical_path()),
            speedup,
            efficiency: speedup / m,
            utilisation: if makespan > 0.0 {
                if (m * makespan).is_finite() {
                    busy / (m * makespan)
                } else {
                    busy / makespan / m
                }
            } else {
                0.0
            },
            lower_bound: lb,
            gap: ratio(makespan, lb),
            mean_job_time,
            load_imbalance,
            cost,
        }
    }

    /// `(mean job execution time, load imbalance, cost)` of [`Metrics`].
    fn service_measures(&self, problem: &Problem) -> (f64, f64, f64) {
        let tasks = self.tasks();
        let jobs = problem.workload().jobs();
        let job_time: f64 = jobs
            .iter()
            .map(|j| {
                j.tasks
                    .iter()
                    .filter_map(|t| tasks.get(t.index()))
                    .map(|t| t.finish)
                    .fold(0.0, f64::max)
            })
            .sum();
        let mean_job_time = if jobs.is_empty() {
            0.0
        } else {
            job_time / jobs.len() as f64
        };
        let mut busy = vec![0.0f64; problem.n_gpus()];
        let mut cost = 0.0;
        for (v, t) in tasks.iter().enumerate() {
            let run = t.finish - t.start;
            // a gang is busy (and billed) on every GPU of its set
            for &k in self.gpus(TaskId::new(v)) {
                if let Some(b) = busy.get_mut(k.index()) {
                    *b += run;
                    cost += run / 3600.0 * gpu_hour_price(problem.cluster().model_of(k));
                }
            }
        }
        let m = busy.len().max(1) as f64;
        let mean = busy.iter().sum::<f64>() / m;
        let load_imbalance = if mean > 0.0 {
            (busy.iter().map(|b| (b - mean).powi(2)).sum::<f64>() / m).sqrt() / mean
        } else {
            0.0
        };
        (mean_job_time, load_imbalance, cost)
    }
}

#[cfg(test)]
mod tests {
    use super::water_fill;

    #[test]
    fn water_fill_hand_cases() {
        // Σw/Σs with all r = 0
        assert_eq!(water_fill(12.0, vec![(0.0, 1.0), (0.0, 2.0)]), 4.0);
        // second GPU ready at 10: the first alone finishes 6 by T = 6 < 10
        assert_eq!(water_fill(6.0, vec![(0.0, 1.0), (10.0, 1.0)]), 6.0);
        // 14 units: 10 by the first until 10, then 4 more on two GPUs: T = 12
        assert_eq!(water_fill(14.0, vec![(10.0, 1.0), (0.0, 1.0)]), 12.0);
        // no work: the earliest ready time
        assert_eq!(water_fill(0.0, vec![(3.0, 1.0), (5.0, 1.0)]), 3.0);
    }
}

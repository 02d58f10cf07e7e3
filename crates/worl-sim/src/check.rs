//! [`check_log`]: an independent checker of a simulation's event log against the problem.

use crate::result::{Event, SimResult};
use std::collections::HashMap;
use std::fmt;
use worl_cluster::{GpuId, Problem};
use worl_dag::{JobId, TaskId};

/// Relative tolerance of the transfer-duration check (rounding of `start + duration`).
const REL_TOL: f64 = 1e-9;

/// The rounding allowance of a duration measured as `finish - start` between two absolute
/// times: 4 spacings of `f64` at the larger of them (the engine computes `finish` as a sum of
/// a few rounded terms at that magnitude), so the check holds at any time origin.
fn rounding(start: f64, finish: f64) -> f64 {
    let t = start.abs().max(finish.abs());
    4.0 * (f64::EPSILON * t)
}

/// The first busy window of `busy` (sorted, half-open) that the run `[start, finish)` meets
/// by more than the rounding of the times compared; for a zero-length run, one that holds
/// `start` strictly inside.
fn window_met(busy: &[(f64, f64)], start: f64, finish: f64) -> Option<(f64, f64)> {
    let first = busy.partition_point(|w| w.1 <= start);
    busy[first..]
        .iter()
        .take_while(|w| w.0 <= finish)
        .find(|&&(from, to)| {
            let depth = if finish > start {
                finish.min(to) - start.max(from)
            } else {
                (start - from).min(to - start)
            };
            depth > rounding(start.min(from), finish.max(to))
        })
        .copied()
}

/// One inconsistency found by [`check_log`], with the time and the items involved.
#[derive(Clone, Debug, PartialEq)]
pub struct LogViolation {
    /// Time of the offending event, s.
    pub time: f64,
    /// What is wrong, naming the task (label), GPU and job involved.
    pub what: String,
}

impl fmt::Display for LogViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t = {} s: {}", self.time, self.what)
    }
}

/// Start time, and finish time and event index, of the last transfer of an edge.
type LastTransfer = (f64, Option<(f64, usize)>);

/// A task's state while replaying the log.
#[derive(Copy, Clone, Debug, Default)]
struct TaskLog {
    /// GPU of the running attempt.
    running: Option<GpuId>,
    /// GPU and start of the last attempt.
    gpu: Option<GpuId>,
    start: f64,
    /// Finish time, if finished.
    finish: Option<f64>,
    /// Index of the last `Dispatched` event.
    dispatched_at: Option<usize>,
    attempts: u32,
}

/// A GPU set as `[g0, g1]`.
fn set_label(set: &[GpuId]) -> String {
    let names: Vec<String> = set.iter().map(ToString::to_string).collect();
    format!("[{}]", names.join(", "))
}

/// A gang task's state while replaying the log.
#[derive(Clone, Debug, Default)]
struct GangLog {
    /// The GPU set of the last dispatch (its consecutive `Dispatched` events), lead first.
    set: Vec<GpuId>,
    /// The GPUs running the current attempt.
    on: Vec<GpuId>,
    /// Time of the first `Finished`/`Lost` event of the current attempt, and whether it was
    /// a loss.
    ended: Option<(f64, bool)>,
}

/// The transfers of an edge into a gang task since the task's last dispatch: start, and
/// finish when delivered.
type GangTransfers = Vec<(f64, Option<f64>)>;

/// The checks of a transfer from parent `from` to task `name` that ran `(s, f)` (s): it
/// started after the parent finished at `fu` and took at least its contention-free time
/// `need` (tolerance [`REL_TOL`] of it plus 1 ps plus [`rounding`]). Each violation goes to
/// `bad`.
fn check_transfer(
    from: &str,
    name: &str,
    (s, f): (f64, f64),
    fu: f64,
    need: f64,
    bad: &mut dyn FnMut(String),
) {
    if s < fu {
        bad(format!(
            "the transfer {from} -> {name} started at {s} s, before the parent finished at {fu} s"
        ));
    }
    if f - s < need * (1.0 - REL_TOL) - 1e-12 - rounding(s, f) {
        bad(format!(
            "the transfer {from} -> {name} took {} s, less than its contention-free time {need} s",
            f - s
        ));
    }
}

/// The checks every end of a run on `gpu` shares, gang or single-GPU: the run of task
/// `name`, started at `start` and ended (`verb`: finished or lost) at `time` (s), does not
/// end before it started, and meets no busy window of the GPU. Each violation goes to
/// `bad`.
fn check_run_end(
    problem: &Problem,
    name: &str,
    verb: &str,
    gpu: GpuId,
    start: f64,
    time: f64,
    bad: &mut dyn FnMut(String),
) {
    if time < start {
        bad(format!("{name} {verb} before it started"));
    }
    if let Some((from, to)) = window_met(problem.busy(gpu), start, time) {
        bad(format!(
            "{name} ran on {gpu} over {start}..{time} s, meeting its busy window [{from}, {to}) s"
        ));
    }
}

/// What [`check_start_on`] reads of the replay so far.
struct GpuStates<'a> {
    /// Per job: released yet.
    released: &'a [bool],
    /// Per GPU: down now.
    down: &'a [bool],
    /// Per GPU: the task running there now.
    running: &'a [Option<TaskId>],
}

/// The checks every start on `gpu` at `time` (s) shares, gang or single-GPU: the task
/// `name` of `job` started after its job's release, on a GPU that is up, past its ready
/// time and idle. Each violation goes to `bad`, naming the task, GPU, job or the task
/// running there (by `label`).
#[allow(clippy::too_many_arguments)]
fn check_start_on(
    problem: &Problem,
    on: &GpuStates<'_>,
    name: &str,
    job: JobId,
    gpu: GpuId,
    time: f64,
    label: &dyn Fn(TaskId) -> String,
    bad: &mut dyn FnMut(String),
) {
    let w = problem.workload();
    if !on.released[job.index()] || time < w.job(job).release {
        bad(format!(
            "{name} started before its job {} was released (release {} s)",
            w.job(job).name,
            w.job(job).release
        ));
    }
    if on.down[gpu.index()] {
        bad(format!("{name} started on {gpu}, which is down"));
    }
    if time < problem.ready_time(gpu) {
        bad(format!(
            "{name} started on {gpu} before its ready time {} s",
            problem.ready_time(gpu)
        ));
    }
    if let Some(other) = on.running[gpu.index()] {
        bad(format!(
            "{name} started on {gpu} while {} runs there",
            label(other)
        ));
    }
}

/// Checks `result`'s event log (recorded with
/// [`SimConfig::record_events`](crate::SimConfig)) against `problem`, replaying it without
/// the engine's state. It checks that:
///
/// * event times are finite and non-decreasing;
/// * a task starts only when dispatched, released (its job's `Released` event and release
///   time passed), on a GPU that is up, past its ready time and idle (no two tasks overlap
///   on a GPU), and once every input has arrived: a parent on the same GPU has finished, a
///   parent elsewhere has a `TransferFinished` to it after the task's last dispatch, which
///   started after the parent finished and took at least `Problem::comm_time` (tolerance
///   1e-9 of it plus 1 ps plus the rounding of the two times compared, 4 `f64` spacings at
///   their magnitude, so the verdict holds at any time origin);
/// * no attempt meets a busy window of its GPU ([`Problem::busy`]): the run
///   `[start, finish)` (or `[start, lost)`) and every window `[from, to)` are disjoint, up
///   to the rounding of the times compared; a zero-length run may sit on a window's edge,
///   not inside;
/// * a task finishes (or is lost) only while running, on its GPU, finishes exactly once,
///   and a GPU failing under a running task loses it at the failure time;
/// * GPUs go down and up alternately;
/// * **gang tasks** (`g > 1` GPUs, [`Problem::gpus`]): the engine logs one `Dispatched`,
///   `Started`, `Finished` or `Lost` event per GPU of the set, consecutively, lead first
///   (a loss: the failed GPU first). The set has `g` distinct GPUs (on one machine for
///   span `machine`); all its GPUs start at one time and finish (or are lost) at one time;
///   each start is checked as above on its GPU (up, past its ready time, idle, no window
///   met); every input has arrived on every GPU of the set: for each parent, a GPU of the
///   set in the parent's set needs nothing, and the others need one transfer each since
///   the last dispatch, started after the parent finished, the realised durations
///   covering the contention-free times from the nearest GPU of the parent's set
///   (`min_k comm(d_uv, k, l)`; matched largest to largest); an input from a gang parent
///   into a single-GPU task is checked against that nearest GPU too. A gang is lost only
///   while a GPU of its set is down;
/// * at the end every task has finished once, and the task records match the log.
///
/// Errors: every violation found, in log order, each naming the task (`job/task` label),
/// GPU or job.
pub fn check_log(problem: &Problem, result: &SimResult) -> Result<(), Vec<LogViolation>> {
    let mut v = Vec::new();
    let n = problem.n_tasks();
    let m = problem.n_gpus();
    let g = problem.graph();
    let w = problem.workload();
    let label = |t: TaskId| {
        if t.index() < n {
            problem.task_label(t)
        } else {
            format!("task #{} (out of range)", t.index())
        }
    };
    let events = &result.events;
    if events.is_empty() && n > 0 {
        v.push(LogViolation {
            time: 0.0,
            what: "the log is empty (run with record_events)".to_string(),
        });
        return Err(v);
    }
    let mut tasks = vec![TaskLog::default(); n];
    let mut gpu_running: Vec<Option<TaskId>> = vec![None; m];
    let mut gpu_down = vec![false; m];
    let mut released = vec![false; w.n_jobs()];
    let mut transfer: HashMap<(usize, usize), LastTransfer> = HashMap::new();
    let gangs = problem.has_gangs();
    let is_gang = |t: TaskId| gangs && problem.gpus(t) > 1;
    let mut gang: Vec<GangLog> = if gangs {
        vec![GangLog::default(); n]
    } else {
        Vec::new()
    };
    let mut gang_transfer: HashMap<(usize, usize), GangTransfers> = HashMap::new();
    let mut last = f64::NEG_INFINITY;
    for (i, e) in events.iter().enumerate() {
        let time = e.time();
        let mut bad = |what: String| v.push(LogViolation { time, what });
        if !time.is_finite() || time < last {
            bad(format!(
                "event {i} ({e:?}) is out of time order (previous at {last} s)"
            ));
        }
        last = last.max(time);
        // Ids out of range make every other check meaningless for that event.
        let (task, gpu) = match *e {
            Event::Dispatched { task, gpu, .. }
            | Event::Started { task, gpu, .. }
            | Event::Finished { task, gpu, .. }
            | Event::Lost { task, gpu, .. } => (Some(task), Some(gpu)),
            Event::TransferStarted {
                from_task, to_task, ..
            }
            | Event::TransferFinished {
                from_task, to_task, ..
            } => {
                if from_task.index() >= n {
                    bad(format!("{} in a transfer", label(from_task)));
                    continue;
                }
                (Some(to_task), None)
            }
            Event::GpuDown { gpu, .. } | Event::GpuUp { gpu, .. } => (None, Some(gpu)),
            Event::Released { job, .. } => {
                if job.index() >= w.n_jobs() {
                    bad(format!("unknown job #{}", job.index()));
                    continue;
                }
                (None, None)
            }
        };
        if let Some(t) = task
            && t.index() >= n
        {
            bad(label(t));
            continue;
        }
        if let Some(k) = gpu
            && k.index() >= m
        {
            bad(format!("unknown GPU {k}"));
            continue;
        }
        match *e {
            Event::Released { job, .. } => {
                let j = job.index();
                if released[j] {
                    bad(format!("job {} released twice", w.job(job).name));
                }
                if time < w.job(job).release {
                    bad(format!(
                        "job {} released before its release time {} s",
                        w.job(job).name,
                        w.job(job).release
                    ));
                }
                released[j] = true;
            }
            Event::Dispatched { task, gpu, .. } if is_gang(task) => {
                let t = &mut tasks[task.index()];
                let gl = &mut gang[task.index()];
                let more = i > 0
                    && t.dispatched_at == Some(i - 1)
                    && events[i - 1].time() == time
                    && gl.set.len() < problem.gpus(task) as usize;
                if t.running.is_some() || !gl.on.is_empty() || t.finish.is_some() {
                    bad(format!(
                        "{} dispatched to {gpu} while running or finished",
                        label(task)
                    ));
                }
                if more {
                    if gl.set.contains(&gpu) {
                        bad(format!(
                            "{} dispatched twice to {gpu} in one set",
                            label(task)
                        ));
                    }
                    if g.task(task).gang.span == worl_dag::Span::Machine
                        && problem.machine_of(gpu) != problem.machine_of(gl.set[0])
                    {
                        bad(format!(
                            "{} (span machine) dispatched to {gpu}, on another machine than its lead {}",
                            label(task),
                            gl.set[0]
                        ));
                    }
                    gl.set.push(gpu);
                } else {
                    gl.set = vec![gpu];
                    t.gpu = Some(gpu);
                    for nb in g.preds(task) {
                        gang_transfer.remove(&(nb.task.index(), task.index()));
                    }
                }
                t.dispatched_at = Some(i);
            }
            Event::Dispatched { task, gpu, .. } => {
                let t = &mut tasks[task.index()];
                if t.running.is_some() || t.finish.is_some() {
                    bad(format!(
                        "{} dispatched to {gpu} while running or finished",
                        label(task)
                    ));
                }
                t.dispatched_at = Some(i);
                t.gpu = Some(gpu);
            }
            Event::Started { task, gpu, .. } if is_gang(task) => {
                let tl = tasks[task.index()];
                let name = label(task);
                let job = g.task(task).job;
                let need_g = problem.gpus(task) as usize;
                let gl = &gang[task.index()];
                let first = gl.on.is_empty();
                if tl.finish.is_some() {
                    bad(format!("{name} started on {gpu} after it finished"));
                }
                if tl.dispatched_at.is_none() {
                    bad(format!("{name} started on {gpu} without being dispatched"));
                } else if !gl.set.contains(&gpu) {
                    bad(format!(
                        "{name} started on {gpu} but was dispatched to the set {}",
                        set_label(&gl.set)
                    ));
                }
                if first {
                    if gl.set.len() != need_g {
                        bad(format!(
                            "{name} started on a set of {} GPUs, but needs {need_g}",
                            gl.set.len()
                        ));
                    }
                } else {
                    if time != tl.start {
                        bad(format!(
                            "{name} started on {gpu} at {time} s, apart from its set's start at {} s",
                            tl.start
                        ));
                    }
                    if gl.on.contains(&gpu) {
                        bad(format!(
                            "{name} started on {gpu} while already running there"
                        ));
                    }
                }
                let on = GpuStates {
                    released: &released,
                    down: &gpu_down,
                    running: &gpu_running,
                };
                check_start_on(problem, &on, &name, job, gpu, time, &label, &mut bad);
                if first {
                    // Every input on every GPU of the set.
                    for nb in g.preds(task) {
                        let u = nb.task;
                        let Some(fu) = tasks[u.index()].finish else {
                            bad(format!(
                                "{name} started before its parent {} finished",
                                label(u)
                            ));
                            continue;
                        };
                        let from: Vec<GpuId> = if is_gang(u) {
                            gang[u.index()].set.clone()
                        } else {
                            tasks[u.index()].gpu.into_iter().collect()
                        };
                        if time < fu {
                            bad(format!(
                                "{name} started before its parent {} finished",
                                label(u)
                            ));
                        }
                        let mut need: Vec<f64> = gang[task.index()]
                            .set
                            .iter()
                            .filter(|l| !from.contains(l))
                            .map(|&l| {
                                from.iter()
                                    .map(|&k| problem.comm_time(nb.bytes, k, l))
                                    .fold(f64::INFINITY, f64::min)
                            })
                            .collect();
                        if need.is_empty() {
                            continue;
                        }
                        let got = gang_transfer
                            .get(&(u.index(), task.index()))
                            .map_or(&[][..], Vec::as_slice);
                        let mut took: Vec<(f64, f64)> =
                            got.iter().filter_map(|&(s, f)| f.map(|f| (s, f))).collect();
                        if took.len() < need.len() {
                            bad(format!(
                                "{name} started on its set {} before its input from {} arrived on every GPU ({} of {} transfers delivered)",
                                set_label(&gang[task.index()].set),
                                label(u),
                                took.len(),
                                need.len()
                            ));
                            continue;
                        }
                        need.sort_by(|a, b| b.total_cmp(a));
                        took.sort_by(|a, b| (b.1 - b.0).total_cmp(&(a.1 - a.0)));
                        for (&(s, f), &c) in took.iter().zip(&need) {
                            check_transfer(&label(u), &name, (s, f), fu, c, &mut bad);
                        }
                    }
                    let t = &mut tasks[task.index()];
                    t.start = time;
                    t.attempts += 1;
                    gang[task.index()].ended = None;
                }
                gang[task.index()].on.push(gpu);
                gpu_running[gpu.index()] = Some(task);
            }
            Event::Finished { task, gpu, .. } | Event::Lost { task, gpu, .. } if is_gang(task) => {
                let lost = matches!(e, Event::Lost { .. });
                let verb = if lost { "lost" } else { "finished" };
                let name = label(task);
                let need_g = problem.gpus(task) as usize;
                let t = &mut tasks[task.index()];
                let gl = &mut gang[task.index()];
                match gl.ended {
                    None => {
                        if gl.on.len() != need_g && gl.on.contains(&gpu) {
                            bad(format!(
                                "{name} ran on {} of its {need_g} GPUs",
                                gl.on.len()
                            ));
                        }
                        if !lost {
                            if t.finish.is_some() {
                                bad(format!("{name} finished twice"));
                            }
                            t.finish = Some(time);
                        }
                        gl.ended = Some((time, lost));
                    }
                    Some((at, was_lost)) => {
                        if at != time || was_lost != lost {
                            bad(format!(
                                "{name} {verb} on {gpu} at {time} s, apart from its set's other GPUs ({} at {at} s)",
                                if was_lost { "lost" } else { "finished" }
                            ));
                        }
                    }
                }
                if let Some(pos) = gl.on.iter().position(|&k| k == gpu) {
                    gl.on.swap_remove(pos);
                    check_run_end(problem, &name, verb, gpu, t.start, time, &mut bad);
                    gpu_running[gpu.index()] = None;
                } else {
                    bad(format!("{name} {verb} on {gpu} without running there"));
                }
                if lost && !gl.set.iter().any(|k| gpu_down[k.index()]) {
                    bad(format!(
                        "{name} lost on {gpu}, but no GPU of its set {} failed",
                        set_label(&gl.set)
                    ));
                }
            }
            Event::TransferStarted {
                from_task, to_task, ..
            } if is_gang(to_task) => {
                if !g.preds(to_task).iter().any(|nb| nb.task == from_task) {
                    bad(format!(
                        "transfer {} -> {}: no such edge",
                        label(from_task),
                        label(to_task)
                    ));
                }
                gang_transfer
                    .entry((from_task.index(), to_task.index()))
                    .or_default()
                    .push((time, None));
            }
            Event::TransferFinished {
                from_task, to_task, ..
            } if is_gang(to_task) => {
                let open = gang_transfer
                    .get_mut(&(from_task.index(), to_task.index()))
                    .and_then(|ts| ts.iter_mut().find(|(_, f)| f.is_none()));
                match open {
                    Some((_, f)) => *f = Some(time),
                    None => bad(format!(
                        "transfer {} -> {} finished without starting",
                        label(from_task),
                        label(to_task)
                    )),
                }
            }
            Event::Started { task, gpu, .. } => {
                let tl = tasks[task.index()];
                let name = label(task);
                let job = g.task(task).job;
                if tl.finish.is_some() {
                    bad(format!("{name} started on {gpu} after it finished"));
                }
                if tl.running.is_some() {
                    bad(format!("{name} started on {gpu} while already running"));
                }
                match tl.dispatched_at {
                    None => bad(format!("{name} started on {gpu} without being dispatched")),
                    Some(_) if tl.gpu != Some(gpu) => bad(format!(
                        "{name} started on {gpu} but was dispatched to {:?}",
                        tl.gpu
                    )),
                    _ => {}
                }
                let on = GpuStates {
                    released: &released,
                    down: &gpu_down,
                    running: &gpu_running,
                };
                check_start_on(problem, &on, &name, job, gpu, time, &label, &mut bad);
                for nb in g.preds(task) {
                    let u = nb.task;
                    let ul = tasks[u.index()];
                    let Some(fu) = ul.finish else {
                        bad(format!(
                            "{name} started before its parent {} finished",
                            label(u)
                        ));
                        continue;
                    };
                    let gu = ul.gpu.unwrap_or(gpu);
                    if is_gang(u) {
                        // A gang parent sends from the GPU of its set nearest to `gpu`.
                        let from = &gang[u.index()].set;
                        if from.contains(&gpu) {
                            if time < fu {
                                bad(format!(
                                    "{name} started before its parent {} finished",
                                    label(u)
                                ));
                            }
                            continue;
                        }
                        let need = from
                            .iter()
                            .map(|&k| problem.comm_time(nb.bytes, k, gpu))
                            .fold(f64::INFINITY, f64::min);
                        match transfer.get(&(u.index(), task.index())) {
                            Some(&(s, Some((f, at))))
                                if tl.dispatched_at.is_some_and(|d| at > d) =>
                            {
                                if s < fu || f - s < need * (1.0 - REL_TOL) - 1e-12 - rounding(s, f)
                                {
                                    bad(format!(
                                        "the transfer {} -> {name} ran {s}..{f} s: before the parent finished at {fu} s or shorter than its contention-free time {need} s",
                                        label(u)
                                    ));
                                }
                            }
                            _ => bad(format!(
                                "{name} started on {gpu} before its input from {} arrived",
                                label(u)
                            )),
                        }
                        continue;
                    }
                    if gu == gpu {
                        if time < fu {
                            bad(format!(
                                "{name} started before its parent {} finished",
                                label(u)
                            ));
                        }
                        continue;
                    }
                    let need = problem.comm_time(nb.bytes, gu, gpu);
                    match transfer.get(&(u.index(), task.index())) {
                        Some(&(s, Some((f, at)))) if tl.dispatched_at.is_some_and(|d| at > d) => {
                            check_transfer(&label(u), &name, (s, f), fu, need, &mut bad);
                        }
                        _ => bad(format!(
                            "{name} started on {gpu} before its input from {} on {gu} arrived",
                            label(u)
                        )),
                    }
                }
                let t = &mut tasks[task.index()];
                t.running = Some(gpu);
                t.start = time;
                t.attempts += 1;
                gpu_running[gpu.index()] = Some(task);
            }
            Event::Finished { task, gpu, .. } | Event::Lost { task, gpu, .. } => {
                let lost = matches!(e, Event::Lost { .. });
                let verb = if lost { "lost" } else { "finished" };
                let name = label(task);
                let t = &mut tasks[task.index()];
                if !lost && t.finish.is_some() {
                    bad(format!("{name} finished twice"));
                }
                if t.running != Some(gpu) {
                    bad(format!("{name} {verb} on {gpu} without running there"));
                } else {
                    check_run_end(problem, &name, verb, gpu, t.start, time, &mut bad);
                    gpu_running[gpu.index()] = None;
                }
                if lost && !gpu_down[gpu.index()] {
                    bad(format!("{name} lost on {gpu}, which did not fail"));
                }
                t.running = None;
                if !lost {
                    t.finish = Some(time);
                }
            }
            Event::TransferStarted {
                from_task, to_task, ..
            } => {
                if !g.preds(to_task).iter().any(|nb| nb.task == from_task) {
                    bad(format!(
                        "transfer {} -> {}: no such edge",
                        label(from_task),
                        label(to_task)
                    ));
                }
                transfer.insert((from_task.index(), to_task.index()), (time, None));
            }
            Event::TransferFinished {
                from_task, to_task, ..
            } => match transfer.get_mut(&(from_task.index(), to_task.index())) {
                Some((_, f @ None)) => *f = Some((time, i)),
                _ => bad(format!(
                    "transfer {} -> {} finished without starting",
                    label(from_task),
                    label(to_task)
                )),
            },
            Event::GpuDown { gpu, .. } => {
                if gpu_down[gpu.index()] {
                    bad(format!("{gpu} failed while down"));
                }
                gpu_down[gpu.index()] = true;
                if let Some(r) = gpu_running[gpu.index()] {
                    let lost_next = matches!(
                        events.get(i + 1),
                        Some(&Event::Lost { task, gpu: k, time: t }) if task == r && k == gpu && t == time
                    );
                    if !lost_next {
                        bad(format!("{gpu} failed under {} without losing it", label(r)));
                    }
                }
            }
            Event::GpuUp { gpu, .. } => {
                if !gpu_down[gpu.index()] {
                    bad(format!("{gpu} repaired while up"));
                }
                gpu_down[gpu.index()] = false;
            }
        }
    }
    for (i, gl) in gang.iter().enumerate() {
        if !gl.on.is_empty() {
            v.push(LogViolation {
                time: last,
                what: format!(
                    "{} is still running on {} at the end of the log",
                    label(TaskId::new(i)),
                    set_label(&gl.on)
                ),
            });
        }
    }
    for (i, t) in tasks.iter().enumerate() {
        let name = label(TaskId::new(i));
        let Some(f) = t.finish else {
            v.push(LogViolation {
                time: last,
                what: format!("{name} never finished"),
            });
            continue;
        };
        match result.tasks.get(i) {
            Some(r) if r.finish == f && r.start == t.start && Some(r.gpu) == t.gpu && r.attempts == t.attempts => {}
            Some(r) => v.push(LogViolation {
                time: f,
                what: format!(
                    "the record of {name} (on {}, {}..{} s, {} attempts) differs from the log (on {:?}, {}..{f} s, {} attempts)",
                    r.gpu, r.start, r.finish, r.attempts, t.gpu, t.start, t.attempts
                ),
            }),
            None => v.push(LogViolation {
                time: f,
                what: format!("{name} has no task record"),
            }),
        }
    }
    if v.is_empty() { Ok(()) } else { Err(v) }
}

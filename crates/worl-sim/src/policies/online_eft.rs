//! [`OnlineEft`]: HEFT's rule applied online, at each decision, to the ready tasks.

use super::round_robin::eligible;
use crate::error::SimError;
use crate::policy::{Dispatch, OnlinePolicy, SetPicker, SimView};
use std::collections::HashMap;
use worl_cluster::{GpuId, Problem};
use worl_dag::TaskId;
use worl_sched::schedulers::list::ranks::upward_ranks;

/// Online earliest-finish-time dispatch: HEFT's two phases (Topcuoglu, Hariri and Wu, IEEE
/// TPDS 2002) applied at each decision to the tasks that are ready then.
///
/// * **Priority.** The ready tasks ([`SimView::ready_tasks`]: released, every parent
///   finished) in decreasing upward rank `rank_u` (HEFT's eq. 7 on mean costs,
///   [`upward_ranks`]; computed once per problem), ties to the lower task id.
/// * **Placement.** Each goes to the up GPU `k` that fits it with the earliest estimated
///   finish `EFT(v, k) = max(free_k, DRT(v, k)) + exec(v, k)`, ties to the lowest index,
///   where `free_k` is [`SimView::gpu_free_at`] (now, or the running task's nominal finish,
///   plus the queued tasks' nominal run times) advanced by this decision's earlier
///   dispatches, and `DRT(v, k) = max over parents u of F_u + comm(d_uv, gpu(u), k)`: each
///   input sent from the GPU its parent finished on, at its realised finish time, with the
///   contention-free cost model.
///
/// **Gang tasks** (needing `g > 1` GPUs at once): every up GPU that can lead the task
/// ([`Problem::can_lead`]) is tried as the lead of the set [`SimView::best_set`]'s rule
/// builds around it with this decision's free times (the other GPUs of the lead's machine,
/// then of the cluster for span `cluster`, of earliest estimated start); the set of
/// earliest estimated common finish `max_{k∈S} max(free_k, DRT(v, k)) + exec(v, S)` wins,
/// ties to the lowest lead index, and every GPU of it is advanced to that finish. A gang
/// parent's input comes from the GPU of its set nearest to the child's
/// ([`SimView::data_ready_at`]).
///
/// Unlike static HEFT it does not insert into idle gaps (queues are FIFO) and sees neither
/// unreleased jobs nor tasks whose parents are unfinished; it reacts to realised run times,
/// failures and arrivals. A task that fits no up GPU stays undispatched until a later
/// decision. `O(ready · (log ready + m · in-degree))` per decision.
#[derive(Clone, Debug, Default)]
pub struct OnlineEft {
    /// The problem whose ranks are cached (its workload and cluster), to recompute them
    /// for another problem.
    key: Option<(usize, usize)>,
    /// `rank_u` per task, s.
    ranks: Vec<f64>,
    /// Per-GPU estimated free time during one decision, s.
    free: Vec<f64>,
    /// Ready tasks in priority order during one decision.
    order: Vec<TaskId>,
    /// The GPU sets of the gang tasks dispatched by the last decision.
    sets: HashMap<TaskId, Vec<GpuId>>,
}

impl OnlineEft {
    /// An online EFT policy.
    pub fn new() -> Self {
        Self::default()
    }

    /// The upward ranks of `problem`'s tasks (s, by task index), computed at the first
    /// decision on a problem.
    pub fn ranks(&self) -> &[f64] {
        &self.ranks
    }

    fn ensure_ranks(&mut self, problem: &Problem) {
        let key = super::problem_key(problem);
        if self.key != Some(key) || self.ranks.len() != problem.n_tasks() {
            self.ranks = upward_ranks(problem);
            self.key = Some(key);
        }
    }
}

/// `EFT(v, k)` given the GPU's estimated free time (see [`OnlineEft`]).
fn eft(view: &SimView<'_>, task: TaskId, gpu: GpuId, free: f64) -> f64 {
    let p = view.problem();
    let mut drt = view.now();
    for e in p.graph().preds(task) {
        // A ready task's parents have finished, on a GPU.
        if let (Some(f), Some(from)) = (view.finish_time(e.task), view.placement(e.task)) {
            drt = drt.max(f + p.comm_time(e.bytes, from, gpu));
        }
    }
    free.max(drt) + p.exec_time(task, gpu)
}

impl OnlinePolicy for OnlineEft {
    fn name(&self) -> &str {
        "online-eft"
    }

    fn decide(&mut self, view: &SimView<'_>, out: &mut Vec<Dispatch>) -> Result<(), SimError> {
        let p = view.problem();
        if view.ready_tasks().is_empty() {
            return Ok(());
        }
        self.ensure_ranks(p);
        self.order.clear();
        self.order.extend_from_slice(view.ready_tasks());
        let ranks = &self.ranks;
        self.order
            .sort_by(|a, b| ranks[b.index()].total_cmp(&ranks[a.index()]).then(a.cmp(b)));
        // Defensive: a task listed twice is dispatched once.
        self.order.dedup();
        self.free.clear();
        self.free
            .extend(p.cluster().gpu_ids().map(|k| view.gpu_free_at(k)));
        self.sets.clear();
        for &task in &self.order {
            if p.has_gangs() && p.gpus(task) > 1 {
                let mut best: Option<(Vec<GpuId>, f64)> = None;
                let picker = SetPicker::new(view, task, &self.free);
                for lead in p.cluster().gpu_ids() {
                    if !view.gpu_up(lead) || !p.can_lead(task, lead) {
                        continue;
                    }
                    if let Some((set, f)) = picker.around(view, lead)
                        && best.as_ref().is_none_or(|(_, b)| f < *b)
                    {
                        best = Some((set, f));
                    }
                }
                if let Some((set, f)) = best {
                    out.push(Dispatch { task, gpu: set[0] });
                    for &k in &set {
                        self.free[k.index()] = f;
                    }
                    self.sets.insert(task, set);
                }
                continue;
            }
            let mut best: Option<(GpuId, f64)> = None;
            for (k, &free) in self.free.iter().enumerate() {
                let gpu = GpuId::new(k);
                if !eligible(view, task, gpu) {
                    continue;
                }
                let f = eft(view, task, gpu, free);
                if best.is_none_or(|(_, b)| f < b) {
                    best = Some((gpu, f));
                }
            }
            if let Some((gpu, f)) = best {
                out.push(Dispatch { task, gpu });
                self.free[gpu.index()] = f;
            }
        }
        Ok(())
    }
    fn gang_set(&self, task: TaskId) -> Option<Vec<GpuId>> {
        self.sets.get(&task).cloned()
    }
}

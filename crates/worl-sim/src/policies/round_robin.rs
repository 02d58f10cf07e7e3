//! [`RoundRobin`]: each ready task to the next up GPU in cyclic order.

use crate::error::SimError;
use crate::policy::{Dispatch, OnlinePolicy, SimView};
use std::collections::HashMap;
use worl_cluster::GpuId;
use worl_dag::TaskId;

/// Whether this decision starts a run: time 0 and no GPU holds a dispatched task (true at
/// the first decision of every run, so that a reused policy behaves as a fresh one; at a
/// later decision at time 0 with every queue empty, resetting a cursor is harmless).
pub(crate) fn starts_run(view: &SimView<'_>) -> bool {
    view.now() == 0.0
        && view
            .problem()
            .cluster()
            .gpu_ids()
            .all(|k| view.gpu_queue_len(k) == 0)
}

/// Whether `task` may be dispatched to `gpu` now: the GPU is up and the task fits its
/// memory.
#[inline]
pub(crate) fn eligible(view: &SimView<'_>, task: TaskId, gpu: GpuId) -> bool {
    view.gpu_up(gpu) && view.problem().fits(task, gpu)
}

/// The GPU set gang `task` takes around `lead` if `lead` may lead it now (up, and
/// [`Problem::can_lead`](worl_cluster::Problem::can_lead)): [`SimView::best_set`]'s.
pub(crate) fn gang_set_at(view: &SimView<'_>, task: TaskId, lead: GpuId) -> Option<Vec<GpuId>> {
    if !view.gpu_up(lead) || !view.problem().can_lead(task, lead) {
        return None;
    }
    view.best_set(task, lead).map(|(set, _)| set)
}

/// Order-preserving de-duplication of the tasks one decision dispatches (defensive: should
/// [`SimView::ready_tasks`] ever list a task twice, it is dispatched once instead of the
/// run failing with `AlreadyDispatched`). `O(1)` per check after an `O(n)` allocation per
/// problem size.
#[derive(Clone, Debug, Default)]
pub(crate) struct Seen {
    /// Per task: the decision that last saw it.
    stamp: Vec<u32>,
    /// The current decision (never 0 once started).
    epoch: u32,
}

impl Seen {
    /// Starts a decision over `n` tasks.
    pub(crate) fn start(&mut self, n: usize) {
        if self.stamp.len() != n || self.epoch == u32::MAX {
            self.stamp = vec![0; n];
            self.epoch = 0;
        }
        self.epoch += 1;
    }

    /// Whether `task` is new in this decision (and marks it seen).
    #[inline]
    pub(crate) fn first(&mut self, task: TaskId) -> bool {
        let s = &mut self.stamp[task.index()];
        let new = *s != self.epoch;
        *s = self.epoch;
        new
    }
}

/// Round-robin dispatch, the load balancer's oldest rule: each ready task (in the order
/// tasks became ready, [`SimView::ready_tasks`]) goes to the next GPU after the previous
/// dispatch's, cyclically over the GPU ids, skipping GPUs that are down or too small for the
/// task. Costs, loads and data locality are ignored. A task that fits no up GPU stays
/// undispatched until a later decision (a repair). The cursor starts at GPU 0 at every run.
/// A gang task (needing `g > 1` GPUs) is led by the next GPU that can lead it
/// ([`Problem::can_lead`](worl_cluster::Problem::can_lead)) and has enough up GPUs to join
/// it, on the set [`SimView::best_set`] gives around it; the cursor moves past the lead.
///
/// `O(ready × m)` per decision in the worst case, `O(ready)` when every GPU is eligible.
#[derive(Clone, Debug, Default)]
pub struct RoundRobin {
    /// The GPU index the next dispatch tries first.
    next: usize,
    seen: Seen,
    /// The GPU sets of the gang tasks dispatched by the last decision.
    sets: HashMap<TaskId, Vec<GpuId>>,
}

impl RoundRobin {
    /// A round-robin policy starting at GPU 0.
    pub fn new() -> Self {
        Self::default()
    }
}

impl OnlinePolicy for RoundRobin {
    fn name(&self) -> &str {
        "round-robin"
    }

    fn decide(&mut self, view: &SimView<'_>, out: &mut Vec<Dispatch>) -> Result<(), SimError> {
        if starts_run(view) {
            self.next = 0;
        }
        let m = view.problem().n_gpus();
        self.seen.start(view.problem().n_tasks());
        self.sets.clear();
        let gangs = view.problem().has_gangs();
        for &task in view.ready_tasks() {
            if !self.seen.first(task) {
                continue;
            }
            if gangs && view.problem().gpus(task) > 1 {
                if let Some((k, set)) = (0..m)
                    .map(|i| (self.next + i) % m)
                    .find_map(|k| gang_set_at(view, task, GpuId::new(k)).map(|s| (k, s)))
                {
                    out.push(Dispatch {
                        task,
                        gpu: GpuId::new(k),
                    });
                    self.sets.insert(task, set);
                    self.next = (k + 1) % m;
                }
                continue;
            }
            if let Some(k) = (0..m)
                .map(|i| (self.next + i) % m)
                .find(|&k| eligible(view, task, GpuId::new(k)))
            {
                out.push(Dispatch {
                    task,
                    gpu: GpuId::new(k),
                });
                self.next = (k + 1) % m;
            }
        }
        Ok(())
    }
    fn gang_set(&self, task: TaskId) -> Option<Vec<GpuId>> {
        self.sets.get(&task).cloned()
    }
}

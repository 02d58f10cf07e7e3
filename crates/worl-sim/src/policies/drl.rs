//! [`OnlineDrl`]: the agents of the deep-RL list schedulers `dqn` and `mdts` dispatching
//! ready tasks online, MDTS placing a job's ready child tasks jointly.

use super::round_robin::{eligible, starts_run};
use crate::error::SimError;
use crate::policy::{Dispatch, OnlinePolicy, SimView};
use worl_cluster::{GpuId, Problem};
use worl_dag::TaskId;
use worl_sched::schedulers::drl::{CandidateTimes, DecisionContext, DrlConfig, Statics};
use worl_sched::worl_ddqn::{Agent, Observation};

/// One joint decision of an [`OnlineDrl`] run, recorded when
/// [`record_decisions`](OnlineDrl::record_decisions) is on.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionRecord {
    /// The `decide` call of the run it was made in (0 for the first call).
    pub call: usize,
    /// Simulation time, s.
    pub time: f64,
    /// The tasks of the decision, in branch order (one for DQN).
    pub tasks: Vec<TaskId>,
    /// The state vector the agent saw
    /// ([`STATE_DIM`](worl_sched::schedulers::drl::STATE_DIM) floats).
    pub state: Vec<f32>,
    /// Per branch, its candidate rows, row-major `[k_b, row_dim]`.
    pub rows: Vec<Vec<f32>>,
    /// Per branch, its candidate GPUs in increasing estimated EFT.
    pub gpus: Vec<Vec<GpuId>>,
    /// Per branch, the chosen row (the task went to `gpus[b][actions[b]]`).
    pub actions: Vec<usize>,
}

/// Online dispatch by a trained `dqn` or `mdts` agent, frozen (its greedy action; nothing
/// is learnt during the run): the static MDP of
/// [`worl_sched::schedulers::drl`] with online quantities.
///
/// At each decision (`decide` call) the ready tasks ([`SimView::ready_tasks`]) that fit an
/// up GPU are taken in decreasing upward rank `rank_u` (ties to the lower id), as in the
/// static episode. Repeatedly, the highest-rank undispatched one and, for MDTS, the other
/// ready tasks of **its job**, by rank, up to `branches` (the job's parallel child tasks)
/// form one **joint decision**: every branch scores its candidates from the same state,
/// before any of them is dispatched; then they are dispatched in branch order, so two
/// branches that chose one GPU queue on it. DQN is the same with one branch.
///
/// * **Candidates** of a task: the `candidates` eligible up GPUs of smallest estimated
///   finish `EFT(v, k) = max(free_k, DRT(v, k)) + exec(v, k)` (ties to the lower index), as
///   [`OnlineEft`](super::OnlineEft) computes it: `free_k` is [`SimView::gpu_free_at`]
///   advanced by this decision's earlier dispatches (of earlier joint decisions of the
///   same call), `DRT` the latest realised parent finish plus the contention-free transfer
///   time from the parent's GPU.
/// * **Features**: [`DecisionContext::state`] and [`DecisionContext::push_rows`], the very
///   functions of the static episode, with `free` the estimated free time, `data_ready` the
///   DRT (0 without parents), `tasks_on_gpu` the tasks dispatched to the GPU so far in the
///   run, `placed` the tasks dispatched and not lost so far, `ready` the ready tasks not yet
///   dispatched in this call, and as **partial makespan** the online analogue
///   `max(0, largest estimated finish of any task dispatched so far − now)`: the estimated
///   horizon of the work committed, measured from the decision, as if the static episode
///   started now (0 before the first dispatch, and once everything committed is estimated
///   done). Measured from time 0 instead, it grows with the trace's clock (arrivals over
///   days) far beyond the ratios the agent saw in training: on the MDTS study's online
///   instances (2 instances, 1 seed) mean JCT was 2,359 s (MDTS) and 2,083 s (DQN) that way,
///   1,198 s and 901 s this way. Units are those of the problem's [`Statics`] (mean
///   execution times, the lower bound).
///
/// With nothing dispatched and every job released at time 0, the first decision's state
/// and rows equal the static episode's first decision
/// ([`first_decision`](worl_sched::schedulers::drl::first_decision)). A task that fits no
/// up GPU stays undispatched until a later decision. `O(ready · (log ready + m ·
/// in-degree + m log m) + ready · forward pass)` per call.
///
/// Gang tasks (needing `g > 1` GPUs at once) are not supported: the agents score one GPU
/// per task, so a problem holding one stops the run at the first decision with
/// [`SimError::GangUnsupported`] naming the policy and the first gang task.
pub struct OnlineDrl {
    agent: Agent,
    name: String,
    branches: usize,
    candidates: usize,
    /// The problem whose statics are cached (its workload and cluster).
    key: Option<(usize, usize)>,
    statics: Option<Statics>,
    /// Tasks dispatched and not lost in this run.
    placed: usize,
    /// Tasks dispatched per GPU in this run.
    on_gpu: Vec<u32>,
    /// Largest estimated finish of the tasks dispatched in this run, s.
    est_makespan: f64,
    /// `decide` calls in this run.
    calls: usize,
    record: bool,
    records: Vec<DecisionRecord>,
    // Scratch for one call.
    free: Vec<f64>,
    order: Vec<TaskId>,
    group: Vec<TaskId>,
    cands: Vec<Vec<CandidateTimes>>,
    scored: Vec<CandidateTimes>,
    obs: Observation,
    rows: Vec<f32>,
    actions: Vec<usize>,
}

impl std::fmt::Debug for OnlineDrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnlineDrl")
            .field("name", &self.name)
            .field("branches", &self.branches)
            .field("candidates", &self.candidates)
            .field("records", &self.records.len())
            .finish_non_exhaustive()
    }
}

impl OnlineDrl {
    /// A dispatcher with `agent`, trained for `config` (`branches` and `candidates` are
    /// taken from it), named `online(<label>)`.
    ///
    /// Errors: [`SimError::PolicyMismatch`] when the agent's network is not the one
    /// `config` needs (other branches, state or feature sizes).
    pub fn new(agent: Agent, config: &DrlConfig, label: &str) -> Result<Self, SimError> {
        let name = format!("online({label})");
        let expected = config.agent_config(1).network_spec();
        let found = agent.config().network_spec();
        if expected != found {
            return Err(SimError::PolicyMismatch {
                policy: name,
                reason: format!(
                    "the agent's network is `{}`, {} branch(es) of {} candidates need `{}`",
                    found.describe(),
                    config.branches,
                    config.candidates,
                    expected.describe()
                ),
            });
        }
        Ok(Self {
            agent,
            name,
            branches: config.branches,
            candidates: config.candidates,
            key: None,
            statics: None,
            placed: 0,
            on_gpu: Vec::new(),
            est_makespan: 0.0,
            calls: 0,
            record: false,
            records: Vec::new(),
            free: Vec::new(),
            order: Vec::new(),
            group: Vec::new(),
            cands: Vec::new(),
            scored: Vec::new(),
            obs: Observation::default(),
            rows: Vec::new(),
            actions: Vec::new(),
        })
    }

    /// The same, recording every joint decision of a run ([`records`](Self::records)).
    pub fn record_decisions(mut self, on: bool) -> Self {
        self.record = on;
        self
    }

    /// The joint decisions of the last run, in order (empty unless
    /// [`record_decisions`](Self::record_decisions) is on).
    pub fn records(&self) -> &[DecisionRecord] {
        &self.records
    }

    /// Tasks per joint decision at most (1 for DQN).
    pub fn branches(&self) -> usize {
        self.branches
    }

    /// Candidate GPUs per task at most.
    pub fn candidates(&self) -> usize {
        self.candidates
    }

    /// The agent.
    pub fn agent(&self) -> &Agent {
        &self.agent
    }

    fn ensure_statics(&mut self, problem: &Problem) {
        let key = super::problem_key(problem);
        if self.key != Some(key) || self.on_gpu.len() != problem.n_gpus() {
            self.statics = Some(Statics::new(problem));
            self.on_gpu = vec![0; problem.n_gpus()];
            self.key = Some(key);
        }
    }

    fn reset_run(&mut self) {
        self.placed = 0;
        self.on_gpu.iter_mut().for_each(|c| *c = 0);
        self.est_makespan = 0.0;
        self.calls = 0;
        self.records.clear();
    }
}

/// `(DRT, latest parent finish)` of ready `task` on `gpu`, s: the latest realised parent
/// finish plus the contention-free transfer from the parent's GPU, and the latest parent
/// finish (both 0 without parents).
fn data_ready(view: &SimView<'_>, task: TaskId, gpu: GpuId) -> (f64, f64) {
    let p = view.problem();
    let (mut drt, mut latest) = (0.0f64, 0.0f64);
    for e in p.graph().preds(task) {
        // A ready task's parents have finished, on a GPU.
        if let (Some(f), Some(from)) = (view.finish_time(e.task), view.placement(e.task)) {
            drt = drt.max(f + p.comm_time(e.bytes, from, gpu));
            latest = latest.max(f);
        }
    }
    (drt, latest)
}

impl OnlinePolicy for OnlineDrl {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &SimView<'_>, out: &mut Vec<Dispatch>) -> Result<(), SimError> {
        let p = view.problem();
        // The agents score one GPU per task: no gang candidates.
        crate::policy::refuse_gangs(&self.name, p)?;
        self.ensure_statics(p);
        if starts_run(view) {
            self.reset_run();
        }
        self.placed = self.placed.saturating_sub(view.newly_lost().len());
        let call = self.calls;
        self.calls += 1;
        if view.ready_tasks().is_empty() {
            return Ok(());
        }
        let statics = self.statics.as_ref().expect("set by ensure_statics");
        let m = p.n_gpus();
        self.order.clear();
        self.order.extend(
            view.ready_tasks()
                .iter()
                .copied()
                .filter(|&t| p.cluster().gpu_ids().any(|k| eligible(view, t, k))),
        );
        self.order.sort_by(|a, b| statics.by_rank(*a, *b));
        // Defensive: a task listed twice is dispatched once.
        self.order.dedup();
        self.free.clear();
        self.free
            .extend(p.cluster().gpu_ids().map(|k| view.gpu_free_at(k)));
        let mut next = 0;
        while next < self.order.len() {
            // The group: the highest-rank undispatched task and the other ready tasks of
            // its job, by rank, `branches` at most; the rest keep their order.
            let job = statics.job(self.order[next]);
            self.group.clear();
            let mut rest = next;
            for i in next..self.order.len() {
                let t = self.order[i];
                if self.group.len() < self.branches && statics.job(t) == job {
                    self.group.push(t);
                } else {
                    self.order[rest] = t;
                    rest += 1;
                }
            }
            // Undispatched tasks now sit in `order[next..rest]` with the group moved out;
            // put the group back in front of them, it is dispatched below.
            let len = self.group.len();
            self.order.copy_within(next..rest, next + len);
            self.order[next..next + len].copy_from_slice(&self.group);
            let ready = self.order.len() - next;
            next += len;
            let ctx = DecisionContext {
                placed: self.placed,
                n_tasks: p.n_tasks(),
                ready,
                n_gpus: m,
                group: len,
                branches: self.branches,
                // The committed work's estimated horizon from now: the static episode's
                // time origin is the decision's.
                partial_makespan: (self.est_makespan - view.now()).max(0.0),
                lower_bound: statics.lower_bound(),
            };
            let state = ctx.state();
            if self.cands.len() < len {
                self.cands.resize_with(len, Vec::new);
            }
            self.actions.clear();
            let mut record = self.record.then(|| DecisionRecord {
                call,
                time: view.now(),
                tasks: self.group.clone(),
                state: state.to_vec(),
                rows: Vec::with_capacity(len),
                gpus: Vec::with_capacity(len),
                actions: Vec::with_capacity(len),
            });
            // Every branch scores its candidates from the same state and free times.
            for (b, &task) in self.group.iter().enumerate() {
                self.scored.clear();
                let mut latest = 0.0;
                for (k, &free) in self.free.iter().enumerate() {
                    let gpu = GpuId::new(k);
                    if !eligible(view, task, gpu) {
                        continue;
                    }
                    let (drt, l) = data_ready(view, task, gpu);
                    latest = l;
                    let start = free.max(drt);
                    self.scored.push(CandidateTimes {
                        gpu,
                        eft: start + p.exec_time(task, gpu),
                        start,
                        data_ready: drt,
                        free,
                        tasks_on_gpu: self.on_gpu[k],
                    });
                }
                self.scored
                    .sort_unstable_by(|x, y| x.eft.total_cmp(&y.eft).then(x.gpu.cmp(&y.gpu)));
                self.scored.truncate(self.candidates);
                self.rows.clear();
                ctx.push_rows(statics, task, latest, b, &self.scored, &mut self.rows);
                self.obs.clear();
                self.obs.state.extend_from_slice(&state);
                self.obs.candidates.extend_from_slice(&self.rows);
                let a = self
                    .agent
                    .greedy_action(&self.obs)
                    .map_err(|e| SimError::Policy {
                        policy: self.name.clone(),
                        time: view.now(),
                        reason: format!("the agent on task {}: {e}", p.graph().task(task).name),
                    })?;
                let a = a.min(self.scored.len() - 1);
                self.actions.push(a);
                if let Some(r) = record.as_mut() {
                    r.rows.push(self.rows.clone());
                    r.gpus.push(self.scored.iter().map(|c| c.gpu).collect());
                    r.actions.push(a);
                }
                std::mem::swap(&mut self.cands[b], &mut self.scored);
            }
            // Then dispatched in branch order: a later branch queues behind an earlier one
            // that chose the same GPU.
            for (b, &task) in self.group.iter().enumerate() {
                let c = self.cands[b][self.actions[b]];
                let k = c.gpu.index();
                let finish = self.free[k].max(c.data_ready) + p.exec_time(task, c.gpu);
                self.free[k] = finish;
                self.on_gpu[k] += 1;
                self.placed += 1;
                self.est_makespan = self.est_makespan.max(finish);
                out.push(Dispatch { task, gpu: c.gpu });
            }
            if let Some(r) = record {
                self.records.push(r);
            }
        }
        Ok(())
    }
}

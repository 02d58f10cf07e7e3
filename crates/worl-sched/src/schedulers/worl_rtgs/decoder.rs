//! The plan decoder of WORL-RTGS: RTGS's greedy decoder whose choice among the window's
//! GPUs is made by a Double DQN agent, learning online from the plans it builds.

use std::sync::{Mutex, PoisonError, RwLock};

use rand::Rng;
use worl_cluster::{GpuId, Policy};
use worl_ddqn::{Agent, DdqnError, PolicySnapshot, SnapshotScratch, Transition};
use worl_woa::WhaleRng;

use super::features::{ACTION_DIM, STATE_DIM, TaskFeatures};
use crate::schedulers::rtgs::{
    DecodeInput, GreedyDecoder, GreedyScratch, PlanDecoder, RtgsWhale, ScoredCandidate,
};

/// How the decoder explores, rewards and learns (the learning fields of
/// [`WorlRtgsConfig`](super::WorlRtgsConfig)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LearnSettings {
    pub candidates: usize,
    pub recorded_steps: usize,
    pub train_steps: usize,
    pub epsilon_start: f64,
    pub epsilon_end: f64,
    pub iterations: usize,
    pub hope_weight: f32,
    pub eft_weight: f32,
    pub terminal_weight: f32,
    pub learn: bool,
}

impl LearnSettings {
    /// ε of the iteration after `iteration` (0 = the initial population): linear in the
    /// iteration, `epsilon_start + (epsilon_end − epsilon_start)·(iteration + 1)/iterations`,
    /// so `epsilon_end` in the last iteration.
    fn epsilon(&self, iteration: usize) -> f64 {
        let f = ((iteration + 1) as f64 / self.iterations.max(1) as f64).min(1.0);
        self.epsilon_start + (self.epsilon_end - self.epsilon_start) * f
    }
}

/// What every decoding reads during one WOA iteration; replaced between iterations.
#[derive(Debug)]
struct PolicyState {
    /// The online network's weights; `None` until the agent's first gradient step (the
    /// greedy action is then the window's rule: the smallest EFT).
    snapshot: Option<PolicySnapshot>,
    epsilon: f64,
    /// The leader's makespan after the previous iteration, s.
    leader: f64,
}

/// The sampled decisions of one plan, waiting for the end of the iteration.
#[derive(Debug)]
struct PlanRecord {
    origin: (usize, usize),
    states: Vec<f32>,
    candidates: Vec<f32>,
    /// Per decision: (first candidate row, number of candidates, action, local reward).
    steps: Vec<(u32, u32, u32, f32)>,
    terminal: f32,
}

/// RTGS's [`GreedyDecoder`] (window `ω > 0` required) whose GPU choice among the window is
/// made by a Double DQN agent (Du et al. 2025; design in [`super`]). For each task in order:
/// the window's GPUs with their EFTs in the schedule built so far; the `k` of smallest EFT
/// are the actions, with the features of [`ACTION_DIM`](super::ACTION_DIM); ε-greedy on the online network's Q-values
/// (ε and the exploration draws from the whale's random stream, so runs are reproducible
/// and thread-independent); a sample of about `recorded_steps` decisions per plan is kept
/// with its local reward, and the plan's terminal reward is added when its makespan is
/// known ([`PlanDecoder::plan_evaluated`]). After each iteration the records enter the
/// replay buffer in `(iteration, whale)` order, the agent takes `train_steps` gradient
/// steps, and the decoders of the next iteration read the new weights.
pub struct DdqnDecoder<'p> {
    greedy: GreedyDecoder<'p>,
    features: TaskFeatures,
    settings: LearnSettings,
    policy: RwLock<PolicyState>,
    agent: Mutex<Agent>,
    pending: Mutex<Vec<PlanRecord>>,
    error: Mutex<Option<DdqnError>>,
}

/// Scratch of the [`DdqnDecoder`]: the greedy decoder's, the candidates and features of the
/// current decision, and the decisions recorded for the current plan.
#[derive(Debug)]
pub struct DdqnScratch<'p> {
    greedy: GreedyScratch<'p>,
    scored: Vec<ScoredCandidate>,
    state: Vec<f32>,
    cands: Vec<f32>,
    snapshot: SnapshotScratch,
    rec_states: Vec<f32>,
    rec_cands: Vec<f32>,
    rec_steps: Vec<(u32, u32, u32, f32)>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<'p> DdqnDecoder<'p> {
    /// A decoder over `greedy` (which must have a window) driven by `agent`, whose state
    /// and action sizes must be [`STATE_DIM`] and [`ACTION_DIM`].
    ///
    /// Errors: [`DdqnError::DimensionMismatch`] for an agent of other sizes;
    /// [`DdqnError::Backend`] if its weights cannot be read.
    pub(crate) fn new(
        greedy: GreedyDecoder<'p>,
        mut agent: Agent,
        settings: LearnSettings,
    ) -> Result<Self, DdqnError> {
        let c = agent.config();
        for (what, expected, found) in [
            ("state_dim", STATE_DIM, c.state_dim),
            ("action_dim", ACTION_DIM, c.action_dim),
        ] {
            if expected != found {
                return Err(DdqnError::DimensionMismatch {
                    what,
                    expected,
                    found,
                });
            }
        }
        let snapshot = if agent.train_steps() > 0 {
            Some(agent.snapshot()?)
        } else {
            None
        };
        let features = TaskFeatures::new(greedy.problem());
        Ok(DdqnDecoder {
            greedy,
            features,
            settings,
            // ε and the leader are set by `after_iteration(0)`, before the first decoding
            // (the initial population is not decoded).
            policy: RwLock::new(PolicyState {
                snapshot,
                epsilon: settings.epsilon_start,
                leader: f64::INFINITY,
            }),
            agent: Mutex::new(agent),
            pending: Mutex::new(Vec::new()),
            error: Mutex::new(None),
        })
    }

    /// The agent (after the run: trained on it) and the first error learning met, if any.
    pub(crate) fn into_agent(self) -> (Agent, Option<DdqnError>) {
        let agent = self
            .agent
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        let error = self
            .error
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        (agent, error)
    }

    /// Replays the iteration's records into the agent and trains it; returns the new
    /// snapshot (`None` while the agent has not trained).
    fn learn(&self) -> Result<Option<PolicySnapshot>, DdqnError> {
        let mut records = std::mem::take(&mut *lock(&self.pending));
        records.sort_unstable_by_key(|r| r.origin);
        let mut agent = lock(&self.agent);
        for r in &records {
            for (j, &(row, _, action, local)) in r.steps.iter().enumerate() {
                let state = &r.states[j * STATE_DIM..(j + 1) * STATE_DIM];
                let a = (row + action) as usize * ACTION_DIM;
                let action_features = &r.candidates[a..a + ACTION_DIM];
                let last = j + 1 == r.steps.len();
                let reward = local + r.terminal / r.steps.len() as f32;
                let (next_state, next_cands): (&[f32], &[f32]) = if last {
                    (&[], &[])
                } else {
                    let (nrow, nk, _, _) = r.steps[j + 1];
                    let from = nrow as usize * ACTION_DIM;
                    (
                        &r.states[(j + 1) * STATE_DIM..(j + 2) * STATE_DIM],
                        &r.candidates[from..from + nk as usize * ACTION_DIM],
                    )
                };
                agent.remember(&Transition {
                    state,
                    action: action_features,
                    reward,
                    next_state,
                    next_candidates: next_cands,
                    done: last,
                })?;
            }
        }
        for _ in 0..self.settings.train_steps {
            agent.train_step()?;
        }
        if agent.train_steps() > 0 {
            Ok(Some(agent.snapshot()?))
        } else {
            Ok(None)
        }
    }
}

impl<'p> PlanDecoder for DdqnDecoder<'p> {
    type Scratch = DdqnScratch<'p>;

    fn scratch(&self) -> DdqnScratch<'p> {
        let k = self.settings.candidates;
        DdqnScratch {
            greedy: self.greedy.scratch(),
            scored: Vec::with_capacity(64),
            state: vec![0.0; STATE_DIM],
            cands: vec![0.0; k * ACTION_DIM],
            snapshot: SnapshotScratch::default(),
            rec_states: Vec::new(),
            rec_cands: Vec::new(),
            rec_steps: Vec::new(),
        }
    }

    fn decode(
        &self,
        input: &DecodeInput<'_>,
        rng: &mut WhaleRng,
        scratch: &mut DdqnScratch<'p>,
        out: &mut [GpuId],
    ) {
        let policy = self.policy.read().unwrap_or_else(PoisonError::into_inner);
        let s = self.settings;
        let n = input.order.len();
        let record_p = if s.learn {
            (s.recorded_steps as f64 / n.max(1) as f64).min(1.0)
        } else {
            0.0
        };
        let a = input.mv.a();
        let (target, whale) = (input.target.gpus(), input.whale.gpus());
        let DdqnScratch {
            greedy,
            scored,
            state,
            cands,
            snapshot: snap_scratch,
            rec_states,
            rec_cands,
            rec_steps,
        } = scratch;
        rec_states.clear();
        rec_cands.clear();
        rec_steps.clear();
        let features = &self.features;
        self.greedy.decode_with(
            input,
            greedy,
            out,
            |d, pos, task, hope, index, partial, window| {
                d.scored_candidates(task, hope, index, partial, window, scored);
                scored.sort_unstable_by(|x, y| {
                    x.eft
                        .total_cmp(&y.eft)
                        .then(x.gap.total_cmp(&y.gap))
                        .then(x.gpu.cmp(&y.gpu))
                });
                let k = scored.len().min(s.candidates);
                if k == 1 {
                    let c = scored[0];
                    return (c.gpu, c.class, c.exec);
                }
                let min_eft = scored[0].eft;
                features.state(task, [pos, n, k, s.candidates], a, state);
                let (tg, wg) = (target[task.index()], whale[task.index()]);
                for (i, c) in scored[..k].iter().enumerate() {
                    let row = &mut cands[i * ACTION_DIM..(i + 1) * ACTION_DIM];
                    features.candidate(task, c, min_eft, window.latest, tg, wg, i, k, row);
                }
                let cands = &cands[..k * ACTION_DIM];
                let action = if policy.epsilon > 0.0 && rng.random::<f64>() < policy.epsilon {
                    rng.random_range(0..k)
                } else {
                    match &policy.snapshot {
                        // Shapes are checked at construction: cannot fail.
                        Some(net) => net.greedy(state, cands, snap_scratch).unwrap_or(0),
                        None => 0,
                    }
                };
                if record_p > 0.0 && rng.random::<f64>() < record_p {
                    let row = (rec_cands.len() / ACTION_DIM) as u32;
                    rec_states.extend_from_slice(state);
                    rec_cands.extend_from_slice(cands);
                    let f = &cands[action * ACTION_DIM..(action + 1) * ACTION_DIM];
                    let local = -(s.eft_weight * f[0] + s.hope_weight * f[1]);
                    rec_steps.push((row, k as u32, action as u32, local));
                }
                let c = scored[action];
                (c.gpu, c.class, c.exec)
            },
        );
    }

    fn decoded_makespan(&self, scratch: &DdqnScratch<'p>, policy: Policy) -> Option<f64> {
        self.greedy.decoded_makespan(&scratch.greedy, policy)
    }

    fn decoded_sets(&self, scratch: &DdqnScratch<'p>, out: &mut Vec<GpuId>) -> bool {
        self.greedy.decoded_sets(&scratch.greedy, out)
    }

    fn plan_evaluated(
        &self,
        origin: (usize, usize),
        _whale: &RtgsWhale,
        makespan: f64,
        scratch: &mut DdqnScratch<'p>,
    ) {
        if !self.settings.learn || scratch.rec_steps.is_empty() {
            return;
        }
        let leader = self
            .policy
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .leader;
        let improvement = if leader.is_finite() && leader > 0.0 {
            ((leader - makespan) / leader * 10.0).clamp(-1.0, 1.0)
        } else {
            0.0
        };
        let record = PlanRecord {
            origin,
            states: std::mem::take(&mut scratch.rec_states),
            candidates: std::mem::take(&mut scratch.rec_cands),
            steps: std::mem::take(&mut scratch.rec_steps),
            terminal: self.settings.terminal_weight * improvement as f32,
        };
        lock(&self.pending).push(record);
    }

    fn after_iteration(&self, iteration: usize, _population: &[RtgsWhale], makespans: &[f64]) {
        let leader = makespans.iter().copied().fold(f64::INFINITY, f64::min);
        let learned = if self.settings.learn && lock(&self.error).is_none() {
            match self.learn() {
                Ok(snapshot) => snapshot,
                Err(e) => {
                    *lock(&self.error) = Some(e);
                    None
                }
            }
        } else {
            None
        };
        let mut policy = self.policy.write().unwrap_or_else(PoisonError::into_inner);
        if learned.is_some() {
            policy.snapshot = learned;
        }
        policy.epsilon = self.settings.epsilon(iteration);
        policy.leader = leader;
    }
}

impl std::fmt::Debug for DdqnDecoder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DdqnDecoder")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

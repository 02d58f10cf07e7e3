//! The environment interface: states, variable candidate sets, steps, transitions.
//!
//! A decision point is an [`Observation`]: a state feature vector and a list of candidate
//! actions, each described by its own feature vector (for WORL-RTGS: one row per candidate GPU
//! with its speed, load and the task's running-time gap on it). The Q-network scores
//! `state ⧺ candidate` rows, so the number of candidates may change from step to step and one
//! trained network serves clusters of any size. A fixed-size action set with a validity mask is
//! the special case `mask.len() == k`.

/// What the agent sees at one decision point.
///
/// * `state`: `[state_dim]` features of the state.
/// * `candidates`: row-major `[k, action_dim]`, one row per candidate action; the action index
///   given to [`Environment::step`] is a row index into it.
/// * `mask`: empty (every candidate valid) or `[k]` with `true` for the valid candidates
///   (fixed-size action sets with unavailable actions).
///
/// Buffers are reused between steps: environments `clear()` and refill them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Observation {
    /// State features, `[state_dim]`.
    pub state: Vec<f32>,
    /// Candidate action features, row-major `[k, action_dim]`.
    pub candidates: Vec<f32>,
    /// Validity of each candidate, `[k]`, or empty when all are valid.
    pub mask: Vec<bool>,
}

impl Observation {
    /// Number of candidate rows `k` for the given `action_dim` (0 if `action_dim` is 0).
    pub fn num_candidates(&self, action_dim: usize) -> usize {
        self.candidates.len().checked_div(action_dim).unwrap_or(0)
    }

    /// Whether candidate `i` may be chosen (in range and not masked out).
    pub fn is_valid(&self, i: usize, action_dim: usize) -> bool {
        i < self.num_candidates(action_dim) && (self.mask.is_empty() || self.mask[i])
    }

    /// Features of candidate `i`, `[action_dim]`; `None` past the end.
    pub fn candidate(&self, i: usize, action_dim: usize) -> Option<&[f32]> {
        self.candidates.get(i * action_dim..(i + 1) * action_dim)
    }

    /// Empty all three buffers, keeping their capacity.
    pub fn clear(&mut self) {
        self.state.clear();
        self.candidates.clear();
        self.mask.clear();
    }
}

/// Outcome of one environment step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// Reward r of the step (unitless; for WORL-RTGS e.g. the negative running-time gap).
    pub reward: f32,
    /// Whether the episode ended with this step (terminal: no bootstrap from the next state).
    pub done: bool,
}

/// A Markov decision process with a per-step candidate set (Sutton & Barto, 2nd ed., §3.1).
///
/// Contract: `reset` and `step` write the current observation into the buffer they are given
/// (clearing it first); after a step with `done == true` the next observation is ignored and
/// may be left empty. Every non-terminal observation must offer at least one valid candidate.
/// `state_dim` and `action_dim` are constant over the environment's life.
pub trait Environment {
    /// Length of the state feature vector.
    fn state_dim(&self) -> usize;

    /// Length of each candidate's feature vector.
    fn action_dim(&self) -> usize;

    /// Start a new episode; same `seed`, same episode. Writes the first observation.
    fn reset(&mut self, seed: u64, observation: &mut Observation);

    /// Take candidate `action` (a row index of the last observation's candidates) and write the
    /// next observation. The agent only passes valid candidates.
    fn step(&mut self, action: usize, next_observation: &mut Observation) -> Step;
}

/// One experience (s, a, r, s′, done) as the replay buffer stores it (Mnih et al. 2015).
///
/// The action is stored by its features (the row of the chosen candidate), and the next state's
/// candidates as a flattened row-major `[k′, action_dim]` slice of its *valid* candidates only,
/// because Double DQN needs `argmax_a′ Q_online(s′, a′)` over them. `next_candidates` may be
/// empty only when `done` is true.
#[derive(Clone, Copy, Debug)]
pub struct Transition<'a> {
    /// State features s, `[state_dim]`.
    pub state: &'a [f32],
    /// Features of the action taken, `[action_dim]`.
    pub action: &'a [f32],
    /// Reward r.
    pub reward: f32,
    /// Next state features s′, `[state_dim]` (ignored, may be zeros, when `done`).
    pub next_state: &'a [f32],
    /// Valid candidates of s′, row-major `[k′, action_dim]`.
    pub next_candidates: &'a [f32],
    /// Whether s′ is terminal.
    pub done: bool,
}

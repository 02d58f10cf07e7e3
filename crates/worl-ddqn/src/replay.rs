//! Experience replay: a ring buffer of transitions, sampled uniformly or by priority.
//!
//! Uniform replay is Mnih et al. 2015; proportional prioritized replay is Schaul, Quan,
//! Antonoglou & Silver, *Prioritized Experience Replay*, ICLR 2016 (§3.3, Algorithm 1), with
//! a sum tree for O(log N) sampling and updates and a min tree for the importance-weight
//! normaliser.
//!
//! Storage: fixed `[capacity, dim]` arrays for states, action features, rewards, done flags and
//! next states; the next state's candidate set, whose size varies, is stored per slot as one
//! flattened row-major `[k′, action_dim]` vector (its allocation is reused when the slot is
//! overwritten). A sampled mini-batch gathers those into a [`CandidateBatch`] (flattened with
//! offsets), which the trainer pads to the batch's largest k′ with a mask.

use rand::Rng;

use crate::batch::CandidateBatch;
use crate::config::ReplayConfig;
use crate::env::Transition;
use crate::error::{DdqnError, Result, check_finite, check_len};

/// Binary sum tree and min tree over `capacity` leaf priorities (Schaul et al. 2016, App. B.2.1).
#[derive(Clone, Debug)]
struct SumTree {
    leaves: usize,
    sum: Vec<f64>,
    min: Vec<f64>,
}

impl SumTree {
    fn new(capacity: usize) -> Self {
        let leaves = capacity.next_power_of_two().max(1);
        SumTree {
            leaves,
            sum: vec![0.0; 2 * leaves],
            min: vec![f64::INFINITY; 2 * leaves],
        }
    }

    fn set(&mut self, i: usize, p: f64) {
        let mut node = i + self.leaves;
        self.sum[node] = p;
        self.min[node] = p;
        while node > 1 {
            node /= 2;
            self.sum[node] = self.sum[2 * node] + self.sum[2 * node + 1];
            self.min[node] = self.min[2 * node].min(self.min[2 * node + 1]);
        }
    }

    fn get(&self, i: usize) -> f64 {
        self.sum[i + self.leaves]
    }

    fn total(&self) -> f64 {
        self.sum[1]
    }

    fn min(&self) -> f64 {
        self.min[1]
    }

    /// Leaf `i` with prefix(i) <= mass < prefix(i) + p_i.
    fn find(&self, mut mass: f64) -> usize {
        let mut node = 1;
        while node < self.leaves {
            let left = 2 * node;
            if mass < self.sum[left] {
                node = left;
            } else {
                mass -= self.sum[left];
                node = left + 1;
            }
        }
        node - self.leaves
    }
}

#[derive(Clone, Debug)]
struct Priorities {
    tree: SumTree,
    alpha: f64,
    epsilon: f64,
    max_priority: f64,
}

/// A replay buffer of fixed capacity; the oldest transition is overwritten when full.
#[derive(Clone, Debug)]
pub struct ReplayBuffer {
    capacity: usize,
    state_dim: usize,
    action_dim: usize,
    len: usize,
    cursor: usize,
    states: Vec<f32>,
    actions: Vec<f32>,
    rewards: Vec<f32>,
    dones: Vec<bool>,
    next_states: Vec<f32>,
    next_candidates: Vec<Vec<f32>>,
    priorities: Option<Priorities>,
}

/// A sampled mini-batch in host memory (B = batch size).
#[derive(Clone, Debug)]
pub struct SampledBatch {
    /// Buffer slots sampled, `[B]` (pass to [`ReplayBuffer::update_priorities`]).
    pub indices: Vec<usize>,
    /// Importance-sampling weights `[B]` (all 1 for uniform replay; max-normalised for PER).
    pub weights: Vec<f32>,
    /// States `[B, state_dim]`.
    pub states: Vec<f32>,
    /// Features of the actions taken `[B, action_dim]`.
    pub actions: Vec<f32>,
    /// Rewards `[B]`.
    pub rewards: Vec<f32>,
    /// Done flags as 0.0 / 1.0, `[B]`.
    pub dones: Vec<f32>,
    /// Next states with their valid candidates (flattened with offsets).
    pub next: CandidateBatch,
}

impl SampledBatch {
    /// An empty batch for the given feature sizes.
    pub fn new(state_dim: usize, action_dim: usize) -> Self {
        SampledBatch {
            indices: Vec::new(),
            weights: Vec::new(),
            states: Vec::new(),
            actions: Vec::new(),
            rewards: Vec::new(),
            dones: Vec::new(),
            next: CandidateBatch::new(state_dim, action_dim),
        }
    }

    /// Number of transitions B.
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// Whether the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    fn clear(&mut self) {
        self.indices.clear();
        self.weights.clear();
        self.states.clear();
        self.actions.clear();
        self.rewards.clear();
        self.dones.clear();
        self.next.clear();
    }
}

impl ReplayBuffer {
    /// An empty buffer.
    ///
    /// # Errors
    /// [`DdqnError::InvalidConfig`] if `capacity`, `state_dim` or `action_dim` is 0 or the
    /// prioritized parameters are out of range.
    pub fn new(
        capacity: usize,
        state_dim: usize,
        action_dim: usize,
        kind: ReplayConfig,
    ) -> Result<Self> {
        let bad = |field: &'static str, reason: &str| {
            Err(DdqnError::InvalidConfig {
                field,
                reason: reason.into(),
            })
        };
        if capacity == 0 {
            return bad("replay_capacity", "must be >= 1");
        }
        if state_dim == 0 {
            return bad("state_dim", "must be >= 1");
        }
        if action_dim == 0 {
            return bad("action_dim", "must be >= 1");
        }
        let priorities = match kind {
            ReplayConfig::Uniform => None,
            ReplayConfig::Prioritized {
                alpha,
                priority_epsilon,
                ..
            } => {
                if !(0.0..=1.0).contains(&alpha) {
                    return bad("replay.alpha", "must be in [0, 1]");
                }
                if !(priority_epsilon.is_finite() && priority_epsilon > 0.0) {
                    return bad("replay.priority_epsilon", "must be > 0");
                }
                Some(Priorities {
                    tree: SumTree::new(capacity),
                    alpha: alpha as f64,
                    epsilon: priority_epsilon as f64,
                    max_priority: 1.0,
                })
            }
        };
        Ok(ReplayBuffer {
            capacity,
            state_dim,
            action_dim,
            len: 0,
            cursor: 0,
            states: vec![0.0; capacity * state_dim],
            actions: vec![0.0; capacity * action_dim],
            rewards: vec![0.0; capacity],
            dones: vec![false; capacity],
            next_states: vec![0.0; capacity * state_dim],
            next_candidates: vec![Vec::new(); capacity],
            priorities,
        })
    }

    /// Number of stored transitions.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Maximum number of transitions.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether sampling is prioritized.
    pub fn is_prioritized(&self) -> bool {
        self.priorities.is_some()
    }

    /// Priority p_i^α of slot `i` (PER only; `None` for uniform replay or an empty slot).
    pub fn priority(&self, i: usize) -> Option<f64> {
        match &self.priorities {
            Some(p) if i < self.len => Some(p.tree.get(i)),
            _ => None,
        }
    }

    /// Store a transition (overwriting the oldest when full); new transitions get the largest
    /// priority seen so far (Schaul et al. 2016, Algorithm 1 line 6). Returns its slot.
    ///
    /// # Errors
    /// [`DdqnError::DimensionMismatch`] for wrong feature lengths, [`DdqnError::NonFinite`] for
    /// NaN/inf values, [`DdqnError::NoCandidates`] for a non-terminal transition without next
    /// candidates. Nothing is stored on error.
    pub fn push(&mut self, t: &Transition<'_>) -> Result<usize> {
        let (s, a) = (self.state_dim, self.action_dim);
        check_len("state", s, t.state.len())?;
        check_len("action", a, t.action.len())?;
        if !(t.done && t.next_state.is_empty()) {
            check_len("next_state", s, t.next_state.len())?;
        }
        if !t.next_candidates.len().is_multiple_of(a) {
            return Err(DdqnError::DimensionMismatch {
                what: "next_candidates",
                expected: t.next_candidates.len().div_ceil(a) * a,
                found: t.next_candidates.len(),
            });
        }
        if !t.done && t.next_candidates.is_empty() {
            return Err(DdqnError::NoCandidates {
                what: "next_candidates",
                row: 0,
            });
        }
        check_finite("state", t.state)?;
        check_finite("action", t.action)?;
        check_finite("reward", &[t.reward])?;
        check_finite("next_state", t.next_state)?;
        check_finite("next_candidates", t.next_candidates)?;

        let i = self.cursor;
        self.states[i * s..(i + 1) * s].copy_from_slice(t.state);
        self.actions[i * a..(i + 1) * a].copy_from_slice(t.action);
        self.rewards[i] = t.reward;
        self.dones[i] = t.done;
        let ns = &mut self.next_states[i * s..(i + 1) * s];
        if t.next_state.is_empty() {
            ns.fill(0.0);
        } else {
            ns.copy_from_slice(t.next_state);
        }
        let slot = &mut self.next_candidates[i];
        slot.clear();
        // A terminal transition needs no candidates: they are never bootstrapped from.
        if !t.done {
            slot.extend_from_slice(t.next_candidates);
        }
        if let Some(p) = &mut self.priorities {
            let prio = p.max_priority.powf(p.alpha);
            p.tree.set(i, prio);
        }
        self.cursor = (self.cursor + 1) % self.capacity;
        self.len = (self.len + 1).min(self.capacity);
        Ok(i)
    }

    /// Sample `batch_size` transitions with replacement into `out` (cleared first).
    ///
    /// Uniform replay draws slots uniformly and sets every weight to 1. PER draws one slot from
    /// each of `batch_size` equal segments of the priority mass (stratified, Schaul et al. 2016
    /// App. B.2.1) with P(i) = p_i^α / Σ p_k^α and weights w_i = (N·P(i))^(−β) / max_j w_j.
    ///
    /// # Errors
    /// [`DdqnError::InvalidConfig`] if the buffer is empty or `batch_size` is 0.
    pub fn sample<R: Rng + ?Sized>(
        &self,
        batch_size: usize,
        beta: f64,
        rng: &mut R,
        out: &mut SampledBatch,
    ) -> Result<()> {
        if self.len == 0 {
            return Err(DdqnError::InvalidConfig {
                field: "replay",
                reason: "cannot sample from an empty replay buffer".into(),
            });
        }
        if batch_size == 0 {
            return Err(DdqnError::InvalidConfig {
                field: "batch_size",
                reason: "must be >= 1".into(),
            });
        }
        out.clear();
        match &self.priorities {
            None => {
                for _ in 0..batch_size {
                    out.indices.push(rng.random_range(0..self.len));
                    out.weights.push(1.0);
                }
            }
            Some(p) => {
                let total = p.tree.total();
                let n = self.len as f64;
                let segment = total / batch_size as f64;
                // Largest weight belongs to the smallest priority.
                let max_w = (n * p.tree.min() / total).powf(-beta);
                for j in 0..batch_size {
                    let mass = (j as f64 + rng.random::<f64>()) * segment;
                    let mut i = p.tree.find(mass.min(total));
                    if i >= self.len {
                        i = self.len - 1;
                    }
                    let prob = p.tree.get(i) / total;
                    let w = (n * prob).powf(-beta) / max_w;
                    out.indices.push(i);
                    out.weights.push(w as f32);
                }
            }
        }
        let (s, a) = (self.state_dim, self.action_dim);
        for &i in &out.indices {
            out.states
                .extend_from_slice(&self.states[i * s..(i + 1) * s]);
            out.actions
                .extend_from_slice(&self.actions[i * a..(i + 1) * a]);
            out.rewards.push(self.rewards[i]);
            out.dones.push(if self.dones[i] { 1.0 } else { 0.0 });
            out.next.push_unchecked(
                &self.next_states[i * s..(i + 1) * s],
                &self.next_candidates[i],
            );
        }
        Ok(())
    }

    /// Set the priorities of sampled slots from their TD errors: p_i = (|δ_i| + ε)^α
    /// (Schaul et al. 2016, Algorithm 1 line 12). No-op for uniform replay.
    ///
    /// # Errors
    /// [`DdqnError::DimensionMismatch`] if the slices differ in length,
    /// [`DdqnError::InvalidAction`] for a slot index past `len`, [`DdqnError::NonFinite`] for a
    /// NaN TD error.
    pub fn update_priorities(&mut self, indices: &[usize], td_errors: &[f32]) -> Result<()> {
        check_len("td_errors", indices.len(), td_errors.len())?;
        check_finite("td_errors", td_errors)?;
        let len = self.len;
        if let Some(p) = &mut self.priorities {
            if let Some(&bad) = indices.iter().find(|&&i| i >= len) {
                return Err(DdqnError::InvalidAction {
                    action: bad,
                    candidates: len,
                });
            }
            for (&i, &d) in indices.iter().zip(td_errors) {
                let prio = d.abs() as f64 + p.epsilon;
                p.max_priority = p.max_priority.max(prio);
                p.tree.set(i, prio.powf(p.alpha));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sum_tree_finds_leaf_by_prefix_mass() {
        let mut t = SumTree::new(5);
        for (i, p) in [1.0, 2.0, 0.0, 3.0, 4.0].into_iter().enumerate() {
            t.set(i, p);
        }
        assert_eq!(t.total(), 10.0);
        assert_eq!(t.min(), 0.0);
        assert_eq!(t.find(0.0), 0);
        assert_eq!(t.find(0.999), 0);
        assert_eq!(t.find(1.0), 1);
        assert_eq!(t.find(2.999), 1);
        assert_eq!(t.find(3.0), 3);
        assert_eq!(t.find(6.0), 4);
        assert_eq!(t.find(9.99), 4);
    }
}

//! The candidate moves the default preset's agent scores: a few concrete moves of
//! critical-chain tasks to other GPUs, each described by numbers the network reads (the
//! longest path through the moved task after the move, the change of its execution time,
//! of its local data and of the GPUs' loads, its place in the schedule, the rule that drew
//! it). The agent tries the candidate of largest Q-value; the [module docs](super), "The
//! default preset's search", give the method.

use rand::Rng;
use rand::seq::IndexedRandom;
use worl_cluster::GpuId;
use worl_dag::TaskId;

use crate::schedulers::agents::squash;
use crate::schedulers::local::{LocalState, Move};

/// Length of the feature vector of one candidate move:
/// `[bound excess, exec change, input locality, output locality, start, load change,
/// rule one-hot (predecessor's GPU, successor's GPU, random GPU, fast GPU)]`.
pub const MOVE_ACTION_DIM: usize = 10;

/// Candidates drawn per scored try.
pub(crate) const CANDIDATES: usize = 8;

/// The four moves of one task to another GPU, whose target the candidates draw from.
const RULES: [Move; 4] = [
    Move::PredecessorGpu,
    Move::SuccessorGpu,
    Move::RandomGpu,
    Move::FastGpu,
];

/// Up to [`CANDIDATES`] concrete moves (task, GPU, the rule that drew the GPU) and their
/// features (`MOVE_ACTION_DIM` per move, row-major).
#[derive(Clone, Debug, Default)]
pub(crate) struct CandidateMoves {
    /// The moves.
    pub moves: Vec<(TaskId, GpuId, Move)>,
    /// Their features, `[moves.len() · MOVE_ACTION_DIM]`.
    pub features: Vec<f32>,
}

impl CandidateMoves {
    /// Draws the candidates of one try on `state` under incremental evaluation: each is a
    /// task of `chain` and a GPU drawn by one of the four reassignment rules (uniformly
    /// chosen), both with `rng`; draws that change nothing are skipped, so fewer than
    /// [`CANDIDATES`] may come back (none when `state` is not evaluated incrementally).
    pub(crate) fn draw(&mut self, state: &LocalState<'_>, chain: &[TaskId], rng: &mut impl Rng) {
        self.moves.clear();
        self.features.clear();
        for _ in 0..CANDIDATES {
            let Some(&v) = chain.choose(rng) else { return };
            let rule = RULES[rng.random_range(0..RULES.len())];
            let Some(g) = state.propose_gpu(rule, v, rng) else {
                continue;
            };
            if g == state.plan.gpu[v.index()] {
                continue;
            }
            if !self.push(state, v, g, rule) {
                return;
            }
        }
    }

    /// Appends the move of `v` to `g` drawn by `rule` with its features; `false` (nothing
    /// appended) when `state` is not evaluated incrementally.
    fn push(&mut self, state: &LocalState<'_>, v: TaskId, g: GpuId, rule: Move) -> bool {
        let (Some(bound), Some(finish)) = (state.gpu_bound(v, g), state.finish(v)) else {
            return false;
        };
        let p = state.problem();
        let plan = &state.plan;
        let cur = plan.gpu[v.index()];
        let ms = state.makespan();
        let exec = p.exec_time(v, cur);
        // bytes of v's inputs and outputs already on the GPU: after the move, before it
        let local = |edges: &[worl_dag::Neighbor]| {
            let (mut on_g, mut on_cur, mut all) = (0.0, 0.0, 0.0);
            for e in edges {
                let at = plan.gpu[e.task.index()];
                on_g += if at == g { e.bytes } else { 0.0 };
                on_cur += if at == cur { e.bytes } else { 0.0 };
                all += e.bytes;
            }
            if all > 0.0 {
                ((on_g - on_cur) / all) as f32
            } else {
                0.0
            }
        };
        let load = |g: GpuId| state.tasks_on(g).unwrap_or(0) as f64 + 1.0;
        let ratio = |a: f64, b: f64| {
            let r = (a / b).ln();
            if r.is_finite() {
                r.clamp(-3.0, 3.0) as f32
            } else {
                0.0
            }
        };
        self.moves.push((v, g, rule));
        self.features.extend_from_slice(&[
            squash(100.0 * (bound - ms) / ms),
            ratio(p.exec_time(v, g), exec),
            local(p.graph().preds(v)),
            local(p.graph().succs(v)),
            ((finish - exec) / ms).clamp(0.0, 1.0) as f32,
            ratio(load(g), load(cur)),
        ]);
        self.features
            .extend(RULES.iter().map(|&r| f32::from(u8::from(r == rule))));
        true
    }

    /// Whether no candidate was drawn.
    pub(crate) fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::{RunContext, Scheduler};
    use crate::schedulers::list::Heft;
    use crate::schedulers::local::Tried;
    use crate::schedulers::search::FeasibleGpus;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use std::sync::Arc;
    use worl_cluster::{Policy, Problem, presets};
    use worl_dag::generators::layered::{LayeredParams, layered};

    /// Each candidate's first feature is the longest path through the moved task after the
    /// move, relative to the makespan, and decides the try: a positive excess is a worse
    /// move, a negative or zero one is kept (the heads-and-tails argument); the rule's code
    /// is one-hot and the locality shares lie in [-1, 1].
    #[test]
    fn the_bound_feature_decides_the_try_and_the_features_are_in_range() {
        let w = Arc::new(layered(&LayeredParams::new(80), 4).unwrap());
        let p = Problem::new(w, Arc::new(presets::pai_mix(6, 1).unwrap())).unwrap();
        let f = FeasibleGpus::new(&p);
        let heft = Heft::new().schedule(&p, &mut RunContext::new(0)).unwrap();
        let mut state = LocalState::from_schedule(&p, &f, Policy::Append, &heft).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        // from a random plan, so that some candidates improve it
        for v in p.graph().task_ids() {
            state.apply(Move::RandomGpu, v, &mut rng);
        }
        state.evaluate();
        let mut chain = Vec::new();
        let mut cands = CandidateMoves::default();
        let (mut worse, mut kept) = (0, 0);
        for _ in 0..60 {
            state.critical_chain(&mut chain);
            cands.draw(&state, &chain, &mut rng);
            assert!(!cands.is_empty());
            assert_eq!(cands.features.len(), cands.moves.len() * MOVE_ACTION_DIM);
            for (k, &(v, g, rule)) in cands.moves.iter().enumerate() {
                let x = &cands.features[k * MOVE_ACTION_DIM..(k + 1) * MOVE_ACTION_DIM];
                let ms = state.makespan();
                let bound = state.gpu_bound(v, g).unwrap();
                assert_eq!(x[0], squash(100.0 * (bound - ms) / ms));
                assert!((-1.0..=1.0).contains(&x[2]) && (-1.0..=1.0).contains(&x[3]));
                assert!((0.0..=1.0).contains(&x[4]));
                assert_eq!(x[6..].iter().sum::<f32>(), 1.0);
                assert_eq!(x[6 + RULES.iter().position(|&r| r == rule).unwrap()], 1.0);
                let mut trial = state.clone();
                match trial.try_gpu(v, g) {
                    Tried::Worse => {
                        assert!(bound > ms, "{v:?} -> {g:?}");
                        worse += 1;
                    }
                    Tried::Kept(after) => {
                        assert!(bound <= ms * (1.0 + 1e-9) && after <= ms);
                        kept += 1;
                    }
                    other => panic!("{other:?}"),
                }
            }
            // walk on: keep the first candidate that is not worse
            for &(v, g, _) in &cands.moves {
                if matches!(state.try_gpu(v, g), Tried::Kept(_)) {
                    break;
                }
            }
        }
        assert!(worse > 20 && kept > 5, "worse {worse}, kept {kept}");
    }
}

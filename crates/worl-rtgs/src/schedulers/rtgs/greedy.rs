//! RTGS's plan generation: the greedy running-time-gap decoder.

use serde::{Deserialize, Serialize};
use worl_cluster::{ClassId, GpuId, Problem};
use worl_woa::WhaleRng;

use super::class_index::{ClassIndex, SMALL_CLASS};
use super::decoder::{DecodeInput, PlanDecoder};

/// The greedy running-time-gap decoder of RTGS (P0's "new function"; PAPER.md §2.4 step 4):
/// visit the tasks in topological order with running times `cur_k` starting at the GPUs'
/// ready times `r_k`; give task `v` the GPU `k` it fits whose running time after taking it
/// is nearest its hope, then `cur_k += exec(v, k)`.
///
/// **Two readings of "running time after taking it"** ([`Lookahead`]):
/// * [`Lookahead::None`], the authors' code (`WORLRTGS.java`, `generateNewSchedule`):
///   `cur_k + exec(v, k)`. The hope is a *final* running time while `cur_k` is a *partial*
///   one, so early tasks all go to the most loaded GPU, which overshoots to about twice the
///   hopes before the next GPU is used: decoding the target's own running-time vector does not
///   give the target back, and in our model (with communication costs) the search does not
///   improve on its best initial plan (see `tests/rtgs_stability.rs`).
/// * [`Lookahead::Target`] (our default): `cur_k + exec(v, k) + rest_k(T)`, where `rest_k(T)`
///   is the execution time the target plan `T` puts on `k` after `v` in the order, i.e. the
///   running time `k` ends with if the remaining tasks followed the target. Decoding
///   `RT(T)` itself gives `T` back (with distinct GPU running times), and a hope moved away
///   from `RT(T)` moves tasks to GPUs of correspondingly different running times, which is
///   what the SPD–FTG argument of the paper needs. It keeps the greedy rule and its cost; it
///   is a deviation from the authors' code (PAPER.md §2.4) and documented as such.
///
/// **Cost.** GPUs of one class ([`Problem::class_of`]: same effective speed and memory) have
/// the same `exec(v, k)`, so within a class the best GPU is the one whose key (running time,
/// plus the look-ahead term) is nearest `q = hope_v − exec(v, class)`. Each class keeps its
/// GPUs in an ordered set keyed that way, allocation-free (a sorted array for classes of up
/// to 256 GPUs, an arena treap above): the nearest is found in `O(log m_c)` and a GPU
/// re-keyed in `O(log m_c)` (treap) or `O(log m_c)` plus a bounded block move (array); at
/// most two re-keyings per task. A task costs `O(Σ_c log m_c)` over the classes it fits, so
/// `O(C log m)` for `C` classes instead of the naive `O(m)`; a plan costs
/// `O(m log m + n·C·log m)`. The PAI-mix
/// presets have at most 5 classes. When every GPU is its own class (unrelated machines with
/// an explicit execution-time matrix, or GPUs with distinct background utilisations) this
/// falls back to `O(m)` per task, one `O(1)` singleton query per GPU.
///
/// **Distance and ties.** The gap is computed as `|q − key_k|` with `q = hope_v − exec`
/// (the same number up to rounding); equal gaps go to the smallest GPU id.
///
/// Draws no random numbers. Its scratch is the set of per-class ordered sets and a key
/// buffer.
#[derive(Clone, Debug)]
pub struct GreedyDecoder<'p> {
    problem: &'p Problem,
    lookahead: Lookahead,
    /// Class members (GPU indices) per class.
    members: Vec<Vec<usize>>,
    /// One GPU per class, for `exec` and `fits`.
    representative: Vec<GpuId>,
    /// Classes above this size use treaps (tests lower it to cover both structures).
    small_class: usize,
}

/// What the greedy decoder adds to a GPU's running time before comparing it with a hope
/// (see [`GreedyDecoder`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lookahead {
    /// Nothing: the authors' code.
    None,
    /// The execution time the target plan still puts on the GPU (default).
    #[default]
    Target,
}

impl<'p> GreedyDecoder<'p> {
    /// The decoder for `problem` with the given look-ahead (`O(m)` set-up).
    pub fn new(problem: &'p Problem, lookahead: Lookahead) -> Self {
        GreedyDecoder {
            problem,
            lookahead,
            members: problem
                .class_ids()
                .map(|c| problem.class_gpus(c).iter().map(|g| g.index()).collect())
                .collect(),
            representative: problem
                .class_ids()
                .map(|c| problem.class_gpus(c)[0])
                .collect(),
            small_class: SMALL_CLASS,
        }
    }

    /// The same decoder with treaps for classes above `small_class` GPUs (tests).
    #[cfg(test)]
    pub(crate) fn with_small_class(mut self, small_class: usize) -> Self {
        self.small_class = small_class;
        self
    }

    /// The problem.
    pub fn problem(&self) -> &'p Problem {
        self.problem
    }

    /// The look-ahead.
    pub fn lookahead(&self) -> Lookahead {
        self.lookahead
    }
}

impl<'p> PlanDecoder for GreedyDecoder<'p> {
    type Scratch = GreedyScratch;

    fn scratch(&self) -> GreedyScratch {
        GreedyScratch {
            index: ClassIndex::new(self.problem.ready_times(), &self.members, self.small_class),
            keys: Vec::with_capacity(self.problem.n_gpus()),
        }
    }

    fn decode(
        &self,
        input: &DecodeInput<'_>,
        _rng: &mut WhaleRng,
        scratch: &mut GreedyScratch,
        out: &mut [GpuId],
    ) {
        let p = self.problem;
        let target = input.target.gpus();
        // Keys: the ready times, plus the whole target load under look-ahead (its running
        // times), from which each task's target share is removed when the task is visited.
        let keys = &mut scratch.keys;
        match self.lookahead {
            Lookahead::None => {
                keys.clear();
                keys.extend_from_slice(p.ready_times());
            }
            Lookahead::Target => {
                keys.clear();
                keys.extend_from_slice(input.target.loads());
            }
        }
        let index = &mut scratch.index;
        index.rebuild(keys);
        for &task in input.order {
            if self.lookahead == Lookahead::Target {
                let g = target[task.index()];
                let c = p.class_of(g).index();
                index.add_to_key(c, g.index(), -p.exec_time(task, g));
            }
            let hope = input.hope[task.index()];
            // (gap, gpu, class, exec) of the best GPU so far.
            let mut best = (f64::INFINITY, usize::MAX, 0usize, 0.0f64);
            for (c, &rep) in self.representative.iter().enumerate() {
                if !p.fits(task, rep) {
                    continue;
                }
                let exec = p.exec_time(task, rep);
                if let Some((gap, g)) = index.nearest(c, hope - exec)
                    && (gap < best.0 || (gap == best.0 && g < best.1))
                {
                    best = (gap, g, c, exec);
                }
            }
            let (_, g, c, exec) = best;
            debug_assert!(g != usize::MAX, "every task fits a GPU");
            debug_assert_eq!(p.class_of(GpuId::new(g)), ClassId::new(c));
            out[task.index()] = GpuId::new(g);
            index.add_to_key(c, g, exec);
        }
    }
}

/// Scratch of the [`GreedyDecoder`]: the per-class ordered sets of GPUs by key, and the
/// initial keys.
#[derive(Clone, Debug)]
pub struct GreedyScratch {
    index: ClassIndex,
    keys: Vec<f64>,
}

/// The greedy decoding by a linear scan over all GPUs (`O(n·m)`), the reference the
/// treap-based decoder must match.
#[cfg(test)]
pub(crate) fn decode_linear(
    problem: &Problem,
    lookahead: Lookahead,
    input: &DecodeInput<'_>,
    out: &mut [GpuId],
) {
    let mut key = match lookahead {
        Lookahead::None => problem.ready_times().to_vec(),
        Lookahead::Target => input.target.loads().to_vec(),
    };
    for &task in input.order {
        if lookahead == Lookahead::Target {
            let g = input.target.gpus()[task.index()];
            key[g.index()] -= problem.exec_time(task, g);
        }
        let hope = input.hope[task.index()];
        let mut best = (f64::INFINITY, usize::MAX, 0.0);
        for (k, &c) in key.iter().enumerate() {
            let gpu = GpuId::new(k);
            if !problem.fits(task, gpu) {
                continue;
            }
            let exec = problem.exec_time(task, gpu);
            let gap = (hope - exec - c).abs();
            if gap < best.0 {
                best = (gap, k, exec);
            }
        }
        out[task.index()] = GpuId::new(best.1);
        key[best.1] += best.2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedulers::rtgs::plan::FeasibleGpus;
    use crate::schedulers::rtgs::whale::RtgsWhale;
    use ndarray::Array2;
    use rand::{Rng, SeedableRng};
    use std::sync::Arc;
    use worl_cluster::{ClusterBuilder, GpuModel, LoadState, presets};
    use worl_dag::generators::layered::{LayeredParams, layered};
    use worl_dag::{TaskId, WorkloadBuilder};
    use worl_woa::{Move, MoveKind};

    fn decode_both(
        problem: &Problem,
        lookahead: Lookahead,
        target: &RtgsWhale,
        hope: &[f64],
    ) -> (Vec<GpuId>, Vec<GpuId>) {
        let d = GreedyDecoder::new(problem, lookahead);
        let mv = Move::new(MoveKind::Encircle, 1.0, 0.5, 1.0, 0.0, 1.0);
        let input = DecodeInput {
            problem,
            order: problem.graph().topo_order(),
            hope,
            whale: target,
            target,
            mv: &mv,
        };
        let mut fast = vec![GpuId::new(0); problem.n_tasks()];
        let mut scratch = d.scratch();
        let mut rng = WhaleRng::seed_from_u64(0);
        d.decode(&input, &mut rng, &mut scratch, &mut fast);
        // A second decoding with the used scratch gives the same plan.
        let mut again = vec![GpuId::new(0); problem.n_tasks()];
        d.decode(&input, &mut rng, &mut scratch, &mut again);
        assert_eq!(fast, again);
        // Treaps for every class give the same plan as sorted arrays.
        let all_treaps = GreedyDecoder::new(problem, lookahead).with_small_class(1);
        let mut treaps = vec![GpuId::new(0); problem.n_tasks()];
        all_treaps.decode(&input, &mut rng, &mut all_treaps.scratch(), &mut treaps);
        assert_eq!(fast, treaps);
        let mut slow = vec![GpuId::new(0); problem.n_tasks()];
        decode_linear(problem, lookahead, &input, &mut slow);
        (fast, slow)
    }

    /// A chain a (4) → b (2) → c (3); GPU 0 speed 1, GPU 1 speed 2.
    fn chain_on_two_speeds() -> Problem {
        let mut w = WorkloadBuilder::new("w");
        let j = w.add_job("j").unwrap();
        let a = w.add_task(j, "a", 4.0, None).unwrap();
        let b = w.add_task(j, "b", 2.0, None).unwrap();
        let c = w.add_task(j, "c", 3.0, None).unwrap();
        w.add_edge(a, b, 0.0).unwrap();
        w.add_edge(b, c, 0.0).unwrap();
        let mut cb = ClusterBuilder::new("two");
        let m = cb.add_machine("m");
        cb.add_gpu(m, &GpuModel::custom("s1", 1.0, 16.0).unwrap())
            .unwrap();
        cb.add_gpu(m, &GpuModel::custom("s2", 2.0, 16.0).unwrap())
            .unwrap();
        Problem::new(Arc::new(w.build().unwrap()), Arc::new(cb.build().unwrap())).unwrap()
    }

    /// Authors' rule, hope = (4, 3, 10): a → GPU 0 gives 4 (gap 0), GPU 1 gives 2 (gap 2):
    /// GPU 0; b → GPU 0 gives 6 (gap 3), GPU 1 gives 1 (gap 2): GPU 1; c → GPU 0 gives 7
    /// (gap 3), GPU 1 gives 2.5 (gap 7.5): GPU 0.
    #[test]
    fn authors_greedy_decoding_by_hand() {
        let p = chain_on_two_speeds();
        let t = RtgsWhale::from_assignment(&p, vec![GpuId::new(1); 3]);
        let (fast, slow) = decode_both(&p, Lookahead::None, &t, &[4.0, 3.0, 10.0]);
        assert_eq!(fast, vec![GpuId::new(0), GpuId::new(1), GpuId::new(0)]);
        assert_eq!(fast, slow);
    }

    /// Look-ahead, target T = (1, 0, 1): loads GPU 0 = 2, GPU 1 = 2 + 1.5 = 3.5; hope =
    /// (3.5, 5, 3.5). a: T's rest on GPU 1 becomes 1.5, keys (2, 1.5); GPU 0 gives 2 + 4 = 6
    /// (gap 2.5), GPU 1 gives 1.5 + 2 = 3.5 (gap 0): GPU 1, keys (2, 3.5). b: T's rest on
    /// GPU 0 drops to 0, keys (0, 3.5); GPU 0 gives 2 (gap 3), GPU 1 gives 4.5 (gap 0.5):
    /// GPU 1, keys (0, 4.5). c: keys (0, 3); GPU 0 gives 3 (gap 0.5), GPU 1 gives 4.5 (gap
    /// 1): GPU 0. Plan (1, 1, 0). The authors' rule gives (0, 0, 1): a → 4 vs 2 (gaps 0.5,
    /// 1.5), b → 6 vs 1 (gaps 1, 4), c → 9 vs 1.5 (gaps 5.5, 2).
    #[test]
    fn lookahead_greedy_decoding_by_hand() {
        let p = chain_on_two_speeds();
        let t = RtgsWhale::from_assignment(&p, vec![GpuId::new(1), GpuId::new(0), GpuId::new(1)]);
        assert_eq!(t.loads(), &[2.0, 3.5]);
        let hope = [3.5, 5.0, 3.5];
        let (fast, slow) = decode_both(&p, Lookahead::Target, &t, &hope);
        assert_eq!(fast, vec![GpuId::new(1), GpuId::new(1), GpuId::new(0)]);
        assert_eq!(fast, slow);
        let (authors, _) = decode_both(&p, Lookahead::None, &t, &hope);
        assert_eq!(authors, vec![GpuId::new(0), GpuId::new(0), GpuId::new(1)]);
    }

    fn random_problem(case: u64, busy: bool) -> Problem {
        let w = Arc::new(layered(&LayeredParams::new(300), case).unwrap());
        let mut cluster = presets::pai_mix(40, case).unwrap();
        if busy {
            cluster
                .apply_load(
                    &LoadState::Busy {
                        utilisation: (0.0, 0.0),
                        ready_time: (0.0, 50.0),
                    },
                    case,
                )
                .unwrap();
        }
        Problem::new(w, Arc::new(cluster)).unwrap()
    }

    #[test]
    fn treap_decoding_matches_the_linear_scan() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for (case, busy) in [(0u64, false), (1, true), (2, false)] {
            let p = random_problem(case, busy);
            assert!(p.n_classes() < 10);
            let feasible = FeasibleGpus::new(&p);
            let mut plan = vec![GpuId::new(0); p.n_tasks()];
            feasible.random_plan(&mut rng, &mut plan);
            let t = RtgsWhale::from_assignment(&p, plan);
            // Hopes around the typical running times, some negative, some rounded to
            // create ties.
            let hope: Vec<f64> = (0..p.n_tasks())
                .map(|_| (rng.random_range(-50.0..2000.0f64) / 10.0).round() * 10.0)
                .collect();
            for lookahead in [Lookahead::None, Lookahead::Target] {
                let (fast, slow) = decode_both(&p, lookahead, &t, &hope);
                assert_eq!(fast, slow, "case {case} {lookahead:?}");
                for (v, g) in fast.iter().enumerate() {
                    assert!(p.fits(TaskId::new(v), *g));
                }
            }
        }
    }

    /// With look-ahead, decoding the target's own running-time vector gives the target back
    /// (its GPUs have distinct running times: ready times break the ties of empty GPUs).
    #[test]
    fn lookahead_decoding_of_the_targets_running_times_returns_the_target() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
        for case in 0..3 {
            let p = random_problem(case, true);
            let feasible = FeasibleGpus::new(&p);
            let mut plan = vec![GpuId::new(0); p.n_tasks()];
            feasible.random_plan(&mut rng, &mut plan);
            let t = RtgsWhale::from_assignment(&p, plan);
            let mut rt = Vec::new();
            t.rt_vector(&mut rt);
            let (fast, _) = decode_both(&p, Lookahead::Target, &t, &rt);
            assert_eq!(fast, t.gpus(), "case {case}");
            let (authors, _) = decode_both(&p, Lookahead::None, &t, &rt);
            let same = authors.iter().zip(t.gpus()).filter(|(a, b)| a == b).count();
            assert!(same < p.n_tasks() / 2, "case {case}: {same}");
        }
    }

    #[test]
    fn unrelated_machines_decode_like_the_linear_scan() {
        let w = Arc::new(layered(&LayeredParams::new(60), 9).unwrap());
        let c = Arc::new(presets::homogeneous(5, &GpuModel::t4()).unwrap());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let times = Array2::from_shape_fn((60, 5), |_| rng.random_range(1.0..20.0f64));
        let p = Problem::with_exec_times(w, c, times).unwrap();
        assert_eq!(p.n_classes(), 5);
        let t = RtgsWhale::from_assignment(&p, (0..60).map(|v| GpuId::new(v % 5)).collect());
        let hope: Vec<f64> = (0..60).map(|_| rng.random_range(0.0..150.0)).collect();
        for lookahead in [Lookahead::None, Lookahead::Target] {
            let (fast, slow) = decode_both(&p, lookahead, &t, &hope);
            assert_eq!(fast, slow);
        }
    }
}

//! Tests of the greedy decoder: the indexed decoding equals the linear scan
//! ([`decode_linear`]), and hand-computed cases.

use super::*;
use crate::schedulers::rtgs::whale::RtgsWhale;
use crate::schedulers::search::FeasibleGpus;
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
    decode_both_windowed(problem, lookahead, 0.0, target, hope)
}

/// Decodes with the indexed decoder (sorted arrays, then treaps, twice with one scratch)
/// and with the linear scan.
fn decode_both_windowed(
    problem: &Problem,
    lookahead: Lookahead,
    window: f64,
    target: &RtgsWhale,
    hope: &[f64],
) -> (Vec<GpuId>, Vec<GpuId>) {
    decode_both_with(problem, lookahead, window, 16, Policy::Append, target, hope)
}

/// As [`decode_both_windowed`] with a cap of window candidates per class and a policy.
fn decode_both_with(
    problem: &Problem,
    lookahead: Lookahead,
    window: f64,
    per_class: usize,
    policy: Policy,
    target: &RtgsWhale,
    hope: &[f64],
) -> (Vec<GpuId>, Vec<GpuId>) {
    let d = GreedyDecoder::new(problem, lookahead)
        .with_window(window, policy)
        .with_per_class(per_class);
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
    let all_treaps = GreedyDecoder::new(problem, lookahead)
        .with_window(window, policy)
        .with_per_class(per_class)
        .with_small_class(1);
    let mut treaps = vec![GpuId::new(0); problem.n_tasks()];
    all_treaps.decode(&input, &mut rng, &mut all_treaps.scratch(), &mut treaps);
    assert_eq!(fast, treaps);
    let mut slow = vec![GpuId::new(0); problem.n_tasks()];
    decode_linear(
        problem, lookahead, window, per_class, policy, &input, &mut slow,
    );
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
            for (window, per_class, policy) in [
                (0.0, 16, Policy::Append),
                (0.5, 16, Policy::Append),
                (2.0, 16, Policy::Append),
                (2.0, 3, Policy::Append),
                (2.0, 2, Policy::Insertion),
            ] {
                let (fast, slow) =
                    decode_both_with(&p, lookahead, window, per_class, policy, &t, &hope);
                assert_eq!(fast, slow, "case {case} {lookahead:?} {window} {per_class}");
                for (v, g) in fast.iter().enumerate() {
                    assert!(p.fits(TaskId::new(v), *g));
                }
            }
        }
    }
}

/// With busy windows (issue 21) the window's EFT (append: natively past the windows;
/// insertion: `PartialSchedule::eft`) is the one `PartialSchedule` gives, so the indexed
/// decoding still equals the linear scan, which asks `PartialSchedule::eft`; and the windows
/// change the decoding (else this would test nothing).
#[test]
fn window_decoding_with_busy_windows_matches_the_linear_scan() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
    let mut changed = 0;
    for (case, busy) in [(0u64, false), (1, true)] {
        let free = random_problem(case, busy);
        let mut cluster = free.cluster().clone();
        for k in 0..cluster.n_gpus() {
            if rng.random_bool(0.5) {
                let mut at = rng.random_range(0.0..100.0);
                let windows = (0..rng.random_range(1..=3))
                    .map(|_| {
                        let from = at;
                        at = from + rng.random_range(5.0..60.0);
                        let window = (from, at);
                        at += rng.random_range(0.0..100.0);
                        window
                    })
                    .collect();
                cluster.set_busy(GpuId::new(k), windows).unwrap();
            }
        }
        let p = Problem::new(Arc::clone(free.workload_arc()), Arc::new(cluster)).unwrap();
        assert!(p.has_windows());
        let feasible = FeasibleGpus::new(&p);
        let mut plan = vec![GpuId::new(0); p.n_tasks()];
        feasible.random_plan(&mut rng, &mut plan);
        let t = RtgsWhale::from_assignment(&p, plan);
        let hope: Vec<f64> = (0..p.n_tasks())
            .map(|_| (rng.random_range(-50.0..2000.0f64) / 10.0).round() * 10.0)
            .collect();
        for lookahead in [Lookahead::None, Lookahead::Target] {
            for (window, per_class, policy) in [
                (0.5, 16, Policy::Append),
                (2.0, 16, Policy::Append),
                (2.0, 3, Policy::Append),
                (2.0, 2, Policy::Insertion),
            ] {
                let (fast, slow) =
                    decode_both_with(&p, lookahead, window, per_class, policy, &t, &hope);
                assert_eq!(fast, slow, "case {case} {lookahead:?} {window} {per_class}");
                let (plain, _) =
                    decode_both_with(&free, lookahead, window, per_class, policy, &t, &hope);
                changed += usize::from(plain != fast);
            }
        }
    }
    assert!(changed >= 4, "{changed}");
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
        for window in [0.0, 1.0] {
            let (fast, slow) = decode_both_windowed(&p, lookahead, window, &t, &hope);
            assert_eq!(fast, slow);
        }
    }
}

/// Window, target T = (1, 1, 1) on the chain (loads 0 and 4.5), hope = (4, 4, 4),
/// mean execution times a 3, b 1.5, c 2.25.
/// `ω = 1`: a: keys (0, 2.5); GPU 0 gives 4 (gap 0), GPU 1 gives 4.5 (gap 0.5 <= 0 + 3):
/// both candidates, EFTs 4 and 2: GPU 1 (the pure rule takes GPU 0); keys (0, 4.5).
/// b: keys (0, 3.5); GPU 0 gives 2 (gap 2), GPU 1 gives 4.5 (gap 0.5; limit 2): both;
/// EFTs >= 2 + 2 (after a, plus the link latency) and 2 + 1: GPU 1; keys (0, 4.5).
/// c: keys (0, 3); GPU 0 gives 3 (gap 1), GPU 1 gives 4.5 (gap 0.5; limit 2.75): both;
/// EFTs >= 3 + 3 and 3 + 1.5: GPU 1. Plan (1, 1, 1).
/// `ω = 0.1`: a: limit 0.3, only GPU 0 (gap 0); keys (4, 2.5). b: keys (4, 1.5); GPU 0
/// gives 6 (gap 2), GPU 1 gives 2.5 (gap 1.5; limit 1.65): GPU 1; keys (4, 2.5). c: keys
/// (4, 1); GPU 0 gives 7 (gap 3), GPU 1 gives 2.5 (gap 1.5; limit 1.725): GPU 1.
/// Plan (0, 1, 1).
#[test]
fn window_decoding_by_hand() {
    let p = chain_on_two_speeds();
    let t = RtgsWhale::from_assignment(&p, vec![GpuId::new(1); 3]);
    assert_eq!(t.loads(), &[0.0, 4.5]);
    let hope = [4.0, 4.0, 4.0];
    let (wide, slow) = decode_both_windowed(&p, Lookahead::Target, 1.0, &t, &hope);
    assert_eq!(wide, vec![GpuId::new(1); 3]);
    assert_eq!(wide, slow);
    let (narrow, slow) = decode_both_windowed(&p, Lookahead::Target, 0.1, &t, &hope);
    assert_eq!(narrow, vec![GpuId::new(0), GpuId::new(1), GpuId::new(1)]);
    assert_eq!(narrow, slow);
    let (pure, _) = decode_both(&p, Lookahead::Target, &t, &hope);
    assert_eq!(pure[0], GpuId::new(0));
}

/// Layered DAG of 80 tasks, a quarter of them gangs of 2–4 GPUs of span `span`, on 40 PAI
/// GPUs (machines of 8 and of 2 GPUs: span-`machine` gangs of 3–4 can be led only from the
/// 8-GPU machines).
fn gang_problem(span: worl_dag::Span, case: u64) -> Problem {
    use worl_dag::generators::gangs::GangAssignment;
    let w = layered(&LayeredParams::new(80), case).unwrap();
    let g = GangAssignment::new(0.25, 2..=4, span)
        .seed(case)
        .apply(&w)
        .unwrap();
    Problem::new(Arc::new(g), Arc::new(presets::pai_mix(40, case).unwrap())).unwrap()
}

/// With gang tasks the per-class ordered sets stay right: after a decoding without
/// look-ahead every GPU's key is its running time in the decoded plan with the decoded
/// sets (a gang counted on every GPU of its set, [`gang_running_times`]), the index's
/// nearest GPU of every class is the brute-force nearest over those keys, every gang
/// task is on a GPU that can lead it, and the partial schedule's makespan is the
/// evaluator's. With look-ahead the plan is as valid and its decoded makespan exact.
#[test]
fn gang_decoding_keeps_the_class_index_right() {
    use crate::schedulers::rtgs::class_index::nearest_brute;
    use crate::schedulers::rtgs::gang_running_times;
    use crate::schedulers::search::PlanEvaluator;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
    let mut restricted = 0;
    for case in 0..4u64 {
        for span in [worl_dag::Span::Machine, worl_dag::Span::Cluster] {
            let p = gang_problem(span, case);
            assert!(p.has_gangs());
            let feasible = FeasibleGpus::new(&p);
            let mut plan = vec![GpuId::new(0); p.n_tasks()];
            feasible.random_plan(&mut rng, &mut plan);
            let target = RtgsWhale::from_assignment(&p, plan);
            let top = target.loads().iter().copied().fold(0.0, f64::max);
            let hope: Vec<f64> = (0..p.n_tasks())
                .map(|_| rng.random_range(0.0..2.0 * top))
                .collect();
            let order = p.graph().topo_order();
            let mv = Move::new(MoveKind::Encircle, 1.0, 0.5, 1.0, 0.0, 1.0);
            let input = DecodeInput {
                problem: &p,
                order,
                hope: &hope,
                whale: &target,
                target: &target,
                mv: &mv,
            };
            for (lookahead, window, policy, small) in [
                (Lookahead::None, 0.0, Policy::Append, SMALL_CLASS),
                (Lookahead::None, 2.0, Policy::Append, 1),
                (Lookahead::None, 2.0, Policy::Insertion, SMALL_CLASS),
                (Lookahead::Target, 2.0, Policy::Append, SMALL_CLASS),
                (Lookahead::Target, 0.0, Policy::Insertion, 1),
            ] {
                let name = format!("case {case} {span:?} {lookahead:?} ω {window} {policy}");
                let d = GreedyDecoder::new(&p, lookahead)
                    .with_window(window, policy)
                    .with_small_class(small);
                let mut scratch = d.scratch();
                let mut out = vec![GpuId::new(0); p.n_tasks()];
                d.decode(
                    &input,
                    &mut WhaleRng::seed_from_u64(0),
                    &mut scratch,
                    &mut out,
                );
                for v in p.graph().task_ids() {
                    assert!(p.can_lead(v, out[v.index()]), "{name}: {v:?}");
                    let fitting = p.cluster().gpu_ids().filter(|&k| p.fits(v, k)).count();
                    let leads = p.cluster().gpu_ids().filter(|&k| p.can_lead(v, k)).count();
                    restricted += usize::from(leads < fitting);
                }
                let mut sets = Vec::new();
                assert!(d.decoded_sets(&scratch, &mut sets), "{name}");
                let want = PlanEvaluator::new(&p, policy)
                    .with_order(order)
                    .makespan(&out);
                assert_eq!(scratch.partial.makespan(), want, "{name}");
                if window > 0.0 {
                    assert_eq!(d.decoded_makespan(&scratch, policy), Some(want), "{name}");
                }
                if lookahead == Lookahead::Target {
                    continue;
                }
                let mut loads = Vec::new();
                gang_running_times(&p, &out, &sets, &mut loads);
                let keys = &scratch.window.keys;
                for (k, (a, b)) in keys.iter().zip(&loads).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-9 * b.max(1.0),
                        "{name}: g{k} {a} vs {b}"
                    );
                }
                // the index answers from the same keys
                for (c, members) in d.members.iter().enumerate() {
                    for q in [0.0, 0.5 * top, top, 3.0 * top] {
                        let got = scratch.index.nearest(c, q).expect("non-empty class");
                        let brute = nearest_brute(keys, members, q, f64::INFINITY, 1);
                        // same distance (ties may go to another GPU of equal key), and the
                        // GPU returned has that key in the mirror
                        assert_eq!(got.0, brute[0].1, "{name}: class {c}");
                        assert_eq!((q - keys[got.1]).abs(), got.0, "{name}: class {c}");
                    }
                }
            }
        }
    }
    // some gang tasks cannot be led from every GPU they fit
    assert!(restricted > 0);
}

/// The greedy decoding by a linear scan over all GPUs (`O(n·m)`, plus the window's
/// candidates by brute force and one [`PartialSchedule::eft`] each), the reference the
/// indexed decoder must match.
pub(crate) fn decode_linear(
    problem: &Problem,
    lookahead: Lookahead,
    window: f64,
    per_class: usize,
    policy: Policy,
    input: &DecodeInput<'_>,
    out: &mut [GpuId],
) {
    use crate::schedulers::rtgs::class_index::nearest_brute;
    let mut key = match lookahead {
        Lookahead::None => problem.ready_times().to_vec(),
        Lookahead::Target => input.target.loads().to_vec(),
    };
    let mut partial = PartialSchedule::new(problem);
    for &task in input.order {
        if lookahead == Lookahead::Target {
            let g = input.target.gpus()[task.index()];
            key[g.index()] -= problem.exec_time(task, g);
        }
        let hope = input.hope[task.index()];
        let fitting = || (0..key.len()).filter(|&k| problem.fits(task, GpuId::new(k)));
        let gap = |k: usize| (hope - problem.exec_time(task, GpuId::new(k)) - key[k]).abs();
        let mut best = (f64::INFINITY, usize::MAX);
        for k in fitting() {
            if gap(k) < best.0 {
                best = (gap(k), k);
            }
        }
        if window > 0.0 {
            let limit = best.0 + window * problem.mean_exec_time(task);
            let mut pick = (f64::INFINITY, f64::INFINITY, usize::MAX);
            for c in problem.class_ids() {
                let gpus: Vec<usize> = problem.class_gpus(c).iter().map(|g| g.index()).collect();
                if !problem.fits(task, GpuId::new(gpus[0])) {
                    continue;
                }
                let q = hope - problem.class_exec_time(task, c);
                for (k, d) in nearest_brute(&key, &gpus, q, limit, per_class) {
                    let eft = partial.eft(task, GpuId::new(k), policy).unwrap();
                    if (eft, d, k) < pick {
                        pick = (eft, d, k);
                    }
                }
            }
            best.1 = pick.2;
            partial.place(task, GpuId::new(best.1), policy).unwrap();
        }
        out[task.index()] = GpuId::new(best.1);
        key[best.1] += problem.exec_time(task, GpuId::new(best.1));
    }
}

//! Properties over random DAGs and clusters: every baseline's schedule validates, is at least
//! the lower bound and is reproducible; the incremental engines equal their textbook
//! definitions (Min-Min / Max-Min recomputing every MCT at every step, HEFT as a sorted list,
//! PEFT's per-class OCT as the full task × GPU table, the gap index's insertion shortcut as the
//! full gap search).

mod common;

use common::all_schedulers;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use worl_cluster::{GpuId, PartialSchedule, Policy, Problem, Schedule};
use worl_dag::TaskId;
use worl_sched::schedulers::list::{GapIndex, upward_ranks};
use worl_sched::schedulers::{Heft, MaxMin, MinMin, OptimisticCostTable, Peft};
use worl_sched::testing::{self, ClusterKind};
use worl_sched::{RunContext, Scheduler};

/// [`testing::random_problem`] with the cluster kind by index (0 homogeneous, 1 PAI mix, 2
/// busy PAI mix, 3 unrelated, 4 GPUs of equal speed with ready times).
fn random_problem(n: usize, m: usize, density: f64, kind: u8, work_min: f64, seed: u64) -> Problem {
    testing::random_problem(
        n,
        m,
        density,
        ClusterKind::ALL[kind as usize],
        work_min,
        seed,
    )
}

/// Textbook Min-Min / Max-Min: at every step the MCT of every ready task over every GPU
/// that fits it (ties: smaller GPU id), the task of minimum / maximum MCT (ties: smaller id).
fn textbook_batch(p: &Problem, policy: Policy, max: bool) -> Schedule {
    let g = p.graph();
    let mut s = PartialSchedule::new(p);
    let mut missing: Vec<usize> = g.task_ids().map(|v| g.preds(v).len()).collect();
    let mut ready: Vec<TaskId> = g.entry_tasks().collect();
    while !ready.is_empty() {
        let mut pick: Option<(usize, GpuId, f64)> = None;
        for (i, &v) in ready.iter().enumerate() {
            let mut best: Option<(GpuId, f64)> = None;
            for k in p.cluster().gpu_ids() {
                if p.fits(v, k) {
                    let e = s.eft(v, k, policy).unwrap();
                    if best.is_none_or(|(_, b)| e < b) {
                        best = Some((k, e));
                    }
                }
            }
            let (k, e) = best.unwrap();
            let better = match pick {
                None => true,
                Some((j, _, b)) => (if max { e > b } else { e < b }) || (e == b && v < ready[j]),
            };
            if better {
                pick = Some((i, k, e));
            }
        }
        let (i, k, _) = pick.unwrap();
        let v = ready.swap_remove(i);
        s.place(v, k, policy).unwrap();
        for nb in g.succs(v) {
            missing[nb.task.index()] -= 1;
            if missing[nb.task.index()] == 0 {
                ready.push(nb.task);
            }
        }
    }
    s.to_schedule().unwrap()
}

/// Textbook HEFT: all tasks sorted by decreasing rank_u (ties: smaller id), each on its
/// minimum-EFT GPU (ties: smaller id). Needs positive costs (sorted order topological).
fn textbook_heft(p: &Problem, policy: Policy) -> Schedule {
    let rank = upward_ranks(p);
    let mut order: Vec<TaskId> = p.graph().task_ids().collect();
    order.sort_by(|a, b| rank[b.index()].total_cmp(&rank[a.index()]).then(a.cmp(b)));
    let mut s = PartialSchedule::new(p);
    for v in order {
        let best = p
            .cluster()
            .gpu_ids()
            .filter(|&k| p.fits(v, k))
            .map(|k| s.slot(v, k, policy).unwrap())
            .reduce(|a, b| if b.finish() < a.finish() { b } else { a })
            .unwrap();
        s.commit(best).unwrap();
    }
    s.to_schedule().unwrap()
}

/// PEFT's OCT by its definition, over every pair of GPUs (`n × m`).
fn textbook_oct(p: &Problem) -> Vec<Vec<f64>> {
    let g = p.graph();
    let m = p.n_gpus();
    let mut oct = vec![vec![0.0f64; m]; g.n_tasks()];
    for &v in g.topo_order().iter().rev() {
        for pk in 0..m {
            let mut worst = 0.0f64;
            for s in g.succs(v) {
                let mut best = f64::INFINITY;
                for (q, &o) in oct[s.task.index()].iter().enumerate() {
                    let qg = GpuId::new(q);
                    if !p.fits(s.task, qg) {
                        continue;
                    }
                    let comm = if q == pk {
                        0.0
                    } else {
                        p.mean_comm_time(s.bytes)
                    };
                    best = best.min(o + p.exec_time(s.task, qg) + comm);
                }
                worst = worst.max(best);
            }
            oct[v.index()][pk] = worst;
        }
    }
    oct
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_baseline_gives_a_valid_reproducible_schedule_above_the_lower_bound(
        n in 1usize..40, m in 1usize..10, density in 0.0f64..0.4, kind in 0u8..5, seed in 0u64..1000,
    ) {
        let p = random_problem(n, m, density, kind, 0.0, seed);
        let lb = p.lower_bound().value;
        for mut s in all_schedulers() {
            let a = s.schedule(&p, &mut RunContext::new(seed)).unwrap();
            let v = a.validate(&p);
            prop_assert!(v.is_empty(), "{}: {:?}", s.name(), v.first());
            prop_assert!(a.makespan() >= lb * (1.0 - 1e-12), "{}: {} < {lb}", s.name(), a.makespan());
            prop_assert_eq!(&a, &s.schedule(&p, &mut RunContext::new(seed)).unwrap());
        }
    }

    #[test]
    fn on_one_gpu_every_baseline_runs_the_tasks_back_to_back(
        n in 1usize..30, density in 0.0f64..0.5, seed in 0u64..1000,
    ) {
        let p = random_problem(n, 1, density, 0, 0.0, seed);
        let total: f64 = p.graph().task_ids().map(|v| p.exec_time(v, GpuId::new(0))).sum();
        for mut s in all_schedulers() {
            let ms = s.schedule(&p, &mut RunContext::new(seed)).unwrap().makespan();
            prop_assert!((ms - total).abs() <= 1e-9 * total.max(1.0), "{}: {ms} vs {total}", s.name());
        }
    }

    #[test]
    fn incremental_min_min_and_max_min_equal_the_textbook_recomputation(
        n in 1usize..35, m in 1usize..9, density in 0.0f64..0.3, kind in 0u8..5, seed in 0u64..1000,
        insertion in any::<bool>(),
    ) {
        let p = random_problem(n, m, density, kind, 0.0, seed);
        let policy = if insertion { Policy::Insertion } else { Policy::Append };
        let ctx = &mut RunContext::new(0);
        prop_assert_eq!(
            MinMin::new().with_policy(policy).schedule(&p, ctx).unwrap(),
            textbook_batch(&p, policy, false)
        );
        prop_assert_eq!(
            MaxMin::new().with_policy(policy).schedule(&p, ctx).unwrap(),
            textbook_batch(&p, policy, true)
        );
    }

    #[test]
    fn heft_equals_the_sorted_list_definition(
        n in 1usize..40, m in 1usize..9, density in 0.0f64..0.4, kind in 0u8..5, seed in 0u64..1000,
        insertion in any::<bool>(),
    ) {
        let p = random_problem(n, m, density, kind, 0.5, seed);
        let policy = if insertion { Policy::Insertion } else { Policy::Append };
        prop_assert_eq!(
            Heft::new().with_policy(policy).schedule(&p, &mut RunContext::new(0)).unwrap(),
            textbook_heft(&p, policy)
        );
    }

    #[test]
    fn per_class_optimistic_cost_table_equals_the_task_by_gpu_definition(
        n in 1usize..30, m in 1usize..9, density in 0.0f64..0.4, kind in 0u8..5, seed in 0u64..1000,
    ) {
        let p = random_problem(n, m, density, kind, 0.0, seed);
        let oct = OptimisticCostTable::new(&p);
        let full = textbook_oct(&p);
        for v in p.graph().task_ids() {
            for k in p.cluster().gpu_ids() {
                let (a, b) = (oct.get(v, k), full[v.index()][k.index()]);
                prop_assert!((a - b).abs() <= 1e-9 * b.max(1.0), "OCT({v}, {k}): {a} vs {b}");
            }
        }
        // And PEFT runs on it.
        let s = Peft::new().schedule(&p, &mut RunContext::new(0)).unwrap();
        prop_assert!(s.validate(&p).is_empty());
    }

    #[test]
    fn gap_index_slots_equal_the_full_insertion_search(
        n in 1usize..60, m in 1usize..6, density in 0.0f64..0.3, kind in 0u8..5, seed in 0u64..1000,
    ) {
        // Random GPUs in topological order leave many idle gaps; before every placement the
        // index must answer exactly what PartialSchedule's own search answers, on every GPU.
        let p = random_problem(n, m, density, kind, 0.0, seed);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut s = PartialSchedule::new(&p);
        let mut index = GapIndex::new(&p);
        for &v in p.graph().topo_order() {
            let fitting: Vec<GpuId> = p.cluster().gpu_ids().filter(|&k| p.fits(v, k)).collect();
            for &k in &fitting {
                for policy in [Policy::Insertion, Policy::Append] {
                    prop_assert_eq!(index.slot(&s, v, k, policy).unwrap(), s.slot(v, k, policy).unwrap());
                }
            }
            let k = fitting[rng.random_range(0..fitting.len())];
            let slot = index.slot(&s, v, k, Policy::Insertion).unwrap();
            index.commit(&mut s, slot).unwrap();
        }
        prop_assert!(s.to_schedule().unwrap().validate(&p).is_empty());
    }
}

#[test]
fn max_min_with_many_ready_tasks_equals_the_textbook_recomputation() {
    // 150 tasks, few edges, identical GPUs: every step refreshes most ready tasks, so the
    // engine's heap fills with superseded entries and gets compacted many times.
    for (seed, kind) in [(1, 0), (2, 1), (3, 4)] {
        let p = random_problem(150, 6, 0.01, kind, 0.0, seed);
        for policy in [Policy::Append, Policy::Insertion] {
            let ctx = &mut RunContext::new(0);
            assert_eq!(
                MaxMin::new().with_policy(policy).schedule(&p, ctx).unwrap(),
                textbook_batch(&p, policy, true)
            );
            assert_eq!(
                MinMin::new().with_policy(policy).schedule(&p, ctx).unwrap(),
                textbook_batch(&p, policy, false)
            );
        }
    }
}

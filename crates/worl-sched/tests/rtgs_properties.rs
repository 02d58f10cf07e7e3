//! Properties of the metaheuristic schedulers on random small problems: every schedule
//! validates (precedence, communication, no overlap, memory, ready times), its makespan is
//! at least the lower bound, and the greedy decoder never puts a task on a GPU it does not
//! fit.

use proptest::prelude::*;
use std::sync::Arc;
use worl_cluster::{ClusterBuilder, GpuId, GpuModel, Link, Network, Policy, Problem};
use worl_dag::{TaskId, WorkloadBuilder};
use worl_sched::schedulers::rtgs::{DecodeInput, GreedyDecoder, Lookahead, PlanDecoder, RtgsWhale};
use worl_sched::{Registry, RunContext};
use worl_woa::{Move, MoveKind, WhaleRng};

/// A random problem: `n` tasks, edges `u → v` (`u < v`) with probability `density`, work in
/// `[0, 50]` s (zero allowed), memory needs up to 40 GiB on some tasks; `m` GPUs, two per
/// machine, speeds from {0.25, 0.5, 1, 2}, memory 16 or 48 GiB, ready times in `[0, 20]`.
#[allow(clippy::type_complexity)]
fn random_problem(
    works: Vec<(f64, Option<f64>)>,
    edges: Vec<(usize, usize, f64)>,
    gpus: Vec<(usize, bool, f64)>,
) -> Problem {
    let mut w = WorkloadBuilder::new("random");
    let j = w.add_job("j").unwrap();
    let ids: Vec<TaskId> = works
        .iter()
        .enumerate()
        .map(|(i, &(work, mem))| w.add_task(j, format!("t{i}"), work, mem).unwrap())
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    for (u, v, bytes) in edges {
        if u < v && seen.insert((u, v)) {
            w.add_edge(ids[u], ids[v], bytes).unwrap();
        }
    }
    let mut c = ClusterBuilder::new("random");
    let mut machine = c.add_machine("m0");
    for (k, &(speed, big, ready)) in gpus.iter().enumerate() {
        if k % 2 == 0 && k > 0 {
            machine = c.add_machine(format!("m{k}"));
        }
        let s = [0.25, 0.5, 1.0, 2.0][speed % 4];
        let mem = if big { 48.0 } else { 16.0 };
        let model = GpuModel::custom(format!("s{s}-m{mem}"), s, mem).unwrap();
        let g = c.add_gpu(machine, &model).unwrap();
        c.set_ready_time(g, ready).unwrap();
    }
    // At least one big GPU so every memory need fits.
    let last = c.add_machine("big");
    c.add_gpu(last, &GpuModel::custom("s1-m48", 1.0, 48.0).unwrap())
        .unwrap();
    c.network(Network::uniform(
        Link::NVLINK2,
        Link::new(1.0e9, 0.01).unwrap(),
    ));
    Problem::new(Arc::new(w.build().unwrap()), Arc::new(c.build().unwrap())).unwrap()
}

fn problem_strategy() -> impl Strategy<Value = Problem> {
    (1usize..30, 1usize..7).prop_flat_map(|(n, m)| {
        (
            prop::collection::vec((0.0f64..50.0, prop::option::weighted(0.3, 1.0f64..40.0)), n),
            prop::collection::vec((0..n, 0..n, 0.0f64..5.0e9), 0..(2 * n)),
            prop::collection::vec((0usize..4, any::<bool>(), 0.0f64..20.0), m),
        )
            .prop_map(|(works, edges, gpus)| random_problem(works, edges, gpus))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// RTGS (default and authors' variants, both policies), WOA, PSO and GA give valid
    /// schedules no shorter than the lower bound.
    #[test]
    fn metaheuristic_schedules_validate_and_respect_the_lower_bound(
        p in problem_strategy(),
        seed in any::<u64>(),
        parallel in any::<bool>(),
    ) {
        let lb = p.lower_bound().value;
        for spec in [
            "rtgs:whales=6,iterations=4",
            "rtgs:whales=6,iterations=4,policy=insertion",
            "rtgs:whales=6,iterations=4,preset=paper,policy=insertion",
            "rtgs:whales=4,iterations=2,seed-with-heft=true",
            "woa:whales=6,iterations=4",
            "pso:particles=6,iterations=4",
            "ga:population=6,generations=4,elites=0",
        ] {
            let spec = format!("{spec},parallel={parallel}");
            let mut s = Registry::with_builtins().build_spec(&spec).unwrap();
            let schedule = s.schedule(&p, &mut RunContext::new(seed)).unwrap();
            let violations = schedule.validate(&p);
            prop_assert!(violations.is_empty(), "{}: {:?}", spec, violations);
            prop_assert_eq!(schedule.n_tasks(), p.n_tasks());
            prop_assert!(schedule.makespan() >= lb * (1.0 - 1e-12) - 1e-12,
                "{}: makespan {} < LB {}", spec, schedule.makespan(), lb);
        }
    }

    /// The greedy decoder (pure, or with an EFT window under either policy) assigns every
    /// task a GPU it fits, whatever the hopes.
    #[test]
    fn greedy_decoding_respects_memory(
        p in problem_strategy(),
        hopes in prop::collection::vec(-100.0f64..500.0, 30),
        target_seed in any::<u64>(),
    ) {
        use rand::{Rng, SeedableRng};
        let mut rng = WhaleRng::seed_from_u64(target_seed);
        let n = p.n_tasks();
        let plan: Vec<GpuId> = (0..n)
            .map(|v| {
                let fits: Vec<GpuId> = p.cluster().gpu_ids().filter(|&k| p.fits(TaskId::new(v), k)).collect();
                fits[rng.random_range(0..fits.len())]
            })
            .collect();
        let target = RtgsWhale::from_assignment(&p, plan);
        let mv = Move::new(MoveKind::Spiral, 1.0, 0.3, 1.0, 0.2, 1.0);
        for (lookahead, window, policy) in [
            (Lookahead::None, 0.0, Policy::Append),
            (Lookahead::Target, 0.0, Policy::Append),
            (Lookahead::Target, 2.0, Policy::Append),
            (Lookahead::None, 0.5, Policy::Insertion),
        ] {
            let d = GreedyDecoder::new(&p, lookahead).with_window(window, policy);
            let input = DecodeInput {
                problem: &p,
                order: p.graph().topo_order(),
                hope: &hopes[..n],
                whale: &target,
                target: &target,
                mv: &mv,
            };
            let mut out = vec![GpuId::new(usize::MAX >> 40); n];
            d.decode(&input, &mut rng, &mut d.scratch(), &mut out);
            for (v, &k) in out.iter().enumerate() {
                prop_assert!(k.index() < p.n_gpus());
                prop_assert!(p.fits(TaskId::new(v), k));
            }
        }
    }
}

//! Every generator refuses, before allocating, parameters that would make more than
//! `MAX_GENERATED_TASKS` tasks or `MAX_GENERATED_EDGES` edges, with a typed
//! `DagError::InvalidParameter` naming the parameter (one test per family, at the limit + 1).

use worl_dag::DagError;
use worl_dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};
use worl_dag::generators::daggen::{DaggenParams, generate};
use worl_dag::generators::layered::{LayeredParams, layered};
use worl_dag::generators::nn_training::{Model, NnTrainingParams, nn_training};
use worl_dag::generators::shapes;
use worl_dag::generators::{MAX_GENERATED_EDGES, MAX_GENERATED_TASKS};

/// The parameter name and reason of an `InvalidParameter`, or a panic naming what came.
fn invalid<T: std::fmt::Debug>(r: Result<T, DagError>) -> (&'static str, String) {
    match r {
        Err(DagError::InvalidParameter { name, reason }) => (name, reason),
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

#[test]
fn the_limits_are_one_million_tasks_and_four_million_edges() {
    assert_eq!(MAX_GENERATED_TASKS, 1_000_000);
    assert_eq!(MAX_GENERATED_EDGES, 4_000_000);
}

#[test]
fn layered_refuses_one_task_over_the_limit_and_huge_counts() {
    for n in [MAX_GENERATED_TASKS + 1, 10_000_000_000, usize::MAX] {
        let (name, reason) = invalid(layered(&LayeredParams::new(n), 1));
        assert_eq!(name, "n");
        assert!(reason.contains(&n.to_string()), "{reason}");
        assert!(reason.contains("1000000"), "{reason}");
    }
    // A small valid case still works.
    assert_eq!(
        layered(&LayeredParams::new(50), 1)
            .unwrap()
            .graph()
            .n_tasks(),
        50
    );
}

#[test]
fn layered_refuses_a_density_making_quadratic_edges() {
    // 200,000 tasks in levels of about 447: density 1 expects about 89 million edges.
    let p = LayeredParams::new(200_000).fat(0.5).density(1.0);
    let (name, reason) = invalid(layered(&p, 3));
    assert_eq!(name, "density");
    assert!(reason.contains("4000000"), "{reason}");
    // The same size with density 0 makes one parent per task: n minus the first level.
    let w = layered(&LayeredParams::new(2_000).fat(0.5).density(0.0), 3).unwrap();
    assert!(w.graph().n_edges() < 2_000 && w.graph().n_edges() > 1_900);
}

#[test]
fn daggen_refuses_one_task_over_the_limit_and_a_quadratic_density() {
    let (name, _) = invalid(generate(&DaggenParams::new(MAX_GENERATED_TASKS + 1, 0)));
    assert_eq!(name, "n");
    let (name, _) = invalid(generate(&DaggenParams::new(usize::MAX, 0)));
    assert_eq!(name, "n");
    let c = DaggenParams {
        density: 1.0,
        ..DaggenParams::new(200_000, 0)
    };
    let (name, reason) = invalid(generate(&c));
    assert_eq!(name, "density");
    assert!(reason.contains("edges"), "{reason}");
    // level_widths checks the same task limit.
    assert!(matches!(
        worl_dag::generators::daggen::level_widths(&DaggenParams::new(MAX_GENERATED_TASKS + 1, 0)),
        Err(DagError::InvalidParameter { name: "n", .. })
    ));
}

#[test]
fn shapes_refuse_one_task_over_the_limit() {
    let over = MAX_GENERATED_TASKS + 1;
    assert_eq!(invalid(shapes::chain(over, 1.0, 0.0)).0, "n");
    assert_eq!(invalid(shapes::wide(over, 1.0)).0, "n");
    // width + 2 tasks.
    assert_eq!(invalid(shapes::fork_join(over - 2, 1.0, 0.0)).0, "width");
    assert_eq!(invalid(shapes::fork_join(usize::MAX, 1.0, 0.0)).0, "width");
    // jobs · tasks_per_job tasks, no overflow.
    assert_eq!(invalid(shapes::disconnected(over, 1, 1.0, 0.0)).0, "jobs");
    assert_eq!(
        invalid(shapes::disconnected(
            2,
            MAX_GENERATED_TASKS / 2 + 1,
            1.0,
            0.0
        ))
        .0,
        "jobs"
    );
    assert_eq!(
        invalid(shapes::disconnected(usize::MAX, usize::MAX, 1.0, 0.0)).0,
        "jobs"
    );
    // entries + exits tasks.
    assert_eq!(
        invalid(shapes::multi_entry_exit(MAX_GENERATED_TASKS, 1, 1.0, 0.0)).0,
        "entries"
    );
}

#[test]
fn multi_entry_exit_refuses_one_edge_over_the_limit() {
    // 2000 · 2000 = 4,000,000 edges is the limit; 2000 · 2001 is over, with 4001 tasks.
    let (name, reason) = invalid(shapes::multi_entry_exit(2000, 2001, 1.0, 0.0));
    assert_eq!(name, "exits");
    assert!(reason.contains("4002000"), "{reason}");
    let (name, _) = invalid(shapes::multi_entry_exit(usize::MAX, usize::MAX, 1.0, 0.0));
    assert_eq!(name, "entries");
    let w = shapes::multi_entry_exit(3, 4, 1.0, 0.0).unwrap();
    assert_eq!(w.graph().n_edges(), 12);
}

#[test]
fn alibaba_like_refuses_jobs_holding_more_than_the_limit() {
    let (name, _) = invalid(alibaba_like(
        &AlibabaLikeParams::new(MAX_GENERATED_TASKS + 1),
        1,
    ));
    assert_eq!(name, "jobs");
    let (name, _) = invalid(alibaba_like(&AlibabaLikeParams::new(usize::MAX), 1));
    assert_eq!(name, "jobs");
    // Only 127-task jobs: 7,875 of them hold 1,000,125 tasks; 7,874 hold 999,998.
    let p = AlibabaLikeParams::new(MAX_GENERATED_TASKS / 127 + 1).task_range(127, 127);
    let (name, reason) = invalid(alibaba_like(&p, 1));
    assert_eq!(name, "jobs");
    assert!(reason.contains("1000125"), "{reason}");
    let w = alibaba_like(&AlibabaLikeParams::new(3).task_range(127, 127), 1).unwrap();
    assert_eq!(w.graph().n_tasks(), 3 * 127);
}

#[test]
fn nn_training_refuses_one_task_over_the_limit_naming_the_largest_count() {
    let base = NnTrainingParams::new(Model::resnet50())
        .pipeline(1, 1)
        .replicas(1);
    // 3 tasks per iteration (F, B, update): 333,333 iterations make 999,999 tasks.
    let at = base.clone().iterations(333_333);
    assert_eq!(at.counts().0, 999_999);
    assert!(at.validate().is_ok());
    let (name, reason) = invalid(nn_training(&base.clone().iterations(333_334)));
    assert_eq!(name, "iterations");
    assert!(reason.contains("1000002"), "{reason}");
    // 8·m + 4 tasks with 4 stages: micro_batches is the largest count.
    let (name, _) = invalid(nn_training(&base.clone().pipeline(4, 125_000)));
    assert_eq!(name, "micro_batches");
    // Products of huge counts saturate instead of overflowing.
    let huge = base
        .pipeline(1, usize::MAX)
        .replicas(usize::MAX)
        .iterations(usize::MAX);
    assert_eq!(huge.counts(), (u128::MAX, u128::MAX));
    assert_eq!(invalid(nn_training(&huge)).0, "iterations");
}

#[test]
fn nn_training_counts_match_the_workload() {
    for (s, m, r, i) in [(1, 1, 1, 1), (4, 8, 2, 1), (3, 2, 3, 3), (2, 5, 1, 2)] {
        let p = NnTrainingParams::new(Model::bert_base())
            .pipeline(s, m)
            .replicas(r)
            .iterations(i);
        let w = nn_training(&p).unwrap();
        assert_eq!(
            p.counts(),
            (w.graph().n_tasks() as u128, w.graph().n_edges() as u128),
            "{s} stages, {m} micro-batches, {r} replicas, {i} iterations"
        );
    }
}

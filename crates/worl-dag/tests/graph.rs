//! Hand-computed cases for the core model: validation, adjacency, levels, paths, stats.

use worl_dag::generators::shapes::topcuoglu_2002;
use worl_dag::{DagError, TaskId, Workload, WorkloadBuilder};

/// The Topcuoglu et al. 2002 10-task DAG (Topcuoglu et al. 2002, Fig. 2) with edge bytes = its comm costs.
fn topcuoglu() -> Workload {
    topcuoglu_2002([1.0; 10]).unwrap()
}

#[test]
fn upward_rank_of_topcuoglu_example_matches_the_paper() {
    // Mean execution costs over the three processors (Topcuoglu et al. 2002, Fig. 2, W matrix).
    let w = [
        [14., 16., 9.],
        [13., 19., 18.],
        [11., 13., 19.],
        [13., 8., 17.],
        [12., 13., 10.],
        [13., 16., 9.],
        [7., 15., 11.],
        [5., 11., 14.],
        [18., 12., 20.],
        [21., 7., 16.],
    ];
    let wl = topcuoglu();
    let g = wl.graph();
    let rank_u = g.bottom_levels(
        |t| w[t.index()].iter().sum::<f64>() / 3.0,
        |_, _, bytes| bytes,
    );
    let expect = [
        108.0, 77.0, 80.0, 80.0, 69.0, 63.333, 42.667, 35.667, 44.333, 14.667,
    ];
    for (got, want) in rank_u.iter().zip(expect) {
        assert!((got - want).abs() < 1e-3, "rank_u {got} != {want}");
    }
    // The critical path under mean costs starts at T1 and ends at T10 with length rank_u(T1).
    let cp = g.critical_path(|t| w[t.index()].iter().sum::<f64>() / 3.0, |_, _, b| b);
    assert!((cp.length - 108.0).abs() < 1e-9);
    assert_eq!(cp.tasks.first().map(|t| t.index()), Some(0));
    assert_eq!(cp.tasks.last().map(|t| t.index()), Some(9));
    // Min-cost critical path of SLR: T1, T2, T9, T10 with 9 + 13 + 12 + 7 = 41.
    let cpmin = g.critical_path(
        |t| w[t.index()].iter().cloned().fold(f64::MAX, f64::min),
        |_, _, _| 0.0,
    );
    assert_eq!(cpmin.length, 41.0);
    let names: Vec<&str> = cpmin
        .tasks
        .iter()
        .map(|&t| g.task(t).name.as_str())
        .collect();
    assert_eq!(names, ["T1", "T2", "T9", "T10"]);
}

#[test]
fn adjacency_levels_and_topological_order() {
    let wl = topcuoglu();
    let g = wl.graph();
    assert_eq!((g.n_tasks(), g.n_edges()), (10, 15));
    let t = |i: usize| TaskId::new(i - 1);
    let preds: Vec<usize> = g.preds(t(8)).iter().map(|n| n.task.index() + 1).collect();
    assert_eq!(preds, [2, 4, 6]);
    assert_eq!(g.preds(t(8))[1].bytes, 27.0);
    let succs: Vec<usize> = g.succs(t(1)).iter().map(|n| n.task.index() + 1).collect();
    assert_eq!(succs, [2, 3, 4, 5, 6]);
    assert_eq!(g.entry_tasks().collect::<Vec<_>>(), [t(1)]);
    assert_eq!(g.exit_tasks().collect::<Vec<_>>(), [t(10)]);
    assert_eq!(g.levels(), [0, 1, 1, 1, 1, 1, 2, 2, 2, 3]);
    assert_eq!((g.depth(), g.width()), (4, 5));
    let mut pos = [0; 10];
    for (i, v) in g.topo_order().iter().enumerate() {
        pos[v.index()] = i;
    }
    for e in g.edges() {
        assert!(pos[e.from.index()] < pos[e.to.index()]);
    }
    let tl = g.top_levels(|_| 1.0, |_, _, _| 0.0);
    assert_eq!(tl, [0., 1., 1., 1., 1., 1., 2., 2., 2., 3.]);
    assert_eq!(g.graph().edge_count(), 15);
}

#[test]
fn a_cycle_is_reported_with_its_tasks_in_order() {
    let mut b = WorkloadBuilder::new("cyc");
    let j = b.add_job("j_1053726").unwrap();
    let a = b.add_task(j, "R1_5", 1.0, None).unwrap();
    let x = b.add_task(j, "M2", 1.0, None).unwrap();
    let c = b.add_task(j, "M5_1", 1.0, None).unwrap();
    b.add_edge(x, a, 0.0).unwrap();
    b.add_edge(c, a, 0.0).unwrap();
    b.add_edge(a, c, 0.0).unwrap();
    match b.build() {
        Err(DagError::Cycle { tasks }) => {
            assert_eq!(tasks.len(), 3);
            assert_eq!(tasks.first(), tasks.last());
            let mut inner = tasks[..2].to_vec();
            inner.sort();
            assert_eq!(inner, ["j_1053726/M5_1", "j_1053726/R1_5"]);
        }
        other => panic!("expected a cycle, got {other:?}"),
    }
}

#[test]
fn bad_values_and_duplicates_are_typed_errors_naming_the_item() {
    let mut b = WorkloadBuilder::new("bad");
    let j = b.add_job("j").unwrap();
    assert!(matches!(b.add_job("j"), Err(DagError::DuplicateJob { job }) if job == "j"));
    assert!(
        matches!(b.add_task(j, "a", f64::NAN, None), Err(DagError::InvalidWork { task, .. }) if task == "j/a")
    );
    assert!(matches!(
        b.add_task(j, "a", -1.0, None),
        Err(DagError::InvalidWork { .. })
    ));
    assert!(matches!(
        b.add_task(j, "a", 1.0, Some(0.0)),
        Err(DagError::InvalidMemory { .. })
    ));
    let a = b.add_task(j, "a", 1.0, None).unwrap();
    let c = b.add_task(j, "c", 1.0, Some(16.0)).unwrap();
    assert!(
        matches!(b.add_task(j, "a", 1.0, None), Err(DagError::DuplicateTask { task, .. }) if task == "a")
    );
    assert!(matches!(b.add_edge(a, a, 0.0), Err(DagError::SelfLoop { task }) if task == "j/a"));
    assert!(matches!(
        b.add_edge(a, c, -2.0),
        Err(DagError::InvalidBytes { .. })
    ));
    assert!(matches!(
        b.add_edge(a, TaskId::new(7), 0.0),
        Err(DagError::UnknownId { index: 7, .. })
    ));
    b.add_edge(a, c, 1.0).unwrap();
    b.add_edge(a, c, 2.0).unwrap();
    assert!(
        matches!(b.build(), Err(DagError::DuplicateEdge { from, to }) if from == "j/a" && to == "j/c")
    );
    assert!(matches!(
        WorkloadBuilder::new("none").build(),
        Err(DagError::Empty { .. })
    ));
}

#[test]
fn merge_keeps_every_job_and_rejects_duplicate_job_names() {
    let a = topcuoglu();
    let mut b = WorkloadBuilder::new("second");
    let j = b.add_job("other").unwrap();
    let x = b.add_task(j, "x", 2.0, None).unwrap();
    let y = b.add_task(j, "y", 3.0, None).unwrap();
    b.add_edge(x, y, 5.0).unwrap();
    let b = b.build().unwrap();
    let m = Workload::merge("both", [&a, &b]).unwrap();
    assert_eq!(
        (m.n_jobs(), m.graph().n_tasks(), m.graph().n_edges()),
        (2, 12, 16)
    );
    let y2 = m.find_task("other", "y").unwrap();
    assert_eq!(y2.index(), 11);
    assert_eq!(m.graph().preds(y2)[0].bytes, 5.0);
    assert_eq!(m.job(m.graph().task(y2).job).tasks.len(), 2);
    assert!(matches!(
        Workload::merge("dup", [&a, &a]),
        Err(DagError::DuplicateJob { .. })
    ));
}

#[test]
fn select_and_sample_whole_jobs() {
    // Jobs of 3, 1, 2 and 1 tasks; edges inside the DAG jobs.
    let mut b = WorkloadBuilder::new("pool");
    let mut jobs = Vec::new();
    for (name, size) in [("a", 3), ("b", 1), ("c", 2), ("d", 1)] {
        let j = b.add_job(name).unwrap();
        let ids: Vec<TaskId> = (0..size)
            .map(|i| {
                b.add_task(j, format!("t{i}"), 1.0 + i as f64, None)
                    .unwrap()
            })
            .collect();
        for w in ids.windows(2) {
            b.add_edge(w[0], w[1], 7.0).unwrap();
        }
        jobs.push(j);
    }
    let pool = b.build().unwrap();
    let sel = pool.select_jobs(&[jobs[2], jobs[0]], "sel").unwrap();
    assert_eq!(
        sel.jobs()
            .iter()
            .map(|j| j.name.as_str())
            .collect::<Vec<_>>(),
        ["c", "a"]
    );
    assert_eq!((sel.graph().n_tasks(), sel.graph().n_edges()), (5, 3));
    assert_eq!(
        sel.graph().task(sel.find_task("a", "t2").unwrap()).work,
        3.0
    );
    // 5 tasks from whole jobs: both DAG jobs (3 + 2) whatever the seed; 6 needs one more
    // single-task job; 8 is more than the pool holds.
    for seed in 0..5 {
        let s = pool.sample_jobs(5, seed, "s").unwrap();
        assert_eq!(
            s.jobs().iter().map(|j| j.name.as_str()).collect::<Vec<_>>(),
            ["a", "c"]
        );
        let six = pool.sample_jobs(6, seed, "six").unwrap();
        assert_eq!((six.n_jobs(), six.graph().n_tasks()), (3, 6));
    }
    assert!(matches!(
        pool.sample_jobs(8, 0, "x"),
        Err(DagError::InvalidParameter { name: "tasks", .. })
    ));
    assert!(matches!(
        pool.select_jobs(&[], "none"),
        Err(DagError::Empty { .. })
    ));
}

#[test]
fn stats_count_shape_and_ccr() {
    let mut b = WorkloadBuilder::new("chain");
    let j = b.add_job("j").unwrap();
    let a = b.add_task(j, "a", 2.0, None).unwrap();
    let c = b.add_task(j, "c", 4.0, None).unwrap();
    b.add_edge(a, c, 6.0e9).unwrap();
    let s = b.build().unwrap().stats(1.0e9).unwrap();
    // mean comm = 6 s on 1 edge, mean comp = 3 s over 2 tasks -> CCR 2.
    assert_eq!(
        (s.tasks, s.edges, s.jobs, s.depth, s.width),
        (2, 1, 1, 2, 1)
    );
    assert_eq!((s.total_work, s.critical_path_work, s.ccr), (6.0, 6.0, 2.0));
    assert!(matches!(
        topcuoglu().stats(0.0),
        Err(DagError::InvalidParameter {
            name: "bandwidth",
            ..
        })
    ));
}

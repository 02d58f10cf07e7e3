//! The gang post-pass (`generators::gangs`): exact fraction, GPU range, determinism per
//! seed, what is kept, and its refusals.

use std::collections::BTreeSet;
use worl_dag::generators::gangs::{GangAssignment, GangWork, assign};
use worl_dag::generators::layered::{LayeredParams, layered};
use worl_dag::generators::shapes;
use worl_dag::{DagError, GangParams, Span, Workload};

/// (task index, gpus) of the gang tasks.
fn gangs(w: &Workload) -> Vec<(usize, u32)> {
    w.graph()
        .tasks()
        .filter(|(_, t)| t.is_gang())
        .map(|(v, t)| (v.index(), t.gpus))
        .collect()
}

#[test]
fn the_fraction_is_exact_and_counts_in_range() {
    let w = layered(&LayeredParams::new(1000), 3).unwrap();
    // round(f * 1000): 0.2 -> 200, 0.0005 -> 1 (0.5 rounds away from 0), 0.0004 -> 0, 1 -> all.
    for (fraction, k) in [(0.2, 200), (0.0005, 1), (0.0004, 0), (1.0, 1000), (0.0, 0)] {
        let g = assign(&w, fraction, 2..=8, Span::Machine, 11).unwrap();
        let drawn = gangs(&g);
        assert_eq!(drawn.len(), k, "fraction {fraction}");
        assert!(drawn.iter().all(|&(_, n)| (2..=8).contains(&n)));
    }
    // 100,000 tasks, 20 % of 2..=8: every count drawn, near-uniform (each of the 7 values
    // expects 20000/7 = 2857; a binomial standard deviation is about 49).
    let w = shapes::wide(100_000, 10.0).unwrap();
    let g = assign(&w, 0.2, 2..=8, Span::Cluster, 5).unwrap();
    let drawn = gangs(&g);
    assert_eq!(drawn.len(), 20_000);
    let mut hist = [0usize; 9];
    for &(_, n) in &drawn {
        hist[n as usize] += 1;
    }
    assert_eq!((hist[0], hist[1]), (0, 0));
    for (n, &c) in hist.iter().enumerate().skip(2) {
        assert!(
            (2857 - 300..=2857 + 300).contains(&c),
            "{n} GPUs drawn {c} times"
        );
    }
    assert!(
        g.graph()
            .tasks()
            .all(|(_, t)| !t.is_gang() || t.gang.span == Span::Cluster)
    );
    // A single-valued range.
    let g = assign(&w, 0.01, 4..=4, Span::Machine, 1).unwrap();
    assert!(gangs(&g).iter().all(|&(_, n)| n == 4));
}

#[test]
fn draws_are_reproducible_per_seed_and_differ_between_seeds() {
    let w = layered(&LayeredParams::new(500), 9).unwrap();
    let a = assign(&w, 0.3, 2..=16, Span::Machine, 42).unwrap();
    assert_eq!(a, assign(&w, 0.3, 2..=16, Span::Machine, 42).unwrap());
    let b = assign(&w, 0.3, 2..=16, Span::Machine, 43).unwrap();
    assert_ne!(gangs(&a), gangs(&b));
    // The chosen sets differ too, not only the counts.
    let set = |w: &Workload| gangs(w).into_iter().map(|g| g.0).collect::<BTreeSet<_>>();
    assert_ne!(set(&a), set(&b));
}

#[test]
fn everything_but_the_drawn_demands_is_kept() {
    let w = layered(&LayeredParams::new(200), 4).unwrap();
    let p = GangParams {
        span: Span::Cluster,
        efficiency: 0.8,
        sync_bytes: 1e8,
        sync_steps: 50.0,
    };
    let g = GangAssignment::new(0.25, 2..=4, Span::Cluster)
        .params(p)
        .seed(3)
        .apply(&w)
        .unwrap();
    assert_eq!(g.name(), w.name());
    assert_eq!(g.jobs(), w.jobs());
    let (a, b) = (w.graph(), g.graph());
    assert_eq!(a.edges().collect::<Vec<_>>(), b.edges().collect::<Vec<_>>());
    for (v, t) in a.tasks() {
        let u = b.task(v);
        assert_eq!(
            (&u.name, u.job, u.work, u.mem_gib),
            (&t.name, t.job, t.work, t.mem_gib)
        );
        if u.is_gang() {
            assert_eq!(u.gang, p);
        } else {
            assert_eq!((u.gpus, u.gang), (1, GangParams::default()));
        }
    }
    assert_eq!(gangs(&g).len(), 50);
    // ScaleByGpus multiplies the drawn tasks' work by their GPUs.
    let s = GangAssignment::new(0.25, 2..=4, Span::Cluster)
        .params(p)
        .seed(3)
        .work(GangWork::ScaleByGpus)
        .apply(&w)
        .unwrap();
    for (v, t) in s.graph().tasks() {
        assert_eq!(t.work, a.task(v).work * f64::from(t.gpus));
    }
    assert_eq!(gangs(&s), gangs(&g));
    // A second pass keeps the first pass's gangs on the tasks it does not draw.
    let twice = assign(&g, 0.0, 2..=2, Span::Machine, 0).unwrap();
    assert_eq!(twice, g);
}

#[test]
fn bad_configurations_are_refused_naming_the_parameter() {
    let w = shapes::wide(10, 1.0).unwrap();
    let name = |c: GangAssignment| match c.apply(&w) {
        Err(DagError::InvalidParameter { name, .. }) => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    };
    assert_eq!(
        name(GangAssignment::new(1.5, 2..=8, Span::Machine)),
        "fraction"
    );
    assert_eq!(
        name(GangAssignment::new(f64::NAN, 2..=8, Span::Machine)),
        "fraction"
    );
    assert_eq!(
        name(GangAssignment::new(0.5, 1..=8, Span::Machine)),
        "min_gpus"
    );
    let reversed = GangAssignment {
        max_gpus: 2,
        ..GangAssignment::new(0.5, 8..=8, Span::Machine)
    };
    assert_eq!(name(reversed), "max_gpus");
    assert_eq!(
        name(GangAssignment::new(0.5, 2..=5000, Span::Machine)),
        "max_gpus"
    );
    let p = GangParams {
        efficiency: 0.0,
        ..GangParams::default()
    };
    assert_eq!(
        name(GangAssignment::new(0.5, 2..=8, Span::Machine).params(p)),
        "params"
    );
}

//! The DAGGEN generator: level widths and edge structure follow DAGGEN's rules (hand-derived
//! bounds), it is reproducible, rejects bad parameters by name, and round-trips through DOT.

use worl_dag::formats::dot;
use worl_dag::generators::daggen::{DaggenParams, generate, level_widths};
use worl_dag::{DagError, TaskId, Workload};

/// The level of every task (tasks are numbered in level order).
fn levels_of(widths: &[usize]) -> Vec<usize> {
    widths
        .iter()
        .enumerate()
        .flat_map(|(l, &w)| std::iter::repeat_n(l, w))
        .collect()
}

fn parents(w: &Workload, v: usize) -> usize {
    w.graph().preds(TaskId::new(v)).len()
}

/// Checks the structure every DAGGEN DAG has: `n` tasks in the drawn levels, no parent in
/// the first level, at least one parent elsewhere, at most `|L_{i-1}|` parents, edges going
/// down at most `jump` levels. Returns the levels spanned by each edge.
fn check_structure(c: &DaggenParams) -> (Vec<usize>, Vec<usize>) {
    let w = generate(c).unwrap();
    let widths = level_widths(c).unwrap();
    assert_eq!(widths.iter().sum::<usize>(), c.n);
    assert_eq!(w.graph().n_tasks(), c.n);
    let level = levels_of(&widths);
    for v in 0..c.n {
        let p = parents(&w, v);
        if level[v] == 0 {
            assert_eq!(p, 0, "task {v} of the first level");
        } else {
            assert!(p >= 1, "task {v} has no parent");
            assert!(
                p <= widths[level[v] - 1].max(1) * c.jump,
                "task {v}: {p} parents"
            );
        }
    }
    let spans: Vec<usize> = w
        .graph()
        .edges()
        .map(|e| {
            let (a, b) = (level[e.from.index()], level[e.to.index()]);
            assert!(a < b, "edge {e:?} goes up");
            b - a
        })
        .collect();
    assert!(spans.iter().all(|&s| s <= c.jump), "{spans:?}");
    (widths, spans)
}

#[test]
fn thin_dags_have_levels_of_one_or_two_tasks() {
    // ⌊100^0.2⌋ = ⌊2.51⌋ = 2; regularity 0.9: widths ⌊2 · [0.9, 1.1)⌋ ∈ {1, 2}, each half the
    // time, so about 100 / 1.5 ≈ 67 levels (between 50 and 100 always).
    let mut total = 0;
    for seed in 0..10 {
        let c = DaggenParams {
            fat: 0.2,
            ..DaggenParams::new(100, seed)
        };
        assert_eq!(c.ideal_width(), 2);
        let (widths, _) = check_structure(&c);
        assert!(widths.iter().all(|&w| w == 1 || w == 2), "{widths:?}");
        assert!((55..=80).contains(&widths.len()), "{} levels", widths.len());
        total += widths.len();
    }
    let mean = total as f64 / 10.0;
    assert!((60.0..=74.0).contains(&mean), "mean {mean} levels");
}

#[test]
fn fat_dags_have_three_wide_levels() {
    // ⌊100^0.8⌋ = ⌊39.8⌋ = 39; widths ⌊39 · [0.9, 1.1)⌋ ∈ [35, 42]: two levels hold at most
    // 84 < 100 tasks and three at least 105, so exactly three levels, the last one cut.
    for seed in 0..10 {
        let c = DaggenParams {
            fat: 0.8,
            ..DaggenParams::new(100, seed)
        };
        assert_eq!(c.ideal_width(), 39);
        let (widths, _) = check_structure(&c);
        assert_eq!(widths.len(), 3, "{widths:?}");
        assert!(
            widths[..2].iter().all(|w| (35..=42).contains(w)),
            "{widths:?}"
        );
        assert_eq!(widths[2], 100 - widths[0] - widths[1]);
    }
}

#[test]
fn regular_widths_are_exact_and_extreme_fat_gives_chain_or_independent_tasks() {
    let c = DaggenParams {
        regularity: 1.0,
        fat: 0.5,
        ..DaggenParams::new(100, 3)
    };
    assert_eq!(level_widths(&c).unwrap(), vec![10; 10]);
    // fat = 0: one task per level, one parent each: a chain.
    let chain = generate(&DaggenParams {
        fat: 0.0,
        ..DaggenParams::new(20, 1)
    })
    .unwrap();
    let edges: Vec<(usize, usize)> = chain
        .graph()
        .edges()
        .map(|e| (e.from.index(), e.to.index()))
        .collect();
    assert_eq!(edges, (0..19).map(|i| (i, i + 1)).collect::<Vec<_>>());
    // fat = 1: one level of independent tasks.
    let flat = generate(&DaggenParams {
        fat: 1.0,
        regularity: 1.0,
        ..DaggenParams::new(20, 1)
    })
    .unwrap();
    assert_eq!(flat.graph().n_edges(), 0);
}

#[test]
fn jump_one_links_consecutive_levels_only_and_larger_jumps_skip() {
    for seed in 0..5 {
        let c = DaggenParams {
            fat: 0.4,
            density: 0.8,
            regularity: 0.3,
            ..DaggenParams::new(120, seed)
        };
        let (_, spans) = check_structure(&c);
        assert!(spans.iter().all(|&s| s == 1));
    }
    let mut skipped = 0;
    for seed in 0..5 {
        let c = DaggenParams {
            fat: 0.4,
            density: 0.8,
            jump: 3,
            ..DaggenParams::new(120, seed)
        };
        let (_, spans) = check_structure(&c);
        skipped += spans.iter().filter(|&&s| s > 1).count();
        assert!(spans.contains(&3), "seed {seed}: {spans:?}");
    }
    assert!(skipped > 50, "{skipped} edges skip a level");
}

#[test]
fn density_zero_gives_exactly_one_parent_and_density_one_many() {
    let c = DaggenParams {
        density: 0.0,
        jump: 2,
        ..DaggenParams::new(150, 4)
    };
    let w = generate(&c).unwrap();
    let first = level_widths(&c).unwrap()[0];
    for v in 0..c.n {
        assert_eq!(parents(&w, v), usize::from(v >= first), "task {v}");
    }
    assert_eq!(w.graph().n_edges(), c.n - first);
    // density = 1: each task draws 1 + ⌊U[0, |L|)⌋ parents, about (|L| + 1) / 2 on average.
    let c = DaggenParams {
        density: 1.0,
        regularity: 1.0,
        ..DaggenParams::new(100, 4)
    };
    let w = generate(&c).unwrap();
    let mean = w.graph().n_edges() as f64 / 90.0; // 10 levels of 10
    assert!((4.5..=6.5).contains(&mean), "{mean} parents per task");
}

#[test]
fn data_sizes_and_ccr() {
    let c = DaggenParams {
        data_min: 1000.0,
        data_max: 2000.0,
        ..DaggenParams::new(60, 2)
    };
    let w = generate(&c).unwrap();
    for v in w.graph().task_ids() {
        let out: Vec<f64> = w.graph().succs(v).iter().map(|s| s.bytes).collect();
        assert!(out.iter().all(|&b| (1000.0..=2000.0).contains(&b)));
        assert!(out.windows(2).all(|p| p[0] == p[1]), "one output per task");
    }
    for t in w.graph().tasks().map(|(_, t)| t.work) {
        assert!((1.0..=100.0).contains(&t));
    }
    let c = DaggenParams {
        ccr: Some(5.0),
        bandwidth: 62.5e6,
        ..DaggenParams::new(60, 2)
    };
    let ccr = generate(&c).unwrap().graph().ccr(62.5e6).unwrap();
    assert!((ccr - 5.0).abs() < 1e-9, "{ccr}");
}

#[test]
fn same_seed_same_dag_and_one_task_works() {
    let c = DaggenParams {
        jump: 2,
        ..DaggenParams::new(80, 11)
    };
    assert_eq!(generate(&c).unwrap(), generate(&c).unwrap());
    let other = generate(&DaggenParams {
        seed: 12,
        ..c.clone()
    })
    .unwrap();
    assert_ne!(generate(&c).unwrap(), other);
    let one = generate(&DaggenParams::new(1, 0)).unwrap();
    assert_eq!((one.graph().n_tasks(), one.graph().n_edges()), (1, 0));
    assert_eq!(level_widths(&DaggenParams::new(1, 0)).unwrap(), vec![1]);
    // Serde: the defaults fill what a file leaves out.
    let back: DaggenParams = serde_json::from_str(r#"{"n": 80, "seed": 11, "jump": 2}"#).unwrap();
    assert_eq!(back, c);
}

#[test]
fn bad_parameters_are_errors_naming_the_parameter() {
    let d = DaggenParams::default();
    let cases: Vec<(&str, DaggenParams)> = vec![
        ("n", DaggenParams { n: 0, ..d.clone() }),
        (
            "fat",
            DaggenParams {
                fat: 1.5,
                ..d.clone()
            },
        ),
        (
            "fat",
            DaggenParams {
                fat: f64::NAN,
                ..d.clone()
            },
        ),
        (
            "density",
            DaggenParams {
                density: -0.1,
                ..d.clone()
            },
        ),
        (
            "regularity",
            DaggenParams {
                regularity: 2.0,
                ..d.clone()
            },
        ),
        (
            "jump",
            DaggenParams {
                jump: 0,
                ..d.clone()
            },
        ),
        (
            "ccr",
            DaggenParams {
                ccr: Some(-1.0),
                ..d.clone()
            },
        ),
        (
            "bandwidth",
            DaggenParams {
                bandwidth: 0.0,
                ..d.clone()
            },
        ),
        (
            "data_min",
            DaggenParams {
                data_min: -1.0,
                ..d.clone()
            },
        ),
        (
            "data_max",
            DaggenParams {
                data_max: 1.0,
                ..d.clone()
            },
        ),
        (
            "data_max",
            DaggenParams {
                data_max: f64::INFINITY,
                ..d.clone()
            },
        ),
    ];
    for (name, c) in cases {
        match generate(&c) {
            Err(DagError::InvalidParameter { name: got, .. }) => assert_eq!(got, name),
            other => panic!("{name}: {other:?}"),
        }
        assert!(level_widths(&c).is_err(), "{name}");
    }
}

#[test]
fn dot_export_round_trips() {
    let c = DaggenParams {
        fat: 0.4,
        jump: 2,
        ..DaggenParams::new(40, 5)
    };
    let w = generate(&c).unwrap();
    let text = dot::to_dot(&w);
    let (back, _) = dot::read(text.as_bytes(), "daggen.dot", &dot::DotOptions::default()).unwrap();
    assert_eq!(back.graph().n_tasks(), w.graph().n_tasks());
    let edges = |w: &Workload| -> Vec<(usize, usize, f64)> {
        w.graph()
            .edges()
            .map(|e| (e.from.index(), e.to.index(), e.bytes))
            .collect()
    };
    assert_eq!(edges(&back), edges(&w));
    for ((_, a), (_, b)) in back.graph().tasks().zip(w.graph().tasks()) {
        assert_eq!((&a.name, a.work), (&b.name, b.work));
    }
}

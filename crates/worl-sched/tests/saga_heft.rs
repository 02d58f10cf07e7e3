//! HEFT on a saga problem instance read by `worl_io::saga`, against a schedule
//! computed by hand.
//!
//! Instance `worl-io/tests/fixtures/saga/diamond3.json`: tasks A 8, B 4, C 12, D 8
//! (cost); A->B 4, A->C 8, B->D 8, C->D 4 (size); nodes n0, n1, n2 of speed 1, 2, 4
//! (GPUs g0, g1, g2); links n0-n1 1, n0-n2 2, n1-n2 4; latency 0.
//!
//! Execution times `cost / speed` on (g0, g1, g2):
//! A (8, 4, 2), B (4, 2, 1), C (12, 6, 3), D (8, 4, 2); means 14/3, 7/3, 7, 14/3.
//!
//! Mean communication cost (HEFT, Topcuoglu et al., IEEE TPDS 13(3), 2002; worl averages over
//! ordered pairs of distinct GPUs): `size · mean(1 / B)` = `size · (1 + 1/2 + 1/4) / 3` =
//! `size · 7/12`: A->B 7/3, A->C 14/3, B->D 14/3, C->D 7/3.
//!
//! Upward ranks `rank(v) = w̄(v) + max over successors s of (c̄(v, s) + rank(s))`:
//! * D = 14/3;
//! * B = 7/3 + 14/3 + 14/3 = 35/3;
//! * C = 7 + 7/3 + 14/3 = 14;
//! * A = 14/3 + max(7/3 + 35/3, 14/3 + 14) = 14/3 + 56/3 = 70/3.
//!
//! Order by decreasing rank: A (70/3), C (14), B (35/3), D (14/3).
//!
//! Earliest finish time with insertion (data-ready time = max over predecessors of finish +
//! `size / B`, 0 on the same GPU):
//! * A: EFT g0 8, g1 4, g2 2 → g2 [0, 2].
//! * C (from A on g2, 8): ready g0 2 + 8/2 = 6, g1 2 + 8/4 = 4, g2 2; EFT g0 18, g1 10,
//!   g2 2 + 3 = 5 → g2 [2, 5].
//! * B (from A on g2, 4): ready g0 2 + 4/2 = 4, g1 2 + 4/4 = 3, g2 2; EFT g0 8, g1 5, g2: no
//!   gap of 1 in [2, 5] (C), so 5 + 1 = 6 → g1 [3, 5].
//! * D (from B on g1, 8; C on g2, 4): ready g0 max(5 + 8/1, 5 + 4/2) = 13, g1 max(5,
//!   5 + 4/4) = 6, g2 max(5 + 8/4, 5) = 7; EFT g0 21, g1 10, g2 9 → g2 [7, 9].
//!
//! Makespan 9. (All four tasks on g2 would take 2 + 3 + 1 + 2 = 8: HEFT is not optimal
//! here, so this also tells HEFT from "fastest GPU".)

use std::path::PathBuf;
use std::sync::Arc;
use worl_cluster::{GpuId, Problem};
use worl_dag::TaskId;
use worl_io::saga;
use worl_sched::{Registry, RunContext};

#[test]
fn heft_on_the_saga_diamond_matches_the_hand_computed_schedule() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../worl-io/tests/fixtures/saga/diamond3.json");
    let (w, c) = saga::load(&path).unwrap();
    let p = Problem::new(Arc::new(w), Arc::new(c)).unwrap();
    let mut heft = Registry::with_builtins().build_spec("heft").unwrap();
    let s = heft.schedule(&p, &mut RunContext::new(0)).unwrap();
    assert!(s.validate(&p).is_empty(), "{:?}", s.validate(&p));
    let table: Vec<(usize, f64, f64)> = (0..4)
        .map(|v| {
            let st = s.task(TaskId::new(v));
            (st.gpu.index(), st.start, st.finish)
        })
        .collect();
    // A, B, C, D as (GPU, start, finish).
    assert_eq!(
        table,
        vec![(2, 0.0, 2.0), (1, 3.0, 5.0), (2, 2.0, 5.0), (2, 7.0, 9.0)]
    );
    assert_eq!(s.makespan(), 9.0);
    // The one-GPU schedule HEFT does not find is shorter.
    assert_eq!(
        (0..4)
            .map(|v| p.exec_time(TaskId::new(v), GpuId::new(2)))
            .sum::<f64>(),
        8.0
    );
}

//! Summaries, comparisons and the Friedman/Nemenyi statistics, on hand-made numbers and on
//! the worked example of Demšar (2006).

mod common;

use common::record;
use statrs::distribution::{Continuous, ContinuousCDF, Normal};
use worl_experiment::stats::{critical_difference, friedman, q_alpha, ranks};
use worl_experiment::{Alpha, GroupBy, RankTest, Results};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

/// a1, a2 in cell-a; b1 in cell-b; schedulers A and B with seeds 1 and 2.
fn hand_made() -> Results {
    let mut r = Vec::new();
    for (p, a, b) in [
        ("a1", [100.0, 110.0], [120.0, 120.0]),
        ("a2", [200.0, 220.0], [200.0, 200.0]),
        ("b1", [50.0, 50.0], [50.0, 50.0]),
    ] {
        for (i, seed) in [1u64, 2].into_iter().enumerate() {
            r.push(record(p, "A", seed, a[i]));
        }
        for (i, seed) in [1u64, 2].into_iter().enumerate() {
            r.push(record(p, "B", seed, b[i]));
        }
    }
    Results::from_records(r)
}

#[test]
fn summaries_of_hand_made_numbers() {
    let res = hand_made();
    assert_eq!(res.schedulers(), ["A", "B"]);
    assert_eq!(res.problems(), ["a1", "a2", "b1"]);
    let all = res.summaries(&GroupBy::All);
    assert_eq!(all.len(), 2);
    let a = &all[0];
    assert_eq!(
        (a.group.as_str(), a.scheduler.as_str(), a.problems, a.runs),
        ("all", "A", 3, 6)
    );
    // A: 100 110 200 220 50 50 -> sum 730, sum of squares 115500
    let mean = 730.0 / 6.0;
    let var: f64 = (115_500.0 - 730.0 * 730.0 / 6.0) / 5.0;
    assert!(close(a.makespan.mean, mean, 1e-12));
    assert!(close(a.makespan.std, var.sqrt(), 1e-9));
    assert!(close(a.makespan.cv, var.sqrt() / mean, 1e-12));
    assert_eq!((a.makespan.min, a.makespan.max), (50.0, 220.0));
    assert!(close(a.gap.mean, mean / 100.0, 1e-12));
    // wall time 0.001·seed, evaluations 10·seed
    assert!(close(a.wall_time_s.mean, 0.0015, 1e-15));
    assert_eq!(a.evaluations.mean, 15.0);

    let cells = res.summaries(&GroupBy::tag("cell"));
    let groups: Vec<(&str, &str, f64)> = cells
        .iter()
        .map(|s| (s.group.as_str(), s.scheduler.as_str(), s.makespan.mean))
        .collect();
    assert_eq!(
        groups,
        [
            ("cell-a", "A", 157.5),
            ("cell-a", "B", 160.0),
            ("cell-b", "A", 50.0),
            ("cell-b", "B", 50.0)
        ]
    );
    let per_problem = res.summaries(&GroupBy::Problem);
    assert_eq!(per_problem.len(), 6);
    assert_eq!(per_problem[0].makespan.std, (50.0f64).sqrt()); // 100, 110
    assert_eq!(per_problem[1].makespan.std, 0.0); // 120, 120
}

#[test]
fn improvement_and_wins_ties_losses_per_problem() {
    let res = hand_made();
    let c = res.compare("A", &GroupBy::tag("cell")).unwrap();
    assert_eq!(c.len(), 2);
    // cell-a: a1 A 105 vs B 120 -> +12.5 %; a2 A 210 vs B 200 -> -5 %
    assert_eq!(
        (c[0].group.as_str(), c[0].other.as_str(), c[0].problems),
        ("cell-a", "B", 2)
    );
    assert!(close(c[0].improvement_mean_pct, (12.5 - 5.0) / 2.0, 1e-12));
    assert!(close(c[0].improvement_max_pct, 12.5, 1e-12));
    assert_eq!((c[0].wins, c[0].ties, c[0].losses), (1, 0, 1));
    // cell-b: equal
    assert_eq!((c[1].wins, c[1].ties, c[1].losses), (0, 1, 0));
    assert_eq!(c[1].improvement_mean_pct, 0.0);
    // the other way round
    let c = res.compare("B", &GroupBy::All).unwrap();
    assert_eq!((c[0].wins, c[0].ties, c[0].losses), (1, 1, 1));
    assert!(res.compare("C", &GroupBy::All).is_err());
}

#[test]
fn rank_test_of_hand_made_numbers_and_incomplete_blocks() {
    let res = hand_made();
    // a1: A best; a2: B best; b1: tie -> both average 1.5: no difference at all
    let t = res.rank_test(&|_| true, Alpha::P05).unwrap();
    assert_eq!(t.friedman.average_ranks, vec![1.5, 1.5]);
    assert_eq!(t.block_names, ["a1", "a2", "b1"]);
    assert_eq!((t.friedman.chi2, t.friedman.f), (0.0, 0.0));
    assert!(close(t.friedman.chi2_p_value, 1.0, 1e-12));
    assert!(close(t.friedman.f_p_value, 1.0, 1e-12));
    assert!(!t.rejects_null());
    // one problem is not enough
    assert!(res.rank_test(&|r| r.problem == "a1", Alpha::P05).is_err());
    let per_cell = res.rank_tests(&GroupBy::tag("cell"), Alpha::P05);
    assert_eq!(per_cell.len(), 2);
    assert!(per_cell[0].1.is_ok() && per_cell[1].1.is_err());
    // a scheduler missing on a problem makes the blocks incomplete
    let mut recs = res.records().to_vec();
    recs.push(common::record("a1", "C", 1, 1.0));
    let err = Results::from_records(recs)
        .rank_test(&|_| true, Alpha::P05)
        .unwrap_err();
    assert!(
        err.to_string().contains("`C` has no run on problem `a2`"),
        "{err}"
    );
}

/// Demšar (2006), Table 6: AUC of C4.5, C4.5+m, C4.5+cf, C4.5+m+cf on 14 data sets (higher
/// is better), as printed with three decimals.
const TABLE6: [[f64; 4]; 14] = [
    [0.763, 0.768, 0.771, 0.798],
    [0.599, 0.591, 0.590, 0.569],
    [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657],
    [0.882, 0.888, 0.886, 0.898],
    [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685],
    [0.583, 0.583, 0.563, 0.625],
    [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000],
    [0.940, 0.962, 0.965, 0.962],
    [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.975, 0.975],
    [0.957, 0.978, 0.946, 0.970],
];

fn negated(table: &[[f64; 4]]) -> Vec<Vec<f64>> {
    table
        .iter()
        .map(|r| r.iter().map(|v| -v).collect())
        .collect()
}

#[test]
fn demsar_worked_example_friedman_iman_davenport_and_nemenyi() {
    // The paper ranks the `voting` row 4, 1, 2, 3: C4.5+cf is ahead of C4.5+m+cf in digits
    // the table does not print. With those ranks (break the printed tie accordingly):
    // average ranks 3.143, 2.000, 2.893, 1.964, χ²_F = 9.28, F_F = 3.69 (§3.2.2).
    let mut t6 = TABLE6;
    t6[12][2] = 0.9751;
    let blocks = negated(&t6);
    assert_eq!(ranks(&blocks[12]), vec![4.0, 1.0, 2.0, 3.0]);
    let f = friedman(&blocks).unwrap();
    let expect = [44.0 / 14.0, 28.0 / 14.0, 40.5 / 14.0, 27.5 / 14.0];
    for (got, want) in f.average_ranks.iter().zip(expect) {
        assert!(close(*got, want, 1e-12), "{got} vs {want}");
    }
    for (got, printed) in f.average_ranks.iter().zip([3.143, 2.000, 2.893, 1.964]) {
        assert!(close(*got, printed, 5e-4));
    }
    // χ²_F = 12·14/(4·5) · (Σ R² − 4·25/4) = 8.4 · (26.104592 − 25)
    assert!(close(f.chi2, 9.278_571_428_571, 1e-9), "{}", f.chi2);
    assert!(close(f.f, 13.0 * f.chi2 / (42.0 - f.chi2), 1e-12));
    assert!(close(f.f, 3.686_313, 1e-6), "{}", f.f);
    assert_eq!(f.f_df, (3.0, 39.0));
    // p-values: χ²(3) survival 2(1 − Φ(√x)) + √(2x/π)·e^(−x/2) = 0.025807; F(3, 39) 0.019823
    // (numerical integration of the F density); the paper: F_F > F(3, 39) critical 2.85
    assert!(
        close(f.chi2_p_value, 0.025_807_5, 1e-6),
        "{}",
        f.chi2_p_value
    );
    assert!(close(f.f_p_value, 0.019_823, 1e-5), "{}", f.f_p_value);

    let names: Vec<String> = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
        .map(String::from)
        .to_vec();
    let t05 = RankTest::new(names.clone(), vec![], &blocks, Alpha::P05).unwrap();
    // CD = 2.569 · √(4·5/(6·14)) = 1.25
    assert!(close(
        t05.cd.unwrap(),
        2.569 * (20.0f64 / 84.0).sqrt(),
        1e-12
    ));
    assert!(close(t05.cd.unwrap(), 1.25, 5e-3));
    assert!(t05.rejects_null());
    // "the difference between the best and the worst ... (3.143 − 1.964 = 1.179) is smaller
    // than CD": no pair differs at α = 0.05
    assert!((0..4).all(|i| (0..4).all(|j| !t05.significant(i, j))));
    assert_eq!(t05.cliques(), vec![(0, 3)]);
    // α = 0.10: CD = 2.291 · 0.488 = 1.12; C4.5 is worse than C4.5+m and C4.5+m+cf
    let t10 = RankTest::new(names, vec![], &blocks, Alpha::P10).unwrap();
    assert!(close(t10.cd.unwrap(), 1.118, 1e-3));
    assert!(t10.significant(0, 1) && t10.significant(0, 3));
    assert!(!t10.significant(0, 2) && !t10.significant(1, 3) && !t10.significant(2, 3));
    // order: m+cf (1.964), m (2.0), cf (2.893), C4.5 (3.143); bars {m+cf, m, cf}, {cf, C4.5}
    assert_eq!(t10.order(), vec![3, 1, 2, 0]);
    assert_eq!(t10.cliques(), vec![(0, 2), (2, 3)]);
    assert_eq!(t10.rank_of("C4.5+m"), Some(2.0));
}

#[test]
fn demsar_table_as_printed_gives_average_ranks_with_the_printed_ties() {
    // With the three printed decimals, `voting` ties C4.5+cf and C4.5+m+cf (2.5 each):
    // ranks 44/14, 28/14, 41/14, 27/14; χ²_F = 8.4 · (5130/196 − 25) = 9.857; F_F = 3.987
    let f = friedman(&negated(&TABLE6)).unwrap();
    let expect = [44.0 / 14.0, 2.0, 41.0 / 14.0, 27.0 / 14.0];
    for (got, want) in f.average_ranks.iter().zip(expect) {
        assert!(close(*got, want, 1e-12));
    }
    assert!(close(f.chi2, 8.4 * (5130.0 / 196.0 - 25.0), 1e-9));
    assert!(close(f.f, 13.0 * f.chi2 / (42.0 - f.chi2), 1e-12));
    assert!(close(f.f, 3.986_667, 1e-6));
}

/// P(range of k standard normals ≤ q) = k ∫ φ(z) (Φ(z + q) − Φ(z))^(k−1) dz (Simpson).
fn range_cdf(q: f64, k: usize, n: &Normal) -> f64 {
    let (a, b, steps) = (-9.0, 9.0, 3000);
    let h = (b - a) / steps as f64;
    let mut s = 0.0;
    for i in 0..=steps {
        let z = a + i as f64 * h;
        let w = if i == 0 || i == steps {
            1.0
        } else if i % 2 == 1 {
            4.0
        } else {
            2.0
        };
        s += w * n.pdf(z) * (n.cdf(z + q) - n.cdf(z)).powi(k as i32 - 1);
    }
    k as f64 * s * h / 3.0
}

#[test]
fn q_alpha_table_is_the_studentized_range_quantile_over_sqrt2() {
    let n = Normal::new(0.0, 1.0).unwrap();
    for (alpha, a) in [(Alpha::P05, 0.05), (Alpha::P10, 0.10)] {
        for k in 2..=20 {
            let (mut lo, mut hi) = (0.0, 10.0);
            for _ in 0..45 {
                let mid = 0.5 * (lo + hi);
                if range_cdf(mid, k, &n) < 1.0 - a {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let q = 0.5 * (lo + hi) / std::f64::consts::SQRT_2;
            let table = q_alpha(k, alpha).unwrap();
            // Demšar's entries (k <= 10) come from 3-decimal tables of q: within 1e-3
            assert!(
                close(table, q, 1e-3),
                "k = {k}, α = {a}: table {table}, computed {q}"
            );
        }
    }
    assert_eq!(q_alpha(1, Alpha::P05), None);
    assert_eq!(q_alpha(21, Alpha::P10), None);
    assert_eq!(critical_difference(4, 0, Alpha::P05), None);
    // the WORL-RTGS paper's CD = 1.260 for k = 6 at α = 0.05 implies N ≈ 36
    let cd = critical_difference(6, 36, Alpha::P05).unwrap();
    assert!(close(cd, 1.2567, 1e-4), "{cd}");
}

#[test]
fn friedman_needs_two_algorithms_and_two_blocks_and_no_nan() {
    assert!(friedman(&[vec![1.0, 2.0]]).is_err());
    assert!(friedman(&[vec![1.0], vec![2.0]]).is_err());
    assert!(friedman(&[vec![1.0, 2.0], vec![1.0]]).is_err());
    assert!(friedman(&[vec![1.0, f64::NAN], vec![1.0, 2.0]]).is_err());
    assert!(friedman(&[]).is_err());
}

#[test]
fn default_reference_prefers_hybrids_then_the_smallest_gap() {
    // no WORL-RTGS or RTGS: A (mean gap 1.2167) beats B (1.2333)
    assert_eq!(hand_made().default_reference().as_deref(), Some("A"));
    let mut recs = hand_made().records().to_vec();
    recs.push(record("a1", "RTGS", 1, 500.0));
    assert_eq!(
        Results::from_records(recs.clone())
            .default_reference()
            .as_deref(),
        Some("RTGS")
    );
    recs.push(record("a1", "WORL-RTGS", 1, 900.0));
    assert_eq!(
        Results::from_records(recs).default_reference().as_deref(),
        Some("WORL-RTGS")
    );
    assert_eq!(Results::default().default_reference(), None);
}

#[test]
fn all_registered_lists_hybrids_first_then_alphabetically() {
    use worl_experiment::spec::all_registered;
    let mut reg = worl_sched::Registry::new();
    for name in ["zeta", "rtgs", "alpha", "worl-rtgs"] {
        reg.register(name, "test", |_| Ok(Box::new(common::Eft)));
    }
    let specs: Vec<String> = all_registered(&reg).iter().map(|s| s.to_string()).collect();
    assert_eq!(specs, ["worl-rtgs", "rtgs", "alpha", "zeta"]);
}

#[test]
fn ties_are_within_one_part_per_million() {
    use worl_experiment::stats::{TIE_TOLERANCE, ties};
    assert_eq!(TIE_TOLERANCE, 1e-6);
    // both at the lower bound along different floating-point paths (differences seen:
    // 1.8e-8 and 1.3e-9 relative): a tie, in ranks and in wins/ties/losses
    assert!(ties(1000.0, 1000.0 * (1.0 + 1.8e-8)));
    assert!(!ties(1000.0, 1000.0 * (1.0 + 2e-6)));
    let res = Results::from_records(vec![
        record("p1", "A", 1, 1000.0),
        record("p1", "B", 1, 1000.0 * (1.0 + 1.8e-8)),
        record("p2", "A", 1, 500.0),
        record("p2", "B", 1, 500.0 * (1.0 + 1.3e-9)),
    ]);
    let c = res.compare("A", &GroupBy::All).unwrap();
    assert_eq!((c[0].wins, c[0].ties, c[0].losses), (0, 2, 0));
    let t = res.rank_test(&|_| true, Alpha::P05).unwrap();
    assert_eq!(t.friedman.average_ranks, vec![1.5, 1.5]);
}

#[test]
fn variants_of_one_workload_form_one_block() {
    use std::collections::BTreeMap;
    let rec = |problem: &str, block: &str, s: &str, makespan: f64| {
        let mut r = record(problem, s, 1, makespan);
        r.tags = BTreeMap::from([("block".to_owned(), block.to_owned())]);
        r
    };
    // montage idle/busy are one block; A: √(100·400) = 200, B: √(110·300) = 181.66
    let res = Results::from_records(vec![
        rec("montage (idle)", "montage", "A", 100.0),
        rec("montage (idle)", "montage", "B", 110.0),
        rec("montage (busy)", "montage", "A", 400.0),
        rec("montage (busy)", "montage", "B", 300.0),
        rec("epigenomics (idle)", "epigenomics", "A", 50.0),
        rec("epigenomics (idle)", "epigenomics", "B", 60.0),
    ]);
    let (names, blocks) = res.blocks(&|_| true).unwrap();
    assert_eq!(names, ["montage", "epigenomics"]);
    assert!(close(blocks[0][0], 200.0, 1e-12));
    assert!(close(blocks[0][1], (110.0f64 * 300.0).sqrt(), 1e-12));
    assert_eq!(blocks[1], [50.0, 60.0]);
    assert_eq!(res.n_blocks(&|_| true), 2);
    let t = res.rank_test(&|_| true, Alpha::P05).unwrap();
    assert_eq!(t.friedman.blocks, 2);
    assert_eq!(t.friedman.average_ranks, vec![1.5, 1.5]);
}

#[test]
fn one_scheduler_or_one_block_reports_without_the_friedman_test() {
    let one_scheduler = Results::from_records(vec![
        record("p1", "HEFT", 1, 10.0),
        record("p2", "HEFT", 1, 20.0),
    ]);
    let note = one_scheduler.rank_test_note(&|_| true).unwrap();
    assert!(note.contains("1 scheduler(s) and 2 block(s)"), "{note}");
    // the tables still work
    assert_eq!(one_scheduler.summaries(&GroupBy::All).len(), 1);
    let t = one_scheduler.normalised(Some("HEFT")).unwrap();
    assert_eq!(t.geomean_to_baseline(0), Some(1.0));
    let one_problem =
        Results::from_records(vec![record("p1", "A", 1, 10.0), record("p1", "B", 1, 20.0)]);
    assert!(one_problem.rank_test_note(&|_| true).is_some());
    let two = Results::from_records(vec![
        record("p1", "A", 1, 10.0),
        record("p1", "B", 1, 20.0),
        record("p2", "A", 1, 10.0),
        record("p2", "B", 1, 20.0),
    ]);
    assert_eq!(two.rank_test_note(&|_| true), None);
}

#[test]
fn makespans_are_summarised_across_problems_by_ratios_to_heft_and_the_best() {
    // two problems of scales 10 and 1000: X is 20 % better on one, 25 % worse on the other
    let res = Results::from_records(vec![
        record("small", "HEFT", 1, 10.0),
        record("small", "X", 1, 8.0),
        record("large", "HEFT", 1, 1000.0),
        record("large", "X", 1, 1250.0),
    ]);
    assert_eq!(res.default_baseline().as_deref(), Some("HEFT"));
    let t = res.normalised(res.default_baseline().as_deref()).unwrap();
    assert_eq!(t.rows[0].to_baseline(1), Some(0.8));
    assert_eq!(t.rows[1].to_baseline(1), Some(1.25));
    assert!(close(t.geomean_to_baseline(1).unwrap(), 1.0, 1e-15));
    assert!(close(t.geomean_to_best(0).unwrap(), 1.25f64.sqrt(), 1e-15));
    let s = res.summaries(&GroupBy::All);
    let x = s.iter().find(|s| s.scheduler == "X").unwrap();
    assert!(close(x.to_baseline.unwrap(), 1.0, 1e-15));
    assert!(close(x.to_best, 1.25f64.sqrt(), 1e-15));
    assert!(res.normalised(Some("nobody")).is_err());
}

//! Reports: CSV and JSON round trips, Markdown tables, SVG plots.

mod common;

use common::{Eft, OneGpu, RandomSearch, record, small_set};
use std::sync::Arc;
use worl_cluster::{Problem, presets};
use worl_dag::generators::layered::{LayeredParams, layered};
use worl_experiment::ExperimentError;
use worl_experiment::plot::{self, CurveAxis};
use worl_experiment::{
    Alpha, Experiment, GroupBy, KeepSchedules, Metric, NamedProblem, Results, RunRecord,
    SchedulerSpec, report,
};

fn results() -> Results {
    let mut set = small_set();
    // a third problem without the `shape` tag but with another one
    let w = Arc::new(layered(&LayeredParams::new(40), 3).unwrap());
    let c = Arc::new(presets::pai_mix(4, 2).unwrap());
    set.push(NamedProblem::new("layered, 40", Problem::new(w, c).unwrap()).tag("size", 40))
        .unwrap();
    Experiment::new(set)
        .scheduler(SchedulerSpec::factory("one-gpu", || Ok(Box::new(OneGpu))))
        .scheduler(SchedulerSpec::factory("eft", || Ok(Box::new(Eft))))
        .scheduler(SchedulerSpec::factory("random-search", || {
            Ok(Box::new(RandomSearch { iterations: 30 }))
        }))
        .seeds([1, 2])
        .keep_schedules(KeepSchedules::BestPerProblem)
        .quiet(true)
        .run()
        .unwrap()
}

fn without_curves(rs: &[RunRecord]) -> Vec<RunRecord> {
    rs.iter()
        .cloned()
        .map(|mut r| {
            r.convergence.clear();
            r
        })
        .collect()
}

#[test]
fn csv_round_trip_is_exact_and_tags_become_columns() {
    let res = results();
    let mut buf = Vec::new();
    res.write_csv_to(&mut buf).unwrap();
    let text = String::from_utf8(buf.clone()).unwrap();
    let header = text.lines().next().unwrap();
    assert!(header.starts_with("problem,scheduler,seed,stochastic,tasks,gpus,makespan,"));
    assert!(header.ends_with(",tag:shape,tag:size"), "{header}");
    assert_eq!(text.lines().count(), 1 + res.records().len());
    assert!(
        text.contains("\"layered, 40\""),
        "the comma in a name is quoted"
    );
    let back = Results::read_csv_from(buf.as_slice(), "mem.csv").unwrap();
    assert_eq!(back.records(), without_curves(res.records()).as_slice());
    assert_eq!(back.schedulers(), res.schedulers());

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/runs.csv");
    res.write_csv(&path).unwrap();
    assert_eq!(Results::read_csv(&path).unwrap().records(), back.records());
}

#[test]
fn csv_errors_name_the_column_and_line() {
    let e = Results::read_csv_from("problem,scheduler\nx,y\n".as_bytes(), "bad.csv").unwrap_err();
    assert!(matches!(e, ExperimentError::Csv { .. }));
    assert!(e.to_string().contains("no column `seed`"), "{e}");
    let mut buf = Vec::new();
    Results::from_records(vec![record("a1", "A", 1, 12.5)])
        .write_csv_to(&mut buf)
        .unwrap();
    let text = String::from_utf8(buf).unwrap().replace(",12.5,", ",ten,");
    let e = Results::read_csv_from(text.as_bytes(), "bad.csv").unwrap_err();
    assert!(
        e.to_string().contains("line 2: column `makespan`: `ten`"),
        "{e}"
    );
    assert!(matches!(
        Results::read_csv("/nonexistent/dir/x.csv"),
        Err(ExperimentError::Io { .. })
    ));
}

#[test]
fn json_round_trip_keeps_curves() {
    let res = results();
    let json = res.to_json().unwrap();
    let back = Results::from_json(&json).unwrap();
    assert_eq!(back.records(), res.records());
    assert!(back.records().iter().any(|r| r.convergence.len() == 30));
    assert!(back.schedule(0).is_none(), "schedules are not serialised");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("r.json");
    res.write_json(&p).unwrap();
    assert_eq!(
        Results::from_json(&std::fs::read_to_string(&p).unwrap())
            .unwrap()
            .records(),
        res.records()
    );
    let curves = dir.path().join("curves.csv");
    res.write_convergence_csv(&curves).unwrap();
    let n_points: usize = res.records().iter().map(|r| r.convergence.len()).sum();
    assert_eq!(
        std::fs::read_to_string(&curves).unwrap().lines().count(),
        1 + n_points
    );
    let sums = dir.path().join("summaries.csv");
    report::write_summaries_csv(&sums, &res.summaries(&GroupBy::Problem)).unwrap();
    let text = std::fs::read_to_string(&sums).unwrap();
    assert_eq!(text.lines().count(), 1 + 3 * 3);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains(",to_best,baseline,to_baseline,")
    );
    // long format: 3 problems x 3 schedulers, the best of each problem at ratio 1
    let norm = dir.path().join("normalised.csv");
    let t = res.normalised(None).unwrap();
    report::write_normalised_csv(&norm, &t).unwrap();
    let text = std::fs::read_to_string(&norm).unwrap();
    assert_eq!(text.lines().count(), 1 + 3 * 3);
    assert_eq!(
        text.lines().next().unwrap(),
        "problem,scheduler,makespan_mean,best,to_best,baseline,to_baseline"
    );
    assert!(
        text.lines().filter(|l| l.contains(",1,,")).count() >= 3,
        "{text}"
    );
}

#[test]
fn markdown_tables_show_summaries_comparisons_and_ranks() {
    let mut recs = Vec::new();
    for (p, a, b) in [
        ("a1", 100.0, 120.0),
        ("a2", 210.0, 200.0),
        ("b1", 50.0, 50.0),
    ] {
        recs.push(record(p, "A", 1, a));
        recs.push(record(p, "B", 1, b));
    }
    let res = Results::from_records(recs);
    let md = report::markdown_table(&res, &GroupBy::tag("cell"), Some("A")).unwrap();
    assert!(
        md.contains("**cell-a**") && md.contains("**cell-b**"),
        "{md}"
    );
    assert!(md.contains("| A reduction | A W/T/L |"), "{md}");
    // cell-a: a1 +16.67 %, a2 -5 % -> mean +5.83 %; 1 win, 1 loss
    assert!(md.contains("| +5.83 % | 1/0/1 |"), "{md}");
    assert!(md.contains("| (reference) | |"), "{md}");
    // cell-a holds two problems of different scales: no raw mean there, only ratios
    // (A ÷ best: a1 1, a2 210/200 -> √1.05 = 1.0247; no HEFT: no baseline column value)
    assert!(md.contains("| ÷ best | ÷ baseline |"), "{md}");
    assert!(
        md.contains("| A | 2 | 2 | – | – | – | – | 1.0247 | – |"),
        "{md}"
    );
    // cell-b is one problem: its makespans are shown
    assert!(
        md.contains("| A | 1 | 1 | 50.00 ± 0.000 |") || md.contains("| A | 1 | 1 | 50"),
        "{md}"
    );
    assert!(report::markdown_table(&res, &GroupBy::All, Some("nobody")).is_err());
    let t = res.rank_test(&|_| true, Alpha::P05).unwrap();
    let md = report::markdown_rank_test(&t);
    assert!(md.contains("N = 3 problems, k = 2 schedulers"), "{md}");
    assert!(
        md.contains("CD = q_α·√(k(k+1)/6N) = 1.96·√(2·3/(6·3))"),
        "{md}"
    );
    assert!(
        md.contains("| 1 | A | 1.500 | yes |") || md.contains("| 1 | B | 1.500 | yes |"),
        "{md}"
    );
}

fn assert_svg(path: &std::path::Path, needles: &[&str]) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        text.len() > 500,
        "{} is {} bytes",
        path.display(),
        text.len()
    );
    assert!(text.trim_start().starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    for n in needles {
        assert!(text.contains(n), "{} lacks `{n}`", path.display());
    }
}

#[test]
fn plots_are_written_as_svg_files() {
    let res = results();
    let dir = tempfile::tempdir().unwrap();
    let set = small_set();
    let fork = set.get("fork").unwrap();
    let (_, schedule) = res.best_schedule("fork").unwrap();
    let gantt = dir.path().join("a/gantt.svg");
    plot::gantt(&fork.problem, schedule, "fork: best schedule", &gantt).unwrap();
    // 6 task bars + background + plot area; GPU labels with the model
    assert_svg(&gantt, &["fork: best schedule", "GPU 0 V100-16GB", "<rect"]);
    let n_rect = std::fs::read_to_string(&gantt)
        .unwrap()
        .matches("<rect")
        .count();
    assert!(n_rect >= 6, "{n_rect}");

    let curves = res.convergence_curves("layered, 40", 1, CurveAxis::Step);
    assert_eq!(curves.len(), 3);
    assert!(curves[0].flat && curves[1].flat && !curves[2].flat);
    assert_eq!(curves[2].points.len(), 30);
    let conv = dir.path().join("conv.svg");
    let per_iteration = |curves: &[plot::Curve]| {
        plot::convergence(
            curves,
            "convergence",
            "iteration",
            "best makespan (s)",
            &conv,
        )
        .unwrap()
    };
    per_iteration(&curves);
    assert_svg(&conv, &["random-search", "eft (no search)", "iteration"]);
    // a reference far above every search point is left out of the plot
    let mut far = curves.clone();
    far[0].points = vec![(0.0, 1e9)];
    far[0].label = "far-above".into();
    per_iteration(&far);
    assert!(
        !std::fs::read_to_string(&conv)
            .unwrap()
            .contains("far-above")
    );
    // against CPU time, searches only, relative to the best known: the random search's
    // curve alone, its CPU times increasing, its last point the best any run found on the
    // problem divided by itself or more; drawn with a logarithmic time axis when it spans
    // a factor of 10
    let rel = res.relative_convergence_curves("layered, 40", 1);
    assert_eq!(rel.len(), 1);
    assert_eq!(rel[0].label, "random-search");
    let best = res
        .records()
        .iter()
        .filter(|r| r.problem == "layered, 40")
        .map(|r| r.makespan)
        .fold(f64::INFINITY, f64::min);
    let own = res
        .runs("layered, 40", "random-search")
        .find(|r| r.seed == 1)
        .unwrap();
    assert_eq!(rel[0].points.len(), own.convergence.len());
    for (p, c) in rel[0].points.iter().zip(&own.convergence) {
        assert_eq!((p.0, p.1), (c.cpu_seconds, c.best_makespan / best));
    }
    assert!(rel[0].points.windows(2).all(|w| w[0].0 <= w[1].0));
    assert!(rel[0].points.iter().all(|p| p.1 >= 1.0 - 1e-12));
    let mut spread = rel.clone();
    for (i, p) in spread[0].points.iter_mut().enumerate() {
        p.0 = 1e-5 * 10f64.powi(i as i32 / 6);
    }
    plot::convergence(
        &spread,
        "over time",
        "CPU time (s)",
        "makespan ÷ best known",
        &conv,
    )
    .unwrap();
    assert_svg(
        &conv,
        &["CPU time (s) (log scale)", "makespan ÷ best known"],
    );
    per_iteration(&curves);
    assert!(
        !std::fs::read_to_string(&conv)
            .unwrap()
            .contains("iteration (log scale)")
    );

    // the Gantt chart: a tooltip per bar, a legend, the colour rule
    let svg = std::fs::read_to_string(&gantt).unwrap();
    assert_eq!(svg.matches("<title>").count(), 6, "{svg}");
    assert!(svg.contains("colour: task type"), "{svg}");
    assert_eq!(plot::task_type("mProject_00001"), "mProject");
    assert_eq!(plot::task_type("R2_1"), "R");
    assert_eq!(plot::task_type("42"), "42");

    let series = res.size_series(Metric::Makespan);
    assert_eq!(series.len(), 3);
    // sizes 4 (chain), 6 (fork), 40 (layered)
    assert_eq!(
        series[0].points.iter().map(|p| p.0).collect::<Vec<_>>(),
        [4.0, 6.0, 40.0]
    );
    let size = dir.path().join("size.svg");
    plot::mean_std_lines(
        &series,
        "makespan vs size",
        "tasks",
        Metric::Makespan.label(),
        &size,
    )
    .unwrap();
    assert_svg(&size, &["makespan vs size", "one-gpu", "<circle"]);

    let t = res.rank_test(&|_| true, Alpha::P05).unwrap();
    let cd = dir.path().join("cd.svg");
    plot::cd_diagram(&t, "critical difference", &cd).unwrap();
    assert_svg(&cd, &["CD = ", "one-gpu (", "eft (", "random-search ("]);
}

#[test]
fn sections_are_replaced_in_place_and_appended_when_absent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.md");
    worl_experiment::report::write_section(&path, "a", "first A\n").unwrap();
    worl_experiment::report::write_section(&path, "b", "B").unwrap();
    worl_experiment::report::write_section(&path, "a", "second A").unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "<!-- begin a -->\nsecond A\n<!-- end a -->\n\n<!-- begin b -->\nB\n<!-- end b -->\n"
    );
}

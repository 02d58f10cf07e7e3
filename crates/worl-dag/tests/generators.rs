//! Generators: hand-computed shapes, parameter semantics, determinism, and the Alibaba-like
//! tables recomputed from the trace.

use worl_dag::ccr::{REFERENCE_BANDWIDTH, with_ccr};
use worl_dag::formats::alibaba::{self, AlibabaOptions};
use worl_dag::generators::alibaba_like::{self, AlibabaLikeParams, alibaba_like};
use worl_dag::generators::layered::{LayeredParams, layered};
use worl_dag::generators::nn_training::{
    Model, NnTrainingParams, V100_FP32_FLOPS, nn_training, partition_layers,
};
use worl_dag::generators::{WorkDistribution, shapes};
use worl_dag::{DagError, Workload, datasets};

fn shape(w: &Workload) -> (usize, usize, usize, usize, usize) {
    let g = w.graph();
    (g.n_tasks(), g.n_edges(), w.n_jobs(), g.depth(), g.width())
}

#[test]
fn simple_shapes_have_their_hand_counted_structure() {
    assert_eq!(shape(&shapes::chain(5, 2.0, 8.0).unwrap()), (5, 4, 1, 5, 1));
    assert_eq!(
        shape(&shapes::fork_join(3, 1.0, 0.0).unwrap()),
        (5, 6, 1, 3, 3)
    );
    assert_eq!(shape(&shapes::wide(7, 1.0).unwrap()), (7, 0, 1, 1, 7));
    assert_eq!(shape(&shapes::single(3.0).unwrap()), (1, 0, 1, 1, 1));
    assert_eq!(
        shape(&shapes::disconnected(3, 4, 1.0, 1.0).unwrap()),
        (12, 9, 3, 4, 3)
    );
    let me = shapes::multi_entry_exit(2, 3, 1.0, 1.0).unwrap();
    assert_eq!(shape(&me), (5, 6, 1, 2, 3));
    assert_eq!(me.graph().entry_tasks().count(), 2);
    assert_eq!(me.graph().exit_tasks().count(), 3);
    let c = shapes::chain(5, 2.0, 8.0).unwrap().stats(4.0).unwrap();
    // mean comm 8/4 = 2 s over mean work 2 s.
    assert_eq!(
        (c.total_work, c.critical_path_work, c.ccr),
        (10.0, 10.0, 1.0)
    );
    assert!(matches!(
        shapes::chain(0, 1.0, 0.0),
        Err(DagError::InvalidParameter { name: "n", .. })
    ));
    assert!(matches!(
        shapes::wide(2, -1.0),
        Err(DagError::InvalidWork { .. })
    ));
}

#[test]
fn layered_parameters_set_levels_and_parents() {
    // regularity 1: every level has n^fat = 10 tasks; density 0: one parent each.
    let p = LayeredParams::new(100)
        .fat(0.5)
        .regularity(1.0)
        .density(0.0);
    let w = layered(&p, 1).unwrap();
    assert_eq!(shape(&w), (100, 90, 1, 10, 10));
    assert!(
        w.graph()
            .task_ids()
            .skip(10)
            .all(|t| w.graph().preds(t).len() == 1)
    );
    // density 1, jump 1: complete bipartite between consecutive levels.
    let w = layered(&p.clone().density(1.0), 1).unwrap();
    assert_eq!(w.graph().n_edges(), 9 * 100);
    // jump 3 with density 1: still 10 parents, now drawn from the 3 levels above.
    let w = layered(&p.clone().density(1.0).jump(3), 1).unwrap();
    let preds = w.graph().preds(worl_dag::TaskId::new(99));
    assert_eq!(preds.len(), 10);
    assert!(
        preds
            .iter()
            .all(|p| p.task.index() >= 60 && p.task.index() < 90)
    );
    assert!(preds.iter().any(|p| p.task.index() < 80));
    assert!(preds.iter().any(|p| p.task.index() >= 80));
    // fat 0 with regular levels: a chain.
    let chain = layered(&LayeredParams::new(20).fat(0.0).regularity(1.0), 5).unwrap();
    assert_eq!(shape(&chain), (20, 19, 1, 20, 1));
    // Constant work, exact CCR, determinism.
    let p = LayeredParams::new(300)
        .work(WorkDistribution::Constant(3.0))
        .ccr(0.7, 1.0e9);
    let a = layered(&p, 9).unwrap();
    let s = a.stats(1.0e9).unwrap();
    assert_eq!(s.total_work, 900.0);
    assert!((s.ccr - 0.7).abs() < 1e-12);
    assert_eq!(a, layered(&p, 9).unwrap());
    assert_ne!(a, layered(&p, 10).unwrap());
    assert!(matches!(
        layered(&LayeredParams::new(10).density(1.5), 0),
        Err(DagError::InvalidParameter {
            name: "density",
            ..
        })
    ));
    assert!(matches!(
        layered(
            &LayeredParams::new(10).work(WorkDistribution::Uniform { min: 5.0, max: 1.0 }),
            0
        ),
        Err(DagError::InvalidParameter { name: "work", .. })
    ));
}

#[test]
fn ccr_is_reached_exactly_and_reproducibly() {
    let w = shapes::fork_join(10, 5.0, 0.0).unwrap();
    let a = with_ccr(&w, 3.0, REFERENCE_BANDWIDTH, 1).unwrap();
    assert!((a.graph().ccr(REFERENCE_BANDWIDTH).unwrap() - 3.0).abs() < 1e-12);
    assert_eq!(a, with_ccr(&w, 3.0, REFERENCE_BANDWIDTH, 1).unwrap());
    // Bytes vary by edge, with weights drawn from [0.5, 1.5): max / min < 3.
    let bytes: Vec<f64> = a.graph().edges().map(|e| e.bytes).collect();
    let (lo, hi) = bytes
        .iter()
        .fold((f64::MAX, 0.0f64), |(l, h), &b| (l.min(b), h.max(b)));
    assert!(lo > 0.0 && hi / lo < 3.0 && hi > lo, "{lo} {hi}");
    assert!(matches!(
        with_ccr(&w, -1.0, 1.0, 0),
        Err(DagError::InvalidParameter { name: "ccr", .. })
    ));
}

#[test]
fn alibaba_like_jobs_follow_the_tables_and_read_back_from_their_names() {
    let p = AlibabaLikeParams::new(5000);
    let w = alibaba_like(&p, 11).unwrap();
    assert_eq!(w, alibaba_like(&p, 11).unwrap());
    assert_eq!(w.n_jobs(), 5000);
    // Mean job size of the table: 49,606 tasks / 14,285 jobs = 3.47.
    let mean = w.graph().n_tasks() as f64 / 5000.0;
    assert!((mean - 3.4726).abs() < 0.35, "mean size {mean}");
    // Zero-duration share 5.5 %, median positive duration e^2.57 = 13 s.
    let works: Vec<f64> = w.graph().tasks().map(|(_, t)| t.work).collect();
    let ones = works.iter().filter(|&&x| x == 1.0).count() as f64 / works.len() as f64;
    assert!(ones > 0.05 && ones < 0.20, "share of 1 s tasks {ones}");
    let mut sorted = works.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    assert!(median > 7.0 && median < 20.0, "median {median}");
    // Names encode the DAG as in the trace: write the small jobs as batch_task rows, load
    // them back and get the same edges.
    let small = alibaba_like(&AlibabaLikeParams::new(300).task_range(1, 12), 4).unwrap();
    let mut csv = String::new();
    for (_, t) in small.graph().tasks() {
        let job = &small.job(t.job).name;
        csv.push_str(&format!(
            "{},1,{job},1,Terminated,1000,{},100,0.5\n",
            t.name,
            1000.0 + t.work
        ));
    }
    let (back, report) =
        alibaba::read(csv.as_bytes(), "gen.csv", &AlibabaOptions::default()).unwrap();
    assert!(report.is_clean(), "{report}");
    assert_eq!(back.graph().n_edges(), small.graph().n_edges());
    let pairs = |w: &Workload| -> Vec<(String, String)> {
        w.graph()
            .edges()
            .map(|e| (w.task_label(e.from), w.task_label(e.to)))
            .collect()
    };
    assert_eq!(pairs(&back), pairs(&small));
    assert!(matches!(
        alibaba_like(&AlibabaLikeParams::new(3).task_range(200, 300), 0),
        Err(DagError::InvalidParameter { .. })
    ));
}

/// `true` for a trace name in the DAG encoding (`M1`, `R2_1`, ...), as the loader reads it.
fn dag_name(name: &str) -> bool {
    let head = name.split('_').next().unwrap_or("");
    let letters = head.trim_end_matches(|c: char| c.is_ascii_digit());
    !letters.is_empty()
        && letters.len() < head.len()
        && letters.bytes().all(|b| b.is_ascii_alphabetic())
}

#[test]
fn alibaba_like_tables_match_the_trace() {
    let Some(path) = datasets::data_file("alibaba-v2018/batch_task_head50k.csv").unwrap() else {
        return;
    };
    let (w, _) = alibaba::load(&path, &AlibabaOptions::default().ccr(0.0)).unwrap();
    let g = w.graph();
    let levels = g.levels();
    let mut sizes = std::collections::BTreeMap::<usize, u32>::new();
    let buckets = alibaba_like::SHAPE_BUCKETS;
    let mut independent = vec![0u32; buckets.len()];
    let mut depths: Vec<Vec<u32>> = vec![Vec::new(); buckets.len()];
    let (mut spare, mut spare_first) = (0u32, 0u32);
    for job in w.jobs() {
        let n = job.tasks.len();
        *sizes.entry(n).or_default() += 1;
        let b = buckets
            .iter()
            .position(|b| (b.min_tasks..=b.max_tasks).contains(&n))
            .unwrap();
        if n < 2 {
            continue;
        }
        if !job.tasks.iter().any(|&t| dag_name(&g.task(t).name)) {
            independent[b] += 1;
            continue;
        }
        let d = job.tasks.iter().map(|&t| levels[t.index()]).max().unwrap() as usize + 1;
        if depths[b].len() < d {
            depths[b].resize(d, 0);
        }
        depths[b][d - 1] += 1;
        let first = job
            .tasks
            .iter()
            .filter(|&&t| levels[t.index()] == 0)
            .count();
        spare += (n - d) as u32;
        spare_first += (first - 1) as u32;
    }
    let sizes: Vec<(usize, u32)> = sizes.into_iter().collect();
    assert_eq!(sizes, alibaba_like::JOB_SIZE_COUNTS);
    for (i, b) in buckets.iter().enumerate().skip(1) {
        assert_eq!(independent[i], b.independent_jobs, "bucket {i}");
        assert_eq!(depths[i], b.depth_counts, "bucket {i}");
    }
    assert_eq!(
        spare_first as f64 / spare as f64,
        alibaba_like::SPARE_ON_FIRST_LEVEL
    );
    let mut indeg = vec![0u32; alibaba_like::IN_DEGREE_COUNTS.len()];
    for t in g.task_ids() {
        let k = g.preds(t).len();
        if k > 0 {
            indeg[k - 1] += 1;
        }
    }
    assert_eq!(indeg, alibaba_like::IN_DEGREE_COUNTS);
    // Durations: the loader sets zero durations to 1 s, so the positive ones are the works
    // of the tasks not reported as ZeroDuration.
    let (_, report) = alibaba::load(&path, &AlibabaOptions::default()).unwrap();
    let zero = report.count(worl_dag::formats::Reason::ZeroDuration);
    assert_eq!(
        zero as f64 / g.n_tasks() as f64,
        alibaba_like::ZERO_DURATION_SHARE
    );
    let logs: Vec<f64> = g
        .tasks()
        .map(|(_, t)| t.work)
        .filter(|&x| x > 1.0)
        .map(f64::ln)
        .collect();
    // Tasks of exactly 1 s are either repaired zeros or true 1 s tasks (ln 1 = 0).
    let true_ones = g.tasks().filter(|(_, t)| t.work == 1.0).count() - zero;
    let n = (logs.len() + true_ones) as f64;
    let mu = logs.iter().sum::<f64>() / n;
    let var = (logs.iter().map(|x| (x - mu).powi(2)).sum::<f64>() + true_ones as f64 * mu * mu)
        / (n - 1.0);
    assert!((mu - alibaba_like::DURATION_LN_MU).abs() < 1e-5, "mu {mu}");
    assert!(
        (var.sqrt() - alibaba_like::DURATION_LN_SIGMA).abs() < 1e-5,
        "sigma {}",
        var.sqrt()
    );
}

#[test]
fn model_zoo_matches_published_sizes() {
    let r = Model::resnet50();
    // 4.09 G multiply-adds (torchvision's 4.09 GFLOPs) and 25.5 M weights without batch norm.
    assert_eq!(r.flops(), 8_178_368_512.0);
    assert_eq!(r.params(), 25_503_912.0);
    assert_eq!(r.layers.len(), 18);
    let bert = Model::bert_base();
    assert_eq!(bert.params(), 108_888_576.0); // ~110 M published (pooler, LN not counted)
    assert_eq!(bert.flops(), 120_640_241_664.0);
    let gpt = Model::gpt2_medium();
    assert_eq!(gpt.params(), 354_821_120.0); // 355 M published
    assert_eq!(gpt.flops(), 826_951_073_792.0);
    assert_eq!(partition_layers(&[1.0, 1.0, 1.0, 1.0], 2), [2, 4]);
    assert_eq!(partition_layers(&[10.0, 1.0, 1.0, 1.0, 1.0], 3), [1, 2, 5]);
    assert_eq!(partition_layers(&[0.0; 5], 5), [1, 2, 3, 4, 5]);
}

#[test]
fn nn_training_dag_counts_work_and_bytes() {
    let (s, m, r, it, b) = (3, 4, 2, 2, 8);
    let p = NnTrainingParams::new(Model::bert_base())
        .pipeline(s, m)
        .replicas(r)
        .iterations(it)
        .micro_batch_size(b);
    let w = nn_training(&p).unwrap();
    let g = w.graph();
    assert_eq!(g.n_tasks(), it * (r * s * m * 2 + s));
    // per iteration and replica: (s-1)m forward + (s-1)m backward + sm stash + sm gradient
    // edges; between iterations s*m*r weight edges.
    let per = r * ((s - 1) * m * 2 + s * m * 2);
    assert_eq!(g.n_edges(), it * per + (it - 1) * s * m * r);
    assert_eq!(g.depth(), it * (2 * s + 1));
    assert_eq!(g.entry_tasks().count(), r * m);
    assert_eq!(g.exit_tasks().count(), s);
    let model = Model::bert_base();
    let f_work: f64 = g
        .tasks()
        .filter(|(_, t)| t.name.starts_with("F_i0_r0_"))
        .map(|(_, t)| t.work)
        .sum();
    let expect = (b * m) as f64 * model.flops() / V100_FP32_FLOPS;
    assert!(
        (f_work - expect).abs() < 1e-9 * expect,
        "{f_work} vs {expect}"
    );
    let b_work: f64 = g
        .tasks()
        .filter(|(_, t)| t.name.starts_with("B_i0_r0_"))
        .map(|(_, t)| t.work)
        .sum();
    assert!((b_work - 2.0 * expect).abs() < 1e-9 * expect);
    // A stage boundary of BERT carries one 512 x 768 activation per sample, fp32.
    let f0 = w.find_task("train", "F_i0_r0_s0_m0").unwrap();
    let f1 = w.find_task("train", "F_i0_r0_s1_m0").unwrap();
    let edge = g.succs(f0).iter().find(|n| n.task == f1).unwrap();
    assert_eq!(edge.bytes, 8.0 * 512.0 * 768.0 * 4.0);
    assert!(w.find_task("train", "allreduce_i1_s2").is_some());
    let one = nn_training(&p.clone().replicas(1).iterations(1)).unwrap();
    assert!(one.find_task("train", "update_i0_s0").is_some());
    assert!(matches!(
        nn_training(&p.clone().pipeline(20, 1)),
        Err(DagError::InvalidParameter { name: "stages", .. })
    ));
}

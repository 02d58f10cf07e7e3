//! Property tests: generated DAGs are acyclic with valid topological orders for random
//! parameters; native JSON round trips are identical; loaders never panic on arbitrary input.

use proptest::prelude::*;
use worl_dag::formats::alibaba::{self, AlibabaOptions};
use worl_dag::formats::{dax, native, stg, wfcommons};
use worl_dag::generators::WorkDistribution;
use worl_dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};
use worl_dag::generators::layered::{LayeredParams, layered};
use worl_dag::generators::nn_training::{Model, NnTrainingParams, nn_training};
use worl_dag::{Workload, WorkloadBuilder};

/// Every edge goes forward in the topological order, which holds every task once.
fn assert_valid_order(w: &Workload) -> Result<(), TestCaseError> {
    let g = w.graph();
    let mut pos = vec![usize::MAX; g.n_tasks()];
    for (i, t) in g.topo_order().iter().enumerate() {
        prop_assert_eq!(pos[t.index()], usize::MAX, "task twice in the order");
        pos[t.index()] = i;
    }
    prop_assert!(pos.iter().all(|&p| p != usize::MAX));
    for e in g.edges() {
        prop_assert!(pos[e.from.index()] < pos[e.to.index()]);
    }
    Ok(())
}

fn work_distribution() -> impl Strategy<Value = WorkDistribution> {
    prop_oneof![
        (0.0..1e4f64).prop_map(WorkDistribution::Constant),
        (0.0..100.0f64, 0.0..100.0f64).prop_map(|(a, b)| WorkDistribution::Uniform {
            min: a.min(b),
            max: a.max(b)
        }),
        (-2.0..5.0f64, 0.0..2.0f64)
            .prop_map(|(mu, sigma)| WorkDistribution::LogNormal { mu, sigma }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn layered_dags_are_acyclic_with_n_tasks_and_target_ccr(
        n in 1usize..300,
        fat in 0.0..=1.0f64,
        regularity in 0.0..=1.0f64,
        density in 0.0..=1.0f64,
        jump in 1usize..5,
        ccr in 0.0..10.0f64,
        work in work_distribution(),
        seed in any::<u64>(),
    ) {
        let p = LayeredParams::new(n)
            .fat(fat)
            .regularity(regularity)
            .density(density)
            .jump(jump)
            .ccr(ccr, 1.0e9)
            .work(work);
        let w = layered(&p, seed).unwrap();
        prop_assert_eq!(w.graph().n_tasks(), n);
        assert_valid_order(&w)?;
        let s = w.stats(1.0e9).unwrap();
        if s.edges > 0 && s.total_work > 0.0 {
            prop_assert!((s.ccr - ccr).abs() <= 1e-9 * ccr.max(1.0), "ccr {} vs {}", s.ccr, ccr);
        }
        prop_assert_eq!(&w, &layered(&p, seed).unwrap());
    }

    #[test]
    fn alibaba_like_dags_are_acyclic_and_sized_as_asked(
        jobs in 1usize..40,
        min in 1usize..30,
        span in 0usize..100,
        seed in any::<u64>(),
    ) {
        let p = AlibabaLikeParams::new(jobs).task_range(min, min + span);
        match alibaba_like(&p, seed) {
            Ok(w) => {
                prop_assert_eq!(w.n_jobs(), jobs);
                prop_assert!(w.jobs().iter().all(|j| (min..=min + span).contains(&j.tasks.len())));
                assert_valid_order(&w)?;
            }
            // A range holding no trace size (e.g. 128.. or 34..=34) is refused.
            Err(e) => {
                let refused = matches!(e, worl_dag::DagError::InvalidParameter { .. });
                prop_assert!(refused, "unexpected error {}", e);
            }
        }
    }

    #[test]
    fn nn_training_dags_are_acyclic_with_the_task_count(
        stages in 1usize..6,
        micro in 1usize..6,
        replicas in 1usize..4,
        iterations in 1usize..3,
        resnet in any::<bool>(),
    ) {
        let model = if resnet { Model::resnet50() } else { Model::bert_base() };
        let p = NnTrainingParams::new(model)
            .pipeline(stages, micro)
            .replicas(replicas)
            .iterations(iterations);
        let w = nn_training(&p).unwrap();
        prop_assert_eq!(w.graph().n_tasks(), iterations * (replicas * stages * micro * 2 + stages));
        prop_assert_eq!(w.graph().depth(), iterations * (2 * stages + 1));
        assert_valid_order(&w)?;
    }

    #[test]
    fn native_json_round_trip_is_identical(
        n in 1usize..120,
        density in 0.0..=1.0f64,
        jump in 1usize..4,
        ccr in 0.0..5.0f64,
        mems in prop::collection::vec(prop::option::of(1e-3..1e3f64), 1..120),
        seed in any::<u64>(),
    ) {
        // A layered DAG split into jobs of 7 tasks, with memory needs and odd floats.
        let g = layered(&LayeredParams::new(n).density(density).jump(jump).ccr(ccr, 3.3e9), seed).unwrap();
        let mut b = WorkloadBuilder::new("round \"trip\"");
        for k in 0..n.div_ceil(7) {
            b.add_job(format!("job/{k}")).unwrap();
        }
        for (id, t) in g.graph().tasks() {
            let mem = mems[id.index() % mems.len()];
            b.add_task(worl_dag::JobId::new(id.index() / 7), &t.name, t.work / 3.0, mem).unwrap();
        }
        for e in g.graph().edges() {
            b.add_edge(e.from, e.to, e.bytes / 7.0).unwrap();
        }
        let w = b.build().unwrap();
        let text = native::to_string(&w).unwrap();
        let (back, report) = native::read(text.as_bytes(), "rt.json").unwrap();
        prop_assert!(report.entries.is_empty());
        prop_assert_eq!(&back, &w);
        prop_assert_eq!(native::to_string(&back).unwrap(), text);
    }

    #[test]
    fn loaders_never_panic_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let _ = alibaba::read(&bytes[..], "fuzz.csv", &AlibabaOptions::default());
        let _ = wfcommons::read(&bytes[..], "fuzz.json", &wfcommons::WfOptions::default());
        let _ = dax::read(&bytes[..], "fuzz.xml", &dax::DaxOptions::default());
        let _ = stg::read(&bytes[..], "fuzz.stg", &stg::StgOptions::default());
        let _ = native::read(&bytes[..], "fuzz.json");
    }

    #[test]
    fn alibaba_loader_never_panics_on_csv_like_text(
        text in "([MRJ]?[0-9]{0,3}(_[0-9S]{0,3}){0,4},[0-9]{0,2},j_[0-9],[0-9],(Terminated|Running|Waiting|),[0-9]{0,3},[0-9]{0,3},[0-9.]{0,3},[0-9.]{0,3}\n){0,12}",
        window in prop::option::of((0.0..500.0f64, 0.0..500.0f64)),
    ) {
        let mut opts = AlibabaOptions::default().mem_gib_per_plan_mem(2.0);
        if let Some((a, b)) = window {
            opts = opts.submit_window(a, b);
        }
        if let Ok((w, r)) = alibaba::read(text.as_bytes(), "fuzz.csv", &opts) {
            prop_assert_eq!(r.records, w.graph().n_tasks() + r.records_skipped);
            assert_valid_order(&w)?;
        }
    }

    #[test]
    fn stg_loader_never_panics_on_stg_like_text(
        text in "([0-9]{1,2}( +[0-9]{1,2}){0,6}\n|# [a-z]{0,5}\n){0,10}",
    ) {
        let _ = stg::read(text.as_bytes(), "fuzz.stg", &stg::StgOptions::default());
    }

    #[test]
    fn structured_loaders_never_panic_on_markup_like_text(
        json in r#"[{}\[\]":, a-z0-9._]{0,200}"#,
        xml in r#"(<(/?)(adag|job|uses|child|parent)( (id|ref|file|link|size|runtime)="[a-z0-9.]{0,3}"){0,3}(/?)>){0,12}"#,
    ) {
        let _ = wfcommons::read(json.as_bytes(), "fuzz.json", &wfcommons::WfOptions::default());
        let _ = native::read(json.as_bytes(), "fuzz.json");
        let _ = dax::read(xml.as_bytes(), "fuzz.xml", &dax::DaxOptions::default());
    }
}

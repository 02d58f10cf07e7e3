//! Loading speed of the Alibaba v2018 loader: the 50,000-row `batch_task_head50k.csv`
//! (target: under 100 ms per load in release). Without the shared data, a generated
//! in-memory CSV of the same size and layout is loaded instead (a notice says so).

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use worl_dag::datasets;
use worl_dag::formats::alibaba::{self, AlibabaOptions};

/// 50,000 rows in the trace's layout: jobs of 1 to 8 tasks, chain-shaped DAG names.
fn generated_csv() -> String {
    let mut out = String::new();
    let (mut row, mut job) = (0usize, 0usize);
    while row < 50_000 {
        job += 1;
        let n = 1 + job % 8;
        for t in 1..=n.min(50_000 - row) {
            let name = if t == 1 {
                "M1".to_string()
            } else {
                format!("R{t}_{}", t - 1)
            };
            let start = 100_000 + job * 7 + t;
            out.push_str(&format!(
                "{name},1,j_{job},1,Terminated,{start},{},100,0.39\n",
                start + 1 + t % 5
            ));
            row += 1;
        }
    }
    out
}

fn load(c: &mut Criterion) {
    let opts = AlibabaOptions::default();
    let path = match datasets::data_file("alibaba-v2018/batch_task_head50k.csv") {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    match path {
        Some(path) => {
            let bytes = std::fs::read(&path).expect("readable data file");
            c.bench_function("alibaba_v2018_load_50k_rows", |b| {
                b.iter(|| {
                    let (w, _) =
                        alibaba::read(black_box(&bytes[..]), "batch_task_head50k.csv", &opts)
                            .expect("the trace loads");
                    w
                })
            });
        }
        None => {
            eprintln!("note: shared data absent; benching a generated 50,000-row CSV instead");
            let text = generated_csv();
            c.bench_function("alibaba_v2018_load_50k_generated_rows", |b| {
                b.iter(|| {
                    alibaba::read(black_box(text.as_bytes()), "generated.csv", &opts)
                        .expect("the generated CSV loads")
                        .0
                })
            });
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = load
}
criterion_main!(benches);

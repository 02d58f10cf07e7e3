//! Criterion benchmarks of the WOA engine: sphere in 30 dimensions, 30 whales × 500 iterations
//! (the WOA paper's setup), sequential and parallel evaluation.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use worl_woa::{Bounds, WoaConfig, functions, minimize};

fn sphere_30d_30_whales_500_iterations(c: &mut Criterion) {
    let bounds = Bounds::uniform(30, -100.0, 100.0).expect("valid bounds");
    let mut group = c.benchmark_group("sphere_30d_30x500");
    group.sample_size(20);
    for parallel in [false, true] {
        let config = WoaConfig::new(30, 500).with_seed(1).with_parallel(parallel);
        let name = if parallel { "parallel" } else { "sequential" };
        group.bench_function(name, |b| {
            b.iter(|| {
                minimize(functions::sphere, black_box(&bounds), black_box(&config))
                    .expect("valid config")
                    .best_fitness
            })
        });
    }
    group.finish();
}

criterion_group!(benches, sphere_30d_30_whales_500_iterations);
criterion_main!(benches);

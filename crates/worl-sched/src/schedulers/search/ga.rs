//! **GA** scheduling baseline: a generational genetic algorithm on the task → GPU assignment
//! vector (J. Holland, *Adaptation in Natural and Artificial Systems*, 1975; D. Goldberg,
//! *Genetic Algorithms in Search, Optimization and Machine Learning*, 1989), the encoding
//! and elitism of the GA of T. Braun et al. (*A comparison of eleven static heuristics for
//! mapping a class of independent tasks onto heterogeneous distributed computing systems*,
//! JPDC 61(6):810–837, 2001, §2.10), with tournament selection (D. Goldberg & K. Deb, FOGA
//! 1991), uniform crossover (G. Syswerda, ICGA 1989) and per-gene reset mutation.
//!
//! **Encoding.** A chromosome is a position of the [`SearchSpace`](super::SearchSpace) shared with WOA and PSO.
//! By default (`decoder=list`) it holds `2n` random keys in `[0, 1]` (a priority key and a
//! GPU-preference key per task) decoded by a list scheduler
//! ([`ListDecoder`](super::ListDecoder)): Bean's random-key GA (J. C. Bean, ORSA J. Computing
//! 6(2):154–160, 1994), whose uniform crossover and gene resets always give feasible
//! schedules; individual 0 of the initial population is HEFT's position (`heft-seed`), so
//! the result is never worse than HEFT. With `decoder=position` (the original baseline) it
//! holds one gene per task, a coordinate in `[0, m]` floored to a GPU
//! ([`PositionCodec`](super::PositionCodec)); decoding is then per gene, so uniform crossover
//! of genes is uniform crossover of the GPU assignments, and resetting a gene to `U[0, m)` is
//! drawing a uniformly random GPU among those the task fits: the integer assignment-vector
//! GA.
//!
//! **Generation** `g = 1..=G`: the population is sorted by makespan (stable); the `elites`
//! best are copied unchanged (not re-evaluated); every other slot `i` gets a child: two
//! parents by `k`-tournament (with replacement; on a sorted population the winner is the
//! smallest drawn index), uniform crossover with probability `crossover` (else a copy of
//! the first parent), then each gene reset to `U[0, U)` with probability `mutation` (default
//! `1/dim`; `U` = 1 or `m`). Deviations from Braun et al.: a HEFT seed instead of a Min-Min
//! one (none with `decoder=position`), tournament
//! instead of roulette selection, uniform instead of single-point crossover, a fixed number
//! of generations (under a CPU-time budget, generations until the time is spent:
//! [`RunContext::time_clock`](crate::RunContext::time_clock)). Child `i` of generation `g` draws from its own ChaCha8 stream
//! [`whale_rng`]`(seed, g, i)`, so parallel runs equal sequential ones.

use rand::{Rng, RngCore};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use worl_cluster::{Problem, Schedule};
use worl_woa::whale_rng;

use super::codec::{SearchDecoderConfig, sanitize};
use super::list_decoder::ListDecoderConfig;
use super::options::{MAX_ITERATIONS, MAX_POPULATION, take_count, take_in_range};
use crate::error::Result;
use crate::options::{OptionDoc, Options, PARALLEL};
use crate::scheduler::{Progress, RunContext, Scheduler};

/// Configuration of [`Ga`].
///
/// Defaults: population 30, 100 generations, 3-tournament, crossover probability 0.9,
/// mutation probability `1/dim` per gene (`dim` = `2n` or `n`), 2 elites, the default
/// [`SearchDecoderConfig`] (list decoder, insertion, HEFT seed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GaConfig {
    /// Population size (option `population`, at least 2).
    pub population: usize,
    /// Generations after the initial population (option `generations`, at least 1).
    pub generations: usize,
    /// Tournament size `k` (option `tournament`, at least 1; 1 = random selection).
    pub tournament: usize,
    /// Probability of uniform crossover (option `crossover`, in `[0, 1]`).
    pub crossover: f64,
    /// Per-gene mutation probability (option `mutation`, in `[0, 1]`); `None` = `1/dim`.
    pub mutation: Option<f64>,
    /// Best individuals copied into the next generation (option `elites`, below the
    /// population size).
    pub elites: usize,
    /// Decoder, placement policy and HEFT seed (options `decoder`, `policy`, `heft-seed`,
    /// `priority`, `sigma`, `gpu-threshold`, `gpu-choices`).
    pub decoding: SearchDecoderConfig,
    /// Parallel evaluation (option `parallel`).
    pub parallel: bool,
}

impl Default for GaConfig {
    fn default() -> Self {
        GaConfig {
            population: 30,
            generations: 100,
            tournament: 3,
            crossover: 0.9,
            mutation: None,
            elites: 2,
            decoding: SearchDecoderConfig::default(),
            parallel: false,
        }
    }
}

impl GaConfig {
    /// The GA's own options.
    pub const GA_OPTIONS: [OptionDoc; 6] = [
        OptionDoc::new("population", "2..=10000", "30", "population size"),
        OptionDoc::new(
            "generations",
            "1..=1000000",
            "100",
            "generations (a time budget overrides them)",
        ),
        OptionDoc::new(
            "tournament",
            "1..=population",
            "3",
            "tournament size of parent selection",
        ),
        OptionDoc::new(
            "crossover",
            "[0, 1]",
            "0.9",
            "probability that a pair is crossed (uniform crossover)",
        ),
        OptionDoc::new(
            "mutation",
            "[0, 1]",
            "(1/genes)",
            "per-gene reset probability",
        ),
        OptionDoc::new(
            "elites",
            "0..population",
            "2",
            "best individuals copied unchanged",
        ),
    ];

    /// Every option [`from_options`](Self::from_options) reads.
    pub const OPTIONS: &'static [&'static [OptionDoc]] = &[
        &Self::GA_OPTIONS,
        &SearchDecoderConfig::OPTIONS,
        &ListDecoderConfig::OPTIONS,
        &PARALLEL,
    ];

    /// Reads `population`, `generations`, `tournament`, `crossover`, `mutation`, `elites`,
    /// `parallel` and the decoding options ([`SearchDecoderConfig`]: `decoder`, `policy`,
    /// `heft-seed`, `priority`, `sigma`, `gpu-threshold`, `gpu-choices`).
    ///
    /// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption) (also
    /// for `elites >= population` and `tournament > population`),
    /// [`ScheduleError::UnknownOption`](crate::ScheduleError::UnknownOption).
    pub fn from_options(mut opts: Options) -> Result<Self> {
        let d = GaConfig::default();
        let population = take_count(&mut opts, "population", d.population, 2, MAX_POPULATION)?;
        let config = GaConfig {
            population,
            generations: take_count(&mut opts, "generations", d.generations, 1, MAX_ITERATIONS)?,
            tournament: {
                let t = take_count(&mut opts, "tournament", d.tournament, 1, MAX_POPULATION)?;
                if t > population {
                    return Err(opts.invalid(
                        "tournament",
                        t,
                        "must not exceed the population size",
                    ));
                }
                t
            },
            crossover: take_in_range(&mut opts, "crossover", d.crossover, 0.0, 1.0)?,
            mutation: match opts.take::<f64>("mutation")? {
                None => None,
                Some(p) if (0.0..=1.0).contains(&p) => Some(p),
                Some(p) => return Err(opts.invalid("mutation", p, "must be in [0, 1]")),
            },
            elites: {
                let e: usize = opts.take_or("elites", d.elites)?;
                if e >= population {
                    return Err(opts.invalid("elites", e, "must be below the population size"));
                }
                e
            },
            decoding: SearchDecoderConfig::take(&mut opts)?,
            parallel: opts.take_or("parallel", d.parallel)?,
        };
        opts.finish()?;
        Ok(config)
    }
}

/// The GA scheduler (registered as `ga`).
#[derive(Clone, Debug, Default)]
pub struct Ga {
    config: GaConfig,
}

config_scheduler!(
    Ga,
    GaConfig,
    "ga",
    "GA",
    Search,
    "population=4,generations=3",
    "random-key GA (Bean 1994; tournament, uniform crossover, reset mutation, elitism) decoded by a list scheduler, one individual at HEFT's position"
);

/// A chromosome and its makespan.
struct Individual {
    genes: Vec<f64>,
    fit: f64,
}

impl Clone for Individual {
    fn clone(&self) -> Self {
        Individual {
            genes: self.genes.clone(),
            fit: self.fit,
        }
    }

    /// Reuses the gene buffer (elites and budget leftovers are copied every generation).
    fn clone_from(&mut self, source: &Self) {
        self.genes.clone_from(&source.genes);
        self.fit = source.fit;
    }
}

/// Stable sort by makespan.
fn sort(pop: &mut [Individual]) {
    pop.sort_by(|a, b| a.fit.partial_cmp(&b.fit).unwrap_or(Ordering::Equal));
}

impl Scheduler for Ga {
    fn name(&self) -> &str {
        "GA"
    }

    fn supports_gangs(&self) -> bool {
        true
    }

    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        ctx.check_budget(self.name(), self.config.population)?;
        let c = &self.config;
        let codec = c.decoding.space(problem);
        let seeds = c.decoding.seeds(&codec)?;
        let (n, m) = (codec.dim(), codec.upper());
        let mutation = c.mutation.unwrap_or(1.0 / n as f64);
        let elites = c.elites.min(c.population.saturating_sub(1));
        let seed = ctx.seed();
        let budget = ctx.budget().max_evaluations.unwrap_or(u64::MAX);
        let total = c.generations as u64;
        let mut scratch = codec.scratch();

        let count = c.population;
        let mut pop: Vec<Individual> = vec![
            Individual {
                genes: Vec::with_capacity(n),
                fit: f64::INFINITY,
            };
            count
        ];
        codec.for_each(&mut pop, c.parallel, &mut scratch, |i, ind, s| {
            match seeds.get(i) {
                Some(x) => ind.genes.extend_from_slice(x),
                None => codec.random_position(&mut whale_rng(seed, 0, i), &mut ind.genes),
            }
            ind.fit = sanitize(codec.makespan(&ind.genes, s));
        });
        sort(&mut pop);
        // The best ever (with `elites = 0` the population may lose it).
        let mut best = pop[0].clone();
        let mut evaluations = count as u64;
        let mut stop = ctx
            .report(Progress {
                step: 0,
                total_steps: total,
                evaluations,
                best_makespan: best.fit,
            })
            .is_break();
        let mut next = pop.clone();
        let mut g = 0;
        // Under a CPU-time budget the time drives the run (`RunContext::time_clock`).
        let clock = ctx.time_clock();
        while !stop
            && clock.map_or(g < c.generations, |k| k.fraction() < 1.0)
            && evaluations < budget
            && count > elites
        {
            g += 1;
            let children = usize::try_from(budget - evaluations)
                .map_or(count - elites, |r| r.min(count - elites));
            let parents = &pop;
            codec.for_each(&mut next, c.parallel, &mut scratch, |i, child, s| {
                if i < elites || i >= elites + children {
                    child.clone_from(&parents[i]);
                    return;
                }
                let mut rng = whale_rng(seed, g as u64, i);
                let mut pick = || {
                    (0..c.tournament)
                        .map(|_| rng.random_range(0..count))
                        .min()
                        .unwrap_or(0)
                };
                let (a, b) = (pick(), pick());
                let (a, b) = (&parents[a].genes, &parents[b].genes);
                child.genes.clear();
                if rng.random::<f64>() < c.crossover {
                    let mut bits = 0u64;
                    for j in 0..n {
                        if j % 64 == 0 {
                            bits = rng.next_u64();
                        }
                        child.genes.push(if (bits >> (j % 64)) & 1 == 1 {
                            b[j]
                        } else {
                            a[j]
                        });
                    }
                } else {
                    child.genes.extend_from_slice(a);
                }
                for gene in &mut child.genes {
                    if rng.random::<f64>() < mutation {
                        *gene = rng.random::<f64>() * m;
                    }
                }
                child.fit = sanitize(codec.makespan(&child.genes, s));
            });
            evaluations += children as u64;
            std::mem::swap(&mut pop, &mut next);
            sort(&mut pop);
            if pop[0].fit < best.fit {
                best.clone_from(&pop[0]);
            }
            stop = ctx
                .report(Progress {
                    step: g as u64,
                    total_steps: total,
                    evaluations,
                    best_makespan: best.fit,
                })
                .is_break();
        }
        codec.schedule(&best.genes)
    }

    fn is_stochastic(&self) -> bool {
        true
    }
}

//! Grids on many machines: [`Experiment::shard`] splits an experiment's runs into `n`
//! deterministic shards, [`Shard::run_into`] runs one shard appending each finished run to
//! a JSON-lines results file (resumable: runs already in the file are skipped), and
//! [`merge`] joins shard files into the [`Results`] a single-process
//! [`Experiment::run`] gives (same records, same canonical order; only wall times differ).
//!
//! **Canonical order.** The runs of an experiment, as [`Experiment::run`] records them:
//! problems in order, then schedulers in order, then seeds in order (a deterministic
//! scheduler runs once per problem, with the first seed). Run `i` of that order belongs to
//! shard `i % n`.
//!
//! **Results file.** One JSON object per line ([`ShardLine`]):
//! `{"grid": "<16 hex digits>", "runs": N, "index": i, "shard": [k, n], "record": {...}}`
//! where `grid` fingerprints the experiment (problem names, sizes and content digests,
//! scheduler specs and labels, seeds, budget), `runs` is the grid's run count, `index` the run's position in
//! canonical order and `record` the [`RunRecord`]; a simulation study's line
//! ([`SimStudy::shard`](crate::simulation::SimStudy::shard)) also has `"sim": {...}`, its
//! [`SimLine`], and its grid fingerprints the study instead, so the two kinds never merge
//! together ([`merge_any`] takes either kind). Lines are appended as runs finish (in
//! any order when [`Experiment::parallel`] is on), each written whole and flushed, so a
//! killed process leaves at most one partial last line: the next [`Shard::run_into`] on the
//! file cuts it off and redoes that run, and [`merge`] ignores it.
//!
//! **Last line without a newline.** A last line that does not end in `\n` is kept when it
//! parses as a complete [`ShardLine`] (a file edited by hand, or concatenated by a tool
//! that drops the final newline): [`merge`] reads it, [`Shard::run_into`] keeps it and adds
//! the newline before appending. Only a last line that does not parse is partial.
//!
//! **Merging.** [`merge`] refuses a missing file, a line that is not a [`ShardLine`] (other
//! than a partial last line), files of different grids, two lines of one run index that
//! disagree (naming both lines), a negative or NaN makespan, and lines whose (problem,
//! label, seed) do not fit the canonical order at their index (problems in contiguous
//! blocks, each problem's block the same sequence of labels and seeds, no run twice; a
//! resume, which knows the grid, checks every line against the exact run its index
//! designates); two identical lines of one run (wall time aside) count once. Messages
//! count runs from 1, as progress lines do, and give the 0-based `index` beside.
//!
//! A run is skipped when the file already holds a line of the same grid with the same
//! problem, scheduler label and seed. Every run is independent of the others (its problem,
//! scheduler spec and seed decide it) except for schedulers whose spec
//! [`reuse`](crate::SchedulerSpec::reuse)s one instance across runs: a shard's instance
//! sees only that shard's runs, so such a scheduler's records can differ from a single
//! run's.
//!
//! Floats go through JSON exactly (shortest round-trip form), so merged records equal the
//! single run's bit for bit, wall times aside. Use evaluation budgets rather than time
//! budgets where the numbers must be reproducible.
//!
//! ```
//! use std::sync::Arc;
//! use worl_cluster::{presets, GpuModel, Problem};
//! use worl_dag::generators::shapes;
//! use worl_experiment::{shard, Experiment, NamedProblem, ProblemSet};
//!
//! let cluster = Arc::new(presets::homogeneous(2, &GpuModel::v100_16gb())?);
//! let mut problems = ProblemSet::new();
//! for n in [4, 6] {
//!     let w = Arc::new(shapes::fork_join(n, 10.0, 0.0)?);
//!     problems.push(NamedProblem::new(format!("fj-{n}"), Problem::new(w, cluster.clone())?))?;
//! }
//! let exp = Experiment::new(problems).schedulers(["heft", "cpop"]).quiet(true);
//! let dir = tempfile::tempdir()?;
//! let files: Vec<_> = (0..3).map(|k| dir.path().join(format!("shard-{k}.jsonl"))).collect();
//! for (k, f) in files.iter().enumerate() {
//!     exp.shard(k, 3)?.run_into(f)?; // on three machines, say
//! }
//! let merged = shard::merge(&files)?;
//! let single = exp.run()?;
//! assert_eq!(merged.schedulers(), single.schedulers());
//! assert_eq!(merged.records().len(), 4);
//! for (a, b) in merged.records().iter().zip(single.records()) {
//!     assert_eq!((&a.problem, &a.scheduler, a.seed, a.makespan), (&b.problem, &b.scheduler, b.seed, b.makespan));
//! }
//! // resuming a finished shard runs nothing
//! assert_eq!(exp.shard(0, 3)?.run_into(&files[0])?.ran, 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{Experiment, Outcome, Resolved, RunKey};
use crate::error::{ExperimentError, Result};
use crate::run::{Results, RunRecord};
use crate::simulation::SimLine;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One line of a results file: a finished run and where it sits in its grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardLine {
    /// The grid's fingerprint (16 hex digits; [`Shard::grid`]).
    pub grid: String,
    /// Number of runs of the whole grid.
    pub runs: usize,
    /// The run's position in canonical order, `0..runs`.
    pub index: usize,
    /// The shard that ran it, `[k, n]`.
    pub shard: [usize; 2],
    /// The run's record.
    pub record: RunRecord,
    /// A simulation study's run ([`SimStudy::shard`](crate::simulation::SimStudy::shard)):
    /// its simulation measures; absent from an experiment's lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sim: Option<SimLine>,
}

impl ShardLine {
    /// What kind of grid the line belongs to, for messages: `"a simulation study"` or
    /// `"an experiment"`.
    pub fn kind(&self) -> &'static str {
        if self.sim.is_some() {
            "a simulation study"
        } else {
            "an experiment"
        }
    }
}

/// One run of a grid: its position in canonical order and what it runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RunId {
    /// Position in canonical order.
    pub index: usize,
    /// The problem's name.
    pub problem: String,
    /// The scheduler's label.
    pub scheduler: String,
    /// The seed.
    pub seed: u64,
}

/// What [`Shard::run_into`] did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ShardReport {
    /// Runs of the shard.
    pub runs: usize,
    /// Of those, runs already in the file (skipped).
    pub skipped: usize,
    /// Runs done now and appended.
    pub ran: usize,
    /// Whether a partial last line (a killed writer's) was cut off the file.
    pub cut_partial_line: bool,
}

/// Shard `k` of `n` of an [`Experiment`]: the runs whose canonical index `i` has
/// `i % n == k`. Made by [`Experiment::shard`].
#[derive(Debug)]
pub struct Shard<'a> {
    experiment: &'a Experiment,
    k: usize,
    n: usize,
}

impl Experiment {
    /// Shard `k` of `n` (`0 <= k < n`) of this experiment; see the [`shard`](crate::shard)
    /// module. The `n` shards together hold every run exactly once.
    ///
    /// Errors: [`ExperimentError::BadShard`] for `n == 0` or `k >= n`.
    pub fn shard(&self, k: usize, n: usize) -> Result<Shard<'_>> {
        if n == 0 || k >= n {
            return Err(ExperimentError::BadShard { k, n });
        }
        Ok(Shard {
            experiment: self,
            k,
            n,
        })
    }

    /// Runs the whole grid resumably into `path` ([`Shard::run_into`] of shard 0 of 1),
    /// then reads the file back ([`merge`]): the results of [`run`](Self::run), where a
    /// killed process's finished runs are not done again.
    ///
    /// Errors: as [`Shard::run_into`] and [`merge`].
    pub fn run_resumable(&self, path: impl AsRef<Path>) -> Result<Results> {
        self.shard(0, 1)?.run_into(path.as_ref())?;
        merge(&[path.as_ref()])
    }
}

impl Shard<'_> {
    /// `(k, n)`.
    pub fn position(&self) -> (usize, usize) {
        (self.k, self.n)
    }

    fn keys(&self) -> Result<(Vec<Resolved>, Vec<RunKey>, String)> {
        let exp = self.experiment;
        let resolved = exp.resolve()?;
        let keys = exp.enumerate(&resolved);
        let grid = fingerprint(exp, &resolved, &keys);
        Ok((resolved, keys, grid))
    }

    /// The grid's fingerprint: FNV-1a (64 bits, hex) of the problem names and sizes and
    /// each problem's content digest (tasks' work and memory, jobs' releases and members,
    /// edges, the GPUs, the network, an execution-time matrix: changing the cluster or a
    /// task's work changes the grid), the scheduler specs and labels, every run's (problem, scheduler, seed) in canonical order
    /// and the budget. Shards of one grid share it; results files of another grid are
    /// refused.
    ///
    /// Errors: as [`Experiment::labels`].
    pub fn grid(&self) -> Result<String> {
        Ok(self.keys()?.2)
    }

    /// The shard's runs, in canonical order.
    ///
    /// Errors: as [`Experiment::labels`].
    pub fn runs(&self) -> Result<Vec<RunId>> {
        let (resolved, keys, _) = self.keys()?;
        Ok(keys
            .iter()
            .enumerate()
            .filter(|(i, _)| i % self.n == self.k)
            .map(|(i, key)| self.id(&resolved, i, key))
            .collect())
    }

    fn id(&self, resolved: &[Resolved], index: usize, key: &RunKey) -> RunId {
        RunId {
            index,
            problem: self.experiment.problems.at(key.problem).name.clone(),
            scheduler: resolved[key.scheduler].label.clone(),
            seed: key.seed,
        }
    }

    /// Runs the shard's runs that `path` does not hold yet, appending one [`ShardLine`]
    /// per finished run (the file is created if missing; a partial last line is cut off
    /// first). Runs are validated as in [`Experiment::run`]; with
    /// [`Experiment::parallel`] they run on the rayon pool.
    ///
    /// Errors: [`ExperimentError::Io`] reading or writing `path`;
    /// [`ExperimentError::ResultsLine`] for a line of `path` that is not a [`ShardLine`]
    /// (naming the file and line) or that belongs to another grid; the errors of
    /// [`Experiment::run`] for the first failing run (runs finished before it stay in the
    /// file).
    pub fn run_into(&self, path: impl AsRef<Path>) -> Result<ShardReport> {
        let path = path.as_ref();
        let exp = self.experiment;
        let (resolved, keys, grid) = self.keys()?;
        let ids: Vec<RunId> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| self.id(&resolved, i, k))
            .collect();
        let canonical: Vec<(&str, &str, u64)> = ids
            .iter()
            .map(|r| (r.problem.as_str(), r.scheduler.as_str(), r.seed))
            .collect();
        let resumed = resume(path, &grid, &canonical, [self.k, self.n])?;
        let mine: Vec<usize> = (0..keys.len()).filter(|i| i % self.n == self.k).collect();
        let todo: Vec<usize> = mine
            .iter()
            .copied()
            .filter(|&i| {
                let id = self.id(&resolved, i, &keys[i]);
                !resumed.holds(&id.problem, &id.scheduler, id.seed)
            })
            .collect();
        let appender = &resumed.appender;
        let bar = exp.progress_bar(todo.len() as u64);
        // reused schedulers: one instance per spec for the shard, runs in order
        let mut reused: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let mut single: Vec<Vec<usize>> = Vec::new();
        for &i in &todo {
            let s = keys[i].scheduler;
            if resolved[s].spec.is_reused() {
                reused.entry(s).or_default().push(i);
            } else {
                single.push(vec![i]);
            }
        }
        let jobs: Vec<Vec<usize>> = single.into_iter().chain(reused.into_values()).collect();
        let exec = |runs: &Vec<usize>| -> Option<(usize, ExperimentError)> {
            let r = &resolved[keys[runs[0]].scheduler];
            let mut sched = match r.spec.build(&exp.registry) {
                Ok(s) => s,
                Err(source) => {
                    let e = ExperimentError::Spec {
                        spec: r.spec.to_string(),
                        source: Box::new(source),
                    };
                    return Some((runs[0], e));
                }
            };
            for &i in runs {
                let k = keys[i];
                let p = exp.problems.at(k.problem);
                bar.start(format!("{} · {} · seed {}", r.label, p.name, k.seed));
                let outcome: Outcome = exp.execute(sched.as_mut(), r, p, k.seed);
                bar.done();
                match outcome {
                    Ok((record, _)) => {
                        if let Err(e) = appender.append(i, record, None) {
                            return Some((i, e));
                        }
                    }
                    Err(e) => return Some((i, e)),
                }
            }
            None
        };
        let errors: Vec<(usize, ExperimentError)> = if exp.parallel {
            jobs.par_iter().filter_map(exec).collect()
        } else {
            let mut out = Vec::new();
            for j in &jobs {
                if let Some(e) = exec(j) {
                    out.push(e);
                    break;
                }
            }
            out
        };
        bar.finish_and_clear();
        if let Some((_, e)) = errors.into_iter().min_by_key(|(i, _)| *i) {
            return Err(e);
        }
        Ok(ShardReport {
            runs: mine.len(),
            skipped: mine.len() - todo.len(),
            ran: todo.len(),
            cut_partial_line: resumed.cut_partial_line,
        })
    }
}

/// A results file opened for a resumed shard: the runs it holds and where new ones go.
pub(crate) struct Resumed {
    /// (problem, scheduler or policy label, seed) of every run the file holds.
    present: HashSet<(String, String, u64)>,
    /// Whether a partial last line was cut off.
    pub(crate) cut_partial_line: bool,
    /// Appends the runs done now.
    pub(crate) appender: Appender,
}

impl Resumed {
    /// Whether the file holds the run of `problem`, `label` and `seed`.
    pub(crate) fn holds(&self, problem: &str, label: &str, seed: u64) -> bool {
        self.present
            .contains(&(problem.to_owned(), label.to_owned(), seed))
    }
}

/// Opens `path` (created if missing) to resume shard `shard` (`[k, n]`) of the grid
/// `grid` of `runs` runs: cuts a partial last line, ends a complete unterminated one,
/// lists the runs held. `canonical` is every run's `(problem, label, seed)` in canonical
/// order.
///
/// Errors: [`ExperimentError::Io`] reading or opening `path`; [`ExperimentError::ResultsFile`]
/// for a `path` that exists but is not a regular file (`/dev/null`, a directory), for a
/// line that is not a [`ShardLine`], that belongs to another grid, or whose
/// (problem, label, seed) is not the canonical run at its index (naming the file and line).
pub(crate) fn resume(
    path: &Path,
    grid: &str,
    canonical: &[(&str, &str, u64)],
    shard: [usize; 2],
) -> Result<Resumed> {
    let runs = canonical.len();
    if let Ok(meta) = std::fs::metadata(path)
        && !meta.is_file()
    {
        return Err(ExperimentError::ResultsFile {
            path: path.to_owned(),
            reason: "the results file is not a regular file (a directory, device or pipe such as /dev/null cannot hold the runs appended to it and read back): name a file".into(),
        });
    }
    let read = read_file(path, Read::Resume)?;
    let mut present = HashSet::new();
    for (line_no, l) in &read.lines {
        if l.grid != grid || l.runs != runs {
            return Err(ExperimentError::ResultsLine {
                path: path.to_owned(),
                line: line_no.to_owned(),
                reason: format!(
                    "a run of another grid ({} with fingerprint {}, {} runs; this grid {grid}, {runs} runs): use another results file",
                    l.kind(),
                    l.grid,
                    l.runs
                ),
            });
        }
        check_line(path, *line_no, l, canonical.get(l.index).copied())?;
        present.insert((
            l.record.problem.clone(),
            l.record.scheduler.clone(),
            l.record.seed,
        ));
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| ExperimentError::io(path, e))?;
    if read.unterminated {
        // a complete last line without its newline: end it before appending
        file.write_all(b"\n")
            .and_then(|()| file.flush())
            .map_err(|e| ExperimentError::io(path, e))?;
    }
    Ok(Resumed {
        present,
        cut_partial_line: read.cut_partial_line,
        appender: Appender {
            file: Mutex::new(file),
            path: path.to_owned(),
            grid: grid.to_owned(),
            runs,
            shard,
        },
    })
}

/// Checks a line against the run its index designates (`want`: `(problem, label, seed)`,
/// `None` when the index is out of the grid) and refuses a negative or NaN makespan.
///
/// Errors: [`ExperimentError::ResultsLine`] naming the file and line.
fn check_line(
    path: &Path,
    line_no: usize,
    l: &ShardLine,
    want: Option<(&str, &str, u64)>,
) -> Result<()> {
    let r = &l.record;
    match want {
        None => {
            return Err(ExperimentError::ResultsLine {
                path: path.to_owned(),
                line: line_no.to_owned(),
                reason: format!("run index {} out of the grid's {} runs", l.index, l.runs),
            });
        }
        Some((p, s, seed)) if (p, s, seed) != (&r.problem, &r.scheduler, r.seed) => {
            return Err(ExperimentError::ResultsLine {
                path: path.to_owned(),
                line: line_no.to_owned(),
                reason: format!(
                    "run index {} is {p} · {s} · seed {seed} in the grid's canonical order, but the line says {} · {} · seed {}: an edited or foreign line, remove it",
                    l.index, r.problem, r.scheduler, r.seed
                ),
            });
        }
        Some(_) => {}
    }
    check_measures(path, line_no, l)
}

/// Refuses a record whose makespan is negative or NaN (a corrupted line).
///
/// Errors: [`ExperimentError::ResultsLine`] naming the file and line.
fn check_measures(path: &Path, line_no: usize, l: &ShardLine) -> Result<()> {
    let m = l.record.makespan;
    if m.is_nan() || m < 0.0 {
        return Err(ExperimentError::ResultsLine {
            path: path.to_owned(),
            line: line_no.to_owned(),
            reason: format!(
                "makespan {m} of run index {} ({} · {} · seed {}) is not a valid measure: a corrupted line",
                l.index, l.record.problem, l.record.scheduler, l.record.seed
            ),
        });
    }
    Ok(())
}

/// Checks the runs of a complete merge against the shape of a canonical order: problems
/// outermost, in contiguous blocks of distinct problems; every problem's block holds the
/// same sequence of (label, seed) as the first problem's; no run twice. A hand-edited line
/// whose (problem, label, seed) is not the run its index designates breaks one of these.
///
/// Errors: [`ExperimentError::OutOfOrder`] naming the file and line of the first run index
/// that breaks the order (and the line it disagrees with).
fn check_canonical(slots: &BTreeMap<usize, Slot>) -> Result<()> {
    let lines: Vec<&Slot> = slots.values().collect();
    let at = |i: usize| {
        let (l, _, path, line_no) = lines[i];
        format!(
            "{}:{line_no} (run index {}: {} · {} · seed {})",
            path.display(),
            l.index,
            l.record.problem,
            l.record.scheduler,
            l.record.seed
        )
    };
    let bad = |i: usize, why: String| {
        let (l, _, path, line_no) = lines[i];
        ExperimentError::OutOfOrder {
            path: path.clone(),
            line: *line_no,
            run: format!(
                "run index {}: {} · {} · seed {}",
                l.index, l.record.problem, l.record.scheduler, l.record.seed
            ),
            why,
        }
    };
    let mut seen_runs: HashMap<(&str, &str, u64), usize> = HashMap::new();
    let mut seen_problems: HashSet<&str> = HashSet::new();
    // the first problem's runs: (label, seed) and their position in `lines`
    let mut first_block: Vec<((&str, u64), usize)> = Vec::new();
    let mut block_start = 0usize;
    for (i, (l, ..)) in lines.iter().enumerate() {
        let r = &l.record;
        if let Some(&j) = seen_runs.get(&(r.problem.as_str(), r.scheduler.as_str(), r.seed)) {
            return Err(bad(i, format!("the same run as {}", at(j))));
        }
        seen_runs.insert((r.problem.as_str(), r.scheduler.as_str(), r.seed), i);
        if i == 0 || lines[i - 1].0.record.problem != r.problem {
            if seen_problems.len() > 1 && i - block_start != first_block.len() {
                let prev = &lines[i - 1].0.record.problem;
                return Err(bad(
                    i,
                    format!(
                        "it follows {} runs of problem {prev}, the first problem has {}",
                        i - block_start,
                        first_block.len()
                    ),
                ));
            }
            if !seen_problems.insert(r.problem.as_str()) {
                return Err(bad(
                    i,
                    format!("problem {} had its runs before, not adjacent", r.problem),
                ));
            }
            block_start = i;
        }
        let pos = i - block_start;
        let here = (r.scheduler.as_str(), r.seed);
        if seen_problems.len() == 1 {
            first_block.push((here, i));
        } else {
            match first_block.get(pos) {
                Some((want, _)) if *want == here => {}
                Some((_, j)) => {
                    return Err(bad(
                        i,
                        format!("the first problem's run at this position is {}", at(*j)),
                    ));
                }
                None => {
                    return Err(bad(
                        i,
                        format!("the first problem has only {} runs", first_block.len()),
                    ));
                }
            }
        }
        if i + 1 == lines.len() && seen_problems.len() > 1 && pos + 1 != first_block.len() {
            return Err(bad(
                i,
                format!(
                    "problem {} has {} runs, the first problem {}",
                    r.problem,
                    pos + 1,
                    first_block.len()
                ),
            ));
        }
    }
    Ok(())
}

/// A merged run: its line, its [`comparable`] JSON, and the file and line it was read from.
type Slot = (ShardLine, serde_json::Value, PathBuf, usize);

/// Appends finished runs to a results file, one whole flushed [`ShardLine`] each (safe
/// from several threads).
pub(crate) struct Appender {
    file: Mutex<std::fs::File>,
    path: PathBuf,
    grid: String,
    runs: usize,
    shard: [usize; 2],
}

impl Appender {
    /// Appends run `index`'s line.
    ///
    /// Errors: [`ExperimentError::Io`] writing the file.
    pub(crate) fn append(
        &self,
        index: usize,
        record: RunRecord,
        sim: Option<SimLine>,
    ) -> Result<()> {
        let line = ShardLine {
            grid: self.grid.clone(),
            runs: self.runs,
            index,
            shard: self.shard,
            record,
            sim,
        };
        let mut text = serde_json::to_string(&line).expect("a results line serialises");
        text.push('\n');
        let mut f = self.file.lock().unwrap_or_else(|e| e.into_inner());
        f.write_all(text.as_bytes())
            .and_then(|()| f.flush())
            .map_err(|e| ExperimentError::io(&self.path, e))
    }
}

/// Joins results files of the shards of one grid into [`Results`]: every run once, in
/// canonical order, schedulers in experiment order: what [`Experiment::run`] returns
/// (wall times aside). A file may hold several shards' lines; a run found on several lines
/// counts once when the lines agree (records equal bit for bit, wall time aside); a
/// partial last line (without its newline, not parsing) is ignored, a complete last line
/// without its newline is read. A simulation study's files merge with
/// [`simulation::merge`](crate::simulation::merge) (or [`merge_any`]).
///
/// Errors: [`ExperimentError::Io`] reading a file, naming it (a missing file included);
/// [`ExperimentError::ResultsLine`] for a line that is not a [`ShardLine`], for a simulation
/// study's line or for files of different grids (naming file and line, and the other file);
/// [`ExperimentError::ConflictingRuns`] for two lines of one run index whose records differ
/// (naming both lines and the first differing field); [`ExperimentError::OutOfOrder`] for a
/// line out of the grid's canonical order; [`ExperimentError::Merge`] for no line at all, or
/// for missing runs (naming how many, and the first missing index with the shard `index % n`
/// of `n` that should have run it).
pub fn merge<P: AsRef<Path>>(paths: &[P]) -> Result<Results> {
    let lines = merge_lines(paths, Some(false))?;
    Ok(Results::from_records(
        lines.into_iter().map(|l| l.record).collect(),
    ))
}

/// What [`merge_any`] joined: an experiment's results or a simulation study's outcome.
#[derive(Clone, Debug)]
pub enum Merged {
    /// Shards of an [`Experiment`] (`worl compare --shard`): as [`merge`].
    Experiment(Results),
    /// Shards of a [`SimStudy`](crate::simulation::SimStudy) (`worl simulate --shard`):
    /// as [`simulation::merge`](crate::simulation::merge).
    Simulation(crate::simulation::SimOutcome),
}

/// Joins results files of the shards of one grid, whichever kind of grid: an
/// experiment's ([`merge`]) or a simulation study's
/// ([`simulation::merge`](crate::simulation::merge)); the kind is that of the first line.
///
/// Errors: as [`merge`]; a file holding the other kind of run than the first file is
/// [`ExperimentError::ResultsLine`] naming both files.
pub fn merge_any<P: AsRef<Path>>(paths: &[P]) -> Result<Merged> {
    let lines = merge_lines(paths, None)?;
    Ok(if lines.first().is_some_and(|l| l.sim.is_some()) {
        Merged::Simulation(crate::simulation::SimOutcome::from_lines(lines))
    } else {
        Merged::Experiment(Results::from_records(
            lines.into_iter().map(|l| l.record).collect(),
        ))
    })
}

/// The lines of one grid from results files, every run once, in canonical order
/// (see [`merge`]); `sim`: `Some(true)` for a simulation study's lines only, `Some(false)`
/// for an experiment's only, `None` for those of the first line's kind.
///
/// Errors: as [`merge`].
pub(crate) fn merge_lines<P: AsRef<Path>>(
    paths: &[P],
    sim: Option<bool>,
) -> Result<Vec<ShardLine>> {
    let mut grid: Option<(String, usize, PathBuf)> = None;
    // the kind of the lines, and where it was first seen
    let mut kind: Option<(bool, PathBuf)> = None;
    // per run index found: the line, its normalised JSON, and where it was read (a map,
    // not a slot per run: a line may claim any run count, e.g. u64::MAX)
    let mut slots: BTreeMap<usize, Slot> = BTreeMap::new();
    let mut runs_of_grid = 0usize;
    let mut shards_seen: usize = 0;
    for p in paths {
        let path = p.as_ref();
        let read = read_file(path, Read::Merge)?;
        for (line_no, l) in read.lines {
            let is_sim = l.sim.is_some();
            if let Some(want) = sim.filter(|w| *w != is_sim) {
                let how = if want {
                    "worl compare's files merge with shard::merge"
                } else {
                    "a simulation study's files merge with simulation::merge"
                };
                return Err(ExperimentError::ResultsLine {
                    path: path.to_owned(),
                    line: line_no.to_owned(),
                    reason: format!(
                        "a run of {}, not of {}: {how} (worl merge takes either)",
                        l.kind(),
                        if want {
                            "a simulation study"
                        } else {
                            "an experiment"
                        }
                    ),
                });
            }
            match &kind {
                None => kind = Some((is_sim, path.to_owned())),
                Some((k, first)) if *k != is_sim => {
                    return Err(ExperimentError::ResultsLine {
                        path: path.to_owned(),
                        line: line_no.to_owned(),
                        reason: format!(
                            "a run of {}, but {} holds runs of {}: shards of different kinds of grid (`worl simulate` and `worl compare`) do not merge",
                            l.kind(),
                            first.display(),
                            if *k {
                                "a simulation study"
                            } else {
                                "an experiment"
                            }
                        ),
                    });
                }
                Some(_) => {}
            }
            match &grid {
                None => {
                    runs_of_grid = l.runs;
                    grid = Some((l.grid.clone(), l.runs, path.to_owned()));
                }
                Some((g, runs, first)) if *g != l.grid || *runs != l.runs => {
                    return Err(ExperimentError::ResultsLine {
                        path: path.to_owned(),
                        line: line_no.to_owned(),
                        reason: format!(
                            "a run of grid {} ({} runs), but {} holds grid {g} ({runs} runs): shards of different {}",
                            l.grid,
                            l.runs,
                            first.display(),
                            if is_sim {
                                "simulation studies"
                            } else {
                                "experiments"
                            }
                        ),
                    });
                }
                Some(_) => {}
            }
            if l.index >= runs_of_grid {
                return Err(ExperimentError::ResultsLine {
                    path: path.to_owned(),
                    line: line_no.to_owned(),
                    reason: format!(
                        "run index {} out of the grid's {runs_of_grid} runs",
                        l.index
                    ),
                });
            }
            check_measures(path, line_no, &l)?;
            shards_seen = shards_seen.max(l.shard[1]);
            let key = comparable(&l);
            match slots.get(&l.index) {
                None => {
                    slots.insert(l.index, (l, key, path.to_owned(), line_no));
                }
                Some((_, first_key, first_path, first_line)) if *first_key != key => {
                    return Err(ExperimentError::ConflictingRuns {
                        path: path.to_owned(),
                        line: line_no,
                        first_path: first_path.clone(),
                        first_line: *first_line,
                        reason: format!(
                            "two different records of run {} (index {}; {} · {} · seed {}; {} differs): a run done twice with different results, keep one of the lines",
                            l.index + 1,
                            l.index,
                            l.record.problem,
                            l.record.scheduler,
                            l.record.seed,
                            first_difference(first_key, &key),
                        ),
                    });
                }
                Some(_) => {} // the same run again
            }
        }
    }
    if grid.is_none() {
        return Err(ExperimentError::Merge {
            reason: "no finished run in the results files".into(),
        });
    }
    if slots.len() < runs_of_grid {
        // the first index without a line: the keys are sorted and below the run count
        let first = slots
            .keys()
            .enumerate()
            .find(|(i, k)| *i != **k)
            .map_or(slots.len(), |(i, _)| i);
        let n = shards_seen.max(1);
        return Err(ExperimentError::Merge {
            reason: format!(
                "{} of {runs_of_grid} runs missing; the first is run {} of {runs_of_grid} (index {first}), of shard {}/{n}",
                runs_of_grid - slots.len(),
                first + 1,
                first % n
            ),
        });
    }
    check_canonical(&slots)?;
    Ok(slots.into_values().map(|r| r.0).collect())
}

/// A line's record as JSON without its wall time, and a simulation's measures (as
/// `sim.NAME` fields) without the decision latencies: two runs of one grid index that agree
/// on it are the same run (floats go through JSON exactly; NaN is `null` on both sides).
fn comparable(line: &ShardLine) -> serde_json::Value {
    let mut v = serde_json::to_value(&line.record).expect("a record serialises");
    if let Some(o) = v.as_object_mut() {
        o.remove("wall_time_s");
        if let Some(sim) = &line.sim {
            for (k, x) in sim.comparable() {
                o.insert(format!("sim.{k}"), x);
            }
        }
    }
    v
}

/// The first field (in record order) where two [`comparable`] records differ.
fn first_difference(a: &serde_json::Value, b: &serde_json::Value) -> String {
    if let (Some(a), Some(b)) = (a.as_object(), b.as_object()) {
        for (k, va) in a {
            match b.get(k) {
                Some(vb) if vb == va => {}
                Some(vb) if k != "convergence" && k != "tags" && k != "sim.jcts" => {
                    return format!("`{k}`: {vb} vs {va}");
                }
                _ => return format!("`{k}`"),
            }
        }
        if let Some(k) = b.keys().find(|k| !a.contains_key(*k)) {
            return format!("`{k}`");
        }
    }
    "the record".into()
}

/// Reads the lines of a results file (empty when the file is missing), with their 1-based
/// line numbers; a partial last line (without its newline and not parsing as a
/// [`ShardLine`]) is left out, a complete one without its newline is read.
///
/// Errors: [`ExperimentError::Io`] reading the file; [`ExperimentError::ResultsLine`] for a
/// line that is not a [`ShardLine`], naming the file and line.
pub fn read_lines(path: impl AsRef<Path>) -> Result<Vec<(usize, ShardLine)>> {
    Ok(read_file(path.as_ref(), Read::Lines)?.lines)
}

/// Why a results file is read.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Read {
    /// [`Shard::run_into`]: a missing file is empty, a partial last line is cut off.
    Resume,
    /// [`read_lines`]: a missing file is empty.
    Lines,
    /// [`merge`]: a missing file is an error.
    Merge,
}

/// What [`read_file`] found.
struct FileLines {
    lines: Vec<(usize, ShardLine)>,
    /// A partial last line was cut off the file ([`Read::Resume`] only).
    cut_partial_line: bool,
    /// The last line is complete but has no newline.
    unterminated: bool,
}

fn read_file(path: &Path, why: Read) -> Result<FileLines> {
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && why != Read::Merge => {
            return Ok(FileLines {
                lines: Vec::new(),
                cut_partial_line: false,
                unterminated: false,
            });
        }
        Err(e) => return Err(ExperimentError::io(path, e)),
    };
    // the text after the last newline: a complete line, or a killed writer's partial one
    // (which may end inside a UTF-8 sequence)
    let complete = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let body =
        std::str::from_utf8(&text[..complete]).map_err(|e| ExperimentError::ResultsFile {
            path: path.to_owned(),
            reason: format!("not UTF-8 text: {e}"),
        })?;
    let tail = std::str::from_utf8(&text[complete..]).unwrap_or("\u{FFFD}");
    let mut out = Vec::new();
    for (i, line) in body.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let l: ShardLine =
            serde_json::from_str(line).map_err(|e| ExperimentError::ResultsLine {
                path: path.to_owned(),
                line: i + 1,
                reason: format!("not a results line: {e}"),
            })?;
        out.push((i + 1, l));
    }
    let tail_line = body.lines().count() + 1;
    let (mut cut, mut unterminated) = (false, false);
    if !tail.trim().is_empty() {
        match serde_json::from_str::<ShardLine>(tail) {
            Ok(l) => {
                out.push((tail_line, l));
                unterminated = true;
            }
            Err(_) if why == Read::Resume => {
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| ExperimentError::io(path, e))?;
                f.set_len(complete as u64)
                    .map_err(|e| ExperimentError::io(path, e))?;
                cut = true;
            }
            Err(_) => {}
        }
    } else if !tail.is_empty() && why == Read::Resume {
        // blanks after the last newline: end them so appended lines start a line
        unterminated = true;
    }
    Ok(FileLines {
        lines: out,
        cut_partial_line: cut,
        unterminated,
    })
}

/// FNV-1a, 64 bits, of the grid's description (see [`Shard::grid`]).
fn fingerprint(exp: &Experiment, resolved: &[Resolved], keys: &[RunKey]) -> String {
    let mut text = String::new();
    for p in exp.problems.iter() {
        text.push_str(&format!(
            "problem\t{}\t{}\t{}\t{}\n",
            p.name,
            p.problem.n_tasks(),
            p.problem.n_gpus(),
            problem_digest(&p.problem)
        ));
    }
    for r in resolved {
        text.push_str(&format!("scheduler\t{}\t{}\n", r.spec, r.label));
    }
    for k in keys {
        text.push_str(&format!(
            "run\t{}\t{}\t{}\n",
            k.problem, k.scheduler, k.seed
        ));
    }
    text.push_str(&format!(
        "budget\t{:?}\t{:?}\n",
        exp.budget.max_evaluations, exp.budget.max_time
    ));
    fnv1a(&text)
}

/// FNV-1a, 64 bits, of `text`, as 16 hex digits: a grid's fingerprint.
pub(crate) fn fnv1a(text: &str) -> String {
    let mut h = Fnv1a::new();
    h.bytes(text.as_bytes());
    format!("{:016x}", h.0)
}

/// Streaming FNV-1a, 64 bits (offset basis `0xcbf29ce484222325`, prime `0x100000001b3`):
/// stable across processes and platforms, unlike `std`'s `DefaultHasher`.
pub(crate) struct Fnv1a(u64);

impl Fnv1a {
    /// The empty input's state.
    pub(crate) fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }

    /// Feeds `bytes`.
    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// Feeds `x` as 8 little-endian bytes.
    pub(crate) fn u64(&mut self, x: u64) {
        self.bytes(&x.to_le_bytes());
    }

    /// Feeds `x`'s bits ([`f64::to_bits`]; `0.0` and `-0.0` differ).
    pub(crate) fn f64(&mut self, x: f64) {
        self.u64(x.to_bits());
    }

    /// Feeds a string, length first (so `"ab","c"` and `"a","bc"` differ).
    pub(crate) fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.bytes(s.as_bytes());
    }
}

/// Content digest of a problem, 16 hex digits: streamed [`Fnv1a`] over every number that
/// decides a schedule — per task its work and memory need, per job its release and member
/// tasks, per edge `(from, to, bytes)`, per GPU its model name, machine, speed, memory,
/// ready time and background utilisation, the network (uniform: intra and inter links;
/// per machine pair: every bandwidth and latency) and, on unrelated machines, the
/// execution-time matrix. Costs O(n + e + m + links) (plus n·m for an execution-time
/// matrix). Two problems of equal content built separately have the same digest; part of
/// the grid fingerprints of [`Shard::grid`] and
/// [`SimShard::grid`](crate::simulation::SimShard::grid).
pub(crate) fn problem_digest(problem: &worl_cluster::Problem) -> String {
    let mut h = Fnv1a::new();
    let workload = problem.workload();
    let graph = workload.graph();
    h.bytes(b"tasks");
    h.u64(graph.n_tasks() as u64);
    for (_, t) in graph.tasks() {
        h.f64(t.work);
        match t.mem_gib {
            Some(m) => {
                h.u64(1);
                h.f64(m);
            }
            None => h.u64(0),
        }
        h.u64(t.job.index() as u64);
    }
    h.bytes(b"jobs");
    h.u64(workload.jobs().len() as u64);
    for j in workload.jobs() {
        h.f64(j.release);
        h.u64(j.tasks.len() as u64);
        for t in &j.tasks {
            h.u64(t.index() as u64);
        }
    }
    h.bytes(b"edges");
    for e in graph.edges() {
        h.u64(e.from.index() as u64);
        h.u64(e.to.index() as u64);
        h.f64(e.bytes);
    }
    let cluster = problem.cluster();
    h.bytes(b"gpus");
    h.u64(cluster.n_gpus() as u64);
    for g in cluster.gpus() {
        h.str(&g.model);
        h.u64(g.machine.index() as u64);
        h.f64(g.speed);
        h.f64(g.mem_gib);
        h.f64(g.ready_time);
        h.f64(g.background);
    }
    h.bytes(b"network");
    h.u64(cluster.n_machines() as u64);
    match cluster.network() {
        worl_cluster::Network::Uniform { intra, inter } => {
            h.u64(0);
            for l in [intra, inter] {
                h.f64(l.bandwidth);
                h.f64(l.latency);
            }
        }
        worl_cluster::Network::PerMachinePair { bandwidth, latency } => {
            h.u64(1);
            h.u64(bandwidth.len() as u64);
            for (b, l) in bandwidth.iter().zip(latency.iter()) {
                h.f64(*b);
                h.f64(*l);
            }
        }
    }
    if problem.is_unrelated() {
        h.bytes(b"exec");
        for v in 0..problem.n_tasks() {
            for k in 0..problem.n_gpus() {
                h.f64(problem.exec_time(worl_dag::TaskId::new(v), worl_cluster::GpuId::new(k)));
            }
        }
    }
    format!("{:016x}", h.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NamedProblem, ProblemSet};
    use std::sync::Arc;
    use worl_cluster::{GpuModel, Problem, presets};
    use worl_dag::generators::shapes;

    fn experiment() -> Experiment {
        let cluster = Arc::new(presets::homogeneous(3, &GpuModel::v100_16gb()).unwrap());
        let mut problems = ProblemSet::new();
        for n in [3, 5, 7] {
            let w = Arc::new(shapes::fork_join(n, 10.0, 1e6).unwrap());
            problems
                .push(NamedProblem::new(
                    format!("fj-{n}"),
                    Problem::new(w, cluster.clone()).unwrap(),
                ))
                .unwrap();
        }
        Experiment::new(problems)
            .schedulers(["heft", "cpop", "min-min"])
            .quiet(true)
    }

    fn same(a: &Results, b: &Results) {
        assert_eq!(a.schedulers(), b.schedulers());
        assert_eq!(a.records().len(), b.records().len());
        for (x, y) in a.records().iter().zip(b.records()) {
            let (mut x, mut y) = (x.clone(), y.clone());
            x.clear_timings();
            y.clear_timings();
            assert_eq!(x, y);
        }
    }

    #[test]
    fn shards_partition_the_grid_round_robin() {
        let exp = experiment();
        assert_eq!(exp.n_runs().unwrap(), 9);
        let mut all: Vec<usize> = Vec::new();
        for k in 0..4 {
            let runs = exp.shard(k, 4).unwrap().runs().unwrap();
            assert!(runs.iter().all(|r| r.index % 4 == k));
            all.extend(runs.iter().map(|r| r.index));
        }
        all.sort_unstable();
        assert_eq!(all, (0..9).collect::<Vec<_>>());
        let s1 = exp.shard(1, 4).unwrap().runs().unwrap();
        assert_eq!(
            (
                s1[0].index,
                s1[0].problem.as_str(),
                s1[0].scheduler.as_str()
            ),
            (1, "fj-3", "CPOP")
        );
        assert!(exp.shard(4, 4).is_err() && exp.shard(0, 0).is_err());
    }

    #[test]
    fn merged_shards_equal_the_single_run_and_resume_skips() {
        let exp = experiment();
        let single = exp.run().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<PathBuf> = (0..4)
            .map(|k| dir.path().join(format!("{k}.jsonl")))
            .collect();
        for (k, f) in files.iter().enumerate() {
            let r = exp.shard(k, 4).unwrap().run_into(f).unwrap();
            assert_eq!((r.skipped, r.ran), (0, r.runs));
        }
        // files in any order
        let rev: Vec<&PathBuf> = files.iter().rev().collect();
        same(&merge(&rev).unwrap(), &single);
        // a killed writer: cut shard 0's last line in half, resume redoes just that run
        let text = std::fs::read_to_string(&files[0]).unwrap();
        let n_lines = text.lines().count();
        let keep = text.len() - text.lines().last().unwrap().len() / 2 - 1;
        std::fs::write(&files[0], &text[..keep]).unwrap();
        assert!(
            merge(&files)
                .unwrap_err()
                .to_string()
                .contains("1 of 9 runs missing")
        );
        let r = exp.shard(0, 4).unwrap().run_into(&files[0]).unwrap();
        assert_eq!(
            (r.skipped, r.ran, r.cut_partial_line),
            (n_lines - 1, 1, true)
        );
        same(&merge(&files).unwrap(), &single);
        // and a whole resumable run in one file
        let one = dir.path().join("all.jsonl");
        same(&exp.run_resumable(&one).unwrap(), &single);
        assert_eq!(exp.shard(0, 1).unwrap().run_into(&one).unwrap().ran, 0);
    }

    #[test]
    fn refuses_other_grids_and_bad_lines() {
        let exp = experiment();
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("r.jsonl");
        exp.shard(0, 2).unwrap().run_into(&f).unwrap();
        let other = experiment().seeds([1, 2]).scheduler("rtgs");
        let e = other
            .shard(1, 2)
            .unwrap()
            .run_into(&f)
            .unwrap_err()
            .to_string();
        assert!(e.contains("r.jsonl:1: a run of another grid"), "{e}");
        std::fs::write(&f, "{\"grid\": 1}\n").unwrap();
        let e = merge(&[&f]).unwrap_err().to_string();
        assert!(e.contains("r.jsonl:1: not a results line"), "{e}");
    }

    #[test]
    fn merge_missing_file_is_an_error() {
        let exp = experiment();
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("0.jsonl");
        exp.shard(0, 1).unwrap().run_into(&f).unwrap();
        let absent = dir.path().join("absent.jsonl");
        let e = merge(&[&f, &absent]).unwrap_err();
        assert!(
            matches!(e, ExperimentError::Io { ref path, .. } if *path == absent),
            "{e}"
        );
        assert!(e.to_string().contains("absent.jsonl"), "{e}");
        // read_lines and a resume still treat a missing file as empty
        assert!(read_lines(&absent).unwrap().is_empty());
    }

    #[test]
    fn merge_conflicting_duplicate_run_is_an_error() {
        let exp = experiment();
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.jsonl");
        exp.shard(0, 1).unwrap().run_into(&a).unwrap();
        let text = std::fs::read_to_string(&a).unwrap();
        let first = text.lines().next().unwrap();
        // the same run again, another wall time: one run
        let mut same: ShardLine = serde_json::from_str(first).unwrap();
        same.record.wall_time_s += 1.0;
        let b = dir.path().join("b.jsonl");
        std::fs::write(&b, format!("{}\n", serde_json::to_string(&same).unwrap())).unwrap();
        assert_eq!(merge(&[&a, &b]).unwrap().records().len(), 9);
        // the same run index with another makespan: refused, naming both lines
        let mut other = same.clone();
        other.record.makespan += 1.0;
        std::fs::write(&b, format!("{}\n", serde_json::to_string(&other).unwrap())).unwrap();
        let e = merge(&[&a, &b]).unwrap_err().to_string();
        assert!(
            e.contains("b.jsonl:1 and ") && e.contains("a.jsonl:1:"),
            "{e}"
        );
        assert!(
            e.contains("two different records of run 1 (index 0;"),
            "{e}"
        );
        assert!(e.contains("`makespan`"), "{e}");
        assert_eq!(
            merge(&[&a, &b]).unwrap_err().to_string(),
            e,
            "deterministic message"
        );
    }

    #[test]
    fn merge_last_line_without_newline_is_kept() {
        let exp = experiment();
        let single = exp.run().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("all.jsonl");
        exp.shard(0, 1).unwrap().run_into(&f).unwrap();
        let text = std::fs::read_to_string(&f).unwrap();
        let trimmed = text.strip_suffix('\n').unwrap();
        std::fs::write(&f, trimmed).unwrap();
        // merge reads the complete unterminated line
        same(&merge(&[&f]).unwrap(), &single);
        assert_eq!(read_lines(&f).unwrap().len(), 9);
        // a resume keeps it (nothing to redo) and ends it with a newline
        let r = exp.shard(0, 1).unwrap().run_into(&f).unwrap();
        assert_eq!((r.skipped, r.ran, r.cut_partial_line), (9, 0, false));
        assert_eq!(std::fs::read_to_string(&f).unwrap(), text);
        // a last line that does not parse is still partial: ignored by merge, cut by resume
        std::fs::write(&f, &text[..text.len() - 10]).unwrap();
        assert!(
            merge(&[&f])
                .unwrap_err()
                .to_string()
                .contains("1 of 9 runs missing")
        );
        let r = exp.shard(0, 1).unwrap().run_into(&f).unwrap();
        assert_eq!((r.skipped, r.ran, r.cut_partial_line), (8, 1, true));
        same(&merge(&[&f]).unwrap(), &single);
    }

    /// The experiment of [`experiment`] on 3 GPUs of `model`, fork-joins of task work `work`.
    fn experiment_on(model: &GpuModel, work: f64) -> Experiment {
        let cluster = Arc::new(presets::homogeneous(3, model).unwrap());
        let mut problems = ProblemSet::new();
        for n in [3, 5, 7] {
            let w = Arc::new(shapes::fork_join(n, work, 1e6).unwrap());
            problems
                .push(NamedProblem::new(
                    format!("fj-{n}"),
                    Problem::new(w, cluster.clone()).unwrap(),
                ))
                .unwrap();
        }
        Experiment::new(problems)
            .schedulers(["heft", "cpop", "min-min"])
            .quiet(true)
    }

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        // FNV-1a 64 test vectors (Fowler, Noll, Vo): "" and "a"
        assert_eq!(fnv1a(""), "cbf29ce484222325");
        assert_eq!(fnv1a("a"), "af63dc4c8601ec8c");
        assert_eq!(fnv1a("foobar"), "85944171f73967e8");
    }

    #[test]
    fn grid_covers_the_problems_content() {
        let grid = |e: &Experiment| e.shard(0, 1).unwrap().grid().unwrap();
        let base = grid(&experiment());
        // same content built twice: same grid
        assert_eq!(grid(&experiment()), base);
        assert_eq!(grid(&experiment_on(&GpuModel::v100_16gb(), 10.0)), base);
        // another cluster of the same size: another grid
        assert_ne!(grid(&experiment_on(&GpuModel::a100_80gb(), 10.0)), base);
        // another task work: another grid
        assert_ne!(grid(&experiment_on(&GpuModel::v100_16gb(), 400.0)), base);
        // a results file of the old grid is refused by a resume of the new one
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("r.jsonl");
        experiment().shard(0, 1).unwrap().run_into(&f).unwrap();
        let e = experiment_on(&GpuModel::a100_80gb(), 10.0)
            .shard(0, 1)
            .unwrap()
            .run_into(&f)
            .unwrap_err()
            .to_string();
        assert!(e.contains("r.jsonl:1: a run of another grid"), "{e}");
    }

    #[test]
    fn problem_digest_sees_every_number_and_is_stable() {
        let cluster = |inter: f64| {
            let mut b = worl_cluster::ClusterBuilder::new("c");
            for m in 0..2 {
                let id = b.add_machine(format!("m{m}"));
                b.add_gpu(id, &GpuModel::v100_16gb()).unwrap();
            }
            b.network(worl_cluster::Network::uniform(
                worl_cluster::Link::NVLINK2,
                worl_cluster::Link::new(inter, 1e-5).unwrap(),
            ));
            Arc::new(b.build().unwrap())
        };
        let workload = |bytes: f64| Arc::new(shapes::fork_join(3, 10.0, bytes).unwrap());
        let digest = |inter: f64, bytes: f64| {
            problem_digest(&Problem::new(workload(bytes), cluster(inter)).unwrap())
        };
        let base = digest(1e9, 1e6);
        assert_eq!(base.len(), 16);
        assert_eq!(digest(1e9, 1e6), base);
        assert_ne!(digest(2e9, 1e6), base, "network bandwidth");
        assert_ne!(digest(1e9, 2e6), base, "edge bytes");
        // a ready time
        let mut c = (*cluster(1e9)).clone();
        c.set_ready_time(worl_cluster::GpuId::new(1), 5.0).unwrap();
        let p = Problem::new(workload(1e6), Arc::new(c)).unwrap();
        assert_ne!(problem_digest(&p), base, "ready time");
        // a GPU model of another name and memory, speed equal
        let mut b = worl_cluster::ClusterBuilder::new("c");
        for m in 0..2 {
            let id = b.add_machine(format!("m{m}"));
            b.add_gpu(id, &GpuModel::v100_32gb()).unwrap();
        }
        b.network(worl_cluster::Network::uniform(
            worl_cluster::Link::NVLINK2,
            worl_cluster::Link::new(1e9, 1e-5).unwrap(),
        ));
        let p = Problem::new(workload(1e6), Arc::new(b.build().unwrap())).unwrap();
        assert_ne!(problem_digest(&p), base, "GPU model");
    }

    /// Rewrites line `line` (0-based) of `f` with `edit`.
    fn edit_line(f: &Path, line: usize, mut edit: impl FnMut(&mut ShardLine)) {
        let text = std::fs::read_to_string(f).unwrap();
        let mut out = String::new();
        for (i, l) in text.lines().enumerate() {
            if i == line {
                let mut x: ShardLine = serde_json::from_str(l).unwrap();
                edit(&mut x);
                out.push_str(&serde_json::to_string(&x).unwrap());
            } else {
                out.push_str(l);
            }
            out.push('\n');
        }
        std::fs::write(f, out).unwrap();
    }

    #[test]
    fn merge_and_resume_refuse_a_line_relabelled_against_its_index() {
        let exp = experiment();
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("r.jsonl");
        exp.shard(0, 1).unwrap().run_into(&f).unwrap();
        let clean = std::fs::read_to_string(&f).unwrap();
        // run index 0 is fj-3 · HEFT · seed 0; the edited line claims seed 7
        edit_line(&f, 0, |l| l.record.seed = 7);
        let e = merge(&[&f]).unwrap_err().to_string();
        assert!(e.contains("does not fit the grid's canonical order"), "{e}");
        assert!(
            e.contains("r.jsonl:1 (run index 0: fj-3 · HEFT · seed 7)"),
            "{e}"
        );
        let e = exp
            .shard(0, 1)
            .unwrap()
            .run_into(&f)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("r.jsonl:1: run index 0 is fj-3 · HEFT · seed 0 in the grid's canonical order, but the line says fj-3 · HEFT · seed 7"),
            "{e}"
        );
        // another problem's label on index 4 (fj-5 · CPOP): refused by merge and resume
        std::fs::write(&f, &clean).unwrap();
        edit_line(&f, 4, |l| l.record.problem = "fj-7".into());
        let e = merge(&[&f]).unwrap_err().to_string();
        assert!(
            e.contains("r.jsonl:5 (run index 4: fj-7 · CPOP · seed 0)"),
            "{e}"
        );
        let e = exp
            .shard(0, 1)
            .unwrap()
            .run_into(&f)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("r.jsonl:5: run index 4 is fj-5 · CPOP · seed 0"),
            "{e}"
        );
        // the labels of two runs swapped between their lines
        std::fs::write(&f, &clean).unwrap();
        edit_line(&f, 0, |l| l.record.scheduler = "CPOP".into());
        edit_line(&f, 1, |l| l.record.scheduler = "HEFT".into());
        let e = merge(&[&f]).unwrap_err().to_string();
        assert!(
            e.contains("r.jsonl:4 (run index 3: fj-5 · HEFT · seed 0)"),
            "{e}"
        );
        assert!(
            e.contains("r.jsonl:1 (run index 0: fj-3 · CPOP · seed 0)"),
            "{e}"
        );
        // a negative makespan
        std::fs::write(&f, &clean).unwrap();
        edit_line(&f, 2, |l| l.record.makespan = -1.0);
        let e = merge(&[&f]).unwrap_err().to_string();
        assert!(e.contains("r.jsonl:3: makespan -1 of run index 2"), "{e}");
        // the clean file still merges
        std::fs::write(&f, &clean).unwrap();
        assert_eq!(merge(&[&f]).unwrap().records().len(), 9);
    }

    #[test]
    fn a_results_file_that_is_not_a_regular_file_is_refused_up_front() {
        let exp = experiment();
        let dir = tempfile::tempdir().unwrap();
        let e = exp
            .shard(0, 1)
            .unwrap()
            .run_into(dir.path())
            .unwrap_err()
            .to_string();
        assert!(e.contains("the results file is not a regular file"), "{e}");
        #[cfg(unix)]
        {
            let e = exp.run_resumable("/dev/null").unwrap_err().to_string();
            assert!(
                e.starts_with("/dev/null: the results file is not a regular file"),
                "{e}"
            );
        }
    }

    #[test]
    fn missing_run_messages_count_from_one() {
        let exp = experiment();
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("r.jsonl");
        exp.shard(0, 1).unwrap().run_into(&f).unwrap();
        let text = std::fs::read_to_string(&f).unwrap();
        let kept: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
        std::fs::write(&f, kept).unwrap();
        let e = merge(&[&f]).unwrap_err().to_string();
        assert!(
            e.contains("1 of 9 runs missing; the first is run 1 of 9 (index 0), of shard 0/1"),
            "{e}"
        );
    }
}

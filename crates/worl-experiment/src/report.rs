//! Reports of [`Results`]: Markdown tables, CSV and JSON files.
//!
//! * [`markdown_table`]: per group, one row per scheduler (makespan mean ± std, CV, min/max
//!   where the group is one problem; geometric means of the makespan over the best's and over
//!   HEFT's; gap to the lower bound, SLR, utilisation, wall time, evaluations) and, with a
//!   reference, its mean makespan reduction over each other scheduler and wins/ties/losses;
//! * [`markdown_normalised`]: the problems × schedulers table of mean makespans normalised to
//!   HEFT and to the best, with geometric means ([`write_normalised_csv`] in long format);
//! * [`markdown_rank_test`]: Friedman/Iman–Davenport statistics, average ranks, Nemenyi CD;
//! * CSV: one row per run ([`Results::write_csv`], [`Results::read_csv`]; tags as
//!   `tag:<key>` columns), per summary ([`write_summaries_csv`]), and the convergence curves
//!   in long format ([`Results::write_convergence_csv`]);
//! * JSON: the whole results with curves ([`Results::to_json`], [`Results::from_json`]).

use crate::error::{ExperimentError, Result};
use crate::run::{Results, RunRecord};
use crate::stats::RankTest;
use crate::summary::{Comparison, GroupBy, NormalisedTable, Summary};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::Path;

/// A number with about four significant digits, without exponent for the usual ranges.
pub fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let a = x.abs();
    if a >= 1000.0 {
        format!("{x:.0}")
    } else if a >= 100.0 {
        format!("{x:.1}")
    } else if a >= 10.0 {
        format!("{x:.2}")
    } else if a >= 0.01 || a == 0.0 {
        format!("{x:.3}")
    } else {
        format!("{x:.2e}")
    }
}

/// A duration in seconds as `µs`, `ms` or `s`.
pub fn fmt_time(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.0} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

/// Markdown tables of `results` grouped `by`: one table per group, one row per scheduler.
/// With `reference`, two more columns give its mean makespan reduction over the row's
/// scheduler (per problem on mean makespans, averaged over problems; positive: the reference
/// is better) and its wins/ties/losses (problems).
///
/// Errors: [`ExperimentError::NoScheduler`] if `reference` is not a scheduler of the results.
pub fn markdown_table(results: &Results, by: &GroupBy, reference: Option<&str>) -> Result<String> {
    let summaries = results.summaries(by);
    let comparisons = match reference {
        Some(r) => results.compare(r, by)?,
        None => Vec::new(),
    };
    Ok(markdown_summaries(&summaries, &comparisons, reference))
}

/// The tables of [`markdown_table`] from precomputed summaries and comparisons.
pub fn markdown_summaries(
    summaries: &[Summary],
    comparisons: &[Comparison],
    reference: Option<&str>,
) -> String {
    let mut out = String::new();
    let mut group: Option<&str> = None;
    for s in summaries {
        if group != Some(s.group.as_str()) {
            if group.is_some() {
                out.push('\n');
            }
            group = Some(&s.group);
            if s.group != "all" {
                let _ = writeln!(out, "**{}**\n", s.group);
            }
            let _ = write!(
                out,
                "| scheduler | problems | runs | makespan (s) mean ± std | CV | min | max | ÷ best | ÷ {} | gap to LB | SLR | utilisation | wall time | evaluations |",
                s.baseline.as_deref().unwrap_or("baseline")
            );
            if let Some(r) = reference {
                let _ = write!(out, " {r} reduction | {r} W/T/L |");
            }
            out.push('\n');
            out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
            if reference.is_some() {
                out.push_str("---:|---:|");
            }
            out.push('\n');
        }
        // Makespans of different problems have different scales: their mean, spread and
        // range say nothing, so they are shown for one-problem groups only; the ratios
        // (geometric means over the group's problems) summarise any group.
        let raw = if s.problems == 1 {
            format!(
                "{} ± {} | {:.2} % | {} | {}",
                fmt_num(s.makespan.mean),
                fmt_num(s.makespan.std),
                s.makespan.cv * 100.0,
                fmt_num(s.makespan.min),
                fmt_num(s.makespan.max)
            )
        } else {
            "– | – | – | –".to_owned()
        };
        let _ = write!(
            out,
            "| {} | {} | {} | {raw} | {:.4} | {} | {:.4} | {} | {:.1} % | {} | {} |",
            s.scheduler,
            s.problems,
            s.runs,
            s.to_best,
            s.to_baseline.map_or("–".to_owned(), |r| format!("{r:.4}")),
            s.gap.mean,
            fmt_num(s.slr.mean),
            s.utilisation.mean * 100.0,
            fmt_time(s.wall_time_s.mean),
            fmt_num(s.evaluations.mean),
        );
        if let Some(r) = reference {
            match comparisons
                .iter()
                .find(|c| c.group == s.group && c.other == s.scheduler)
            {
                Some(c) => {
                    let _ = write!(
                        out,
                        " {:+.2} % | {}/{}/{} |",
                        c.improvement_mean_pct, c.wins, c.ties, c.losses
                    );
                }
                None if s.scheduler == r => out.push_str(" (reference) | |"),
                None => out.push_str(" | |"),
            }
        }
        out.push('\n');
    }
    out
}

/// The problems × schedulers table of `t` in Markdown: each cell is the scheduler's mean
/// makespan (over seeds) on the problem divided by the baseline's (HEFT's; by the best's
/// when `t` has no baseline), the best of each row in bold (ties within
/// [`TIE_TOLERANCE`](crate::stats::TIE_TOLERANCE)); the last two rows are the geometric means
/// over problems of the ratios to the baseline and to the best. A scheduler with no run on a
/// problem shows `–`.
///
/// ```
/// use std::collections::BTreeMap;
/// use worl_experiment::{report, Results, RunRecord};
/// let rec = |problem: &str, scheduler: &str, makespan: f64| RunRecord {
///     problem: problem.into(), tags: BTreeMap::new(), tasks: 1, gpus: 1,
///     scheduler: scheduler.into(), stochastic: false, seed: 1, makespan, slr: 1.0,
///     speedup: 1.0, efficiency: 1.0, utilisation: 1.0, lower_bound: 1.0, gap: makespan,
///     mean_job_time: makespan, load_imbalance: 0.0, cost: 0.0,
///     wall_time_s: 0.0, evaluations: 0, convergence: vec![],
/// };
/// let res = Results::from_records(vec![
///     rec("p", "HEFT", 10.0), rec("p", "X", 8.0), rec("q", "HEFT", 100.0), rec("q", "X", 125.0),
/// ]);
/// let md = report::markdown_normalised(&res.normalised(Some("HEFT"))?);
/// assert!(md.contains("| p | 1.0000 | **0.8000** |"), "{md}");
/// assert!(md.contains("| geometric mean ÷ HEFT | 1.0000 | 1.0000 |"), "{md}");
/// # Ok::<(), worl_experiment::ExperimentError>(())
/// ```
pub fn markdown_normalised(t: &NormalisedTable) -> String {
    let mut out = String::new();
    let by = t.baseline.as_deref().unwrap_or("best");
    let _ = write!(out, "| problem (makespan ÷ {by}) |");
    for s in &t.schedulers {
        let _ = write!(out, " {s} |");
    }
    out.push_str("\n|---|");
    out.push_str(&"---:|".repeat(t.schedulers.len()));
    out.push('\n');
    for row in &t.rows {
        let _ = write!(out, "| {} |", row.problem);
        for j in 0..t.schedulers.len() {
            let ratio = if t.baseline.is_some() {
                row.to_baseline(j)
            } else {
                row.to_best(j)
            };
            let best = row
                .makespan
                .get(j)
                .copied()
                .flatten()
                .is_some_and(|m| crate::stats::ties(m, row.best));
            match ratio {
                Some(r) if best => {
                    let _ = write!(out, " **{r:.4}** |");
                }
                Some(r) => {
                    let _ = write!(out, " {r:.4} |");
                }
                None => out.push_str(" – |"),
            }
        }
        out.push('\n');
    }
    let mut footer = |label: String, f: &dyn Fn(usize) -> Option<f64>| {
        let _ = write!(out, "| {label} |");
        for j in 0..t.schedulers.len() {
            match f(j) {
                Some(r) => {
                    let _ = write!(out, " {r:.4} |");
                }
                None => out.push_str(" – |"),
            }
        }
        out.push('\n');
    };
    if let Some(b) = &t.baseline {
        footer(format!("geometric mean ÷ {b}"), &|j| {
            t.geomean_to_baseline(j)
        });
    }
    footer("geometric mean ÷ best".to_owned(), &|j| {
        t.geomean_to_best(j)
    });
    out
}

/// A Markdown account of a rank test: the Friedman and Iman–Davenport statistics with
/// p-values, the Nemenyi CD, and a table of average ranks (best first) marking which
/// schedulers are not significantly worse than the best.
pub fn markdown_rank_test(t: &RankTest) -> String {
    let f = &t.friedman;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Friedman test over N = {} problems, k = {} schedulers: χ²_F = {} (p = {:.3e}), \
         Iman–Davenport F_F = {} (df {}, {}; p = {:.3e}){}.",
        f.blocks,
        f.k,
        fmt_num(f.chi2),
        f.chi2_p_value,
        fmt_num(f.f),
        f.f_df.0,
        f.f_df.1,
        f.f_p_value,
        if t.rejects_null() {
            format!(": the schedulers differ at α = {}", t.alpha)
        } else {
            format!(": no significant difference at α = {}", t.alpha)
        }
    );
    match (t.q_alpha, t.cd) {
        (Some(q), Some(cd)) => {
            let _ = writeln!(
                out,
                "Nemenyi critical difference CD = q_α·√(k(k+1)/6N) = {q}·√({}·{}/(6·{})) = {:.3} (α = {}; Demšar 2006).",
                f.k,
                f.k + 1,
                f.blocks,
                cd,
                t.alpha
            );
        }
        _ => {
            let _ = writeln!(out, "Nemenyi CD: no tabulated q_α for k = {}.", f.k);
        }
    }
    out.push('\n');
    out.push_str(
        "| rank | scheduler | average rank | within CD of the best |\n|---:|---|---:|---|\n",
    );
    let order = t.order();
    let best = order.first().copied();
    for (pos, &j) in order.iter().enumerate() {
        let within = match (best, t.cd) {
            (Some(b), Some(_)) => {
                if j == b || !t.significant(b, j) {
                    "yes"
                } else {
                    "no"
                }
            }
            _ => "-",
        };
        let _ = writeln!(
            out,
            "| {} | {} | {:.3} | {} |",
            pos + 1,
            t.names[j],
            f.average_ranks[j],
            within
        );
    }
    out
}

fn create(path: &Path) -> Result<std::fs::File> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| ExperimentError::io(dir, e))?;
    }
    std::fs::File::create(path).map_err(|e| ExperimentError::io(path, e))
}

/// Writes a CSV file of `header` and `rows` to `path`, creating its directory.
fn write_csv_rows(
    path: &Path,
    header: &[&str],
    rows: impl IntoIterator<Item = Vec<String>>,
) -> Result<()> {
    let mut wr = csv::Writer::from_writer(std::io::BufWriter::new(create(path)?));
    let err = |e: csv::Error| ExperimentError::csv(path, e);
    wr.write_record(header).map_err(err)?;
    for row in rows {
        wr.write_record(&row).map_err(err)?;
    }
    wr.flush().map_err(|e| ExperimentError::io(path, e))
}

/// The comparison report of a set of runs, as `worl compare` prints it and the Python
/// package's `compare` returns it: the mean makespans normalised to the baseline (HEFT when
/// present), and the Markdown of that table, the gaps to the best known makespans
/// ([`GapTable`](crate::GapTable)), the per-workload table ([`markdown_table`] against the
/// default reference) and the Friedman test with Nemenyi's critical difference at α = 0.05
/// (or the note saying why it cannot run).
#[derive(Clone, Debug)]
pub struct ComparisonReport {
    /// Mean makespan over seeds, per problem and scheduler, over the baseline's.
    pub normalised: NormalisedTable,
    /// The report as Markdown (four `##` sections).
    pub markdown: String,
    /// The rank test, when there are enough problems and schedulers for one.
    pub rank_test: Option<RankTest>,
}

/// Builds the [`ComparisonReport`] of `results`.
///
/// Errors: those of [`Results::normalised`], [`markdown_table`] and [`Results::rank_test`].
pub fn comparison_report(results: &Results) -> Result<ComparisonReport> {
    let normalised = results.normalised(results.default_baseline().as_deref())?;
    let mut md = String::from("## Mean makespan over seeds ÷ HEFT's (bold: best)\n\n");
    md.push_str(&markdown_normalised(&normalised));
    md.push_str("\n## Gap of each scheduler's mean makespan to the best any run found\n\n");
    md.push_str(&crate::GapTable::new(results, &BTreeMap::new()).to_markdown());
    md.push_str("\n## Per workload\n\n");
    let reference = results.default_reference();
    md.push_str(&markdown_table(
        results,
        &GroupBy::Problem,
        reference.as_deref(),
    )?);
    md.push_str("\n## Friedman test and Nemenyi critical difference (α = 0.05)\n\n");
    let rank_test = match results.rank_test_note(&|_| true) {
        Some(note) => {
            md.push_str(&note);
            md.push('\n');
            None
        }
        None => {
            let t = results.rank_test(&|_| true, crate::Alpha::P05)?;
            md.push_str(&markdown_rank_test(&t));
            Some(t)
        }
    };
    Ok(ComparisonReport {
        normalised,
        markdown: md,
        rank_test,
    })
}

/// Writes `text` as the section `name` of the Markdown file at `path`: between the lines
/// `<!-- begin name -->` and `<!-- end name -->`, replacing what they enclosed, or appended
/// with them when the file has no such section (or does not exist). How several generators
/// share one document (e.g. `docs/results.md`) without overwriting each other's parts.
///
/// Errors: [`ExperimentError::Io`].
pub fn write_section(path: impl AsRef<Path>, name: &str, text: &str) -> Result<()> {
    let path = path.as_ref();
    let old = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(ExperimentError::io(path, e)),
    };
    let (begin, end) = (
        format!("<!-- begin {name} -->"),
        format!("<!-- end {name} -->"),
    );
    let body = format!("{begin}\n{}\n{end}", text.trim_end());
    let new = match (old.find(&begin), old.find(&end)) {
        (Some(b), Some(e)) if b < e => format!("{}{body}{}", &old[..b], &old[e + end.len()..]),
        _ if old.trim().is_empty() => format!("{body}\n"),
        _ => format!("{}\n\n{body}\n", old.trim_end()),
    };
    write_text(path, &new)
}

/// Writes `text` to `path`, creating its directory.
///
/// Errors: [`ExperimentError::Io`].
pub fn write_text(path: impl AsRef<Path>, text: &str) -> Result<()> {
    let path = path.as_ref();
    create(path)?
        .write_all(text.as_bytes())
        .map_err(|e| ExperimentError::io(path, e))
}

/// The fixed CSV columns of a run, before the `tag:<key>` columns. The last three (MDTS's
/// service measures) may be absent from files written by older versions: they then read
/// as NaN.
pub const CSV_COLUMNS: [&str; 18] = [
    "problem",
    "scheduler",
    "seed",
    "stochastic",
    "tasks",
    "gpus",
    "makespan",
    "slr",
    "speedup",
    "efficiency",
    "utilisation",
    "lower_bound",
    "gap",
    "wall_time_s",
    "evaluations",
    "mean_job_time",
    "load_imbalance",
    "cost",
];

/// Columns of [`CSV_COLUMNS`] that [`Results::read_csv_from`] does not require.
const OPTIONAL_CSV_COLUMNS: usize = 3;

impl Results {
    /// Writes one CSV row per run to `w`: [`CSV_COLUMNS`] then one `tag:<key>` column per tag
    /// key (sorted; empty where a problem lacks it). Floats are written in Rust's shortest
    /// round-trip form, so [`read_csv`](Self::read_csv) restores them exactly. Convergence
    /// curves are not included ([`write_convergence_csv`](Self::write_convergence_csv)).
    ///
    /// Errors: [`ExperimentError::Csv`].
    pub fn write_csv_to(&self, w: impl Write) -> Result<()> {
        let mem = Path::new("<writer>");
        let keys: Vec<&String> = {
            let mut k: Vec<&String> = self.records().iter().flat_map(|r| r.tags.keys()).collect();
            k.sort();
            k.dedup();
            k
        };
        let mut wr = csv::Writer::from_writer(w);
        let header: Vec<String> = CSV_COLUMNS
            .iter()
            .map(|c| (*c).to_owned())
            .chain(keys.iter().map(|k| format!("tag:{k}")))
            .collect();
        wr.write_record(&header)
            .map_err(|e| ExperimentError::csv(mem, e))?;
        for r in self.records() {
            let mut row: Vec<String> = vec![
                r.problem.clone(),
                r.scheduler.clone(),
                r.seed.to_string(),
                r.stochastic.to_string(),
                r.tasks.to_string(),
                r.gpus.to_string(),
                r.makespan.to_string(),
                r.slr.to_string(),
                r.speedup.to_string(),
                r.efficiency.to_string(),
                r.utilisation.to_string(),
                r.lower_bound.to_string(),
                r.gap.to_string(),
                r.wall_time_s.to_string(),
                r.evaluations.to_string(),
                r.mean_job_time.to_string(),
                r.load_imbalance.to_string(),
                r.cost.to_string(),
            ];
            row.extend(
                keys.iter()
                    .map(|k| r.tags.get(*k).cloned().unwrap_or_default()),
            );
            wr.write_record(&row)
                .map_err(|e| ExperimentError::csv(mem, e))?;
        }
        wr.flush().map_err(|e| ExperimentError::csv(mem, e))
    }

    /// [`write_csv_to`](Self::write_csv_to) a file, creating its directory.
    ///
    /// Errors: [`ExperimentError::Io`], [`ExperimentError::Csv`].
    pub fn write_csv(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let f = create(path)?;
        self.write_csv_to(std::io::BufWriter::new(f))
            .map_err(|e| match e {
                ExperimentError::Csv { message, .. } => ExperimentError::csv(path, message),
                e => e,
            })
    }

    /// Reads results written by [`write_csv_to`](Self::write_csv_to) (curves empty, no
    /// schedules); `source` names the input in errors.
    ///
    /// Errors: [`ExperimentError::Csv`] naming the line for a missing column or a value that
    /// does not parse.
    pub fn read_csv_from(r: impl Read, source: &str) -> Result<Results> {
        let mut rd = csv::Reader::from_reader(r);
        let header = rd
            .headers()
            .map_err(|e| ExperimentError::csv(source, e))?
            .clone();
        let col = |name: &str| {
            header
                .iter()
                .position(|h| h == name)
                .ok_or_else(|| ExperimentError::csv(source, format!("no column `{name}`")))
        };
        let required = CSV_COLUMNS.len() - OPTIONAL_CSV_COLUMNS;
        let idx: Vec<usize> = CSV_COLUMNS
            .iter()
            .enumerate()
            .map(|(i, c)| match col(c) {
                Err(_) if i >= required => Ok(usize::MAX),
                found => found,
            })
            .collect::<Result<_, _>>()?;
        let tag_cols: Vec<(usize, String)> = header
            .iter()
            .enumerate()
            .filter_map(|(i, h)| h.strip_prefix("tag:").map(|k| (i, k.to_owned())))
            .collect();
        let mut records = Vec::new();
        for (n, row) in rd.records().enumerate() {
            let row = row.map_err(|e| ExperimentError::csv(source, e))?;
            let line = row.position().map_or(n + 2, |p| p.line() as usize);
            let get = |c: usize| row.get(idx[c]).unwrap_or("");
            let optional = |c: usize| -> Result<f64> {
                if idx[c] == usize::MAX {
                    Ok(f64::NAN)
                } else {
                    parse::<f64>(source, line, CSV_COLUMNS[c], get(c))
                }
            };
            fn parse<T: std::str::FromStr>(
                source: &str,
                line: usize,
                name: &str,
                v: &str,
            ) -> Result<T> {
                v.parse().map_err(|_| {
                    ExperimentError::csv(
                        source,
                        format!("line {line}: column `{name}`: `{v}` does not parse"),
                    )
                })
            }
            let num = |c: usize| parse::<f64>(source, line, CSV_COLUMNS[c], get(c));
            let mut tags = BTreeMap::new();
            for (i, k) in &tag_cols {
                if let Some(v) = row.get(*i).filter(|v| !v.is_empty()) {
                    tags.insert(k.clone(), v.to_owned());
                }
            }
            records.push(RunRecord {
                problem: get(0).to_owned(),
                scheduler: get(1).to_owned(),
                seed: parse(source, line, CSV_COLUMNS[2], get(2))?,
                stochastic: parse(source, line, CSV_COLUMNS[3], get(3))?,
                tasks: parse(source, line, CSV_COLUMNS[4], get(4))?,
                gpus: parse(source, line, CSV_COLUMNS[5], get(5))?,
                makespan: num(6)?,
                slr: num(7)?,
                speedup: num(8)?,
                efficiency: num(9)?,
                utilisation: num(10)?,
                lower_bound: num(11)?,
                gap: num(12)?,
                wall_time_s: num(13)?,
                evaluations: parse(source, line, CSV_COLUMNS[14], get(14))?,
                mean_job_time: optional(15)?,
                load_imbalance: optional(16)?,
                cost: optional(17)?,
                tags,
                convergence: Vec::new(),
            });
        }
        Ok(Results::from_records(records))
    }

    /// [`read_csv_from`](Self::read_csv_from) a file.
    ///
    /// Errors: [`ExperimentError::Io`], [`ExperimentError::Csv`].
    pub fn read_csv(path: impl AsRef<Path>) -> Result<Results> {
        let path = path.as_ref();
        let f = std::fs::File::open(path).map_err(|e| ExperimentError::io(path, e))?;
        Self::read_csv_from(std::io::BufReader::new(f), &path.display().to_string())
    }

    /// Writes every convergence point as a CSV row `problem, scheduler, seed, step,
    /// evaluations, best_makespan`, creating the directory.
    ///
    /// Errors: [`ExperimentError::Io`], [`ExperimentError::Csv`].
    pub fn write_convergence_csv(&self, path: impl AsRef<Path>) -> Result<()> {
        let rows = self.records().iter().flat_map(|r| {
            r.convergence.iter().map(move |c| {
                vec![
                    r.problem.clone(),
                    r.scheduler.clone(),
                    r.seed.to_string(),
                    c.step.to_string(),
                    c.evaluations.to_string(),
                    c.best_makespan.to_string(),
                ]
            })
        });
        write_csv_rows(
            path.as_ref(),
            &[
                "problem",
                "scheduler",
                "seed",
                "step",
                "evaluations",
                "best_makespan",
            ],
            rows,
        )
    }

    /// The results as pretty JSON (records with their curves; no schedules). Non-finite
    /// numbers (an infinite SLR of a zero-work problem) become `null` and do not read back.
    ///
    /// Errors: [`ExperimentError::Json`].
    pub fn to_json(&self) -> Result<String> {
        Ok(serde_json::to_string_pretty(self)?)
    }

    /// Results from [`to_json`](Self::to_json)'s output.
    ///
    /// Errors: [`ExperimentError::Json`].
    pub fn from_json(text: &str) -> Result<Results> {
        Ok(serde_json::from_str(text)?)
    }

    /// Writes [`to_json`](Self::to_json) to `path`, creating its directory.
    ///
    /// Errors: [`ExperimentError::Io`], [`ExperimentError::Json`].
    pub fn write_json(&self, path: impl AsRef<Path>) -> Result<()> {
        write_text(path, &self.to_json()?)
    }
}

/// Writes summaries as CSV: group, scheduler, problems, runs, then mean/std/cv/min/max of
/// makespan (meaningful for one-problem groups), the geometric means of the makespan over the
/// best's and over the baseline's (with its name), and means (and std where useful) of the
/// other metrics.
///
/// Errors: [`ExperimentError::Io`], [`ExperimentError::Csv`].
pub fn write_summaries_csv(path: impl AsRef<Path>, summaries: &[Summary]) -> Result<()> {
    let rows = summaries.iter().map(|s| {
        vec![
            s.group.clone(),
            s.scheduler.clone(),
            s.problems.to_string(),
            s.runs.to_string(),
            s.makespan.mean.to_string(),
            s.makespan.std.to_string(),
            s.makespan.cv.to_string(),
            s.makespan.min.to_string(),
            s.makespan.max.to_string(),
            s.to_best.to_string(),
            s.baseline.clone().unwrap_or_default(),
            s.to_baseline.map_or(String::new(), |r| r.to_string()),
            s.gap.mean.to_string(),
            s.gap.std.to_string(),
            s.slr.mean.to_string(),
            s.speedup.mean.to_string(),
            s.efficiency.mean.to_string(),
            s.utilisation.mean.to_string(),
            s.wall_time_s.mean.to_string(),
            s.wall_time_s.std.to_string(),
            s.evaluations.mean.to_string(),
        ]
    });
    write_csv_rows(
        path.as_ref(),
        &[
            "group",
            "scheduler",
            "problems",
            "runs",
            "makespan_mean",
            "makespan_std",
            "makespan_cv",
            "makespan_min",
            "makespan_max",
            "to_best",
            "baseline",
            "to_baseline",
            "gap_mean",
            "gap_std",
            "slr_mean",
            "speedup_mean",
            "efficiency_mean",
            "utilisation_mean",
            "wall_time_s_mean",
            "wall_time_s_std",
            "evaluations_mean",
        ],
        rows,
    )
}

/// Writes a [`NormalisedTable`] as CSV in long format, one row per problem and scheduler
/// that ran on it: `problem, scheduler, makespan_mean, best, to_best, baseline,
/// to_baseline` (the last two empty without baseline).
///
/// Errors: [`ExperimentError::Io`], [`ExperimentError::Csv`].
pub fn write_normalised_csv(path: impl AsRef<Path>, t: &NormalisedTable) -> Result<()> {
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    let mut rows = Vec::new();
    for row in &t.rows {
        for (j, s) in t.schedulers.iter().enumerate() {
            if let Some(m) = row.makespan.get(j).copied().flatten() {
                rows.push(vec![
                    row.problem.clone(),
                    s.clone(),
                    m.to_string(),
                    row.best.to_string(),
                    opt(row.to_best(j)),
                    t.baseline.clone().unwrap_or_default(),
                    opt(row.to_baseline(j)),
                ]);
            }
        }
    }
    write_csv_rows(
        path.as_ref(),
        &[
            "problem",
            "scheduler",
            "makespan_mean",
            "best",
            "to_best",
            "baseline",
            "to_baseline",
        ],
        rows,
    )
}

//! [`LoadReport`]: what a loader skipped, repaired or noticed, per reason, with the items.

use serde::Serialize;
use std::fmt;

/// What a loader did about an input item it reports.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Action {
    /// Left out because the caller's options exclude it (not a defect).
    Filtered,
    /// Removed from the workload (a defect or a format artifact).
    Dropped,
    /// Kept after a documented repair (a defect).
    Repaired,
    /// Kept unchanged; worth knowing (e.g. an edge carrying no file).
    Noted,
}

/// Why an item is in a [`LoadReport`]. Each reason has one [`Action`]; the loaders' docs and
/// `docs/formats.md` say where each one arises.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub enum Reason {
    // --- Alibaba v2018: selection (items are jobs) ---
    /// The job is not in the requested job-name list.
    FilteredJobName,
    /// The job's submission time (earliest positive `start_time`) is outside the requested
    /// window, or it has none.
    FilteredSubmitTime,
    /// The job's task count is outside `[min_tasks, max_tasks]`.
    FilteredSize,
    /// A task of the job has a status outside the accepted ones.
    FilteredStatus,
    /// The requested number of jobs was already reached.
    FilteredJobLimit,
    // --- Alibaba v2018: defects ---
    /// A second row with the same task name in one job (items are rows); the first is kept.
    DuplicateTask,
    /// Job dropped: a task's `start_time` or `end_time` is 0 or empty (outside the trace
    /// window, or not finished), so its run time is unknown.
    MissingTime,
    /// Job dropped: a task ends before it starts.
    NegativeDuration,
    /// Job dropped: two tasks share the numeric id that dependencies refer to.
    DuplicateTaskId,
    /// Job dropped: its dependencies form a cycle (a task depending on itself included); the
    /// item lists one cycle.
    Cycle,
    /// Repaired: `end_time == start_time`; the `min_duration` option (1 s) is used.
    ZeroDuration,
    /// Repaired: a dependency token that is no task id (e.g. `Stg4` in `J10_7_9_Stg4`, or an
    /// empty token) is ignored.
    PseudoTaskDependency,
    /// Repaired: a dependency on a task id absent from the job is ignored.
    MissingDependency,
    /// Repaired: a dependency given twice is kept once.
    DuplicateDependency,
    /// Repaired: the name was cut at the trace's 50-character limit, so its last dependency
    /// token (e.g. `1` of a cut `..._100_1xx`, or an empty one after a final `_`) is ignored.
    TruncatedName,
    /// Noted: `plan_cpu` or `plan_mem` is empty (memory need unknown).
    EmptyPlanFields,
    /// Repaired: `instance_num` is empty while work is multiplied by it; 1 is used.
    EmptyInstanceNum,
    // --- STG ---
    /// Dropped: the dummy entry or exit task (cost 0) of the STG format.
    DummyTask,
    /// Dropped: an edge to or from a dropped dummy task.
    DummyEdge,
    /// Noted: the header's task count includes the two dummy tasks.
    HeaderCountsDummies,
    // --- WfCommons / Pegasus DAX ---
    /// Repaired: a task has no runtime; work 0 is used.
    MissingRuntime,
    /// Repaired: a file has no size; 0 bytes are used.
    MissingFileSize,
    /// Noted: a declared dependency passes no file (the edge carries 0 bytes).
    EdgeWithoutData,
    /// Repaired: a file of a WfFormat document of the old layout (<= 1.4, sizes given per
    /// task) is listed with different sizes; the first size given is used. (In 1.5, where
    /// files are declared once, two sizes are an error.)
    FileSizeConflict,
    /// Noted: a count attribute of the file (e.g. DAX `jobCount`) disagrees with the
    /// elements found; the elements are used.
    CountMismatch,
    // --- Alibaba GPU traces (v2023 pod lists, PAI v2020 tasks; items are rows) ---
    /// Dropped: the pod asks for no whole GPU (`num_gpu` 0: a CPU-only pod).
    NoGpu,
    /// Dropped: the row has no run time: a time it needs is empty (e.g. a Pending pod never
    /// scheduled) or it ends before it starts.
    NoRunTime,
    /// Noted: the row asks for a fraction of a GPU (`gpu_milli` < 1000, `plan_gpu` < 100), a
    /// GPU shared with other tasks; it is loaded as a whole GPU.
    SharedGpu,
    /// Repaired: a task name repeated in its job; the later rows are renamed `name-2`,
    /// `name-3`, ... (the first free suffix).
    RenamedTask,
}

impl Reason {
    /// What the loader did about items of this reason.
    pub fn action(self) -> Action {
        use Reason::*;
        match self {
            FilteredJobName | FilteredSubmitTime | FilteredSize | FilteredStatus
            | FilteredJobLimit => Action::Filtered,
            DuplicateTask | MissingTime | NegativeDuration | DuplicateTaskId | Cycle
            | DummyTask | DummyEdge | NoGpu | NoRunTime => Action::Dropped,
            ZeroDuration | PseudoTaskDependency | MissingDependency | DuplicateDependency
            | TruncatedName | EmptyInstanceNum | MissingRuntime | MissingFileSize
            | FileSizeConflict | RenamedTask => Action::Repaired,
            EmptyPlanFields | HeaderCountsDummies | EdgeWithoutData | CountMismatch | SharedGpu => {
                Action::Noted
            }
        }
    }

    /// One-line description of the reason and the action taken.
    pub fn description(self) -> &'static str {
        use Reason::*;
        match self {
            FilteredJobName => "job not in the requested list",
            FilteredSubmitTime => "job submitted outside the requested time window",
            FilteredSize => "job size outside [min_tasks, max_tasks]",
            FilteredStatus => "job has a task with a status not accepted",
            FilteredJobLimit => "job beyond the requested number of jobs",
            DuplicateTask => "row repeats a task name of its job; first row kept",
            MissingTime => "job dropped: a task has start_time or end_time 0 or empty",
            NegativeDuration => "job dropped: a task ends before it starts",
            DuplicateTaskId => "job dropped: two tasks share one numeric task id",
            Cycle => "job dropped: its dependencies form a cycle",
            ZeroDuration => "zero duration; min_duration used",
            PseudoTaskDependency => "dependency token is no task id (e.g. Stg4); ignored",
            MissingDependency => "dependency on a task id absent from the job; ignored",
            DuplicateDependency => "dependency given twice; kept once",
            TruncatedName => "name cut at 50 characters; its last token ignored",
            EmptyPlanFields => "plan_cpu/plan_mem empty; memory need unknown",
            EmptyInstanceNum => "instance_num empty; 1 used",
            DummyTask => "dummy entry/exit task of the STG format removed",
            DummyEdge => "edge of a removed dummy task removed",
            HeaderCountsDummies => "header task count includes the 2 dummy tasks",
            MissingRuntime => "task has no runtime; work 0 used",
            MissingFileSize => "file has no size; 0 bytes used",
            EdgeWithoutData => "dependency passes no file; edge carries 0 bytes",
            FileSizeConflict => "file listed with different sizes; the first size used",
            CountMismatch => "count attribute disagrees with the elements; elements used",
            NoGpu => "pod asks for no whole GPU (CPU-only); dropped",
            NoRunTime => "no run time (a time empty, or it ends before it starts); dropped",
            SharedGpu => "asks for a fraction of a GPU (shared); loaded as a whole GPU",
            RenamedTask => "task name repeated in its job; renamed name-2, name-3, ...",
        }
    }
}

/// The items of one [`Reason`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReportEntry {
    /// Why.
    pub reason: Reason,
    /// What was done ([`Reason::action`]).
    pub action: Action,
    /// How many times the reason was met: the number of `items`, except where one item
    /// stands for several occurrences in one input element (e.g. the 3 ignored dependency
    /// tokens of one Alibaba task name are one item counting 3, listing the 3 tokens), so
    /// that a report never copies one name once per occurrence.
    pub count: usize,
    /// The offending items, in input order, each naming the item (job, task, row line,
    /// dependency).
    pub items: Vec<String>,
}

/// Everything a loader skipped, repaired or noticed, per reason, with the offending items.
///
/// Nothing is dropped silently: with the Alibaba loader every data row is either a task of
/// the workload or counted in [`records_skipped`](Self::records_skipped).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoadReport {
    /// The file read, or the name given for in-memory input.
    pub source: String,
    /// The format name (`alibaba-v2018`, `alibaba-gpu-v2023`, `alibaba-pai-v2020`, `wfformat`,
    /// `pegasus-dax`, `stg`, `worl-workload`, `graphviz-dot`).
    pub format: &'static str,
    /// Data records read: CSV rows, STG task lines, WfCommons or DAX tasks, native tasks.
    pub records: usize,
    /// Records that did not become a task (rows of filtered or dropped jobs, duplicate rows,
    /// dummy STG tasks).
    pub records_skipped: usize,
    /// One entry per reason met, in the order first met.
    pub entries: Vec<ReportEntry>,
}

impl LoadReport {
    /// An empty report for `source` in `format`.
    pub fn new(source: impl Into<String>, format: &'static str) -> Self {
        Self {
            source: source.into(),
            format,
            records: 0,
            records_skipped: 0,
            entries: Vec::new(),
        }
    }

    /// Records an item under `reason` (one occurrence).
    pub fn add(&mut self, reason: Reason, item: impl Into<String>) {
        self.add_n(reason, item, 1);
    }

    /// Records a skipped input record under `reason`: [`add`](Self::add) plus one more
    /// [`records_skipped`](Self::records_skipped).
    pub fn skip(&mut self, reason: Reason, item: impl Into<String>) {
        self.add(reason, item);
        self.records_skipped += 1;
    }

    /// Records one item under `reason` that stands for `n` occurrences (e.g. one task name
    /// listing its `n` ignored tokens); [`count`](Self::count) grows by `n`.
    pub fn add_n(&mut self, reason: Reason, item: impl Into<String>, n: usize) {
        let item = item.into();
        match self.entries.iter_mut().find(|e| e.reason == reason) {
            Some(e) => {
                e.items.push(item);
                e.count += n;
            }
            None => self.entries.push(ReportEntry {
                reason,
                action: reason.action(),
                count: n,
                items: vec![item],
            }),
        }
    }

    /// Number of occurrences recorded under `reason` (0 if none): the number of its items,
    /// except where one item stands for several ([`ReportEntry::count`]).
    pub fn count(&self, reason: Reason) -> usize {
        self.entries
            .iter()
            .find(|e| e.reason == reason)
            .map_or(0, |e| e.count)
    }

    /// The items recorded under `reason` (empty if none).
    pub fn items(&self, reason: Reason) -> &[String] {
        self.entries
            .iter()
            .find(|e| e.reason == reason)
            .map_or(&[], |e| &e.items)
    }

    /// Number of occurrences whose action is `action` (as [`count`](Self::count)).
    pub fn count_action(&self, action: Action) -> usize {
        self.entries
            .iter()
            .filter(|e| e.action == action)
            .map(|e| e.count)
            .sum()
    }

    /// `true` if nothing was dropped or repaired (filtered and noted items allowed).
    pub fn is_clean(&self) -> bool {
        self.count_action(Action::Dropped) + self.count_action(Action::Repaired) == 0
    }
}

/// Longest name (in characters) a report item copies whole; see [`short`].
pub const ITEM_NAME_CHARS: usize = 256;

/// A name as a report item shows it: whole up to [`ITEM_NAME_CHARS`] characters, else its
/// first 64 characters, `...` and its length in bytes. Items that name a task or file once
/// per occurrence (each edge of a task, each file of a job) use it, so that a report stays
/// linear in the input however long one name is (the workload keeps every name whole).
///
/// ```
/// use worl_dag::formats::report::short;
/// assert_eq!(short("M1"), "M1");
/// let long = "x".repeat(300);
/// assert_eq!(short(&long), format!("{}... (300 bytes)", "x".repeat(64)));
/// ```
pub fn short(name: &str) -> std::borrow::Cow<'_, str> {
    match name.char_indices().nth(ITEM_NAME_CHARS) {
        None => name.into(),
        Some(_) => {
            let cut = name.char_indices().nth(64).map_or(name.len(), |(i, _)| i);
            format!("{}... ({} bytes)", &name[..cut], name.len()).into()
        }
    }
}

/// How many items per reason [`LoadReport`]'s `Display` shows before `...`.
const SHOWN_ITEMS: usize = 3;

/// How many characters of one item [`LoadReport`]'s `Display` shows (the report itself
/// keeps every item whole).
const SHOWN_CHARS: usize = 200;

/// `item`, or its first [`SHOWN_CHARS`] characters and how long it is.
fn shorten(item: &str) -> String {
    match item.char_indices().nth(SHOWN_CHARS) {
        None => item.to_owned(),
        Some((cut, _)) => format!("{}... ({} bytes in all)", &item[..cut], item.len()),
    }
}

impl fmt::Display for LoadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): {} records, {} skipped",
            self.source, self.format, self.records, self.records_skipped
        )?;
        if self.entries.is_empty() {
            return write!(f, "; nothing skipped or repaired");
        }
        for e in &self.entries {
            write!(
                f,
                "\n  {:?} {:>6} x {:?}: {}",
                e.action,
                e.count,
                e.reason,
                e.reason.description()
            )?;
            let shown: Vec<String> = e
                .items
                .iter()
                .take(SHOWN_ITEMS)
                .map(|i| shorten(i))
                .collect();
            write!(f, "\n      e.g. {}", shown.join("; "))?;
            if e.items.len() > SHOWN_ITEMS {
                write!(f, "; ...")?;
            }
        }
        Ok(())
    }
}

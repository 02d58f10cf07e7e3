//! Resource bounds of the writers (issue 20, F6): output and memory grow with the workload,
//! not with the product of its edges and its task names, and text is streamed.

use std::io::Write;
use worl_dag::formats::native;
use worl_dag::formats::wfcommons::{self, WfOptions, file_id};
use worl_dag::{TaskId, Workload, WorkloadBuilder};

/// `roots` short-named entry tasks, each a parent of every one of `sinks` tasks whose names
/// are `name_len` characters long (an Alibaba `R<k>_1_2_..._99` task has such a name).
fn fan_in(roots: usize, sinks: usize, name_len: usize) -> Workload {
    let mut b = WorkloadBuilder::new("fan");
    let j = b.add_job("j").unwrap();
    let r: Vec<TaskId> = (0..roots)
        .map(|i| b.add_task(j, format!("M{i}"), 1.0, None).unwrap())
        .collect();
    for k in 0..sinks {
        let mut name = format!("R{k}_");
        while name.len() < name_len {
            name.push('x');
        }
        let s = b.add_task(j, name, 2.0, None).unwrap();
        for (i, &p) in r.iter().enumerate() {
            b.add_edge(p, s, (1000 * k + i) as f64).unwrap();
        }
    }
    b.build().unwrap()
}

/// A writer that records the size of each write it is handed.
#[derive(Default)]
struct Counting {
    bytes: Vec<u8>,
    writes: usize,
    largest: usize,
}

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writes += 1;
        self.largest = self.largest.max(buf.len());
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A writer that only counts the bytes.
struct CountOnly<'a>(&'a mut usize);

impl Write for CountOnly<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        *self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn wfformat_file_ids_are_short_whatever_the_task_names() {
    // 99 parents x 40 children of 1,000-character names: the old `<parent>.<child>.data`
    // ids put every long name once per edge in three places (12 MB here).
    let w = fan_in(99, 40, 1000);
    let g = w.graph();
    let text = wfcommons::to_string(&w, None).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let files = doc["workflow"]["specification"]["files"]
        .as_array()
        .unwrap();
    assert_eq!(files.len(), g.n_edges());
    for (f, e) in files.iter().zip(g.edges()) {
        let id = f["id"].as_str().unwrap();
        assert_eq!(id, format!("e{}-{}.data", e.from.index(), e.to.index()));
        assert_eq!(id, file_id(e.from, e.to));
        assert!(id.len() <= 48, "{id}");
        assert_eq!(f["sizeInBytes"].as_u64().unwrap() as f64, e.bytes);
    }
    let t = &doc["workflow"]["specification"]["tasks"][99];
    assert_eq!(t["inputFiles"][3], "e3-99.data");
    assert_eq!(t["parents"][3], "M3");
    assert_eq!(
        doc["workflow"]["specification"]["tasks"][0]["outputFiles"][1],
        "e0-100.data"
    );
    // The text holds each long name in its task, its execution record and the children
    // lists (once per edge: WfFormat names parents and children by id); everything else is
    // at most 200 bytes per task and edge.
    let names: usize = g.tasks().map(|(_, t)| t.name.len()).sum();
    let children: usize = g.edges().map(|e| g.task(e.to).name.len()).sum();
    let parents: usize = g.edges().map(|e| g.task(e.from).name.len()).sum();
    let bound = 3 * names + children + parents + 200 * (g.n_tasks() + g.n_edges());
    assert!(text.len() < bound, "{} >= {bound}", text.len());
    // The reader gives back every edge with its bytes.
    let (back, report) =
        wfcommons::read(text.as_bytes(), "fan.json", &WfOptions::default()).unwrap();
    assert!(report.is_clean(), "{report:?}");
    let e1: Vec<_> = g.edges().collect();
    let e2: Vec<_> = back.graph().edges().collect();
    assert_eq!(e1, e2);
}

#[test]
fn wfformat_is_streamed_to_the_writer() {
    let w = fan_in(99, 40, 1000);
    let mut out = Counting::default();
    wfcommons::write(&w, None, &mut out).unwrap();
    let text = wfcommons::to_string(&w, None).unwrap();
    assert_eq!(out.bytes, text.as_bytes());
    // Buffered pieces of at most 64 KiB, never the whole document at once.
    assert!(out.largest <= 1 << 16, "{}", out.largest);
    assert!(
        out.writes >= text.len() / (1 << 16),
        "{} writes",
        out.writes
    );
}

#[test]
fn wfformat_refused_execution_creates_no_file() {
    let w = fan_in(2, 1, 4);
    let x = wfcommons::Execution {
        makespan: 1.0,
        executed_at: wfcommons::EPOCH.into(),
        machines: vec!["m".into()],
        tasks: Vec::new(),
    };
    let path = std::env::temp_dir().join(format!("worl-refused-{}.wf.json", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let err = wfcommons::save(&w, Some(&x), &path)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("j/M0") && err.contains("not recorded"),
        "{err}"
    );
    assert!(!path.exists());
}

#[test]
fn native_json_is_streamed_to_the_writer() {
    let w = fan_in(99, 40, 1000);
    let mut out = Counting::default();
    native::write(&w, &mut out).unwrap();
    let text = native::to_string(&w).unwrap();
    assert_eq!(out.bytes, text.as_bytes());
    assert!(out.largest <= 1 << 16, "{}", out.largest);
    assert!(
        out.writes >= text.len() / (1 << 16),
        "{} writes",
        out.writes
    );
    let (back, _) = native::read(text.as_bytes(), "fan.json").unwrap();
    assert_eq!(back, w);
}

#[test]
fn writers_refuse_edges_whose_task_names_exceed_the_limit_before_writing() {
    // 1,100 parents of one task with a 1 MiB name: 1.15 GB of names in either format
    // (WfFormat's `children` lists, native JSON's edge ends) from a few kB of CSV.
    let w = fan_in(1100, 1, 1 << 20);
    let cap = native::MAX_EDGE_NAME_BYTES;
    assert_eq!(cap, 1 << 30);
    for (format, result) in [
        ("native JSON", native::write(&w, Counting::default())),
        ("WfFormat", wfcommons::write(&w, None, Counting::default())),
    ] {
        let err = result.unwrap_err().to_string();
        // The sink's name 1,100 times; `M0`..`M1099` once each.
        let total = 1100 * (1 << 20) + 10 * 2 + 90 * 3 + 900 * 4 + 100 * 5;
        assert!(
            err.contains(&format!("{total} bytes of {format}"))
                && err.contains("j/R0_")
                && err.contains("1048576 bytes long, is named 1100 times"),
            "{err}"
        );
    }
    let mut out = Counting::default();
    assert!(native::write(&w, &mut out).is_err());
    assert_eq!(out.writes, 0);
    // Just under the limit (1,000 parents: 1,048,579,890 bytes) is written.
    let w = fan_in(1000, 1, 1 << 20);
    let mut n = 0usize;
    native::write(&w, CountOnly(&mut n)).unwrap();
    assert!(n > 1000 << 20, "{n}");
}

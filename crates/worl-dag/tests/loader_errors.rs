//! Loader errors name the right file, line and item, with numbers as written: regression
//! tests of misattributed, line-0 and saturated messages.

use worl_dag::DagError;
use worl_dag::formats::{self, Format, alibaba, dax, native, stg, wfcommons};

fn parse_error(r: worl_dag::Result<impl Sized>) -> (String, usize, String) {
    match r {
        Err(e @ DagError::Parse { .. }) => {
            let text = e.to_string();
            let DagError::Parse { file, line, .. } = e else {
                unreachable!()
            };
            (file, line, text)
        }
        Err(e) => panic!("expected a Parse error, got {e:?}"),
        Ok(_) => panic!("expected a Parse error, got a workload"),
    }
}

// --- Alibaba ---------------------------------------------------------------------------

#[test]
fn alibaba_end_time_1e308_blames_its_row_not_another_jobs_edge() {
    // j_0 holds the only edge; j_1's task lasts 1e308 s, so the CCR bytes overflow.
    let rows = "M1,1,j_0,1,Terminated,100,160,100,0.3\n\
                R2_1,1,j_0,1,Terminated,160,170,100,0.3\n\
                M1,1,j_1,1,Terminated,100,1e308,100,0.3\n";
    let r = alibaba::read(
        rows.as_bytes(),
        "t.csv",
        &alibaba::AlibabaOptions::default(),
    );
    let (file, line, text) = parse_error(r);
    assert_eq!((file.as_str(), line), ("t.csv", 3));
    assert_eq!(
        text,
        "t.csv:3: task `j_1/M1`: work 1e308 reference GPU-seconds (start_time 100, end_time \
         1e308) is too large: the edge bytes for CCR 1 at 1250000000 bytes/s overflow"
    );
}

#[test]
fn alibaba_total_work_overflow_blames_the_largest_task() {
    // No edge: each work is finite, their sum is not.
    let rows = "M1,1,j_1,1,Terminated,100,1e308,100,0.3\n\
                M1,1,j_2,1,Terminated,100,1.7e308,100,0.3\n";
    let r = alibaba::read(
        rows.as_bytes(),
        "t.csv",
        &alibaba::AlibabaOptions::default(),
    );
    let (_, line, text) = parse_error(r);
    assert_eq!(line, 2);
    assert_eq!(
        text,
        "t.csv:2: task `j_2/M1`: work 1.7e308 reference GPU-seconds (start_time 100, end_time \
         1.7e308) is too large: the workload's total work overflows"
    );
}

#[test]
fn alibaba_work_overflowing_the_scale_names_file_line_and_task() {
    let rows = "M1,1,j_0,1,Terminated,100,160,100,0.3\n\
                M1,1,j_1,1,Terminated,100,1e308,100,0.3\n";
    let opts = alibaba::AlibabaOptions::default().work_scale(10.0);
    let (_, line, text) = parse_error(alibaba::read(rows.as_bytes(), "t.csv", &opts));
    assert_eq!(line, 2);
    assert_eq!(
        text,
        "t.csv:2: task `j_1/M1`: work inf is not a finite number >= 0 (reference GPU-seconds) \
         (start_time 100, end_time 1e308)"
    );
}

#[test]
fn alibaba_negative_duration_prints_times_short() {
    let rows = "M1,1,j_1,1,Terminated,1e300,100,100,0.3\n";
    let r = alibaba::read(
        rows.as_bytes(),
        "t.csv",
        &alibaba::AlibabaOptions::default(),
    );
    // The only job is dropped: no job left.
    assert!(matches!(r, Err(DagError::Empty { .. })));
    let rows = "M1,1,j_1,1,Terminated,1e300,100,100,0.3\nM1,1,j_2,1,Terminated,1,2,100,0.3\n";
    let (_, report) = alibaba::read(
        rows.as_bytes(),
        "t.csv",
        &alibaba::AlibabaOptions::default(),
    )
    .unwrap();
    assert_eq!(
        report.items(formats::Reason::NegativeDuration),
        ["j_1 (1 rows): M1 (line 1) ends at 100 before start 1e300"]
    );
}

// --- STG -------------------------------------------------------------------------------

#[test]
fn stg_header_u64_max_is_shown_as_written_not_saturated() {
    let text = "18446744073709551615\n0 0 0\n1 0 1 0\n";
    let (_, line, msg) = parse_error(stg::read(
        text.as_bytes(),
        "g.stg",
        &stg::StgOptions::default(),
    ));
    assert_eq!(line, 1);
    assert_eq!(
        msg,
        "g.stg:1: header says 18446744073709551615 tasks, so 18446744073709551615 + 2 task \
         lines (with the 2 dummies) were expected; found 2"
    );
    // Leading zeros are kept as written; a count past u64 is no count.
    let text = "\n# comment\n007\n0 0 0\n3 0 1 0\n";
    let (_, line, msg) = parse_error(stg::read(
        text.as_bytes(),
        "g.stg",
        &stg::StgOptions::default(),
    ));
    assert_eq!(line, 3);
    assert_eq!(
        msg,
        "g.stg:3: header says 007 tasks, so 9 task lines (with the 2 dummies) were expected; \
         found 2"
    );
    let text = "18446744073709551616\n0 0 0\n";
    let (_, line, msg) = parse_error(stg::read(
        text.as_bytes(),
        "g.stg",
        &stg::StgOptions::default(),
    ));
    assert_eq!(line, 1);
    assert_eq!(
        msg,
        "g.stg:1: header `18446744073709551616` is not a task count (an integer from 0 to \
         18446744073709551615)"
    );
}

#[test]
fn stg_predecessor_count_u64_max_is_shown_as_written() {
    let text = "1\n0 0 0\n1 5 18446744073709551615 0\n2 0 1 1\n";
    let (_, line, msg) = parse_error(stg::read(
        text.as_bytes(),
        "g.stg",
        &stg::StgOptions::default(),
    ));
    assert_eq!(line, 3);
    assert_eq!(
        msg,
        "g.stg:3: task 1: 1 tokens after the predecessor count `18446744073709551615`, \
         expected 18446744073709551615 (predecessors) or twice 18446744073709551615 \
         (predecessor, communication cost pairs)"
    );
}

#[test]
fn stg_bad_costs_and_repeated_predecessors_name_their_line() {
    let opts = stg::StgOptions::default();
    let text = "2\n0 0 0\n1 -5 1 0\n2 7 1 1\n3 0 1 2\n";
    let (_, line, msg) = parse_error(stg::read(text.as_bytes(), "tiny.stg", &opts));
    assert_eq!(line, 3);
    assert_eq!(
        msg,
        "tiny.stg:3: task `tiny/T1`: work -5 is not a finite number >= 0 (reference GPU-seconds)"
    );
    let text = "2\n0 0 0\n1 5 1 0\n2 7 2 1 1\n3 0 1 2\n";
    let (_, line, msg) = parse_error(stg::read(text.as_bytes(), "tiny.stg", &opts));
    assert_eq!(line, 4);
    assert_eq!(msg, "tiny.stg:4: task 2: predecessor 1 listed twice");
    // A communication cost whose bytes overflow names the child's line.
    let text = "2\n0 0 0 \n1 5 1 0 0\n2 7 1 1 1e300\n3 0 1 2 0\n";
    let (_, line, msg) = parse_error(stg::read(text.as_bytes(), "tiny.stg", &opts));
    assert_eq!(line, 4);
    assert_eq!(
        msg,
        "tiny.stg:4: edge `tiny/T1` -> `tiny/T2`: inf bytes is not a finite number >= 0"
    );
    // A self-loop.
    let text = "2\n0 0 0\n1 5 1 0\n2 7 1 2\n3 0 1 1\n";
    let (_, line, msg) = parse_error(stg::read(text.as_bytes(), "tiny.stg", &opts));
    assert_eq!(line, 4);
    assert_eq!(msg, "tiny.stg:4: task `tiny/T2` depends on itself");
}

// --- load_path detection -----------------------------------------------------------------

#[test]
fn unknown_extension_names_the_file_and_the_known_formats_without_line_0() {
    for (path, what) in [
        ("x.yaml", "extension `.yaml`"),
        ("dir/x.YML", "extension `.YML`"),
        ("x", "no extension"),
    ] {
        let e = formats::detect_format(path).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{path}: {what}: unknown format; known: .csv (Alibaba v2018 batch_task, GPU v2023 \
                 pod list or PAI v2020 task table, by header), .json (WfCommons WfFormat, or worl-workload native JSON), .xml or .dax (Pegasus DAX), \
                 .stg (Standard Task Graph), .dot or .gv (Graphviz DOT)"
            )
        );
        let e = formats::load_path(path).unwrap_err();
        assert!(!e.to_string().contains(":0:"), "{e}");
    }
}

#[test]
fn json_detection_needs_the_format_key_not_the_words() {
    let dir = std::env::temp_dir().join(format!("worl-dag-detect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A WfFormat document with a task named `worl-workload`.
    let wf = dir.join("wf.json");
    std::fs::write(
        &wf,
        r#"{"workflow": {"tasks": [{"name": "worl-workload", "runtime": 2.0}]}}"#,
    )
    .unwrap();
    assert_eq!(formats::detect_format(&wf).unwrap(), Format::WfFormat);
    let (w, _) = formats::load_path(&wf).unwrap();
    assert_eq!(w.graph().n_tasks(), 1);
    let nat = dir.join("n.json");
    std::fs::write(
        &nat,
        "{ \"format\" :\n \"worl-workload\", \"version\": 1, \"name\": \"n\", \"jobs\": \
         [{\"name\": \"j\", \"tasks\": [{\"name\": \"a\", \"work\": 1.0}]}]}",
    )
    .unwrap();
    assert_eq!(formats::detect_format(&nat).unwrap(), Format::Native);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_parse_error_without_a_line_shows_no_line() {
    let e = DagError::Parse {
        file: "f.json".into(),
        line: 0,
        message: "m".into(),
    };
    assert_eq!(e.to_string(), "f.json: m");
    let e = DagError::Parse {
        file: "f.json".into(),
        line: 7,
        message: "m".into(),
    };
    assert_eq!(e.to_string(), "f.json:7: m");
}

// --- WfCommons -------------------------------------------------------------------------

#[test]
fn wfformat_without_a_layout_names_the_workflow_line() {
    let text = "{\n  \"name\": \"x\",\n  \"workflow\": {}\n}\n";
    let (_, line, msg) = parse_error(wfcommons::read(
        text.as_bytes(),
        "w.json",
        &wfcommons::WfOptions::default(),
    ));
    assert_eq!(line, 3);
    assert!(
        msg.starts_with("w.json:3: neither workflow.specification"),
        "{msg}"
    );
}

#[test]
fn wfformat_negative_file_size_blames_the_file_not_the_edge() {
    let text = r#"{"workflow": {
      "specification": {
        "tasks": [
          {"id": "a", "parents": [], "children": ["b"], "outputFiles": ["f"]},
          {"id": "b", "parents": ["a"], "children": [], "inputFiles": ["f"]}
        ],
        "files": [{"id": "f", "sizeInBytes": -5}]
      },
      "execution": {"tasks": [{"id": "a", "runtimeInSeconds": 1}, {"id": "b", "runtimeInSeconds": 2}]}
    }}"#;
    let (_, line, msg) = parse_error(wfcommons::read(
        text.as_bytes(),
        "w.json",
        &wfcommons::WfOptions::default(),
    ));
    assert_eq!(line, 0);
    assert_eq!(msg, "w.json: file `f`: size -5 bytes is not a number >= 0");
}

#[test]
fn wfformat_builder_errors_name_the_file() {
    let text = r#"{"workflow": {"tasks": [{"name": "a", "runtime": -1e300}]}}"#;
    let (_, _, msg) = parse_error(wfcommons::read(
        text.as_bytes(),
        "w.json",
        &wfcommons::WfOptions::default(),
    ));
    assert_eq!(
        msg,
        "w.json: task `w/a`: work -1e300 is not a finite number >= 0 (reference GPU-seconds)"
    );
}

// --- DAX -------------------------------------------------------------------------------

const DAX_HEAD: &str = "<adag name=\"d\">\n<job id=\"A\" runtime=\"1\">\n";

#[test]
fn dax_negative_size_names_the_uses_line_and_file() {
    let text =
        format!("{DAX_HEAD}<uses file=\"f\" link=\"output\" size=\"-1e300\"/>\n</job>\n</adag>\n");
    let (_, line, msg) = parse_error(dax::read(
        text.as_bytes(),
        "d.xml",
        &dax::DaxOptions::default(),
    ));
    assert_eq!(line, 3);
    assert_eq!(msg, "d.xml:3: A: size `-1e300` of file f is negative");
}

#[test]
fn dax_negative_runtime_and_self_loop_name_their_line() {
    let text = "<adag>\n<job id=\"A\" runtime=\"1\"/>\n<job id=\"B\" runtime=\"-2\"/>\n</adag>\n";
    let (_, line, msg) = parse_error(dax::read(
        text.as_bytes(),
        "d.xml",
        &dax::DaxOptions::default(),
    ));
    assert_eq!(line, 3);
    assert_eq!(
        msg,
        "d.xml:3: task `d/B`: work -2 is not a finite number >= 0 (reference GPU-seconds)"
    );
    let text = "<adag>\n<job id=\"A\" runtime=\"1\"/>\n<child ref=\"A\">\n<parent ref=\"A\"/>\n\
                </child>\n</adag>\n";
    let (_, line, msg) = parse_error(dax::read(
        text.as_bytes(),
        "d.xml",
        &dax::DaxOptions::default(),
    ));
    assert_eq!(line, 4);
    assert_eq!(msg, "d.xml:4: task `d/A` depends on itself");
}

#[test]
fn dax_unknown_reference_names_the_line() {
    let text = "<adag>\n<job id=\"A\" runtime=\"1\"/>\n<child ref=\"A\">\n<parent ref=\"Z\"/>\n\
                </child>\n</adag>\n";
    let e = dax::read(text.as_bytes(), "d.xml", &dax::DaxOptions::default()).unwrap_err();
    assert!(
        matches!(&e, DagError::UnknownTask { task, referenced_by, .. }
            if task == "Z" && referenced_by == "<child ref=\"A\"> (line 4)"),
        "{e:?}"
    );
}

// --- native ----------------------------------------------------------------------------

#[test]
fn native_version_mismatch_names_the_line_of_the_key() {
    let text = "{\n \"format\": \"worl-workload\",\n \"version\": 2,\n \"name\": \"n\",\n \
                \"jobs\": []\n}\n";
    let (_, line, msg) = parse_error(native::read(text.as_bytes(), "n.json"));
    assert_eq!(line, 3);
    assert_eq!(
        msg,
        "n.json:3: format `worl-workload` version 2 is not `worl-workload` version 1"
    );
}

#[test]
fn native_id_and_builder_errors_name_the_file_without_line_0() {
    let text = r#"{"format": "worl-workload", "version": 1, "name": "n", "jobs": [
        {"name": "j", "tasks": [{"id": 5, "name": "a", "work": 1.0}]}]}"#;
    let (_, line, msg) = parse_error(native::read(text.as_bytes(), "n.json"));
    assert_eq!(line, 0);
    assert_eq!(msg, "n.json: task `j/a`: id 5 is repeated or not below 1");
    let text = r#"{"format": "worl-workload", "version": 1, "name": "n", "jobs": [
        {"name": "j", "tasks": [{"name": "a", "work": -1.0}]}]}"#;
    let (_, _, msg) = parse_error(native::read(text.as_bytes(), "n.json"));
    assert_eq!(
        msg,
        "n.json: task `j/a`: work -1 is not a finite number >= 0 (reference GPU-seconds)"
    );
}

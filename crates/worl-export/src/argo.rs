//! Argo Workflows: a `Workflow` (`argoproj.io/v1alpha1`) whose entry template is a DAG of
//! the tasks.
//!
//! Each DAG task (named [`names::dns_label`](crate::names::dns_label) of the task's engine name,
//! made unique) runs its own container template with
//!
//! * `nodeSelector: {kubernetes.io/hostname: <host>}`: the planned machine;
//! * `resources.limits: {nvidia.com/gpu: "1"}`: one GPU (a Kubernetes quantity string;
//!   `"<g>"` for a gang task of `g` GPUs);
//! * env `WORL_GPU` (the planned GPU index), `WORL_TASK`, `WORL_JOB`, `WORL_HOST`;
//! * `command: [sh, -c, <command>]` in [`ExportPlan::image`] (default `busybox:1.36`);
//!
//! and `dependencies` on its data predecessors and its same-GPU predecessor. The NVIDIA
//! device plugin chooses which physical GPU the pod gets; the planned index is passed in
//! `WORL_GPU`, and the same-GPU chain keeps the planned per-GPU order and concurrency.
//!
//! Written as YAML: block style, keys in the usual Kubernetes order, every string
//! double-quoted with escapes for everything outside printable ASCII (`\n`, `\x85`,
//! `\u2028`, ...), comments printable ASCII: the file is printable ASCII plus line feeds, so
//! no name can end a comment or a scalar early under YAML 1.1 or 1.2 (go-yaml, which
//! `kubectl` and `argo` use, treats U+0085, U+2028 and U+2029 as line breaks). `argo submit`
//! and `kubectl create -f` read it. [`DevicePolicy`](crate::DevicePolicy) does not apply: a
//! pod sees only the device the NVIDIA device plugin gave it.
//!
//! **Gang tasks.** A task on `g > 1` GPUs of one machine is one pod with
//! `nvidia.com/gpu: "<g>"` on that machine's node, `WORL_GPU` its planned index list
//! (comma-separated, lead first; [`ExportTask::gpu_list`](crate::ExportTask::gpu_list)) and
//! the same list in the annotation `worl/gpus` (a label value cannot hold commas; the label
//! `worl/gpu` is the lead's index). It depends on the task before it on each of its GPUs. A
//! set across machines cannot be one pod: [`ExportPlan::new`](crate::ExportPlan::new)
//! refuses it with [`ExportError::GangAcrossMachines`](crate::ExportError::GangAcrossMachines).
//! One-GPU tasks are written as before, byte for byte.

use crate::ExportPlan;
use crate::names::{dns_label, unique};
use crate::quote::comment;
use crate::yaml::{Node, map, s, to_yaml};
use serde_json::Value;

fn workflow_node(plan: &ExportPlan) -> Node {
    let names = unique(
        &plan
            .tasks()
            .iter()
            .map(|t| t.name.clone())
            .collect::<Vec<_>>(),
        dns_label,
    );
    let mut dag = Vec::new();
    let mut templates = Vec::new();
    for (i, t) in plan.tasks().iter().enumerate() {
        let mut task = vec![
            ("name".to_owned(), s(&names[i])),
            ("template".to_owned(), s(&names[i])),
        ];
        if !t.after.is_empty() {
            task.push((
                "dependencies".to_owned(),
                Node::List(t.after.iter().map(|&d| s(&names[d])).collect()),
            ));
        }
        dag.push(Node::Map(task));
        let env = |k: &str, v: String| map([("name", s(k)), ("value", s(v))]);
        let mut metadata = vec![(
            "labels".to_owned(),
            map([("worl/gpu", s(t.gpu.to_string()))]),
        )];
        if t.is_gang() {
            metadata.push((
                "annotations".to_owned(),
                map([("worl/gpus", s(t.gpu_list()))]),
            ));
        }
        templates.push(map([
            ("name", s(&names[i])),
            ("metadata", Node::Map(metadata)),
            (
                "nodeSelector",
                map([("kubernetes.io/hostname", s(&t.host))]),
            ),
            (
                "container",
                map([
                    ("image", s(plan.image())),
                    ("command", Node::List(vec![s("sh"), s("-c"), s(&t.command)])),
                    (
                        "env",
                        Node::List(vec![
                            env("WORL_GPU", t.gpu_list()),
                            env("WORL_TASK", t.task.clone()),
                            env("WORL_JOB", t.job.clone()),
                            env("WORL_HOST", t.host.clone()),
                        ]),
                    ),
                    (
                        "resources",
                        map([(
                            "limits",
                            map([("nvidia.com/gpu", s(t.gpus.len().to_string()))]),
                        )]),
                    ),
                ]),
            ),
        ]));
    }
    templates.insert(
        0,
        map([
            ("name", s("schedule")),
            ("dag", map([("tasks", Node::List(dag))])),
        ]),
    );
    let prefix: String = dns_label(plan.name()).chars().take(52).collect();
    map([
        ("apiVersion", s("argoproj.io/v1alpha1")),
        ("kind", s("Workflow")),
        (
            "metadata",
            map([
                (
                    "generateName",
                    s(format!("{}-", prefix.trim_end_matches('-'))),
                ),
                (
                    "annotations",
                    map([
                        ("worl/workload", s(plan.workload())),
                        ("worl/cluster", s(plan.cluster())),
                    ]),
                ),
            ]),
        ),
        (
            "spec",
            map([
                ("entrypoint", s("schedule")),
                ("templates", Node::List(templates)),
            ]),
        ),
    ])
}

/// The `Workflow` of `plan` as a JSON value: the structure [`workflow`] writes as YAML.
pub fn workflow_value(plan: &ExportPlan) -> Value {
    workflow_node(plan).to_json()
}

/// The `Workflow` of `plan` as YAML (ends with a newline); see the module docs.
pub fn workflow(plan: &ExportPlan) -> String {
    let mut out = format!(
        "# Argo Workflow generated by `worl export`: workload `{}` on cluster `{}`, {} tasks.\n\
         # Submit: argo submit workflow.yaml (or kubectl create -f workflow.yaml)\n",
        comment(plan.workload()),
        comment(plan.cluster()),
        plan.tasks().len()
    );
    out.push_str(&to_yaml(&workflow_node(plan)));
    out
}

#!/usr/bin/env python3
"""Validates Argo Workflow YAML files against the Argo Workflows object model.

Usage: argo_schema.py WORKFLOW.yaml...

Uses the `hera` SDK's pydantic models of `io.argoproj.workflow.v1alpha1.Workflow`
(generated from Argo's OpenAPI schema), made strict: every model forbids unknown fields, so
a misspelt or misplaced key fails. Needs `pip install hera pyyaml`. Exit status 1 on the
first invalid file, with pydantic's message.
"""

import inspect
import sys

import pydantic
import yaml
from hera.workflows import models


def strict_models():
    seen = set()
    for module in list(sys.modules.values()):
        name = getattr(module, "__name__", "")
        if not name.startswith("hera.workflows.models"):
            continue
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, pydantic.BaseModel) and cls not in seen:
                seen.add(cls)
                cls.model_config["extra"] = "forbid"
    # a model's schema embeds its fields' schemas as built at the time: rebuild until the
    # deepest nesting (well under 12 levels) has been refreshed
    for _ in range(12):
        for cls in seen:
            cls.model_rebuild(force=True)
    return len(seen)


def main(paths):
    n = strict_models()
    for path in paths:
        with open(path) as f:
            doc = yaml.safe_load(f)
        try:
            wf = models.Workflow.model_validate(doc)
        except pydantic.ValidationError as e:
            sys.exit(f"{path}: not a valid Argo Workflow: {e}")
        tasks = wf.spec.templates[0].dag.tasks
        print(f"{path}: valid Argo Workflow ({len(tasks)} DAG tasks; {n} strict models)")


if __name__ == "__main__":
    main(sys.argv[1:])

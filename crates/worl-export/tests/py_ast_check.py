#!/usr/bin/env python3
"""Reads Ray drivers written by `worl export` with Python's own parser, for the export tests.

Usage: py_ast_check.py DRIVER.py...

Prints a JSON list with one object per file:

* "skeleton": `ast.dump` of the module with the values of its data assignments
  (WORKLOAD, CLUSTER, PIN_DEVICES, TASKS) blanked out: the code the names did not change.
  The tests check it is the same for every driver, whatever its names;
* "workload", "cluster", "pin", "tasks": those values, read with `ast.literal_eval` (a
  literal only: a name that became code would not be one).

Each data name must be assigned exactly once at the top level. Standard library only;
exit status 1 with the reason on the first file that breaks a rule.
"""

import ast
import json
import sys

DATA = ("WORKLOAD", "CLUSTER", "PIN_DEVICES", "TASKS")


def read(path):
    with open(path, "rb") as f:
        source = f.read()
    tree = ast.parse(source, filename=path)
    data = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id in DATA
        ):
            name = node.targets[0].id
            if name in data:
                sys.exit(f"{path}: {name} assigned twice")
            data[name] = ast.literal_eval(node.value)
            node.value = ast.Constant(value=None)
    missing = [n for n in DATA if n not in data]
    if missing:
        sys.exit(f"{path}: no top-level assignment of {', '.join(missing)}")
    return {
        "skeleton": ast.dump(tree),
        "workload": data["WORKLOAD"],
        "cluster": data["CLUSTER"],
        "pin": data["PIN_DEVICES"],
        "tasks": data["TASKS"],
    }


def main():
    out = [read(p) for p in sys.argv[1:]]
    json.dump(out, sys.stdout, ensure_ascii=True)


if __name__ == "__main__":
    main()

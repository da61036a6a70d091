"""arm/startup: the edge-dialect table parsed in C is the table ruamel parses (the oracle), ruamel is
left as it was, and the collector is paused, then frozen and resumed."""

from __future__ import annotations

import gc
import json
import subprocess
import sys

import pytest

from arm.startup import garbage_collection

# Runs in a fresh process: the table is parsed once, when executorch.exir is first imported.
_IMPORT_AND_COMPARE = """
import json, sys
import ruamel.yaml
original = ruamel.yaml.YAML
from arm.startup import edge_dialect_table
edge_dialect_table.import_executorch()
edge_ops = sys.modules[edge_dialect_table.EDGE_OPS_MODULE]
from executorch.exir.dialects import edge
oracle = original(typ="safe").load(resources.read_text(edge, "edge.yaml", encoding="utf-8"))
print(json.dumps({
    "equal": edge_ops._edge_dialect_info == {entry["inherits"]: entry for entry in oracle},
    "entries": len(edge_ops._edge_dialect_info),
    "ruamel_restored": ruamel.yaml.YAML is original,
    "module_restored": edge_ops.YAML is original,
}))
"""


def test_the_table_parsed_in_c_equals_ruamels() -> None:
    yaml = pytest.importorskip("yaml")
    assert hasattr(yaml, "CSafeLoader"), "PyYAML without libyaml: the start-up would parse in pure Python"
    completed = subprocess.run([sys.executable, "-c", _IMPORT_AND_COMPARE], capture_output=True, text=True, check=True)
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    assert result == {"equal": True, "entries": result["entries"], "ruamel_restored": True, "module_restored": True}
    assert result["entries"] > 100  # the whole table, not an empty parse


def test_the_collector_is_paused_then_frozen_and_resumed() -> None:
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    garbage_collection.pause()
    try:
        assert not gc.isenabled()
        start_up_objects = [[index] for index in range(1000)]  # what imports would leave behind
    finally:
        garbage_collection.settle()
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + len(start_up_objects)
    garbage_collection.settle()  # a second settle (the worker's next request) changes nothing
    assert gc.isenabled()
    gc.unfreeze()


def test_settle_without_pause_leaves_the_collector_alone() -> None:
    frozen = gc.get_freeze_count()
    garbage_collection.settle()
    assert gc.isenabled() and gc.get_freeze_count() == frozen

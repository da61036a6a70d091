"""What the TOSA graph-rewrite tests (arm/tosa/*_test.py) ask of a hand-built graph: its results on the
TOSA reference model and the names of its operators, in order."""

from __future__ import annotations

import numpy as np
import tosa_reference_model

from arm.tosa.graph import TosaGraph


def run_on_reference_model(graph: TosaGraph, *inputs: np.ndarray) -> list[np.ndarray]:
    """The graph's outputs for ``inputs``; a graph the reference model calls invalid fails the test."""
    outputs, status = tosa_reference_model.run(graph.serialize(), list(inputs))
    assert status == tosa_reference_model.GraphStatus.TOSA_VALID, status
    return [np.asarray(output) for output in outputs]


def operator_names(graph: TosaGraph) -> list[str]:
    return [operator.op.name for operator in graph.operators]

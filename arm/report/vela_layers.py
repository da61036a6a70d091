"""Vela's per-operator and summary CSVs, read into report rows tied back to edge nodes.

Vela names each per-operator row after the TOSA tensor the operator writes, and the TOSA lowering
names tensors after edge nodes plus a suffix for the layout or the step (``aten_relu_default_nhwc``,
``..._int32``). Dropping ``_suffix`` parts until an edge node's name remains finds the node; rows
named ``#<id>`` are operators Vela added itself.
"""

from __future__ import annotations

import csv
import io
from typing import Collection, Mapping

from arm.report.report_data import PartitionCost, VelaLayer


def _integer(row: Mapping[str, str], column: str) -> int:
    return int(round(float(row.get(column) or 0)))


def node_of_tensor(tensor: str, node_names: Collection[str]) -> str | None:
    """The edge node whose TOSA tensor this is: the longest ``_``-prefix of ``tensor`` that names one."""
    candidate = tensor
    while candidate:
        if candidate in node_names:
            return candidate
        candidate, separator, _ = candidate.rpartition("_")
        if not separator:
            return None
    return None


def read_per_layer(
    per_layer_csv: str, partition: int, node_names: Collection[str], layer_of: Mapping[str, str | None]
) -> list[VelaLayer]:
    """Rows of one partition's per-operator CSV.

    Args:
        node_names: edge node names of the partition's sub-graph (placeholders included).
        layer_of: edge node name -> quantized torch node name.
    """
    rows = []
    for row in csv.DictReader(io.StringIO(per_layer_csv)):
        tensor = row["Name"]
        node = None if tensor.startswith("#") else node_of_tensor(tensor, node_names)
        rows.append(
            VelaLayer(
                partition=partition,
                operator=row["Original Operator"],
                tensor=tensor,
                node=node,
                layer=layer_of.get(node) if node else None,
                cycles=_integer(row, "Op Cycles"),
                compute_cycles=_integer(row, "NPU"),
                sram_cycles=_integer(row, "SRAM AC"),
                dram_cycles=_integer(row, "DRAM AC"),
                on_chip_flash_cycles=_integer(row, "OnFlash AC"),
                off_chip_flash_cycles=_integer(row, "OffFlash AC"),
                macs=_integer(row, "MAC Count"),
                staging_bytes=_integer(row, "Staging Usage"),
            )
        )
    return rows


def summary_row(summary_csv: str) -> dict[str, str]:
    (row,) = csv.DictReader(io.StringIO(summary_csv))
    return row


def partition_costs(summaries: list[str]) -> list[PartitionCost]:
    """Totals of each partition from Vela's summary CSVs, with each one's share of all NPU cycles."""
    rows = [summary_row(summary) for summary in summaries]
    total = sum(_integer(row, "cycles_total") for row in rows) or 1
    return [
        PartitionCost(
            partition=index,
            total_cycles=_integer(row, "cycles_total"),
            compute_cycles=_integer(row, "cycles_npu"),
            macs=_integer(row, "nn_macs"),
            sram_bytes=_integer(row, "sram_total_bytes"),
            flash_bytes=_integer(row, "on_chip_flash_total_bytes") + _integer(row, "off_chip_flash_total_bytes"),
            inference_ms=float(row["inference_time"]) * 1e3,
            share=_integer(row, "cycles_total") / total,
        )
        for index, row in enumerate(rows)
    ]

"""The CPU side's cost where the runtime has measured it: Corstone-300 under QEMU (runtime/README.md).

Instructions per inference outside the NPU (QEMU ``-icount shift=0``, GCC 12.2.1 ``-c opt``, the NPU
stubbed), the memory plan's size and the runtime arena, for the model and target they were measured on.
A report shows them only for that pair; a model nobody has measured gets no CPU figures rather than
a guess.
"""

from __future__ import annotations

from arm.report.report_data import CpuCost

_SOURCE = "runtime/README.md: Corstone-300 on QEMU, -icount shift=0, Vela 5.2.0, measured 2026-11-21"

# (factory, target) -> cost, copied from the runtime README's table.
MEASURED: dict[tuple[str, str], CpuCost] = {
    ("models.mobilenet_v2:model", "ethos-u55-128"): CpuCost(7_956_093, 752_640, 1_510_568, _SOURCE),
    ("models.ds_cnn:model", "ethos-u55-128"): CpuCost(31_656, 2_464, 22_856, _SOURCE),
}


def measured_cpu_cost(factory: str, target: str) -> CpuCost | None:
    return MEASURED.get((factory, target))

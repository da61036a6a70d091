"""Which ops delegate with int16 activations (a16w8): each op's first case compiled with
``get_symmetric_a16w8_quantization_config`` on some INT targets, and the reasons for what stays on the CPU.

    python -m arm.ops.testing.a16w8_inventory --target u85_INT --target u55_INT [--op layer_norm ...] [--json out.json]

An inventory, not a test: by default it checks placement only (the op's cases with their own a16w8
entries check the numbers). ``--check`` runs the harness's checks too (quantized module, float module,
bit-exactness on the NPU model) and reports their failure. An op whose case already quantizes with a
config of its own (an a16w8 case) is compiled with that case. One line per op and target:
``delegated`` (``checked`` with --check) or ``cpu`` and the reasons, or ``failed`` and the assertion.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from arm.flow import run_flow
from arm.model_spec import ModelSpec
from arm.ops.common import registry
from arm.ops.common.op_test_case import OpTestCase
from arm.ops.testing.harness import OP_TEST_TARGETS, OpCase, _target, check_op_case
from arm.quantizer.quantization_config import get_symmetric_a16w8_quantization_config


@dataclasses.dataclass(frozen=True)
class Placement:
    op: str
    case: str
    target: str
    delegated: bool
    reasons: tuple[str, ...]


def a16w8_case(op: str) -> tuple[str, OpTestCase]:
    """The op's own a16w8 case if it has one, else its first case quantized with a16w8."""
    cases = registry.test_cases(op)
    for name, case in cases.items():
        if case.quantization is get_symmetric_a16w8_quantization_config:
            return name, case
    name, case = next(iter(cases.items()))
    return name, dataclasses.replace(case, quantization=get_symmetric_a16w8_quantization_config)


def checked(op: str, target: str) -> Placement:
    """The harness's checks of the a16w8 case (the case's own cpu_targets dropped: placement is asked)."""
    name, case = a16w8_case(op)
    try:
        check_op_case(OpCase(op, name, target, dataclasses.replace(case, cpu_targets=())))
    except Exception as error:
        return Placement(op, name, target, False, (f"failed: {type(error).__name__}: {error}"[:400],))
    return Placement(op, name, target, True, ())


def placement(op: str, target: str) -> Placement:
    name, case = a16w8_case(op)
    try:
        result = run_flow(ModelSpec(case.module, case.inputs, case.calibration_inputs()), _target(target, case),
                          progress=False)  # fmt: skip
    except Exception as error:  # an inventory reports a failing compile instead of stopping
        return Placement(op, name, target, False, (f"compile failed: {type(error).__name__}: {error}"[:400],))
    backend = result.target.compile_spec.backend_id
    reasons = tuple(reason for node, reason in result.rejected if not node.startswith(("quantized_decomposed_", "<")))
    return Placement(op, name, target, backend in result.delegate_ids and not reasons, reasons)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", action="append", choices=[t for t in OP_TEST_TARGETS if t.endswith("_INT")])
    parser.add_argument("--op", action="append", help="op file name; every op when left out")
    parser.add_argument("--json", help="write the placements here as a JSON list")
    parser.add_argument("--check", action="store_true", help="run the harness's numeric checks, not only placement")
    args = parser.parse_args(argv)
    found: list[Placement] = []
    for op in args.op or registry.op_names():
        for target in args.target or ["u85_INT"]:
            found.append((checked if args.check else placement)(op, target))
            where = ("checked" if args.check else "delegated") if found[-1].delegated else "cpu"
            print(f"{op:24} {target:8} {where:9} {found[-1].case}: {' | '.join(found[-1].reasons)[:300]}", flush=True)
            if args.json:
                with open(args.json, "w") as out:
                    json.dump([dataclasses.asdict(p) for p in found], out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Our side: the product flow, ``arm.flow.run_flow``, exactly as the CLI and Bazel rule call it."""

from __future__ import annotations

import time

from arm.flow import EthosUOptions, resolve_target, run_flow
from arm.model_spec import ModelSpec
from arm.ops.common import registry
from bench.backend_isolation import backends_of
from bench.compiled import CompiledProgram


def warm_up() -> None:
    """Loads what the flow would otherwise import lazily during the first timed compile."""
    registry.op_names()


def compile_ours(
    spec: ModelSpec, target: str, calibration_samples: int, *, lookups: str | None = None
) -> CompiledProgram:
    """``lookups``: an Ethos-U target's lookup placement (arm.compile --lookups); None keeps the default."""
    cpu_start = time.process_time()
    resolved = resolve_target(target, EthosUOptions(lookups=lookups)) if lookups else resolve_target(target)
    with backends_of("arm"):
        result = run_flow(spec, resolved, calibration_samples=calibration_samples, progress=False)
    cpu_seconds = time.process_time() - cpu_start
    return CompiledProgram(
        pte=result.pte,
        cpu_seconds=cpu_seconds,
        stage_seconds=dict(result.stage_seconds),
        tosa_flatbuffers=[tosa.flatbuffer for tosa in result.artifacts.tosa],
        vela_summaries=[vela.summary_csv for vela in result.artifacts.vela],
        vela_per_layer=[vela.per_layer_csv for vela in result.artifacts.vela],
        quantized_module=result.quantized_module,
        # Quantize/dequantize at partition edges are there by design; the other nodes are the news.
        cpu_reasons=tuple(reason for name, reason in result.rejected if "quantized_decomposed" not in name),
    )

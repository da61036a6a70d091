"""The peer: ExecuTorch's own Arm backend, driven the way its aot_arm_compiler script drives it.

This module is the only place in the repository that imports ``executorch.backends.arm``.

Steps and settings mirror ours: export, pt2e quantization with ``EthosUQuantizer`` and the symmetric
per-channel int8 config, re-export, ``to_edge_transform_and_lower`` with ``EthosUPartitioner``, then
``to_executorch`` (for tosa-INT: ``TOSAQuantizer`` and ``TOSAPartitioner`` with TOSA-1.0+INT, no Vela);
same calibration samples, same Vela, same system config and memory mode. On Ethos-U the peer writes its
TOSA graphs only to an intermediate-artifacts folder; the bench reads them from there, and runs Vela on
them again (outside the timed region) for per-partition reports, as the peer's own folder keeps only the
last partition's summary. On tosa-INT the delegate blobs are the TOSA graphs themselves.
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

import torch
from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from arm.compile_spec import EthosUCompileSpec as OurEthosUCompileSpec
from arm.ethosu.vela import compile_tosa
from arm.model_spec import ModelSpec
from bench.backend_isolation import backends_of
from bench.compiled import CompiledProgram


def warm_up() -> None:
    """Imports the peer's modules, including those its backend imports lazily on first use."""
    import executorch.backends.arm._passes  # noqa: F401
    import executorch.backends.arm.ethosu  # noqa: F401
    import executorch.backends.arm.operators.node_visitor  # noqa: F401
    import executorch.backends.arm.quantizer  # noqa: F401


# The peer's TOSA-only target: its TOSA backend with the integer profile, as its aot_arm_compiler's
# TOSA-1.0+INT target (no Vela: the delegate is the TOSA flatbuffer itself).
TOSA_INT = "tosa-INT"
_TOSA_INT_SPEC = "TOSA-1.0+INT"


def compile_peer(spec: ModelSpec, target: str, calibration_samples: int) -> CompiledProgram:
    from executorch.backends.arm.quantizer import get_symmetric_quantization_config

    samples = spec.calibration_inputs[:calibration_samples]
    module = spec.module.eval()
    seconds: dict[str, float] = {}
    cpu_seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-peer-") as workdir:
        compile_spec, quantizer, partitioner = _peer_backend(target, workdir)
        quantizer.set_global(get_symmetric_quantization_config(is_per_channel=True))

        with _timed(seconds, cpu_seconds, "export"):
            exported = torch.export.export(module, spec.example_inputs)
        with _timed(seconds, cpu_seconds, "quantize"):
            quantized = _quantized(exported, quantizer, samples)
        with _timed(seconds, cpu_seconds, "re-export"):
            exported = torch.export.export(quantized, spec.example_inputs)
        with _timed(seconds, cpu_seconds, "lower"), backends_of("executorch.backends.arm"):
            edge = to_edge_transform_and_lower(
                exported,
                partitioner=[partitioner],
                compile_config=EdgeCompileConfig(_check_ir_validity=False),
            )
        with _timed(seconds, cpu_seconds, "serialize"), backends_of("executorch.backends.arm"):
            pte = edge.to_executorch().buffer

        if target == TOSA_INT:
            tosa_flatbuffers = _tosa_delegate_blobs(edge)
        else:
            tosa_flatbuffers = [path.read_bytes() for path in _dumped_tosa_files(Path(workdir))]
    vela_spec = None if target == TOSA_INT else OurEthosUCompileSpec(target)
    reports = [] if vela_spec is None else [_vela_reports(tosa, vela_spec) for tosa in tosa_flatbuffers]
    return CompiledProgram(
        pte=pte,
        stage_seconds=seconds,
        cpu_seconds=sum(cpu_seconds.values()),
        tosa_flatbuffers=tosa_flatbuffers,
        vela_summaries=[summary for summary, _ in reports],
        quantized_module=quantized,
        vela_per_layer=[per_layer for _, per_layer in reports],
    )


def quantize_peer(spec: ModelSpec, target: str, calibration_samples: int) -> torch.fx.GraphModule:
    """The peer's converted pt2e module for ``target``, as compile_peer makes it, without lowering it.

    The quantized torch model is what bench.agreement holds the peer's delegate to; with the peer's
    TOSA graph saved from an earlier compile, this is all of the peer that a new error measure needs.
    """
    from executorch.backends.arm.quantizer import get_symmetric_quantization_config

    with tempfile.TemporaryDirectory(prefix="bench-peer-") as workdir:
        _, quantizer, _ = _peer_backend(target, workdir)
    quantizer.set_global(get_symmetric_quantization_config(is_per_channel=True))
    exported = torch.export.export(spec.module.eval(), spec.example_inputs)
    return _quantized(exported, quantizer, spec.calibration_inputs[:calibration_samples])


def _quantized(exported: torch.export.ExportedProgram, quantizer: object, samples: list) -> torch.fx.GraphModule:
    prepared = prepare_pt2e(exported.module(check_guards=False), quantizer)
    with torch.no_grad():
        for sample in samples:
            prepared(*sample)
    return convert_pt2e(prepared)


def _peer_backend(target: str, artifacts_dir: str) -> tuple[object, object, object]:
    """The peer's (compile spec, quantizer, partitioner) for ``target``: tosa-INT or an Ethos-U.

    The artifacts folder is set before the partitioner is made: the partitioner keeps its own copy of the
    compile spec's entries, and a folder set later never reaches the backend.
    """
    if target == TOSA_INT:
        from executorch.backends.arm.quantizer import TOSAQuantizer
        from executorch.backends.arm.tosa.compile_spec import TosaCompileSpec
        from executorch.backends.arm.tosa.partitioner import TOSAPartitioner

        compile_spec = TosaCompileSpec(_TOSA_INT_SPEC)
        compile_spec.dump_intermediate_artifacts_to(artifacts_dir)
        return compile_spec, TOSAQuantizer(compile_spec), TOSAPartitioner(compile_spec)
    from executorch.backends.arm.ethosu import EthosUCompileSpec, EthosUPartitioner
    from executorch.backends.arm.quantizer import EthosUQuantizer

    ours = OurEthosUCompileSpec(target)  # the same system config and memory mode as our default
    compile_spec = EthosUCompileSpec(target, system_config=ours.system_config, memory_mode=ours.memory_mode)
    compile_spec.dump_intermediate_artifacts_to(artifacts_dir)
    return compile_spec, EthosUQuantizer(compile_spec), EthosUPartitioner(compile_spec)


def _vela_reports(tosa: bytes, spec: OurEthosUCompileSpec) -> tuple[str, str]:
    """(summary CSV, per-layer CSV) of Vela on one of the peer's partitions.

    Vela 5.2.0's per-layer writer fails (KeyError in stats_writer) on a graph with a bool input, which
    the peer's Llama partition has (its causal mask, computed on the CPU); the compile itself succeeds,
    so Vela runs again without --verbose-performance for the summary alone.
    """
    try:
        artifact = compile_tosa(tosa, spec)
    except KeyError:
        return _summary_only(tosa, spec), ""
    return artifact.summary_csv, artifact.per_layer_csv


def _summary_only(tosa: bytes, spec: OurEthosUCompileSpec) -> str:
    from ethosu.vela import vela

    with tempfile.TemporaryDirectory(prefix="bench-peer-vela-") as workdir:
        tosa_path = Path(workdir) / "model.tosa"
        tosa_path.write_bytes(tosa)
        flags = spec.vela_flags()
        if spec.config_ini is None:
            flags.append("--config=Arm/vela.ini")  # as arm.ethosu.vela
        recursion_limit = sys.getrecursionlimit()  # Vela lowers it globally
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                vela.main([*flags, "--output-format=raw", f"--output-dir={workdir}/out", str(tosa_path)])
        finally:
            sys.setrecursionlimit(recursion_limit)
        return (Path(workdir) / "out" / f"model_summary_{spec.system_config}.csv").read_text()


@contextlib.contextmanager
def _timed(seconds: dict[str, float], cpu_seconds: dict[str, float], stage: str) -> Iterator[None]:
    start, cpu_start = time.perf_counter(), time.process_time()
    yield
    seconds[stage] = time.perf_counter() - start
    cpu_seconds[stage] = time.process_time() - cpu_start


def _tosa_delegate_blobs(edge) -> list[bytes]:
    """The TOSA backend's delegate blobs, in graph order: each is the partition's TOSA flatbuffer as it is."""
    from executorch.exir.lowered_backend_module import LoweredBackendModule

    graph_module = edge.exported_program().graph_module
    attributes = [getattr(graph_module, node.target) for node in graph_module.graph.nodes if node.op == "get_attr"]
    return [module.processed_bytes for module in attributes if isinstance(module, LoweredBackendModule)]


def _dumped_tosa_files(workdir: Path) -> list[Path]:
    # The peer names each partition's graph output_tag<N>_<spec>.tosa; out.tosa is Vela's own copy of the
    # last one.
    return sorted(workdir.glob("output_tag*.tosa"), key=lambda path: int(path.name[len("output_tag") :].split("_")[0]))

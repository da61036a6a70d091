"""The ``VgfBackend`` delegate: TOSA lowering followed by Arm's model converter.

The class name is the delegate id ExecuTorch's VGF runtime looks up, so it must stay ``VgfBackend``; the
delegate's blob is the VGF file itself, as that runtime reads it.
"""

from __future__ import annotations

import logging
from typing import final

from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec
from torch.export.exported_program import ExportedProgram

from arm.artifacts import report_tosa
from arm.compile_spec import VgfCompileSpec
from arm.tosa.lowering import lower_to_tosa
from arm.vgf.converter import convert_tosa_to_vgf

logger = logging.getLogger(__name__)


@final
class VgfBackend(BackendDetails):
    @staticmethod
    def preprocess(edge_program: ExportedProgram, compile_specs: list[CompileSpec]) -> PreprocessResult:
        spec = VgfCompileSpec.from_list(compile_specs)
        tosa = lower_to_tosa(edge_program, spec.tosa_spec)
        report_tosa(tosa)
        vgf = convert_tosa_to_vgf(tosa.flatbuffer, spec.compiler_flags)
        logger.info("converted a %s partition to %d bytes of VGF", spec.tosa_spec, len(vgf))
        return PreprocessResult(processed_bytes=vgf)

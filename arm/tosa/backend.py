"""The ``TOSABackend`` delegate: its blob is the TOSA 1.0 flatbuffer of the partition."""

from __future__ import annotations

import logging

from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec
from torch.export import ExportedProgram

from arm.artifacts import report_tosa
from arm.compile_spec import TosaCompileSpec
from arm.tosa.lowering import lower_to_tosa

logger = logging.getLogger(__name__)


class TOSABackend(BackendDetails):
    """Delegate id ``TOSABackend`` (the class name is what executorch records in the .pte)."""

    @staticmethod
    def preprocess(edge_program: ExportedProgram, compile_specs: list[CompileSpec]) -> PreprocessResult:
        spec = TosaCompileSpec.from_list(compile_specs).tosa_spec
        artifact = lower_to_tosa(edge_program, spec)
        logger.info("lowered a partition to %s: %d bytes of TOSA", spec, len(artifact.flatbuffer))
        report_tosa(artifact)
        return PreprocessResult(processed_bytes=artifact.flatbuffer)

"""Compile specs: what a user asks the Arm flow to target.

The public names match ExecuTorch's Arm backend (``EthosUCompileSpec``, ``TosaCompileSpec``,
``VgfCompileSpec``) so a user
switches flows by changing imports. Each spec knows its delegate id and serialises itself to the
``CompileSpec`` list that executorch stores beside the delegate.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from executorch.exir.backend.compile_spec_schema import CompileSpec

from arm.tosa.specification import TosaSpecification

# Vela's accelerator configurations (``--accelerator-config``).
ETHOS_U_TARGETS = (
    "ethos-u55-32", "ethos-u55-64", "ethos-u55-128", "ethos-u55-256",
    "ethos-u65-256", "ethos-u65-512",
    "ethos-u85-128", "ethos-u85-256", "ethos-u85-512", "ethos-u85-1024", "ethos-u85-2048",
)  # fmt: skip

# Where an Ethos-U target runs the table lookups its NPU can run (EthosUCompileSpec's ``lookups``): by the
# cost estimate of the op's support rule (the default), or on the NPU whatever it costs.
LOOKUP_PLACEMENTS = ("cost", "npu")

# System config and memory mode from Vela's Arm/vela.ini that a target gets unless told otherwise.
_DEFAULT_MEMORY_SYSTEM = {
    "ethos-u55": ("Ethos_U55_High_End_Embedded", "Shared_Sram"),
    "ethos-u65": ("Ethos_U65_High_End", "Dedicated_Sram_384KB"),
    "ethos-u85": ("Ethos_U85_SYS_DRAM_Mid", "Sram_Only"),
}


@dataclasses.dataclass(frozen=True)
class TosaCompileSpec:
    """Lower to a TOSA 1.0 flatbuffer (delegate id ``TOSABackend``)."""

    tosa_spec: TosaSpecification

    backend_id: ClassVar[str] = "TOSABackend"

    def __init__(self, tosa_spec: TosaSpecification | str):
        if isinstance(tosa_spec, str):
            tosa_spec = TosaSpecification.from_string(tosa_spec)
        object.__setattr__(self, "tosa_spec", tosa_spec)

    @property
    def target(self) -> str:
        return "tosa"

    def to_list(self) -> list[CompileSpec]:
        return [CompileSpec("tosa_spec", str(self.tosa_spec).encode())]

    @classmethod
    def from_list(cls, specs: list[CompileSpec]) -> TosaCompileSpec:
        return cls(_spec_dict(specs)["tosa_spec"])


@dataclasses.dataclass(frozen=True)
class EthosUCompileSpec:
    """Lower to TOSA, then compile with Vela for an Ethos-U (delegate id ``EthosUBackend``).

    Args:
        target: a Vela accelerator configuration, e.g. ``"ethos-u55-128"``.
        system_config: a system configuration name from Vela's ini file; defaults by NPU family.
        memory_mode: a memory mode name from Vela's ini file; defaults by NPU family.
        extra_flags: further Vela command-line flags, e.g. ``["--optimise=Size"]``.
        config_ini: Vela ini file; ``None`` means the one shipped in the Vela wheel (Arm/vela.ini).
        lookups: where table lookups (embedding) run when the NPU can run them: ``"cost"`` (default)
            where the support rule's cost estimate says they cost less (the CPU's row copy for large
            tables from the model's input), ``"npu"`` on the NPU whatever the estimate, for a program with
            one delegate and no CPU operator (see LOOKUP_PLACEMENTS).
    """

    target: str
    system_config: str
    memory_mode: str
    extra_flags: tuple[str, ...] = ()
    config_ini: str | None = None
    lookups: str = "cost"

    backend_id: ClassVar[str] = "EthosUBackend"

    def __init__(
        self,
        target: str,
        system_config: str | None = None,
        memory_mode: str | None = None,
        extra_flags: list[str] | tuple[str, ...] | None = None,
        config_ini: str | None = None,
        lookups: str | None = None,
    ):
        if target not in ETHOS_U_TARGETS:
            raise ValueError(f"unknown Ethos-U target {target!r}; choose one of {', '.join(ETHOS_U_TARGETS)}")
        lookups = lookups or LOOKUP_PLACEMENTS[0]
        if lookups not in LOOKUP_PLACEMENTS:
            raise ValueError(f"unknown lookup placement {lookups!r}; choose one of {', '.join(LOOKUP_PLACEMENTS)}")
        default_config, default_mode = _DEFAULT_MEMORY_SYSTEM[self.family_of(target)]
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "system_config", system_config or default_config)
        object.__setattr__(self, "memory_mode", memory_mode or default_mode)
        object.__setattr__(self, "extra_flags", tuple(extra_flags or ()))
        object.__setattr__(self, "config_ini", config_ini)
        object.__setattr__(self, "lookups", lookups)

    @staticmethod
    def family_of(target: str) -> str:
        """``"ethos-u55-128"`` -> ``"ethos-u55"``."""
        return target.rsplit("-", 1)[0]

    @property
    def family(self) -> str:
        return self.family_of(self.target)

    @property
    def macs(self) -> int:
        return int(self.target.rsplit("-", 1)[1])

    @property
    def tosa_spec(self) -> TosaSpecification:
        # U55 and U65 share one NPU architecture; the marker says what a family leaves out.
        extensions = {"int16", "u55" if self.family in ("ethos-u55", "ethos-u65") else "u85"}
        return TosaSpecification(profile="INT", extensions=frozenset(extensions), npu_lookups=self.lookups == "npu")

    def vela_flags(self) -> list[str]:
        """Vela command-line flags, without input and output paths."""
        flags = [
            f"--accelerator-config={self.target}",
            f"--system-config={self.system_config}",
            f"--memory-mode={self.memory_mode}",
        ]
        if self.config_ini is not None:
            flags.append(f"--config={self.config_ini}")
        return flags + list(self.extra_flags)

    def to_list(self) -> list[CompileSpec]:
        specs = {
            "target": self.target,
            "system_config": self.system_config,
            "memory_mode": self.memory_mode,
            "extra_flags": " ".join(self.extra_flags),
            "tosa_spec": str(self.tosa_spec),
        }
        if self.config_ini is not None:
            specs["config_ini"] = self.config_ini
        if self.lookups != LOOKUP_PLACEMENTS[0]:
            specs["lookups"] = self.lookups
        return [CompileSpec(key, value.encode()) for key, value in specs.items()]

    @classmethod
    def from_list(cls, specs: list[CompileSpec]) -> EthosUCompileSpec:
        values = _spec_dict(specs)
        return cls(
            target=values["target"],
            system_config=values["system_config"],
            memory_mode=values["memory_mode"],
            extra_flags=values["extra_flags"].split() if values.get("extra_flags") else None,
            config_ini=values.get("config_ini"),
            lookups=values.get("lookups"),
        )


@dataclasses.dataclass(frozen=True)
class VgfCompileSpec:
    """Lower to TOSA, then convert to VGF with Arm's ML SDK model converter (delegate id ``VgfBackend``).

    A VGF runs on Vulkan devices with Arm's ML extensions (``VK_ARM_tensors``, ``VK_ARM_data_graph``).

    Args:
        tosa_spec: ``TOSA-1.0+FP`` for a float model or ``TOSA-1.0+INT`` for an int8 quantized one.
        compiler_flags: further ``model-converter`` flags, e.g. ``["--require-static-shape"]``.
    """

    tosa_spec: TosaSpecification
    compiler_flags: tuple[str, ...] = ()

    backend_id: ClassVar[str] = "VgfBackend"
    # Keys and value as ExecuTorch's VGF compile spec stores them beside the delegate.
    _OUTPUT_FORMAT: ClassVar[str] = "vgf"

    def __init__(
        self,
        tosa_spec: TosaSpecification | str = "TOSA-1.0+FP",
        compiler_flags: list[str] | tuple[str, ...] | None = None,
    ):
        if isinstance(tosa_spec, str):
            tosa_spec = TosaSpecification.from_string(tosa_spec)
        markers = tosa_spec.extensions & {"u55", "u85"}
        if markers:
            raise ValueError(f"{tosa_spec} marks an Ethos-U ({', '.join(sorted(markers))}); a VGF takes plain TOSA")
        object.__setattr__(self, "tosa_spec", tosa_spec)
        object.__setattr__(self, "compiler_flags", tuple(compiler_flags or ()))

    @property
    def target(self) -> str:
        return "vgf"

    def to_list(self) -> list[CompileSpec]:
        specs = {
            "tosa_spec": str(self.tosa_spec),
            "compile_flags": " ".join(self.compiler_flags),
            "output_format": self._OUTPUT_FORMAT,
        }
        return [CompileSpec(key, value.encode()) for key, value in specs.items()]

    @classmethod
    def from_list(cls, specs: list[CompileSpec]) -> VgfCompileSpec:
        values = _spec_dict(specs)
        if values.get("output_format") != cls._OUTPUT_FORMAT:
            raise ValueError(f"not a VGF compile spec: output_format is {values.get('output_format')!r}")
        return cls(values["tosa_spec"], values["compile_flags"].split())


ArmCompileSpec = TosaCompileSpec | EthosUCompileSpec | VgfCompileSpec


def _spec_dict(specs: list[CompileSpec]) -> dict[str, str]:
    return {spec.key: bytes(spec.value).decode() for spec in specs}

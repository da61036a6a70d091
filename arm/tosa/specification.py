"""The TOSA specification a lowering targets: version, profile(s) and extensions."""

from __future__ import annotations

import dataclasses

_PROFILES = ("INT", "FP")
_KNOWN_EXTENSIONS = frozenset({"int16", "int4", "bf16", "fp8e4m3", "fp8e5m2", "fft", "cf", "u55", "u85"})


@dataclasses.dataclass(frozen=True)
class TosaSpecification:
    """A TOSA 1.0 target, e.g. ``TOSA-1.0+INT``, ``TOSA-1.0+INT+int16+u55`` or ``TOSA-1.0+INT+FP``.

    ``u55`` and ``u85`` are not TOSA extensions: they mark what an Ethos-U family (and the Vela version
    we pin) leaves out of TOSA (the U55/U65 have no gather; Vela 5.2.0 runs no GATHER on the U85
    either) so support rules can ask for it in one place.

    TOSA 1.0 lets a device implement both profiles. ``TOSA-1.0+INT+FP`` (ExecuTorch's name for such a
    device) lowers as the INT profile, the one a quantized model needs: ``profile`` is "INT" and
    ``is_int`` holds; ``also_fp`` records the second profile. Float operators of a mixed graph are not
    lowered yet, so they stay on the CPU. Integer operators need no second look: everything TOSA 1.0
    allows in the FP profile on integers (int32 ADD/SUB/MUL, LOGICAL_LEFT_SHIFT, bool operators) is
    allowed in the INT profile too, so INT+FP delegates the integer ops INT does, bitwise ones included.

    ``cf`` (EXT-CONTROLFLOW) lets cond and while_loop lower to COND_IF and WHILE_LOOP (arm/ops/cond.py).

    ``npu_lookups`` is no TOSA feature either but a placement the user chose (EthosUCompileSpec's
    ``lookups="npu"``): a table lookup the NPU can run goes there even where its support rule's cost
    estimate finds the CPU's row copy cheaper (arm/ops/embedding.py). It is not part of the string form:
    the partitioner reads it, the lowering does not.
    """

    profile: str
    extensions: frozenset[str] = frozenset()
    version: str = "1.0"
    also_fp: bool = False
    npu_lookups: bool = False

    def __post_init__(self) -> None:
        if self.profile not in _PROFILES:
            raise ValueError(f"TOSA profile must be one of {_PROFILES}, got {self.profile!r}")
        if self.also_fp and self.profile != "INT":
            raise ValueError("also_fp adds the FP profile to an INT specification (TOSA-1.0+INT+FP)")
        unknown = set(self.extensions) - _KNOWN_EXTENSIONS
        if unknown:
            raise ValueError(f"unknown TOSA extension(s) {sorted(unknown)}; known: {sorted(_KNOWN_EXTENSIONS)}")
        if self.version != "1.0":
            raise ValueError(f"only TOSA 1.0 is supported, got {self.version!r}")

    @classmethod
    def from_string(cls, text: str) -> TosaSpecification:
        """Parses ``TOSA-1.0+<profile>[+<profile>][+ext...]``; the profiles may come in either order."""
        parts = text.strip().split("+")
        head = parts[0]
        if not head.startswith("TOSA-") or len(parts) < 2:
            raise ValueError(f"expected a TOSA specification like 'TOSA-1.0+INT', got {text!r}")
        profiles = [part for part in parts[1:] if part in _PROFILES]
        extensions = frozenset(part for part in parts[1:] if part not in _PROFILES)
        if not profiles:
            raise ValueError(f"{text!r} names no TOSA profile; add INT or FP (e.g. 'TOSA-1.0+INT')")
        if len(profiles) != len(set(profiles)):
            raise ValueError(f"{text!r} names a profile twice")
        both = set(profiles) == set(_PROFILES)
        profile = "INT" if both else profiles[0]
        return cls(profile=profile, extensions=extensions, version=head[len("TOSA-"):], also_fp=both)

    @property
    def is_int(self) -> bool:
        return self.profile == "INT"

    @property
    def is_fp(self) -> bool:
        """True for the FP profile alone: every delegated tensor is float."""
        return self.profile == "FP"

    def has(self, extension: str) -> bool:
        return extension in self.extensions

    def __str__(self) -> str:
        profiles = [self.profile, "FP"] if self.also_fp else [self.profile]
        return "+".join([f"TOSA-{self.version}", *profiles, *sorted(self.extensions)])

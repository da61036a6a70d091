"""The TOSA specification a lowering targets: version, profile and extensions."""

from __future__ import annotations

import dataclasses

_PROFILES = ("INT", "FP")
_KNOWN_EXTENSIONS = frozenset({"int16", "int4", "bf16", "fp8e4m3", "fp8e5m2", "fft", "cf", "u55", "u85"})


@dataclasses.dataclass(frozen=True)
class TosaSpecification:
    """A TOSA 1.0 target, e.g. ``TOSA-1.0+INT`` or ``TOSA-1.0+INT+int16+u55``.

    ``u55`` and ``u85`` are not TOSA extensions: they mark what an Ethos-U family (and the Vela version
    we pin) leaves out of TOSA (the U55/U65 have no gather; Vela 5.2.0 runs no GATHER on the U85
    either) so support rules can ask for it in one place.
    """

    profile: str
    extensions: frozenset[str] = frozenset()
    version: str = "1.0"

    def __post_init__(self) -> None:
        if self.profile not in _PROFILES:
            raise ValueError(f"TOSA profile must be one of {_PROFILES}, got {self.profile!r}")
        unknown = set(self.extensions) - _KNOWN_EXTENSIONS
        if unknown:
            raise ValueError(f"unknown TOSA extension(s) {sorted(unknown)}; known: {sorted(_KNOWN_EXTENSIONS)}")
        if self.version != "1.0":
            raise ValueError(f"only TOSA 1.0 is supported, got {self.version!r}")

    @classmethod
    def from_string(cls, text: str) -> TosaSpecification:
        """Parses ``TOSA-1.0+INT[+ext...]``."""
        parts = text.strip().split("+")
        head = parts[0]
        if not head.startswith("TOSA-") or len(parts) < 2:
            raise ValueError(f"expected a TOSA specification like 'TOSA-1.0+INT', got {text!r}")
        return cls(profile=parts[1], extensions=frozenset(parts[2:]), version=head[len("TOSA-"):])

    @property
    def is_int(self) -> bool:
        return self.profile == "INT"

    @property
    def is_fp(self) -> bool:
        return self.profile == "FP"

    def has(self, extension: str) -> bool:
        return extension in self.extensions

    def __str__(self) -> str:
        return "+".join([f"TOSA-{self.version}", self.profile, *sorted(self.extensions)])

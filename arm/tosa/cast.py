"""TOSA 1.0 CAST: which (input, output) type pairs each profile defines, and the emitter.

One table for every op that converts types (aten._to_copy, argmax's int64 result, ...), so that what the
support rules accept and what the lowering emits cannot drift apart. Casts that touch a float type are
the FP profile's (bfloat16 with the bf16 extension, float8 with fp8e4m3/fp8e5m2); integer and bool
casts are the INT profile's, which is why the peer's FP pipeline leaves an int8 -> int32 cast on the CPU.
"""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import BFLOAT16, FLOAT8_E4M3, FLOAT8_E5M2, TosaGraph, TosaValue

_BOOL, _I8, _I16, _I32 = (np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32))
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)
_INTEGERS = (_I8, _I16, _I32)
_FLOATS = (_F16, BFLOAT16, _F32)

# The extension each non-profile type needs.
_EXTENSION = {BFLOAT16: "bf16", FLOAT8_E4M3: "fp8e4m3", FLOAT8_E5M2: "fp8e5m2"}


def _needs(*dtypes: np.dtype) -> tuple[str, ...]:
    return tuple(_EXTENSION[dtype] for dtype in dtypes if dtype in _EXTENSION)


# (from, to) -> the TOSA extensions the pair needs besides its profile (empty: the profile's own).
INT_PROFILE_CASTS: dict[tuple[np.dtype, np.dtype], tuple[str, ...]] = {
    **{(_BOOL, integer): () for integer in _INTEGERS},
    **{(integer, _BOOL): () for integer in _INTEGERS},
    **{(a, b): () for a in _INTEGERS for b in _INTEGERS if a != b},
}
FP_PROFILE_CASTS: dict[tuple[np.dtype, np.dtype], tuple[str, ...]] = {
    **{(integer, real): _needs(real) for integer in _INTEGERS for real in _FLOATS},
    **{(real, integer): _needs(real) for integer in _INTEGERS for real in _FLOATS},
    (_F16, _F32): (),
    (_F32, _F16): (),
    (BFLOAT16, _F32): ("bf16",),
    (_F32, BFLOAT16): ("bf16",),
    # float8 converts to and from the other float types only (TOSA 1.0 EXT-FP8E4M3/FP8E5M2).
    **{(fp8, real): _needs(fp8, real) for fp8 in (FLOAT8_E4M3, FLOAT8_E5M2) for real in _FLOATS},
    **{(real, fp8): _needs(real, fp8) for fp8 in (FLOAT8_E4M3, FLOAT8_E5M2) for real in _FLOATS},
}


def cast_extensions(source: np.dtype, target: np.dtype, *, fp: bool) -> tuple[bool, tuple[str, ...]]:
    """Whether the FP (``fp``) or INT profile defines CAST from ``source`` to ``target``, and the
    extensions it needs."""
    table = FP_PROFILE_CASTS if fp else INT_PROFILE_CASTS
    key = (np.dtype(source), np.dtype(target))
    return key in table, table.get(key, ())


def cast(graph: TosaGraph, value: TosaValue, dtype: np.dtype, *, name: str) -> TosaValue:
    """CAST ``value`` to ``dtype``: float to integer rounds to nearest, ties to even, and saturates;
    integer narrowing keeps the low bits; nonzero is true."""
    output = graph.add_tensor(name, value.shape, dtype)
    attribute = ts.TosaSerializerAttribute()
    attribute.CastAttribute()
    graph.add_op(ts.Op.CAST, [value], [output], attribute)
    return output

// exp for float kernels, with the same bits on every target.
//
// Each libm rounds expf its own way (glibc, newlib and musl disagree by an ulp on some inputs), so a
// kernel calling std::exp gives different outputs on the host, on Cortex-M and on aarch64. This one uses
// only IEEE double additions and multiplications (no libm, no FMA: RUNTIME_COPTS has -ffp-contract=off),
// which every target rounds alike, and keeps the error before the final rounding to float near 2^-52, so
// the result is the correctly rounded exp(x) except within that distance of a rounding boundary.
#pragma once

namespace pte {

float portable_exp(float x);

}  // namespace pte

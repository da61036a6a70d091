// The elementwise families of the reference kernels, in the shape of ExecuTorch's portable kernels: each
// input element is loaded as the op's compute type (a static_cast from its own dtype), the op runs in
// that type, and the result is cast to out's dtype. An op file supplies only its arithmetic.
#pragma once

#include <cstddef>

#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/dtype.h"
#include "runtime/kernels/kernel.h"

namespace pte {

// max and min that propagate NaN (PyTorch's maximum/minimum and clamp; ExecuTorch's max_override).
template <typename T>
T nan_max(T a, T b) {
  if (a != a) return a;
  if (b != b) return b;
  return a < b ? b : a;
}
template <typename T>
T nan_min(T a, T b) {
  if (a != a) return a;
  if (b != b) return b;
  return b < a ? b : a;
}

// Elementwise kernels walk memory in order: right when every tensor has the default dim order, or when
// all have one shape and share a dim order (no broadcasting across a permuted layout).
Status expect_elementwise_layout(Span<const Tensor* const> inputs, const Tensor& out);

// out[i] = op(in[i]) with in loaded as Compute; op's result is stored as out's dtype.
template <typename Compute, typename Op>
Status map_unary(const Tensor& in, Tensor& out, Op op) {
  PTE_RETURN_IF_ERROR(expect_same_shape(out, in, "out", "self"));
  const Tensor* inputs[] = {&in};
  PTE_RETURN_IF_ERROR(expect_elementwise_layout(inputs, out));
  using Result_ = decltype(op(Compute{}));
  PTE_ASSIGN_OR_RETURN(const LoadFn<Compute> load, loader<Compute>(in.scalar_type, "self"));
  PTE_ASSIGN_OR_RETURN(const StoreFn<Result_> store, storer<Result_>(out.scalar_type, "out"));
  for (size_t i = 0; i < out.numel; ++i) store(op(load(in.data, i)), out.data, i);
  return Status();
}

// out = op(a, b) over PyTorch broadcasting, a and b loaded as Compute.
template <typename Compute, typename Op>
Status map_binary(const Tensor& a, const Tensor& b, Tensor& out, Op op) {
  const Tensor* inputs[] = {&a, &b};
  PTE_RETURN_IF_ERROR(check_broadcast_all(inputs, out));
  PTE_RETURN_IF_ERROR(expect_elementwise_layout(inputs, out));
  using Result_ = decltype(op(Compute{}, Compute{}));
  PTE_ASSIGN_OR_RETURN(const LoadFn<Compute> load_a, loader<Compute>(a.scalar_type, "self"));
  PTE_ASSIGN_OR_RETURN(const LoadFn<Compute> load_b, loader<Compute>(b.scalar_type, "other"));
  PTE_ASSIGN_OR_RETURN(const StoreFn<Result_> store, storer<Result_>(out.scalar_type, "out"));
  for_each_broadcast_n(inputs, out, [&](size_t i, const size_t(&index)[2]) {
    store(op(load_a(a.data, index[0]), load_b(b.data, index[1])), out.data, i);
  });
  return Status();
}

// The binary arithmetic family (sub, maximum, remainder, bitwise_and, ...): `self`, `other`, then out;
// computes in promote_types(self, other), which must be in `dtypes` and castable to out.
// op(Compute x, Compute y) is a generic lambda.
template <unsigned Dtypes, typename Op>
Status binary_op_out(const KernelArgs& args, Op op) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* other, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  const ScalarType common = promote_types(self->scalar_type, other->scalar_type);
  PTE_RETURN_IF_ERROR(expect_can_cast(common, out->scalar_type, "out"));
  return switch_dtype<Dtypes>(common, "the common dtype of self and other", [&](auto tag) {
    using Compute = typename decltype(tag)::type;
    return map_binary<Compute>(*self, *other, *out,
                               [&](Compute x, Compute y) { return static_cast<Compute>(op(x, y)); });
  });
}

// The tensor-with-scalar family (add.Scalar_out, mul.Scalar_out, remainder.Scalar_out, ...): computes in
// promote_with_scalar(self, other), which must be in `Dtypes` and castable to out, with `other` cast to that
// dtype once (ExecuTorch's scalar_to<CTYPE_COMPUTE>); op(Compute x, Compute other) is a generic lambda.
template <unsigned Dtypes, typename Op>
Status map_with_scalar(const Tensor& self, const Scalar& other, Tensor& out, Op op) {
  const ScalarType common = promote_with_scalar(self.scalar_type, other);
  PTE_RETURN_IF_ERROR(expect_can_cast(common, out.scalar_type, "out"));
  return switch_dtype<Dtypes>(common, "the common dtype of self and the scalar other", [&](auto tag) {
    using Compute = typename decltype(tag)::type;
    const Compute value = other.to<Compute>();
    return map_unary<Compute>(self, out, [&](Compute x) { return static_cast<Compute>(op(x, value)); });
  });
}

// The alpha family (add, sub): out = combine(self, alpha, other) with alpha and the operands in the common
// dtype, ExecuTorch's order of operations (alpha * other first). `.out` takes a Tensor other and computes in
// promote_types(self, other); `.Scalar_out` takes a Scalar other and computes in
// promote_with_scalar(self, other). combine(T x, T alpha, T y) is a generic lambda.
template <typename Combine>
Status alpha_tensor_out(const KernelArgs& args, Combine combine) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* other, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(const Scalar alpha, args.scalar(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  const ScalarType common = promote_types(self->scalar_type, other->scalar_type);
  PTE_RETURN_IF_ERROR(expect_can_cast(common, out->scalar_type, "out"));
  return switch_dtype<kRealDtypes>(common, "the common dtype of self and other", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T scale = alpha.to<T>();
    return map_binary<T>(*self, *other, *out, [&](T x, T y) { return static_cast<T>(combine(x, scale, y)); });
  });
}

template <typename Combine>
Status alpha_scalar_out(const KernelArgs& args, Combine combine) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Scalar other, args.scalar(1));
  PTE_ASSIGN_OR_RETURN(const Scalar alpha, args.scalar(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  return map_with_scalar<kRealDtypes>(*self, other, *out, [&](auto x, auto value) {
    using T = decltype(x);
    return static_cast<T>(combine(x, alpha.to<T>(), value));
  });
}

// The float unary family (exp, sin, sqrt, sigmoid, ...): `self` of any real or bool dtype computed in
// float32 (ExecuTorch's unary_ufunc_realhbbf16_to_floathbf16), out float32.
Status float_unary_out(const KernelArgs& args, float (*fn)(float));

// The same-dtype unary family (neg, abs, floor, ...): `self` and out of one real dtype.
// op is a generic lambda over the element type.
template <unsigned Dtypes, typename Op>
Status real_unary_out(const KernelArgs& args, Op op) {
  PTE_RETURN_IF_ERROR(args.expect_count(3));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(1));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  return switch_dtype<Dtypes>(self->scalar_type, "self", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return map_unary<T>(*self, *out, [&](T x) { return static_cast<T>(op(x)); });
  });
}

// The comparison family (eq, lt, ...), `.Tensor_out` and `.Scalar_out`: compares in the promoted dtype,
// out bool (or any dtype, as 0/1).
template <typename Compare>
Status compare_tensor_out(const KernelArgs& args, Compare compare) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* other, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  const ScalarType common = promote_types(self->scalar_type, other->scalar_type);
  return switch_dtype<kAllDtypes>(common, "the common dtype of self and other", [&](auto tag) {
    using Compute = typename decltype(tag)::type;
    return map_binary<Compute>(*self, *other, *out, [&](Compute x, Compute y) { return compare(x, y); });
  });
}

template <typename Compare>
Status compare_scalar_out(const KernelArgs& args, Compare compare) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Scalar other, args.scalar(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  const ScalarType common = promote_with_scalar(self->scalar_type, other);
  return switch_dtype<kAllDtypes>(common, "the common dtype of self and other", [&](auto tag) {
    using Compute = typename decltype(tag)::type;
    const Compute value = other.to<Compute>();
    return map_unary<Compute>(*self, *out, [&](Compute x) { return compare(x, value); });
  });
}

}  // namespace pte

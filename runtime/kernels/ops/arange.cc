// aten::arange.start_out(Scalar start, Scalar end, Scalar step, *, Tensor(a!) out) and
// aten::arange.out(Scalar end, *, Tensor(a!) out): out[i] = start + i * step computed in double and cast
// to out's dtype, ExecuTorch's arithmetic; out has ceil((end - start) / step) elements.
#include <cmath>

#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/dtype.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

Status arange(double start, double end, double step, Tensor& out) {
  if (step == 0 || (step > 0 && end < start) || (step < 0 && end > start)) {
    return Status::failure(Error::kKernelFailed, "arange(%g, %g, %g) is not a range", start, end, step);
  }
  const double count = std::ceil((end - start) / step);
  if (out.rank != 1 || static_cast<double>(out.sizes[0]) != count) {
    return Status::failure(Error::kKernelFailed, "arange(%g, %g, %g) has %g elements but out is %s", start, end, step,
                           count, ShapeText(out).c_str());
  }
  return switch_dtype<kRealDtypes>(out.scalar_type, "out", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* result = out.data_as<T>();
    for (int32_t i = 0; i < out.sizes[0]; ++i) result[i] = static_cast<T>(start + i * step);
    return Status();
  });
}

}  // namespace

Status arange_start_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Scalar start, args.scalar(0));
  PTE_ASSIGN_OR_RETURN(const Scalar end, args.scalar(1));
  PTE_ASSIGN_OR_RETURN(const Scalar step, args.scalar(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  return arange(start.to<double>(), end.to<double>(), step.to<double>(), *out);
}

Status arange_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(3));
  PTE_ASSIGN_OR_RETURN(const Scalar end, args.scalar(0));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(1));
  return arange(0.0, end.to<double>(), 1.0, *out);
}

}  // namespace ops
}  // namespace pte

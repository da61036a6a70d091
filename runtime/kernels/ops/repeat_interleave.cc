// aten::repeat_interleave.Tensor_out(Tensor repeats, *, SymInt? output_size, Tensor(a!) out): each index i of
// the 1-d repeats (int32 or int64) written repeats[i] times, in out of repeats' dtype. Programs are
// statically planned, so out's length is fixed: repeats must sum to it (and to output_size when given);
// a negative repeat fails, as in ExecuTorch.
#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/dtype.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status repeat_interleave_tensor_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* repeats, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const std::optional<int64_t> output_size, args.optional_integer(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  PTE_RETURN_IF_ERROR(expect_index_dtype(repeats->scalar_type, "repeats"));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *repeats, "out", "repeats"));
  PTE_RETURN_IF_ERROR(expect_rank(*repeats, 1, "repeats"));
  PTE_RETURN_IF_ERROR(expect_rank(*out, 1, "out"));
  PTE_ASSIGN_OR_RETURN(const LoadFn<int64_t> load, loader<int64_t>(repeats->scalar_type, "repeats"));
  PTE_ASSIGN_OR_RETURN(const StoreFn<int64_t> store, storer<int64_t>(out->scalar_type, "out"));
  int64_t total = 0;
  for (size_t i = 0; i < repeats->numel; ++i) {
    const int64_t count = load(repeats->data, i);
    if (count < 0) {
      return Status::failure(Error::kKernelFailed, "repeats[%lu] is %s; repeats cannot be negative", as_ulong(i),
                             DecimalText(count).c_str());
    }
    total += count;
  }
  if (output_size.has_value() && *output_size != total) {
    return Status::failure(Error::kKernelFailed, "output_size is %s but repeats sum to %s",
                           DecimalText(*output_size).c_str(), DecimalText(total).c_str());
  }
  if (static_cast<size_t>(total) != out->numel) {
    return Status::failure(Error::kKernelFailed,
                           "repeats sum to %s but out %s is planned for %lu: the program's static plan fixes the "
                           "output length",
                           DecimalText(total).c_str(), ShapeText(*out).c_str(), as_ulong(out->numel));
  }
  size_t at = 0;
  for (size_t i = 0; i < repeats->numel; ++i) {
    for (int64_t k = load(repeats->data, i); k > 0; --k) store(static_cast<int64_t>(i), out->data, at++);
  }
  return Status();
}

}  // namespace ops
}  // namespace pte

// aten::avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, bool ceil_mode,
// bool count_include_pad, int? divisor_override, *, Tensor(a!) out), float32: the in-bounds window sum
// (from its first element) divided by divisor_override, else by the window size with or without the
// padding. ceil_mode only shapes out, which the program already gives.
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/ops/pool2d.h"

namespace pte {
namespace ops {

Status avg_pool2d_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(9));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> kernel_size, args.int_list(1));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> stride, args.int_list(2));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> padding, args.int_list(3));
  PTE_ASSIGN_OR_RETURN(const bool count_include_pad, args.boolean(5));
  PTE_ASSIGN_OR_RETURN(const std::optional<int64_t> divisor_override, args.optional_integer(6));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(7));
  PTE_ASSIGN_OR_RETURN(const Pool2dWindow window,
                       make_pool2d_window(*self, *out, kernel_size, stride, padding, Span<const int64_t>()));
  if (divisor_override.has_value() && *divisor_override == 0) {
    return Status::failure(Error::kKernelFailed, "divisor_override is 0");
  }
  float sum = 0.0f;
  float* result = out->data_as<float>();
  for_each_pool2d_window(
      *self, *out, window, [&](float value, int64_t, bool first) { sum = first ? value : value + sum; },
      [&](size_t out_index, int64_t padded_count, int64_t count) {
        const int64_t divisor = divisor_override.has_value() ? *divisor_override
                                : count_include_pad         ? padded_count
                                                            : count;
        result[out_index] = sum / static_cast<float>(divisor);
      });
  return Status();
}

}  // namespace ops
}  // namespace pte

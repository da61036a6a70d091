// aten::max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride, int[2] padding,
// int[2] dilation, bool ceil_mode, *, Tensor(a!) out, Tensor(b!) indices), float32: the window's largest
// in-bounds element (the first NaN wins, else the first of equal maxima) and its int64 index y * W + x in
// its plane.
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/ops/pool2d.h"

namespace pte {
namespace ops {

Status max_pool2d_with_indices_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(9));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> kernel_size, args.int_list(1));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> stride, args.int_list(2));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> padding, args.int_list(3));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> dilation, args.int_list(4));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(6));
  PTE_ASSIGN_OR_RETURN(Tensor * indices, args.out_tensor(7));
  PTE_ASSIGN_OR_RETURN(const Pool2dWindow window, make_pool2d_window(*self, *out, kernel_size, stride, padding, dilation));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*indices, ScalarType::kLong, "indices"));
  PTE_RETURN_IF_ERROR(expect_same_shape(*indices, *out, "indices", "out"));
  float best = 0.0f;
  int64_t best_index = 0;
  float* result = out->data_as<float>();
  int64_t* result_indices = indices->data_as<int64_t>();
  for_each_pool2d_window(
      *self, *out, window,
      [&](float value, int64_t index, bool first) {
        if (first || (best == best && (value != value || value > best))) {
          best = value;
          best_index = index;
        }
      },
      [&](size_t out_index, int64_t, int64_t) {
        result[out_index] = best;
        result_indices[out_index] = best_index;
      });
  return Status();
}

}  // namespace ops
}  // namespace pte

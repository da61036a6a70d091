// aten::slice_copy.Tensor_out(Tensor self, int dim, SymInt? start, SymInt? end, SymInt step, *,
// Tensor(a!) out): self[start:end:step] along dim, any dtype. start and end follow Python: None is the
// whole range, negatives count from the end, and both are clamped into [0, size].
#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/strided_copy.h"

namespace pte {
namespace ops {
namespace {

int64_t clamp_index(int64_t index, int64_t size) {
  if (index < 0) index += size;
  if (index < 0) return 0;
  return index > size ? size : index;
}

}  // namespace

Status slice_copy_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(7));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const int64_t dim_arg, args.integer(1));
  PTE_ASSIGN_OR_RETURN(const std::optional<int64_t> start_arg, args.optional_integer(2));
  PTE_ASSIGN_OR_RETURN(const std::optional<int64_t> end_arg, args.optional_integer(3));
  PTE_ASSIGN_OR_RETURN(const int64_t step, args.integer(4));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(5));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  PTE_ASSIGN_OR_RETURN(const uint32_t dim, normalize_dim(dim_arg, self->rank, "dim"));
  if (step <= 0) return Status::failure(Error::kKernelFailed, "step is %s; slice takes a positive step", DecimalText(step).c_str());
  const int64_t size = self->sizes[dim];
  const int64_t start = start_arg.has_value() ? clamp_index(*start_arg, size) : 0;
  int64_t end = end_arg.has_value() ? clamp_index(*end_arg, size) : size;
  if (end < start) end = start;
  int32_t expected[kMaxRank];
  for (uint32_t d = 0; d < self->rank; ++d) expected[d] = self->sizes[d];
  expected[dim] = static_cast<int32_t>((end - start + step - 1) / step);
  PTE_RETURN_IF_ERROR(expect_shape(*out, Span<const int32_t>(expected, self->rank), "out"));
  Strides source = strides_of(*self);
  const size_t element = element_size(self->scalar_type);
  const uint8_t* first = static_cast<const uint8_t*>(self->data) + start * source.values[dim] * element;
  source.values[dim] *= step;
  strided_copy(first, out->data, element, Span<const int32_t>(out->sizes, out->rank), source.span(self->rank),
               strides_of(*out).span(out->rank));
  return Status();
}

}  // namespace ops
}  // namespace pte

// aten::cat.out(Tensor[] tensors, int dim, *, Tensor(a!) out): the tensors one after another along dim;
// any dtype, all the same. Legacy empty 1-D inputs (shape [0]) are skipped, as PyTorch skips them.
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/strided_copy.h"

namespace pte {
namespace ops {
namespace {

bool is_legacy_empty(const Tensor& tensor) { return tensor.rank == 1 && tensor.sizes[0] == 0; }

}  // namespace

Status cat_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Span<Tensor* const> tensors, args.tensor_list(0));
  PTE_ASSIGN_OR_RETURN(const int64_t dim_arg, args.integer(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  PTE_ASSIGN_OR_RETURN(const uint32_t dim, normalize_dim(dim_arg, out->rank, "dim"));
  int64_t offset = 0;
  const Strides out_strides = strides_of(*out);
  for (const Tensor* tensor : tensors) {
    if (is_legacy_empty(*tensor)) continue;
    PTE_RETURN_IF_ERROR(expect_same_scalar_type(*tensor, *out, "a cat input", "out"));
    PTE_RETURN_IF_ERROR(expect_default_dim_order(*tensor, "a cat input"));
    bool fits = tensor->rank == out->rank && offset + tensor->sizes[dim] <= out->sizes[dim];
    for (uint32_t d = 0; fits && d < out->rank; ++d) fits = d == dim || tensor->sizes[d] == out->sizes[d];
    if (!fits) {
      return Status::failure(Error::kKernelFailed, "a cat input of shape %s does not fit out %s along dim %lu",
                             ShapeText(*tensor).c_str(), ShapeText(*out).c_str(), static_cast<unsigned long>(dim));
    }
    const size_t element = element_size(out->scalar_type);
    strided_copy(tensor->data, out->data_as<uint8_t>() + offset * out->strides[dim] * element, element,
                 Span<const int32_t>(tensor->sizes, tensor->rank), strides_of(*tensor).span(tensor->rank),
                 out_strides.span(out->rank));
    offset += tensor->sizes[dim];
  }
  if (offset != out->sizes[dim]) {
    return Status::failure(Error::kKernelFailed, "the cat inputs fill %ld of out %s's %ld entries along dim %lu",
                           static_cast<long>(offset), ShapeText(*out).c_str(), static_cast<long>(out->sizes[dim]),
                           static_cast<unsigned long>(dim));
  }
  return Status();
}

}  // namespace ops
}  // namespace pte

// aten::constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value, *, Tensor(a!) out): pad holds
// (before, after) pairs from the last dim backwards; new entries get value (cast to self's dtype),
// negative pads crop. Any dtype.
#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/dtype.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status constant_pad_nd_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> pad, args.int_list(1));
  PTE_ASSIGN_OR_RETURN(const Scalar value, args.scalar(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  if (pad.size() % 2 != 0 || pad.size() / 2 > self->rank) {
    return Status::failure(Error::kKernelFailed, "pad %s is not (before, after) pairs for at most %lu dims",
                           ShapeText(pad).c_str(), as_ulong(self->rank));
  }
  int64_t before[kMaxRank] = {};
  int32_t expected[kMaxRank];
  for (uint32_t d = 0; d < self->rank; ++d) {
    const uint32_t from_end = self->rank - 1 - d;
    const int64_t low = from_end < pad.size() / 2 ? pad[2 * from_end] : 0;
    const int64_t high = from_end < pad.size() / 2 ? pad[2 * from_end + 1] : 0;
    before[d] = low;
    expected[d] = static_cast<int32_t>(self->sizes[d] + low + high);
  }
  PTE_RETURN_IF_ERROR(expect_shape(*out, Span<const int32_t>(expected, self->rank), "out"));
  return switch_dtype<kAllDtypes>(self->scalar_type, "self", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T fill = value.to<T>();
    const T* in = self->data_as<const T>();
    T* result = out->data_as<T>();
    int64_t coordinate[kMaxRank] = {};
    for (size_t i = 0; i < out->numel; ++i) {
      // The source element of this out coordinate, if it has one.
      bool inside = true;
      int64_t source = 0;
      for (uint32_t d = 0; d < out->rank; ++d) {
        const int64_t c = coordinate[d] - before[d];
        inside = inside && c >= 0 && c < self->sizes[d];
        source += c * self->strides[d];
      }
      result[i] = inside ? in[source] : fill;
      for (uint32_t d = out->rank; d-- > 0;) {
        if (++coordinate[d] < out->sizes[d]) break;
        coordinate[d] = 0;
      }
    }
    return Status();
  });
}

}  // namespace ops
}  // namespace pte

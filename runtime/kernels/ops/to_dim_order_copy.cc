// dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking, int[]? dim_order, Tensor(a!)
// out): self converted to out's dtype and laid out in out's dim order (ExecuTorch's form of .to(dtype)
// and .to(memory_format)). Each element converts by a C++ static_cast, as ExecuTorch's kernel does
// (float to integer truncates toward zero; anything to bool is "non-zero").
#include "runtime/kernels/dtype.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/strided_copy.h"

namespace pte {
namespace ops {
namespace {

template <typename From, typename To>
void convert(const Tensor& self, Tensor& out) {
  const Strides from_strides = strides_of(self);
  const Strides to_strides = strides_of(out);
  const From* in = self.data_as<const From>();
  To* result = out.data_as<To>();
  int64_t coordinate[kMaxRank] = {};
  int64_t from_index = 0;
  int64_t to_index = 0;
  for (size_t i = 0; i < self.numel; ++i) {
    result[to_index] = static_cast<To>(in[from_index]);
    for (uint32_t dim = self.rank; dim-- > 0;) {
      ++coordinate[dim];
      from_index += from_strides.values[dim];
      to_index += to_strides.values[dim];
      if (coordinate[dim] < self.sizes[dim]) break;
      from_index -= from_strides.values[dim] * coordinate[dim];
      to_index -= to_strides.values[dim] * coordinate[dim];
      coordinate[dim] = 0;
    }
  }
}

}  // namespace

Status to_dim_order_copy_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const std::optional<Span<const int64_t>> dim_order, args.optional_int_list(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  PTE_RETURN_IF_ERROR(expect_same_shape(*out, *self, "out", "self"));
  if (dim_order.has_value()) {
    bool matches = dim_order->size() == out->rank;
    for (uint32_t i = 0; matches && i < out->rank; ++i) matches = (*dim_order)[i] == out->dim_order[i];
    if (!matches) {
      return Status::failure(Error::kKernelFailed, "dim_order %s is not out's dim order",
                             ShapeText(*dim_order).c_str());
    }
  }
  if (self->scalar_type == out->scalar_type && element_size(self->scalar_type) != 0) {
    copy_layout(*self, *out);
    return Status();
  }
  return switch_dtype<kAllDtypes>(self->scalar_type, "self", [&](auto from) {
    return switch_dtype<kAllDtypes>(out->scalar_type, "out", [&](auto to) {
      convert<typename decltype(from)::type, typename decltype(to)::type>(*self, *out);
      return Status();
    });
  });
}

}  // namespace ops
}  // namespace pte

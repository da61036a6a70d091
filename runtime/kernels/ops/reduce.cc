#include "runtime/kernels/ops/reduce.h"

namespace pte {
namespace ops {

bool starts_from_zero(const Tensor& self, std::optional<Span<const int64_t>> dims, const Tensor& out) {
  if (!dims.has_value() || dims->size() != 1 || self.scalar_type != out.scalar_type || self.numel == 0) return false;
  const int64_t dim = (*dims)[0] < 0 ? (*dims)[0] + self.rank : (*dims)[0];
  return self.rank > 0 && dim == static_cast<int64_t>(self.rank) - 1;
}

}  // namespace ops
}  // namespace pte

#include "runtime/kernels/broadcast.h"

namespace pte {

Status check_broadcast(const Tensor& a, const Tensor& b, const Tensor& out) {
  const uint32_t rank = a.rank > b.rank ? a.rank : b.rank;
  bool ok = out.rank == rank;
  for (uint32_t from_end = 0; ok && from_end < rank; ++from_end) {
    const int32_t a_size = from_end < a.rank ? a.sizes[a.rank - 1 - from_end] : 1;
    const int32_t b_size = from_end < b.rank ? b.sizes[b.rank - 1 - from_end] : 1;
    const int32_t out_size = out.sizes[rank - 1 - from_end];
    ok = (a_size == b_size || a_size == 1 || b_size == 1) && out_size == (a_size == 1 ? b_size : a_size);
  }
  if (ok) return Status();
  return Status::failure(Error::kKernelFailed, "shapes %s and %s do not broadcast to the output's %s",
                         ShapeText(a).c_str(), ShapeText(b).c_str(), ShapeText(out).c_str());
}

}  // namespace pte

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

Status check_broadcast_all(Span<const Tensor* const> inputs, const Tensor& out) {
  uint32_t rank = 0;
  for (const Tensor* in : inputs) rank = in->rank > rank ? in->rank : rank;
  bool ok = out.rank == rank;
  for (uint32_t from_end = 0; ok && from_end < rank; ++from_end) {
    int32_t size = 1;
    for (const Tensor* in : inputs) {
      const int32_t in_size = from_end < in->rank ? in->sizes[in->rank - 1 - from_end] : 1;
      if (in_size == 1) continue;
      ok = ok && (size == 1 || size == in_size);
      size = in_size;
    }
    ok = ok && out.sizes[rank - 1 - from_end] == size;
  }
  if (ok) return Status();
  for (const Tensor* in : inputs) {
    bool fits = in->rank <= out.rank;
    for (uint32_t from_end = 0; fits && from_end < in->rank; ++from_end) {
      const int32_t in_size = in->sizes[in->rank - 1 - from_end];
      fits = in_size == 1 || in_size == out.sizes[out.rank - 1 - from_end];
    }
    if (!fits) {
      return Status::failure(Error::kKernelFailed, "an input of shape %s does not broadcast to the output's %s",
                             ShapeText(*in).c_str(), ShapeText(out).c_str());
    }
  }
  return Status::failure(Error::kKernelFailed, "the output's shape %s is not the inputs' broadcast shape",
                         ShapeText(out).c_str());
}

}  // namespace pte

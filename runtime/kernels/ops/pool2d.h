// The 2-D pooling window walk shared by avg_pool2d and max_pool2d_with_indices, in ExecuTorch's order:
// per output position, the window's in-bounds input elements row by row, the first one starting the
// fold.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/tensor.h"

namespace pte {
namespace ops {

struct Pool2dWindow {
  int64_t kernel[2];
  int64_t stride[2];
  int64_t padding[2];
  int64_t dilation[2];
};

// Reads kernel_size, stride (empty: the kernel size), padding and dilation (either may hold one value
// for both dims) and checks that self and out are float32 [N,] C, H, W with matching leading dims.
Result<Pool2dWindow> make_pool2d_window(const Tensor& self, const Tensor& out, Span<const int64_t> kernel_size,
                                        Span<const int64_t> stride, Span<const int64_t> padding,
                                        Span<const int64_t> dilation);

// For each plane (leading dims) and output position: fold(in_value, in_index_in_plane, first) over the
// in-bounds window elements, then finish(out_index, window_count_with_padding, in_bounds_count). A
// window wholly in the padding is skipped, its output left as it was (ExecuTorch does the same).
template <typename Fold, typename Finish>
void for_each_pool2d_window(const Tensor& self, const Tensor& out, const Pool2dWindow& window, Fold fold,
                            Finish finish) {
  const int64_t in_h = self.sizes[self.rank - 2];
  const int64_t in_w = self.sizes[self.rank - 1];
  const int64_t out_h = out.sizes[out.rank - 2];
  const int64_t out_w = out.sizes[out.rank - 1];
  const size_t planes = self.numel / static_cast<size_t>(in_h * in_w == 0 ? 1 : in_h * in_w);
  const float* in = self.data_as<const float>();
  for (size_t plane = 0; plane < planes; ++plane) {
    const float* in_plane = in + plane * in_h * in_w;
    for (int64_t oy = 0; oy < out_h; ++oy) {
      for (int64_t ox = 0; ox < out_w; ++ox) {
        int64_t y0 = oy * window.stride[0] - window.padding[0];
        int64_t x0 = ox * window.stride[1] - window.padding[1];
        int64_t y1 = y0 + window.kernel[0] < in_h + window.padding[0] ? y0 + window.kernel[0] : in_h + window.padding[0];
        int64_t x1 = x0 + window.kernel[1] < in_w + window.padding[1] ? x0 + window.kernel[1] : in_w + window.padding[1];
        const int64_t padded_count = (y1 - y0) * (x1 - x0);
        y0 = y0 < 0 ? 0 : y0;
        x0 = x0 < 0 ? 0 : x0;
        y1 = y1 < in_h ? y1 : in_h;
        x1 = x1 < in_w ? x1 : in_w;
        if (y0 >= y1 || x0 >= x1) continue;
        bool first = true;
        for (int64_t ky = 0; ky < window.kernel[0]; ++ky) {
          const int64_t y = oy * window.stride[0] + ky * window.dilation[0] - window.padding[0];
          for (int64_t kx = 0; kx < window.kernel[1]; ++kx) {
            const int64_t x = ox * window.stride[1] + kx * window.dilation[1] - window.padding[1];
            if (y < 0 || y >= in_h || x < 0 || x >= in_w) continue;
            fold(in_plane[y * in_w + x], y * in_w + x, first);
            first = false;
          }
        }
        finish(plane * out_h * out_w + oy * out_w + ox, padded_count, (y1 - y0) * (x1 - x0));
      }
    }
  }
}

}  // namespace ops
}  // namespace pte

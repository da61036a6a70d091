#include "runtime/kernels/quantization.h"

#include <limits>

#include "runtime/core/decimal_text.h"

namespace pte {
namespace {

template <typename Q>
bool range_fits(int64_t quant_min, int64_t quant_max) {
  return quant_min >= std::numeric_limits<Q>::min() && quant_max <= std::numeric_limits<Q>::max() &&
         quant_min <= quant_max;
}

}  // namespace

Status check_quant_range(ScalarType type, int64_t quant_min, int64_t quant_max) {
  bool fits = false;
  PTE_RETURN_IF_ERROR(dispatch_quantized_type(type, [&](auto q) {
    fits = range_fits<decltype(q)>(quant_min, quant_max);
  }));
  if (fits) return Status();
  return Status::failure(Error::kKernelFailed, "quant range [%s, %s] does not fit %s", DecimalText(quant_min).c_str(),
                         DecimalText(quant_max).c_str(), scalar_type_name(type));
}

Result<ChannelParameters> ChannelParameters::read(const Tensor& scales, const Tensor* zero_points, size_t channels) {
  if (scales.numel != channels ||
      (scales.scalar_type != ScalarType::kFloat && scales.scalar_type != ScalarType::kDouble)) {
    return Status::failure(Error::kKernelFailed, "scales must be float32/float64 with %lu elements, got %s %s",
                           as_ulong(channels), scalar_type_name(scales.scalar_type), ShapeText(scales).c_str());
  }
  if (zero_points != nullptr &&
      (zero_points->numel != channels ||
       (zero_points->scalar_type != ScalarType::kInt && zero_points->scalar_type != ScalarType::kLong))) {
    return Status::failure(Error::kKernelFailed, "zero_points must be int32/int64 with %lu elements, got %s %s",
                           as_ulong(channels), scalar_type_name(zero_points->scalar_type),
                           ShapeText(*zero_points).c_str());
  }
  ChannelParameters parameters;
  parameters.scales_ = &scales;
  parameters.zero_points_ = zero_points;
  return parameters;
}

float ChannelParameters::scale(size_t channel) const {
  return scales_->scalar_type == ScalarType::kDouble ? static_cast<float>(scales_->data_as<const double>()[channel])
                                                     : scales_->data_as<const float>()[channel];
}

int64_t ChannelParameters::zero_point(size_t channel) const {
  if (zero_points_ == nullptr) return 0;
  return zero_points_->scalar_type == ScalarType::kLong ? zero_points_->data_as<const int64_t>()[channel]
                                                        : zero_points_->data_as<const int32_t>()[channel];
}

ChannelLayout channel_layout(const Tensor& tensor, uint32_t axis) {
  size_t block = 1;
  for (uint32_t dim = axis + 1; dim < tensor.rank; ++dim) block *= static_cast<size_t>(tensor.sizes[dim]);
  return ChannelLayout{block, static_cast<size_t>(tensor.sizes[axis])};
}

}  // namespace pte

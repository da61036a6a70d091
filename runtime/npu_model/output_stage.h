// The NPU's output stage, shared by every operation: a scaled result gets the OFM zero point, goes
// through the activation (a lookup table, if one is selected), is clamped to NPU_SET_ACTIVATION_MIN/MAX
// and saturated to the OFM's type (or the clip range the activation forces).
#pragma once

#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operation_context.h"
#include "runtime/npu_model/rescale.h"

namespace pte {
namespace npu_model {

class OutputStage {
 public:
  // The U55's (NPU_SET_ACTIVATION with 8 LUT slots in SHRAM): kNotSupported for the built-in
  // tanh/sigmoid functions, kDelegateFailed for an unknown function.
  static Result<OutputStage> create(const OperationContext& context, const FeatureMap& ofm);
  // The U85's (a LUT kind and slot in the LUT RAM, an optional 16-bit clamp). `ofm` gives the output's
  // type and zero point.
  static Result<OutputStage> create_u85(const OperationContext& context, const Precision& ofm, int32_t zero_point);

  // The value to store for a result that has been scaled but not yet offset by the zero point.
  int64_t finish(int64_t scaled) const {
    const int64_t value = scaled + zero_point_;
    if (lut_ == nullptr) return saturate(value, low_, high_);
    if (clamp_indexes_) return saturate(look_up(saturate(value, low_, high_)), ofm_low_, ofm_high_);
    return saturate(look_up(value), low_, high_);
  }

 private:
  int64_t look_up(int64_t value) const;

  int32_t zero_point_ = 0;
  Activation activation_ = {};
  int64_t low_ = 0;
  int64_t high_ = 0;
  // 8-bit lookup table (256 entries), 16-bit interpolating one (512 base/slope pairs), or none.
  const uint8_t* lut_ = nullptr;
  size_t lut_bytes_ = 0;
  bool lut_signed_ = true;
  // A 16-bit table with 32-bit results (U85 LUT_S16_S32): the interpolation is not rounded to 16 bits.
  bool lut_wide_ = false;
  // The U85 clamps a lookup's index, not its result (Vela 5.2.0 sets the clamp from the table's input type: an
  // int16 index into a table of int32 results gets [-32768, 32767]); the result saturates to the OFM's type.
  bool clamp_indexes_ = false;
  int64_t ofm_low_ = 0;
  int64_t ofm_high_ = 0;
};

}  // namespace npu_model
}  // namespace pte

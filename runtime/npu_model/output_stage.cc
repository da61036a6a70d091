#include "runtime/npu_model/output_stage.h"

#include "runtime/npu_model/rescale.h"
#include "runtime/npu_model/u85_registers.h"

namespace pte {
namespace npu_model {
namespace {

constexpr size_t kLut8Bytes = 256;
constexpr size_t kLut16Bytes = 2048;

struct Range {
  int64_t low;
  int64_t high;
};

Range clip_range(ClipRange clip, const Precision& ofm) {
  switch (clip) {
    case ClipRange::kForceUint8:
      return {0, 255};
    case ClipRange::kForceInt8:
      return {-128, 127};
    case ClipRange::kForceInt16:
      return {-32768, 32767};
    case ClipRange::kOfmPrecision:
      break;
  }
  return {ofm.min(), ofm.max()};
}

int16_t read_i16(const uint8_t* p) { return static_cast<int16_t>(p[0] | p[1] << 8); }

}  // namespace

Result<OutputStage> OutputStage::create(const OperationContext& context, const FeatureMap& ofm) {
  OutputStage stage;
  const Precision& precision = ofm.precision();
  stage.zero_point_ = ofm.zero_point();
  stage.activation_ = activation(context.registers, precision);
  const Range range = clip_range(stage.activation_.clip_range, precision);
  stage.low_ = range.low;
  stage.high_ = range.high;
  // The 16-bit clamp registers bound results only up to 16 bits; wider results keep their range.
  if (precision.bits <= 16) {
    stage.low_ = stage.activation_.min > stage.low_ ? stage.activation_.min : stage.low_;
    stage.high_ = stage.activation_.max < stage.high_ ? stage.activation_.max : stage.high_;
  }
  const uint32_t function = stage.activation_.function;
  if (function == kActivationTanh || function == kActivationSigmoid) {
    return Status::failure(Error::kNotSupported, "the built-in %s activation is not modelled (Vela uses lookup tables)",
                           function == kActivationTanh ? "tanh" : "sigmoid");
  }
  if (function >= kActivationTableFirst && function <= kActivationTableLast) {
    stage.lut_bytes_ = precision.bits == 16 ? kLut16Bytes : kLut8Bytes;
    stage.lut_signed_ = precision.is_signed || precision.bits > 16;
    const size_t offset = lut_offset(context.architecture, stage.lut_bytes_, function - kActivationTableFirst);
    PTE_ASSIGN_OR_RETURN(uint8_t * table, context.memory.shram_bytes(offset, stage.lut_bytes_, "the lookup table"));
    stage.lut_ = table;
  } else if (function != kActivationClampOnly) {
    return Status::failure(Error::kDelegateFailed, "unknown activation function %lu",
                           static_cast<unsigned long>(function));
  }
  return stage;
}

Result<OutputStage> OutputStage::create_u85(const OperationContext& context, const Precision& ofm,
                                            int32_t zero_point) {
  OutputStage stage;
  const u85::ActivationRegister activation = u85::activation(context.registers, ofm);
  stage.zero_point_ = zero_point;
  stage.low_ = ofm.min();
  stage.high_ = ofm.max();
  if (activation.clamp) {
    stage.low_ = activation.min > stage.low_ ? activation.min : stage.low_;
    stage.high_ = activation.max < stage.high_ ? activation.max : stage.high_;
  }
  switch (activation.function) {
    case u85::kLutNone:
      return stage;
    case u85::kLutS8ToS8:
    case u85::kLutU8ToU8:
      stage.lut_bytes_ = kLut8Bytes;
      stage.lut_signed_ = activation.function == u85::kLutS8ToS8;
      break;
    case u85::kLutS16ToS16:
    case u85::kLutTanh:
    case u85::kLutSigmoid:
      stage.lut_bytes_ = kLut16Bytes;
      break;
    case u85::kLutS16ToS32:
      // The same 512 base/slope pairs, read without narrowing: TOSA's int16 TABLE itself, which Vela
      // 5.2.0 maps here when the TABLE's int32 result is not rescaled back to int16.
      stage.lut_bytes_ = kLut16Bytes;
      stage.lut_wide_ = true;
      break;
    default:
      return Status::failure(Error::kNotSupported, "lookup table kind %lu (8-bit to 16/32-bit) is not modelled",
                             static_cast<unsigned long>(activation.function));
  }
  stage.clamp_indexes_ = true;
  stage.ofm_low_ = ofm.min();
  stage.ofm_high_ = ofm.max();
  // Tables sit at multiples of their own size in the LUT RAM.
  PTE_ASSIGN_OR_RETURN(uint8_t * table, context.memory.shram_bytes(activation.table * stage.lut_bytes_,
                                                                   stage.lut_bytes_, "the lookup table"));
  stage.lut_ = table;
  return stage;
}

int64_t OutputStage::look_up(int64_t value) const {
  if (lut_bytes_ == kLut8Bytes) {
    // The table is indexed by the 8-bit value, from its most negative to its most positive.
    const int64_t index = lut_signed_ ? saturate(value, -128, 127) + 128 : saturate(value, 0, 255);
    return lut_signed_ ? static_cast<int64_t>(static_cast<int8_t>(lut_[index])) : lut_[index];
  }
  // 512 intervals of 128 input steps: base + slope * fraction / 128.
  const int64_t offset = saturate(value, -32768, 32767) + 32768;
  const uint8_t* entry = lut_ + (offset >> 7) * 4;
  const int64_t fraction = offset & 0x7f;
  if (lut_wide_) {
    // int32 results keep the interpolation's 7 fraction bits: base * 128 + slope * fraction.
    return read_i16(entry) * 128 + read_i16(entry + 2) * fraction;
  }
  return read_i16(entry) + ((read_i16(entry + 2) * fraction + 64) >> 7);
}

}  // namespace npu_model
}  // namespace pte

#include "runtime/npu_model/operations/u85_output.h"

namespace pte {
namespace npu_model {
namespace {

using u85::Reverse;
using u85::Transpose;

// The stored (y, x, c) of result element (y, x, c) after `transpose`: the layout names the order in
// which the result's axes appear in the OFM.
void permute(Transpose transpose, int y, int x, int c, int* out) {
  switch (transpose) {
    case Transpose::kWhc:
      out[0] = x, out[1] = y, out[2] = c;
      return;
    case Transpose::kHcw:
      out[0] = y, out[1] = c, out[2] = x;
      return;
    case Transpose::kWch:
      out[0] = x, out[1] = c, out[2] = y;
      return;
    case Transpose::kChw:
      out[0] = c, out[1] = y, out[2] = x;
      return;
    case Transpose::kCwh:
      out[0] = c, out[1] = x, out[2] = y;
      return;
    case Transpose::kHwc:
      break;
  }
  out[0] = y, out[1] = x, out[2] = c;
}

bool known_transpose(Transpose transpose) {
  switch (transpose) {
    case Transpose::kHwc:
    case Transpose::kWhc:
    case Transpose::kHcw:
    case Transpose::kWch:
    case Transpose::kChw:
    case Transpose::kCwh:
      return true;
  }
  return false;
}

}  // namespace

Status U85Output::create(const OperationContext& context, U85Output* result) {
  const RegisterFile& registers = context.registers;
  U85Output& output = *result;
  output.layout_ = u85::ofm_layout(registers);
  if (output.layout_.storage == u85::Storage::kNone) {
    return Status::failure(Error::kNotSupported, "OFMs that are not stored (accumulators kept for the next "
                                                 "operation) are not modelled");
  }
  if (!known_transpose(output.layout_.transpose)) {
    return Status::failure(Error::kDelegateFailed, "unknown OFM transpose %d", static_cast<int>(output.layout_.transpose));
  }
  output.scale_ = u85::ofm_scale_register(registers);
  output.extent_ = Extent{registers.get(u85::Cmd0::NPU_SET_OFM_HEIGHT_M1) + 1,
                          registers.get(u85::Cmd0::NPU_SET_OFM_WIDTH_M1) + 1,
                          registers.get(u85::Cmd0::NPU_SET_OFM_DEPTH_M1) + 1};
  int stored[3];
  permute(output.layout_.transpose, output.extent_.height, output.extent_.width, output.extent_.depth, stored);
  output.ofm_ = FeatureMap::from_registers(registers, FeatureMapSlot::kOfm, Extent{stored[0], stored[1], stored[2]});
  PTE_ASSIGN_OR_RETURN(output.stage_,
                       OutputStage::create_u85(context, output.layout_.precision, output.ofm_.zero_point()));
  return Status();
}

Status U85Output::bind(const OperationContext& context) {
  if (layout_.storage != u85::Storage::kChained) return ofm_.bind(context.memory);
  PTE_ASSIGN_OR_RETURN(chained_, context.chains.write(ofm_.region(), extent_.height, extent_.width, extent_.depth));
  return Status();
}

void U85Output::store_finished(int y, int x, int c, int64_t value) const {
  if (chained_ != nullptr) {
    chained_[(static_cast<size_t>(y) * extent_.width + x) * extent_.depth + c] = value;
    return;
  }
  switch (layout_.reverse) {
    case Reverse::kHeight:
      y = extent_.height - 1 - y;
      break;
    case Reverse::kWidth:
      x = extent_.width - 1 - x;
      break;
    case Reverse::kDepth:
      c = extent_.depth - 1 - c;
      break;
    case Reverse::kNone:
      break;
  }
  int stored[3];
  permute(layout_.transpose, y, x, c, stored);
  ofm_.write(stored[0], stored[1], stored[2], value);
}

}  // namespace npu_model
}  // namespace pte

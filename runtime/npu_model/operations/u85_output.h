// How a U85 operation's results reach its OFM: scaled (OFM_SCALE's multiplier, or a channel's, with
// OFM_SCALE's round mode and double-rounding position), through the output stage, and stored at the
// coordinates the OFM's transpose or reverse puts them (the OFM size registers describe the result
// before that permutation; the tiles and strides the tensor after it).
#pragma once

#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operation_context.h"
#include "runtime/npu_model/output_stage.h"
#include "runtime/npu_model/rescale.h"
#include "runtime/npu_model/u85_registers.h"

namespace pte {
namespace npu_model {

class U85Output {
 public:
  // Sets up `output` from the registers. kNotSupported for an OFM that is not stored at all (it only
  // leaves its accumulators to the next operation).
  static Status create(const OperationContext& context, U85Output* output);
  // Binds the OFM to memory, or (chained storage) to a chaining buffer: after the operation's inputs,
  // which may read the buffer the OFM replaces.
  Status bind(const OperationContext& context);

  // The result's extent (the OFM registers', before any transpose).
  const Extent& extent() const { return extent_; }
  const u85::ScaleRegister& scale() const { return scale_; }
  bool global_scale() const { return layout_.global_scale; }

  // Scales `value` with `multiplier` (OFM_SCALE's for a global scale), finishes and stores it.
  void store(int y, int x, int c, int64_t value, Scale multiplier) const {
    store_finished(y, x, c, stage_.finish(apply_scale(value, multiplier, scale_.round_mode, scale_.double_round)));
  }
  void store(int y, int x, int c, int64_t value) const { store(y, x, c, value, scale_.scale); }

 private:
  void store_finished(int y, int x, int c, int64_t value) const;

  Extent extent_ = {};
  u85::OfmLayout layout_ = {};
  u85::ScaleRegister scale_ = {};
  FeatureMap ofm_;
  OutputStage stage_;
  // Chained storage: the buffer's dense [y][x][c] values.
  int64_t* chained_ = nullptr;
};

}  // namespace npu_model
}  // namespace pte

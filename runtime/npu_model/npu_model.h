// NpuModel: a functional model of an Ethos-U55 or U85 that executes Vela's command streams on the host.
//
// It reads the driver payload (Vela's `cmd_data`), checks the stream was compiled for this NPU, then
// runs the register command stream in order: NPU_SET_* commands write registers, NPU_OP_* commands
// execute at once (no concurrency, so waits and block dependencies need no modelling), NPU_OP_STOP
// ends. Results are bit-exact with the NPU's integer pipeline as far as Vela's register programming
// pins it down (see README.md). Every failure names the command and its byte offset.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/span.h"
#include "runtime/core/status.h"
#include "runtime/delegate/ethosu/npu_driver.h"
#include "runtime/npu_model/architecture.h"
#include "runtime/npu_model/chain_buffers.h"
#include "runtime/npu_model/register_file.h"
#include "runtime/npu_model/trace.h"

namespace pte {
namespace npu_model {

class NpuModel {
 public:
  // Largest SHRAM of any modelled configuration.
  static constexpr size_t kMaxShramBytes = 48 * 1024;

  // `work_memory` is reused by every operation for decoded weights and its IFM (an operation that needs
  // more fails with kArenaTooSmall); on the U85 a quarter of it holds chained results.
  NpuModel(const NpuArchitecture& architecture, Span<uint8_t> work_memory);

  // Writes a line per command to `sink` while running (nullptr write function: no trace).
  void set_trace(TraceSink sink) { trace_ = sink; }

  // Runs the driver payload `payload` with base pointer i set to regions[i].
  Status run(Span<const uint8_t> payload, Span<const ethosu::NpuRegion> regions);

 private:
  Status run_commands(Span<const uint8_t> commands, size_t offset, Span<const ethosu::NpuRegion> regions);
  void trace(const Command& command);

  const NpuArchitecture& architecture_;
  Span<uint8_t> work_memory_;
  ChainBuffers chains_;
  RegisterFile registers_;
  uint8_t shram_[kMaxShramBytes] = {};
  TraceSink trace_ = {nullptr, nullptr};
};

}  // namespace npu_model
}  // namespace pte

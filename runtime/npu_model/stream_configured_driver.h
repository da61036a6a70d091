// StreamConfiguredDriver: the NpuDriver a host runner uses when no NPU is attached. Each command stream
// runs on a functional model of the NPU its own CONFIG word names (Vela writes the product and MACs per
// cycle it compiled for into the driver payload), so one runner executes Ethos-U55 and Ethos-U85 programs
// alike, bit for bit as the device computes them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/delegate/ethosu/npu_driver.h"
#include "runtime/npu_model/npu_model.h"

namespace pte {
namespace npu_model {

class StreamConfiguredDriver final : public ethosu::NpuDriver {
 public:
  // `work_memory` backs the model's operations (decoded weights, IFMs, U85 chaining buffers); it is
  // reused by every run. No heap: the model itself lives inside this object.
  explicit StreamConfiguredDriver(Span<uint8_t> work_memory) : work_memory_(work_memory) {}
  ~StreamConfiguredDriver();
  StreamConfiguredDriver(const StreamConfiguredDriver&) = delete;
  StreamConfiguredDriver& operator=(const StreamConfiguredDriver&) = delete;

  Status run(Span<const uint8_t> command_stream, Span<const ethosu::NpuRegion> regions) override;

  // Writes a line per command of every later run to `sink`.
  void set_trace(TraceSink sink) { trace_ = sink; }
  // The configuration of the last stream run (nullptr before the first).
  const NpuArchitecture* last_architecture() const { return architecture_; }

 private:
  NpuModel& model_for(const NpuArchitecture& architecture);

  Span<uint8_t> work_memory_;
  TraceSink trace_ = {nullptr, nullptr};
  const NpuArchitecture* architecture_ = nullptr;
  NpuModel* model_ = nullptr;
  alignas(NpuModel) uint8_t model_storage_[sizeof(NpuModel)];
};

}  // namespace npu_model
}  // namespace pte

// NpuModelDriver: the NpuDriver that runs command streams on the functional NPU model, so that
// EthosUBackend (and the .pte runner) execute Ethos-U delegates on the host.
#pragma once

#include "runtime/delegate/ethosu/npu_driver.h"
#include "runtime/npu_model/npu_model.h"

namespace pte {
namespace npu_model {

class NpuModelDriver final : public ethosu::NpuDriver {
 public:
  NpuModelDriver(const NpuArchitecture& architecture, Span<uint8_t> work_memory) : model_(architecture, work_memory) {}

  Status run(Span<const uint8_t> command_stream, Span<const ethosu::NpuRegion> regions) override {
    return model_.run(command_stream, regions);
  }

  NpuModel& model() { return model_; }

 private:
  NpuModel model_;
};

}  // namespace npu_model
}  // namespace pte

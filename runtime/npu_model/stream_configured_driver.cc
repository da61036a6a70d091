#include "runtime/npu_model/stream_configured_driver.h"

#include <new>

#include "runtime/npu_model/driver_payload.h"

namespace pte {
namespace npu_model {

StreamConfiguredDriver::~StreamConfiguredDriver() {
  if (model_ != nullptr) model_->~NpuModel();
}

NpuModel& StreamConfiguredDriver::model_for(const NpuArchitecture& architecture) {
  // Programs rarely mix configurations; the model is rebuilt only when the next stream names another one.
  if (model_ != nullptr && architecture_ == &architecture) return *model_;
  if (model_ != nullptr) model_->~NpuModel();
  model_ = new (model_storage_) NpuModel(architecture, work_memory_);
  architecture_ = &architecture;
  return *model_;
}

Status StreamConfiguredDriver::run(Span<const uint8_t> command_stream, Span<const ethosu::NpuRegion> regions) {
  PTE_ASSIGN_OR_RETURN(const DriverPayload payload, parse_driver_payload(command_stream));
  const NpuArchitecture* architecture = find_architecture(payload.product, payload.macs_per_cycle);
  if (architecture == nullptr) {
    return Status::failure(Error::kNotSupported,
                           "the command stream was compiled for %s with %lu MACs per cycle, which the NPU model "
                           "does not model (Ethos-U55-32/64/128/256, Ethos-U85-128/256/512/1024/2048)",
                           product_name(payload.product), static_cast<unsigned long>(payload.macs_per_cycle));
  }
  NpuModel& model = model_for(*architecture);
  model.set_trace(trace_);
  return model.run(command_stream, regions);
}

}  // namespace npu_model
}  // namespace pte

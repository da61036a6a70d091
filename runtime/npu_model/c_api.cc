#include "runtime/npu_model/c_api.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "runtime/npu_model/mlw_decoder.h"
#include "runtime/npu_model/npu_model.h"

namespace {

using pte::Error;
using pte::Span;
using pte::Status;

int report(const Status& status, char* error, size_t capacity) {
  if (error != nullptr && capacity > 0) std::snprintf(error, capacity, "%s", status.message());
  return static_cast<int>(status.code());
}

}  // namespace

extern "C" int pte_npu_model_run(const char* npu, const uint8_t* payload, size_t payload_size,
                                 const PteNpuRegion* regions, size_t region_count, size_t work_bytes,
                                 PteNpuTraceFn trace, void* trace_context, char* error, size_t error_capacity) {
  const pte::npu_model::NpuArchitecture* architecture = pte::npu_model::find_architecture(npu);
  if (architecture == nullptr) {
    return report(Status::failure(Error::kInvalidArgument,
                                  "unknown NPU '%s' (choose ethos-u55-32/64/128/256 or ethos-u85-128/256/512/1024/2048)",
                                  npu),
                  error, error_capacity);
  }
  if (region_count > pte::ethosu::kNpuRegionCount) {
    return report(Status::failure(Error::kInvalidArgument, "%lu regions given, the NPU has %lu base pointers",
                                  static_cast<unsigned long>(region_count),
                                  static_cast<unsigned long>(pte::ethosu::kNpuRegionCount)),
                  error, error_capacity);
  }
  pte::ethosu::NpuRegion npu_regions[pte::ethosu::kNpuRegionCount] = {};
  for (size_t i = 0; i < region_count; ++i) {
    npu_regions[i] = {reinterpret_cast<uintptr_t>(regions[i].data), regions[i].size};
  }
  // Host-only entry point: the model and its work memory live for this one call.
  void* work = std::malloc(work_bytes);
  auto* model = new (std::nothrow) pte::npu_model::NpuModel(*architecture, Span<uint8_t>(static_cast<uint8_t*>(work), work_bytes));
  if (work == nullptr || model == nullptr) {
    std::free(work);
    delete model;
    return report(Status::failure(Error::kArenaTooSmall, "could not allocate %lu bytes of work memory",
                                  static_cast<unsigned long>(work_bytes)),
                  error, error_capacity);
  }
  model->set_trace(pte::npu_model::TraceSink{trace, trace_context});
  const Status status = model->run(Span<const uint8_t>(payload, payload_size),
                                   Span<const pte::ethosu::NpuRegion>(npu_regions, pte::ethosu::kNpuRegionCount));
  delete model;
  std::free(work);
  return status.ok() ? 0 : report(status, error, error_capacity);
}

extern "C" long pte_npu_decode_weights(const uint8_t* stream, size_t stream_size, int16_t* values, size_t capacity,
                                       char* error, size_t error_capacity) {
  int32_t* scratch = static_cast<int32_t*>(std::malloc(pte::npu_model::kWeightDecoderScratchWords * sizeof(int32_t)));
  if (scratch == nullptr) {
    report(Status::failure(Error::kArenaTooSmall, "could not allocate the decoder's scratch"), error, error_capacity);
    return -1;
  }
  pte::Result<size_t> count = pte::npu_model::decode_weights(
      Span<const uint8_t>(stream, stream_size), Span<int16_t>(values, capacity),
      Span<int32_t>(scratch, pte::npu_model::kWeightDecoderScratchWords));
  std::free(scratch);
  if (!count.ok()) {
    report(count.status(), error, error_capacity);
    return -1;
  }
  return static_cast<long>(count.value());
}

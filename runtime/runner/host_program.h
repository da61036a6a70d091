// HostProgram: a .pte loaded on a host with everything it needs to run, for the host runner and the C API
// the Python runtime binds to (runtime/runner/c_api.h): planned buffers as the method asks, a runtime
// arena, the reference kernels and an Ethos-U backend whose delegates run on a functional NPU model of
// the configuration each command stream names. Host only: it uses the heap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/method.h"
#include "runtime/core/program.h"
#include "runtime/delegate/backend_registry.h"
#include "runtime/delegate/ethosu/ethosu_backend.h"
#include "runtime/kernels/registry.h"
#include "runtime/npu_model/stream_configured_driver.h"
#include "runtime/runner/host_files.h"

namespace pte {

// Where Ethos-U delegates run.
enum class NpuChoice : uint8_t {
  // The functional NPU model (runtime/npu_model), configured from each command stream.
  kModel,
  // A register-level driver for a real NPU: none exists on a Linux host, so loading says so.
  kDriver,
  // None: blobs are still checked at load, and running a delegate fails with kNotSupported.
  kNone,
};

// "model", "driver" or "none"; false for anything else.
bool parse_npu_choice(const char* text, NpuChoice* choice);

// A backend the embedding application supplies (e.g. VGF through Python), found by delegate id.
struct ExtraBackend {
  const char* id;
  Backend* backend;
};

struct HostProgramOptions {
  std::string method = "forward";
  // Host memory is plentiful; the arena use printed after load is what a device needs.
  size_t runtime_arena_bytes = size_t{64} << 20;
  // When >= 0, every planned buffer gets this many bytes instead of what the method asks for.
  long planned_buffer_bytes = -1;
  NpuChoice npu = NpuChoice::kModel;
  // The NPU model's work memory: one operation's decoded weights and IFM (MobileNetV2 needs a few MiB).
  size_t npu_work_bytes = size_t{64} << 20;
  std::vector<ExtraBackend> extra_backends;
};

class HostProgram {
 public:
  static Result<std::unique_ptr<HostProgram>> load(Span<const uint8_t> pte, const HostProgramOptions& options);

  Method& method() { return *method_; }
  const MethodMeta& meta() const { return *meta_; }
  const BumpArena& runtime_arena() const { return *runtime_arena_; }
  // The NPU configuration the last Ethos-U delegate ran on (nullptr when none has run on the model).
  const npu_model::NpuArchitecture* npu_architecture() const { return npu_model_.last_architecture(); }

  // Copies `bytes` into input `index`, which must be exactly the tensor's dtype-sized byte count.
  Status set_input(size_t index, Span<const uint8_t> bytes) { return method_->set_input(index, bytes); }
  Status execute() { return method_->execute(); }

 private:
  HostProgram(Span<const uint8_t> pte, const HostProgramOptions& options);
  Status load_method(const HostProgramOptions& options);

  AlignedBuffer pte_;
  std::optional<Program> program_;
  std::optional<MethodMeta> meta_;
  std::vector<AlignedBuffer> planned_storage_;
  std::vector<Span<uint8_t>> planned_;
  AlignedBuffer runtime_storage_;
  std::optional<BumpArena> runtime_arena_;
  AlignedBuffer npu_work_;
  npu_model::StreamConfiguredDriver npu_model_;
  ethosu::EthosUBackend ethos_u_;
  KernelRegistry kernels_;
  BackendRegistry backends_;
  std::optional<Method> method_;
};

}  // namespace pte

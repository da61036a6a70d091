// MethodHarness: a .pte with everything a host test needs to load and run it (aligned copy, planned buffers
// sized from the program, a runtime arena, the reference kernels and an Ethos-U backend).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/core/method.h"
#include "runtime/core/program.h"
#include "runtime/delegate/backend_registry.h"
#include "runtime/delegate/ethosu/ethosu_backend.h"
#include "runtime/kernels/registry.h"
#include "runtime/runner/host_files.h"

namespace pte {
namespace testing {

// The file's bytes, or none (with the reason printed) when it cannot be read.
std::vector<uint8_t> read_test_file(const std::string& path);

class MethodHarness {
 public:
  static constexpr size_t kRuntimeArenaBytes = 64 * 1024;
  // Planned buffers are capped: a corrupted program may ask for anything, and must then fail with
  // kArenaTooSmall rather than exhaust the test's memory.
  static constexpr size_t kPlannedBytesCap = 1 << 20;

  explicit MethodHarness(const std::vector<uint8_t>& pte, ethosu::NpuDriver* driver = nullptr);

  Span<const uint8_t> bytes() { return Span<const uint8_t>(pte_.data(), pte_.size()); }
  uint8_t* mutable_bytes() { return pte_.data(); }

  // Loads "forward"; planned_bytes < 0 gives each planned buffer what the method asks for.
  Result<Method> load(const Program& program, long planned_bytes = -1, size_t runtime_bytes = kRuntimeArenaBytes);
  // Program::load, load, fill_inputs and execute on `bytes`: the Status of the first step that fails.
  Status load_and_run(Span<const uint8_t> bytes);
  size_t arena_used() const { return arena_->used(); }

  KernelRegistry kernels;
  BackendRegistry backends;

 private:
  AlignedBuffer pte_;
  AlignedBuffer runtime_;
  std::unique_ptr<BumpArena> arena_;
  std::vector<AlignedBuffer> planned_;
  std::vector<Span<uint8_t>> planned_spans_;
  ethosu::EthosUBackend ethos_u_;
};

// Float inputs get `value`, bool inputs true, others zero.
Status fill_inputs(Method& method, float value);

}  // namespace testing
}  // namespace pte

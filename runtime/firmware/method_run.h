// One run of a .pte method with every byte it needs carved from a single memory region, as firmware
// does it: the program (unless it is already in memory), the input files, the planned buffers, then the
// runtime arena in what is left. Where the program and inputs come from and where outputs go is the
// caller's (RunIo): host files over semihosting, or blobs linked into the image.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/arena.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"
#include "runtime/delegate/backend_registry.h"
#include "runtime/kernels/registry.h"

namespace pte {
namespace firmware {

// Input files a run takes at most (their views are kept on the stack until the method is loaded).
constexpr size_t kMaxInputs = 16;

class RunIo {
 public:
  // The .pte, kBufferAlignment-aligned: read into `region`, or a view of memory that already holds it.
  virtual Result<Span<const uint8_t>> program(BumpArena& region) = 0;
  virtual size_t input_count() const = 0;
  // Input `index` as a .npy file.
  virtual Result<Span<const uint8_t>> input(size_t index, BumpArena& region) = 0;
  // How many outputs have an expected .npy file to be checked against (0: no check).
  virtual size_t expected_output_count() const = 0;
  virtual Result<Span<const uint8_t>> expected_output(size_t index, BumpArena& region) = 0;
  // Hands output `index` to wherever outputs go (a host file, a digest on the console).
  virtual Status write_output(size_t index, const Tensor& output) = 0;

 protected:
  ~RunIo() = default;
};

// Where the region's bytes went, and what the run measured.
struct RunReport {
  size_t region_bytes = 0;
  // Program (when read into the region) and input/expected files.
  size_t staged_bytes = 0;
  size_t planned_bytes = 0;
  size_t runtime_arena_used = 0;
  size_t runtime_arena_capacity = 0;
  // Clock ticks from the start of run_method to just before Method::execute: reading the program and
  // inputs, planning memory, Method::load and setting inputs (0 without a clock).
  uint64_t load_ticks = 0;
  // Clock ticks across Method::execute (0 without a clock).
  uint64_t execute_ticks = 0;
  size_t outputs_checked = 0;
  // Outputs that differ from their expected file (each reported on stderr).
  size_t outputs_differing = 0;
};

struct RunOptions {
  const char* method = "forward";
  // With no input files: every element of every input set to this value (converted to the input's
  // dtype), for runs whose input values do not matter (timing, smoke runs of NPU programs).
  bool fill_inputs = false;
  float fill_value = 0.0f;
  // Read just before and after Method::execute; null when the target has no clock.
  uint64_t (*read_ticks)() = nullptr;
};

// Loads `options.method`, sets its inputs, runs it once, checks and writes its outputs. The first failing
// step's Status, with the step named.
Result<RunReport> run_method(RunIo& io, Span<uint8_t> region, const KernelRegistry& kernels,
                             const BackendRegistry& backends, const RunOptions& options);

// The report as the runners print it (stdout).
void print_report(const RunReport& report);

}  // namespace firmware
}  // namespace pte

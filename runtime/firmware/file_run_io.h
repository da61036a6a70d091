// RunIo over files, through the POSIX calls newlib routes to semihosting on Corstone-300 (so the files
// are the host's, read and written by QEMU or the FVP) and Linux serves directly. Files are read into the
// run's region; nothing comes from the heap.
#pragma once

#include <cstddef>

#include "runtime/firmware/method_run.h"

namespace pte {
namespace firmware {

// Up to this many inputs and expected outputs each.
constexpr size_t kMaxFiles = kMaxInputs;

struct FileRunArguments {
  const char* program = nullptr;
  const char* inputs[kMaxFiles] = {};
  size_t input_count = 0;
  const char* expected_outputs[kMaxFiles] = {};
  size_t expected_output_count = 0;
  // Outputs are written as <output_dir>/output<i>.npy; null writes none.
  const char* output_dir = nullptr;
  const char* method = "forward";
  // --fill-inputs VALUE instead of input files (RunOptions::fill_inputs).
  bool fill_inputs = false;
  float fill_value = 0.0f;
  // --stub-npu: delegates' command streams are not run (QEMU has no NPU), to count the CPU's share.
  bool stub_npu = false;
};

// Parses `--model F --input F... --expected-output F... --output-dir D --method M --fill-inputs V
// --stub-npu`; false on anything else.
bool parse_file_run_arguments(int argc, char** argv, FileRunArguments* arguments);

class FileRunIo final : public RunIo {
 public:
  explicit FileRunIo(const FileRunArguments& arguments) : arguments_(arguments) {}

  Result<Span<const uint8_t>> program(BumpArena& region) override;
  size_t input_count() const override { return arguments_.input_count; }
  Result<Span<const uint8_t>> input(size_t index, BumpArena& region) override;
  size_t expected_output_count() const override { return arguments_.expected_output_count; }
  Result<Span<const uint8_t>> expected_output(size_t index, BumpArena& region) override;
  Status write_output(size_t index, const Tensor& output) override;

 private:
  const FileRunArguments& arguments_;
};

}  // namespace firmware
}  // namespace pte

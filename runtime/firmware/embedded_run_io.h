// RunIo over blobs linked into the firmware image (embedded_program.bzl writes their table), for boards
// and FVPs that run without a host: the program is used in place, and outputs are printed as digests
// (and checked against embedded expected outputs, when there are any).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/firmware/method_run.h"

namespace pte {
namespace firmware {

// One blob as the table describes it: two words on the 32-bit Cortex-M.
struct EmbeddedBlob {
  const uint8_t* data;
  uint32_t size;
};

// The image's table: the program, input .npy files, expected output .npy files, and whether to fill the
// inputs instead (RunOptions::fill_inputs).
struct EmbeddedFiles {
  EmbeddedBlob program;
  Span<const EmbeddedBlob> inputs;
  Span<const EmbeddedBlob> expected_outputs;
  bool fill_inputs;
  float fill_value;
};

// The table linked into this image.
EmbeddedFiles embedded_files();

class EmbeddedRunIo final : public RunIo {
 public:
  explicit EmbeddedRunIo(const EmbeddedFiles& files) : files_(files) {}

  Result<Span<const uint8_t>> program(BumpArena& region) override;
  size_t input_count() const override { return files_.inputs.size(); }
  Result<Span<const uint8_t>> input(size_t index, BumpArena& region) override;
  size_t expected_output_count() const override { return files_.expected_outputs.size(); }
  Result<Span<const uint8_t>> expected_output(size_t index, BumpArena& region) override;
  // Prints dtype, shape and an FNV-1a digest of the output's bytes.
  Status write_output(size_t index, const Tensor& output) override;

 private:
  const EmbeddedFiles& files_;
};

}  // namespace firmware
}  // namespace pte

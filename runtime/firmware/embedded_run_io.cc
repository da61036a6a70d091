#include "runtime/firmware/embedded_run_io.h"

#include <cstdio>
#include <cstring>

#include "runtime/core/decimal_text.h"
#include "runtime/core/program.h"

// The table an embedded_program target assembles (embedded_program.bzl).
extern "C" {
extern const pte::firmware::EmbeddedBlob pte_embedded_program;
extern const uint32_t pte_embedded_input_count;
extern const pte::firmware::EmbeddedBlob pte_embedded_inputs[];
extern const uint32_t pte_embedded_expected_output_count;
extern const pte::firmware::EmbeddedBlob pte_embedded_expected_outputs[];
extern const uint32_t pte_embedded_fill_inputs;
extern const float pte_embedded_fill_value;
}

namespace pte {
namespace firmware {
namespace {

static_assert(sizeof(EmbeddedBlob) == 8, "the table is written for 32-bit pointers");

Span<const uint8_t> view(const EmbeddedBlob& blob) { return Span<const uint8_t>(blob.data, blob.size); }

// FNV-1a, 32 bits: enough to tell outputs apart on a console.
uint32_t digest(const uint8_t* bytes, size_t size) {
  uint32_t hash = 2166136261u;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 16777619u;
  return hash;
}

}  // namespace

EmbeddedFiles embedded_files() {
  return EmbeddedFiles{pte_embedded_program,
                       Span<const EmbeddedBlob>(pte_embedded_inputs, pte_embedded_input_count),
                       Span<const EmbeddedBlob>(pte_embedded_expected_outputs, pte_embedded_expected_output_count),
                       pte_embedded_fill_inputs != 0, pte_embedded_fill_value};
}

Result<Span<const uint8_t>> EmbeddedRunIo::program(BumpArena& region) {
  (void)region;  // Used where it was linked.
  return view(files_.program);
}

Result<Span<const uint8_t>> EmbeddedRunIo::input(size_t index, BumpArena& region) {
  (void)region;
  return view(files_.inputs[index]);
}

Result<Span<const uint8_t>> EmbeddedRunIo::expected_output(size_t index, BumpArena& region) {
  (void)region;
  return view(files_.expected_outputs[index]);
}

Status EmbeddedRunIo::write_output(size_t index, const Tensor& output) {
  std::printf("output %lu: %s %s, %lu bytes, FNV-1a 0x%08lx\n", as_ulong(index), scalar_type_name(output.scalar_type),
              ShapeText(output).c_str(), as_ulong(output.nbytes),
              static_cast<unsigned long>(digest(static_cast<const uint8_t*>(output.data), output.nbytes)));
  return Status();
}

}  // namespace firmware
}  // namespace pte

// Runs a libFuzzer target's entry point over the files named on the command line: its regression inputs
// (inputs that once crashed it, and seeds). Built without libFuzzer or sanitizers, so it runs on every
// platform, Cortex-M55 on QEMU included, where a stray pointer faults instead of passing unnoticed.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "runtime/runner/host_files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s INPUT...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    pte::Result<std::vector<uint8_t>> input = pte::read_file(argv[i]);
    if (!input.ok()) {
      std::fprintf(stderr, "%s\n", input.status().message());
      return 1;
    }
    LLVMFuzzerTestOneInput(input->data(), input->size());
    std::printf("ran %s (%lu bytes)\n", argv[i], static_cast<unsigned long>(input->size()));
  }
  return 0;
}

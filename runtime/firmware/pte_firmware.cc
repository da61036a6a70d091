// pte_firmware: the Corstone-300 (Cortex-M55) runner. Takes its arguments, program, inputs and expected
// outputs from the host over semihosting, plans all memory in a fixed DDR region, runs the method once
// on the reference kernels and the Ethos-U55 (when one answers), writes the outputs as host files and
// prints memory use, SysTick ticks and NPU cycles.
//
//   pte_firmware --model m.pte (--input x.npy... | --fill-inputs VALUE) [--expected-output e.npy...]
//                [--output-dir DIR] [--method forward] [--stub-npu]
//
// --stub-npu stands in for the NPU where there is none (QEMU): command streams are parsed, as the driver
// does, but not run, so a run counts the CPU's share of a delegated program (its outputs are meaningless).
//
// Exit status: 0 on success, 1 on a runtime error, 2 on usage errors, 3 when an output differs from its
// expected file. The last line printed says it too, for hosts that do not pass it on (some FVP builds).
#include <cstdio>

#include "runtime/firmware/corstone300_run.h"
#include "runtime/firmware/file_run_io.h"

namespace pte {
namespace firmware {
namespace {

constexpr const char* kUsage =
    "usage: pte_firmware --model FILE.pte (--input FILE.npy... | --fill-inputs VALUE) [--expected-output FILE.npy]...\n"
    "                    [--output-dir DIR] [--method NAME] [--stub-npu]\n";

int run(const FileRunArguments& arguments) {
  FileRunIo io(arguments);
  RunOptions options;
  options.method = arguments.method;
  options.fill_inputs = arguments.fill_inputs;
  options.fill_value = arguments.fill_value;
  return run_on_corstone300(io, options, corstone300_npu(arguments.stub_npu));
}

}  // namespace
}  // namespace firmware
}  // namespace pte

int main(int argc, char** argv) {
  pte::firmware::FileRunArguments arguments;
  const int status =
      pte::firmware::parse_file_run_arguments(argc, argv, &arguments) ? pte::firmware::run(arguments) : 2;
  if (status == 2) std::fputs(pte::firmware::kUsage, stderr);
  std::printf("pte_firmware: exit status %d\n", status);
  return status;
}

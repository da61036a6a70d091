// What every Corstone-300 runner does around run_method: attach the Ethos-U55 (or --stub-npu's stand-in),
// register the reference kernels, run in the DDR region timed by SysTick, and print what was used.
#pragma once

#include "runtime/firmware/method_run.h"

namespace pte {
namespace firmware {

// The exit status: 0 on success, 1 on a runtime error, 3 when an output differs from its expected file.
int run_on_corstone300(RunIo& io, RunOptions options, bool stub_npu);

}  // namespace firmware
}  // namespace pte

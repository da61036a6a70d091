// What every Corstone-300 runner does around run_method: attach an NPU driver (the Ethos-U55, the
// --stub-npu stand-in, or the functional NPU model in images built with it), register the reference
// kernels, run in the DDR region timed by SysTick, and print what was used.
#pragma once

#include "runtime/delegate/ethosu/npu_driver.h"
#include "runtime/firmware/method_run.h"

namespace pte {
namespace firmware {

// The Ethos-U55 at Corstone-300's address (null, said why, when none answers) or, with `stub`, a stand-in
// that parses command streams without running them (their outputs are meaningless).
ethosu::NpuDriver* corstone300_npu(bool stub);

// Runs the method with `npu` executing its Ethos-U delegates (null: a delegate call fails).
// The exit status: 0 on success, 1 on a runtime error, 3 when an output differs from its expected file.
int run_on_corstone300(RunIo& io, RunOptions options, ethosu::NpuDriver* npu);

}  // namespace firmware
}  // namespace pte

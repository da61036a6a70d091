#include <cstdio>

#include "runtime/firmware/embedded_npu.h"
#include "runtime/npu_model/npu_model_driver.h"

// The model's work memory: one operation's decoded weights and IFM, plus the weight decoder's scratch.
// Override with --copt=-DPTE_NPU_MODEL_WORK_BYTES=... for operations larger than the default allows.
#ifndef PTE_NPU_MODEL_WORK_BYTES
#define PTE_NPU_MODEL_WORK_BYTES (4u << 20)
#endif

namespace pte {
namespace firmware {
namespace {

// In DDR with the run's region: the model is the only reader, so it need not be NPU-visible SRAM.
alignas(16) __attribute__((section(".ddr_bss"))) uint8_t g_npu_model_work[PTE_NPU_MODEL_WORK_BYTES];

}  // namespace

ethosu::NpuDriver* embedded_npu() {
  // Corstone-300's NPU as Arm's FVP configures it by default.
  static npu_model::NpuModelDriver driver(*npu_model::ethos_u55(128),
                                          Span<uint8_t>(g_npu_model_work, sizeof(g_npu_model_work)));
  std::printf("NPU: functional model of an Ethos-U55-128 on the CPU (%lu KiB work memory)\n",
              static_cast<unsigned long>(sizeof(g_npu_model_work) >> 10));
  return &driver;
}

}  // namespace firmware
}  // namespace pte

#include "runtime/firmware/corstone300_run.h"

#include <cstdio>

#include "runtime/core/decimal_text.h"
#include "runtime/delegate/backend_registry.h"
#include "runtime/delegate/ethosu/driver.h"
#include "runtime/delegate/ethosu/driver_corstone300.h"
#include "runtime/delegate/ethosu/driver_payload.h"
#include "runtime/delegate/ethosu/ethosu_backend.h"
#include "runtime/firmware/ddr_region.h"
#include "runtime/firmware/systick.h"
#include "runtime/kernels/reference_kernels.h"

namespace pte {
namespace firmware {
namespace {

// Stands in for the NPU where there is none (QEMU): command streams are parsed, as the driver does, but
// not run, so a run counts the CPU's share of a delegated program (its outputs are meaningless).
class StubNpu final : public ethosu::NpuDriver {
 public:
  Status run(Span<const uint8_t> command_stream, Span<const ethosu::NpuRegion> regions) override {
    (void)regions;
    return ethosu::parse_driver_payload(command_stream).status();
  }
};

// The register-level driver once corstone300_npu attached it: its cycle counter is printed after the run.
ethosu::EthosUDriver* g_attached_npu = nullptr;

// The NPU's driver when an Ethos-U answers at the Corstone-300 address; null (said why) otherwise.
ethosu::EthosUDriver* attach_npu() {
  static ethosu::MmioNpuAttachment registers(ethosu::corstone300::kNpuSecureBase);
  static ethosu::EthosUDriver driver(registers);
  const Status status = driver.init();
  if (!status.ok()) {
    std::printf("NPU: none at 0x%08lx (%s); delegates cannot run\n",
                static_cast<unsigned long>(ethosu::corstone300::kNpuSecureBase), status.message());
    return nullptr;
  }
  const ethosu::NpuIdentity& npu = driver.identity();
  std::printf("NPU: %s-%lu, architecture %lu.%lu.%lu, %lu KiB SHRAM\n", npu.product_name(),
              static_cast<unsigned long>(npu.macs_per_cycle), static_cast<unsigned long>(npu.arch_major),
              static_cast<unsigned long>(npu.arch_minor), static_cast<unsigned long>(npu.arch_patch),
              static_cast<unsigned long>(npu.shram_kib));
  g_attached_npu = &driver;
  return &driver;
}

}  // namespace

ethosu::NpuDriver* corstone300_npu(bool stub) {
  if (!stub) return attach_npu();
  static StubNpu stand_in;
  std::printf("NPU: stubbed (command streams are parsed, not run)\n");
  return &stand_in;
}

int run_on_corstone300(RunIo& io, RunOptions options, ethosu::NpuDriver* npu) {
  ethosu::EthosUBackend ethos_u(npu);
  KernelRegistry kernels;
  BackendRegistry backends;
  Status status = register_reference_kernels(kernels);
  if (status.ok()) status = backends.add(ethosu::EthosUBackend::kId, ethos_u);

  options.read_ticks = systick_ticks;
  start_systick();
  Result<RunReport> report = status.ok() ? run_method(io, ddr_region(), kernels, backends, options) : status;
  if (!report.ok()) {
    std::fprintf(stderr, "error: %s: %s\n", error_name(report.code()), report.status().message());
    return 1;
  }
  print_report(report.value());
  // Meaningful as instructions only when QEMU runs with -icount shift=0 (one instruction per nanosecond).
  std::printf("load: %s SysTick ticks at %lu Hz (= %s instructions when QEMU runs with -icount shift=0)\n",
              DecimalText(report->load_ticks).c_str(), static_cast<unsigned long>(kSysTickHz),
              DecimalText(report->load_ticks * 1000000000u / kSysTickHz).c_str());
  std::printf("execute: %s SysTick ticks at %lu Hz (= %s instructions when QEMU runs with -icount shift=0)\n",
              DecimalText(report->execute_ticks).c_str(), static_cast<unsigned long>(kSysTickHz),
              DecimalText(report->execute_ticks * 1000000000u / kSysTickHz).c_str());
  if (npu != nullptr && npu == g_attached_npu) {
    std::printf("NPU: %s cycles in the last delegate call\n", DecimalText(g_attached_npu->last_run_cycles()).c_str());
  }
  return report->outputs_differing == 0 ? 0 : 3;
}

}  // namespace firmware
}  // namespace pte

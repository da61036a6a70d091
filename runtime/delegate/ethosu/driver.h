// EthosUDriver: the register-level NpuDriver for an Ethos-U55 or U65 (NPU architecture 1.x).
//
// init() identifies the NPU, soft-resets it into the configured security state and sets up its AXI
// limits. run() checks that the command stream was compiled for this NPU, points QBASE/QSIZE at the
// stream and the base pointers at the regions, starts the NPU and polls STATUS until it raises its
// interrupt, then reports any fault the NPU flagged. Polling keeps the driver free of interrupt wiring;
// the NPU still raises its IRQ (56 on Corstone-300), which firmware may leave disabled.
//
// The Cortex-M55's data cache must be off or maintained by the caller around run(): the NPU reads
// inputs and weights and writes outputs behind the cache. (//toolchains/corstone300's startup leaves it
// off.)
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/core/status.h"
#include "runtime/delegate/ethosu/npu_driver.h"

namespace pte {
namespace ethosu {

// How the CPU reaches one NPU: its registers, and how the NPU sees CPU addresses.
class NpuAttachment {
 public:
  virtual uint32_t read_register(uint32_t offset) = 0;
  virtual void write_register(uint32_t offset, uint32_t value) = 0;
  // The bus address the NPU must be given for `cpu_address` (the same address on Corstone-300).
  virtual uint64_t npu_address(uintptr_t cpu_address) const { return cpu_address; }

 protected:
  ~NpuAttachment() = default;
};

// The NPU's registers as memory-mapped I/O at `base`.
class MmioNpuAttachment final : public NpuAttachment {
 public:
  explicit MmioNpuAttachment(uintptr_t base) : base_(base) {}
  uint32_t read_register(uint32_t offset) override;
  void write_register(uint32_t offset, uint32_t value) override;

 private:
  uintptr_t base_;
};

// One AXI_LIMIT register: how traffic counted against it may use the bus.
struct AxiLimit {
  // Bursts are split at 64 << burst_boundary bytes.
  uint8_t burst_boundary;
  // AXI memory type attribute (0: device non-bufferable ... 11: write-back read and write allocate).
  uint8_t memory_type;
  uint8_t max_outstanding_reads;
  uint8_t max_outstanding_writes;
};

struct EthosUDriverConfig {
  // The security state and privilege the NPU's bus accesses carry; they must match what the memory
  // holding the model allows. Corstone-300 firmware runs secure and privileged.
  bool secure = true;
  bool privileged = true;
  // Which AXI_LIMIT counter the command stream fetches and each region's traffic use. The defaults suit
  // Vela's Shared_Sram mode on an Ethos-U55: weights and commands over the external-memory port
  // (counters 2 and 3), scratch over the SRAM port (counter 0).
  uint8_t command_stream_axi_counter = 2;
  uint8_t region_axi_counters[kNpuRegionCount] = {3, 0, 1, 1, 1, 1, 1, 1};
  AxiLimit axi_limits[4] = {{0, 0, 32, 16}, {0, 0, 32, 16}, {0, 0, 32, 16}, {0, 0, 32, 16}};
  // STATUS reads before a soft reset or a command stream is declared hung.
  uint32_t max_reset_polls = 100000;
  uint32_t max_run_polls = 0xffffffffu;
};

// What init() read from the NPU.
struct NpuIdentity {
  // 0: Ethos-U55, 1: Ethos-U65.
  uint32_t product;
  uint32_t macs_per_cycle;
  uint32_t shram_kib;
  uint32_t arch_major;
  uint32_t arch_minor;
  uint32_t arch_patch;

  const char* product_name() const { return product == 0 ? "Ethos-U55" : "Ethos-U65"; }
};

class EthosUDriver final : public NpuDriver {
 public:
  explicit EthosUDriver(NpuAttachment& npu, const EthosUDriverConfig& config = EthosUDriverConfig())
      : npu_(npu), config_(config) {}

  // kNotFound when no Ethos-U55/U65 answers at the attachment (e.g. QEMU, which has no NPU model);
  // kDelegateFailed when it does not come out of reset in the requested security state.
  Status init();
  const NpuIdentity& identity() const { return identity_; }

  // `command_stream` is Vela's driver payload (a bin stream's cmd_data).
  Status run(Span<const uint8_t> command_stream, Span<const NpuRegion> regions) override;

  // NPU clock cycles the last run() took (the NPU's PMU cycle counter).
  uint64_t last_run_cycles() const { return last_run_cycles_; }

 private:
  Status soft_reset();
  Status check_compiled_for_this_npu(uint32_t config, uint32_t id) const;
  Status run_stream(Span<const uint8_t> stream, Span<const NpuRegion> regions);
  Result<uint32_t> wait_for_irq();

  NpuAttachment& npu_;
  EthosUDriverConfig config_;
  NpuIdentity identity_ = {};
  bool initialized_ = false;
  uint64_t last_run_cycles_ = 0;
};

}  // namespace ethosu
}  // namespace pte

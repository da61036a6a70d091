// FakeNpu: a model of an Ethos-U55's register file for tests of EthosUDriver, where no NPU exists (host,
// QEMU). Registers keep what is written; RESET, CMD and STATUS behave like the hardware's: a soft reset
// completes after a few STATUS reads and sets PROT, a CMD start "runs" the stream at once (recording the
// registers it started with) and raises the interrupt with the outcome a test asks for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/delegate/ethosu/driver.h"

namespace pte {
namespace ethosu {

class FakeNpu final : public NpuAttachment {
 public:
  // CONFIG and ID of an Ethos-U55-128 (24 KiB SHRAM, architecture 1.0.6), as Vela's payloads declare it.
  static constexpr uint32_t kU55_128Config = 0x00001807;
  static constexpr uint32_t kArchitecture106 = 0x10060000;

  enum class Outcome { kCompletes, kBusError, kCommandParseError, kNeverFinishes };

  // What the registers held when a command stream was started.
  struct Start {
    uint32_t qbase;
    uint32_t qbase_high;
    uint32_t qsize;
    uint32_t base_pointers[2 * kNpuRegionCount];
    uint32_t qconfig;
    uint32_t region_config;
  };

  explicit FakeNpu(uint32_t config = kU55_128Config, uint32_t id = kArchitecture106);

  uint32_t read_register(uint32_t offset) override;
  void write_register(uint32_t offset, uint32_t value) override;
  // Addresses inside a window map() declared are translated; others are passed through.
  uint64_t npu_address(uintptr_t cpu_address) const override;

  // CPU memory [cpu_base, cpu_base + size) appears to the NPU at npu_base (host pointers are wider than
  // the NPU's 32-bit bus).
  void map(const void* cpu_base, size_t size, uint32_t npu_base);
  uint32_t value(uint32_t offset) const { return registers_[offset / 4]; }

  Outcome next_outcome = Outcome::kCompletes;
  // STATUS reads a soft reset takes; UINT32_MAX: it never completes.
  uint32_t reset_reads = 2;
  // PROT after a reset: -1 reports the requested levels, anything else this value.
  int64_t forced_prot = -1;
  uint64_t cycles_per_run = 0x123456789;

  std::vector<Start> starts;
  size_t resets = 0;
  // Every register write in order: (offset, value).
  std::vector<std::pair<uint32_t, uint32_t>> writes;

 private:
  void start();

  static constexpr size_t kRegisterWords = 0x1000 / 4;
  uint32_t registers_[kRegisterWords] = {};
  uint32_t reset_reads_left_ = 0;
  struct Window {
    uintptr_t cpu_base;
    size_t size;
    uint32_t npu_base;
  };
  std::vector<Window> windows_;
};

}  // namespace ethosu
}  // namespace pte

#include "runtime/delegate/ethosu/driver_fake_npu.h"

#include "runtime/delegate/ethosu/driver_registers.h"

namespace pte {
namespace ethosu {

FakeNpu::FakeNpu(uint32_t config, uint32_t id) {
  registers_[reg::kConfig / 4] = config;
  registers_[reg::kId / 4] = id;
}

uint32_t FakeNpu::read_register(uint32_t offset) {
  uint32_t& status = registers_[reg::kStatus / 4];
  if (offset == reg::kStatus && status::kResetInProgress.get(status) != 0 && reset_reads_left_ != UINT32_MAX &&
      reset_reads_left_-- == 0) {
    status = 0;
    registers_[reg::kProt / 4] =
        forced_prot >= 0 ? static_cast<uint32_t>(forced_prot) : registers_[reg::kReset / 4] & 0x3;
  }
  return registers_[offset / 4];
}

void FakeNpu::write_register(uint32_t offset, uint32_t value) {
  writes.emplace_back(offset, value);
  if (offset == reg::kStatus || offset == reg::kId || offset == reg::kConfig || offset == reg::kProt) return;
  registers_[offset / 4] = value;
  if (offset == reg::kReset) {
    ++resets;
    reset_reads_left_ = reset_reads;
    registers_[reg::kStatus / 4] = status::kResetInProgress.with(0, 1);
  }
  if (offset == reg::kCmd) {
    if (cmd::kClearIrq.get(value) != 0) {
      registers_[reg::kStatus / 4] = status::kIrqRaised.with(registers_[reg::kStatus / 4], 0);
    }
    if (cmd::kTransitionToRunning.get(value) != 0) start();
    // The command bits act once; only the clock and power enables stay set.
    registers_[reg::kCmd / 4] = value & cmd::kClockAndPowerMask;
  }
}

void FakeNpu::start() {
  Start started = {};
  started.qbase = registers_[reg::kQbase / 4];
  started.qbase_high = registers_[reg::kQbaseHigh / 4];
  started.qsize = registers_[reg::kQsize / 4];
  for (size_t i = 0; i < 2 * kNpuRegionCount; ++i) started.base_pointers[i] = registers_[reg::kBasePointer0 / 4 + i];
  started.qconfig = registers_[reg::kQconfig / 4];
  started.region_config = registers_[reg::kRegionConfig / 4];
  starts.push_back(started);

  uint32_t status = 0;
  switch (next_outcome) {
    case Outcome::kCompletes:
      status = status::kIrqRaised.with(status::kCommandEndReached.with(0, 1), 1);
      registers_[reg::kQread / 4] = started.qsize;
      break;
    case Outcome::kBusError:
      status = status::kIrqRaised.with(status::kBusError.with(0, 1), 1);
      registers_[reg::kQread / 4] = started.qsize / 2;
      break;
    case Outcome::kCommandParseError:
      status = status::kIrqRaised.with(status::kCommandParseError.with(0, 1), 1);
      registers_[reg::kQread / 4] = 8;
      break;
    case Outcome::kNeverFinishes:
      status = status::kRunning.with(0, 1);
      break;
  }
  registers_[reg::kStatus / 4] = status;
  registers_[reg::kPmccntrLow / 4] = static_cast<uint32_t>(cycles_per_run);
  registers_[reg::kPmccntrHigh / 4] = static_cast<uint32_t>(cycles_per_run >> 32);
}

uint64_t FakeNpu::npu_address(uintptr_t cpu_address) const {
  for (const Window& window : windows_) {
    if (cpu_address >= window.cpu_base && cpu_address - window.cpu_base <= window.size) {
      return window.npu_base + (cpu_address - window.cpu_base);
    }
  }
  return cpu_address;
}

void FakeNpu::map(const void* cpu_base, size_t size, uint32_t npu_base) {
  windows_.push_back(Window{reinterpret_cast<uintptr_t>(cpu_base), size, npu_base});
}

}  // namespace ethosu
}  // namespace pte

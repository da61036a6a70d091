#include "runtime/delegate/ethosu/driver.h"

#include <cstdio>
#include <cstring>

#include "runtime/core/decimal_text.h"
#include "runtime/delegate/ethosu/driver_payload.h"
#include "runtime/delegate/ethosu/driver_registers.h"

namespace pte {
namespace ethosu {
namespace {

// Ethos-U55 and U65 speak NPU architecture 1.x; the U85 (2.x) has another register map.
constexpr uint32_t kArchMajor = 1;
constexpr uint32_t kProductU55 = 0;
constexpr uint32_t kProductU65 = 1;
// U55 drives 32 address bits, U65 40.
constexpr uint64_t address_limit(uint32_t product) {
  return product == kProductU65 ? uint64_t{1} << 40 : uint64_t{1} << 32;
}

unsigned long as_hex(uint32_t word) { return static_cast<unsigned long>(word); }

// "0x12345678" or, above 32 bits, "0x1_23456789" (newlib-nano's printf has no %llx).
struct HexAddress {
  explicit HexAddress(uint64_t address) {
    const auto low = static_cast<unsigned long>(address & 0xffffffffu);
    if (address >> 32 == 0) {
      std::snprintf(text, sizeof(text), "0x%08lx", low);
    } else {
      std::snprintf(text, sizeof(text), "0x%lx_%08lx", static_cast<unsigned long>(address >> 32), low);
    }
  }
  char text[24] = {};
};

// "bus error, command parse error": the fault bits set in a STATUS word.
struct FaultText {
  explicit FaultText(uint32_t word) {
    struct Named {
      RegisterField field;
      const char* name;
    };
    const Named faults[] = {{status::kBusError, "bus error"},
                            {status::kCommandParseError, "command parse error"},
                            {status::kWatchdogFault, "watchdog fault"},
                            {status::kEccFault, "ECC fault"}};
    for (const Named& fault : faults) {
      if (fault.field.get(word) == 0) continue;
      const size_t used = std::strlen(text);
      std::snprintf(text + used, sizeof(text) - used, "%s%s", used ? ", " : "", fault.name);
    }
  }
  char text[96] = {};
};

}  // namespace

uint32_t MmioNpuAttachment::read_register(uint32_t offset) {
  return *reinterpret_cast<volatile const uint32_t*>(base_ + offset);
}

void MmioNpuAttachment::write_register(uint32_t offset, uint32_t value) {
  *reinterpret_cast<volatile uint32_t*>(base_ + offset) = value;
}

Status EthosUDriver::init() {
  const uint32_t id_word = npu_.read_register(reg::kId);
  const uint32_t config_word = npu_.read_register(reg::kConfig);
  identity_.product = config::kProduct.get(config_word);
  identity_.macs_per_cycle = 1u << config::kMacsPerCycleLog2.get(config_word);
  identity_.shram_kib = config::kShramKib.get(config_word);
  identity_.arch_major = id::kArchMajor.get(id_word);
  identity_.arch_minor = id::kArchMinor.get(id_word);
  identity_.arch_patch = id::kArchPatch.get(id_word);
  if (identity_.arch_major != kArchMajor || (identity_.product != kProductU55 && identity_.product != kProductU65)) {
    return Status::failure(Error::kNotFound,
                           "no Ethos-U55/U65 answers here: ID reads 0x%08lx, CONFIG 0x%08lx (architecture %lu, "
                           "product %lu; expected architecture 1, product 0 or 1)",
                           as_hex(id_word), as_hex(config_word), static_cast<unsigned long>(identity_.arch_major),
                           static_cast<unsigned long>(identity_.product));
  }
  PTE_RETURN_IF_ERROR(soft_reset());

  npu_.write_register(reg::kQconfig, config_.command_stream_axi_counter);
  uint32_t region_config = 0;
  for (size_t i = 0; i < kNpuRegionCount; ++i) {
    region_config |= (config_.region_axi_counters[i] & 0x3u) << (i * kRegionConfigBits);
  }
  npu_.write_register(reg::kRegionConfig, region_config);
  for (uint32_t i = 0; i < reg::kAxiLimitCount; ++i) {
    const AxiLimit& limit = config_.axi_limits[i];
    uint32_t word = axi_limit::kBurstBoundary.with(0, limit.burst_boundary);
    word = axi_limit::kMemoryType.with(word, limit.memory_type);
    word = axi_limit::kMaxOutstandingReadsMinus1.with(word, limit.max_outstanding_reads - 1u);
    word = axi_limit::kMaxOutstandingWritesMinus1.with(word, limit.max_outstanding_writes - 1u);
    npu_.write_register(reg::kAxiLimit0 + 4 * i, word);
  }
  initialized_ = true;
  return Status();
}

Status EthosUDriver::soft_reset() {
  uint32_t levels = security::kPrivilege.with(0, config_.privileged ? 1 : 0);
  levels = security::kNonSecure.with(levels, config_.secure ? 0 : 1);
  npu_.write_register(reg::kReset, levels);
  uint32_t polls = 0;
  while (status::kResetInProgress.get(npu_.read_register(reg::kStatus)) != 0) {
    if (++polls >= config_.max_reset_polls) {
      return Status::failure(Error::kDelegateFailed, "the NPU did not leave soft reset after %lu STATUS reads",
                             static_cast<unsigned long>(polls));
    }
  }
  const uint32_t prot = npu_.read_register(reg::kProt);
  if (prot != levels) {
    return Status::failure(Error::kDelegateFailed,
                           "the NPU runs %s/%s after reset, %s/%s was requested (PROT 0x%08lx): the bus does not "
                           "let this CPU state configure it",
                           security::kNonSecure.get(prot) ? "non-secure" : "secure",
                           security::kPrivilege.get(prot) ? "privileged" : "user",
                           config_.secure ? "secure" : "non-secure", config_.privileged ? "privileged" : "user",
                           as_hex(prot));
  }
  return Status();
}

Status EthosUDriver::check_compiled_for_this_npu(uint32_t config_word, uint32_t id_word) const {
  const uint32_t hardware_config = npu_.read_register(reg::kConfig);
  const uint32_t product = config::kProduct.get(config_word);
  const uint32_t macs = 1u << config::kMacsPerCycleLog2.get(config_word);
  if (product != identity_.product || macs != identity_.macs_per_cycle ||
      config::kCommandStreamVersion.get(config_word) != config::kCommandStreamVersion.get(hardware_config)) {
    return Status::failure(Error::kDelegateFailed,
                           "the command stream was compiled for an %s-%lu (CONFIG 0x%08lx), this NPU is an %s-%lu "
                           "(CONFIG 0x%08lx): recompile the model for this NPU's target",
                           product == kProductU55 ? "Ethos-U55" : "Ethos-U65", static_cast<unsigned long>(macs),
                           as_hex(config_word), identity_.product_name(),
                           static_cast<unsigned long>(identity_.macs_per_cycle), as_hex(hardware_config));
  }
  // A newer minor architecture runs older streams; the major version must match.
  if (id::kArchMajor.get(id_word) != identity_.arch_major || id::kArchMinor.get(id_word) > identity_.arch_minor) {
    return Status::failure(Error::kDelegateFailed,
                           "the command stream needs NPU architecture %lu.%lu, this NPU has %lu.%lu",
                           static_cast<unsigned long>(id::kArchMajor.get(id_word)),
                           static_cast<unsigned long>(id::kArchMinor.get(id_word)),
                           static_cast<unsigned long>(identity_.arch_major),
                           static_cast<unsigned long>(identity_.arch_minor));
  }
  return Status();
}

Status EthosUDriver::run(Span<const uint8_t> command_stream, Span<const NpuRegion> regions) {
  if (!initialized_) return Status::failure(Error::kInvalidState, "the Ethos-U driver runs only after init()");
  if (regions.size() > kNpuRegionCount) {
    return Status::failure(Error::kInvalidArgument, "%lu regions given, the NPU has %lu base pointers",
                           as_ulong(regions.size()), as_ulong(kNpuRegionCount));
  }
  PTE_ASSIGN_OR_RETURN(const DriverPayload payload, parse_driver_payload(command_stream));
  if (payload.has_config) PTE_RETURN_IF_ERROR(check_compiled_for_this_npu(payload.config, payload.id));
  last_run_cycles_ = 0;
  for (size_t i = 0; i < payload.command_stream_count; ++i) {
    Status status = run_stream(payload.command_streams[i], regions);
    if (!status.ok()) return std::move(status).with_context("command stream %lu", as_ulong(i));
  }
  return Status();
}

Status EthosUDriver::run_stream(Span<const uint8_t> stream, Span<const NpuRegion> regions) {
  const uint64_t limit = address_limit(identity_.product);
  const uint64_t queue = npu_.npu_address(reinterpret_cast<uintptr_t>(stream.data()));
  if (queue % kCommandStreamAlignment != 0 || queue + stream.size() > limit) {
    return Status::failure(Error::kInvalidArgument,
                           "the command stream at NPU address %s must be %lu-byte aligned and below 2^%d",
                           HexAddress(queue).text, as_ulong(kCommandStreamAlignment),
                           identity_.product == kProductU65 ? 40 : 32);
  }
  npu_.write_register(reg::kQbase, static_cast<uint32_t>(queue));
  npu_.write_register(reg::kQbaseHigh, static_cast<uint32_t>(queue >> 32));
  npu_.write_register(reg::kQsize, static_cast<uint32_t>(stream.size()));
  for (size_t i = 0; i < kNpuRegionCount; ++i) {
    const NpuRegion region = i < regions.size() ? regions[i] : NpuRegion{0, 0};
    const uint64_t address = region.size == 0 ? 0 : npu_.npu_address(region.address);
    if (address + region.size > limit) {
      return Status::failure(Error::kInvalidArgument, "region %lu (%lu bytes at NPU address %s) lies beyond the "
                             "NPU's address space", as_ulong(i), as_ulong(region.size), HexAddress(address).text);
    }
    const uint32_t base_pointer = reg::kBasePointer0 + reg::kBasePointerStride * static_cast<uint32_t>(i);
    npu_.write_register(base_pointer, static_cast<uint32_t>(address));
    npu_.write_register(base_pointer + 4, static_cast<uint32_t>(address >> 32));
  }

  npu_.write_register(reg::kPmcr, pmu::kCountersEnable.with(pmu::kCycleCounterReset.with(0, 1), 1));
  npu_.write_register(reg::kPmcntenset, pmu::kCycleCounterEnable.with(0, 1));
  const uint32_t keep = npu_.read_register(reg::kCmd) & cmd::kClockAndPowerMask;
  npu_.write_register(reg::kCmd, cmd::kTransitionToRunning.with(keep, 1));

  PTE_ASSIGN_OR_RETURN(const uint32_t final_status, wait_for_irq());
  npu_.write_register(reg::kCmd, cmd::kClearIrq.with(npu_.read_register(reg::kCmd) & cmd::kClockAndPowerMask, 1));
  last_run_cycles_ += static_cast<uint64_t>(pmu::kCycleCounterHigh.get(npu_.read_register(reg::kPmccntrHigh))) << 32 |
                      npu_.read_register(reg::kPmccntrLow);

  const FaultText faults(final_status);
  if (faults.text[0] != '\0' || status::kCommandEndReached.get(final_status) == 0) {
    const uint32_t read = npu_.read_register(reg::kQread);
    // A faulted NPU keeps its state until reset; leave it ready for the next run.
    const Status reset = soft_reset();
    return Status::failure(Error::kDelegateFailed, "NPU stopped with STATUS 0x%08lx (%s) after %lu of %lu command "
                           "bytes%s", as_hex(final_status), faults.text[0] ? faults.text : "command end not reached",
                           static_cast<unsigned long>(read), as_ulong(stream.size()),
                           reset.ok() ? "" : "; the soft reset after it failed too");
  }
  return Status();
}

Result<uint32_t> EthosUDriver::wait_for_irq() {
  uint32_t polls = 0;
  for (;;) {
    const uint32_t word = npu_.read_register(reg::kStatus);
    if (status::kIrqRaised.get(word) != 0) return word;
    if (++polls >= config_.max_run_polls) {
      const Status reset = soft_reset();
      return Status::failure(Error::kDelegateFailed,
                             "the NPU raised no interrupt after %lu STATUS reads (STATUS 0x%08lx, QREAD %lu)%s",
                             static_cast<unsigned long>(polls), as_hex(word),
                             static_cast<unsigned long>(npu_.read_register(reg::kQread)),
                             reset.ok() ? "; it was reset" : "; the soft reset after it failed too");
    }
  }
}

}  // namespace ethosu
}  // namespace pte

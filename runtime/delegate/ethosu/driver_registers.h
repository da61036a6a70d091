// The Ethos-U55/U65 (NPU architecture 1.x) registers the driver uses: byte offsets from the NPU's base
// address and the fields inside them, as Arm's register description has them (Vela ships the same table
// as ethosu/vela/ethos_u55_regs; driver_registers_test.py checks this file against it).
#pragma once

#include <cstdint>

namespace pte {
namespace ethosu {

// A bit field of a 32-bit register.
struct RegisterField {
  uint32_t shift;
  uint32_t width;

  constexpr uint32_t mask() const { return (width == 32 ? 0xffffffffu : ((1u << width) - 1u)) << shift; }
  constexpr uint32_t get(uint32_t word) const { return (word & mask()) >> shift; }
  constexpr uint32_t with(uint32_t word, uint32_t value) const {
    return (word & ~mask()) | ((value << shift) & mask());
  }
};

namespace reg {

constexpr uint32_t kId = 0x0000;
constexpr uint32_t kStatus = 0x0004;
constexpr uint32_t kCmd = 0x0008;
constexpr uint32_t kReset = 0x000C;
// The command stream's address: low word, then the high word (U65's 40-bit addresses).
constexpr uint32_t kQbase = 0x0010;
constexpr uint32_t kQbaseHigh = 0x0014;
// How far the NPU has read into the command stream, in bytes.
constexpr uint32_t kQread = 0x0018;
constexpr uint32_t kQconfig = 0x001C;
constexpr uint32_t kQsize = 0x0020;
constexpr uint32_t kProt = 0x0024;
constexpr uint32_t kConfig = 0x0028;
constexpr uint32_t kRegionConfig = 0x003C;
// AXI_LIMIT0..3, one word each.
constexpr uint32_t kAxiLimit0 = 0x0040;
constexpr uint32_t kAxiLimitCount = 4;
// Base pointer of region i: low word at kBasePointer0 + 8 * i, high word 4 bytes above it.
constexpr uint32_t kBasePointer0 = 0x0080;
constexpr uint32_t kBasePointerStride = 8;
constexpr uint32_t kPmcr = 0x0180;
constexpr uint32_t kPmcntenset = 0x0184;
constexpr uint32_t kPmccntrLow = 0x01A0;
constexpr uint32_t kPmccntrHigh = 0x01A4;

}  // namespace reg

namespace id {
constexpr RegisterField kArchPatch{16, 4};
constexpr RegisterField kArchMinor{20, 8};
constexpr RegisterField kArchMajor{28, 4};
}  // namespace id

namespace status {
// 1 while the NPU runs a command stream.
constexpr RegisterField kRunning{0, 1};
constexpr RegisterField kIrqRaised{1, 1};
constexpr RegisterField kBusError{2, 1};
// 1 while a soft reset is in progress.
constexpr RegisterField kResetInProgress{3, 1};
constexpr RegisterField kCommandParseError{4, 1};
constexpr RegisterField kCommandEndReached{5, 1};
constexpr RegisterField kWatchdogFault{7, 1};
constexpr RegisterField kEccFault{8, 1};
}  // namespace status

namespace cmd {
constexpr RegisterField kTransitionToRunning{0, 1};
constexpr RegisterField kClearIrq{1, 1};
// The clock and power Q-channel enables: a CMD write keeps them as they are.
constexpr uint32_t kClockAndPowerMask = 0xC;
}  // namespace cmd

// RESET requests and PROT reports the same two levels.
namespace security {
// 1: privileged.
constexpr RegisterField kPrivilege{0, 1};
// 0: secure, 1: non-secure.
constexpr RegisterField kNonSecure{1, 1};
}  // namespace security

namespace config {
// log2 of the MACs per cycle (7: Ethos-U55-128).
constexpr RegisterField kMacsPerCycleLog2{0, 4};
constexpr RegisterField kCommandStreamVersion{4, 4};
// Shared buffer size in KiB.
constexpr RegisterField kShramKib{8, 8};
// 0: Ethos-U55, 1: Ethos-U65.
constexpr RegisterField kProduct{28, 4};
}  // namespace config

namespace axi_limit {
// 0: split bursts at 64 bytes, 1: 128, 2: 256.
constexpr RegisterField kBurstBoundary{0, 2};
constexpr RegisterField kMemoryType{4, 4};
constexpr RegisterField kMaxOutstandingReadsMinus1{16, 8};
constexpr RegisterField kMaxOutstandingWritesMinus1{24, 8};
}  // namespace axi_limit

namespace pmu {
constexpr RegisterField kCountersEnable{0, 1};
constexpr RegisterField kCycleCounterReset{2, 1};
constexpr RegisterField kCycleCounterEnable{31, 1};
// PMCCNTR is 48 bits: 32 in the low word, 16 in the high word.
constexpr RegisterField kCycleCounterHigh{0, 16};
}  // namespace pmu

// REGIONCFG: two bits per base-pointer region choosing which AXI_LIMIT counter its traffic uses.
constexpr uint32_t kRegionConfigBits = 2;

}  // namespace ethosu
}  // namespace pte

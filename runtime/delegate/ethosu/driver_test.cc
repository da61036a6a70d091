// EthosUDriver on the fake NPU: what init() and run() write to which register in which order, how NPU
// faults come back, and Vela's driver payload (hand-built, and the one in a real .pte).
#include <cstring>
#include <vector>

#include "runtime/delegate/ethosu/bin_stream.h"
#include "runtime/delegate/ethosu/driver.h"
#include "runtime/delegate/ethosu/driver_fake_npu.h"
#include "runtime/delegate/ethosu/driver_payload.h"
#include "runtime/delegate/ethosu/driver_registers.h"
#include "runtime/testing/method_harness.h"
#include "runtime/testing/unit_test.h"

namespace pte {
namespace ethosu {
namespace {

constexpr uint32_t kCop1 = 0x31504f43;
constexpr uint32_t kNop = 0x05;
constexpr uint32_t kVelaId = 0x10066001;
// Where the tests' memory appears on the fake NPU's bus.
constexpr uint32_t kNpuWindow = 0x60000000;

uint32_t config_tag() { return 0x01 | (0x10 << 16); }
uint32_t command_stream_tag(uint32_t words) { return 0x02 | ((words >> 16) << 8) | ((words & 0xffff) << 16); }

// A payload as Vela writes it: COP1, CONFIG, NOPs up to a 16-byte boundary, then the stream's words.
struct Payload {
  explicit Payload(uint32_t config = FakeNpu::kU55_128Config, size_t stream_words = 6) {
    words = {kCop1, config_tag(), config, kVelaId, kNop, kNop, kNop, command_stream_tag(stream_words)};
    for (size_t i = 0; i < stream_words; ++i) words.push_back(0x4000 + static_cast<uint32_t>(i));
  }
  Span<const uint8_t> bytes() const {
    return Span<const uint8_t>(reinterpret_cast<const uint8_t*>(words.data()), words.size() * 4);
  }
  std::vector<uint32_t> words;
};

// A driver on a fake NPU, with the test's memory mapped into the NPU's 32-bit address space.
struct Rig {
  Rig() : driver(npu) {
    npu.map(memory, sizeof(memory), kNpuWindow);
    config.max_run_polls = 1000;
  }
  uint32_t npu_address_of(const void* pointer) const {
    return kNpuWindow + static_cast<uint32_t>(static_cast<const uint8_t*>(pointer) - memory);
  }
  // Copies `payload` into the mapped memory (16-byte aligned, like a bin stream block) and runs it.
  Status run(const Payload& payload, Span<const NpuRegion> regions) {
    std::memcpy(memory, payload.words.data(), payload.words.size() * 4);
    return driver.run(Span<const uint8_t>(memory, payload.words.size() * 4), regions);
  }
  NpuRegion region(size_t offset, size_t size) { return NpuRegion{reinterpret_cast<uintptr_t>(memory + offset), size}; }

  alignas(16) uint8_t memory[4096] = {};
  FakeNpu npu;
  EthosUDriverConfig config;
  EthosUDriver driver;
};

size_t index_of_write(const FakeNpu& npu, uint32_t offset, size_t from = 0) {
  for (size_t i = from; i < npu.writes.size(); ++i) {
    if (npu.writes[i].first == offset) return i;
  }
  return npu.writes.size();
}

TEST(init_identifies_resets_and_configures_the_bus) {
  Rig rig;
  EXPECT_OK(rig.driver.init());
  EXPECT_EQ(rig.driver.identity().product, 0u);
  EXPECT_EQ(rig.driver.identity().macs_per_cycle, 128u);
  EXPECT_EQ(rig.driver.identity().shram_kib, 24u);
  EXPECT_EQ(rig.driver.identity().arch_patch, 6u);
  // Secure and privileged: PENDING_CPL = 1, PENDING_CSL = 0.
  EXPECT_EQ(rig.npu.resets, 1u);
  EXPECT_EQ(rig.npu.value(reg::kReset), 0x1u);
  EXPECT_EQ(rig.npu.value(reg::kQconfig), 2u);
  // Region 0 on counter 3, region 1 on counter 0, the others on counter 1.
  EXPECT_EQ(rig.npu.value(reg::kRegionConfig), 0x5553u);
  // 64-byte bursts, device memory type, 32 reads and 16 writes outstanding.
  for (uint32_t i = 0; i < reg::kAxiLimitCount; ++i) EXPECT_EQ(rig.npu.value(reg::kAxiLimit0 + 4 * i), 0x0f1f0000u);
  // The bus is configured only after the reset, which would clear it.
  EXPECT_TRUE(index_of_write(rig.npu, reg::kReset) < index_of_write(rig.npu, reg::kQconfig));
}

TEST(init_requests_the_configured_security_state) {
  FakeNpu npu;
  EthosUDriverConfig config;
  config.secure = false;
  config.privileged = false;
  EthosUDriver driver(npu, config);
  EXPECT_OK(driver.init());
  EXPECT_EQ(npu.value(reg::kReset), 0x2u);
}

TEST(init_without_an_npu_says_none_answers) {
  FakeNpu blank(0, 0);  // QEMU's mps3-an547: the NPU's registers read 0.
  EthosUDriver driver(blank);
  EXPECT_ERROR(driver.init(), Error::kNotFound, "no Ethos-U55/U65 answers here: ID reads 0x00000000");
  EXPECT_EQ(blank.resets, 0u);
}

TEST(init_rejects_an_ethos_u85) {
  FakeNpu u85(0x00000000, 0x20000000);  // Architecture 2.
  EthosUDriver driver(u85);
  EXPECT_ERROR(driver.init(), Error::kNotFound, "architecture 2, product 0");
}

TEST(a_reset_that_never_completes_is_reported) {
  FakeNpu npu;
  npu.reset_reads = UINT32_MAX;
  EthosUDriverConfig config;
  config.max_reset_polls = 50;
  EthosUDriver driver(npu, config);
  EXPECT_ERROR(driver.init(), Error::kDelegateFailed, "did not leave soft reset after 50 STATUS reads");
}

TEST(a_security_state_the_bus_refuses_is_reported) {
  FakeNpu npu;
  npu.forced_prot = 0x2;  // Came out of reset non-secure, user.
  EthosUDriver driver(npu);
  EXPECT_ERROR(driver.init(), Error::kDelegateFailed,
               "the NPU runs non-secure/user after reset, secure/privileged was requested");
}

TEST(run_before_init_is_refused) {
  Rig rig;
  NpuRegion regions[kNpuRegionCount] = {};
  EXPECT_ERROR(rig.run(Payload(), Span<const NpuRegion>(regions)), Error::kInvalidState, "only after init()");
}

TEST(run_points_the_npu_at_the_stream_and_regions_then_starts_it) {
  Rig rig;
  EXPECT_OK(rig.driver.init());
  const size_t writes_before = rig.npu.writes.size();
  NpuRegion regions[kNpuRegionCount] = {};
  regions[0] = rig.region(1024, 256);
  regions[1] = rig.region(2048, 512);
  EXPECT_OK(rig.run(Payload(), Span<const NpuRegion>(regions)));

  EXPECT_EQ(rig.npu.starts.size(), 1u);
  const FakeNpu::Start& start = rig.npu.starts[0];
  // The stream starts after the 8 header words.
  EXPECT_EQ(start.qbase, rig.npu_address_of(rig.memory + 32));
  EXPECT_EQ(start.qbase_high, 0u);
  EXPECT_EQ(start.qsize, 24u);
  EXPECT_EQ(start.base_pointers[0], rig.npu_address_of(rig.memory + 1024));
  EXPECT_EQ(start.base_pointers[2], rig.npu_address_of(rig.memory + 2048));
  for (size_t i = 1; i < 2 * kNpuRegionCount; i += 2) EXPECT_EQ(start.base_pointers[i], 0u);
  for (size_t i = 4; i < 2 * kNpuRegionCount; ++i) EXPECT_EQ(start.base_pointers[i], 0u);

  // CMD starts the NPU after everything else is in place, and the interrupt is cleared after it.
  const size_t run = index_of_write(rig.npu, reg::kCmd, writes_before);
  EXPECT_EQ(rig.npu.writes[run].second, 0x1u);
  EXPECT_TRUE(index_of_write(rig.npu, reg::kQsize, writes_before) < run);
  EXPECT_TRUE(index_of_write(rig.npu, reg::kBasePointer0 + 8 * 7, writes_before) < run);
  const size_t clear = index_of_write(rig.npu, reg::kCmd, run + 1);
  EXPECT_EQ(rig.npu.writes[clear].second, 0x2u);
  EXPECT_EQ(rig.driver.last_run_cycles(), 0x123456789u);
}

TEST(run_keeps_the_clock_and_power_enables) {
  Rig rig;
  EXPECT_OK(rig.driver.init());
  rig.npu.write_register(reg::kCmd, 0xC);
  NpuRegion regions[kNpuRegionCount] = {};
  EXPECT_OK(rig.run(Payload(), Span<const NpuRegion>(regions)));
  EXPECT_EQ(rig.npu.writes[index_of_write(rig.npu, reg::kCmd, 1 + index_of_write(rig.npu, reg::kCmd))].second, 0xDu);
}

TEST(a_stream_for_another_npu_is_refused_with_the_fix) {
  Rig rig;
  EXPECT_OK(rig.driver.init());
  NpuRegion regions[kNpuRegionCount] = {};
  const uint32_t u55_256 = FakeNpu::kU55_128Config + 1;  // log2(MACs) 8.
  EXPECT_ERROR(rig.run(Payload(u55_256), Span<const NpuRegion>(regions)), Error::kDelegateFailed,
               "compiled for an Ethos-U55-256 (CONFIG 0x00001808), this NPU is an Ethos-U55-128 (CONFIG "
               "0x00001807): recompile");
  EXPECT_EQ(rig.npu.starts.size(), 0u);
}

TEST(npu_faults_are_reported_and_reset) {
  Rig rig;
  EXPECT_OK(rig.driver.init());
  NpuRegion regions[kNpuRegionCount] = {};
  rig.npu.next_outcome = FakeNpu::Outcome::kBusError;
  EXPECT_ERROR(rig.run(Payload(), Span<const NpuRegion>(regions)), Error::kDelegateFailed,
               "command stream 0: NPU stopped with STATUS 0x00000006 (bus error) after 12 of 24 command bytes");
  EXPECT_EQ(rig.npu.resets, 2u);
  rig.npu.next_outcome = FakeNpu::Outcome::kCommandParseError;
  EXPECT_ERROR(rig.run(Payload(), Span<const NpuRegion>(regions)), Error::kDelegateFailed, "(command parse error)");
  // The NPU works again after the reset.
  rig.npu.next_outcome = FakeNpu::Outcome::kCompletes;
  EXPECT_OK(rig.run(Payload(), Span<const NpuRegion>(regions)));
}

TEST(a_hung_npu_times_out) {
  Rig rig;
  EthosUDriver driver(rig.npu, rig.config);
  EXPECT_OK(driver.init());
  rig.npu.next_outcome = FakeNpu::Outcome::kNeverFinishes;
  NpuRegion regions[kNpuRegionCount] = {};
  const Payload payload;
  std::memcpy(rig.memory, payload.words.data(), payload.words.size() * 4);
  EXPECT_ERROR(driver.run(Span<const uint8_t>(rig.memory, payload.words.size() * 4), Span<const NpuRegion>(regions)),
               Error::kDelegateFailed, "raised no interrupt after 1000 STATUS reads");
}

TEST(addresses_the_npu_cannot_reach_are_refused) {
  Rig rig;
  EXPECT_OK(rig.driver.init());
  NpuRegion regions[kNpuRegionCount] = {};
  // A stream off its 16-byte alignment.
  const Payload payload;
  std::memcpy(rig.memory + 4, payload.words.data(), payload.words.size() * 4);
  EXPECT_ERROR(rig.driver.run(Span<const uint8_t>(rig.memory + 4, payload.words.size() * 4),
                              Span<const NpuRegion>(regions)),
               Error::kInvalidArgument, "must be 16-byte aligned");
  // A region beyond 4 GiB.
  regions[1] = NpuRegion{0xfffff000, 0x2000};
  EXPECT_ERROR(rig.run(payload, Span<const NpuRegion>(regions)), Error::kInvalidArgument,
               "region 1 (8192 bytes at NPU address 0xfffff000) lies beyond");
}

TEST(payload_errors_name_the_action_and_word) {
  Payload payload;
  payload.words[0] = 0x12345678;
  EXPECT_ERROR(parse_driver_payload(payload.bytes()), Error::kInvalidDelegateBlob,
               "starts with 0x12345678, not \"COP1\"");

  payload = Payload();
  payload.words.resize(3);
  EXPECT_ERROR(parse_driver_payload(payload.bytes()), Error::kInvalidDelegateBlob, "CONFIG at word 1 is truncated");

  payload = Payload();
  payload.words[7] = command_stream_tag(7);
  EXPECT_ERROR(parse_driver_payload(payload.bytes()), Error::kInvalidDelegateBlob,
               "COMMAND_STREAM at word 7 declares 7 words, 6 remain");

  payload = Payload();
  payload.words[4] = 0x09;
  EXPECT_ERROR(parse_driver_payload(payload.bytes()), Error::kInvalidDelegateBlob, "unknown action 0x09 at word 4");

  payload = Payload();
  payload.words.resize(7);
  EXPECT_ERROR(parse_driver_payload(payload.bytes()), Error::kInvalidDelegateBlob, "holds no command stream");
}

// The cmd_data of the Ethos-U delegate in a .pte lowered by the repository's flow with Vela.
TEST(vela_payload_in_a_real_program_parses) {
  const std::vector<uint8_t> pte = testing::read_test_file("runtime/testdata/tiny_conv_u55.pte");
  const Span<const uint8_t> bytes(pte.data(), pte.size());
  size_t start = bytes.size();
  size_t end = bytes.size();
  for (size_t i = 0; i + 16 <= bytes.size(); ++i) {
    if (std::memcmp(bytes.data() + i, "vela_bin_stream", 16) == 0) start = i;
    if (std::memcmp(bytes.data() + i, "vela_end_stream", 16) == 0) end = i + 32;
  }
  EXPECT_TRUE(start < end && end <= bytes.size());
  ASSERT_OK_AND_ASSIGN(const VelaBinStream stream, parse_vela_bin_stream(bytes.subspan(start, end - start)));
  ASSERT_OK_AND_ASSIGN(const DriverPayload payload, parse_driver_payload(stream.command_stream));
  EXPECT_TRUE(payload.has_config);
  EXPECT_EQ(payload.config, FakeNpu::kU55_128Config);
  EXPECT_EQ(payload.command_stream_count, 1u);
  // The stream fills the rest of cmd_data and starts 16-byte aligned within it.
  const size_t offset = static_cast<size_t>(payload.command_streams[0].data() - stream.command_stream.data());
  EXPECT_EQ(offset % kCommandStreamAlignment, 0u);
  EXPECT_EQ(offset + payload.command_streams[0].size(), stream.command_stream.size());
}

}  // namespace
}  // namespace ethosu
}  // namespace pte

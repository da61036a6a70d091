// libFuzzer target: arbitrary bytes as an Ethos-U delegate blob run the way pte_runner and arm.run run
// one on a host: the Vela bin stream parsed, its inputs zero in the scratch area, and the command stream
// executed on the functional NPU model of whatever configuration its CONFIG word names. Every command,
// register value and weight stream comes from the blob; failures must come back as a Status.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/delegate/ethosu/bin_stream.h"
#include "runtime/npu_model/stream_configured_driver.h"
#include "runtime/runner/host_files.h"

namespace {

// A corrupt stream may ask for any scratch size; beyond this it is not run (the backend would refuse it
// too, for want of arena).
constexpr uint32_t kScratchCap = 1 << 20;
constexpr size_t kWorkBytes = 1 << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pte::AlignedBuffer blob(pte::Span<const uint8_t>(data, size));
  pte::Result<pte::ethosu::VelaBinStream> stream =
      pte::ethosu::parse_vela_bin_stream(pte::Span<const uint8_t>(blob.data(), size));
  if (!stream.ok() || stream->scratch_size > kScratchCap) return 0;
  static std::vector<uint8_t> work(kWorkBytes);
  pte::AlignedBuffer scratch(stream->scratch_size);
  pte::npu_model::StreamConfiguredDriver driver(pte::Span<uint8_t>(work.data(), work.size()));
  pte::ethosu::NpuRegion regions[pte::ethosu::kNpuRegionCount] = {};
  regions[0] = {reinterpret_cast<uintptr_t>(stream->weights.data()), stream->weights.size()};
  regions[1] = {reinterpret_cast<uintptr_t>(scratch.data()), stream->scratch_size};
  (void)driver.run(stream->command_stream, pte::Span<const pte::ethosu::NpuRegion>(regions));
  return 0;
}

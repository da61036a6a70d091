// libFuzzer target: arbitrary bytes as an "EthosUBackend" delegate blob (a Vela bin stream): the parser,
// the promise it makes about every I/O entry (scratch tensors lie inside the scratch area, which the
// backend copies to and from unchecked), and Vela's driver payload inside cmd_data run by EthosUDriver on
// the fake NPU. Errors must come back as a Status, never as a crash or a sanitizer report.
#include <cstddef>
#include <cstdint>

#include "runtime/delegate/ethosu/bin_stream.h"
#include "runtime/delegate/ethosu/driver.h"
#include "runtime/delegate/ethosu/driver_fake_npu.h"
#include "runtime/delegate/ethosu/driver_payload.h"
#include "runtime/runner/host_files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pte::AlignedBuffer blob(pte::Span<const uint8_t>(data, size));
  pte::Result<pte::ethosu::VelaBinStream> stream =
      pte::ethosu::parse_vela_bin_stream(pte::Span<const uint8_t>(blob.data(), size));
  if (!stream.ok()) return 0;
  for (const pte::ethosu::VelaIoTable* table : {&stream->inputs, &stream->outputs}) {
    for (size_t i = 0; i < table->size(); ++i) {
      const pte::ethosu::VelaIo io = table->at(i);
      if (io.region == static_cast<int32_t>(pte::ethosu::Region::kScratch) &&
          static_cast<uint64_t>(io.offset) + io.byte_size() > stream->scratch_size) {
        __builtin_trap();
      }
    }
  }

  pte::ethosu::FakeNpu npu;
  npu.map(blob.data(), size, 0x60000000);
  pte::ethosu::EthosUDriver driver(npu);
  if (!driver.init().ok()) return 0;
  const pte::ethosu::NpuRegion regions[] = {
      {reinterpret_cast<uintptr_t>(stream->weights.data()), stream->weights.size()},
  };
  (void)driver.run(stream->command_stream, pte::Span<const pte::ethosu::NpuRegion>(regions));
  return 0;
}

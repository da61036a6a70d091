// EthosUBackend: runs "EthosUBackend" delegates (a Vela bin stream each) on an Ethos-U through an
// NpuDriver. Inputs are copied into the delegate's scratch area at the offsets Vela chose, the command
// stream runs with base pointers {weights, scratch, fast scratch}, and outputs are copied back out.
#pragma once

#include "runtime/delegate/backend.h"
#include "runtime/delegate/ethosu/bin_stream.h"
#include "runtime/delegate/ethosu/npu_driver.h"

namespace pte {
namespace ethosu {

class EthosUBackend final : public Backend {
 public:
  // The delegate id ExecuTorch's Arm backend and ours write into the .pte.
  static constexpr const char* kId = "EthosUBackend";

  // `driver` may be null: blobs are still checked at load, and execute says no NPU is attached.
  // `fast_scratch` is region 2 (e.g. SRAM when scratch is in DRAM), shared by all delegates.
  explicit EthosUBackend(NpuDriver* driver, Span<uint8_t> fast_scratch = Span<uint8_t>())
      : driver_(driver), fast_scratch_(fast_scratch) {}

  // Parses and checks the bin stream; the delegate's scratch area comes from the method's arena.
  Result<void*> init(BackendInitContext& context, Span<const uint8_t> blob,
                     Span<const CompileSpec> compile_specs) override;
  Status execute(void* handle, Span<EValue* const> args) override;

 private:
  NpuDriver* driver_;
  Span<uint8_t> fast_scratch_;
};

}  // namespace ethosu
}  // namespace pte

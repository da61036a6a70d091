// libFuzzer target: arbitrary bytes as a .pte, through everything a device does with one: Program::load,
// Method::load of every method (planned buffers as the program asks, capped), zero inputs, execute.
// Any outcome but a crash or a sanitizer report is fine; errors must come back as a Status.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/core/method.h"
#include "runtime/core/program.h"
#include "runtime/delegate/backend_registry.h"
#include "runtime/delegate/ethosu/ethosu_backend.h"
#include "runtime/kernels/reference_kernels.h"
#include "runtime/runner/host_files.h"

namespace {

// A corrupted program may ask for any size; beyond these it must fail with kArenaTooSmall instead.
constexpr size_t kRuntimeArenaBytes = 256 * 1024;
constexpr size_t kPlannedBytesCap = 4 << 20;

struct Runtime {
  Runtime() : ethos_u(nullptr) {
    (void)pte::register_reference_kernels(kernels);
    (void)backends.add(pte::ethosu::EthosUBackend::kId, ethos_u);
  }
  pte::ethosu::EthosUBackend ethos_u;
  pte::KernelRegistry kernels;
  pte::BackendRegistry backends;
};

void run_method(const pte::Program& program, const char* name, const Runtime& runtime) {
  pte::Result<pte::MethodMeta> meta = program.method_meta(name);
  if (!meta.ok()) return;
  std::vector<pte::AlignedBuffer> planned_storage;
  std::vector<pte::Span<uint8_t>> planned;
  planned_storage.reserve(meta->planned_buffer_count());
  for (size_t i = 0; i < meta->planned_buffer_count(); ++i) {
    const size_t wanted = meta->planned_buffer_size(i);
    planned_storage.emplace_back(wanted < kPlannedBytesCap ? wanted : kPlannedBytesCap);
    planned.push_back(planned_storage.back().span());
  }
  pte::AlignedBuffer runtime_storage(kRuntimeArenaBytes);
  pte::BumpArena arena(runtime_storage.data(), kRuntimeArenaBytes);
  const pte::MethodMemory memory{arena, pte::Span<const pte::Span<uint8_t>>(planned.data(), planned.size())};
  pte::Result<pte::Method> method = pte::Method::load(program, name, memory, runtime.kernels, runtime.backends);
  if (!method.ok()) return;
  for (size_t i = 0; i < method->input_count(); ++i) {
    pte::Result<const pte::Tensor*> tensor = method->input_tensor(i);
    if (!tensor.ok() || tensor.value()->nbytes > kPlannedBytesCap) return;
    const std::vector<uint8_t> zeros(tensor.value()->nbytes, 0);
    if (!method->set_input(i, pte::Span<const uint8_t>(zeros.data(), zeros.size())).ok()) return;
  }
  (void)method->execute();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Runtime runtime;
  pte::AlignedBuffer bytes(pte::Span<const uint8_t>(data, size));
  pte::Result<pte::Program> program = pte::Program::load(pte::Span<const uint8_t>(bytes.data(), size));
  if (!program.ok()) return 0;
  for (size_t i = 0; i < program->method_count(); ++i) {
    pte::Result<const char*> name = program->method_name(i);
    if (name.ok()) run_method(program.value(), name.value(), runtime);
  }
  return 0;
}

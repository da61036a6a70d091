#include "runtime/testing/method_harness.h"

#include <cstdio>
#include <cstring>

#include "runtime/kernels/reference_kernels.h"

namespace pte {
namespace testing {

std::vector<uint8_t> read_test_file(const std::string& path) {
  Result<std::vector<uint8_t>> bytes = read_file(path);
  if (!bytes.ok()) std::printf("  %s\n", bytes.status().message());
  return bytes.ok() ? std::move(bytes).value() : std::vector<uint8_t>();
}

MethodHarness::MethodHarness(const std::vector<uint8_t>& pte, ethosu::NpuDriver* driver)
    : pte_(Span<const uint8_t>(pte.data(), pte.size())), runtime_(kRuntimeArenaBytes), ethos_u_(driver) {
  // Both registries start empty and hold fewer entries than their capacity: these cannot fail.
  (void)register_reference_kernels(kernels);
  (void)backends.add(ethosu::EthosUBackend::kId, ethos_u_);
}

Result<Method> MethodHarness::load(const Program& program, long planned_bytes, size_t runtime_bytes) {
  PTE_ASSIGN_OR_RETURN(const MethodMeta meta, program.method_meta("forward"));
  planned_.clear();
  planned_spans_.clear();
  for (size_t i = 0; i < meta.planned_buffer_count(); ++i) {
    const size_t wanted = planned_bytes < 0 ? meta.planned_buffer_size(i) : static_cast<size_t>(planned_bytes);
    planned_.emplace_back(wanted < kPlannedBytesCap ? wanted : kPlannedBytesCap);
    planned_spans_.push_back(planned_.back().span());
  }
  arena_.reset(new BumpArena(runtime_.data(), runtime_bytes));
  const MethodMemory memory{*arena_, Span<const Span<uint8_t>>(planned_spans_.data(), planned_spans_.size())};
  return Method::load(program, "forward", memory, kernels, backends);
}

Status MethodHarness::load_and_run(Span<const uint8_t> bytes) {
  PTE_ASSIGN_OR_RETURN(const Program program, Program::load(bytes));
  PTE_ASSIGN_OR_RETURN(Method method, load(program));
  PTE_RETURN_IF_ERROR(fill_inputs(method, 0.5f));
  return method.execute();
}

Status fill_inputs(Method& method, float value) {
  for (size_t i = 0; i < method.input_count(); ++i) {
    PTE_ASSIGN_OR_RETURN(const Tensor* tensor, method.input_tensor(i));
    std::vector<uint8_t> bytes(tensor->nbytes, 0);
    for (size_t e = 0; e < tensor->numel; ++e) {
      if (tensor->scalar_type == ScalarType::kFloat) std::memcpy(&bytes[e * sizeof(float)], &value, sizeof(float));
      if (tensor->scalar_type == ScalarType::kBool) bytes[e] = 1;
    }
    PTE_RETURN_IF_ERROR(method.set_input(i, Span<const uint8_t>(bytes.data(), bytes.size())));
  }
  return Status();
}

}  // namespace testing
}  // namespace pte

#include "runtime/runner/host_program.h"

#include <cstring>

#include "runtime/core/decimal_text.h"
#include "runtime/kernels/reference_kernels.h"

namespace pte {

bool parse_npu_choice(const char* text, NpuChoice* choice) {
  static constexpr struct {
    const char* name;
    NpuChoice choice;
  } kChoices[] = {{"model", NpuChoice::kModel}, {"driver", NpuChoice::kDriver}, {"none", NpuChoice::kNone}};
  for (const auto& entry : kChoices) {
    if (std::strcmp(text, entry.name) == 0) {
      *choice = entry.choice;
      return true;
    }
  }
  return false;
}

namespace {

// The runtime never clears planned buffers or the Ethos-U scratch it takes from the arena (BumpArena::
// allocate): memory planning and Vela's plan have every byte written before it is read. The host fills
// them with a pattern no test output could come from by chance, so every program run here checks that.
constexpr uint8_t kUnwrittenPattern = 0xA5;

void fill_with_pattern(Span<uint8_t> memory) { std::memset(memory.data(), kUnwrittenPattern, memory.size()); }

}  // namespace

HostProgram::HostProgram(Span<const uint8_t> pte, const HostProgramOptions& options)
    : pte_(pte),
      runtime_storage_(options.runtime_arena_bytes),
      npu_work_(options.npu == NpuChoice::kModel ? options.npu_work_bytes : 0),
      npu_model_(npu_work_.span()),
      ethos_u_(options.npu == NpuChoice::kModel ? &npu_model_ : nullptr) {}

Result<std::unique_ptr<HostProgram>> HostProgram::load(Span<const uint8_t> pte, const HostProgramOptions& options) {
  if (options.npu == NpuChoice::kDriver) {
    return Status::failure(Error::kNotSupported,
                           "no Ethos-U driver can be attached on this host (no NPU is reachable from a Linux "
                           "process here); run Ethos-U delegates on the functional NPU model with --npu=model");
  }
  std::unique_ptr<HostProgram> host(new HostProgram(pte, options));
  PTE_RETURN_IF_ERROR(host->load_method(options));
  return host;
}

Status HostProgram::load_method(const HostProgramOptions& options) {
  PTE_ASSIGN_OR_RETURN(const Program program, Program::load(pte_.span()));
  program_.emplace(program);
  PTE_ASSIGN_OR_RETURN(const MethodMeta meta, program_->method_meta(options.method.c_str()));
  meta_.emplace(meta);
  planned_storage_.reserve(meta.planned_buffer_count());
  for (size_t i = 0; i < meta.planned_buffer_count(); ++i) {
    const size_t size = options.planned_buffer_bytes >= 0 ? static_cast<size_t>(options.planned_buffer_bytes)
                                                          : meta.planned_buffer_size(i);
    planned_storage_.emplace_back(size);
    planned_.emplace_back(planned_storage_.back().data(), size);
    fill_with_pattern(planned_storage_.back().span());
  }
  fill_with_pattern(runtime_storage_.span());
  runtime_arena_.emplace(runtime_storage_.data(), runtime_storage_.size());

  PTE_RETURN_IF_ERROR(register_reference_kernels(kernels_));
  PTE_RETURN_IF_ERROR(backends_.add(ethosu::EthosUBackend::kId, ethos_u_));
  for (const ExtraBackend& extra : options.extra_backends) PTE_RETURN_IF_ERROR(backends_.add(extra.id, *extra.backend));

  const MethodMemory memory{*runtime_arena_, Span<const Span<uint8_t>>(planned_.data(), planned_.size())};
  PTE_ASSIGN_OR_RETURN(Method method, Method::load(*program_, options.method.c_str(), memory, kernels_, backends_));
  method_.emplace(std::move(method));
  return Status();
}

}  // namespace pte

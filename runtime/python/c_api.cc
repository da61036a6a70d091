#include "runtime/python/c_api.h"

#include <cstdio>
#include <memory>
#include <vector>

#include "runtime/python/callback_backend.h"
#include "runtime/runner/host_program.h"

// The opaque handle: the program and the callback backends it was loaded with (which must outlive it).
struct PteHostProgram {
  std::vector<std::unique_ptr<pte::python::CallbackBackend>> callbacks;
  std::unique_ptr<pte::HostProgram> host;
};

namespace {

using pte::Error;
using pte::Status;

int report(const Status& status, char* error, size_t capacity) {
  if (error != nullptr && capacity > 0) std::snprintf(error, capacity, "%s", status.message());
  return static_cast<int>(status.code());
}

pte::Result<pte::HostProgramOptions> host_options(const PteLoadOptions* options, PteHostProgram& program) {
  pte::HostProgramOptions host;
  if (options == nullptr) return host;
  if (options->method != nullptr) host.method = options->method;
  if (options->npu != nullptr && !pte::parse_npu_choice(options->npu, &host.npu)) {
    return Status::failure(Error::kInvalidArgument, "npu must be \"model\", \"driver\" or \"none\", not \"%s\"",
                           options->npu);
  }
  if (options->runtime_arena_bytes != 0) host.runtime_arena_bytes = options->runtime_arena_bytes;
  if (options->npu_work_bytes != 0) host.npu_work_bytes = options->npu_work_bytes;
  for (size_t i = 0; i < options->backend_count; ++i) {
    const PteHostBackend& callbacks = options->backends[i];
    if (callbacks.id == nullptr || callbacks.init == nullptr || callbacks.execute == nullptr) {
      return Status::failure(Error::kInvalidArgument, "host backend %lu lacks an id, init or execute",
                             static_cast<unsigned long>(i));
    }
    program.callbacks.emplace_back(new pte::python::CallbackBackend(callbacks));
    host.extra_backends.push_back(pte::ExtraBackend{callbacks.id, program.callbacks.back().get()});
  }
  return host;
}

int describe(pte::Result<const pte::Tensor*> tensor, PteTensorView* view, char* error, size_t capacity) {
  if (!tensor.ok()) return report(tensor.status(), error, capacity);
  const pte::Tensor& value = *tensor.value();
  *view = PteTensorView{static_cast<int32_t>(value.scalar_type), value.rank, value.sizes, value.data, value.nbytes};
  return 0;
}

}  // namespace

extern "C" int pte_host_program_load(const uint8_t* pte, size_t size, const PteLoadOptions* options,
                                     PteHostProgram** program, char* error, size_t error_capacity) {
  std::unique_ptr<PteHostProgram> loaded(new PteHostProgram());
  pte::Result<pte::HostProgramOptions> host = host_options(options, *loaded);
  if (!host.ok()) return report(host.status(), error, error_capacity);
  pte::Result<std::unique_ptr<pte::HostProgram>> result =
      pte::HostProgram::load(pte::Span<const uint8_t>(pte, size), host.value());
  if (!result.ok()) return report(result.status(), error, error_capacity);
  loaded->host = std::move(result).value();
  *program = loaded.release();
  return 0;
}

extern "C" void pte_host_program_free(PteHostProgram* program) { delete program; }

extern "C" size_t pte_host_program_input_count(const PteHostProgram* program) {
  return program->host->method().input_count();
}

extern "C" size_t pte_host_program_output_count(const PteHostProgram* program) {
  return program->host->method().output_count();
}

extern "C" int pte_host_program_input(const PteHostProgram* program, size_t index, PteTensorView* view, char* error,
                                      size_t error_capacity) {
  return describe(program->host->method().input_tensor(index), view, error, error_capacity);
}

extern "C" int pte_host_program_output(const PteHostProgram* program, size_t index, PteTensorView* view, char* error,
                                       size_t error_capacity) {
  return describe(program->host->method().output_tensor(index), view, error, error_capacity);
}

extern "C" int pte_host_program_set_input(PteHostProgram* program, size_t index, const void* data, size_t nbytes,
                                          char* error, size_t error_capacity) {
  const Status status =
      program->host->set_input(index, pte::Span<const uint8_t>(static_cast<const uint8_t*>(data), nbytes));
  return status.ok() ? 0 : report(status, error, error_capacity);
}

extern "C" int pte_host_program_execute(PteHostProgram* program, char* error, size_t error_capacity) {
  const Status status = program->host->execute();
  return status.ok() ? 0 : report(status, error, error_capacity);
}

extern "C" const char* pte_host_program_npu(const PteHostProgram* program) {
  const pte::npu_model::NpuArchitecture* npu = program->host->npu_architecture();
  return npu != nullptr ? npu->name : nullptr;
}

extern "C" size_t pte_host_program_arena_used(const PteHostProgram* program) {
  return program->host->runtime_arena().used();
}

#include "runtime/core/delegate_table.h"

#include "runtime/core/decimal_text.h"
#include "runtime/delegate/backend_registry.h"
#include "runtime/schema/program_generated.h"

namespace pte {
namespace fb = executorch_flatbuffer;
namespace {

Result<Span<const CompileSpec>> load_compile_specs(const fb::BackendDelegate& delegate, BumpArena& arena) {
  const auto* serialized = delegate.compile_specs();
  const size_t count = serialized ? serialized->size() : 0;
  PTE_ASSIGN_OR_RETURN(CompileSpec * specs, arena.allocate_array<CompileSpec>(count, "compile specs"));
  for (size_t i = 0; i < count; ++i) {
    const fb::CompileSpec* spec = serialized->Get(i);
    specs[i].key = spec->key() ? spec->key()->c_str() : "";
    specs[i].value = spec->value() ? Span<const uint8_t>(spec->value()->data(), spec->value()->size())
                                   : Span<const uint8_t>();
  }
  return Span<const CompileSpec>(specs, count);
}

Status init_delegate(const Program& program, const fb::BackendDelegate& serialized, size_t index,
                     const BackendRegistry& backends, BumpArena& arena, DelegateInstance& delegate) {
  if (serialized.id() == nullptr || serialized.processed() == nullptr) {
    return Status::failure(Error::kInvalidProgram, "the delegate has no backend id or no data reference");
  }
  const char* id = serialized.id()->c_str();
  Backend* backend = backends.find(id);
  if (backend == nullptr) {
    return Status::failure(Error::kBackendMissing,
                           "backend '%s' is not registered (%lu registered); link and register it", id,
                           as_ulong(backends.size()));
  }
  PTE_ASSIGN_OR_RETURN(const Span<const uint8_t> blob, program.delegate_blob(*serialized.processed()));
  PTE_ASSIGN_OR_RETURN(const Span<const CompileSpec> specs, load_compile_specs(serialized, arena));
  BackendInitContext context{arena, index};
  PTE_ASSIGN_OR_RETURN(void* handle, backend->init(context, blob, specs));
  delegate = DelegateInstance{backend, handle, id};
  return Status();
}

}  // namespace

Result<Span<DelegateInstance>> load_delegates(const Program& program, const fb::ExecutionPlan& plan,
                                              const BackendRegistry& backends, BumpArena& arena) {
  const auto* serialized = plan.delegates();
  const size_t count = serialized ? serialized->size() : 0;
  PTE_ASSIGN_OR_RETURN(DelegateInstance * delegates,
                       arena.allocate_array<DelegateInstance>(count, "delegate table"));
  const Span<DelegateInstance> table(delegates, count);
  for (size_t i = 0; i < count; ++i) {
    Status status = init_delegate(program, *serialized->Get(i), i, backends, arena, delegates[i]);
    if (!status.ok()) {
      destroy_delegates(table);
      const auto* id = serialized->Get(i)->id();
      return std::move(status).with_context("delegate %lu (%s)", as_ulong(i), id ? id->c_str() : "?");
    }
  }
  return table;
}

void destroy_delegates(Span<DelegateInstance> delegates) {
  for (DelegateInstance& delegate : delegates) {
    if (delegate.backend != nullptr) delegate.backend->destroy(delegate.handle);
    delegate.backend = nullptr;
  }
}

}  // namespace pte

// The delegate backend interface: what a DelegateCall instruction runs. A backend is found by the id the
// .pte stores for the delegate ("EthosUBackend", "TOSABackend", "VgfBackend").
#pragma once

#include <cstdint>

#include "runtime/core/arena.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace pte {

// One key/value pair of the delegate's compile specs, as stored in the program.
struct CompileSpec {
  const char* key;
  Span<const uint8_t> value;
};

struct BackendInitContext {
  // Where the backend keeps its per-delegate state; it lives as long as the method.
  BumpArena& arena;
  // The delegate's index in the method, for messages.
  size_t delegate_index;
};

class Backend {
 public:
  // Checks and prepares the delegate's blob (which stays valid, in the program, for the method's life).
  // Returns the handle later passed to execute.
  virtual Result<void*> init(BackendInitContext& context, Span<const uint8_t> blob,
                             Span<const CompileSpec> compile_specs) = 0;
  // `args` are the DelegateCall's values: the delegate's inputs, then its outputs.
  virtual Status execute(void* handle, Span<EValue* const> args) = 0;
  // Releases what init acquired outside the arena (the arena itself is the caller's).
  virtual void destroy(void* handle) { (void)handle; }

 protected:
  // Backends are owned by the application, never deleted through this interface; a protected non-virtual
  // destructor keeps operator delete out of bare-metal links.
  ~Backend() = default;
};

}  // namespace pte

#include "runtime/core/error.h"

namespace pte {

const char* error_name(Error error) {
  switch (error) {
    case Error::kOk:
      return "Ok";
    case Error::kInvalidArgument:
      return "InvalidArgument";
    case Error::kInvalidProgram:
      return "InvalidProgram";
    case Error::kInvalidDelegateBlob:
      return "InvalidDelegateBlob";
    case Error::kOperatorMissing:
      return "OperatorMissing";
    case Error::kBackendMissing:
      return "BackendMissing";
    case Error::kNotFound:
      return "NotFound";
    case Error::kNotSupported:
      return "NotSupported";
    case Error::kArenaTooSmall:
      return "ArenaTooSmall";
    case Error::kInvalidState:
      return "InvalidState";
    case Error::kKernelFailed:
      return "KernelFailed";
    case Error::kDelegateFailed:
      return "DelegateFailed";
    case Error::kIoError:
      return "IoError";
  }
  return "Unknown";
}

}  // namespace pte

#include "runtime/core/evalue.h"

namespace pte {

const char* evalue_tag_name(EValueTag tag) {
  switch (tag) {
    case EValueTag::kNone:
      return "None";
    case EValueTag::kInt:
      return "Int";
    case EValueTag::kDouble:
      return "Double";
    case EValueTag::kBool:
      return "Bool";
    case EValueTag::kString:
      return "String";
    case EValueTag::kTensor:
      return "Tensor";
    case EValueTag::kIntList:
      return "IntList";
    case EValueTag::kDoubleList:
      return "DoubleList";
    case EValueTag::kBoolList:
      return "BoolList";
    case EValueTag::kTensorList:
      return "TensorList";
    case EValueTag::kOptionalTensorList:
      return "OptionalTensorList";
  }
  return "Unknown";
}

}  // namespace pte

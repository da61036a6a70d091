#include "runtime/kernels/kernel.h"

#include "runtime/core/decimal_text.h"

namespace pte {

Status KernelArgs::expect_count(size_t count) const {
  if (values_.size() == count) return Status();
  return Status::failure(Error::kInvalidProgram, "takes %lu arguments (with out and return), the call passes %lu",
                         as_ulong(count), as_ulong(values_.size()));
}

Result<const EValue*> KernelArgs::value(size_t index, EValueTag expected) const {
  if (index >= values_.size()) {
    return Status::failure(Error::kInvalidProgram, "argument %lu is missing (%lu given)", as_ulong(index),
                           as_ulong(values_.size()));
  }
  const EValue* value = values_[index];
  if (value->tag != expected) {
    return Status::failure(Error::kInvalidProgram, "argument %lu is %s, expected %s", as_ulong(index),
                           evalue_tag_name(value->tag), evalue_tag_name(expected));
  }
  return value;
}

Result<Tensor*> KernelArgs::tensor(size_t index) const {
  PTE_ASSIGN_OR_RETURN(const EValue* value, this->value(index, EValueTag::kTensor));
  Tensor* tensor = value->payload.tensor;
  if (tensor->data == nullptr && tensor->nbytes != 0) {
    return Status::failure(Error::kInvalidState, "argument %lu is a tensor without data (unbound input or freed)",
                           as_ulong(index));
  }
  return tensor;
}

Result<Tensor*> KernelArgs::out_tensor(size_t index) const {
  PTE_ASSIGN_OR_RETURN(Tensor* tensor, this->tensor(index));
  if (tensor->is_constant) {
    return Status::failure(Error::kInvalidProgram, "argument %lu is an output but holds a program constant",
                           as_ulong(index));
  }
  return tensor;
}

Result<Tensor*> KernelArgs::optional_tensor(size_t index) const {
  if (index < values_.size() && values_[index]->is_none()) return static_cast<Tensor*>(nullptr);
  return tensor(index);
}

Result<int64_t> KernelArgs::integer(size_t index) const {
  PTE_ASSIGN_OR_RETURN(const EValue* value, this->value(index, EValueTag::kInt));
  return value->payload.int_value;
}

Result<double> KernelArgs::real(size_t index) const {
  if (index < values_.size() && values_[index]->tag == EValueTag::kInt) {
    return static_cast<double>(values_[index]->payload.int_value);
  }
  PTE_ASSIGN_OR_RETURN(const EValue* value, this->value(index, EValueTag::kDouble));
  return value->payload.double_value;
}

Result<bool> KernelArgs::boolean(size_t index) const {
  PTE_ASSIGN_OR_RETURN(const EValue* value, this->value(index, EValueTag::kBool));
  return value->payload.bool_value;
}

Result<Span<const int64_t>> KernelArgs::int_list(size_t index) const {
  PTE_ASSIGN_OR_RETURN(const EValue* value, this->value(index, EValueTag::kIntList));
  return value->int_list();
}

Result<std::optional<Span<const int64_t>>> KernelArgs::optional_int_list(size_t index) const {
  if (index < values_.size() && values_[index]->is_none()) return std::optional<Span<const int64_t>>();
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> list, int_list(index));
  return std::optional<Span<const int64_t>>(list);
}

Result<ScalarType> KernelArgs::scalar_type(size_t index) const {
  PTE_ASSIGN_OR_RETURN(const int64_t code, integer(index));
  const ScalarType type = static_cast<ScalarType>(code);
  if (code < INT8_MIN || code > INT8_MAX || element_size(type) == 0) {
    return Status::failure(Error::kInvalidProgram, "argument %lu is not a known scalar type (%s)", as_ulong(index),
                           DecimalText(code).c_str());
  }
  return type;
}

Result<std::optional<ScalarType>> KernelArgs::optional_scalar_type(size_t index) const {
  if (index < values_.size() && values_[index]->is_none()) return std::optional<ScalarType>();
  PTE_ASSIGN_OR_RETURN(const ScalarType type, scalar_type(index));
  return std::optional<ScalarType>(type);
}

Result<std::optional<int64_t>> KernelArgs::optional_integer(size_t index) const {
  if (index < values_.size() && values_[index]->is_none()) return std::optional<int64_t>();
  PTE_ASSIGN_OR_RETURN(const int64_t value, integer(index));
  return std::optional<int64_t>(value);
}

Result<std::optional<Span<const double>>> KernelArgs::optional_double_list(size_t index) const {
  if (index < values_.size() && values_[index]->is_none()) return std::optional<Span<const double>>();
  PTE_ASSIGN_OR_RETURN(const EValue* value, this->value(index, EValueTag::kDoubleList));
  return std::optional<Span<const double>>(value->double_list());
}

Result<Scalar> KernelArgs::scalar(size_t index) const {
  if (index < values_.size()) {
    const EValue* value = values_[index];
    Scalar scalar;
    switch (value->tag) {
      case EValueTag::kBool:
        scalar.kind = Scalar::Kind::kBool;
        scalar.integer = value->payload.bool_value ? 1 : 0;
        return scalar;
      case EValueTag::kInt:
        scalar.kind = Scalar::Kind::kInt;
        scalar.integer = value->payload.int_value;
        return scalar;
      case EValueTag::kDouble:
        scalar.kind = Scalar::Kind::kDouble;
        scalar.real = value->payload.double_value;
        return scalar;
      default:
        return Status::failure(Error::kInvalidProgram, "argument %lu is %s, expected a Scalar (Bool, Int or Double)",
                               as_ulong(index), evalue_tag_name(value->tag));
    }
  }
  return Status::failure(Error::kInvalidProgram, "argument %lu is missing (%lu given)", as_ulong(index),
                         as_ulong(values_.size()));
}

Result<std::optional<Scalar>> KernelArgs::optional_scalar(size_t index) const {
  if (index < values_.size() && values_[index]->is_none()) return std::optional<Scalar>();
  PTE_ASSIGN_OR_RETURN(const Scalar value, scalar(index));
  return std::optional<Scalar>(value);
}

Result<const char*> KernelArgs::optional_string(size_t index) const {
  if (index < values_.size() && values_[index]->is_none()) return static_cast<const char*>(nullptr);
  PTE_ASSIGN_OR_RETURN(const EValue* value, this->value(index, EValueTag::kString));
  // The value table keeps strings NUL-terminated in the program's flatbuffer (flatbuffers always are).
  return value->string().data();
}

Result<Span<Tensor* const>> KernelArgs::tensor_list(size_t index) const {
  PTE_ASSIGN_OR_RETURN(const EValue* value, this->value(index, EValueTag::kTensorList));
  const Span<Tensor* const> tensors = value->tensor_list();
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i] == nullptr || (tensors[i]->data == nullptr && tensors[i]->nbytes != 0)) {
      return Status::failure(Error::kInvalidState, "argument %lu: tensor %lu of the list has no data",
                             as_ulong(index), as_ulong(i));
    }
  }
  return tensors;
}

Result<Span<Tensor* const>> KernelArgs::optional_tensor_list(size_t index) const {
  if (index < values_.size() && values_[index]->tag == EValueTag::kTensorList) return tensor_list(index);
  PTE_ASSIGN_OR_RETURN(const EValue* value, this->value(index, EValueTag::kOptionalTensorList));
  const Span<Tensor* const> tensors = value->tensor_list();
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i] != nullptr && tensors[i]->data == nullptr && tensors[i]->nbytes != 0) {
      return Status::failure(Error::kInvalidState, "argument %lu: tensor %lu of the list has no data",
                             as_ulong(index), as_ulong(i));
    }
  }
  return tensors;
}

}  // namespace pte

#include "runtime/core/value_table.h"

#include <cstring>

#include "runtime/core/checked_math.h"
#include "runtime/core/decimal_text.h"
#include "runtime/schema/program_generated.h"

namespace pte {
namespace fb = executorch_flatbuffer;
namespace {

struct TensorShape {
  const int32_t* sizes;
  const uint8_t* dim_order;
  uint32_t rank;
  size_t numel;
};

Result<TensorShape> read_shape(const fb::Tensor& serialized) {
  const auto* sizes = serialized.sizes();
  const auto* dim_order = serialized.dim_order();
  const uint32_t rank = sizes ? sizes->size() : 0;
  if (rank > kMaxRank) {
    return Status::failure(Error::kNotSupported, "rank %lu exceeds the runtime's limit of %lu", as_ulong(rank),
                           as_ulong(kMaxRank));
  }
  if ((dim_order ? dim_order->size() : 0) != rank) {
    return Status::failure(Error::kInvalidProgram, "dim_order has %lu entries for rank %lu",
                           as_ulong(dim_order ? dim_order->size() : 0), as_ulong(rank));
  }
  bool seen[kMaxRank] = {};
  // numel, and the product of the sizes with zeros counted as ones: the largest stride times its size.
  // Strides are int32, so that product must fit too, even when a zero-sized dim makes numel 0.
  int32_t numel = 1;
  int32_t extent = 1;
  for (uint32_t dim = 0; dim < rank; ++dim) {
    const uint8_t order = dim_order->Get(dim);
    if (order >= rank || seen[order]) {
      return Status::failure(Error::kInvalidProgram, "dim_order is not a permutation of 0..%lu",
                             as_ulong(rank - 1));
    }
    seen[order] = true;
    const int32_t size = sizes->Get(dim);
    if (size < 0) {
      return Status::failure(Error::kInvalidProgram, "size %ld of dim %lu is negative", static_cast<long>(size),
                             as_ulong(dim));
    }
    if (!checked_mul(numel, size, &numel) || !checked_mul(extent, size == 0 ? 1 : size, &extent)) {
      return Status::failure(Error::kInvalidProgram, "size %ld of dim %lu: the shape's strides overflow int32",
                             static_cast<long>(size), as_ulong(dim));
    }
  }
  return TensorShape{sizes ? sizes->data() : nullptr, dim_order ? dim_order->data() : nullptr, rank,
                     static_cast<size_t>(numel)};
}

Status check_supported_layout(const fb::Tensor& serialized) {
  if (serialized.storage_offset() != 0) {
    return Status::failure(Error::kNotSupported, "storage_offset %ld is not supported",
                           static_cast<long>(serialized.storage_offset()));
  }
  if (serialized.shape_dynamism() != fb::TensorShapeDynamism::STATIC) {
    return Status::failure(Error::kNotSupported, "dynamic shapes are not supported; export with static shapes");
  }
  const fb::ExtraTensorInfo* extra = serialized.extra_tensor_info();
  if (extra != nullptr && extra->location() == fb::TensorDataLocation::EXTERNAL) {
    return Status::failure(Error::kNotSupported, "data '%s' lives in an external .ptd file, which is not supported",
                           extra->fully_qualified_name() ? extra->fully_qualified_name()->c_str() : "");
  }
  return Status();
}

Status check_alignment(const void* data, size_t element_bytes) {
  if (reinterpret_cast<uintptr_t>(data) % element_bytes == 0) return Status();
  return Status::failure(Error::kInvalidProgram, "data at %p is not aligned to its %lu-byte elements", data,
                         as_ulong(element_bytes));
}

Result<void*> bind_data(const fb::Tensor& serialized, size_t nbytes, const Program& program,
                        const PlannedMemory& planned, bool* is_constant) {
  const fb::AllocationDetails* allocation = serialized.allocation_info();
  const uint32_t buffer_index = serialized.data_buffer_idx();
  *is_constant = false;
  if (allocation != nullptr) {
    PTE_ASSIGN_OR_RETURN(uint8_t* data, planned.locate(*allocation, nbytes));
    if (buffer_index != 0) {
      // A planned tensor with an initial value (e.g. a mutable buffer): copy it in.
      const fb::ExtraTensorInfo* extra = serialized.extra_tensor_info();
      const uint64_t table = extra ? extra->mutable_data_segments_idx() : 0;
      PTE_ASSIGN_OR_RETURN(const uint8_t* initial, program.mutable_initial_data(table, buffer_index, nbytes));
      std::memcpy(data, initial, nbytes);
    }
    return static_cast<void*>(data);
  }
  if (buffer_index != 0) {
    PTE_ASSIGN_OR_RETURN(const uint8_t* data, program.constant_data(buffer_index, nbytes));
    *is_constant = true;
    // Constants are never written: KernelArgs::out_tensor refuses them.
    return static_cast<void*>(const_cast<uint8_t*>(data));
  }
  // Neither planned nor constant: the caller binds it (an input) before execution.
  return static_cast<void*>(nullptr);
}

Result<Tensor*> load_tensor(const fb::Tensor& serialized, const Program& program, const PlannedMemory& planned,
                            BumpArena& arena) {
  const ScalarType type = static_cast<ScalarType>(serialized.scalar_type());
  const size_t element_bytes = element_size(type);
  if (element_bytes == 0) {
    return Status::failure(Error::kNotSupported, "scalar type %d is not supported",
                           static_cast<int>(serialized.scalar_type()));
  }
  PTE_RETURN_IF_ERROR(check_supported_layout(serialized));
  PTE_ASSIGN_OR_RETURN(const TensorShape shape, read_shape(serialized));
  // On 32-bit targets a corrupt size could wrap the byte count to something small that then passes the
  // bounds checks.
  size_t nbytes = 0;
  if (!checked_mul(shape.numel, element_bytes, &nbytes)) {
    return Status::failure(Error::kInvalidProgram, "%lu elements of %lu bytes overflow the address space",
                           as_ulong(shape.numel), as_ulong(element_bytes));
  }

  PTE_ASSIGN_OR_RETURN(Tensor * tensor, arena.allocate_array<Tensor>(1, "tensor"));
  PTE_ASSIGN_OR_RETURN(int32_t * strides, arena.allocate_array<int32_t>(shape.rank, "tensor strides"));
  PTE_RETURN_IF_ERROR(compute_strides(Span<const int32_t>(shape.sizes, shape.rank),
                                      Span<const uint8_t>(shape.dim_order, shape.rank), Span<int32_t>(strides, shape.rank)));
  tensor->scalar_type = type;
  tensor->rank = shape.rank;
  tensor->sizes = shape.sizes;
  tensor->dim_order = shape.dim_order;
  tensor->strides = strides;
  tensor->numel = shape.numel;
  tensor->nbytes = nbytes;
  PTE_ASSIGN_OR_RETURN(tensor->data, bind_data(serialized, tensor->nbytes, program, planned, &tensor->is_constant));
  if (tensor->data != nullptr) PTE_RETURN_IF_ERROR(check_alignment(tensor->data, element_bytes));
  return tensor;
}

Status load_scalar_or_tensor(const fb::EValue& serialized, const Program& program, const PlannedMemory& planned,
                             BumpArena& arena, EValue& value) {
  // The verifier accepts a union whose type is set but whose table is absent.
  if (serialized.val() == nullptr && serialized.val_type() != fb::KernelTypes::NONE &&
      serialized.val_type() != fb::KernelTypes::Null) {
    return Status::failure(Error::kInvalidProgram, "value of type %s has no payload",
                           fb::EnumNameKernelTypes(serialized.val_type()));
  }
  switch (serialized.val_type()) {
    case fb::KernelTypes::NONE:
    case fb::KernelTypes::Null:
      value.tag = EValueTag::kNone;
      return Status();
    case fb::KernelTypes::Int:
      value.tag = EValueTag::kInt;
      value.payload.int_value = serialized.val_as_Int()->int_val();
      return Status();
    case fb::KernelTypes::Bool:
      value.tag = EValueTag::kBool;
      value.payload.bool_value = serialized.val_as_Bool()->bool_val();
      return Status();
    case fb::KernelTypes::Double:
      value.tag = EValueTag::kDouble;
      value.payload.double_value = serialized.val_as_Double()->double_val();
      return Status();
    case fb::KernelTypes::String: {
      const auto* text = serialized.val_as_String()->string_val();
      value.tag = EValueTag::kString;
      value.payload.list = {text ? text->c_str() : "", text ? text->size() : 0};
      return Status();
    }
    case fb::KernelTypes::Tensor: {
      PTE_ASSIGN_OR_RETURN(Tensor * tensor, load_tensor(*serialized.val_as_Tensor(), program, planned, arena));
      value.tag = EValueTag::kTensor;
      value.payload.tensor = tensor;
      return Status();
    }
    case fb::KernelTypes::DoubleList: {
      const auto* items = serialized.val_as_DoubleList()->items();
      value.tag = EValueTag::kDoubleList;
      value.payload.list = {items ? items->data() : nullptr, items ? items->size() : 0};
      return Status();
    }
    case fb::KernelTypes::BoolList: {
      const auto* items = serialized.val_as_BoolList()->items();
      value.tag = EValueTag::kBoolList;
      value.payload.list = {items ? items->data() : nullptr, items ? items->size() : 0};
      return Status();
    }
    case fb::KernelTypes::IntList:
    case fb::KernelTypes::TensorList:
    case fb::KernelTypes::OptionalTensorList:
      // Their items refer to other values: resolved once every value exists.
      return Status();
  }
  return Status::failure(Error::kInvalidProgram, "unknown value type %d", static_cast<int>(serialized.val_type()));
}

Result<const EValue*> referenced_value(Span<EValue> values, int64_t index, EValueTag expected) {
  if (index < 0 || static_cast<uint64_t>(index) >= values.size()) {
    return Status::failure(Error::kInvalidProgram, "list item refers to value %s, out of range (%lu values)",
                           DecimalText(index).c_str(), as_ulong(values.size()));
  }
  const EValue& item = values[static_cast<size_t>(index)];
  if (item.tag != expected) {
    return Status::failure(Error::kInvalidProgram, "list item value %s is %s, expected %s",
                           DecimalText(index).c_str(), evalue_tag_name(item.tag), evalue_tag_name(expected));
  }
  return &item;
}

// IntList items are indices of Int values (ExecuTorch boxes them so symbolic ints could change); the
// shapes here are static, so the ints are read once, at load.
template <typename Index>
Status load_int_list(const flatbuffers::Vector<Index>* items, Span<EValue> values, BumpArena& arena, EValue& value) {
  const size_t count = items ? items->size() : 0;
  PTE_ASSIGN_OR_RETURN(int64_t * ints, arena.allocate_array<int64_t>(count, "int list"));
  for (size_t i = 0; i < count; ++i) {
    PTE_ASSIGN_OR_RETURN(const EValue* item, referenced_value(values, items->Get(i), EValueTag::kInt));
    ints[i] = item->payload.int_value;
  }
  value.tag = EValueTag::kIntList;
  value.payload.list = {ints, count};
  return Status();
}

Status load_tensor_list(const flatbuffers::Vector<int32_t>* items, bool optional, Span<EValue> values,
                        BumpArena& arena, EValue& value) {
  const size_t count = items ? items->size() : 0;
  PTE_ASSIGN_OR_RETURN(Tensor * *tensors, arena.allocate_array<Tensor*>(count, "tensor list"));
  for (size_t i = 0; i < count; ++i) {
    const int32_t index = items->Get(i);
    if (optional && index == -1) continue;  // None
    PTE_ASSIGN_OR_RETURN(const EValue* item, referenced_value(values, index, EValueTag::kTensor));
    tensors[i] = item->payload.tensor;
  }
  value.tag = optional ? EValueTag::kOptionalTensorList : EValueTag::kTensorList;
  value.payload.list = {tensors, count};
  return Status();
}

Status load_list(const fb::EValue& serialized, Span<EValue> values, BumpArena& arena, EValue& value) {
  switch (serialized.val_type()) {
    case fb::KernelTypes::IntList:
      return load_int_list(serialized.val_as_IntList()->items(), values, arena, value);
    case fb::KernelTypes::TensorList:
      return load_tensor_list(serialized.val_as_TensorList()->items(), false, values, arena, value);
    case fb::KernelTypes::OptionalTensorList:
      return load_tensor_list(serialized.val_as_OptionalTensorList()->items(), true, values, arena, value);
    default:
      return Status();
  }
}

}  // namespace

Result<Span<EValue>> load_value_table(const Program& program, const fb::ExecutionPlan& plan,
                                      const PlannedMemory& planned, BumpArena& arena) {
  const auto* serialized = plan.values();
  const size_t count = serialized ? serialized->size() : 0;
  PTE_ASSIGN_OR_RETURN(EValue * storage, arena.allocate_array<EValue>(count, "value table"));
  const Span<EValue> values(storage, count);
  for (size_t i = 0; i < count; ++i) {
    Status status = load_scalar_or_tensor(*serialized->Get(i), program, planned, arena, values[i]);
    if (!status.ok()) return std::move(status).with_context("value %lu", as_ulong(i));
  }
  for (size_t i = 0; i < count; ++i) {
    Status status = load_list(*serialized->Get(i), values, arena, values[i]);
    if (!status.ok()) return std::move(status).with_context("value %lu", as_ulong(i));
  }
  return values;
}

}  // namespace pte

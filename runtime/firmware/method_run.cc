#include "runtime/firmware/method_run.h"

#include <cstdio>

#include "runtime/core/decimal_text.h"
#include "runtime/core/method.h"
#include "runtime/core/program.h"
#include "runtime/runner/expected_output.h"
#include "runtime/runner/npy.h"

namespace pte {
namespace firmware {
namespace {

// Planned buffer i backs memory_id i + 1; each is as large as the method says and aligned for the NPU.
Result<Span<const Span<uint8_t>>> plan_buffers(const MethodMeta& meta, BumpArena& region, size_t* total) {
  const size_t count = meta.planned_buffer_count();
  PTE_ASSIGN_OR_RETURN(Span<uint8_t> * buffers, region.allocate_array<Span<uint8_t>>(count, "planned buffer table"));
  *total = 0;
  for (size_t i = 0; i < count; ++i) {
    const size_t size = meta.planned_buffer_size(i);
    PTE_ASSIGN_OR_RETURN(void* memory, region.allocate(size, kBufferAlignment, "planned buffer"));
    buffers[i] = Span<uint8_t>(static_cast<uint8_t*>(memory), size);
    *total += size;
  }
  return Span<const Span<uint8_t>>(buffers, count);
}

// The rest of the region, aligned.
Result<Span<uint8_t>> take_rest(BumpArena& region) {
  const size_t left = region.capacity() - region.used();
  const size_t size = left > kBufferAlignment ? left - kBufferAlignment : 0;
  PTE_ASSIGN_OR_RETURN(void* memory, region.allocate(size, kBufferAlignment, "runtime arena"));
  return Span<uint8_t>(static_cast<uint8_t*>(memory), size);
}

// The input's .npy must hold exactly the tensor's dtype and shape.
Status set_input(Method& method, size_t index, Span<const uint8_t> npy_file) {
  PTE_ASSIGN_OR_RETURN(const Tensor* tensor, method.input_tensor(index));
  PTE_ASSIGN_OR_RETURN(const npy::Header header, npy::parse_header(npy_file));
  bool same_shape = header.rank == tensor->rank;
  for (uint32_t dim = 0; same_shape && dim < tensor->rank; ++dim) same_shape = header.shape[dim] == tensor->sizes[dim];
  if (header.scalar_type != tensor->scalar_type || !same_shape ||
      npy_file.size() - header.data_offset != header.data_size) {
    return Status::failure(Error::kInvalidArgument,
                           "the .npy file is %s with %lu data bytes; the method wants %s %s (%lu bytes)",
                           scalar_type_name(header.scalar_type), as_ulong(npy_file.size() - header.data_offset),
                           scalar_type_name(tensor->scalar_type), ShapeText(*tensor).c_str(), as_ulong(tensor->nbytes));
  }
  return method.set_input(index, npy_file.subspan(header.data_offset, header.data_size));
}

// Every element of the input set to `value`: floats as they are, integers truncated, bools value != 0.
Status fill_input(Method& method, size_t index, float value) {
  PTE_ASSIGN_OR_RETURN(const Tensor* tensor, method.input_tensor(index));
  if (tensor->data == nullptr) {
    return Status::failure(Error::kInvalidState, "input %lu has no planned memory to fill", as_ulong(index));
  }
  for (size_t i = 0; i < tensor->numel; ++i) {
    switch (tensor->scalar_type) {
      case ScalarType::kFloat:
        tensor->data_as<float>()[i] = value;
        break;
      case ScalarType::kChar:
        tensor->data_as<int8_t>()[i] = static_cast<int8_t>(value);
        break;
      case ScalarType::kByte:
        tensor->data_as<uint8_t>()[i] = static_cast<uint8_t>(value);
        break;
      case ScalarType::kInt:
        tensor->data_as<int32_t>()[i] = static_cast<int32_t>(value);
        break;
      case ScalarType::kBool:
        tensor->data_as<uint8_t>()[i] = value != 0.0f ? 1 : 0;
        break;
      default:
        return Status::failure(Error::kNotSupported, "input %lu is %s; only float32, int8, uint8, int32 and bool "
                               "inputs can be filled", as_ulong(index), scalar_type_name(tensor->scalar_type));
    }
  }
  return Status();
}

Result<bool> output_matches(RunIo& io, const Tensor& output, size_t index, BumpArena& region) {
  PTE_ASSIGN_OR_RETURN(const Span<const uint8_t> expected, io.expected_output(index, region));
  PTE_ASSIGN_OR_RETURN(const OutputComparison comparison, compare_with_npy(output, expected));
  if (comparison.same) {
    std::printf("output %lu matches the expected output bit for bit\n", as_ulong(index));
  } else {
    std::fprintf(stderr, "output %lu differs from the expected output: %s\n", as_ulong(index), comparison.difference);
  }
  return comparison.same;
}

}  // namespace

Result<RunReport> run_method(RunIo& io, Span<uint8_t> region_memory, const KernelRegistry& kernels,
                             const BackendRegistry& backends, const RunOptions& options) {
  RunReport report;
  report.region_bytes = region_memory.size();
  const uint64_t load_start = options.read_ticks ? options.read_ticks() : 0;
  BumpArena region(region_memory);

  Result<Span<const uint8_t>> program_bytes = io.program(region);
  if (!program_bytes.ok()) return program_bytes.status().with_context("program");
  Result<Program> loaded = Program::load(program_bytes.value());
  if (!loaded.ok()) return loaded.status().with_context("program");
  const Program& program = loaded.value();
  PTE_ASSIGN_OR_RETURN(const MethodMeta meta, program.method_meta(options.method));
  if (options.fill_inputs && io.input_count() != 0) {
    return Status::failure(Error::kInvalidArgument, "inputs are either filled or given as files, not both");
  }
  if (!options.fill_inputs && io.input_count() != meta.input_count()) {
    return Status::failure(Error::kInvalidArgument, "method '%s' takes %lu inputs, %lu given", options.method,
                           as_ulong(meta.input_count()), as_ulong(io.input_count()));
  }
  // Files first, so that the runtime arena can take everything after the planned buffers.
  Span<const uint8_t> inputs[kMaxInputs];
  if (io.input_count() > kMaxInputs) {
    return Status::failure(Error::kNotSupported, "%lu inputs; this runner takes at most %lu",
                           as_ulong(io.input_count()), as_ulong(kMaxInputs));
  }
  for (size_t i = 0; i < io.input_count(); ++i) {
    Result<Span<const uint8_t>> input = io.input(i, region);
    if (!input.ok()) return input.status().with_context("input %lu", as_ulong(i));
    inputs[i] = input.value();
  }
  report.staged_bytes = region.used();

  Result<Span<const Span<uint8_t>>> planned = plan_buffers(meta, region, &report.planned_bytes);
  if (!planned.ok()) return planned.status().with_context("planned memory");
  PTE_ASSIGN_OR_RETURN(const Span<uint8_t> runtime_memory, take_rest(region));
  BumpArena runtime(runtime_memory);
  const MethodMemory memory{runtime, planned.value()};
  PTE_ASSIGN_OR_RETURN(Method method, Method::load(program, options.method, memory, kernels, backends));
  for (size_t i = 0; i < method.input_count(); ++i) {
    Status status = options.fill_inputs ? fill_input(method, i, options.fill_value) : set_input(method, i, inputs[i]);
    if (!status.ok()) return std::move(status).with_context("input %lu", as_ulong(i));
  }

  const uint64_t start = options.read_ticks ? options.read_ticks() : 0;
  report.load_ticks = start - load_start;
  PTE_RETURN_IF_ERROR(method.execute());
  report.execute_ticks = options.read_ticks ? options.read_ticks() - start : 0;
  report.runtime_arena_used = runtime.used();
  report.runtime_arena_capacity = runtime.capacity();

  if (io.expected_output_count() != 0 && io.expected_output_count() != method.output_count()) {
    return Status::failure(Error::kInvalidArgument, "method '%s' has %lu outputs, %lu expected outputs given",
                           method.name(), as_ulong(method.output_count()), as_ulong(io.expected_output_count()));
  }
  // Expected files are read into the arena's unused tail: the method is done with it.
  BumpArena spare(runtime_memory.subspan(runtime.used(), runtime_memory.size() - runtime.used()));
  for (size_t i = 0; i < method.output_count(); ++i) {
    PTE_ASSIGN_OR_RETURN(const Tensor* output, method.output_tensor(i));
    Status written = io.write_output(i, *output);
    if (!written.ok()) return std::move(written).with_context("output %lu", as_ulong(i));
    if (io.expected_output_count() == 0) continue;
    Result<bool> same = output_matches(io, *output, i, spare);
    if (!same.ok()) return same.status().with_context("expected output %lu", as_ulong(i));
    ++report.outputs_checked;
    report.outputs_differing += same.value() ? 0 : 1;
  }
  return report;
}

void print_report(const RunReport& report) {
  std::printf("memory region: %lu bytes: %lu staged (program and input files), %lu planned, runtime arena %lu used\n",
              as_ulong(report.region_bytes), as_ulong(report.staged_bytes), as_ulong(report.planned_bytes),
              as_ulong(report.runtime_arena_used));
  if (report.outputs_checked != 0) {
    std::printf("outputs: %lu of %lu match the expected outputs\n",
                as_ulong(report.outputs_checked - report.outputs_differing), as_ulong(report.outputs_checked));
  }
}

}  // namespace firmware
}  // namespace pte

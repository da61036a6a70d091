// Programs built here with the flatbuffers builder, for what ExecuTorch's exporter never writes but a
// .pte may still contain: inline constant buffers, FreeCall, jumps, out-of-range indices, dynamic shapes,
// external data and placements past a planned buffer.
#include <cstring>
#include <optional>
#include <vector>

#include "runtime/core/method.h"
#include "runtime/core/program.h"
#include "runtime/delegate/backend_registry.h"
#include "runtime/kernels/reference_kernels.h"
#include "runtime/runner/host_files.h"
#include "runtime/schema/program_generated.h"
#include "runtime/testing/unit_test.h"

namespace pte {
namespace {
namespace fb = executorch_flatbuffer;

// Values: 0 input a (float[2], planned at 0), 1 constant c = {10, 20} (inline constant buffer 1),
// 2 out (float[2], planned at out_offset), 3 Int 1 (alpha), 4 Bool false. One operator, aten::add.out.
// The chain: [free] add(a, c, alpha, out) [jump], as the knobs say.
struct Knobs {
  int32_t free_value = -1;           // a FreeCall of this value before the add
  int32_t add_out = 2;               // the add's out argument
  int32_t jump_before_add = -1;      // a JumpFalseCall on value 4 to this instruction, before the add
  uint32_t out_offset = 16;          // out's planned offset (the buffer is 32 bytes)
  fb::TensorShapeDynamism input_dynamism = fb::TensorShapeDynamism::STATIC;
  int32_t input_elements = 2;
  bool constant_is_external = false;
};

std::vector<uint8_t> build(const Knobs& knobs) {
  flatbuffers::FlatBufferBuilder builder;
  const std::vector<int32_t> sizes = {2};
  const std::vector<int32_t> input_sizes = {knobs.input_elements};
  const std::vector<uint8_t> dim_order = {0};
  auto tensor = [&](uint32_t data_buffer_idx, flatbuffers::Offset<fb::AllocationDetails> allocation,
                    fb::TensorShapeDynamism dynamism, flatbuffers::Offset<fb::ExtraTensorInfo> extra,
                    const std::vector<int32_t>* shape) {
    return fb::CreateEValue(builder, fb::KernelTypes::Tensor,
                            fb::CreateTensorDirect(builder, fb::ScalarType::FLOAT, 0, shape, &dim_order, false,
                                                   data_buffer_idx, allocation, 0, dynamism, extra)
                                .Union());
  };
  const auto external = knobs.constant_is_external
                            ? fb::CreateExtraTensorInfoDirect(builder, 0, "c", fb::TensorDataLocation::EXTERNAL)
                            : flatbuffers::Offset<fb::ExtraTensorInfo>();
  const std::vector<flatbuffers::Offset<fb::EValue>> values = {
      tensor(0, fb::CreateAllocationDetails(builder, 1, 0), knobs.input_dynamism, 0, &input_sizes),
      tensor(1, 0, fb::TensorShapeDynamism::STATIC, external, &sizes),
      tensor(0, fb::CreateAllocationDetails(builder, 1, knobs.out_offset), fb::TensorShapeDynamism::STATIC, 0,
             &sizes),
      fb::CreateEValue(builder, fb::KernelTypes::Int, fb::CreateInt(builder, 1).Union()),
      fb::CreateEValue(builder, fb::KernelTypes::Bool, fb::CreateBool(builder, false).Union()),
  };

  std::vector<flatbuffers::Offset<fb::Instruction>> instructions;
  if (knobs.free_value >= 0) {
    instructions.push_back(fb::CreateInstruction(builder, fb::InstructionArguments::FreeCall,
                                                 fb::CreateFreeCall(builder, knobs.free_value).Union()));
  }
  if (knobs.jump_before_add >= 0) {
    instructions.push_back(fb::CreateInstruction(builder, fb::InstructionArguments::JumpFalseCall,
                                                 fb::CreateJumpFalseCall(builder, 4, knobs.jump_before_add).Union()));
  }
  const std::vector<int32_t> add_args = {0, 1, 3, knobs.add_out, knobs.add_out};
  instructions.push_back(fb::CreateInstruction(builder, fb::InstructionArguments::KernelCall,
                                               fb::CreateKernelCallDirect(builder, 0, &add_args).Union()));
  const std::vector<flatbuffers::Offset<fb::Chain>> chains = {
      fb::CreateChainDirect(builder, nullptr, nullptr, &instructions)};
  const std::vector<flatbuffers::Offset<fb::Operator>> operators = {
      fb::CreateOperatorDirect(builder, "aten::add", "out")};
  const std::vector<int32_t> inputs = {0};
  const std::vector<int32_t> outputs = {2};
  const std::vector<int64_t> buffer_sizes = {0, 32};
  const std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plans = {fb::CreateExecutionPlanDirect(
      builder, "forward", 0, &values, &inputs, &outputs, &chains, &operators, nullptr, &buffer_sizes)};

  const float constant[2] = {10.f, 20.f};
  const std::vector<uint8_t> empty;
  const std::vector<uint8_t> constant_bytes(reinterpret_cast<const uint8_t*>(constant),
                                            reinterpret_cast<const uint8_t*>(constant) + sizeof(constant));
  const std::vector<flatbuffers::Offset<fb::Buffer>> buffers = {fb::CreateBufferDirect(builder, &empty),
                                                                fb::CreateBufferDirect(builder, &constant_bytes)};
  fb::FinishProgramBuffer(builder, fb::CreateProgramDirect(builder, 0, &plans, &buffers));
  return std::vector<uint8_t>(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
}

// A loaded handmade program with its memory; `status` says why loading failed, if it did.
struct Loaded {
  explicit Loaded(const Knobs& knobs) : Loaded(build(knobs)) {}
  explicit Loaded(const std::vector<uint8_t>& bytes)
      : pte(Span<const uint8_t>(bytes.data(), bytes.size())), runtime(4096), planned(32) {
    (void)register_reference_kernels(kernels);
    Result<Program> loaded_program = Program::load(pte.span());
    if (!loaded_program.ok()) {
      status = loaded_program.status();
      return;
    }
    program.emplace(std::move(loaded_program).value());
    planned_span = planned.span();
    Result<Method> loaded_method =
        Method::load(*program, "forward", MethodMemory{arena, Span<const Span<uint8_t>>(&planned_span, 1)}, kernels,
                     backends);
    if (!loaded_method.ok()) {
      status = loaded_method.status();
      return;
    }
    method.emplace(std::move(loaded_method).value());
  }
  Status run(float a0, float a1) {
    const float input[2] = {a0, a1};
    PTE_RETURN_IF_ERROR(method->set_input(0, Span<const uint8_t>(reinterpret_cast<const uint8_t*>(input), 8)));
    return method->execute();
  }
  std::vector<float> output() {
    const Tensor* tensor = method->output_tensor(0).value();
    return std::vector<float>(tensor->data_as<const float>(), tensor->data_as<const float>() + 2);
  }

  AlignedBuffer pte;
  AlignedBuffer runtime;
  AlignedBuffer planned;
  Span<uint8_t> planned_span;
  BumpArena arena{runtime.data(), runtime.size()};
  KernelRegistry kernels;
  BackendRegistry backends;
  std::optional<Program> program;
  std::optional<Method> method;
  Status status;
};

TEST(runs_with_an_inline_constant_buffer) {
  Loaded loaded{Knobs{}};
  EXPECT_OK(loaded.status);
  EXPECT_OK(loaded.run(1.f, 2.f));
  EXPECT_TRUE(loaded.output() == (std::vector<float>{11.f, 22.f}));
}

TEST(a_freed_tensor_has_no_data_for_the_next_kernel) {
  Knobs knobs;
  knobs.free_value = 0;
  Loaded loaded{knobs};
  EXPECT_OK(loaded.status);
  EXPECT_ERROR(loaded.run(1.f, 2.f), Error::kInvalidState,
               "instruction 1 (aten::add.out): argument 0 is a tensor without data");
  EXPECT_ERROR(loaded.method->execute(), Error::kInvalidState, "input 0 has no data");
}

TEST(freeing_a_non_tensor_is_an_invalid_program) {
  Knobs knobs;
  knobs.free_value = 3;
  Loaded loaded{knobs};
  EXPECT_OK(loaded.status);
  EXPECT_ERROR(loaded.run(1.f, 2.f), Error::kInvalidProgram, "frees value 3, which is Int, not a tensor");
}

TEST(a_false_jump_skips_to_its_destination) {
  Knobs knobs;
  knobs.jump_before_add = 2;  // one past the add: the end of the chain
  Loaded loaded{knobs};
  EXPECT_OK(loaded.status);
  EXPECT_OK(loaded.run(1.f, 2.f));
  EXPECT_TRUE(loaded.output() == (std::vector<float>{0.f, 0.f}));
}

TEST(indices_out_of_range_fail_the_load) {
  Knobs bad_argument;
  bad_argument.add_out = 99;
  EXPECT_ERROR(Loaded{bad_argument}.status, Error::kInvalidProgram,
               "chain 0 instruction 0: an argument refers to value 99, out of range (5 values)");
  Knobs bad_jump;
  bad_jump.jump_before_add = 7;
  EXPECT_ERROR(Loaded{bad_jump}.status, Error::kInvalidProgram, "jump destination 7 out of range (2 instructions)");
}

TEST(unsupported_tensors_fail_the_load) {
  Knobs dynamic;
  dynamic.input_dynamism = fb::TensorShapeDynamism::DYNAMIC_BOUND;
  EXPECT_ERROR(Loaded{dynamic}.status, Error::kNotSupported, "value 0: dynamic shapes are not supported");
  Knobs external;
  external.constant_is_external = true;
  EXPECT_ERROR(Loaded{external}.status, Error::kNotSupported, "value 1: data 'c' lives in an external .ptd file");
}

TEST(a_placement_past_the_planned_buffer_fails_the_load) {
  Knobs knobs;
  knobs.out_offset = 28;
  EXPECT_ERROR(Loaded{knobs}.status, Error::kInvalidProgram,
               "value 2: planned at [28, +8) in memory_id 1, beyond the buffer's 32 bytes");
}

TEST(a_huge_tensor_fails_the_load_on_every_target) {
  // 2^30 floats: 4 GiB, past the planned buffer on 64-bit hosts and past the address space on 32-bit ones.
  Knobs knobs;
  knobs.input_elements = 1 << 30;
  EXPECT_TRUE(Loaded{knobs}.status.code() == Error::kInvalidProgram);
  knobs.input_elements = -1;
  EXPECT_ERROR(Loaded{knobs}.status, Error::kInvalidProgram, "value 0: size -1 of dim 0 is negative");
}

}  // namespace
}  // namespace pte

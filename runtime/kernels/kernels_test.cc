// Reference kernels on hand-computed cases, and the errors they give for arguments that do not fit.
#include <cmath>
#include <cstring>
#include <vector>

#include "runtime/kernels/exp.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/reference_kernels.h"
#include "runtime/testing/test_values.h"
#include "runtime/testing/unit_test.h"

namespace pte {
namespace {

using testing::bool_value;
using testing::double_value;
using testing::int_value;
using testing::none_value;
using testing::TestIntList;
using testing::TestTensor;

// Calls `kernel` like a KernelCall does: the out tensor is passed twice (out argument and return).
Status call(KernelFn kernel, std::initializer_list<EValue*> values) {
  std::vector<EValue*> args(values);
  args.push_back(args.back());
  return kernel(KernelArgs(Span<EValue* const>(args.data(), args.size())));
}

TEST(registry_finds_kernels_by_program_names) {
  KernelRegistry registry;
  EXPECT_OK(register_reference_kernels(registry));
  EXPECT_TRUE(registry.find("aten::add", "out") == ops::add_out);
  EXPECT_TRUE(registry.find("quantized_decomposed::quantize_per_tensor", "out") == ops::quantize_per_tensor_out);
  EXPECT_TRUE(registry.find("aten::add", "Scalar_out") == ops::add_scalar_out);
  EXPECT_TRUE(registry.find("aten::add", "Tensor_out") == nullptr);
  EXPECT_TRUE(registry.find("aten::add.out", "") == ops::add_out);
  EXPECT_ERROR(registry.add(Kernel{"aten::add.out", ops::add_out}), Error::kInvalidArgument, "registered twice");
}

TEST(add_broadcasts_and_scales_other_by_alpha) {
  TestTensor self({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  TestTensor other({3}, {10.f, 20.f, 30.f});
  TestTensor out(ScalarType::kFloat, {2, 3});
  EValue alpha = double_value(0.5);
  EXPECT_OK(call(ops::add_out, {self.value(), other.value(), &alpha, out.value()}));
  EXPECT_TRUE(out.values<float>() == (std::vector<float>{6.f, 12.f, 18.f, 9.f, 15.f, 21.f}));
}

TEST(add_rejects_shapes_that_do_not_broadcast) {
  TestTensor self({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  TestTensor other({2}, {1.f, 2.f});
  TestTensor out(ScalarType::kFloat, {2, 3});
  EValue alpha = int_value(1);
  EXPECT_ERROR(call(ops::add_out, {self.value(), other.value(), &alpha, out.value()}), Error::kKernelFailed,
               "an input of shape [2] does not broadcast to the output's [2, 3]");
}

TEST(mul_broadcasts_a_scalar_tensor) {
  TestTensor self({2, 2}, {1.f, -2.f, 3.f, -4.f});
  TestTensor other({}, {2.f});
  TestTensor out(ScalarType::kFloat, {2, 2});
  EXPECT_OK(call(ops::mul_out, {self.value(), other.value(), out.value()}));
  EXPECT_TRUE(out.values<float>() == (std::vector<float>{2.f, -4.f, 6.f, -8.f}));
}

TEST(mul_promotes_mixed_dtypes_as_pytorch_does) {
  TestTensor self({2}, {1.5f, 2.f});
  TestTensor other({2}, std::initializer_list<int32_t>{2, 3});
  TestTensor out(ScalarType::kFloat, {2});
  EXPECT_OK(call(ops::mul_out, {self.value(), other.value(), out.value()}));
  EXPECT_TRUE(out.values<float>() == (std::vector<float>{3.f, 6.f}));
  // A float result cannot be written to an integer out.
  TestTensor int_out(ScalarType::kInt, {2});
  EXPECT_ERROR(call(ops::mul_out, {self.value(), other.value(), int_out.value()}), Error::kKernelFailed,
               "the result is float32 and cannot be written to out, which is int32");
}

TEST(relu_zeroes_negatives) {
  TestTensor self({4}, {-1.f, 0.f, 2.f, -0.5f});
  TestTensor out(ScalarType::kFloat, {4});
  EXPECT_OK(call(ops::relu_out, {self.value(), out.value()}));
  EXPECT_TRUE(out.values<float>() == (std::vector<float>{0.f, 0.f, 2.f, 0.f}));
}

TEST(softmax_over_the_last_dim_sums_to_one) {
  TestTensor self({2, 3}, {1.f, 2.f, 3.f, 0.f, 0.f, 0.f});
  TestTensor out(ScalarType::kFloat, {2, 3});
  EValue dim = int_value(-1);
  EValue half_to_float = bool_value(false);
  EXPECT_OK(call(ops::softmax_out, {self.value(), &dim, &half_to_float, out.value()}));
  const std::vector<float> result = out.values<float>();
  const float e1 = portable_exp(-2.f), e2 = portable_exp(-1.f);
  EXPECT_TRUE(result[2] == 1.f / (e1 + e2 + 1.f));
  EXPECT_TRUE(result[3] == 1.f / 3.f);
}

// Expected bits from mpmath at 300 bits, rounded to float. -0x1.9424fcp-14 is one of the inputs glibc's
// expf rounds the other way (0x1.fff36p-1).
TEST(portable_exp_is_correctly_rounded) {
  EXPECT_TRUE(portable_exp(0.f) == 1.f);
  EXPECT_TRUE(portable_exp(-0x1.9424fcp-14f) == 0x1.fff35ep-1f);
  EXPECT_TRUE(portable_exp(1.f) == 0x1.5bf0a8p+1f);
  EXPECT_TRUE(portable_exp(-1.f) == 0x1.78b564p-2f);
  EXPECT_TRUE(portable_exp(10.5f) == 0x1.1bb702p+15f);
  EXPECT_TRUE(portable_exp(0x1.fffffep-25f) == 1.f);
  EXPECT_TRUE(portable_exp(0x1p-24f) == 0x1.000002p+0f);
  // The ends of the range: the largest finite result, a subnormal one, and what rounds to 0 or +inf.
  EXPECT_TRUE(portable_exp(0x1.62e42ep+6f) == 0x1.ffff08p+127f);
  EXPECT_TRUE(portable_exp(-100.f) == 0x1.bp-145f);
  EXPECT_TRUE(portable_exp(-104.f) == 0.f);
  EXPECT_TRUE(portable_exp(0x1.62e430p+6f) == INFINITY);
  EXPECT_TRUE(portable_exp(-INFINITY) == 0.f);
  EXPECT_TRUE(portable_exp(NAN) != portable_exp(NAN));
}

TEST(softmax_over_the_first_dim) {
  TestTensor self({2, 2}, {0.f, 5.f, 0.f, 5.f});
  TestTensor out(ScalarType::kFloat, {2, 2});
  EValue dim = int_value(0);
  EValue half_to_float = bool_value(false);
  EXPECT_OK(call(ops::softmax_out, {self.value(), &dim, &half_to_float, out.value()}));
  EXPECT_TRUE(out.values<float>() == (std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f}));
}

TEST(softmax_rejects_an_out_of_range_dim) {
  TestTensor self({2, 2}, {0.f, 5.f, 0.f, 5.f});
  TestTensor out(ScalarType::kFloat, {2, 2});
  EValue dim = int_value(2);
  EValue half_to_float = bool_value(false);
  EXPECT_ERROR(call(ops::softmax_out, {self.value(), &dim, &half_to_float, out.value()}), Error::kKernelFailed,
               "dim 2 is out of range for rank 2");
}

TEST(convolution_with_padding_stride_and_bias) {
  // 1x1x3x3 input, one 2x2 kernel of ones, padding 1, stride 2 -> 1x1x2x2.
  TestTensor input({1, 1, 3, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f, 9.f});
  TestTensor weight({1, 1, 2, 2}, {1.f, 1.f, 1.f, 1.f});
  TestTensor bias({1}, {100.f});
  TestIntList stride({2, 2}), padding({1, 1}), dilation({1, 1}), output_padding({0, 0});
  EValue transposed = bool_value(false);
  EValue groups = int_value(1);
  TestTensor out(ScalarType::kFloat, {1, 1, 2, 2});
  EXPECT_OK(call(ops::convolution_out, {input.value(), weight.value(), bias.value(), stride.value(), padding.value(),
                                        dilation.value(), &transposed, output_padding.value(), &groups, out.value()}));
  EXPECT_TRUE(out.values<float>() == (std::vector<float>{101.f, 105.f, 111.f, 128.f}));
}

TEST(convolution_groups_split_channels) {
  // Depthwise: 2 channels, 1x1 kernels scaling channel 0 by 2 and channel 1 by 3.
  TestTensor input({1, 2, 1, 2}, {1.f, 2.f, 3.f, 4.f});
  TestTensor weight({2, 1, 1, 1}, {2.f, 3.f});
  EValue bias = none_value();
  TestIntList stride({1}), padding({0}), dilation({1}), output_padding({0});
  EValue transposed = bool_value(false);
  EValue groups = int_value(2);
  TestTensor out(ScalarType::kFloat, {1, 2, 1, 2});
  EXPECT_OK(call(ops::convolution_out, {input.value(), weight.value(), &bias, stride.value(), padding.value(),
                                        dilation.value(), &transposed, output_padding.value(), &groups, out.value()}));
  EXPECT_TRUE(out.values<float>() == (std::vector<float>{2.f, 4.f, 9.f, 12.f}));
}

TEST(convolution_checks_the_output_shape) {
  TestTensor input({1, 1, 3, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f, 9.f});
  TestTensor weight({1, 1, 2, 2}, {1.f, 1.f, 1.f, 1.f});
  EValue bias = none_value();
  TestIntList stride({1, 1}), padding({0, 0}), dilation({1, 1}), output_padding({0, 0});
  EValue transposed = bool_value(false);
  EValue groups = int_value(1);
  TestTensor out(ScalarType::kFloat, {1, 1, 3, 3});
  EXPECT_ERROR(call(ops::convolution_out, {input.value(), weight.value(), &bias, stride.value(), padding.value(),
                                           dilation.value(), &transposed, output_padding.value(), &groups,
                                           out.value()}),
               Error::kKernelFailed, "out has shape [1, 1, 3, 3], expected [1, 1, 2, 2]");
}

TEST(addmm_adds_a_broadcast_bias) {
  TestTensor bias({2}, {10.f, 20.f});
  TestTensor mat1({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  TestTensor mat2({3, 2}, {1.f, 0.f, 0.f, 1.f, 1.f, 1.f});
  EValue beta = int_value(1);
  EValue alpha = int_value(1);
  TestTensor out(ScalarType::kFloat, {2, 2});
  EXPECT_OK(call(ops::addmm_out, {bias.value(), mat1.value(), mat2.value(), &beta, &alpha, out.value()}));
  EXPECT_TRUE(out.values<float>() == (std::vector<float>{14.f, 25.f, 20.f, 31.f}));
}

TEST(mm_and_linear_agree) {
  TestTensor x({1, 2}, {1.f, 2.f});
  TestTensor w({3, 2}, {1.f, 0.f, 0.f, 1.f, 1.f, 1.f});
  TestTensor w_t({2, 3}, {1.f, 0.f, 1.f, 0.f, 1.f, 1.f});
  TestTensor bias({3}, {0.5f, 0.5f, 0.5f});
  TestTensor linear(ScalarType::kFloat, {1, 3});
  TestTensor mm(ScalarType::kFloat, {1, 3});
  EXPECT_OK(call(ops::linear_out, {x.value(), w.value(), bias.value(), linear.value()}));
  EXPECT_OK(call(ops::mm_out, {x.value(), w_t.value(), mm.value()}));
  EXPECT_TRUE(linear.values<float>() == (std::vector<float>{1.5f, 2.5f, 3.5f}));
  EXPECT_TRUE(mm.values<float>() == (std::vector<float>{1.f, 2.f, 3.f}));
}

TEST(view_copy_keeps_elements_and_checks_count) {
  TestTensor self({2, 3}, std::initializer_list<int32_t>{1, 2, 3, 4, 5, 6});
  TestIntList size({3, -1});
  TestTensor out(ScalarType::kInt, {3, 2});
  EXPECT_OK(call(ops::view_copy_out, {self.value(), size.value(), out.value()}));
  EXPECT_TRUE(out.values<int32_t>() == (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  TestTensor wrong(ScalarType::kInt, {4});
  TestIntList wrong_size({4});
  EXPECT_ERROR(call(ops::view_copy_out, {self.value(), wrong_size.value(), wrong.value()}), Error::kKernelFailed,
               "cannot view [2, 3] (6 elements) as [4]");
}

TEST(permute_copy_moves_dims) {
  TestTensor self({2, 3}, std::initializer_list<int32_t>{1, 2, 3, 4, 5, 6});
  TestIntList dims({1, 0});
  TestTensor out(ScalarType::kInt, {3, 2});
  EXPECT_OK(call(ops::permute_copy_out, {self.value(), dims.value(), out.value()}));
  EXPECT_TRUE(out.values<int32_t>() == (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  TestIntList repeated({0, 0});
  EXPECT_ERROR(call(ops::permute_copy_out, {self.value(), repeated.value(), out.value()}), Error::kKernelFailed,
               "repeats a dim");
}

TEST(clone_dim_order_converts_to_channels_last) {
  // NCHW [1, 2, 1, 2] -> NHWC memory (dim order 0, 2, 3, 1).
  TestTensor self({1, 2, 1, 2}, std::initializer_list<int32_t>{1, 2, 3, 4});
  EValue non_blocking = bool_value(false);
  TestIntList dim_order({0, 2, 3, 1});
  TestTensor out(ScalarType::kInt, {1, 2, 1, 2}, {0, 2, 3, 1});
  EXPECT_OK(call(ops::clone_dim_order_out, {self.value(), &non_blocking, dim_order.value(), out.value()}));
  EXPECT_TRUE(out.values<int32_t>() == (std::vector<int32_t>{1, 3, 2, 4}));
}

TEST(quantize_per_tensor_rounds_half_to_even_and_clamps) {
  TestTensor input({5}, {0.25f, 0.75f, -0.25f, 100.f, -100.f});
  EValue scale = double_value(0.5);
  EValue zero_point = int_value(1);
  EValue quant_min = int_value(-128), quant_max = int_value(127);
  EValue dtype = int_value(static_cast<int64_t>(ScalarType::kChar));
  TestTensor out(ScalarType::kChar, {5});
  EXPECT_OK(call(ops::quantize_per_tensor_out,
                 {input.value(), &scale, &zero_point, &quant_min, &quant_max, &dtype, out.value()}));
  // 0.25 / 0.5 = 0.5 -> 0 (half to even); 1.5 -> 2; -0.5 -> -0; then + 1.
  EXPECT_TRUE(out.values<int8_t>() == (std::vector<int8_t>{1, 3, 1, 127, -128}));
}

TEST(quantize_per_tensor_checks_the_range_against_dtype) {
  TestTensor input({1}, {0.f});
  EValue scale = double_value(1.0);
  EValue zero_point = int_value(0);
  EValue quant_min = int_value(0), quant_max = int_value(300);
  EValue dtype = int_value(static_cast<int64_t>(ScalarType::kByte));
  TestTensor out(ScalarType::kByte, {1});
  EXPECT_ERROR(call(ops::quantize_per_tensor_out,
                    {input.value(), &scale, &zero_point, &quant_min, &quant_max, &dtype, out.value()}),
               Error::kKernelFailed, "quant range [0, 300] does not fit uint8");
}

TEST(dequantize_per_tensor_inverts_quantize) {
  TestTensor input({3}, std::initializer_list<int8_t>{-128, 0, 127});
  EValue scale = double_value(0.25);
  EValue zero_point = int_value(-1);
  EValue quant_min = int_value(-128), quant_max = int_value(127);
  EValue dtype = int_value(static_cast<int64_t>(ScalarType::kChar));
  EValue out_dtype = none_value();
  TestTensor out(ScalarType::kFloat, {3});
  EXPECT_OK(call(ops::dequantize_per_tensor_out,
                 {input.value(), &scale, &zero_point, &quant_min, &quant_max, &dtype, &out_dtype, out.value()}));
  EXPECT_TRUE(out.values<float>() == (std::vector<float>{-31.75f, 0.25f, 32.f}));
}

TEST(per_channel_quantization_round_trips_along_axis_0) {
  TestTensor input({2, 2}, {1.f, -1.f, 10.f, -10.f});
  TestTensor scales({2}, {0.5, 5.0});
  TestTensor zero_points({2}, std::initializer_list<int64_t>{0, 2});
  EValue axis = int_value(0);
  EValue quant_min = int_value(-127), quant_max = int_value(127);
  EValue dtype = int_value(static_cast<int64_t>(ScalarType::kChar));
  TestTensor quantized(ScalarType::kChar, {2, 2});
  EXPECT_OK(call(ops::quantize_per_channel_out, {input.value(), scales.value(), zero_points.value(), &axis,
                                                 &quant_min, &quant_max, &dtype, quantized.value()}));
  EXPECT_TRUE(quantized.values<int8_t>() == (std::vector<int8_t>{2, -2, 4, 0}));

  // Dequantize with float32 scales and int32 zero points, the types ExecuTorch's pt2e flow emits.
  TestTensor float_scales({2}, {0.5f, 5.0f});
  TestTensor int_zero_points({2}, std::initializer_list<int32_t>{0, 2});
  EValue out_dtype = none_value();
  TestTensor restored(ScalarType::kFloat, {2, 2});
  EXPECT_OK(call(ops::dequantize_per_channel_out, {quantized.value(), float_scales.value(), int_zero_points.value(),
                                                   &axis, &quant_min, &quant_max, &dtype, &out_dtype,
                                                   restored.value()}));
  EXPECT_TRUE(restored.values<float>() == (std::vector<float>{1.f, -1.f, 10.f, -10.f}));
}

TEST(dequantize_per_channel_checks_the_scale_count) {
  TestTensor input({2, 2}, std::initializer_list<int8_t>{1, 2, 3, 4});
  TestTensor scales({3}, {1.f, 1.f, 1.f});
  EValue zero_points = none_value();
  EValue axis = int_value(1);
  EValue quant_min = int_value(-127), quant_max = int_value(127);
  EValue dtype = int_value(static_cast<int64_t>(ScalarType::kChar));
  EValue out_dtype = none_value();
  TestTensor out(ScalarType::kFloat, {2, 2});
  EXPECT_ERROR(call(ops::dequantize_per_channel_out, {input.value(), scales.value(), &zero_points, &axis, &quant_min,
                                                      &quant_max, &dtype, &out_dtype, out.value()}),
               Error::kKernelFailed, "scales must be float32/float64 with 2 elements");
}

TEST(kernels_name_the_bad_argument) {
  TestTensor self({1}, {1.f});
  EValue not_a_tensor = int_value(3);
  TestTensor out(ScalarType::kFloat, {1});
  EXPECT_ERROR(call(ops::mul_out, {self.value(), &not_a_tensor, out.value()}), Error::kInvalidProgram,
               "argument 1 is Int, expected Tensor");
  EXPECT_ERROR(call(ops::relu_out, {self.value()}), Error::kInvalidProgram, "takes 3 arguments");
}

TEST(kernels_refuse_to_write_program_constants) {
  TestTensor self({1}, {1.f});
  TestTensor out(ScalarType::kFloat, {1});
  out.tensor().is_constant = true;
  EXPECT_ERROR(call(ops::relu_out, {self.value(), out.value()}), Error::kInvalidProgram, "holds a program constant");
}

TEST(reference_kernels_fit_the_registry_and_are_sorted_by_name) {
  KernelRegistry registry;
  EXPECT_OK(register_reference_kernels(registry));
  const Span<const Kernel> kernels = reference_kernels();
  EXPECT_TRUE(kernels.size() > 90);
  for (size_t i = 1; i < kernels.size(); ++i) EXPECT_TRUE(std::strcmp(kernels[i - 1].name, kernels[i].name) < 0);
}

TEST(kernels_name_a_dtype_they_do_not_take) {
  TestTensor self({2}, {true, false});
  TestTensor out(ScalarType::kBool, {2});
  EXPECT_ERROR(call(ops::neg_out, {self.value(), out.value()}), Error::kNotSupported,
               "self is bool; this kernel takes float32 and the integer dtypes");
}

TEST(index_kernels_reject_out_of_range_and_non_integer_indices) {
  TestTensor self({2, 2}, {1.f, 2.f, 3.f, 4.f});
  EValue dim = int_value(0);
  TestTensor index({1}, std::initializer_list<int64_t>{2});
  TestTensor out(ScalarType::kFloat, {1, 2});
  EXPECT_ERROR(call(ops::index_select_out, {self.value(), &dim, index.value(), out.value()}), Error::kKernelFailed,
               "index 2 is out of range for dim 0 of [2, 2]");
  TestTensor float_index({1}, {0.f});
  EXPECT_ERROR(call(ops::index_select_out, {self.value(), &dim, float_index.value(), out.value()}),
               Error::kKernelFailed, "index is float32; indices are int64 or int32");
}

TEST(index_tensor_picks_rows_and_refuses_masks) {
  TestTensor self({3, 2}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  TestTensor rows({2}, std::initializer_list<int64_t>{2, -3});
  Tensor* indices[] = {&rows.tensor()};
  EValue list;
  list.tag = EValueTag::kOptionalTensorList;
  list.payload.list = {indices, 1};
  TestTensor out(ScalarType::kFloat, {2, 2});
  EXPECT_OK(call(ops::index_tensor_out, {self.value(), &list, out.value()}));
  EXPECT_TRUE(out.values<float>() == (std::vector<float>{5.f, 6.f, 1.f, 2.f}));
  TestTensor mask({3}, {true, false, true});
  indices[0] = &mask.tensor();
  EXPECT_ERROR(call(ops::index_tensor_out, {self.value(), &list, out.value()}), Error::kNotSupported,
               "masks give data-dependent shapes");
}

TEST(cat_checks_that_inputs_fill_out) {
  TestTensor a({1, 2}, {1.f, 2.f});
  TestTensor b({1, 3}, {3.f, 4.f, 5.f});
  Tensor* tensors[] = {&a.tensor(), &b.tensor()};
  EValue list;
  list.tag = EValueTag::kTensorList;
  list.payload.list = {tensors, 2};
  EValue dim = int_value(1);
  TestTensor out(ScalarType::kFloat, {1, 5});
  EXPECT_OK(call(ops::cat_out, {&list, &dim, out.value()}));
  EXPECT_TRUE(out.values<float>() == (std::vector<float>{1.f, 2.f, 3.f, 4.f, 5.f}));
  EValue rows = int_value(0);
  EXPECT_ERROR(call(ops::cat_out, {&list, &rows, out.value()}), Error::kKernelFailed,
               "a cat input of shape [1, 2] does not fit out [1, 5] along dim 0");
}

TEST(integer_floor_division_follows_python_and_refuses_zero) {
  TestTensor a({4}, std::initializer_list<int64_t>{7, -7, 7, 1});
  TestTensor b({4}, std::initializer_list<int64_t>{2, 2, -2, 0});
  TestTensor out(ScalarType::kLong, {4});
  EValue floor_mode;
  floor_mode.tag = EValueTag::kString;
  floor_mode.payload.list = {"floor", 5};
  EXPECT_ERROR(call(ops::div_out_mode, {a.value(), b.value(), &floor_mode, out.value()}), Error::kKernelFailed,
               "integer division by zero");
  EXPECT_TRUE((out.values<int64_t>() == std::vector<int64_t>{3, -4, -4, 0}));
}

}  // namespace
}  // namespace pte

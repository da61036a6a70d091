// EthosUBackend on the host through NpuModelDriver: a real Ethos-U55-128 .pte (conv + ReLU delegated by
// the repository's flow) loads, its delegate runs on the NPU model, and the dequantized outputs are
// ReLU'd, vary across the feature map and repeat exactly on a second run. (Bit-exactness of the command
// stream itself against the TOSA reference model is //arm/ethosu/npu_model:op_cases_test's job.)
#include <vector>

#include "runtime/npu_model/npu_model_driver.h"
#include "runtime/testing/method_harness.h"
#include "runtime/testing/unit_test.h"

namespace pte {
namespace npu_model {
namespace {

using testing::fill_inputs;
using testing::MethodHarness;

constexpr const char* kEthosUProgram = "runtime/testdata/tiny_conv_u55.pte";

// The tiny conv needs the weight decoder's scratch (256 KiB) and a few KiB more.
uint8_t g_work[1 << 20];

std::vector<float> run_once(MethodHarness& harness, const Program& program, float input) {
  Result<Method> method = harness.load(program);
  EXPECT_OK(method.status());
  if (!method.ok()) return {};
  EXPECT_OK(fill_inputs(method.value(), input));
  EXPECT_OK(method.value().execute());
  Result<const Tensor*> output = method.value().output_tensor(0);
  EXPECT_OK(output.status());
  if (!output.ok()) return {};
  const float* values = output.value()->data_as<const float>();
  return std::vector<float>(values, values + output.value()->numel);
}

TEST(the_tiny_conv_delegate_runs_on_the_npu_model) {
  static NpuModelDriver driver(*ethos_u55(128), Span<uint8_t>(g_work, sizeof(g_work)));
  MethodHarness harness(testing::read_test_file(kEthosUProgram), &driver);
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  const std::vector<float> first = run_once(harness, program, 0.25f);
  const std::vector<float> second = run_once(harness, program, 0.25f);
  EXPECT_TRUE(!first.empty() && first == second);
  bool varies = false;
  for (float value : first) {
    EXPECT_TRUE(value >= 0.0f);
    varies |= value != first[0];
  }
  EXPECT_TRUE(varies);
  // Another input changes the outputs: the delegate reads the inputs the backend placed in scratch.
  EXPECT_TRUE(run_once(harness, program, -0.75f) != first);
}

}  // namespace
}  // namespace npu_model
}  // namespace pte

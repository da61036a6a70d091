// Runs every program of a kernel_programs directory (its manifest.txt lists them) on our runtime and
// compares each output with ExecuTorch's host runtime's, bit for bit: one process for all the CPU kernel
// programs, on the host, on QEMU's Corstone-300 (files over semihosting) and under qemu-aarch64.
//
//   kernel_programs_test --programs DIR --expected DIR [--skip PROGRAM]...
//
// A manifest line is `<program> <inputs> <tolerance>`. A tolerance > 0 marks a program whose op ExecuTorch's
// host runtime serves with an optimized kernel (libexecutorch_kernels_optimized: vectorized erf, gemm,
// x * (1 / b)) rather than the portable one ours follows: each float output element may then differ from
// ExecuTorch's by tolerance * max(1, |ExecuTorch's|) and no more, with dtype and shape still exact
// (kernel_programs.py says why for each). A tolerance of 0 means bit for bit. <libm> 1 marks a program
// whose kernels call libm's sinf, cosf, logf, ...: bit for bit against glibc (ExecuTorch's host runtime
// links it), held to kOtherLibmTolerance where another libm (newlib, musl) may round an ulp apart.
//
// Exit status 0 when every program matches, 1 otherwise (each difference or error is printed).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/core/decimal_text.h"
#include "runtime/runner/expected_output.h"
#include "runtime/runner/npy.h"
#include "runtime/testing/method_harness.h"

namespace pte {
namespace {

#if defined(__GLIBC__)
constexpr double kOtherLibmTolerance = 0.0;
#else
constexpr double kOtherLibmTolerance = 2.4e-7;
#endif

struct Entry {
  std::string name;
  size_t inputs = 0;
  double tolerance = 0.0;
};

// For a program with a tolerance: float32 outputs near ExecuTorch's, same shape. `worst` gets the
// largest scaled difference.
Status compare_within_tolerance(const Tensor& output, Span<const uint8_t> expected_npy, double tolerance,
                                double* worst) {
  PTE_ASSIGN_OR_RETURN(const npy::Array expected, npy::parse(expected_npy));
  if (output.scalar_type != ScalarType::kFloat || expected.scalar_type != ScalarType::kFloat ||
      expected.data.size() != output.nbytes || expected.shape.size() != output.rank) {
    return Status::failure(Error::kKernelFailed, "output is %s %s; ExecuTorch's is %s with %lu bytes",
                           scalar_type_name(output.scalar_type), ShapeText(output).c_str(),
                           scalar_type_name(expected.scalar_type), as_ulong(expected.data.size()));
  }
  for (size_t i = 0; i < output.numel; ++i) {
    float want;
    std::memcpy(&want, expected.data.data() + i * sizeof(float), sizeof(float));
    const double have = output.data_as<const float>()[i];
    const double scale = std::fabs(static_cast<double>(want)) > 1.0 ? std::fabs(static_cast<double>(want)) : 1.0;
    const double difference = std::fabs(have - want) / scale;
    // NaN never passes.
    if (!(difference <= tolerance)) {
      return Status::failure(Error::kKernelFailed, "element %lu is %.9g, ExecuTorch's %.9g (tolerance %g)", as_ulong(i),
                             have, static_cast<double>(want), tolerance);
    }
    if (difference > *worst) *worst = difference;
  }
  return Status();
}

Result<std::vector<Entry>> read_manifest(const std::string& path) {
  PTE_ASSIGN_OR_RETURN(const std::vector<uint8_t> bytes, read_file(path));
  std::vector<Entry> entries;
  const std::string text(bytes.begin(), bytes.end());
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    const size_t space = line.find(' ');
    if (line.empty()) continue;
    if (space == std::string::npos) {
      return Status::failure(Error::kInvalidArgument, "manifest line '%s' is not '<program> <inputs>'", line.c_str());
    }
    Entry entry{line.substr(0, space), 0, 0.0};
    char* rest = nullptr;
    entry.inputs = std::strtoul(line.c_str() + space + 1, &rest, 10);
    entry.tolerance = std::strtod(rest, &rest);
    const bool libm = std::strtoul(rest, nullptr, 10) != 0;
    if (libm && entry.tolerance < kOtherLibmTolerance) entry.tolerance = kOtherLibmTolerance;
    entries.push_back(entry);
  }
  return entries;
}

// Ok when every output matches; kKernelFailed naming the first difference otherwise. `worst` gets the
// largest scaled difference seen in a program with a tolerance.
Status run_program(const Entry& entry, const std::string& programs, const std::string& expected, double* worst) {
  const std::vector<uint8_t> pte = testing::read_test_file(programs + "/" + entry.name + ".pte");
  if (pte.empty()) return Status::failure(Error::kInvalidArgument, "cannot read %s.pte", entry.name.c_str());
  testing::MethodHarness harness(pte);
  PTE_ASSIGN_OR_RETURN(const Program program, Program::load(harness.bytes()));
  PTE_ASSIGN_OR_RETURN(Method method, harness.load(program));
  if (method.input_count() != entry.inputs) {
    return Status::failure(Error::kInvalidArgument, "the method takes %lu inputs, the manifest says %lu",
                           as_ulong(method.input_count()), as_ulong(entry.inputs));
  }
  for (size_t i = 0; i < entry.inputs; ++i) {
    const std::string path = programs + "/" + entry.name + "_input" + std::to_string(i) + ".npy";
    PTE_ASSIGN_OR_RETURN(const std::vector<uint8_t> file, read_file(path));
    PTE_ASSIGN_OR_RETURN(const npy::Array array, npy::parse(Span<const uint8_t>(file.data(), file.size())));
    PTE_RETURN_IF_ERROR(method.set_input(i, Span<const uint8_t>(array.data.data(), array.data.size())));
  }
  PTE_RETURN_IF_ERROR(method.execute());
  for (size_t i = 0; i < method.output_count(); ++i) {
    PTE_ASSIGN_OR_RETURN(const Tensor* output, method.output_tensor(i));
    const std::string path = expected + "/" + entry.name + "_expected" + std::to_string(i) + ".npy";
    PTE_ASSIGN_OR_RETURN(const std::vector<uint8_t> file, read_file(path));
    if (entry.tolerance > 0) {
      PTE_RETURN_IF_ERROR(
          compare_within_tolerance(*output, Span<const uint8_t>(file.data(), file.size()), entry.tolerance, worst));
      continue;
    }
    PTE_ASSIGN_OR_RETURN(const OutputComparison comparison,
                         compare_with_npy(*output, Span<const uint8_t>(file.data(), file.size())));
    if (!comparison.same) {
      return Status::failure(Error::kKernelFailed, "output %lu differs from ExecuTorch's: %s", as_ulong(i),
                             comparison.difference);
    }
  }
  return Status();
}

}  // namespace
}  // namespace pte

int main(int argc, char** argv) {
  std::string programs;
  std::string expected;
  std::vector<std::string> skipped;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--programs") == 0) programs = argv[i + 1];
    if (std::strcmp(argv[i], "--expected") == 0) expected = argv[i + 1];
    if (std::strcmp(argv[i], "--skip") == 0) skipped.push_back(argv[i + 1]);
  }
  if (programs.empty() || expected.empty()) {
    std::fputs("usage: kernel_programs_test --programs DIR --expected DIR [--skip PROGRAM]...\n", stderr);
    return 2;
  }
  pte::Result<std::vector<pte::Entry>> entries = pte::read_manifest(programs + "/manifest.txt");
  if (!entries.ok()) {
    std::fprintf(stderr, "error: %s\n", entries.status().message());
    return 1;
  }
  size_t failures = 0;
  size_t checked = 0;
  for (const pte::Entry& entry : entries.value()) {
    bool skip = false;
    for (const std::string& name : skipped) skip = skip || name == entry.name;
    if (skip) {
      std::printf("SKIP %s\n", entry.name.c_str());
      continue;
    }
    double worst = 0;
    const pte::Status status = pte::run_program(entry, programs, expected, &worst);
    ++checked;
    if (status.ok() && entry.tolerance > 0) {
      // Scaled by 1e9 as an integer: newlib-nano's printf has no %g.
      std::printf("ok   %s (within a tolerance: largest difference %lu e-9, allowed %lu e-9)\n",
                  entry.name.c_str(), static_cast<unsigned long>(worst * 1e9),
                  static_cast<unsigned long>(entry.tolerance * 1e9));
    } else if (status.ok()) {
      std::printf("ok   %s\n", entry.name.c_str());
    } else {
      ++failures;
      std::printf("FAIL %s: %s: %s\n", entry.name.c_str(), pte::error_name(status.code()), status.message());
    }
  }
  std::printf("%lu of %lu programs match ExecuTorch (bit for bit unless a tolerance is printed)\n", static_cast<unsigned long>(checked - failures),
              static_cast<unsigned long>(checked));
  return failures == 0 && checked > 0 ? 0 : 1;
}

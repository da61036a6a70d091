// Runs every program of a kernel_programs directory (its manifest.txt lists them) on our runtime and
// compares each output with ExecuTorch's host runtime's, bit for bit: one process for all the CPU kernel
// programs, on the host, on QEMU's Corstone-300 (files over semihosting) and under qemu-aarch64.
//
//   kernel_programs_test --programs DIR --expected DIR [--skip PROGRAM]...
//
// Exit status 0 when every program matches, 1 otherwise (each difference or error is printed).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/core/decimal_text.h"
#include "runtime/runner/expected_output.h"
#include "runtime/runner/npy.h"
#include "runtime/testing/method_harness.h"

namespace pte {
namespace {

struct Entry {
  std::string name;
  size_t inputs = 0;
};

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
    entries.push_back(Entry{line.substr(0, space), static_cast<size_t>(std::atoi(line.c_str() + space + 1))});
  }
  return entries;
}

// Ok when every output matches; kKernelFailed naming the first difference otherwise.
Status run_program(const Entry& entry, const std::string& programs, const std::string& expected) {
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
    const pte::Status status = pte::run_program(entry, programs, expected);
    ++checked;
    if (status.ok()) {
      std::printf("ok   %s\n", entry.name.c_str());
    } else {
      ++failures;
      std::printf("FAIL %s: %s: %s\n", entry.name.c_str(), pte::error_name(status.code()), status.message());
    }
  }
  std::printf("%lu of %lu programs match ExecuTorch bit for bit\n", static_cast<unsigned long>(checked - failures),
              static_cast<unsigned long>(checked));
  return failures == 0 && checked > 0 ? 0 : 1;
}

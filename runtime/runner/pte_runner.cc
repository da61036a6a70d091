// pte_runner: loads a .pte, feeds it inputs from .npy (or raw) files, runs its method once and writes
// each output as output<i>.npy. Ethos-U delegates run on the functional NPU model (runtime/npu_model) of
// the configuration their command stream was compiled for: no NPU driver can be attached on a Linux host,
// so a U55 or U85 program runs end to end here, bit for bit as the device computes it. Prints how much of
// the runtime arena and planned memory the method used: the numbers to size a device build's arenas with.
// With --expected-output (one per output, in order) it also checks the outputs bit for bit against those
// .npy files.
//
//   pte_runner --model m.pte --input x.npy [--input y.raw ...] [--output-dir DIR] [--method forward]
//              [--npu model|driver|none] [--npu-work-bytes N]
//              [--runtime-arena-bytes N] [--planned-buffer-bytes N] [--expected-output e.npy ...]
//
// Flags take their value as the next argument or after '=' (--npu=model).
// Exit status: 0 on success, 1 when the runtime reports an error (printed with its code), 2 on usage errors,
// 3 when an output differs from its expected file.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/decimal_text.h"
#include "runtime/core/method.h"
#include "runtime/runner/expected_output.h"
#include "runtime/runner/host_files.h"
#include "runtime/runner/host_program.h"
#include "runtime/runner/npy.h"

namespace pte {
namespace {

struct Options {
  std::string model;
  std::vector<std::string> inputs;
  std::vector<std::string> expected_outputs;
  std::string output_dir = ".";
  HostProgramOptions program;
};

constexpr const char* kUsage =
    "usage: pte_runner --model FILE.pte [--input FILE.npy|FILE.raw]... [--output-dir DIR] [--method NAME]\n"
    "                  [--npu model|driver|none] [--npu-work-bytes N]\n"
    "                  [--runtime-arena-bytes N] [--planned-buffer-bytes N] [--expected-output FILE.npy]...\n"
    "  --npu: where Ethos-U delegates run: 'model' (default; the functional NPU model of the configuration\n"
    "         each command stream was compiled for), 'driver' (a real NPU; none on a Linux host) or 'none'\n";

// A byte count: decimal digits only, so that "1M" or "-1" is a usage error rather than a surprise.
bool parse_count(const char* text, size_t* count) {
  if (*text == '\0') return false;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (*end != '\0' || text[0] == '-' || value > SIZE_MAX) return false;
  *count = static_cast<size_t>(value);
  return true;
}

// Applies one flag; false (with the reason on stderr) when the flag or its value is unknown.
bool apply_flag(const std::string& flag, const char* value, Options* options) {
  size_t count = 0;
  if (flag == "--model") {
    options->model = value;
  } else if (flag == "--method") {
    options->program.method = value;
  } else if (flag == "--input") {
    options->inputs.push_back(value);
  } else if (flag == "--expected-output") {
    options->expected_outputs.push_back(value);
  } else if (flag == "--output-dir") {
    options->output_dir = value;
  } else if (flag == "--npu") {
    if (!parse_npu_choice(value, &options->program.npu)) {
      std::fprintf(stderr, "error: --npu must be model, driver or none, not '%s'\n", value);
      return false;
    }
  } else if (flag == "--npu-work-bytes" || flag == "--runtime-arena-bytes" || flag == "--planned-buffer-bytes") {
    if (!parse_count(value, &count)) {
      std::fprintf(stderr, "error: %s wants a byte count, not '%s'\n", flag.c_str(), value);
      return false;
    }
    if (flag == "--npu-work-bytes") options->program.npu_work_bytes = count;
    if (flag == "--runtime-arena-bytes") options->program.runtime_arena_bytes = count;
    if (flag == "--planned-buffer-bytes") options->program.planned_buffer_bytes = static_cast<long>(count);
  } else {
    std::fprintf(stderr, "error: unknown flag '%s'\n", flag.c_str());
    return false;
  }
  return true;
}

bool parse_options(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    const size_t equals = flag.find('=');
    std::string inline_value;
    const char* value = nullptr;
    if (equals != std::string::npos) {
      inline_value = flag.substr(equals + 1);
      flag.resize(equals);
      value = inline_value.c_str();
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      std::fprintf(stderr, "error: %s needs a value\n", flag.c_str());
      return false;
    }
    if (!apply_flag(flag, value, options)) return false;
  }
  return !options->model.empty();
}

bool ends_with(const std::string& text, const char* suffix) {
  const size_t length = std::strlen(suffix);
  return text.size() >= length && text.compare(text.size() - length, length, suffix) == 0;
}

// A .npy input must match the tensor's dtype and element count; anything else is taken as raw bytes.
Result<std::vector<uint8_t>> input_bytes(const std::string& path, const Tensor& tensor, size_t index) {
  PTE_ASSIGN_OR_RETURN(std::vector<uint8_t> file, read_file(path));
  if (!ends_with(path, ".npy")) return file;
  PTE_ASSIGN_OR_RETURN(npy::Array array, npy::parse(Span<const uint8_t>(file.data(), file.size())));
  if (array.scalar_type != tensor.scalar_type || array.data.size() != tensor.nbytes) {
    return Status::failure(Error::kInvalidArgument, "input %lu ('%s') is %s with %lu bytes; the method wants %s %s",
                           as_ulong(index), path.c_str(), scalar_type_name(array.scalar_type),
                           as_ulong(array.data.size()), scalar_type_name(tensor.scalar_type),
                           ShapeText(tensor).c_str());
  }
  return std::move(array.data);
}

// Prints whether output `index` equals its expected file; false when it does not.
Result<bool> matches_expected(const Tensor& output, const std::string& path, size_t index) {
  PTE_ASSIGN_OR_RETURN(const std::vector<uint8_t> expected, read_file(path));
  PTE_ASSIGN_OR_RETURN(const OutputComparison comparison,
                       compare_with_npy(output, Span<const uint8_t>(expected.data(), expected.size())));
  if (comparison.same) {
    std::printf("output %lu matches %s bit for bit\n", as_ulong(index), path.c_str());
  } else {
    std::fprintf(stderr, "output %lu differs from %s: %s\n", as_ulong(index), path.c_str(), comparison.difference);
  }
  return comparison.same;
}

// `outputs_match` says whether every output equals its --expected-output file (true when none is given).
Status run(const Options& options, bool* outputs_match) {
  PTE_ASSIGN_OR_RETURN(const std::vector<uint8_t> file, read_file(options.model));
  PTE_ASSIGN_OR_RETURN(const std::unique_ptr<HostProgram> host,
                       HostProgram::load(Span<const uint8_t>(file.data(), file.size()), options.program));
  Method& method = host->method();
  const MethodMeta& meta = host->meta();
  std::printf("runtime arena: %lu of %lu bytes used\n", as_ulong(host->runtime_arena().used()),
              as_ulong(host->runtime_arena().capacity()));
  for (size_t i = 0; i < meta.planned_buffer_count(); ++i) {
    std::printf("planned buffer %lu: %lu bytes\n", as_ulong(i), as_ulong(meta.planned_buffer_size(i)));
  }

  if (options.inputs.size() != method.input_count()) {
    return Status::failure(Error::kInvalidArgument, "method '%s' takes %lu inputs, %lu given", method.name(),
                           as_ulong(method.input_count()), as_ulong(options.inputs.size()));
  }
  for (size_t i = 0; i < options.inputs.size(); ++i) {
    PTE_ASSIGN_OR_RETURN(const Tensor* tensor, method.input_tensor(i));
    PTE_ASSIGN_OR_RETURN(const std::vector<uint8_t> bytes, input_bytes(options.inputs[i], *tensor, i));
    PTE_RETURN_IF_ERROR(method.set_input(i, Span<const uint8_t>(bytes.data(), bytes.size())));
  }
  PTE_RETURN_IF_ERROR(method.execute());
  if (const npu_model::NpuArchitecture* npu = host->npu_architecture()) {
    std::printf("Ethos-U delegates ran on the functional model of an %s\n", npu->name);
  }
  if (!options.expected_outputs.empty() && options.expected_outputs.size() != method.output_count()) {
    return Status::failure(Error::kInvalidArgument, "method '%s' has %lu outputs, %lu expected outputs given",
                           method.name(), as_ulong(method.output_count()), as_ulong(options.expected_outputs.size()));
  }

  for (size_t i = 0; i < method.output_count(); ++i) {
    PTE_ASSIGN_OR_RETURN(const Tensor* tensor, method.output_tensor(i));
    const std::vector<uint8_t> npy_file =
        npy::serialize(tensor->scalar_type, Span<const int32_t>(tensor->sizes, tensor->rank),
                       Span<const uint8_t>(static_cast<const uint8_t*>(tensor->data), tensor->nbytes));
    const std::string path = options.output_dir + "/output" + std::to_string(i) + ".npy";
    PTE_RETURN_IF_ERROR(write_file(path, Span<const uint8_t>(npy_file.data(), npy_file.size())));
    std::printf("output %lu: %s %s -> %s\n", as_ulong(i), scalar_type_name(tensor->scalar_type),
                ShapeText(*tensor).c_str(), path.c_str());
    if (!options.expected_outputs.empty()) {
      PTE_ASSIGN_OR_RETURN(const bool same, matches_expected(*tensor, options.expected_outputs[i], i));
      *outputs_match = *outputs_match && same;
    }
  }
  return Status();
}

}  // namespace
}  // namespace pte

int main(int argc, char** argv) {
  pte::Options options;
  if (!pte::parse_options(argc, argv, &options)) {
    std::fputs(pte::kUsage, stderr);
    return 2;
  }
  bool outputs_match = true;
  const pte::Status status = pte::run(options, &outputs_match);
  if (!status.ok()) {
    std::fprintf(stderr, "error: %s: %s\n", pte::error_name(status.code()), status.message());
    return 1;
  }
  return outputs_match ? 0 : 3;
}

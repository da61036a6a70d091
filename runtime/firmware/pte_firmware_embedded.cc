// pte_firmware_embedded: the Corstone-300 runner for an image with its program linked in
// (pte_firmware_image in embedded_program.bzl), for boards and FVPs without a host to read files from.
// Runs the method once on the embedded inputs (or filled ones), with the delegates on the NPU the image
// was linked with (embedded_npu.h), prints each output's digest, checks it against the embedded
// expected outputs if there are any, and exits like pte_firmware.
#include <cstdio>

#include "runtime/firmware/corstone300_run.h"
#include "runtime/firmware/embedded_npu.h"
#include "runtime/firmware/embedded_run_io.h"

int main() {
  const pte::firmware::EmbeddedFiles files = pte::firmware::embedded_files();
  pte::firmware::EmbeddedRunIo io(files);
  pte::firmware::RunOptions options;
  options.fill_inputs = files.fill_inputs;
  options.fill_value = files.fill_value;
  const int status = pte::firmware::run_on_corstone300(io, options, pte::firmware::embedded_npu());
  std::printf("pte_firmware: exit status %d\n", status);
  return status;
}

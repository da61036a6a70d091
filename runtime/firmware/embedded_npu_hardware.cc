#include "runtime/firmware/corstone300_run.h"
#include "runtime/firmware/embedded_npu.h"

namespace pte {
namespace firmware {

ethosu::NpuDriver* embedded_npu() { return corstone300_npu(/*stub=*/false); }

}  // namespace firmware
}  // namespace pte

// The Ethos-U85 command set (architecture 2.0) as one table, like u55_commands.h for the U55. The U85
// keeps the U55's encoding (cmd0/cmd1 words, opcode bit 8 telling operations from registers) and most of
// its register numbers, and adds registers (IFM/IFM2 scales, weight format, resize, DMA strides and
// indices) and operations (NPU_OP_RESIZE, NPU_OP_BRANCH, a cmd1 operation).
#pragma once

#include <cstdint>

// X(name, opcode)
#define PTE_NPU_U85_CMD0_OPERATIONS(X) \
  X(NPU_OP_STOP, 0x000)                \
  X(NPU_OP_IRQ, 0x001)                 \
  X(NPU_OP_CONV, 0x002)                \
  X(NPU_OP_DEPTHWISE, 0x003)           \
  X(NPU_OP_POOL, 0x005)                \
  X(NPU_OP_ELEMENTWISE, 0x006)         \
  X(NPU_OP_RESIZE, 0x007)              \
  X(NPU_OP_DMA_START, 0x010)           \
  X(NPU_OP_DMA_WAIT, 0x011)            \
  X(NPU_OP_KERNEL_WAIT, 0x012)         \
  X(NPU_OP_PMU_MASK, 0x013)

#define PTE_NPU_U85_CMD0_REGISTERS(X)   \
  X(NPU_SET_IFM_PAD_TOP, 0x100)         \
  X(NPU_SET_IFM_PAD_LEFT, 0x101)        \
  X(NPU_SET_IFM_PAD_RIGHT, 0x102)       \
  X(NPU_SET_IFM_PAD_BOTTOM, 0x103)      \
  X(NPU_SET_IFM_DEPTH_M1, 0x104)        \
  X(NPU_SET_IFM_PRECISION, 0x105)       \
  X(NPU_SET_IFM_UPSCALE, 0x107)         \
  X(NPU_SET_IFM_BROADCAST, 0x108)       \
  X(NPU_SET_IFM_ZERO_POINT, 0x109)      \
  X(NPU_SET_IFM_WIDTH0_M1, 0x10A)       \
  X(NPU_SET_IFM_HEIGHT0_M1, 0x10B)      \
  X(NPU_SET_IFM_HEIGHT1_M1, 0x10C)      \
  X(NPU_SET_IFM_REGION, 0x10F)          \
  X(NPU_SET_OFM_WIDTH_M1, 0x111)        \
  X(NPU_SET_OFM_HEIGHT_M1, 0x112)       \
  X(NPU_SET_OFM_DEPTH_M1, 0x113)        \
  X(NPU_SET_OFM_PRECISION, 0x114)       \
  X(NPU_SET_OFM_BLK_WIDTH_M1, 0x115)    \
  X(NPU_SET_OFM_BLK_HEIGHT_M1, 0x116)   \
  X(NPU_SET_OFM_BLK_DEPTH_M1, 0x117)    \
  X(NPU_SET_OFM_ZERO_POINT, 0x118)      \
  X(NPU_SET_OFM_WIDTH0_M1, 0x11A)       \
  X(NPU_SET_OFM_HEIGHT0_M1, 0x11B)      \
  X(NPU_SET_OFM_HEIGHT1_M1, 0x11C)      \
  X(NPU_SET_OFM_REGION, 0x11F)          \
  X(NPU_SET_KERNEL_WIDTH_M1, 0x120)     \
  X(NPU_SET_KERNEL_HEIGHT_M1, 0x121)    \
  X(NPU_SET_KERNEL_STRIDE, 0x122)       \
  X(NPU_SET_ACC_FORMAT, 0x124)          \
  X(NPU_SET_ACTIVATION, 0x125)          \
  X(NPU_SET_ACTIVATION_MIN, 0x126)      \
  X(NPU_SET_ACTIVATION_MAX, 0x127)      \
  X(NPU_SET_WEIGHT_REGION, 0x128)       \
  X(NPU_SET_SCALE_REGION, 0x129)        \
  X(NPU_SET_RESIZE_X_SCALE_N_M1, 0x12A) \
  X(NPU_SET_RESIZE_Y_SCALE_N_M1, 0x12B) \
  X(NPU_SET_RESIZE_X_OFFSET, 0x12C)     \
  X(NPU_SET_RESIZE_Y_OFFSET, 0x12D)     \
  X(NPU_SET_WEIGHT_FORMAT, 0x12E)       \
  X(NPU_SET_BLOCKDEP, 0x12F)            \
  X(NPU_SET_DMA0_SRC_REGION, 0x130)     \
  X(NPU_SET_DMA0_DST_REGION, 0x131)     \
  X(NPU_SET_DMA0_SIZE0, 0x132)          \
  X(NPU_SET_DMA0_SIZE1, 0x133)          \
  X(NPU_SET_DMA0_IDX_REGION, 0x134)     \
  X(NPU_SET_IFM2_BROADCAST, 0x180)      \
  X(NPU_SET_IFM2_PRECISION, 0x185)      \
  X(NPU_SET_IFM2_ZERO_POINT, 0x189)     \
  X(NPU_SET_IFM2_WIDTH0_M1, 0x18A)      \
  X(NPU_SET_IFM2_HEIGHT0_M1, 0x18B)     \
  X(NPU_SET_IFM2_HEIGHT1_M1, 0x18C)     \
  X(NPU_SET_IFM2_REGION, 0x18F)

#define PTE_NPU_U85_CMD1_OPERATIONS(X) \
  X(NPU_OP_BRANCH, 0x100)

#define PTE_NPU_U85_CMD1_REGISTERS(X) \
  X(NPU_SET_IFM_BASE0, 0x000)         \
  X(NPU_SET_IFM_BASE1, 0x001)         \
  X(NPU_SET_IFM_BASE2, 0x002)         \
  X(NPU_SET_IFM_BASE3, 0x003)         \
  X(NPU_SET_IFM_STRIDE_X, 0x004)      \
  X(NPU_SET_IFM_STRIDE_Y, 0x005)      \
  X(NPU_SET_IFM_STRIDE_C, 0x006)      \
  X(NPU_SET_OFM_BASE0, 0x010)         \
  X(NPU_SET_OFM_BASE1, 0x011)         \
  X(NPU_SET_OFM_BASE2, 0x012)         \
  X(NPU_SET_OFM_BASE3, 0x013)         \
  X(NPU_SET_OFM_STRIDE_X, 0x014)      \
  X(NPU_SET_OFM_STRIDE_Y, 0x015)      \
  X(NPU_SET_OFM_STRIDE_C, 0x016)      \
  X(NPU_SET_WEIGHT_BASE, 0x020)       \
  X(NPU_SET_WEIGHT_LENGTH, 0x021)     \
  X(NPU_SET_SCALE_BASE, 0x022)        \
  X(NPU_SET_SCALE_LENGTH, 0x023)      \
  X(NPU_SET_OFM_SCALE, 0x024)         \
  X(NPU_SET_IFM_SCALE, 0x025)         \
  X(NPU_SET_IFM2_SCALE, 0x026)        \
  X(NPU_SET_OP_SCALAR, 0x027)         \
  X(NPU_SET_DMA0_SRC, 0x030)          \
  X(NPU_SET_DMA0_DST, 0x031)          \
  X(NPU_SET_DMA0_LEN, 0x032)          \
  X(NPU_SET_DMA0_SRC_STRIDE0, 0x033)  \
  X(NPU_SET_DMA0_SRC_STRIDE1, 0x034)  \
  X(NPU_SET_DMA0_DST_STRIDE0, 0x035)  \
  X(NPU_SET_DMA0_DST_STRIDE1, 0x036)  \
  X(NPU_SET_DMA0_IDX, 0x037)          \
  X(NPU_SET_DMA0_IDX_MAX, 0x038)      \
  X(NPU_SET_DMA0_IDX_SKIP1, 0x039)    \
  X(NPU_SET_IFM2_BASE0, 0x080)        \
  X(NPU_SET_IFM2_BASE1, 0x081)        \
  X(NPU_SET_IFM2_BASE2, 0x082)        \
  X(NPU_SET_IFM2_BASE3, 0x083)        \
  X(NPU_SET_IFM2_STRIDE_X, 0x084)     \
  X(NPU_SET_IFM2_STRIDE_Y, 0x085)     \
  X(NPU_SET_IFM2_STRIDE_C, 0x086)     \
  X(NPU_SET_WEIGHT1_BASE, 0x090)      \
  X(NPU_SET_WEIGHT1_LENGTH, 0x091)    \
  X(NPU_SET_WEIGHT2_BASE, 0x092)      \
  X(NPU_SET_WEIGHT2_LENGTH, 0x093)    \
  X(NPU_SET_WEIGHT3_BASE, 0x094)      \
  X(NPU_SET_WEIGHT3_LENGTH, 0x095)    \
  X(NPU_SET_RESIZE_X, 0x096)          \
  X(NPU_SET_RESIZE_Y, 0x097)

namespace pte {
namespace npu_model {
namespace u85 {

#define PTE_NPU_ENUMERATOR(name, opcode) name = opcode,
enum class Cmd0 : uint16_t {
  PTE_NPU_U85_CMD0_OPERATIONS(PTE_NPU_ENUMERATOR) PTE_NPU_U85_CMD0_REGISTERS(PTE_NPU_ENUMERATOR)
};
enum class Cmd1 : uint16_t {
  PTE_NPU_U85_CMD1_OPERATIONS(PTE_NPU_ENUMERATOR) PTE_NPU_U85_CMD1_REGISTERS(PTE_NPU_ENUMERATOR)
};
#undef PTE_NPU_ENUMERATOR

// The command's name, or nullptr for an opcode the U85 does not define.
const char* cmd0_name(uint16_t opcode);
const char* cmd1_name(uint16_t opcode);

}  // namespace u85
}  // namespace npu_model
}  // namespace pte

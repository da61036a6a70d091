// The NPU model on handmade command streams: the driver payload and command checks, errors that name
// the command and its byte offset (unknown commands, accesses outside a region and streams without a stop,
// on each generation), DMA and an elementwise add end to end (U55 and U85), the U85's rescaled AND_NOT
// (SELECT) and arg-max pooling, the trace, the rescaler's roundings, the weight decoders and the 2:4
// sparsity rule. Real Vela streams are checked against the TOSA reference model by //arm/ops:u55_INT and
// :u85_INT (every op case) and //arm/ethosu/npu_model (every model, and 2:4 sparse convolutions).
#include <cstring>

#include "runtime/npu_model/fwd_decoder.h"
#include "runtime/npu_model/mlw_decoder.h"
#include "runtime/npu_model/npu_model.h"
#include "runtime/npu_model/rescale.h"
#include "runtime/npu_model/sparse_weights.h"
#include "runtime/npu_model/u85_commands.h"
#include "runtime/testing/unit_test.h"

namespace pte {
namespace npu_model {
namespace {

constexpr uint32_t kLog2Macs128 = 7;

// Builds a driver payload the way Vela lays one out.
class StreamBuilder {
 public:
  StreamBuilder& cmd0(Cmd0 opcode, uint16_t payload) { return word(static_cast<uint32_t>(opcode) | uint32_t{payload} << 16); }
  StreamBuilder& cmd1(Cmd1 opcode, uint32_t data, uint16_t param = 0) {
    word(static_cast<uint32_t>(opcode) | 1u << 14 | uint32_t{param} << 16);
    return word(data);
  }
  StreamBuilder& stop() { return cmd0(Cmd0::NPU_OP_STOP, 0xffff); }
  StreamBuilder& word(uint32_t value) {
    commands_[count_++] = value;
    return *this;
  }

  // `product`: 0 for the Ethos-U55, 2 for the U85 (the config word's bits 28-31). The header is 8 words
  // (COP1, CONFIG and its two words, three NOPs, CMD_STREAM): the first command is at byte 32, which is
  // where the byte offsets the tests expect count from.
  Span<const uint8_t> payload(uint32_t log2_macs = kLog2Macs128, uint32_t product = 0) {
    const uint32_t header[] = {0x31504F43, 0x00010001, log2_macs | 24u << 8 | product << 28, 0, 5, 5, 5,
                               2u | static_cast<uint32_t>(count_) << 16};
    size_t size = 0;
    for (uint32_t value : header) put(value, &size);
    for (size_t i = 0; i < count_; ++i) put(commands_[i], &size);
    return Span<const uint8_t>(bytes_, size);
  }

 private:
  void put(uint32_t value, size_t* size) {
    std::memcpy(bytes_ + *size, &value, sizeof(value));
    *size += sizeof(value);
  }
  uint32_t commands_[256] = {};
  size_t count_ = 0;
  uint8_t bytes_[2048] = {};
};

// The streams here need no weights: a little work memory each.
uint8_t g_work[64 << 10];
uint8_t g_u85_work[64 << 10];

NpuModel& model() {
  static NpuModel instance(*ethos_u55(128), Span<uint8_t>(g_work, sizeof(g_work)));
  return instance;
}

TEST(a_stream_that_only_stops_runs) {
  StreamBuilder stream;
  EXPECT_OK(model().run(stream.stop().payload(), Span<const ethosu::NpuRegion>()));
}

TEST(a_payload_without_the_driver_header_is_rejected) {
  const uint8_t bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_ERROR(model().run(Span<const uint8_t>(bytes, sizeof(bytes)), Span<const ethosu::NpuRegion>()),
               Error::kInvalidDelegateBlob, "does not start with Vela's 'COP1' driver header");
}

TEST(a_stream_for_another_configuration_is_rejected) {
  StreamBuilder stream;
  EXPECT_ERROR(model().run(stream.stop().payload(8), Span<const ethosu::NpuRegion>()), Error::kInvalidDelegateBlob,
               "compiled for Ethos-U55 with 256 MACs per cycle; this model is an Ethos-U55-128");
}

TEST(an_unknown_opcode_names_its_byte_offset) {
  StreamBuilder stream;
  stream.cmd0(Cmd0::NPU_SET_IFM_REGION, 1).word(0x0000'0004).stop();
  EXPECT_ERROR(model().run(stream.payload(), Span<const ethosu::NpuRegion>()), Error::kInvalidDelegateBlob,
               "unknown cmd0 opcode 0x004 (word 0x00000004) at byte 36");
}

TEST(a_word_with_reserved_bits_is_malformed) {
  StreamBuilder stream;
  stream.word(static_cast<uint32_t>(Cmd0::NPU_SET_IFM_REGION) | 1u << 10).stop();
  EXPECT_ERROR(model().run(stream.payload(), Span<const ethosu::NpuRegion>()), Error::kInvalidDelegateBlob,
               "NPU_SET_IFM_REGION at byte 32 has reserved bits set");
}

TEST(a_cmd1_without_its_payload_word_is_truncated) {
  StreamBuilder stream;
  stream.word(static_cast<uint32_t>(Cmd1::NPU_SET_IFM_BASE0) | 1u << 14);
  EXPECT_ERROR(model().run(stream.payload(), Span<const ethosu::NpuRegion>()), Error::kInvalidDelegateBlob,
               "NPU_SET_IFM_BASE0 at byte 32 is missing its payload word");
}

TEST(a_stream_without_stop_is_an_error) {
  StreamBuilder stream;
  stream.cmd0(Cmd0::NPU_SET_IFM_REGION, 1).cmd1(Cmd1::NPU_SET_IFM_BASE0, 64);
  EXPECT_ERROR(model().run(stream.payload(), Span<const ethosu::NpuRegion>()), Error::kInvalidDelegateBlob,
               "the command stream ends at byte 44 without NPU_OP_STOP");
}

StreamBuilder& dma(StreamBuilder& stream, uint32_t source, uint32_t destination, uint32_t length) {
  return stream.cmd0(Cmd0::NPU_SET_DMA0_SRC_REGION, 0)
      .cmd1(Cmd1::NPU_SET_DMA0_SRC, source)
      .cmd0(Cmd0::NPU_SET_DMA0_DST_REGION, 1)
      .cmd1(Cmd1::NPU_SET_DMA0_DST, destination)
      .cmd1(Cmd1::NPU_SET_DMA0_LEN, length)
      .cmd0(Cmd0::NPU_OP_DMA_START, 0);
}

TEST(dma_copies_between_regions) {
  uint8_t weights[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  uint8_t scratch[16] = {};
  const ethosu::NpuRegion regions[] = {{reinterpret_cast<uintptr_t>(weights), sizeof(weights)},
                                       {reinterpret_cast<uintptr_t>(scratch), sizeof(scratch)}};
  StreamBuilder stream;
  dma(stream, 2, 10, 4).stop();
  EXPECT_OK(model().run(stream.payload(), Span<const ethosu::NpuRegion>(regions)));
  EXPECT_TRUE(scratch[9] == 0 && scratch[10] == 3 && scratch[13] == 6 && scratch[14] == 0);
}

TEST(an_access_outside_its_region_names_the_operation) {
  uint8_t weights[8] = {};
  uint8_t scratch[16] = {};
  const ethosu::NpuRegion regions[] = {{reinterpret_cast<uintptr_t>(weights), sizeof(weights)},
                                       {reinterpret_cast<uintptr_t>(scratch), sizeof(scratch)}};
  StreamBuilder stream;
  dma(stream, 0, 12, 8).stop();
  EXPECT_ERROR(model().run(stream.payload(), Span<const ethosu::NpuRegion>(regions)), Error::kDelegateFailed,
               "NPU_OP_DMA_START at byte 64: the DMA destination reads or writes bytes [12, +8) of region 1, which "
               "holds 16 bytes");
}

// OFM = IFM + 3 on a 1x1x4 int8 tensor in NHWC, 16-bit operand scaling, unit output scale.
StreamBuilder& add_scalar(StreamBuilder& stream) {
  return stream.cmd0(Cmd0::NPU_SET_IFM_REGION, 1)
      .cmd1(Cmd1::NPU_SET_IFM_BASE0, 0)
      .cmd0(Cmd0::NPU_SET_IFM_DEPTH_M1, 3)
      .cmd1(Cmd1::NPU_SET_IFM_STRIDE_X, 4)
      .cmd1(Cmd1::NPU_SET_IFM_STRIDE_Y, 4)
      .cmd0(Cmd0::NPU_SET_IFM_PRECISION, 1)  // signed 8-bit NHWC
      .cmd0(Cmd0::NPU_SET_OFM_REGION, 1)
      .cmd1(Cmd1::NPU_SET_OFM_BASE0, 4)
      .cmd0(Cmd0::NPU_SET_OFM_DEPTH_M1, 3)
      .cmd1(Cmd1::NPU_SET_OFM_STRIDE_X, 4)
      .cmd1(Cmd1::NPU_SET_OFM_STRIDE_Y, 4)
      .cmd0(Cmd0::NPU_SET_OFM_PRECISION, 1 | 1 << 8)  // signed 8-bit NHWC, global scale
      .cmd0(Cmd0::NPU_SET_ACTIVATION_MIN, 0xff80)
      .cmd0(Cmd0::NPU_SET_ACTIVATION_MAX, 0x7f)
      .cmd1(Cmd1::NPU_SET_OFM_SCALE, 1, 0)
      .cmd1(Cmd1::NPU_SET_OPA_SCALE, 1, 0)
      .cmd1(Cmd1::NPU_SET_OPB_SCALE, 1)
      .cmd0(Cmd0::NPU_SET_IFM2_PRECISION, 1)
      .cmd0(Cmd0::NPU_SET_IFM2_SCALAR, 3)
      .cmd0(Cmd0::NPU_SET_IFM2_BROADCAST, 1 << 7)
      .cmd0(Cmd0::NPU_OP_ELEMENTWISE, 1);
}

TEST(elementwise_add_of_a_scalar_saturates_to_int8) {
  int8_t scratch[8] = {-128, -1, 100, 127};
  const ethosu::NpuRegion regions[] = {{0, 0}, {reinterpret_cast<uintptr_t>(scratch), sizeof(scratch)}};
  StreamBuilder stream;
  add_scalar(stream).stop();
  EXPECT_OK(model().run(stream.payload(), Span<const ethosu::NpuRegion>(regions)));
  EXPECT_TRUE(scratch[4] == -125 && scratch[5] == 2 && scratch[6] == 103 && scratch[7] == 127);
}

struct TraceLines {
  char lines[64][512];
  int count = 0;
};

void collect(void* context, const char* line) {
  TraceLines* trace = static_cast<TraceLines*>(context);
  if (trace->count < 64) std::strncpy(trace->lines[trace->count++], line, 511);
}

TEST(trace_names_each_command_its_offset_and_operands) {
  int8_t scratch[8] = {};
  const ethosu::NpuRegion regions[] = {{0, 0}, {reinterpret_cast<uintptr_t>(scratch), sizeof(scratch)}};
  static TraceLines trace;
  StreamBuilder stream;
  add_scalar(stream).stop();
  model().set_trace(TraceSink{collect, &trace});
  EXPECT_OK(model().run(stream.payload(), Span<const ethosu::NpuRegion>(regions)));
  model().set_trace(TraceSink{nullptr, nullptr});
  EXPECT_EQ(trace.count, 22);
  EXPECT_TRUE(std::strcmp(trace.lines[0], "    32 NPU_SET_IFM_REGION 1") == 0);
  EXPECT_TRUE(std::strcmp(trace.lines[12], "   104 NPU_SET_ACTIVATION_MIN 65408 (-128)") == 0);
  EXPECT_TRUE(std::strstr(trace.lines[20], "NPU_OP_ELEMENTWISE add ifm r1+0 s8 NHWC zp=0 depth=4 ifm2 scalar=3") != nullptr);
  EXPECT_TRUE(std::strstr(trace.lines[20], "-> ofm r1+4 1x1x4 s8 NHWC zp=0 scale=global") != nullptr);
  EXPECT_TRUE(std::strstr(trace.lines[21], "NPU_OP_STOP") != nullptr);
}

NpuModel& u85_model() {
  static NpuModel instance(*ethos_u85(256), Span<uint8_t>(g_u85_work, sizeof(g_u85_work)));
  return instance;
}

TEST(a_u55_stream_is_rejected_by_the_u85_model) {
  StreamBuilder stream;
  EXPECT_ERROR(u85_model().run(stream.stop().payload(8), Span<const ethosu::NpuRegion>()), Error::kInvalidDelegateBlob,
               "compiled for Ethos-U55 with 256 MACs per cycle; this model is an Ethos-U85-256");
}

// OFM = (IFM * 2) + OP_SCALAR 3 on a 1x1x4 int8 tensor in region 1 (IFM at byte 0, OFM at byte 4):
// IFM_SCALE doubles, natural rounding.
StreamBuilder& u85_double_and_add_scalar(StreamBuilder& stream) {
  constexpr uint16_t kNatural = 1 << 13;
  return stream.cmd0(Cmd0::NPU_SET_IFM_REGION, 1)
      .cmd1(Cmd1::NPU_SET_IFM_BASE0, 0)
      .cmd0(Cmd0::NPU_SET_IFM_DEPTH_M1, 3)
      .cmd1(Cmd1::NPU_SET_IFM_STRIDE_X, 4)
      .cmd1(Cmd1::NPU_SET_IFM_STRIDE_Y, 4)
      .cmd0(Cmd0::NPU_SET_IFM_PRECISION, 1)
      .cmd0(Cmd0::NPU_SET_OFM_REGION, 1)
      .cmd1(Cmd1::NPU_SET_OFM_BASE0, 4)
      .cmd0(Cmd0::NPU_SET_OFM_DEPTH_M1, 3)
      .cmd1(Cmd1::NPU_SET_OFM_STRIDE_X, 4)
      .cmd1(Cmd1::NPU_SET_OFM_STRIDE_Y, 4)
      .cmd0(Cmd0::NPU_SET_OFM_PRECISION, 1 | 1 << 8)
      .cmd0(Cmd0::NPU_SET_ACTIVATION_MIN, 0xff80)
      .cmd0(Cmd0::NPU_SET_ACTIVATION_MAX, 0x7f)
      .cmd1(static_cast<Cmd1>(u85::Cmd1::NPU_SET_OFM_SCALE), 1, kNatural)
      .cmd1(static_cast<Cmd1>(u85::Cmd1::NPU_SET_IFM_SCALE), 2, kNatural)
      .cmd1(static_cast<Cmd1>(u85::Cmd1::NPU_SET_IFM2_SCALE), 1, kNatural)
      .cmd0(Cmd0::NPU_SET_IFM2_PRECISION, 1)
      .cmd1(static_cast<Cmd1>(u85::Cmd1::NPU_SET_OP_SCALAR), 3)
      .cmd0(static_cast<Cmd0>(u85::Cmd0::NPU_SET_IFM2_BROADCAST), 8)
      .cmd0(Cmd0::NPU_OP_ELEMENTWISE, 1);
}

constexpr uint32_t kLog2Macs256 = 8;
constexpr uint32_t kU85 = 2;

TEST(u85_elementwise_add_rescales_each_operand) {
  int8_t scratch[8] = {-128, -1, 50, 100};
  const ethosu::NpuRegion regions[] = {{0, 0}, {reinterpret_cast<uintptr_t>(scratch), sizeof(scratch)}};
  StreamBuilder stream;
  u85_double_and_add_scalar(stream).stop();
  EXPECT_OK(u85_model().run(stream.payload(kLog2Macs256, kU85), Span<const ethosu::NpuRegion>(regions)));
  EXPECT_TRUE(scratch[4] == -128 && scratch[5] == 1 && scratch[6] == 103 && scratch[7] == 127);
}

TEST(u85_an_unknown_opcode_names_its_byte_offset) {
  // No U85 command has opcode 0x004.
  StreamBuilder stream;
  stream.cmd0(Cmd0::NPU_SET_IFM_REGION, 1).word(0x0000'0004).stop();
  EXPECT_ERROR(u85_model().run(stream.payload(kLog2Macs256, kU85), Span<const ethosu::NpuRegion>()),
               Error::kInvalidDelegateBlob, "unknown cmd0 opcode 0x004 (word 0x00000004) at byte 36");
}

TEST(u85_a_stream_without_stop_is_an_error) {
  StreamBuilder stream;
  stream.cmd0(Cmd0::NPU_SET_IFM_REGION, 1).cmd1(Cmd1::NPU_SET_IFM_BASE0, 64);
  EXPECT_ERROR(u85_model().run(stream.payload(kLog2Macs256, kU85), Span<const ethosu::NpuRegion>()),
               Error::kInvalidDelegateBlob, "the command stream ends at byte 44 without NPU_OP_STOP");
}

TEST(u85_an_ofm_outside_its_region_names_the_operation) {
  // The OFM's four bytes start at byte 4 of a 6-byte region.
  int8_t scratch[6] = {};
  const ethosu::NpuRegion regions[] = {{0, 0}, {reinterpret_cast<uintptr_t>(scratch), sizeof(scratch)}};
  StreamBuilder stream;
  u85_double_and_add_scalar(stream).stop();
  EXPECT_ERROR(u85_model().run(stream.payload(kLog2Macs256, kU85), Span<const ethosu::NpuRegion>(regions)),
               Error::kDelegateFailed,
               "NPU_OP_ELEMENTWISE at byte 152: OFM (1x1x4) reads or writes bytes [4, +4) of region 1, which holds "
               "6 bytes");
}

// SELECT as Vela builds it for int16 operands: value AND_NOT mask, where the value's RESCALE onto the
// output's grid is folded into IFM_SCALE (here x0.75, natural rounding). A 1x1x4 int16 IFM at byte 0 of
// region 1, the int16 mask (all ones or zeros) at byte 8, the OFM at byte 16.
TEST(u85_and_not_rescales_the_value_it_masks) {
  constexpr uint16_t kNatural = 1 << 13;
  constexpr uint16_t kAndNot = 42;
  alignas(2) int16_t scratch[12] = {1000, -1000, 301, -7, 0, -1, 0, -1};
  const ethosu::NpuRegion regions[] = {{0, 0}, {reinterpret_cast<uintptr_t>(scratch), sizeof(scratch)}};
  StreamBuilder stream;
  stream.cmd0(Cmd0::NPU_SET_IFM_REGION, 1)
      .cmd1(Cmd1::NPU_SET_IFM_BASE0, 0)
      .cmd0(Cmd0::NPU_SET_IFM_DEPTH_M1, 3)
      .cmd1(Cmd1::NPU_SET_IFM_STRIDE_C, 2)
      .cmd1(Cmd1::NPU_SET_IFM_STRIDE_X, 8)
      .cmd1(Cmd1::NPU_SET_IFM_STRIDE_Y, 8)
      .cmd0(Cmd0::NPU_SET_IFM_PRECISION, 1 | 1 << 2)
      .cmd0(Cmd0::NPU_SET_IFM2_REGION, 1)
      .cmd1(Cmd1::NPU_SET_IFM2_BASE0, 8)
      .cmd1(Cmd1::NPU_SET_IFM2_STRIDE_C, 2)
      .cmd1(Cmd1::NPU_SET_IFM2_STRIDE_X, 8)
      .cmd1(Cmd1::NPU_SET_IFM2_STRIDE_Y, 8)
      .cmd0(Cmd0::NPU_SET_IFM2_PRECISION, 1 | 1 << 2)
      .cmd0(Cmd0::NPU_SET_OFM_REGION, 1)
      .cmd1(Cmd1::NPU_SET_OFM_BASE0, 16)
      .cmd0(Cmd0::NPU_SET_OFM_DEPTH_M1, 3)
      .cmd1(Cmd1::NPU_SET_OFM_STRIDE_C, 2)
      .cmd1(Cmd1::NPU_SET_OFM_STRIDE_X, 8)
      .cmd1(Cmd1::NPU_SET_OFM_STRIDE_Y, 8)
      .cmd0(Cmd0::NPU_SET_OFM_PRECISION, 1 | 1 << 1 | 1 << 8)
      .cmd0(Cmd0::NPU_SET_ACTIVATION_MIN, 0x8000)
      .cmd0(Cmd0::NPU_SET_ACTIVATION_MAX, 0x7fff)
      .cmd1(static_cast<Cmd1>(u85::Cmd1::NPU_SET_OFM_SCALE), 1, kNatural)
      .cmd1(static_cast<Cmd1>(u85::Cmd1::NPU_SET_IFM_SCALE), 3, 2 | kNatural)
      .cmd1(static_cast<Cmd1>(u85::Cmd1::NPU_SET_IFM2_SCALE), 1, kNatural)
      .cmd0(Cmd0::NPU_OP_ELEMENTWISE, kAndNot)
      .stop();
  EXPECT_OK(u85_model().run(stream.payload(kLog2Macs256, kU85), Span<const ethosu::NpuRegion>(regions)));
  // 301 * 0.75 = 225.75 rounds to 226; masked lanes are zero.
  EXPECT_TRUE(scratch[8] == 750 && scratch[9] == 0 && scratch[10] == 226 && scratch[11] == 0);
}

// Arg-max pooling of a 2-channel int8 IFM in region 1 (IFM at byte 0, int32 OFM at byte 16) with a
// kernel of `height` x `width` covering the IFM, programmed as Vela programs TOSA ARGMAX: OFM_SCALE 1
// with shift 16 and round-to-lower, no clamp.
StreamBuilder& u85_arg_max(StreamBuilder& stream, uint16_t mode, uint16_t height, uint16_t width) {
  constexpr uint16_t kShift16RoundToLower = 16 | 5 << 13;
  return stream.cmd0(Cmd0::NPU_SET_IFM_REGION, 1)
      .cmd1(Cmd1::NPU_SET_IFM_BASE0, 0)
      .cmd0(Cmd0::NPU_SET_IFM_DEPTH_M1, 1)
      .cmd1(Cmd1::NPU_SET_IFM_STRIDE_C, 1)
      .cmd1(Cmd1::NPU_SET_IFM_STRIDE_X, 2)
      .cmd1(Cmd1::NPU_SET_IFM_STRIDE_Y, 2u * width)
      .cmd0(Cmd0::NPU_SET_IFM_HEIGHT0_M1, height - 1)
      .cmd0(Cmd0::NPU_SET_IFM_WIDTH0_M1, width - 1)
      .cmd0(Cmd0::NPU_SET_IFM_PRECISION, 1)
      .cmd0(Cmd0::NPU_SET_OFM_REGION, 1)
      .cmd1(Cmd1::NPU_SET_OFM_BASE0, 16)
      .cmd0(Cmd0::NPU_SET_OFM_DEPTH_M1, 1)
      .cmd1(Cmd1::NPU_SET_OFM_STRIDE_C, 4)
      .cmd1(Cmd1::NPU_SET_OFM_STRIDE_X, 8)
      .cmd1(Cmd1::NPU_SET_OFM_STRIDE_Y, 8)
      .cmd0(Cmd0::NPU_SET_OFM_PRECISION, 1 | 2 << 1 | 1 << 8)
      .cmd0(Cmd0::NPU_SET_KERNEL_HEIGHT_M1, height - 1)
      .cmd0(Cmd0::NPU_SET_KERNEL_WIDTH_M1, width - 1)
      .cmd0(Cmd0::NPU_SET_ACTIVATION, 1 << 12)
      .cmd1(static_cast<Cmd1>(u85::Cmd1::NPU_SET_OFM_SCALE), 1, kShift16RoundToLower)
      .cmd0(Cmd0::NPU_OP_POOL, mode);
}

constexpr uint16_t kArgMaxX = 6;
constexpr uint16_t kArgMaxY = 7;

int32_t int32_at(const int8_t* bytes) {
  int32_t value;
  std::memcpy(&value, bytes, sizeof(value));
  return value;
}

TEST(u85_arg_max_along_x_gives_the_first_maximal_column) {
  // Channel 0 along x: 3 7 7 -2 (a tie: the first 7 wins); channel 1: -5 -8 -5 -9.
  alignas(4) int8_t scratch[24] = {3, -5, 7, -8, 7, -5, -2, -9};
  const ethosu::NpuRegion regions[] = {{0, 0}, {reinterpret_cast<uintptr_t>(scratch), sizeof(scratch)}};
  StreamBuilder stream;
  u85_arg_max(stream, kArgMaxX, 1, 4).stop();
  EXPECT_OK(u85_model().run(stream.payload(kLog2Macs256, kU85), Span<const ethosu::NpuRegion>(regions)));
  EXPECT_EQ(int32_at(scratch + 16), 1);
  EXPECT_EQ(int32_at(scratch + 20), 0);
}

TEST(u85_arg_max_along_y_gives_the_first_maximal_row) {
  // Channel 0 along y: -128 -128 -128 (all equal: row 0); channel 1: -1 127 127.
  alignas(4) int8_t scratch[24] = {-128, -1, -128, 127, -128, 127};
  const ethosu::NpuRegion regions[] = {{0, 0}, {reinterpret_cast<uintptr_t>(scratch), sizeof(scratch)}};
  StreamBuilder stream;
  u85_arg_max(stream, kArgMaxY, 3, 1).stop();
  EXPECT_OK(u85_model().run(stream.payload(kLog2Macs256, kU85), Span<const ethosu::NpuRegion>(regions)));
  EXPECT_EQ(int32_at(scratch + 16), 0);
  EXPECT_EQ(int32_at(scratch + 20), 1);
}

TEST(rescale_rounds_natural_double_and_truncate) {
  // 5 * 1 / 2: ties go up (natural), or away from zero only beyond a 31-bit shift (double).
  EXPECT_EQ(apply_scale(5, Scale{1, 1}, RoundMode::kNatural), 3);
  EXPECT_EQ(apply_scale(-5, Scale{1, 1}, RoundMode::kNatural), -2);
  EXPECT_EQ(apply_scale(-5, Scale{1, 1}, RoundMode::kDouble), -2);
  EXPECT_EQ(apply_scale(-5, Scale{1, 1}, RoundMode::kTruncate), -2);
  EXPECT_EQ(apply_scale(-7, Scale{1, 2}, RoundMode::kTruncate), -1);
  // With shift 33 double rounding adds +-2^30 before the shift (TOSA's apply_scale_32): 1.4375 rounds
  // to 1 naturally but to 2 doubly, and -1.4375 to -1 and -2.
  const int64_t x = (int64_t{1} << 32) + (int64_t{1} << 30) + (int64_t{1} << 29) + (int64_t{1} << 28);
  EXPECT_EQ(apply_scale(x, Scale{2, 33}, RoundMode::kNatural), 1);
  EXPECT_EQ(apply_scale(x, Scale{2, 33}, RoundMode::kDouble), 2);
  EXPECT_EQ(apply_scale(-x, Scale{2, 33}, RoundMode::kNatural), -1);
  EXPECT_EQ(apply_scale(-x, Scale{2, 33}, RoundMode::kDouble), -2);
  // A 40-bit accumulator times a 32-bit multiplier does not wrap.
  const int64_t big = (int64_t{1} << 39) - 1;
  EXPECT_EQ(apply_scale(big, Scale{0x80000000u, 31}, RoundMode::kNatural), big);
  EXPECT_EQ(apply_scale(-big, Scale{0xffffffffu, 32}, RoundMode::kTruncate), -big + 128);
}

// Appends `count` bits of `value`, least significant first.
struct BitWriter {
  uint8_t bytes[64] = {};
  size_t position = 0;
  void put(uint32_t value, int count) {
    for (int i = 0; i < count; ++i, ++position) bytes[position / 8] |= ((value >> i) & 1) << (position % 8);
  }
};

TEST(the_weight_decoder_reads_an_uncompressed_slice) {
  // One slice, no zero runs, no palette, 9-bit plain values (sign in bit 0): 3, -2, 0, 5.
  BitWriter stream;
  stream.put(6, 3);   // no zero runs
  stream.put(3, 15);  // 4 weights
  stream.put(7, 3);   // uncompressed
  stream.put(0, 1);
  stream.put(1, 1);   // new palette:
  stream.put(0, 5);   //   direct offset
  stream.put(0, 5);   //   no entries
  stream.put(7, 3);   //   9-bit values
  for (uint32_t value : {6u, 5u, 0u, 10u}) stream.put(value, 9);
  stream.put(7, 3);  // end of stream
  int16_t values[8] = {};
  static int32_t scratch[kWeightDecoderScratchWords];
  ASSERT_OK_AND_ASSIGN(const size_t count,
                       decode_weights(Span<const uint8_t>(stream.bytes, (stream.position + 7) / 8),
                                      Span<int16_t>(values), Span<int32_t>(scratch)));
  EXPECT_EQ(count, size_t{4});
  EXPECT_TRUE(values[0] == 3 && values[1] == -2 && values[2] == 0 && values[3] == 5);
  EXPECT_ERROR(decode_weights(Span<const uint8_t>(stream.bytes, (stream.position + 7) / 8), Span<int16_t>(values, 3),
                              Span<int32_t>(scratch)),
               Error::kDelegateFailed, "more weights than the operation can use");
}

TEST(the_fast_weight_decoder_reads_a_small_palette) {
  // Header: not raw, small palette, no zero adjustment, palette {0, 5, -3, 7} (sign in bit 0); then
  // 2-bit indices from bit 256.
  BitWriter stream;
  stream.put(0, 1);
  stream.put(1, 1);
  stream.position = 112;
  for (uint32_t folded : {0u, 10u, 7u, 14u}) stream.put(folded, 9);
  stream.position = 256;
  for (uint32_t index : {1u, 2u, 0u, 3u, 1u}) stream.put(index, 2);
  int16_t values[5] = {};
  EXPECT_OK(decode_fast_weights(Span<const uint8_t>(stream.bytes, sizeof(stream.bytes)), Span<int16_t>(values)));
  EXPECT_TRUE(values[0] == 5 && values[1] == -3 && values[2] == 0 && values[3] == 7 && values[4] == 5);
  EXPECT_ERROR(decode_fast_weights(Span<const uint8_t>(stream.bytes, 16), Span<int16_t>(values)),
               Error::kDelegateFailed, "too few for its header");
}

TEST(sparse_weights_keep_two_of_every_four_ifm_channels) {
  // Two OFM channels of a 1x2 kernel over 6 IFM channels: the runs are channels 0-3 and 4-5.
  WeightLayout layout = {};
  layout.ofm_depth = 2;
  layout.kernel_height = 1;
  layout.kernel_width = 2;
  layout.ifm_depth = 6;
  int16_t ohwi[] = {
      1, 0, -2, 0, 3, 4,  // OFM channel 0, kernel x 0
      0, 0, 0, 5, 0, -6,  // OFM channel 0, kernel x 1
      0, 7, 8, 0, 0, 0,   // OFM channel 1, kernel x 0
      9, 0, 0, 1, 2, 3,   // OFM channel 1, kernel x 1
  };
  EXPECT_OK(check_sparse_weights(layout, Span<const int16_t>(ohwi)));
  ohwi[20] = 5;  // OFM channel 1, kernel x 1, IFM channel 2: the run 0-3 now holds 9, 0, 5, 1
  EXPECT_ERROR(check_sparse_weights(layout, Span<const int16_t>(ohwi)), Error::kDelegateFailed,
               "3 non-zero weights in IFM channels 0-3 of OFM channel 1 at kernel position (0, 1)");
}

}  // namespace
}  // namespace npu_model
}  // namespace pte

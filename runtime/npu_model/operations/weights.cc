#include "runtime/npu_model/operations/weights.h"

#include "runtime/npu_model/fwd_decoder.h"
#include "runtime/npu_model/mlw_decoder.h"
#include "runtime/npu_model/sparse_weights.h"

namespace pte {
namespace npu_model {

namespace {

// The compressed stream's values (one value of headroom tells a stream that holds too many from one that
// fits exactly).
Result<Span<const int16_t>> decode_compressed(const OperationContext& context, Span<const uint8_t> encoded,
                                              size_t expected) {
  PTE_ASSIGN_OR_RETURN(int16_t * decoded, context.scratch.allocate_array<int16_t>(expected + 1, "decoded weights"));
  PTE_ASSIGN_OR_RETURN(int32_t * decoder_scratch,
                       context.scratch.allocate_array<int32_t>(kWeightDecoderScratchWords, "the weight decoder"));
  PTE_ASSIGN_OR_RETURN(const size_t count, decode_weights(encoded, Span<int16_t>(decoded, expected + 1),
                                                          Span<int32_t>(decoder_scratch, kWeightDecoderScratchWords)));
  return Span<const int16_t>(decoded, count);
}

Result<Span<const int16_t>> decode_fast(const OperationContext& context, Span<const uint8_t> encoded, size_t expected) {
  PTE_ASSIGN_OR_RETURN(int16_t * decoded, context.scratch.allocate_array<int16_t>(expected, "decoded weights"));
  PTE_RETURN_IF_ERROR(decode_fast_weights(encoded, Span<int16_t>(decoded, expected)));
  return Span<const int16_t>(decoded, expected);
}

}  // namespace

Result<KernelWeights> load_weights(const OperationContext& context, WeightLayout layout, WeightEncoding encoding) {
  const RegisterFile& registers = context.registers;
  layout.ofm_block_depth = registers.get(Cmd0::NPU_SET_OFM_BLK_DEPTH_M1) + 1;
  if (layout.generation == NpuProduct::kEthosU55) {
    layout.ofm_ublock_depth = context.architecture.ofm_ublock_depth;
    layout.ifm_ublock_depth = context.architecture.ifm_ublock_depth;
  }

  const uint64_t weight_length = registers.address(Cmd1::NPU_SET_WEIGHT_LENGTH);
  PTE_ASSIGN_OR_RETURN(const uint8_t* encoded,
                       context.memory.region_bytes(registers.get(Cmd0::NPU_SET_WEIGHT_REGION) & 0x7,
                                                   registers.address(Cmd1::NPU_SET_WEIGHT_BASE), weight_length,
                                                   "the weight stream"));
  const size_t expected = stream_values(layout);
  const Span<const uint8_t> stream(encoded, static_cast<size_t>(weight_length));
  PTE_ASSIGN_OR_RETURN(const Span<const int16_t> values, encoding.fast ? decode_fast(context, stream, expected)
                                                                       : decode_compressed(context, stream, expected));
  PTE_ASSIGN_OR_RETURN(int16_t * ohwi, context.scratch.allocate_array<int16_t>(layout.dense_size(), "weights"));
  PTE_RETURN_IF_ERROR(unpack_weights(values, layout, Span<int16_t>(ohwi, layout.dense_size())));
  if (layout.sparse) PTE_RETURN_IF_ERROR(check_sparse_weights(layout, Span<const int16_t>(ohwi, layout.dense_size())));

  PTE_ASSIGN_OR_RETURN(const ChannelScale* scales, load_scales(context, layout.ofm_depth, encoding.scales));
  return KernelWeights{layout, ohwi, scales};
}

Result<const ChannelScale*> load_scales(const OperationContext& context, int channels, ScaleEntryFormat format) {
  const RegisterFile& registers = context.registers;
  const uint64_t scale_length = registers.address(Cmd1::NPU_SET_SCALE_LENGTH);
  PTE_ASSIGN_OR_RETURN(const uint8_t* scale_bytes,
                       context.memory.region_bytes(registers.get(Cmd0::NPU_SET_SCALE_REGION) & 0x7,
                                                   registers.address(Cmd1::NPU_SET_SCALE_BASE), scale_length,
                                                   "the scale stream"));
  PTE_ASSIGN_OR_RETURN(ChannelScale * scales,
                       context.scratch.allocate_array<ChannelScale>(static_cast<size_t>(channels), "scales"));
  PTE_RETURN_IF_ERROR(read_channel_scales(Span<const uint8_t>(scale_bytes, static_cast<size_t>(scale_length)), format,
                                          Span<ChannelScale>(scales, static_cast<size_t>(channels))));
  return static_cast<const ChannelScale*>(scales);
}

}  // namespace npu_model
}  // namespace pte

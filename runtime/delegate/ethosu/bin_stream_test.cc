// The Vela bin stream parser on streams built here block by block, valid and broken in every field.
#include <cstring>
#include <string>
#include <vector>

#include "runtime/delegate/ethosu/bin_stream.h"
#include "runtime/testing/unit_test.h"

namespace pte {
namespace ethosu {
namespace {

void put_u32(std::vector<uint8_t>& bytes, uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

struct Block {
  std::string name;
  std::vector<uint8_t> data;
  // Written into the header instead of data.size() when set.
  long declared_length = -1;
  uint8_t external = 0;
};

std::vector<uint8_t> io_block(std::initializer_list<std::vector<int32_t>> tensors) {
  std::vector<uint8_t> bytes;
  put_u32(bytes, static_cast<uint32_t>(tensors.size()));
  for (const std::vector<int32_t>& fields : tensors) {
    for (int32_t field : fields) put_u32(bytes, static_cast<uint32_t>(field));
  }
  return bytes;
}

std::vector<Block> valid_blocks() {
  std::vector<uint8_t> scratch_size;
  put_u32(scratch_size, 256);
  return {
      {"vela_bin_stream", {}},
      {"cmd_data", std::vector<uint8_t>(8, 0xab)},
      {"weight_data", std::vector<uint8_t>(20, 0x11)},
      {"scratch_size", scratch_size},
      // shape (6), element size, offset, region.
      {"inputs", io_block({{1, 1, 1, 1, 4, 8, 1, 0, 1}})},
      {"outputs", io_block({{1, 1, 1, 1, 2, 8, 1, 128, 1}, {1, 1, 1, 1, 1, 1, 4, 144, 1}})},
      {"vela_end_stream", {}},
  };
}

std::vector<uint8_t> serialize(const std::vector<Block>& blocks) {
  std::vector<uint8_t> bytes;
  for (const Block& block : blocks) {
    char name[16] = {};
    std::strncpy(name, block.name.c_str(), sizeof(name));
    bytes.insert(bytes.end(), name, name + sizeof(name));
    put_u32(bytes, block.declared_length >= 0 ? static_cast<uint32_t>(block.declared_length)
                                              : static_cast<uint32_t>(block.data.size()));
    bytes.push_back(block.external);
    bytes.insert(bytes.end(), 11, 0);
    bytes.insert(bytes.end(), block.data.begin(), block.data.end());
    bytes.insert(bytes.end(), (16 - block.data.size() % 16) % 16, 0);
  }
  return bytes;
}

Result<VelaBinStream> parse(const std::vector<uint8_t>& bytes) {
  return parse_vela_bin_stream(Span<const uint8_t>(bytes.data(), bytes.size()));
}

TEST(parses_every_block) {
  const std::vector<uint8_t> bytes = serialize(valid_blocks());
  ASSERT_OK_AND_ASSIGN(const VelaBinStream stream, parse(bytes));
  EXPECT_EQ(stream.command_stream.size(), 8u);
  EXPECT_EQ(stream.command_stream[0], 0xab);
  EXPECT_EQ(stream.weights.size(), 20u);
  EXPECT_EQ(stream.scratch_size, 256u);
  EXPECT_EQ(stream.inputs.size(), 1u);
  EXPECT_EQ(stream.outputs.size(), 2u);
  const VelaIo input = stream.inputs.at(0);
  EXPECT_EQ(input.shape[4], 4);
  EXPECT_EQ(input.byte_size(), 32u);
  const VelaIo second_output = stream.outputs.at(1);
  EXPECT_EQ(second_output.element_size, 4);
  EXPECT_EQ(second_output.offset, 144);
  EXPECT_EQ(second_output.region, 1);
}

TEST(every_truncation_is_reported) {
  const std::vector<uint8_t> bytes = serialize(valid_blocks());
  for (size_t size = 0; size < bytes.size(); ++size) {
    EXPECT_TRUE(parse_vela_bin_stream(Span<const uint8_t>(bytes.data(), size)).code() == Error::kInvalidDelegateBlob);
  }
  EXPECT_ERROR(parse_vela_bin_stream(Span<const uint8_t>(bytes.data(), 40)), Error::kInvalidDelegateBlob,
               "truncated: block 'cmd_data' expected at offset 32, only 8 bytes remain");
}

TEST(a_length_past_the_end_is_reported) {
  std::vector<Block> blocks = valid_blocks();
  blocks[2].declared_length = 1 << 20;
  EXPECT_ERROR(parse(serialize(blocks)), Error::kInvalidDelegateBlob,
               "truncated: block 'weight_data' at offset 80 declares 1048576 bytes");
}

TEST(blocks_must_come_in_order) {
  std::vector<Block> blocks = valid_blocks();
  std::swap(blocks[1], blocks[2]);
  EXPECT_ERROR(parse(serialize(blocks)), Error::kInvalidDelegateBlob,
               "block at offset 32 is 'weight_data', expected 'cmd_data'");
}

TEST(trailing_bytes_are_reported) {
  std::vector<uint8_t> bytes = serialize(valid_blocks());
  bytes.insert(bytes.end(), 16, 0);
  EXPECT_ERROR(parse(bytes), Error::kInvalidDelegateBlob, "16 bytes follow the end-of-stream block");
}

TEST(external_blocks_are_refused) {
  std::vector<Block> blocks = valid_blocks();
  blocks[2].external = 1;
  EXPECT_ERROR(parse(serialize(blocks)), Error::kInvalidDelegateBlob, "block 'weight_data' refers to external data");
}

TEST(markers_must_be_empty_and_commands_whole_words) {
  std::vector<Block> blocks = valid_blocks();
  blocks[0].data = {1, 2, 3};
  EXPECT_ERROR(parse(serialize(blocks)), Error::kInvalidDelegateBlob, "block 'vela_bin_stream' must be empty");
  blocks = valid_blocks();
  blocks[1].data = {1, 2, 3};
  EXPECT_ERROR(parse(serialize(blocks)), Error::kInvalidDelegateBlob, "cmd_data has 3 bytes");
  blocks = valid_blocks();
  blocks[3].data = {1, 2};
  EXPECT_ERROR(parse(serialize(blocks)), Error::kInvalidDelegateBlob, "scratch_size must hold 4 bytes, has 2");
}

TEST(io_tables_are_checked) {
  std::vector<Block> blocks = valid_blocks();
  blocks[4].data = io_block({{1, 1, 1, 1, 4, 8, 1, 0, 1}, {1, 1, 1, 1, 4, 8, 1, 0, 1}});
  blocks[4].data.resize(blocks[4].data.size() - 4);
  EXPECT_ERROR(parse(serialize(blocks)), Error::kInvalidDelegateBlob,
               "block 'inputs' declares 2 tensors but holds 72 bytes (36 each)");

  blocks[4].data = io_block({{1, 1, 1, 1, 4, 8, 3, 0, 1}});
  EXPECT_ERROR(parse(serialize(blocks)), Error::kInvalidDelegateBlob, "inputs[0] has element size 3");

  blocks[4].data = io_block({{1, 1, 1, 1, -4, 8, 1, 0, 1}});
  EXPECT_ERROR(parse(serialize(blocks)), Error::kInvalidDelegateBlob, "inputs[0] has an invalid shape dim -4");

  blocks[4].data = io_block({{1, 1, 1, 1, 4, 8, 1, 0, 9}});
  EXPECT_ERROR(parse(serialize(blocks)), Error::kInvalidDelegateBlob, "inputs[0] has region 9");

  blocks[4].data = io_block({{1, 1, 1, 1, 4, 8, 1, 240, 1}});
  EXPECT_ERROR(parse(serialize(blocks)), Error::kInvalidDelegateBlob,
               "inputs[0] spans scratch bytes [240, +32), beyond the 256-byte scratch area");
}

}  // namespace
}  // namespace ethosu
}  // namespace pte

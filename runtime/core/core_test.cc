// The core vocabulary: Status messages and context, Result, the bump arena, number formatting, strides
// and the .pte extended header.
#include <cstring>
#include <vector>

#include "runtime/core/arena.h"
#include "runtime/core/checked_math.h"
#include "runtime/core/decimal_text.h"
#include "runtime/core/extended_header.h"
#include "runtime/core/tensor.h"
#include "runtime/testing/unit_test.h"

namespace pte {
namespace {

TEST(status_carries_code_message_and_context) {
  const Status status = Status::failure(Error::kInvalidProgram, "value %d is bad", 7).with_context("method '%s'", "f");
  EXPECT_EQ(status.code(), Error::kInvalidProgram);
  EXPECT_TRUE(std::strcmp(status.message(), "method 'f': value 7 is bad") == 0);
  EXPECT_TRUE(Status().ok());
  EXPECT_TRUE(std::strcmp(error_name(Error::kArenaTooSmall), "ArenaTooSmall") == 0);
}

TEST(status_messages_are_truncated_not_overflowed) {
  std::vector<char> long_text(1000, 'x');
  long_text.back() = '\0';
  const Status status = Status::failure(Error::kInvalidArgument, "%s", long_text.data()).with_context("%s", "context");
  EXPECT_EQ(std::strlen(status.message()), Status::kMessageCapacity - 1);
  EXPECT_TRUE(std::strncmp(status.message(), "context: xxx", 12) == 0);
}

Result<int> half(int value) {
  if (value % 2 != 0) return Status::failure(Error::kInvalidArgument, "%d is odd", value);
  return value / 2;
}

Result<int> quarter(int value) {
  PTE_ASSIGN_OR_RETURN(const int halved, half(value));
  return half(halved);
}

TEST(result_holds_a_value_or_a_status) {
  ASSERT_OK_AND_ASSIGN(const int value, quarter(12));
  EXPECT_EQ(value, 3);
  EXPECT_ERROR(quarter(6), Error::kInvalidArgument, "3 is odd");
}

TEST(arena_aligns_counts_and_reports_the_size_needed) {
  alignas(16) uint8_t memory[64];
  BumpArena arena(memory, sizeof(memory));
  ASSERT_OK_AND_ASSIGN(void* first, arena.allocate(3, 1, "first"));
  ASSERT_OK_AND_ASSIGN(uint64_t* second, arena.allocate_array<uint64_t>(2, "second"));
  EXPECT_TRUE(first == memory);
  EXPECT_TRUE(reinterpret_cast<uintptr_t>(second) % alignof(uint64_t) == 0);
  EXPECT_EQ(second[0], 0u);
  EXPECT_EQ(arena.used(), 8u + 16u);
  EXPECT_ERROR(arena.allocate(100, 4, "the table"), Error::kArenaTooSmall,
               "the table needs 100 bytes at offset 24, the arena has 64 (give at least 124 bytes)");
  EXPECT_EQ(arena.used(), 24u);
}

TEST(decimal_text_spans_int64) {
  EXPECT_TRUE(std::strcmp(DecimalText(uint64_t{18446744073709551615u}).c_str(), "18446744073709551615") == 0);
  EXPECT_TRUE(std::strcmp(DecimalText(INT64_MIN).c_str(), "-9223372036854775808") == 0);
  EXPECT_TRUE(std::strcmp(DecimalText(int64_t{0}).c_str(), "0") == 0);
}

TEST(strides_follow_the_dim_order) {
  const int32_t sizes[] = {2, 3, 4, 5};
  const uint8_t contiguous[] = {0, 1, 2, 3};
  const uint8_t channels_last[] = {0, 2, 3, 1};
  int32_t strides[4];
  EXPECT_OK(compute_strides(Span<const int32_t>(sizes), Span<const uint8_t>(contiguous), Span<int32_t>(strides)));
  EXPECT_TRUE(strides[0] == 60 && strides[1] == 20 && strides[2] == 5 && strides[3] == 1);
  EXPECT_OK(compute_strides(Span<const int32_t>(sizes), Span<const uint8_t>(channels_last), Span<int32_t>(strides)));
  EXPECT_TRUE(strides[0] == 60 && strides[1] == 1 && strides[2] == 15 && strides[3] == 3);
}

// ExecuTorch's rule: a zero-sized dim counts as 1 for the strides of the dims outside it.
TEST(strides_step_over_a_zero_sized_dim) {
  const int32_t sizes[] = {2, 0, 4};
  const uint8_t contiguous[] = {0, 1, 2};
  int32_t strides[3];
  EXPECT_OK(compute_strides(Span<const int32_t>(sizes), Span<const uint8_t>(contiguous), Span<int32_t>(strides)));
  EXPECT_TRUE(strides[0] == 4 && strides[1] == 4 && strides[2] == 1);
}

// The fuzzer's find (regressions/pte_loader/pte_loader_ubsan_tensor_strides.pte): a zero-sized dim hid a
// 16 * 1107296256 stride product from the element count, and the stride arithmetic overflowed int32.
TEST(strides_that_overflow_int32_are_an_error) {
  const int32_t sizes[] = {0, 1107296256, 16};
  const uint8_t contiguous[] = {0, 1, 2};
  int32_t strides[3];
  EXPECT_ERROR(compute_strides(Span<const int32_t>(sizes), Span<const uint8_t>(contiguous), Span<int32_t>(strides)),
               Error::kInvalidProgram, "the strides of shape [0, 1107296256, 16] overflow int32");
}

TEST(checked_math_refuses_what_does_not_fit) {
  int32_t product = 0;
  EXPECT_TRUE(checked_mul<int32_t>(46340, 46340, &product) && product == 2147395600);
  EXPECT_TRUE(!checked_mul<int32_t>(16, 1107296256, &product));
  uint32_t sum = 0;
  EXPECT_TRUE(!checked_add<uint32_t>(0xFFFFFFF0u, 0x10u, &sum));
  EXPECT_TRUE(checked_add<uint32_t>(0xFFFFFFF0u, 0xFu, &sum) && sum == 0xFFFFFFFFu);
  size_t size = 0;
  EXPECT_TRUE(!checked_cast<size_t>(int64_t{-1}, &size));
  uint32_t narrow = 0;
  EXPECT_TRUE(!checked_cast<uint32_t>(uint64_t{1} << 32, &narrow));
  EXPECT_TRUE(checked_cast<uint32_t>(uint64_t{7}, &narrow) && narrow == 7);
  EXPECT_TRUE(range_within(4, 4, 8) && !range_within(5, 4, 8) && !range_within(9, 0, 8));
  EXPECT_TRUE(!range_within(UINT64_MAX, 2, UINT64_MAX));
  size_t aligned = 0;
  EXPECT_TRUE(checked_align_up(17, 16, &aligned) && aligned == 32);
  EXPECT_TRUE(!checked_align_up(SIZE_MAX - 3, 16, &aligned));
}

std::vector<uint8_t> header_bytes(uint32_t length, uint64_t program_size, uint64_t segment_base, uint64_t segment_size,
                                  size_t total) {
  std::vector<uint8_t> bytes(total, 0);
  std::memcpy(bytes.data() + 8, "eh00", 4);
  const uint64_t fields[] = {program_size, segment_base, segment_size};
  for (int i = 0; i < 4; ++i) bytes[12 + i] = static_cast<uint8_t>(length >> (8 * i));
  for (int f = 0; f < 3; ++f) {
    for (int i = 0; i < 8; ++i) bytes[16 + 8 * f + i] = static_cast<uint8_t>(fields[f] >> (8 * i));
  }
  return bytes;
}

Result<ExtendedHeader> read(const std::vector<uint8_t>& bytes) {
  return read_extended_header(Span<const uint8_t>(bytes.data(), bytes.size()));
}

TEST(extended_header_is_read_and_checked_against_the_buffer) {
  ASSERT_OK_AND_ASSIGN(const ExtendedHeader header, read(header_bytes(32, 64, 128, 32, 160)));
  EXPECT_TRUE(header.present);
  EXPECT_EQ(header.program_size, 64u);
  EXPECT_EQ(header.segment_base_offset, 128u);
  EXPECT_EQ(header.segment_data_size, 32u);

  ASSERT_OK_AND_ASSIGN(const ExtendedHeader absent, read(std::vector<uint8_t>(48, 0)));
  EXPECT_TRUE(!absent.present);
  EXPECT_EQ(absent.program_size, 48u);

  EXPECT_ERROR(read(header_bytes(8, 64, 0, 0, 160)), Error::kInvalidProgram, "extended header length 8 is invalid");
  EXPECT_ERROR(read(header_bytes(32, 4096, 0, 0, 160)), Error::kInvalidProgram,
               "the header says the flatbuffer is 4096 bytes, the buffer has 160");
  EXPECT_ERROR(read(header_bytes(32, 64, 32, 0, 160)), Error::kInvalidProgram,
               "segment base offset 32 lies outside the segment area [64, 160]");
  EXPECT_ERROR(read(header_bytes(32, 64, 128, 64, 160)), Error::kInvalidProgram,
               "segments need 64 bytes from offset 128, the buffer has 160");
}

}  // namespace
}  // namespace pte

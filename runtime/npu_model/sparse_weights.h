// The Ethos-U85's 2:4 structured sparsity (WEIGHT_FORMAT's sparse bit, convolutions only). Vela stores
// the weights as it would dense ones, zeros included, in the sparse stream order (weight_layout.h); the
// format promises the MAC array that in every kernel position of every OFM channel, each run of 4 IFM
// channels starting at a multiple of 4 holds at most 2 non-zero weights (channels past the IFM depth
// count as zeros). Vela tries the format on every convolution, drops it where the weights break that
// rule, and keeps it where its cycle estimate says the array gains. A stream that breaks the rule has no
// sparse meaning; one that keeps it sums to the dense convolution, the zeros adding nothing.
#pragma once

#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/npu_model/weight_layout.h"

namespace pte {
namespace npu_model {

// IFM channels per run, and how many weights of a run the MAC array multiplies.
constexpr int kSparseRunChannels = 4;
constexpr int kSparseRunWeights = 2;

// kDelegateFailed naming the first run of `ohwi` (layout.dense_size() weights, [ofm][ky][kx][ifm]) with
// more than kSparseRunWeights non-zero weights.
Status check_sparse_weights(const WeightLayout& layout, Span<const int16_t> ohwi);

}  // namespace npu_model
}  // namespace pte

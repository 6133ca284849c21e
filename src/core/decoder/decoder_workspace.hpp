// The decoder's batched engine: sequences of mixed lengths as one [rows, d] matrix, buffers reused across calls.
#pragma once

#include <optional>
#include <vector>

#include "core/decoder/decoder.hpp"
#include "core/decoder/decoder_positions.hpp"

namespace rv {

// Sequences of any lengths laid end to end: sequence s is rows start[s] .. start[s] + length[s] - 1 of the batch.
// clear() keeps the capacity, so refilling a batch of no more rows than before allocates nothing.
struct SequenceBatch {
  std::vector<long long> tokens, targets;  // [rows]: input ids, next-token targets (-1 = no loss)
  std::vector<long long> position;         // [rows]; empty: row t of a sequence is at position t
  std::vector<int> start, length;          // [sequences]
  int max_length = 0;

  int rows() const { return static_cast<int>(tokens.size()); }
  int sequences() const { return static_cast<int>(start.size()); }
  void clear();
  // Appends a sequence of T rows (tokens and targets -1; at positions 0..T-1) and returns the row it starts at.
  int append(int T);
  // Sequence s at positions p[0 .. length[s] - 1] (docs/lab.md: non-negative, any
  // order; causality stays by row). The other sequences keep theirs (0..T-1 unless set).
  void set_positions(int s, const long long* p);
};
// The rows of a rectangular batch, one sequence each, at `positions` ([B][T] like tokens) when given.
SequenceBatch sequence_batch(const TokenRows& tokens, const TokenRows& targets, const TokenRows* positions = nullptr);
// decoder_forward's errors for a batch: empty, token id outside [0, vocab), target outside [-1, vocab), positions
// not one per row or negative (BadRequest), a learned position past the table (IndexError of the first such
// position, by row). (Config and weights are checked by check_decoder_config / check_decoder_weights.)
std::optional<Error> check_sequence_batch(const DecoderConfig& c, const SequenceBatch& b);

// What one layer keeps for the backward pass
template <class S>
struct LayerBuffers {
  RowMat<S> h_in, n1, a, qkv;              // [rows, *]; qkv = [q | k | v], q and k after rope
  RowMat<S> o, h_mid, n2, b, u, cdf, g;    // [query rows, *] (the last layer's: out_rows); cdf = Phi(u)
  RowMat<S> p;  // attention probabilities [query rows, heads * stride]: query i of head n attends to j at column
                // n * stride + j (DecoderWorkspace::stride)
  Eigen::Matrix<S, Eigen::Dynamic, 1> r1, r2;  // 1/rms per row
};

// Every buffer of a forward and backward pass. Buffers grow to the largest batch seen and never shrink; after the
// first call for a config and batch size, batch_forward and batch_backward allocate nothing.
template <class S>
struct DecoderWorkspace {
  std::optional<DecoderConfig> config;  // the config the buffers are shaped for (another one starts afresh)
  int rows = 0;                         // of the last batch_forward
  S loss = 0;
  long long counted = 0;                 // targets >= 0
  std::vector<LayerBuffers<S>> layer;    // [layers] (one, reused by every layer, without for_backward)
  RowMat<S> h;                           // residual stream [rows, d_model]
  // The last layer computes its output (and so the logits) for sequence s from position out_from[s] on: 0 with
  // all_rows, else the first target. Those rows are rows out_start[s].. of out_rows: of the last layer's
  // post-attention buffers, of out (its residual stream) and of the final norm, logits and dlogits.
  std::vector<int> out_from, out_start;
  int out_rows = 0;
  RowMat<S> out, n_f, f, logits, dlogits;  // [out_rows, d_model] x3, [out_rows, vocab] x2
  Eigen::Matrix<S, Eigen::Dynamic, 1> r_f;
  // Row r of the last batch_forward is at position[r]: the batch's positions, or t for row t of a sequence.
  std::vector<long long> position;  // [rows]
  int stride = 0;  // the longest sequence seen: the column stride of each head's probabilities in LayerBuffers::p
  // Position tables for positions 0..table_rows-1, grown to the largest position seen (not only the longest sequence).
  long long table_rows = 0;
  detail::PositionTables<S> pos;  // positions 0 .. table_rows - 1 (decoder_positions.hpp)
  // Score bias by distance r = p_i - p_j, [heads, before + table_rows]: column before + r is distance r, from
  // -before (the most a later row's position falls below an earlier one's; 0 for sorted positions) to table_rows - 1
  // (alibi: -slope * r; t5: rel_bias of bucket(max(r, 0))). Grown, never shrunk.
  long long before = 0;
  RowMat<S> bias;
  std::vector<RowMat<S>> wqkv;  // [wq | wk | wv] per layer  # [d_model, 3*d_model]
  // backward
  RowMat<S> dh, dout, dff, dd, dqkv, dp, d_bias;  // [rows, d_model], [out_rows, d_model], [rows, d_ff],
                                                  // [rows, d_model], [rows, 3*d_model], [1, stride] scratch, as bias
  std::vector<S> wt;                        // a weight transposed for matmul_nt (grown to the largest)
  std::vector<RowMat<S>> g_qkv;             // gradient of [wq | wk | wv] per layer
  DecoderWeightsT<S> grad;                  // d loss / d weights after batch_backward
};

// Runs the forward pass of a valid batch (check_sequence_batch) and returns the mean cross-entropy over its targets
// >= 0 (0 when there are none); ws.logits holds [out_rows, vocab]: every row with all_rows (then out_start = start),
// else each sequence from its first target on, all the loss needs (the last layer skips the rest). for_backward
// keeps every layer's buffers and the gradient of the loss at the logits, for batch_backward.
template <class S>
S batch_forward(const DecoderConfig& c, const DecoderWeightsT<S>& w, const SequenceBatch& b, DecoderWorkspace<S>& ws,
                bool for_backward, bool all_rows = false);
// d(mean cross-entropy)/d(every weight) into ws.grad, after batch_forward(c, w, b, ws, true) with counted > 0.
template <class S>
void batch_backward(const DecoderConfig& c, const DecoderWeightsT<S>& w, const SequenceBatch& b,
                    DecoderWorkspace<S>& ws);

}  // namespace rv

// A learned absolute position table as trained (docs/real-weights.md): where a checkpoint keeps it, and what it
// looks like: row norms, neighbour cosines, cosine by offset, the centred table's spectrum, rank and top components.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/base/matrix.hpp"
#include "core/weights/checkpoint.hpp"

namespace rv {

struct LearnedTableAnalysis {
  long long rows = 0, dim = 0;
  Eigen::VectorXd row_norm;         // [rows] ||P[t]||
  Eigen::VectorXd neighbour_cos;    // [rows - 1] cos(P[t], P[t+1])
  Eigen::VectorXd cos_by_offset;    // [K + 1], K = min(rows - 1, 256): mean over t < rows - k of cos(P[t], P[t+k])
  Eigen::VectorXd singular_values;  // of C = P - mean row, descending, min(rows, dim) of them
  Eigen::VectorXd energy;           // energy[k-1]: the top k squared singular values' share of their total
  int rank90 = 0, rank99 = 0;       // the smallest k whose energy reaches 0.90 / 0.99 (0 when C is zero)
  RowMatrixXd components;           // [rows, min(3, ...)]: U[:, j] s_j, signed so its largest-magnitude entry is > 0
};

// A cosine with a zero vector is 0. P is the position rows only (offset rows already dropped).
// The spectrum comes from the smaller Gram matrix of the centred table (learned_table.cpp says what that costs).
LearnedTableAnalysis analyze_learned_table(const RowMatrixXd& P);

// The mean and the (population) standard deviation of v, as a panel's "0.97 +- 0.02"; both 0 when v is empty.
struct MeanSd {
  double mean = 0.0, sd = 0.0;
};
MeanSd mean_sd(const Eigen::VectorXd& v);

// The row of P that sample i of `side` evenly spaced ones is: round down i (rows - 1) / (side - 1), so the first
// and the last row are always sampled; 0 when side is 1.
Eigen::Index sampled_row(Eigen::Index rows, Eigen::Index side, Eigen::Index i);
// cos(P[a], P[b]) for the rows a, b sampled_row picks, [n, n] with n = min(side, rows): the cosine heatmap of a table.
// A cosine with a zero row is 0 (and a zero row's own cosine too).
RowMatrixXd sampled_cosines(const RowMatrixXd& P, int side);

// The names a position table is saved under, in the order they are looked for: wpe.weight (GPT-2, GPT-Neo,
// GPT-BigCode), decoder.embed_positions.weight (OPT), embeddings.position_embeddings.weight (BERT, RoBERTa,
// DistilBERT), each bare and under transformer., model., bert., roberta., distilbert.; last, pos_emb (the lab's).
std::vector<std::string> learned_table_names();
// Those names in words, for a message that says what was looked for: "wpe.weight, decoder.embed_positions.weight and
// embeddings.position_embeddings.weight (bare or under transformer., ...) and the lab's pos_emb".
std::string learned_table_names_words();
// Rows at the top of the table that are not positions: 2 for OPT and RoBERTa, else 0.
int learned_table_offset(const std::string& model_type);

struct FoundTable {
  const TensorInfo* tensor = nullptr;
  RowMatrixXd positions;  // the table without its offset rows
  int offset = 0;
};
// The named tensor, or the first of learned_table_names() present; a BadRequest that lists the names looked for
// and what the checkpoint holds when there is none, or names the tensor when it is not a 2-D table.
Expected<FoundTable> find_learned_table(Checkpoint& c, const std::string& tensor, int offset);

}  // namespace rv

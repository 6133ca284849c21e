// The learned position table's analysis and where checkpoints keep it (core/weights/learned_table.hpp).
#include "core/weights/learned_table.hpp"

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>

namespace rv {
namespace {
double cosine(const RowMatrixXd& P, const Eigen::VectorXd& norm, Eigen::Index a, Eigen::Index b) {
  const double n = norm[a] * norm[b];
  return n > 0 ? P.row(a).dot(P.row(b)) / n : 0.0;
}
}  // namespace

LearnedTableAnalysis analyze_learned_table(const RowMatrixXd& P) {
  LearnedTableAnalysis a;
  a.rows = P.rows();
  a.dim = P.cols();
  const Eigen::Index rows = P.rows();
  a.row_norm = P.rowwise().norm();
  a.neighbour_cos.resize(std::max<Eigen::Index>(rows - 1, 0));
  for (Eigen::Index t = 0; t + 1 < rows; ++t) a.neighbour_cos[t] = cosine(P, a.row_norm, t, t + 1);
  const Eigen::Index K = std::min<Eigen::Index>(std::max<Eigen::Index>(rows - 1, 0), 256);
  a.cos_by_offset.resize(rows ? K + 1 : 0);
  for (Eigen::Index k = 0; rows && k <= K; ++k) {
    double sum = 0;
    for (Eigen::Index t = 0; t + k < rows; ++t) sum += cosine(P, a.row_norm, t, t + k);
    a.cos_by_offset[k] = sum / double(rows - k);
  }
  if (rows == 0 || P.cols() == 0) return a;
  const RowMatrixXd C = P.rowwise() - P.colwise().mean();
  Eigen::BDCSVD<Eigen::MatrixXd> svd(C, Eigen::ComputeThinU);
  a.singular_values = svd.singularValues();
  const Eigen::VectorXd sq = a.singular_values.array().square();
  const double total = sq.sum();
  a.energy.resize(sq.size());
  double running = 0;
  for (Eigen::Index k = 0; k < sq.size(); ++k) {
    running += sq[k];
    a.energy[k] = total > 0 ? running / total : 0.0;
    if (total > 0 && !a.rank90 && a.energy[k] >= 0.90) a.rank90 = int(k + 1);
    if (total > 0 && !a.rank99 && a.energy[k] >= 0.99) a.rank99 = int(k + 1);
  }
  const Eigen::Index n = std::min<Eigen::Index>(3, a.singular_values.size());
  a.components.resize(rows, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    Eigen::VectorXd c = svd.matrixU().col(j) * a.singular_values[j];
    Eigen::Index at = 0;
    c.cwiseAbs().maxCoeff(&at);
    if (c[at] < 0) c = -c;
    a.components.col(j) = c;
  }
  return a;
}

std::vector<std::string> learned_table_names() {
  std::vector<std::string> out;
  for (const char* name : {"wpe.weight", "decoder.embed_positions.weight", "embeddings.position_embeddings.weight"})
    for (const char* prefix : {"", "transformer.", "model.", "bert.", "roberta.", "distilbert."})
      out.push_back(std::string(prefix) + name);
  out.push_back("pos_emb");  // the lab's saved weights (core/lab/lab_checkpoint.hpp)
  return out;
}

int learned_table_offset(const std::string& model_type) {
  return model_type == "opt" || model_type == "roberta" ? 2 : 0;
}

Expected<FoundTable> find_learned_table(Checkpoint& c, const std::string& tensor, int offset) {
  FoundTable f;
  f.offset = offset;
  if (!tensor.empty()) {
    f.tensor = c.find(tensor);
    if (!f.tensor) return bad_request("the checkpoint holds no tensor \"" + tensor + "\"");
  } else {
    for (const std::string& name : learned_table_names()) {
      auto it = std::find_if(c.tensors().begin(), c.tensors().end(), [&](const TensorInfo& t) { return t.name == name; });
      if (it != c.tensors().end()) {
        f.tensor = &*it;
        break;
      }
    }
    if (!f.tensor) {
      std::string held;
      for (std::size_t i = 0; i < c.tensors().size() && i < 20; ++i) held += (i ? ", " : "") + c.tensors()[i].name;
      if (c.tensors().size() > 20) held += ", ... (" + std::to_string(c.tensors().size()) + " tensors)";
      return bad_request("no learned position table: looked for wpe.weight, decoder.embed_positions.weight and "
                         "embeddings.position_embeddings.weight (bare or under transformer., model., bert., roberta., "
                         "distilbert.) and the lab's pos_emb; the checkpoint holds " + (held.empty() ? std::string("no tensors") : held));
    }
  }
  if (f.tensor->shape.size() != 2)
    return bad_request("tensor \"" + f.tensor->name + "\" is not a [rows, dim] table (" +
                       std::to_string(f.tensor->shape.size()) + " dimensions)");
  if (offset < 0 || offset >= f.tensor->shape[0])
    return bad_request("offset " + std::to_string(offset) + " leaves no position rows in \"" + f.tensor->name +
                       "\" (" + std::to_string(f.tensor->shape[0]) + " rows)");
  Expected<RowMatrixXd> table = c.read(*f.tensor);
  if (!table) return table.error();
  f.positions = table->bottomRows(table->rows() - offset);
  return f;
}

}  // namespace rv

// The safetensors reader, checkpoints and the learned-table analysis (core/weights/): written and read back in
// every dtype, only the header and the asked-for tensor read, names with and without the base-model prefix.
#include <doctest/doctest.h>

#include <Eigen/SVD>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "core/models/json_config.hpp"
#include "core/rope/precision.hpp"
#include "core/weights/learned_table.hpp"
#include "core/weights/real_scores.hpp"
#include "core/weights/rope_usage.hpp"
#include "llama_checkpoint.hpp"
#include "planted_checkpoint.hpp"

using namespace rv;

namespace {
// A source of a given size whose bytes past `head` are zeros, made up on demand: a 5 GB file without 5 GB.
class SparseSource final : public ByteSource {
 public:
  SparseSource(std::vector<std::uint8_t> head, std::uint64_t size) : head_(std::move(head)), size_(size) {}
  std::uint64_t size() const override { return size_; }

 private:
  std::optional<Error> read_at(std::uint64_t offset, std::uint64_t length, std::uint8_t* out) override {
    for (std::uint64_t i = 0; i < length; ++i) out[i] = offset + i < head_.size() ? head_[offset + i] : 0;
    return std::nullopt;
  }
  std::vector<std::uint8_t> head_;
  std::uint64_t size_;
};

SourceOpener memory_opener(std::map<std::string, std::vector<std::uint8_t>> files) {
  return [files](const std::string& name) -> Expected<std::unique_ptr<ByteSource>> {
    const auto it = files.find(name);
    if (it == files.end()) return Error{"IOError", "cannot open " + name};
    return std::unique_ptr<ByteSource>(new MemorySource(it->second));
  };
}

// A file of this header text followed by data_bytes (zeros unless given).
std::vector<std::uint8_t> with_header(const std::string& header, std::size_t data_bytes,
                                      const std::uint8_t* data = nullptr) {
  std::vector<std::uint8_t> file;
  for (int i = 0; i < 8; ++i) file.push_back(std::uint8_t(header.size() >> (8 * i)));
  for (char c : header) file.push_back(std::uint8_t(c));
  for (std::size_t i = 0; i < data_bytes; ++i) file.push_back(data ? data[i] : 0);
  return file;
}

std::vector<double> table_values(int rows, int dim) {
  std::vector<double> v;
  for (int t = 0; t < rows; ++t)
    for (int j = 0; j < dim; ++j) v.push_back(std::sin(0.1 * t * (j + 1)) + 0.25 * j);
  return v;
}
}  // namespace

TEST_CASE("safetensors: written and read back in F64, F32, F16 and BF16, each value rounded once to its dtype") {
  const std::vector<double> values = table_values(6, 4);
  for (const char* dtype : {"F64", "F32", "F16", "BF16"}) {
    INFO(dtype);
    auto bytes =
        write_safetensors({{"wpe.weight", {6, 4}, values}, {"bias", {4}, {1, 2, 3, 4}}}, dtype, {{"format", "pt"}});
    REQUIRE(bytes.ok());
    MemorySource src(bytes.value());
    auto h = read_safetensors_header(src, "m.safetensors");
    REQUIRE(h.ok());
    CHECK(src.bytes_read() == 8 + h->header_bytes);
    CHECK((8 + h->header_bytes) % 8 == 0);  // the data starts 8-aligned
    REQUIRE(h->tensors.size() == 2);
    CHECK(h->tensors[0].name == "bias");  // name order
    CHECK(h->metadata.at(0) == std::pair<std::string, std::string>("format", "pt"));
    auto m = read_tensor(src, h->tensors[1]);
    REQUIRE(m.ok());
    CHECK(m->rows() == 6);
    CHECK(m->cols() == 4);
    const FloatFormat f = std::string(dtype) == "F16"    ? FloatFormat::F16
                          : std::string(dtype) == "BF16" ? FloatFormat::BF16
                                                         : FloatFormat::F32;
    for (int i = 0; i < 24; ++i)
      CHECK(m->data()[i] == (std::string(dtype) == "F64" ? values[size_t(i)] : round_to(f, values[size_t(i)])));
  }
}

TEST_CASE("safetensors: float16 and bfloat16 bit patterns decode exactly, subnormals and infinities included") {
  CHECK(half_to_double(0x3C00) == 1.0);
  CHECK(half_to_double(0xC000) == -2.0);
  CHECK(half_to_double(0x7BFF) == 65504.0);
  CHECK(half_to_double(0x0001) == std::ldexp(1.0, -24));
  CHECK(std::isinf(half_to_double(0x7C00)));
  CHECK(std::isnan(half_to_double(0x7E00)));
  CHECK(bfloat16_to_double(0x3F80) == 1.0);
  CHECK(bfloat16_to_double(0x4049) == 3.140625);
}

TEST_CASE("safetensors: a 5 GB checkpoint costs its header and the one table asked for") {
  auto small = write_safetensors({{"wpe.weight", {16, 8}, table_values(16, 8)}}, "F32", {});
  REQUIRE(small.ok());
  // The same header, with a 5 GB tensor after the table: rewrite the header to declare it.
  const std::string header =
      R"({"wpe.weight":{"dtype":"F32","shape":[16,8],"data_offsets":[0,512]},)"
      R"("h.0.mlp.weight":{"dtype":"F32","shape":[1250000000],"data_offsets":[512,5000000512]}})";
  const std::vector<std::uint8_t> head = with_header(header, 512, small->data() + small->size() - 512);
  const std::size_t data_at = head.size() - 512;
  Checkpoint c =
      Checkpoint::open_file("big.safetensors", [&](const std::string&) -> Expected<std::unique_ptr<ByteSource>> {
        return std::unique_ptr<ByteSource>(new SparseSource(head, data_at + 5000000512ULL));
      }).value();
  CHECK(c.file_bytes() == data_at + 5000000512ULL);
  CHECK(c.bytes_read() == data_at);
  auto found = find_learned_table(c, "", 0);
  REQUIRE(found.ok());
  CHECK(found->positions.rows() == 16);
  CHECK(c.bytes_read() == data_at + 512);  // header + the table's 512 bytes, nothing of the 5 GB tensor
}

TEST_CASE("checkpoints: shards through an index, names with or without the base model's prefix") {
  auto one = write_safetensors({{"transformer.wte.weight", {4, 2}, std::vector<double>(8, 1.0)}}, "F32", {});
  auto two = write_safetensors({{"transformer.wpe.weight", {8, 2}, table_values(8, 2)}}, "BF16", {});
  REQUIRE(one.ok());
  REQUIRE(two.ok());
  const std::string index =
      R"({"weight_map":{"transformer.wte.weight":"a.safetensors","transformer.wpe.weight":"b.safetensors"}})";
  auto c = Checkpoint::open_index(index, memory_opener({{"a.safetensors", *one}, {"b.safetensors", *two}}));
  REQUIRE(c.ok());
  CHECK(c->tensors().size() == 2);
  CHECK(c->file_bytes() == one->size() + two->size());
  REQUIRE(c->find("wpe.weight"));  // the base model's name finds the CausalLM's
  CHECK(c->find("wpe.weight")->file == "b.safetensors");
  CHECK(c->find("transformer.wpe.weight") == c->find("wpe.weight"));
  CHECK_FALSE(c->find("wpe"));
  // An index that puts a tensor in the wrong shard, or names a shard outside its folder, is refused by name.
  auto wrong = Checkpoint::open_index(R"({"weight_map":{"transformer.wpe.weight":"a.safetensors"}})",
                                      memory_opener({{"a.safetensors", *one}}));
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().message.find("transformer.wpe.weight") != std::string::npos);
  auto outside = Checkpoint::open_index(R"({"weight_map":{"x":"../a.safetensors"}})", memory_opener({}));
  REQUIRE_FALSE(outside.ok());
  CHECK(outside.error().message.find("beside the index") != std::string::npos);
}

TEST_CASE("safetensors refusals: each names its problem, and its tensor when one is at fault") {
  const auto refuse = [](const std::string& header, std::size_t data_bytes) {
    MemorySource src(with_header(header, data_bytes));
    auto h = read_safetensors_header(src, "f");
    return h.ok() ? std::string("accepted") : h.error().message;
  };
  CHECK(refuse("[]", 0) == "safetensors header is not a JSON object");
  CHECK(refuse(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", 4)
            .find("\"t\": data_offsets [4, 0] are reversed") != std::string::npos);
  CHECK(refuse(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 4).find("outside the data") !=
        std::string::npos);
  CHECK(refuse(R"({"t":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8).find("need 12") != std::string::npos);
  CHECK(refuse(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
               R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
               12)
            .find("tensor \"b\" overlaps tensor \"a\"") != std::string::npos);
  CHECK(refuse(R"({"t":{"dtype":"Q4","shape":[2],"data_offsets":[0,2]}})", 2).find("\"Q4\"") != std::string::npos);
  CHECK(refuse(R"({"__metadata__":{"a":1}})", 0).find("must be a string") != std::string::npos);
  // 2^53 + 1 is not a double: read exactly, it is past the limit, not rounded into it
  CHECK(refuse(R"({"t":{"dtype":"F32","shape":[9007199254740993],"data_offsets":[0,4]}})", 4)
            .find("shape entries must be whole numbers") != std::string::npos);
  CHECK(refuse(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4.0]}})", 4) == "accepted");
  std::uint8_t n[8] = {0x01, 0xE1, 0xF5, 0x05, 0, 0, 0, 0};  // 100,000,001
  CHECK(safetensors_header_length(n, 1ULL << 40).error().message.find("over the limit") != std::string::npos);
  std::uint8_t m[8] = {50, 0, 0, 0, 0, 0, 0, 0};
  CHECK(safetensors_header_length(m, 20).error().message.find("past the end of the 20-byte file") != std::string::npos);
  MemorySource tiny(std::vector<std::uint8_t>{1, 2, 3});
  CHECK(read_safetensors_header(tiny, "f").error().message.find("shorter than the 8-byte") != std::string::npos);
}

TEST_CASE("learned table analysis: a rank-one table has rank 1 and neighbours at cosine 1, random rows near 0") {
  RowMatrixXd P(50, 6);
  for (int t = 0; t < 50; ++t)
    for (int j = 0; j < 6; ++j) P(t, j) = (1.0 + t) * (j + 1.0);  // every row a multiple of one direction
  const LearnedTableAnalysis a = analyze_learned_table(P);
  CHECK(a.rank90 == 1);
  CHECK(a.rank99 == 1);
  CHECK(a.neighbour_cos.minCoeff() == doctest::Approx(1.0));
  CHECK(a.cos_by_offset.size() == 50);  // K = min(rows - 1, 256) = 49
  CHECK(a.singular_values.size() == 6);
  CHECK(a.energy[0] == doctest::Approx(1.0));
  CHECK(a.components.col(0).maxCoeff() >= -a.components.col(0).minCoeff());  // signed: largest entry positive
  RowMatrixXd R(400, 64);
  std::uint64_t s = 12345;
  for (int i = 0; i < R.size(); ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    R.data()[i] = double(s >> 11) / double(1ULL << 53) - 0.5;
  }
  const LearnedTableAnalysis r = analyze_learned_table(R);
  CHECK(std::abs(r.cos_by_offset.tail(256).mean()) < 0.02);  // random rows: unrelated, whatever the offset
  CHECK(r.rank90 > 40);                                      // and no low-rank structure
  const LearnedTableAnalysis zero = analyze_learned_table(RowMatrixXd::Zero(5, 3));
  CHECK(zero.rank90 == 0);  // nothing to explain: no rank
  CHECK(zero.neighbour_cos.isZero());
}

TEST_CASE("learned table analysis: the Gram route's spectrum and components match an SVD of the centred table") {
  for (const auto& [rows, dim] : std::vector<std::pair<int, int>>{{120, 40}, {30, 90}}) {  // C^T C, then C C^T
    RowMatrixXd P(rows, dim);
    std::uint64_t s = 99;
    for (int t = 0; t < rows; ++t)
      for (int j = 0; j < dim; ++j) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        P(t, j) = 3.0 * std::sin(0.05 * t + j) + 1.5 * std::cos(0.11 * t * (1 + j % 3)) +
                  0.01 * (double(s >> 11) / double(1ULL << 53) - 0.5);
      }
    const LearnedTableAnalysis a = analyze_learned_table(P);
    const RowMatrixXd C = P.rowwise() - P.colwise().mean();
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(C, Eigen::ComputeThinU);  // the accurate one; small matrices
    const Eigen::VectorXd sv = svd.singularValues();
    REQUIRE(a.singular_values.size() == sv.size());
    // rows < dim: C has rank rows - 1 (centred), so its last singular value is 0 and the Gram route gives noise of
    // ~1e-8 s_max there (learned_table.cpp); the rest agree to rounding.
    for (Eigen::Index k = 0; k < sv.size(); ++k)
      CHECK(std::abs(a.singular_values[k] - sv[k]) <= (sv[k] > 1e-6 * sv[0] ? 1e-9 * sv[0] : 1e-7 * sv[0]));
    for (Eigen::Index j = 0; j < 3; ++j) {
      Eigen::VectorXd c = svd.matrixU().col(j) * sv[j];
      Eigen::Index at = 0;
      c.cwiseAbs().maxCoeff(&at);
      if (c[at] < 0) c = -c;
      CHECK((a.components.col(j) - c).cwiseAbs().maxCoeff() <= 1e-8 * sv[0]);
    }
    for (Eigen::Index k = 0; k < a.cos_by_offset.size(); ++k) {  // the FFT's autocorrelation against the sum itself
      double sum = 0;
      for (int t = 0; t + k < rows; ++t) sum += P.row(t).dot(P.row(t + k)) / (a.row_norm[t] * a.row_norm[t + k]);
      CHECK(a.cos_by_offset[k] == doctest::Approx(sum / double(rows - k)).epsilon(1e-12));
    }
  }
  const LearnedTableAnalysis one = analyze_learned_table(RowMatrixXd::Constant(1, 4, 2.0));  // one row: C = 0
  CHECK(one.singular_values.size() == 1);
  CHECK(one.singular_values[0] == 0.0);
  CHECK(one.components.isZero());
  CHECK(one.cos_by_offset.size() == 1);
  CHECK(one.cos_by_offset[0] == doctest::Approx(1.0));
}

TEST_CASE("sampled_cosines: the cosines of evenly spaced rows, first and last included, 0 with a zero row") {
  RowMatrixXd P(37, 5);
  for (int t = 0; t < 37; ++t)
    for (int j = 0; j < 5; ++j) P(t, j) = std::cos(0.3 * t * (j + 1)) + 0.1 * j;
  P.row(18).setZero();
  const RowMatrixXd S = sampled_cosines(P, 10);
  REQUIRE(S.rows() == 10);
  REQUIRE(S.cols() == 10);
  CHECK(sampled_row(37, 10, 0) == 0);
  CHECK(sampled_row(37, 10, 9) == 36);
  for (int a = 0; a < 10; ++a)
    for (int b = 0; b < 10; ++b) {
      const Eigen::Index ta = sampled_row(37, 10, a), tb = sampled_row(37, 10, b);
      const double na = P.row(ta).norm(), nb = P.row(tb).norm();
      const double want = na > 0 && nb > 0 ? P.row(ta).dot(P.row(tb)) / (na * nb) : 0.0;
      CHECK(S(a, b) == doctest::Approx(want).epsilon(1e-12));
    }
  CHECK(sampled_cosines(P, 100).rows() == 37);  // never more samples than rows
  CHECK(sampled_cosines(RowMatrixXd(0, 3), 8).size() == 0);
  const RowMatrixXd Z = sampled_cosines(RowMatrixXd::Zero(4, 2), 4);
  CHECK(Z.isZero());
}

// [SECTION] layer 0's real q and k (core/weights/real_scores.hpp) and the tokenizer's vocabulary

namespace {
Checkpoint llama(const test::LlamaShape& s) {
  return Checkpoint::open_file("model.safetensors", memory_opener({{"model.safetensors", test::llama_checkpoint(s)}}))
      .value();
}
RowMatrixXd whole(Checkpoint& c, const char* name) {
  return c.read(*c.find(name)).value();
}
}  // namespace

TEST_CASE("safetensors: rows of a tensor read alone, only their bytes, and a range past its rows refused by name") {
  auto bytes = write_safetensors({{"w", {6, 3}, table_values(6, 3)}}, "F32", {});
  REQUIRE(bytes.ok());
  Checkpoint c = Checkpoint::open_file("m.safetensors", memory_opener({{"m.safetensors", *bytes}})).value();
  const std::uint64_t header = c.bytes_read();
  const RowMatrixXd all = whole(c, "w");
  const std::uint64_t after_whole = c.bytes_read();
  const Expected<RowMatrixXd> rows = c.read_rows(*c.find("w"), 2, 3);
  REQUIRE(rows.ok());
  CHECK(rows->rows() == 3);
  CHECK(rows->cols() == 3);
  CHECK((*rows - all.middleRows(2, 3)).cwiseAbs().maxCoeff() == 0.0);
  CHECK(c.bytes_read() - after_whole == 3 * 3 * 4);
  CHECK(after_whole - header == 6 * 3 * 4);
  const Expected<RowMatrixXd> past = c.read_rows(*c.find("w"), 5, 2);
  REQUIRE_FALSE(past.ok());
  CHECK(past.error().message.find("\"w\" has 6 rows") != std::string::npos);
}

TEST_CASE("real_qk: layer 0's q and k by hand (RMSNorm, the head's projection rows), reading rows, not matrices") {
  test::LlamaShape s;
  Checkpoint c = llama(s);
  const HfConfig config = parse_hf_config(test::llama_config(s)).value();
  const std::uint64_t before = c.bytes_read();
  const Expected<RealQK> got = real_qk(c, config, 3, 5, 11);
  REQUIRE(got.ok());
  const std::uint64_t read = c.bytes_read() - before;
  // Two embedding rows, the norm, head 3's 8 q rows and kv head 1's 8 k rows, in float32: no whole matrix.
  CHECK(read == std::uint64_t(4 * (2 * s.hidden + s.hidden + 2 * s.head_dim * s.hidden)));
  CHECK(got->kv_head == 1);
  CHECK(got->vocab == s.vocab);
  CHECK(got->rotary_dims == 8);
  const RowMatrixXd E = whole(c, "model.embed_tokens.weight"), g = whole(c, "model.layers.0.input_layernorm.weight");
  const RowMatrixXd Wq = whole(c, "model.layers.0.self_attn.q_proj.weight");
  const RowMatrixXd Wk = whole(c, "model.layers.0.self_attn.k_proj.weight");
  const auto normed = [&](long long t) {
    const Eigen::VectorXd x = E.row(t).transpose();
    return Eigen::VectorXd((x / std::sqrt(x.squaredNorm() / s.hidden + 1e-5)).cwiseProduct(g.row(0).transpose()));
  };
  const Eigen::VectorXd q = Wq.middleRows(3 * 8, 8) * normed(5), k = Wk.middleRows(1 * 8, 8) * normed(11);
  CHECK((got->q - q).cwiseAbs().maxCoeff() < 1e-12);
  CHECK((got->k - k).cwiseAbs().maxCoeff() < 1e-12);
  // real_scores is its score against distance; a token past the embedding is PyTorch's IndexError.
  const Expected<RealScores> scores = real_scores(c, config, 3, 5, 11, 16);
  REQUIRE(scores.ok());
  const Eigen::VectorXd inv_freq = rope_inv_freq(8, s.base);
  for (int r = 0; r <= 16; ++r)
    CHECK(scores->score[r] == doctest::Approx(rope_score(q, k, r, 0, inv_freq, Pairing::HalfSplit)).epsilon(1e-12));
  const Expected<RealQK> past = real_qk(c, config, 0, s.vocab, 0);
  REQUIRE_FALSE(past.ok());
  CHECK(past.error().full() == "IndexError: index 40 is out of bounds for dimension 0 with size 40");
}

TEST_CASE("whole_head_layout: a partial-rotary half_split head scored over the whole head as the model scores it") {
  test::LlamaShape s;
  s.head_dim = 16;
  s.hidden = 64;
  s.partial_rotary = 0.5;  // 8 rotary dims: pairs (i, i + 4), dims 8..15 pass through
  Checkpoint c = llama(s);
  const HfConfig config = parse_hf_config(test::llama_config(s)).value();
  const RealScores want = real_scores(c, config, 1, 2, 9, 40).value();
  const RealQK qk = real_qk(c, config, 1, 2, 9).value();
  REQUIRE(qk.rotary_dims == 8);
  Eigen::VectorXd inv_freq = Eigen::VectorXd::Zero(8);  // the app's: the model's 4, then 0 for the pairs left alone
  inv_freq.head(4) = rope_inv_freq(8, s.base);
  const Eigen::VectorXd q = whole_head_layout(qk.q, 8, Pairing::HalfSplit);
  const Eigen::VectorXd k = whole_head_layout(qk.k, 8, Pairing::HalfSplit);
  std::vector<double> curve;
  rope_score_curve(q, k, inv_freq, Pairing::HalfSplit, 0.0, 0, 40, curve);
  REQUIRE(curve.size() == want.score.size());
  for (std::size_t r = 0; r < curve.size(); ++r) CHECK(curve[r] == doctest::Approx(want.score[r]).epsilon(1e-12));
  CHECK(q.norm() == doctest::Approx(qk.q.norm()).epsilon(1e-14));
  // Without the re-layout the half-split pairs are the wrong dims: the curve differs.
  std::vector<double> wrong;
  rope_score_curve(qk.q, qk.k, inv_freq, Pairing::HalfSplit, 0.0, 0, 40, wrong);
  double diff = 0.0;
  for (std::size_t r = 0; r < wrong.size(); ++r) diff = std::max(diff, std::abs(wrong[r] - want.score[r]));
  CHECK(diff > 1e-3);
  CHECK(whole_head_layout(qk.q, 8, Pairing::Interleaved) == qk.q);
}

TEST_CASE("supplied bytes: truncate to a mark drops the ranges after it, keeps the header's and the count read") {
  SuppliedBytes s;
  s.supply("a", 0, std::vector<std::uint8_t>(16, 1));
  s.supply("b", 0, std::vector<std::uint8_t>(8, 2));
  const SuppliedBytes::Mark m = s.mark();
  s.supply("a", 100, std::vector<std::uint8_t>(50, 3));
  s.supply("c", 0, std::vector<std::uint8_t>(30, 4));
  CHECK(s.held() == 104);
  s.truncate(m);
  CHECK(s.held() == 24);
  CHECK(s.supplied == 104);
  CHECK(s.ranges.count("c") == 0);
  REQUIRE(s.ranges["a"].size() == 1);
  CHECK(s.ranges["a"][0].offset == 0);
}

TEST_CASE("byte sources: view gives held bytes in place, reads the rest into scratch, and counts both") {
  std::vector<std::uint8_t> bytes(64);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = std::uint8_t(i * 7);
  std::vector<std::uint8_t> scratch;
  MemorySource memory(bytes);
  const Expected<const std::uint8_t*> in_memory = memory.view(8, 16, scratch);
  REQUIRE(in_memory.ok());
  CHECK(scratch.empty());  // no copy
  CHECK(std::memcmp(*in_memory, bytes.data() + 8, 16) == 0);
  CHECK(memory.bytes_read() == 16);
  CHECK(memory.view(60, 8, scratch).error().message == "bytes [60, 68) are past the end of a 64-byte file");

  SparseSource sparse(bytes, 1000);  // reads only: into scratch
  const Expected<const std::uint8_t*> read = sparse.view(4, 100, scratch);
  REQUIRE(read.ok());
  CHECK(*read == scratch.data());
  CHECK(scratch.size() == 100);
  CHECK(scratch[10] == bytes[14]);
  CHECK(scratch[99] == 0);
  CHECK(sparse.bytes_read() == 100);

  auto store = std::make_shared<SuppliedBytes>();
  store->supply("f", 32, std::vector<std::uint8_t>(bytes.begin() + 32, bytes.end()));
  SuppliedSource supplied(store, "f", 64);
  scratch = std::vector<std::uint8_t>();  // no room left from the read above
  const Expected<const std::uint8_t*> held = supplied.view(40, 8, scratch);
  REQUIRE(held.ok());
  CHECK(scratch.empty());
  CHECK(*held == store->ranges["f"][0].bytes.data() + 8);
  const Expected<const std::uint8_t*> missing = supplied.view(16, 32, scratch);  // straddles the supplied range
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().type == kNeedBytes);
  REQUIRE(store->wanted);
  CHECK(store->wanted->offset == 16);
  CHECK(store->wanted->length == 32);
  CHECK(scratch.capacity() == 0);  // a miss makes no room for bytes that are not here
  CHECK(supplied.bytes_read() == 8);
  std::vector<std::uint8_t> none{1, 2};
  CHECK_FALSE(supplied.read(0, 0, none));  // nothing asked, nothing missing
  CHECK(none.empty());
}

TEST_CASE(
    "rope_usage one layer at a time through supplied ranges, each layer's let go: the same gains as all at once") {
  test::PlantedShape shape;
  const std::vector<std::uint8_t> file = test::planted_checkpoint(shape, "BF16");
  const Expected<HfConfig> config = parse_hf_config(test::planted_config(shape));
  REQUIRE(config.ok());
  Expected<Checkpoint> whole = Checkpoint::open_file("m", memory_opener({{"m", file}}));
  REQUIRE(whole.ok());
  const Expected<RopeUsage> all = rope_usage(whole.value(), *config, {});
  REQUIRE(all.ok());
  auto store = std::make_shared<SuppliedBytes>();
  store->sizes["m"] = file.size();
  const SourceOpener open = [store](const std::string& f) -> Expected<std::unique_ptr<ByteSource>> {
    return std::unique_ptr<ByteSource>(new SuppliedSource(store, f, store->sizes[f]));
  };
  const auto serve = [&]() {  // what the page does with a want
    REQUIRE(store->wanted);
    const SuppliedBytes::Want w = *store->wanted;
    store->wanted.reset();
    store->supply(w.file, w.offset,
                  std::vector<std::uint8_t>(file.begin() + long(w.offset), file.begin() + long(w.offset + w.length)));
  };
  Expected<Checkpoint> c = Checkpoint::open_file("m", open);
  while (!c && c.error().type == kNeedBytes) {
    serve();
    c = Checkpoint::open_file("m", open);
  }
  REQUIRE(c.ok());
  const SuppliedBytes::Mark header = store->mark();
  const std::uint64_t header_bytes = store->held();
  const std::uint64_t layer_bytes = 2 * std::uint64_t(shape.heads + shape.kv_heads) * shape.head_dim * shape.hidden +
                                    2 * std::uint64_t(shape.hidden);  // bf16 (2 bytes) q, k and the norm
  for (int l = 0; l < shape.layers; ++l) {
    Expected<RopeUsage> one = rope_usage(c.value(), *config, {l});
    while (!one && one.error().type == kNeedBytes) {
      serve();
      one = rope_usage(c.value(), *config, {l});
    }
    REQUIRE(one.ok());
    CHECK(store->held() <= header_bytes + layer_bytes);
    for (int h = 0; h < shape.heads; ++h) CHECK((one->q[0][h] - all->q[l][h]).norm() == doctest::Approx(0.0));
    Eigen::Index strongest = 0;
    one->q_mean.maxCoeff(&strongest);
    CHECK(strongest == shape.planted_pair);
    store->truncate(header);
    CHECK(store->held() == header_bytes);
  }
  CHECK(store->supplied < file.size() + 1);
}

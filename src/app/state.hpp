// All of ropeviz's state in one struct: the parameters a link carries, what the core derived from
// them, and the UI's own bookkeeping. The URL, the test hook and the text layer serialise this.
#pragma once
#include <Eigen/Core>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/learned.hpp"
#include "core/rope.hpp"

namespace rv {

// What a link (URL hash, --state, window.ropeviz.set) can set. Defaults are the lesson's.
struct Params {
  long long position = 5;      // m, the query's position
  long long key_position = 3;  // n, the key's position
  int max_position = 10;       // rows of the learned table P
  int d_head = 8;
  int heads = 4;               // h; d = h * d_head
  int batch = 2;               // B
  int seq_len = 5;             // T
  int vocab = 100;             // V
  double base = 10000.0;
  Pairing pairing = Pairing::Interleaved;
  std::uint64_t seed = 123;
  int offsets = 64;            // the score curve spans m - n in [-offsets, offsets]

  int d_model() const { return heads * d_head; }
  bool operator==(const Params& o) const;
  bool operator!=(const Params& o) const { return !(*this == o); }
};

// Everything computed from Params by src/core; recomputed only when its inputs change.
struct Model {
  std::optional<Params> computed_from;   // nullopt until the first update
  Eigen::VectorXd inv_freq;               // theta_i                     [d_head/2]
  Eigen::VectorXd angles;                 // m * theta_i                 [d_head/2]
  LearnedTable table;                     // P                           [max_position, d]
  std::optional<Eigen::RowVectorXd> row;  // P[m] when m < max_position  [d]
  std::optional<Error> lookup_error;      // the IndexError otherwise
  Eigen::VectorXd q, k, v;                // seeded head vectors         [d_head]
  Eigen::VectorXd q_rot, k_rot;           // RoPE(q, m), RoPE(k, n)      [d_head]
  double score = 0.0;                     // <RoPE(q, m), RoPE(k, n)>
  double norm_max_diff = 0.0;             // | ||RoPE(q)|| - ||q|| | (max over q, k)
};

struct Rect {
  float x = 0, y = 0, w = 0, h = 0;
};

// The UI's own state: nothing here changes the math.
struct Ui {
  float scale = 1.0f;                        // device pixels per CSS/logical pixel
  std::map<std::string, Rect> rects;         // named controls, in device pixels
  std::vector<std::string> notes;            // rejected or clamped inputs, shown until dismissed
  double frame_ms = 0.0;                     // CPU time of the last frame
  long long frames = 0;
  int curve_capacity = 0;
};

struct App {
  Params params;
  Model model;
  Ui ui;
};

}  // namespace rv

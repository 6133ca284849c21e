// The rope_usage layer walk and its derived grids and sentences (app/rope_usage/usage.hpp).
#include "app/rope_usage/usage.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "app/state/model.hpp"
#include "app/state/weights.hpp"
#include "core/base/constants.hpp"
#include "core/base/format.hpp"
#include "core/weights/attention_layout.hpp"

namespace rv {
namespace {

std::uint64_t walk_bytes(const LoadedWeights& w) {
  return w.supplied ? w.supplied->supplied : w.checkpoint->bytes_read();
}

// A pair's strength in the score: q gain times k gain (the dot product of the pair's two 2-vectors scales with both).
double pair_strength(const RopeUsage& r, int i) {
  return r.q_mean[i] * r.k_mean[i];
}

// Everything the panel draws and says, from the layers measured so far: built once per layer, never per frame.
void rebuild(UsageWalk& u, const Params& p, const Model& model) {
  RopeUsage& r = u.usage;
  const int layers = int(r.q.size()), half = r.rotary_dims / 2;
  u.q_grid.assign(std::size_t(layers) * half, 0.0f);
  u.k_grid.assign(std::size_t(layers) * half, 0.0f);
  r.q_mean = Eigen::VectorXd::Zero(half);
  r.k_mean = Eigen::VectorXd::Zero(half);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(half);
  Eigen::VectorXd kind_q[2] = {zero, zero}, kind_k[2] = {zero, zero};
  int kind_layers[2] = {0, 0};  // [full, sliding]
  for (int l = 0; l < layers; ++l) {
    Eigen::VectorXd q = Eigen::VectorXd::Zero(half), k = Eigen::VectorXd::Zero(half);
    for (const Eigen::VectorXd& g : r.q[l]) q += g / double(r.q[l].size());
    for (const Eigen::VectorXd& g : r.k[l]) k += g / double(r.k[l].size());
    for (int i = 0; i < half; ++i) {
      u.q_grid[std::size_t(l) * half + i] = float(q[i]);
      u.k_grid[std::size_t(l) * half + i] = float(k[i]);
    }
    r.q_mean += q / double(layers);
    r.k_mean += k / double(layers);
    const int kind = std::size_t(l) < r.local.size() && r.local[std::size_t(l)] ? 1 : 0;
    kind_q[kind] += q;
    kind_k[kind] += k;
    ++kind_layers[kind];
  }
  u.sliding_layers = kind_layers[1];
  u.q_full = kind_layers[0] ? Eigen::VectorXd(kind_q[0] / kind_layers[0]) : Eigen::VectorXd();
  u.k_full = kind_layers[0] ? Eigen::VectorXd(kind_k[0] / kind_layers[0]) : Eigen::VectorXd();
  u.q_sliding = kind_layers[1] ? Eigen::VectorXd(kind_q[1] / kind_layers[1]) : Eigen::VectorXd();
  u.k_sliding = kind_layers[1] ? Eigen::VectorXd(kind_k[1] / kind_layers[1]) : Eigen::VectorXd();
  u.q_max = u.q_grid.empty() ? 0.0f : *std::max_element(u.q_grid.begin(), u.q_grid.end());
  u.k_max = u.k_grid.empty() ? 0.0f : *std::max_element(u.k_grid.begin(), u.k_grid.end());
  u.head_built = -1;
  // The context and the pairs without a turn in it are the Context budget's (core/models/context_budget.hpp).
  u.context = model.budget.context;
  u.beyond.assign(std::size_t(half), false);
  int beyond = 0;
  double beyond_q = 0, inside_q = 0;
  for (int i = 0; i < half; ++i) {
    u.beyond[std::size_t(i)] = u.context > 0 && r.wavelength[i] > double(u.context);
    (u.beyond[std::size_t(i)] ? beyond_q : inside_q) += r.q_mean[i];
    beyond += u.beyond[std::size_t(i)];
  }
  u.strongest = u.weakest = -1;
  if (layers) {
    u.strongest = u.weakest = 0;
    for (int i = 1; i < half; ++i) {
      if (pair_strength(r, i) > pair_strength(r, u.strongest)) u.strongest = i;
      if (pair_strength(r, i) < pair_strength(r, u.weakest)) u.weakest = i;
    }
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s: %d of %d layers measured%s",
                u.active    ? "reading"
                : u.stopped ? "stopped"
                            : "done",
                layers, u.total,
                u.active    ? ""
                : u.stopped ? " (the figures are those layers')"
                            : "");
  u.progress_text = buf;
  const std::string label = p.weights ? p.weights->label : std::string("the checkpoint");
  std::string s =
      "Frequencies in use in " + label + " (" + r.model_type + "), read from its weights: " + format_count(layers) +
      " of " + plural(u.total, "layer", "layers") + " measured" +
      (u.stopped  ? " (stopped: every figure is over those layers only)"
       : u.active ? " so far"
                  : "") +
      ", " + plural(r.heads, "query head", "query heads") + " (" + plural(r.kv_heads, "key head", "key heads") + "), " +
      plural(half, "rotated pair", "rotated pairs") + ".";
  if (layers) {
    const auto pair_words = [&](int i) {
      return "pair " + std::to_string(i) + " (wavelength " + format_sig(r.wavelength[i], 4) +
             " positions; mean gain q " + format_sig(r.q_mean[i], 4) + ", k " + format_sig(r.k_mean[i], 4) + ")";
    };
    s += " Strongest (q gain × k gain): " + pair_words(u.strongest) + "; weakest: " + pair_words(u.weakest) + ".";
    if (r.wavelength_local.size() == half)
      s += " Two bases: " +
           plural(u.sliding_layers, "sliding-attention layer rotates", "sliding-attention layers rotate") +
           " at base " + format_sig(r.base_local, 6) + " (wavelengths " + format_sig(r.wavelength_local.minCoeff(), 4) +
           " to " + format_sig(r.wavelength_local.maxCoeff(), 4) + " positions), the other " +
           plural(layers - u.sliding_layers, "layer", "layers") + " at base " + format_sig(r.base, 6) +
           " after its rope_scaling (" + format_sig(r.wavelength.minCoeff(), 4) + " to " +
           format_sig(r.wavelength.maxCoeff(), 4) + "); the wavelengths named above are the full layers'.";
    if (u.context > 0) {
      s += " " +
           plural(model.budget.scaled_pairs_without_turn, "pair's wavelength exceeds", "pairs' wavelengths exceed") +
           " the " + format_count(u.context) +
           "-position context (max_position_embeddings, as in Context budget): they "
           "never complete a turn inside it";
      if (beyond && beyond < half)
        s += "; their mean q gain is " + format_sig(beyond_q / beyond, 4) + " against " +
             format_sig(inside_q / (half - beyond), 4) + " for the others";
      s += ".";
    }
  }
  u.sentence = s;
}

}  // namespace

bool usage_walking(const App& app) {
  return app.usage.active;
}

bool sync_usage(App& app) {
  UsageWalk& u = app.usage;
  const std::uint64_t serial = weights_serial(app.params);
  if (serial == u.serial) return false;
  const int head = u.head;
  u = UsageWalk{};
  u.serial = serial;
  u.head = head;
  const LoadedWeights* w = app.params.weights.get();
  if (!w) return true;
  if (!w->config) {
    u.note = w->label +
             " came without a config.json: load its config.json with the weights to read which "
             "frequencies it uses";
    return true;
  }
  Expected<AttentionModel> model = attention_model(*w->config, "rope_usage");
  if (!model) {
    u.note = w->label + ": " + model.error().message;
    const Expected<ModelInfo> info = derive_model(*w->config);
    if (info && info->rope) app.ui.notes.push_back(u.note);  // a RoPE model the walk cannot read: say so
    return true;
  }
  if (!w->checkpoint) {
    u.note = w->label + ": the checkpoint was not kept open";
    return true;
  }
  u.config = *w->config;
  for (int l = 0; w->checkpoint->find(at_layer(model->layout.q, l)); ++l) u.total = l + 1;
  if (!u.total) {
    u.note = w->label + ": the checkpoint holds no \"" + at_layer(model->layout.q, 0) + "\"";
    return true;
  }
  u.active = true;
  u.usage.model_type = model->type;
  u.usage.heads = model->heads;
  u.usage.head_dim = model->rope.head_dim;
  u.usage.rotary_dims = model->rope.rotary_dims;
  u.usage.pairing = model->rope.pairing;
  u.usage.wavelength = (kTwoPi / model->rope.inv_freq.array()).matrix();
  u.usage.base = model->rope.base;
  if (model->rope_local) {  // Gemma 3: its sliding layers rotate at their own base
    u.usage.wavelength_local = (kTwoPi / model->rope_local->inv_freq.array()).matrix();
    u.usage.base_local = model->rope_local->base;
  }
  if (w->supplied) u.mark = w->supplied->mark();
  u.bytes_start = walk_bytes(*w);
  update_model(app.params, app.model);  // the Context budget of the model the weights just installed
  rebuild(u, app.params, app.model);
  return true;
}

void usage_stop(App& app, const std::string& why) {
  UsageWalk& u = app.usage;
  if (!u.active) return;
  u.active = false;
  u.stopped = true;
  u.stop = false;
  if (!why.empty()) u.note = why;
  if (app.params.weights && app.params.weights->supplied) app.params.weights->supplied->truncate(u.mark);
  rebuild(u, app.params, app.model);
}

UsageStep usage_step(App& app) {
  UsageWalk& u = app.usage;
  UsageStep out;
  const LoadedWeights* w = app.params.weights.get();
  if (!u.active || !w || w->serial != u.serial) return out;
  if (u.stop) {
    usage_stop(app);
    out.kind = UsageStepKind::Done;
    return out;
  }
  const int l = int(u.usage.q.size());
  if (w->supplied) w->supplied->wanted.reset();
  const auto started = std::chrono::steady_clock::now();
  Expected<RopeUsage> r = rope_usage(*w->checkpoint, u.config, {l});
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  if (!r && r.error().type == kNeedBytes && w->supplied && w->supplied->wanted) {
    out.kind = UsageStepKind::Want;
    out.want = *w->supplied->wanted;
    return out;
  }
  if (w->supplied) {
    u.held_max = std::max(u.held_max, w->supplied->held());
    w->supplied->truncate(u.mark);  // this layer's projections go: the next layer's are read afresh
  }
  u.bytes_read = walk_bytes(*w) - u.bytes_start;
  if (!r) {
    u.active = false;
    u.note = w->label + ", layer " + std::to_string(l) + ": " + r.error().message +
             (l ? "; the figures are the " + plural(l, "layer", "layers") + " before it" : std::string());
    app.ui.notes.push_back(u.note);
    rebuild(u, app.params, app.model);
    out.kind = UsageStepKind::Error;
    out.error = u.note;
    return out;
  }
  u.layer_ms.push_back(ms);
  u.usage.kv_heads = r->kv_heads;
  u.usage.layers.push_back(l);
  u.usage.local.push_back(r->local[0]);
  u.usage.q.push_back(std::move(r.value().q[0]));
  u.usage.k.push_back(std::move(r.value().k[0]));
  if (int(u.usage.q.size()) == u.total) u.active = false;
  rebuild(u, app.params, app.model);
  if (!u.active)  // the walk is done: one note, as a load has
    app.ui.notes.push_back(w->label + ": frequencies in use measured over all " + plural(u.total, "layer", "layers") +
                           "; the strongest pair is " + std::to_string(u.strongest) + " (wavelength " +
                           format_sig(u.usage.wavelength[u.strongest], 4) + " positions)");
  out.kind = u.active ? UsageStepKind::Measured : UsageStepKind::Done;
  return out;
}

void usage_tick(App& app) {
  sync_usage(app);
  const LoadedWeights* w = app.params.weights.get();
  if (app.usage.active && w && !w->supplied) usage_step(app);
}

void usage_head_grids(UsageWalk& u) {
  const RopeUsage& r = u.usage;
  const int layers = int(r.q.size()), half = r.rotary_dims / 2;
  if (!layers || r.heads < 1 || r.kv_heads < 1) return;
  u.head = std::clamp(u.head, 0, r.heads - 1);
  if (u.head_built == u.head) return;
  const int kv = u.head / std::max(1, r.heads / r.kv_heads);
  u.head_q_grid.resize(std::size_t(layers) * half);
  u.head_k_grid.resize(std::size_t(layers) * half);
  for (int l = 0; l < layers; ++l)
    for (int i = 0; i < half; ++i) {
      u.head_q_grid[std::size_t(l) * half + i] = float(r.q[l][u.head][i]);
      u.head_k_grid[std::size_t(l) * half + i] = float(r.k[l][kv][i]);
    }
  u.head_built = u.head;
}

}  // namespace rv

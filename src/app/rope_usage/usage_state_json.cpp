// state().weights.rope_usage (docs/window-ropeviz.md): the walk's section of the app's JSON state.
#include <algorithm>
#include <vector>

#include "app/rope_usage/usage.hpp"
#include "core/base/json_writer.hpp"

namespace rv {

// state().weights.rope_usage (docs/window-ropeviz.md): the walk's layers so far, or null without one.
void rope_usage_state(JsonWriter& j, const UsageWalk& u) {
  j.key("rope_usage");
  const RopeUsage& r = u.usage;
  if (r.q.empty() && !u.active) {
    j.null();
    return;
  }
  const auto vector = [&j](const Eigen::VectorXd& v) {
    j.begin_array();
    for (Eigen::Index i = 0; i < v.size(); ++i) j.value(v[i]);
    j.end_array();
  };
  std::vector<double> ms = u.layer_ms;
  std::sort(ms.begin(), ms.end());
  j.begin_object().key("layers").value((long long)r.q.size()).key("heads").value(r.heads);
  j.key("kv_heads").value(r.kv_heads).key("pairs").value(r.rotary_dims / 2).key("total").value(u.total);
  j.key("active").value(u.active).key("stopped").value(u.stopped).key("done").value(u.total > 0 &&
                                                                                    int(r.q.size()) == u.total);
  j.key("strongest").value(u.strongest).key("weakest").value(u.weakest).key("context").value(u.context);
  j.key("beyond_context").value((long long)std::count(u.beyond.begin(), u.beyond.end(), true));
  j.key("wavelength");
  vector(r.wavelength);
  j.key("q_mean");
  vector(r.q_mean);
  j.key("k_mean");
  vector(r.k_mean);
  j.key("layer_ms_median").value(ms.empty() ? 0.0 : ms[ms.size() / 2]);
  j.key("bytes_read").value((long long)u.bytes_read).key("held_max").value((long long)u.held_max);
  j.key("note").value(u.note).end_object();
}

}  // namespace rv

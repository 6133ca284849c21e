// The table of framework behaviours past a position table, with the source of each claim beside it.
#include "core/encodings/frameworks.hpp"

namespace rv {
namespace {

std::string num(long long v) {
  return std::to_string(v);
}

FrameworkLookup entry(const char* framework, const char* short_name, const char* call, const char* device) {
  FrameworkLookup f;
  f.framework = framework;
  f.short_name = short_name;
  f.call = call;
  f.device = device;
  return f;
}

// "returns P[9]", or with how the index got there: "returns P[9] (-1 wraps to 9)".
FrameworkLookup row_of(FrameworkLookup f, long long row, long long position, const char* how = "wraps to") {
  f.outcome = LookupOutcome::Row;
  f.row = row;
  f.text = "returns P[" + num(row) + "]";
  if (row != position) f.text += " (" + num(position) + " " + how + " " + num(row) + ")";
  return f;
}

FrameworkLookup error_of(FrameworkLookup f, std::string text) {
  f.outcome = LookupOutcome::Error;
  f.text = std::move(text);
  return f;
}

// A row that is not in the table, returned without an error (zeros or NaN).
FrameworkLookup filler_of(FrameworkLookup f, LookupOutcome outcome, std::string text) {
  f.outcome = outcome;
  f.text = std::move(text);
  return f;
}

}  // namespace

std::vector<FrameworkLookup> framework_lookups(long long t, long long n) {
  const bool inside = t >= 0 && t < n;
  const bool python_range = t >= -n && t < n;  // Python's negative indexing: -1 is the last row
  const long long wrapped = t < 0 ? n + t : t;
  std::vector<FrameworkLookup> out;

  // PyTorch tensor indexing, the lesson's pos_table[100]. Negative indices count from the end as in Python;
  // anything outside [-n, n) raises IndexError with this message (ATen's index checks, "index %d is out of
  // bounds for dimension %d with size %d"; the lesson quotes it for P[100]).
  {
    const FrameworkLookup f = entry("PyTorch tensor indexing", "PyTorch P[t]", "pos_table[t]", "any");
    out.push_back(python_range ? row_of(f, wrapped, t)
                               : error_of(f, "IndexError: index " + num(t) +
                                                 " is out of bounds for dimension 0 with size " + num(n)));
  }
  // PyTorch nn.Embedding, as Hugging Face's GPT-2 uses it (GPT2Model: self.wpe = nn.Embedding(
  // max_position_embeddings, embed_dim), called on position_ids). No negative wrap: any index outside [0, n)
  // fails. CPU: "IndexError: index out of range in self" (raised by index_select, which F.embedding uses).
  // CUDA: the kernel's device-side assert (an "Assertion `srcIndex < srcSelectDimSize` failed" line in the log,
  // from ATen's Indexing.cu, as far as we know) surfaces, asynchronously, as the RuntimeError below.
  {
    const FrameworkLookup cpu =
        entry("PyTorch nn.Embedding (Hugging Face GPT-2 wpe)", "nn.Embedding", "wpe(position_ids)", "CPU");
    out.push_back(inside ? row_of(cpu, t, t) : error_of(cpu, "IndexError: index out of range in self"));
    const FrameworkLookup cuda =
        entry("PyTorch nn.Embedding (Hugging Face GPT-2 wpe)", "nn.Embedding", "wpe(position_ids)", "CUDA");
    out.push_back(inside ? row_of(cuda, t, t)
                         : error_of(cuda, "RuntimeError: CUDA error: device-side assert triggered"));
  }
  // TensorFlow tf.gather, as OpenAI's original GPT-2 code uses it (model.py: tf.gather(wpe, positions_for(X,
  // past))). tf.gather's documentation: "Note that on CPU, if an out of bound index is found, an error is
  // returned. On GPU, if an out of bound index is found, a 0 is stored in the corresponding output value."
  // Negative indices are out of bound too (valid range [0, n)). The CPU message is GatherV2's, shown for one
  // position (indices of shape [1]); GPT-2's [batch, T] positions print as indices[0,t], and eager mode
  // appends the op name ("... [Op:GatherV2]").
  {
    const FrameworkLookup cpu =
        entry("TensorFlow tf.gather (OpenAI GPT-2)", "tf.gather", "tf.gather(wpe, positions)", "CPU");
    out.push_back(
        inside ? row_of(cpu, t, t)
               : error_of(cpu, "InvalidArgumentError: indices[0] = " + num(t) + " is not in [0, " + num(n) + ")"));
    const FrameworkLookup gpu =
        entry("TensorFlow tf.gather (OpenAI GPT-2)", "tf.gather", "tf.gather(wpe, positions)", "GPU");
    out.push_back(inside
                      ? row_of(gpu, t, t)
                      : filler_of(gpu, LookupOutcome::Zeros, "returns a row of zeros, no error: no position signal"));
  }
  // JAX. jax.numpy.take's documentation: "The default mode="fill" returns invalid values (e.g. NaN) for out-of
  // bounds indices"; fill_value "Defaults to NaN for inexact types". Negative indices are normalised first, as
  // in NumPy (its unique_indices note speaks of "normalization of negative indices"), so -n <= t < 0 wraps.
  {
    const FrameworkLookup f = entry("JAX jnp.take (mode=\"fill\")", "jnp.take", "jnp.take(P, t, axis=0)", "any");
    out.push_back(python_range ? row_of(f, wrapped, t)
                               : filler_of(f, LookupOutcome::NaNs, "returns a row of NaN, no error"));
  }
  // JAX array indexing P[t]: JAX's "Sharp bits" page: for retrieval (gather) out-of-bounds indices "are
  // clamped to the bounds of the array", so P[100] on 10 rows is the last row. Negative indices are
  // normalised (t + n) before the clamp; t < -n then clamps to row 0 (our reading of that order; not checked
  // against a running JAX).
  {
    const FrameworkLookup f = entry("JAX array indexing", "JAX P[t]", "P[t]", "any");
    out.push_back(python_range ? row_of(f, wrapped, t) : row_of(f, t >= n ? n - 1 : 0, t, "is clamped to"));
  }
  return out;
}

}  // namespace rv

// The list of panels, in tab order within each bar: link key, tab title, short title (when the bar is narrow), bar.
// Adding a panel: write app/panels/<key>.cpp defining show_<key>(App&) and describe_<key>(const App&), then add one
// line here at the end of its bar. app/state/registry.cpp reads the keys and titles, app/panels/panel_calls.cpp the
// draw and describe functions.
#pragma once

#define RV_PANELS(X)                                             \
  X(rotations, "Rotations per frequency", "Rotations", Top)      \
  X(angle_field, "Angle field", "Angles", Top)                   \
  X(shape_trace, "Shape trace", "Shapes", Top)                   \
  X(extension, "Context extension", "Extension", Top)            \
  X(precision, "Precision", "Precision", Top)                    \
  X(sinusoidal, "Sinusoidal", "Sinus", Top)                      \
  X(context_budget, "Context budget", "Budget", Top)             \
  X(biases, "ALiBi and T5 biases", "Biases", Top)                \
  X(why_rotation, "Why rotate, not add", "Rotate?", Top)         \
  X(learned_table, "Learned table", "Learned", Bottom)           \
  X(score_curve, "Dot product vs offset", "Dot product", Bottom) \
  X(checks, "Checks", "Checks", Bottom)                          \
  X(comparison, "Comparison", "Comparison", Bottom)              \
  X(models, "Compare models", "Models", Bottom)                  \
  X(lab, "Lab: past the training length", "Lab", Bottom)         \
  X(exercises, "Exercises", "Exercises", Bottom)                 \
  X(trained_table, "Trained vs random table", "Trained", Bottom) \
  X(rope_usage, "Frequencies in use", "Frequencies", Bottom)    \
  X(run, "Run it: loss by position", "Run it", Bottom)

// The page's structured text view: the state as headings, paragraphs, lists and real HTML tables (a screen reader
// navigates them) for the #text-view region, built from the same numbers the canvas draws.
#pragma once
#include <string>
#include <string_view>

#include "app/state/state.hpp"

namespace rv {

// Text with &, <, >, " and ' as entities.
std::string html_escape(std::string_view text);
// <h2>Position and the two encodings</h2> with the lookup or its IndexError and a table of RoPE's pairs (theta_i,
// m * theta_i, turns, wavelength); the open lesson step; each shown panel's title and sentences (the lab's summary as
// a table); the notes as a list.
std::string text_view_html(const App& app);

}  // namespace rv

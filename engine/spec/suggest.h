// "Did you mean" suggestions for misspelt keys and names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace studio::spec {

// Optimal string alignment distance (edits, with adjacent transpositions), case-insensitive.
int editDistance(std::string_view a, std::string_view b);

// The closest candidate within a distance that grows with the word's length; empty when none.
std::string closestMatch(std::string_view word, const std::vector<std::string>& candidates);

// ", did you mean \"x\"?" or ""; the tail of an error message.
std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates);

} // namespace studio::spec

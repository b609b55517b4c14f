// Fuzzy matching for the command palette: the pattern's characters must appear in the text in
// order (case-insensitive); a match scores higher where they start words, follow each other or
// start the text, and lower the more text they skip. Plain functions, no Qt objects.
#pragma once

#include <QString>
#include <QStringView>

#include <optional>
#include <vector>

namespace studio::models {

struct FuzzyMatch {
    int score = 0;
    std::vector<int> positions; // the text's matched characters, ascending
};

// Scores of the parts of a match, public for the tests and the ordering's documentation.
struct FuzzyScores {
    static constexpr int kChar = 16;        // every matched character
    static constexpr int kWordStart = 24;   // at the text's start or after a separator/camel hump
    static constexpr int kConsecutive = 20; // right after the previous matched character
    static constexpr int kGap = 2;          // per skipped character between matches (at most 8)
    static constexpr int kLeading = 1;      // per character before the first match (at most 12)
    static constexpr int kWholeText = 40;   // the pattern is the whole text
};

// The best-scoring alignment of pattern in text, or nothing when pattern is not a subsequence.
// An empty pattern matches everything with score 0. Whitespace in the pattern is ignored, so
// "stop job" finds "Stop job" and "Stopjob".
std::optional<FuzzyMatch> fuzzyMatch(QStringView pattern, QStringView text);

// Whether position i of text starts a word ("run-3" at 'r' and '3', "newJob" at 'J').
bool startsWord(QStringView text, int i);

} // namespace studio::models

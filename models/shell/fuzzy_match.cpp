#include "models/shell/fuzzy_match.h"

#include <algorithm>
#include <limits>

namespace studio::models {

namespace {

constexpr int kNone = std::numeric_limits<int>::min() / 4;

bool separator(QChar c) {
    return c.isSpace() || c == u'-' || c == u'_' || c == u'/' || c == u'.' || c == u':' ||
           c == u'(' || c == u'[' || c == u',' || c == u'…';
}

QString compact(QStringView pattern) {
    QString out;
    out.reserve(pattern.size());
    for (QChar c : pattern)
        if (!c.isSpace())
            out.append(c);
    return out;
}

// Cheap reject: most texts do not hold the pattern as a subsequence at all.
bool subsequence(QStringView lowerPattern, QStringView text) {
    qsizetype at = 0;
    for (QChar c : text) {
        if (at == lowerPattern.size())
            break;
        if (c.toLower() == lowerPattern[at])
            ++at;
    }
    return at == lowerPattern.size();
}

// The best alignment's end in the last pattern row, traced back to every matched position.
std::optional<FuzzyMatch> bestEnd(const std::vector<int>& best, const std::vector<int>& from, int m,
                                  int n) {
    auto at = [n](int i, int j) {
        return static_cast<std::size_t>(i * n + j);
    };
    int end = -1;
    int top = kNone;
    for (int j = m - 1; j < n; ++j)
        if (best[at(m - 1, j)] > top) {
            top = best[at(m - 1, j)];
            end = j;
        }
    if (end < 0)
        return std::nullopt;
    FuzzyMatch match;
    match.score = top + (m == n ? FuzzyScores::kWholeText : 0);
    match.positions.resize(static_cast<std::size_t>(m));
    for (int i = m - 1, j = end; i >= 0; --i) {
        match.positions[static_cast<std::size_t>(i)] = j;
        j = from[at(i, j)];
    }
    return match;
}

} // namespace

bool startsWord(QStringView text, int i) {
    if (i <= 0)
        return true;
    const QChar prev = text[i - 1];
    const QChar c = text[i];
    if (separator(prev))
        return !separator(c);
    if (prev.isLower() && c.isUpper())
        return true;
    return !prev.isDigit() && c.isDigit();
}

std::optional<FuzzyMatch> fuzzyMatch(QStringView patternIn, QStringView text) {
    const QString pattern = compact(patternIn);
    if (pattern.isEmpty())
        return FuzzyMatch{};
    const QString lower = pattern.toLower();
    const int m = static_cast<int>(lower.size());
    const int n = static_cast<int>(text.size());
    if (m > n || !subsequence(lower, text))
        return std::nullopt;

    // best[i][j]: the best score of pattern[0..i] with pattern[i] matched at text[j];
    // from[i][j]: where pattern[i-1] was matched for that score. A gap of g skipped characters
    // costs kGap * min(g, 8): the last 8 predecessors are scored one by one, older ones through
    // a running maximum (their gap cost is the cap).
    std::vector<int> best(static_cast<std::size_t>(m * n), kNone);
    std::vector<int> from(static_cast<std::size_t>(m * n), -1);
    auto at = [n](int i, int j) {
        return static_cast<std::size_t>(i * n + j);
    };
    constexpr int kWindow = 8;
    for (int i = 0; i < m; ++i) {
        int oldBest = kNone; // max of best[i-1][k] for k <= j - 2 - kWindow
        int oldFrom = -1;
        for (int j = i; j < n; ++j) {
            if (i > 0 && j - 2 - kWindow >= 0) {
                const int k = j - 2 - kWindow;
                if (best[at(i - 1, k)] > oldBest) {
                    oldBest = best[at(i - 1, k)];
                    oldFrom = k;
                }
            }
            if (text[j].toLower() != lower[i])
                continue;
            int s = FuzzyScores::kChar;
            if (startsWord(text, j))
                s += FuzzyScores::kWordStart;
            if (i == 0) {
                best[at(i, j)] = s - std::min(j, 12) * FuzzyScores::kLeading;
                continue;
            }
            int score = kNone;
            int origin = -1;
            if (const int adjacent = best[at(i - 1, j - 1)]; adjacent != kNone) {
                score = adjacent + FuzzyScores::kConsecutive;
                origin = j - 1;
            }
            for (int k = j - 2; k >= std::max(0, j - 1 - kWindow); --k)
                if (const int b = best[at(i - 1, k)]; b != kNone) {
                    const int v = b - FuzzyScores::kGap * (j - 1 - k);
                    if (v > score) {
                        score = v;
                        origin = k;
                    }
                }
            if (oldBest != kNone && oldBest - FuzzyScores::kGap * kWindow > score) {
                score = oldBest - FuzzyScores::kGap * kWindow;
                origin = oldFrom;
            }
            if (origin < 0)
                continue;
            best[at(i, j)] = score + s;
            from[at(i, j)] = origin;
        }
    }
    return bestEnd(best, from, m, n);
}

} // namespace studio::models

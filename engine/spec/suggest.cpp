#include "engine/spec/suggest.h"

#include <algorithm>
#include <cctype>

namespace studio::spec {

int editDistance(std::string_view a, std::string_view b) {
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1));
    for (std::size_t i = 0; i <= n; ++i)
        d[i][0] = static_cast<int>(i);
    for (std::size_t j = 0; j <= m; ++j)
        d[0][j] = static_cast<int>(j);
    auto lower = [](char c) {
        return std::tolower(static_cast<unsigned char>(c));
    };
    for (std::size_t i = 1; i <= n; ++i) {
        for (std::size_t j = 1; j <= m; ++j) {
            int cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
                lower(a[i - 2]) == lower(b[j - 1]))
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[n][m];
}

std::string closestMatch(std::string_view word, const std::vector<std::string>& candidates) {
    // Separators differ often ("instance-count" vs "instance_count"): compare without them too.
    auto squash = [](std::string_view s) {
        std::string out;
        for (char c : s)
            if (c != '_' && c != '-' && c != '.' && c != ' ')
                out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        return out;
    };
    const std::string w = squash(word);
    const int limit = std::max(1, static_cast<int>(word.size()) / 3);
    std::string best;
    int bestDistance = limit + 1;
    for (const auto& c : candidates) {
        const std::string sc = squash(c);
        // A shortened key ("Experiment" for "ExperimentName") is a likely slip too.
        if (w.size() >= 4 && (sc.rfind(w, 0) == 0 || w.rfind(sc, 0) == 0) && bestDistance > 1) {
            best = c;
            bestDistance = 1;
            continue;
        }
        int dist = std::min(editDistance(word, c), editDistance(w, sc));
        if (dist < bestDistance) {
            bestDistance = dist;
            best = c;
        }
    }
    return best;
}

std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates) {
    std::string best = closestMatch(word, candidates);
    return best.empty() ? std::string() : ", did you mean \"" + best + "\"?";
}

} // namespace studio::spec

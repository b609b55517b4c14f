// A line diff of two texts, printed as `diff -u` prints it (hunks with context lines), for
// comparing two jobs' source files. Myers' O(ND) algorithm over lines.
#pragma once

#include <string>
#include <vector>

namespace studio::report {

struct DiffLine {
    char op = ' '; // ' ' kept, '-' only in a, '+' only in b
    std::string text;
    int lineA = 0; // 1-based line in a (0 for '+')
    int lineB = 0; // 1-based line in b (0 for '-')
};

std::vector<std::string> splitLines(const std::string& text);

// Every line of a and b in order, each marked kept, removed or added.
std::vector<DiffLine> diffLines(const std::vector<std::string>& a,
                                const std::vector<std::string>& b);

// The unified diff ("--- nameA", "+++ nameB", "@@ -l,n +l,n @@" hunks); "" when equal.
std::string unifiedDiff(const std::string& a, const std::string& b, const std::string& nameA,
                        const std::string& nameB, int context = 3);

} // namespace studio::report

#include "engine/report/line_diff.h"

#include <algorithm>
#include <utility>

namespace studio::report {

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos)
            end = text.size();
        lines.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return lines;
}

namespace {

// Myers' greedy forward search, keeping each round's furthest reaching paths for the trace back.
std::vector<std::vector<int>> searchPaths(const std::vector<std::string>& a,
                                          const std::vector<std::string>& b) {
    const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
    const int max = n + m, offset = max + 1;
    std::vector<int> v(static_cast<std::size_t>(2 * max + 3), 0);
    std::vector<std::vector<int>> trace;
    for (int d = 0; d <= max; ++d) {
        trace.push_back(v);
        for (int k = -d; k <= d; k += 2) {
            const std::size_t i = static_cast<std::size_t>(k + offset);
            int x = (k == -d || (k != d && v[i - 1] < v[i + 1])) ? v[i + 1] : v[i - 1] + 1;
            int y = x - k;
            while (x < n && y < m &&
                   a[static_cast<std::size_t>(x)] == b[static_cast<std::size_t>(y)])
                ++x, ++y;
            v[i] = x;
            if (x >= n && y >= m) {
                trace.push_back(v);
                return trace;
            }
        }
    }
    return trace;
}

} // namespace

std::vector<DiffLine> diffLines(const std::vector<std::string>& a,
                                const std::vector<std::string>& b) {
    const auto trace = searchPaths(a, b);
    const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
    const int offset = n + m + 1;
    std::vector<DiffLine> out;
    int x = n, y = m;
    for (int d = static_cast<int>(trace.size()) - 2; d >= 0 && (x > 0 || y > 0); --d) {
        const std::vector<int>& v = trace[static_cast<std::size_t>(d)];
        const int k = x - y;
        const auto at = [&](int kk) {
            return v[static_cast<std::size_t>(kk + offset)];
        };
        const int prevK = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1;
        const int prevX = d == 0 ? 0 : at(prevK);
        const int prevY = prevX - prevK;
        while (x > prevX && y > prevY) {
            --x, --y;
            out.push_back({' ', a[static_cast<std::size_t>(x)], x + 1, y + 1});
        }
        if (d == 0)
            break;
        if (x == prevX) {
            --y;
            out.push_back({'+', b[static_cast<std::size_t>(y)], 0, y + 1});
        } else {
            --x;
            out.push_back({'-', a[static_cast<std::size_t>(x)], x + 1, 0});
        }
    }
    std::reverse(out.begin(), out.end());
    return out;
}

namespace {

// Lines of one side before index `at`: those not marked `other`.
int linesBefore(const std::vector<DiffLine>& lines, int at, char other) {
    int n = 0;
    for (int j = 0; j < at; ++j)
        n += lines[static_cast<std::size_t>(j)].op != other;
    return n;
}

std::string range(int start, int count) {
    if (count == 1)
        return std::to_string(start);
    return std::to_string(count == 0 ? start - 1 : start) + "," + std::to_string(count);
}

} // namespace

std::string unifiedDiff(const std::string& a, const std::string& b, const std::string& nameA,
                        const std::string& nameB, int context) {
    if (a == b)
        return {};
    const std::vector<DiffLine> lines = diffLines(splitLines(a), splitLines(b));
    std::string out = "--- " + nameA + "\n+++ " + nameB + "\n";
    const int total = static_cast<int>(lines.size());
    int i = 0;
    while (i < total) {
        while (i < total && lines[static_cast<std::size_t>(i)].op == ' ')
            ++i;
        if (i >= total)
            break;
        // A hunk: from `context` lines before this change to `context` after the last change
        // that is within 2 * context kept lines of the one before it.
        const int start = std::max(0, i - context);
        int end = i;
        for (int j = i, kept = 0; j < total; ++j) {
            if (lines[static_cast<std::size_t>(j)].op == ' ') {
                if (++kept > 2 * context)
                    break;
            } else {
                kept = 0;
                end = j;
            }
        }
        const int stop = std::min(total, end + context + 1);
        int countA = 0, countB = 0;
        std::string body;
        for (int j = start; j < stop; ++j) {
            const DiffLine& l = lines[static_cast<std::size_t>(j)];
            countA += l.op != '+';
            countB += l.op != '-';
            body += l.op;
            body += l.text;
            body += '\n';
        }
        const int firstA = linesBefore(lines, start, '+') + 1;
        const int firstB = linesBefore(lines, start, '-') + 1;
        out += "@@ -" + range(firstA, countA) + " +" + range(firstB, countB) + " @@\n" + body;
        i = stop;
    }
    return out;
}

} // namespace studio::report

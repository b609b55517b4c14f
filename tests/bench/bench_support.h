// The benches' one harness: a clock, samples with best / median / min / max, interleaved rounds
// whose order alternates, peak resident memory, anchor records, and the report every bench
// prints (and writes with --json FILE). Qt-free.
//
// Every bench takes `--quick` (what ctest runs: a short correctness mode whose timings mean
// nothing) and `--json FILE`; other arguments are the bench's own. A bench fails only when a
// check fails (lost samples, a job that did not finish, dropped lines), never on a timing: goals
// are reported as met or missed, and `packaging/studio.sh bench` gathers them into one table.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/types.h>
#include <vector>

namespace studio::bench {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

// Seconds since a steady-clock moment.
inline double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Seconds one call of work takes.
template <class Work>
double timeSeconds(Work&& work) {
    const auto start = Clock::now();
    work();
    return secondsSince(start);
}

// Seconds since the epoch (to compare with times other processes record).
inline double wallSeconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Repeated measurements of one figure. `best` is the minimum for times and the maximum for
// rates, as the figure's direction says.
struct Samples {
    enum class Better { Lower, Higher };
    Better better = Better::Lower;
    std::vector<double> values;

    void add(double v) { values.push_back(v); }
    bool empty() const { return values.empty(); }
    std::size_t size() const { return values.size(); }
    double min() const { return empty() ? NAN : *std::min_element(values.begin(), values.end()); }
    double max() const { return empty() ? NAN : *std::max_element(values.begin(), values.end()); }
    double best() const { return better == Better::Lower ? min() : max(); }
    // The middle value (the mean of the two middle ones for an even count).
    double median() const {
        if (empty())
            return NAN;
        std::vector<double> v = values;
        std::sort(v.begin(), v.end());
        const std::size_t n = v.size();
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
    Json json(double scale = 1) const {
        return {{"n", size()},
                {"best", best() * scale},
                {"median", median() * scale},
                {"min", min() * scale},
                {"max", max() * scale}};
    }
};

inline Samples lowerIsBetter() {
    return Samples{Samples::Better::Lower, {}};
}
inline Samples higherIsBetter() {
    return Samples{Samples::Better::Higher, {}};
}

// Runs every side once per round; round r runs them in order when r is even and in reverse
// when it is odd, so that no side always runs first (or always after the same neighbour).
inline void interleave(int rounds, const std::vector<std::function<void(int round)>>& sides) {
    for (int r = 0; r < rounds; ++r) {
        if (r % 2 == 0)
            for (const auto& side : sides)
                side(r);
        else
            for (auto it = sides.rbegin(); it != sides.rend(); ++it)
                (*it)(r);
    }
}

// A field of /proc/PID/status in MiB ("VmHWM", "VmRSS"); -1 when the process or field is gone.
inline double procStatusMiB(pid_t pid, const std::string& field) {
    std::ifstream in("/proc/" + (pid ? std::to_string(pid) : std::string("self")) + "/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(field + ":", 0) == 0)
            return std::strtod(line.c_str() + field.size() + 1, nullptr) / 1024.0;
    return -1;
}

// This process's peak resident memory (MiB).
inline double selfPeakRssMiB() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// The largest peak resident memory of any child (and its waited-for descendants) reaped so far.
inline double childrenPeakRssMiB() {
    rusage u{};
    ::getrusage(RUSAGE_CHILDREN, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// What an anchor is, in the words the table prints: what runs, which version, and the conditions
// it ran under (the same as ours unless a figure says otherwise).
struct Anchor {
    std::string name; // how figures refer to it
    std::string what;
    std::string version;
    int threads = 0;       // intra-op threads per process (0: not applicable)
    std::string pinning;   // "none", "taskset -c N per rank", ...
    std::string transport; // "shared memory", "Gloo over loopback", "" (not applicable)
    std::string work;      // the work both sides do

    Json json() const {
        Json j = {{"name", name}, {"what", what}};
        if (!version.empty())
            j["version"] = version;
        if (threads > 0)
            j["threads"] = threads;
        if (!pinning.empty())
            j["pinning"] = pinning;
        if (!transport.empty())
            j["transport"] = transport;
        if (!work.empty())
            j["work"] = work;
        return j;
    }
};

// A goal: on the ratio ours / anchor, or on our value itself when there is no anchor.
struct Goal {
    enum class On { Ratio, Value };
    enum class Kind { AtLeast, AtMost };
    On on = On::Ratio;
    Kind kind = Kind::AtLeast;
    double bound = 0;

    static Goal ratioAtLeast(double b) { return {On::Ratio, Kind::AtLeast, b}; }
    static Goal ratioAtMost(double b) { return {On::Ratio, Kind::AtMost, b}; }
    static Goal valueAtLeast(double b) { return {On::Value, Kind::AtLeast, b}; }
    static Goal valueAtMost(double b) { return {On::Value, Kind::AtMost, b}; }
};

// One line of the table. `ratio` is always ours / anchor.
struct Figure {
    std::string name;
    std::string unit;
    double ours = NAN;
    std::optional<double> anchor;
    std::string anchorName; // which Anchor (by name) gave `anchor`
    std::optional<Goal> goal;
    std::string note; // conditions that differ from the bench's, or what the figure leaves out

    std::optional<double> ratio() const {
        if (!anchor || *anchor == 0 || !std::isfinite(*anchor) || !std::isfinite(ours))
            return std::nullopt;
        return ours / *anchor;
    }
    std::optional<bool> met() const {
        if (!goal)
            return std::nullopt;
        const std::optional<double> v = goal->on == Goal::On::Ratio ? ratio() : ours;
        if (!v || !std::isfinite(*v))
            return false;
        return goal->kind == Goal::Kind::AtLeast ? *v >= goal->bound : *v <= goal->bound;
    }
    Json json() const {
        Json j = {{"figure", name}, {"unit", unit}, {"ours", ours}};
        if (anchor) {
            j["anchor"] = *anchor;
            j["anchor_name"] = anchorName;
        }
        if (auto r = ratio())
            j["ratio"] = *r;
        if (goal)
            j["goal"] = {{"on", goal->on == Goal::On::Ratio ? "ratio" : "value"},
                         {goal->kind == Goal::Kind::AtLeast ? "at_least" : "at_most", goal->bound}};
        if (auto m = met())
            j["met"] = *m;
        if (!note.empty())
            j["note"] = note;
        return j;
    }
};

// The command line every bench shares.
struct Options {
    bool quick = false;
    std::string jsonPath;
    std::vector<std::string> args; // the bench's own, in order

    static Options parse(int argc, char** argv) {
        Options o;
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--quick")
                o.quick = true;
            else if (a == "--json" && i + 1 < argc)
                o.jsonPath = argv[++i];
            else
                o.args.push_back(a);
        }
        return o;
    }
    // The bench's Nth own argument as a number, or `fallback` when absent.
    double number(std::size_t n, double fallback) const {
        return n < args.size() ? std::strtod(args[n].c_str(), nullptr) : fallback;
    }
    // A bench's size: `quick` in --quick mode, `full` otherwise, unless argument N gives it.
    int pick(std::size_t n, int quickValue, int fullValue) const {
        return static_cast<int>(number(n, quick ? quickValue : fullValue));
    }
};

// What one bench prints: its anchors, figures, checks and details, as one JSON object.
class Report {
public:
    Report(std::string bench, const Options& options)
        : bench_(std::move(bench))
        , options_(options) {}

    void anchor(const Anchor& a) { anchors_.push_back(a.json()); }
    void figure(const Figure& f) { figures_.push_back(f.json()); }
    // A correctness check: a failed one fails the bench (exit status 1), with its reason.
    bool check(bool ok, const std::string& what) {
        checks_.push_back({{"check", what}, {"ok", ok}});
        if (!ok) {
            failed_ = true;
            std::fprintf(stderr, "%s: check failed: %s\n", bench_.c_str(), what.c_str());
        }
        return ok;
    }
    bool failed() const { return failed_; }
    Json& details() { return details_; }

    Json json() const {
        Json j = {{"bench", bench_},     {"mode", options_.quick ? "quick" : "full"},
                  {"anchors", anchors_}, {"figures", figures_},
                  {"checks", checks_},   {"peak_rss_mib", selfPeakRssMiB()}};
        if (options_.quick)
            j["timings"] = "quick mode: a correctness run; its timings mean nothing";
        if (!details_.is_null())
            j["details"] = details_;
        j["ok"] = !failed_;
        return j;
    }

    // Prints the report, writes it to --json FILE when given; returns the exit status.
    int finish() const {
        const std::string text = json().dump(2);
        std::printf("%s\n", text.c_str());
        std::fflush(stdout);
        if (!options_.jsonPath.empty()) {
            std::ofstream out(options_.jsonPath);
            out << text << "\n";
            if (!out) {
                std::fprintf(stderr, "%s: cannot write %s\n", bench_.c_str(),
                             options_.jsonPath.c_str());
                return 1;
            }
        }
        return failed_ ? 1 : 0;
    }

private:
    std::string bench_;
    Options options_;
    Json anchors_ = Json::array();
    Json figures_ = Json::array();
    Json checks_ = Json::array();
    Json details_;
    bool failed_ = false;
};

} // namespace studio::bench

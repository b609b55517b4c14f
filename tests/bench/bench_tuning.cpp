// Search quality and overhead of the tuning searches. Quality: the simple regret (best value
// found minus the known optimum, minimised) after E sequential evaluations (max_parallel 1) on
// Branin, Hartmann-6, a 4-d Rosenbrock on [-2,2]^4 and a mixed categorical/integer/continuous
// function, S seeds each, for our Bayesian and Random searches. Anchor, in the same run: Optuna's
// default TPESampler(seed=s) and RandomSampler(seed=s) on the same functions, ranges, evaluation
// counts and seeds (tests/bench/python/optuna_anchor.py). Overhead: one Bayesian proposal with
// 500 observations on Hartmann-6's ranges (median of 7).
// Goals (full mode): our Bayesian's median regret <= TPE's on at least 3 of 4 functions and
// below our Random's on all 4; a 500-observation proposal <= 50 ms.
// Usage: bench_tuning [--full]   (default: 2 seeds x 15 evaluations, checks the figures exist)
#include "engine/process/process.h"
#include "engine/tune/search.h"
#include "tests/support/read_to_end.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numbers>
#include <thread>
#include <unistd.h>

using namespace studio;
using namespace studio::tune;

namespace {

struct Problem {
    std::string name;
    std::string description;
    std::vector<ParameterRange> ranges;
    std::function<double(const Point&)> f;
    double optimum;
};

ParameterRange continuous(const std::string& name, double lo, double hi) {
    ParameterRange r;
    r.name = name;
    r.minValue = lo;
    r.maxValue = hi;
    r.scaling = Scaling::Linear;
    return r;
}

double branin(const Point& x) {
    const double b = 5.1 / (4 * std::numbers::pi * std::numbers::pi);
    const double c = 5 / std::numbers::pi;
    const double t = x[1] - b * x[0] * x[0] + c * x[0] - 6;
    return t * t + 10 * (1 - 1 / (8 * std::numbers::pi)) * std::cos(x[0]) + 10;
}

double hartmann6(const Point& x) {
    static const double a[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                   {0.05, 10, 17, 0.1, 8, 14},
                                   {3, 3.5, 1.7, 10, 17, 8},
                                   {17, 8, 0.05, 10, 0.1, 14}};
    static const double p[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                                   {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                                   {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                                   {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};
    static const double alpha[4] = {1.0, 1.2, 3.0, 3.2};
    double total = 0;
    for (int i = 0; i < 4; ++i) {
        double s = 0;
        for (int j = 0; j < 6; ++j)
            s += a[i][j] * (x[j] - p[i][j]) * (x[j] - p[i][j]);
        total += alpha[i] * std::exp(-s);
    }
    return -total;
}

double rosenbrock(const Point& x) {
    double s = 0;
    for (std::size_t i = 0; i + 1 < x.size(); ++i)
        s += 100 * std::pow(x[i + 1] - x[i] * x[i], 2) + std::pow(1 - x[i], 2);
    return s;
}

// The categorical choice picks scale, centre and offset of a 2-d quadratic; an integer adds a
// penalty away from 4. The same table as optuna_anchor.py's MIXED.
double mixed(const Point& x) {
    static const double table[3][4] = {
        {1.0, 1.0, -1.0, 0.5}, {2.0, -2.0, 2.0, 0.0}, {0.5, 3.0, 3.0, 1.0}};
    const auto& t = table[static_cast<int>(x[0])];
    return t[0] * (std::pow(x[1] - t[1], 2) + std::pow(x[2] - t[2], 2)) / 10 + t[3] +
           0.1 * std::pow(x[3] - 4, 2);
}

std::vector<Problem> problems() {
    std::vector<Problem> out;
    out.push_back({"branin",
                   "Branin, x1 in [-5,10], x2 in [0,15]",
                   {continuous("x1", -5, 10), continuous("x2", 0, 15)},
                   branin,
                   0.397887357729739});
    std::vector<ParameterRange> unit6;
    for (int i = 0; i < 6; ++i)
        unit6.push_back(continuous("x" + std::to_string(i), 0, 1));
    out.push_back({"hartmann6", "Hartmann-6 on [0,1]^6", unit6, hartmann6, -3.32236801141551});
    std::vector<ParameterRange> box4;
    for (int i = 0; i < 4; ++i)
        box4.push_back(continuous("x" + std::to_string(i), -2, 2));
    out.push_back({"rosenbrock4", "Rosenbrock, 4-d, on [-2,2]^4", box4, rosenbrock, 0.0});
    ParameterRange c;
    c.name = "c";
    c.type = ParameterType::Categorical;
    c.values = {"a", "b", "c"};
    ParameterRange n = continuous("n", 1, 10);
    n.type = ParameterType::Integer;
    out.push_back({"mixed",
                   "c in {a,b,c}, x1,x2 in [-5,5], integer n in [1,10]: "
                   "s_c*((x1-u_c)^2+(x2-v_c)^2)/10 + o_c + 0.1*(n-4)^2 with (s,u,v,o) = "
                   "a (1,1,-1,0.5), b (2,-2,2,0), c (0.5,3,3,1); optimum 0 at (b,-2,2,4)",
                   {c, continuous("x1", -5, 5), continuous("x2", -5, 5), n},
                   mixed,
                   0.0});
    return out;
}

double regret(const Problem& p, SearchStrategy strategy, std::uint64_t seed, int evals) {
    SearchSettings s;
    s.ranges = p.ranges;
    s.strategy = strategy;
    s.maximize = false;
    s.seed = seed;
    auto searcher = makeSearcher(s);
    std::vector<TrialRecord> trials;
    double best = INFINITY;
    for (int i = 0; i < evals; ++i) {
        const auto point = searcher->propose(trials);
        const double v = p.f(*point);
        best = std::min(best, v);
        trials.push_back({*point, TrialState::Completed, v});
    }
    return best - p.optimum;
}

double median(std::vector<double> v) {
    if (v.empty())
        return NAN;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

nlohmann::json optunaAnchor(int seeds, int evals) {
    process::SpawnOptions o;
    o.argv = {STUDIO_TOOLS_PYTHON,
              std::string(STUDIO_SOURCE_DIR) + "/tests/bench/python/optuna_anchor.py",
              "--seeds",
              std::to_string(seeds),
              "--evals",
              std::to_string(evals)};
    o.env = process::currentEnvironment();
    o.env["OMP_NUM_THREADS"] = "1";
    o.captureStderr = false;
    try {
        auto proc = process::Process::spawn(o);
        const std::string out = readToEnd(proc.stdoutFd());
        if (!proc.wait().success())
            return nullptr;
        auto j = nlohmann::json::parse(out, nullptr, false);
        return j.is_object() ? j : nlohmann::json(nullptr);
    } catch (const std::exception&) {
        return nullptr;
    }
}

// One Bayesian proposal with 500 random observations of Hartmann-6, in milliseconds.
double proposalMs(int repeats) {
    const Problem p = problems()[1];
    std::vector<TrialRecord> trials;
    for (std::size_t i = 0; i < 500; ++i) {
        Point x = randomPoint(p.ranges, 99, i);
        trials.push_back({x, TrialState::Completed, p.f(x)});
    }
    SearchSettings s{p.ranges, SearchStrategy::Bayesian, false, 7};
    auto searcher = makeSearcher(s);
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        const auto start = std::chrono::steady_clock::now();
        searcher->propose(trials);
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
    }
    return median(ms);
}

} // namespace

int main(int argc, char** argv) {
    const bool full = argc > 1 && std::strcmp(argv[1], "--full") == 0;
    const int seeds = full ? 20 : 2;
    const int evals = full ? 50 : 15;
    const nlohmann::json anchor = optunaAnchor(seeds, evals);
    nlohmann::ordered_json functions = nlohmann::ordered_json::object();
    int beatsTpe = 0, beatsRandom = 0;
    bool finite = true;
    for (const auto& p : problems()) {
        std::vector<double> bayes, random;
        const auto start = std::chrono::steady_clock::now();
        for (int s = 0; s < seeds; ++s)
            bayes.push_back(
                regret(p, SearchStrategy::Bayesian, static_cast<std::uint64_t>(s), evals));
        const double bayesSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        for (int s = 0; s < seeds; ++s)
            random.push_back(
                regret(p, SearchStrategy::Random, static_cast<std::uint64_t>(s), evals));
        nlohmann::ordered_json entry = {{"description", p.description},
                                        {"optimum", p.optimum},
                                        {"bayesian_median_regret", median(bayes)},
                                        {"random_median_regret", median(random)},
                                        {"bayesian_seconds", bayesSeconds}};
        double tpe = NAN;
        if (anchor.is_object() && anchor["functions"].contains(p.name)) {
            const auto& a = anchor["functions"][p.name];
            tpe = median(a["tpe"]["regrets"].get<std::vector<double>>());
            entry["optuna_tpe_median_regret"] = tpe;
            entry["optuna_random_median_regret"] =
                median(a["random"]["regrets"].get<std::vector<double>>());
            entry["optuna_tpe_seconds"] = a["tpe"]["seconds"];
        }
        const double ours = median(bayes);
        finite = finite && std::isfinite(ours) && std::isfinite(median(random));
        beatsTpe += ours <= tpe ? 1 : 0;
        beatsRandom += ours < median(random) ? 1 : 0;
        entry["bayesian_le_tpe"] = ours <= tpe;
        entry["bayesian_lt_random"] = ours < median(random);
        entry["bayesian_regrets"] = bayes;
        functions[p.name] = entry;
    }
    const double ms = proposalMs(full ? 7 : 3);
    nlohmann::ordered_json out = {
        {"bench", "tuning"},
        {"mode", full ? "full" : "quick"},
        {"seeds", seeds},
        {"evaluations", evals},
        {"conditions",
         {{"threads", 1},
          {"max_parallel", 1},
          {"hardware_threads", std::thread::hardware_concurrency()}}},
        {"anchor", anchor.is_object()
                       ? "Optuna " + anchor["optuna"].get<std::string>() +
                             " TPESampler(seed=s) and RandomSampler(seed=s), same functions, "
                             "ranges, evaluations and seeds (" STUDIO_TOOLS_PYTHON ")"
                       : std::string("skipped: no Optuna at " STUDIO_TOOLS_PYTHON)},
        {"functions", functions},
        {"bayesian_le_tpe_count", beatsTpe},
        {"bayesian_lt_random_count", beatsRandom},
        {"proposal_ms_500_observations", ms},
        {"goal_proposal_ms", 50},
        {"goals_met", beatsTpe >= 3 && beatsRandom == 4 && ms <= 50}};
    out["pass"] = finite && std::isfinite(ms);
    std::printf("%s\n", out.dump(2).c_str());
    // Quality and time are reported, never failed on: figures on a shared machine vary.
    return out["pass"].get<bool>() ? 0 : 1;
}

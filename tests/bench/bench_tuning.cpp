// Search quality and overhead of the tuning searches.
//  - Quality: the simple regret (best value found minus the known optimum, minimised) after E
//    sequential evaluations (max_parallel 1) on Branin, Hartmann-6, a 4-d Rosenbrock on [-2,2]^4
//    and a mixed categorical/integer/continuous function, seeds 0..S-1 each, for our Bayesian and
//    Random searches. Anchors, in the same run: Optuna's default TPESampler(seed=s) and
//    RandomSampler(seed=s) on the same functions, ranges, evaluation count and seeds
//    (tests/bench/python/optuna_anchor.py, one thread); the bench checks that every Optuna study
//    ran exactly E trials, so both sides get the same budget.
//  - Overhead: one Bayesian proposal with 500 observations on Hartmann-6's ranges.
// Goals: our Bayesian's median regret <= TPE's on at least 3 of 4 functions and below our
// Random's on all 4; a 500-observation proposal <= 50 ms (median).
// Sizes: full (the default) 20 seeds x 50 evaluations and 7 timed proposals, about 2 minutes
// here, most of it Optuna; --quick (ctest) 2 seeds x 15 evaluations and 3 proposals.
// Usage: bench_tuning [--quick] [--json FILE] [--full] [seeds] [evaluations]
//   (--full is accepted as a synonym of the default full mode.)
// Checks: every run found a finite regret not below the optimum, every proposed point lies in its
// ranges (integers whole, categories valid), and the anchor, when the tools Python exists, ran
// every seed with the same number of trials.
#include "engine/process/process.h"
#include "engine/tune/search.h"
#include "tests/bench/bench_support.h"
#include "tests/support/read_to_end.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <numbers>
#include <string>
#include <vector>

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

// Whether a proposed point is a value of its ranges: inside each, integers whole, categories
// an index of a value.
bool inRanges(const Problem& p, const Point& x) {
    if (x.size() != p.ranges.size())
        return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const ParameterRange& r = p.ranges[i];
        if (!std::isfinite(x[i]))
            return false;
        if (r.type == ParameterType::Categorical) {
            if (x[i] != std::floor(x[i]) || x[i] < 0 ||
                x[i] >= static_cast<double>(r.values.size()))
                return false;
            continue;
        }
        if (x[i] < r.minValue || x[i] > r.maxValue)
            return false;
        if (r.type == ParameterType::Integer && x[i] != std::floor(x[i]))
            return false;
    }
    return true;
}

// One search of E sequential evaluations: its simple regret and whether every proposal was a
// point of the ranges.
struct SearchRun {
    double regret = NAN;
    bool pointsValid = true;
};

SearchRun search(const Problem& p, SearchStrategy strategy, std::uint64_t seed, int evals) {
    SearchSettings s;
    s.ranges = p.ranges;
    s.strategy = strategy;
    s.maximize = false;
    s.seed = seed;
    auto searcher = makeSearcher(s);
    std::vector<TrialRecord> trials;
    SearchRun run;
    double best = INFINITY;
    for (int i = 0; i < evals; ++i) {
        const auto point = searcher->propose(trials);
        if (!point || !inRanges(p, *point)) {
            run.pointsValid = false;
            return run;
        }
        const double v = p.f(*point);
        best = std::min(best, v);
        trials.push_back({*point, TrialState::Completed, v});
    }
    run.regret = best - p.optimum;
    return run;
}

// Optuna's run of the same searches, or why there is none.
struct OptunaAnchor {
    bench::Json result;  // optuna_anchor.py's object; null when absent or failed
    std::string absent;  // the tools Python is not there (not a failure)
    std::string failure; // it is there and did not give a result
};

OptunaAnchor runOptuna(int seeds, int evals) {
    OptunaAnchor a;
    if (!std::filesystem::exists(STUDIO_TOOLS_PYTHON)) {
        a.absent = "no tools Python at " STUDIO_TOOLS_PYTHON " (packaging/studio.sh installs it)";
        return a;
    }
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
        if (const auto status = proc.wait(); !status.success()) {
            a.failure = "optuna_anchor.py " + status.describe();
            return a;
        }
        a.result = bench::Json::parse(out, nullptr, false);
        if (!a.result.is_object() || !a.result.contains("functions")) {
            a.failure = "optuna_anchor.py printed no result object";
            a.result = nullptr;
        }
    } catch (const std::exception& e) {
        a.failure = e.what();
    }
    return a;
}

// One sampler's runs of one function in the anchor's result: its regrets when it ran every seed
// with exactly `evals` trials.
std::optional<std::vector<double>> anchorRegrets(const OptunaAnchor& a, const std::string& fn,
                                                 const std::string& sampler, int seeds, int evals) {
    if (!a.result.is_object() || !a.result["functions"].contains(fn))
        return std::nullopt;
    const bench::Json& s = a.result["functions"][fn][sampler];
    const auto regrets = s.value("regrets", std::vector<double>{});
    const auto trials = s.value("trials", std::vector<int>{});
    const auto seedList = s.value("seed_values", std::vector<int>{});
    bool same = static_cast<int>(regrets.size()) == seeds &&
                static_cast<int>(trials.size()) == seeds &&
                static_cast<int>(seedList.size()) == seeds;
    for (int i = 0; same && i < seeds; ++i)
        same = trials[static_cast<std::size_t>(i)] == evals &&
               seedList[static_cast<std::size_t>(i)] == i &&
               std::isfinite(regrets[static_cast<std::size_t>(i)]);
    if (!same)
        return std::nullopt;
    return regrets;
}

bench::Samples samplesOf(const std::vector<double>& values) {
    bench::Samples s = bench::lowerIsBetter();
    for (double v : values)
        s.add(v);
    return s;
}

// The counts behind the summary goals.
struct Tally {
    int functions = 0;
    int bayesianLeTpe = 0;
    int bayesianLtRandom = 0;
    bool tpeEverywhere = true;
};

// One function: our two searches over every seed, their figures against Optuna's, and checks.
bench::Json measureFunction(bench::Report& report, const Problem& p, int seeds, int evals,
                            const OptunaAnchor& anchor, Tally& tally) {
    bench::Samples bayes = bench::lowerIsBetter(), random = bench::lowerIsBetter();
    bool valid = true;
    const double bayesSeconds = bench::timeSeconds([&] {
        for (int s = 0; s < seeds; ++s) {
            const SearchRun r =
                search(p, SearchStrategy::Bayesian, static_cast<std::uint64_t>(s), evals);
            valid = valid && r.pointsValid;
            bayes.add(r.regret);
        }
    });
    for (int s = 0; s < seeds; ++s) {
        const SearchRun r = search(p, SearchStrategy::Random, static_cast<std::uint64_t>(s), evals);
        valid = valid && r.pointsValid;
        random.add(r.regret);
    }
    const auto finiteRegrets = [](const bench::Samples& s) {
        return std::all_of(s.values.begin(), s.values.end(),
                           [](double v) { return std::isfinite(v) && v >= -1e-9; });
    };
    report.check(valid, p.name + ": every proposed point lies in its ranges");
    report.check(finiteRegrets(bayes) && finiteRegrets(random),
                 p.name + ": every search found a finite value no better than the optimum");
    const auto tpe = anchorRegrets(anchor, p.name, "tpe", seeds, evals);
    const auto optunaRandom = anchorRegrets(anchor, p.name, "random", seeds, evals);
    if (anchor.result.is_object())
        report.check(tpe && optunaRandom, p.name + ": Optuna ran seeds 0.." +
                                              std::to_string(seeds - 1) + " with " +
                                              std::to_string(evals) + " trials each, as ours");
    const std::optional<double> tpeMedian =
        tpe ? std::optional<double>(samplesOf(*tpe).median()) : std::nullopt;
    const std::optional<double> randomMedian =
        optunaRandom ? std::optional<double>(samplesOf(*optunaRandom).median()) : std::nullopt;
    report.figure({"median regret, " + p.name + ", our Bayesian vs Optuna TPE", "regret",
                   bayes.median(), tpeMedian, "Optuna TPE", std::nullopt,
                   "the goal counts functions (below)"});
    report.figure({"median regret, " + p.name + ", our Random vs Optuna Random", "regret",
                   random.median(), randomMedian, "Optuna Random", std::nullopt,
                   "two uniform searches: the ratio shows how much the seeds alone move it"});
    ++tally.functions;
    tally.tpeEverywhere = tally.tpeEverywhere && tpeMedian.has_value();
    tally.bayesianLeTpe += tpeMedian && bayes.median() <= *tpeMedian ? 1 : 0;
    tally.bayesianLtRandom += bayes.median() < random.median() ? 1 : 0;
    bench::Json d = {{"description", p.description},     {"optimum", p.optimum},
                     {"bayesian_regret", bayes.json()},  {"random_regret", random.json()},
                     {"bayesian_regrets", bayes.values}, {"bayesian_seconds", bayesSeconds}};
    if (tpe) {
        d["optuna_tpe_regret"] = samplesOf(*tpe).json();
        d["optuna_random_regret"] = samplesOf(*optunaRandom).json();
        d["optuna_tpe_seconds"] = anchor.result["functions"][p.name]["tpe"]["seconds"];
    }
    return d;
}

// One Bayesian proposal with 500 random observations of Hartmann-6, in milliseconds.
bench::Samples proposalMs(int repeats) {
    const Problem p = problems()[1];
    std::vector<TrialRecord> trials;
    for (std::size_t i = 0; i < 500; ++i) {
        Point x = randomPoint(p.ranges, 99, i);
        trials.push_back({x, TrialState::Completed, p.f(x)});
    }
    SearchSettings s{p.ranges, SearchStrategy::Bayesian, false, 7};
    auto searcher = makeSearcher(s);
    bench::Samples ms = bench::lowerIsBetter();
    for (int i = 0; i < repeats; ++i)
        ms.add(1000 * bench::timeSeconds([&] { searcher->propose(trials); }));
    return ms;
}

void anchors(bench::Report& report, const OptunaAnchor& a, int seeds, int evals) {
    if (!a.result.is_object()) {
        report.details()["anchor_missing"] = a.absent.empty() ? a.failure : a.absent;
        return;
    }
    const std::string version = "Optuna " + a.result.value("optuna", std::string("?"));
    const std::string work = std::to_string(seeds) + " seeds (0.." + std::to_string(seeds - 1) +
                             ") x " + std::to_string(evals) +
                             " sequential evaluations of each of the 4 functions, same ranges";
    report.anchor({"Optuna TPE", "Optuna's default TPESampler(seed=s), in " STUDIO_TOOLS_PYTHON,
                   version, 1, "none", "", work});
    report.anchor({"Optuna Random", "Optuna's RandomSampler(seed=s), in " STUDIO_TOOLS_PYTHON,
                   version, 1, "none", "", work});
}

} // namespace

int main(int argc, char** argv) {
    bench::Options options = bench::Options::parse(argc, argv);
    std::erase(options.args, std::string("--full")); // the default; kept for old command lines
    const int seeds = options.pick(0, 2, 20);
    const int evals = options.pick(1, 15, 50);
    bench::Report report("tuning", options);
    const OptunaAnchor anchor = runOptuna(seeds, evals);
    if (anchor.absent.empty())
        report.check(anchor.failure.empty(),
                     "the Optuna anchor ran" +
                         (anchor.failure.empty() ? "" : ": " + anchor.failure));
    anchors(report, anchor, seeds, evals);
    Tally tally;
    bench::Json functions = bench::Json::object();
    for (const auto& p : problems())
        functions[p.name] = measureFunction(report, p, seeds, evals, anchor, tally);
    const std::string noAnchor = tally.tpeEverywhere ? "" : "no Optuna result to compare with";
    report.figure({"functions where our Bayesian's median regret <= Optuna TPE's", "functions",
                   tally.tpeEverywhere ? tally.bayesianLeTpe : NAN, std::nullopt, "",
                   bench::Goal::valueAtLeast(3), noAnchor});
    report.figure({"functions where our Bayesian's median regret < our Random's", "functions",
                   static_cast<double>(tally.bayesianLtRandom), std::nullopt, "",
                   bench::Goal::valueAtLeast(static_cast<double>(tally.functions)), ""});
    const bench::Samples ms = proposalMs(options.quick ? 3 : 7);
    report.figure({"Bayesian proposal, 500 observations of Hartmann-6 (median)", "ms", ms.median(),
                   std::nullopt, "", bench::Goal::valueAtMost(50),
                   "no anchor: the goal is on the time itself"});
    report.check(std::isfinite(ms.median()), "the proposal times are finite");
    report.details()["seeds"] = seeds;
    report.details()["evaluations"] = evals;
    report.details()["conditions"] = {
        {"threads", 1}, {"max_parallel", 1}, {"order", "Optuna's whole run first, then ours"}};
    report.details()["functions"] = functions;
    report.details()["proposal_ms"] = ms.json();
    return report.finish();
}

// The Bayesian search's Gaussian process against an independent implementation: scikit-learn's
// GaussianProcessRegressor with the same kernel and fixed hyperparameters (posterior mean and
// standard deviation, log marginal likelihood) and the closed-form expected improvement, run by
// tests/unit/python/gp_reference.py; and our fitted log marginal likelihood against the optimum
// scikit-learn's optimiser finds within the same bounds.
#include "engine/process/process.h"
#include "engine/tune/gaussian_process.h"

#include "tests/support/plain_test.h"
#include "tests/support/read_to_end.h"
#include "tests/support/temp_dir.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <random>
#include <unistd.h>

using namespace studio::tune;
namespace process = studio::process;
using studio::testing::nearly;

namespace {

struct Case {
    Eigen::MatrixXd x;
    Eigen::VectorXd y;
    KernelParameters params;
    Eigen::MatrixXd points;
    double best = 0;
};

Eigen::MatrixXd uniform(Eigen::Index rows, Eigen::Index cols, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Eigen::MatrixXd m(rows, cols);
    for (Eigen::Index i = 0; i < rows; ++i)
        for (Eigen::Index j = 0; j < cols; ++j)
            m(i, j) = u(rng);
    return m;
}

Case makeCase(Eigen::Index n, std::vector<double> lengthScales, double signal, double noise,
              std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    Case c;
    const auto d = static_cast<Eigen::Index>(lengthScales.size());
    c.x = uniform(n, d, rng);
    c.y.resize(n);
    std::normal_distribution<double> eps(0.0, 0.05);
    for (Eigen::Index i = 0; i < n; ++i)
        c.y(i) = std::sin(4 * c.x(i, 0)) + c.x.row(i).squaredNorm() + eps(rng);
    c.params.lengthScales = Eigen::Map<Eigen::VectorXd>(lengthScales.data(), d);
    c.params.signalVariance = signal;
    c.params.noiseVariance = noise;
    c.points = uniform(7, d, rng);
    c.best = c.y.maxCoeff();
    return c;
}

nlohmann::json rows(const Eigen::MatrixXd& m) {
    nlohmann::json out = nlohmann::json::array();
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        nlohmann::json row = nlohmann::json::array();
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            row.push_back(m(i, j));
        out.push_back(row);
    }
    return out;
}

nlohmann::json values(const Eigen::VectorXd& v) {
    nlohmann::json out = nlohmann::json::array();
    for (Eigen::Index i = 0; i < v.size(); ++i)
        out.push_back(v(i));
    return out;
}

void compareRelative(double ours, double theirs, double tolerance, const char* what) {
    const double scale = std::max(std::abs(theirs), 1e-12);
    char text[160];
    std::snprintf(text, sizeof text, "%s: ours %.17g, scikit-learn %.17g", what, ours, theirs);
    REQUIRE_MESSAGE(std::abs(ours - theirs) <= tolerance * scale, text);
}

// Runs the reference script with `input` on its stdin; its stdout, or a failure naming its
// stderr.
std::string runReference(const std::string& python, const nlohmann::json& input) {
    const studio::testing::TempDir dir;
    std::ofstream(dir.filePath("cases.json")) << input.dump();
    const process::Fd in(::open(dir.filePath("cases.json").c_str(), O_RDONLY | O_CLOEXEC));
    const process::Fd err(
        ::open(dir.filePath("stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    REQUIRE((in.valid() && err.valid()));
    process::SpawnOptions o;
    o.argv = {python, STUDIO_GP_REFERENCE};
    o.env = process::currentEnvironment();
    o.captureStderr = false;
    o.passFds = {{in.get(), 0}, {err.get(), 2}};
    auto proc = process::Process::spawn(o);
    const std::string out = readToEnd(proc.stdoutFd());
    const auto status = proc.waitFor(120000);
    REQUIRE(status);
    std::ifstream errors(dir.filePath("stderr"));
    const std::string stderrText((std::istreambuf_iterator<char>(errors)),
                                 std::istreambuf_iterator<char>());
    REQUIRE_MESSAGE(status->code == 0, stderrText);
    return out;
}

} // namespace

TEST_CASE("matchesScikitLearn") {
    const std::string python = STUDIO_TOOLS_PYTHON;
    if (::access(python.c_str(), X_OK) != 0) {
        MESSAGE("skipped: no tools Python with scikit-learn (STUDIO_TOOLS_PYTHON)");
        return;
    }
    const std::vector<Case> cases{
        makeCase(6, {0.3}, 1.5, 1e-3, 1), makeCase(15, {0.2, 0.5, 1.0}, 0.8, 1e-2, 2),
        makeCase(25, {0.4, 0.1}, 2.0, 1e-4, 3), makeCase(40, {0.7, 0.3, 0.5, 2.0}, 1.2, 0.05, 4)};
    nlohmann::json input = nlohmann::json::array();
    for (const auto& c : cases)
        input.push_back({{"x", rows(c.x)},
                         {"y", values(c.y)},
                         {"length_scales", values(c.params.lengthScales)},
                         {"signal", c.params.signalVariance},
                         {"noise", c.params.noiseVariance},
                         {"points", rows(c.points)},
                         {"best", c.best}});
    const nlohmann::json results =
        nlohmann::json::parse(runReference(python, {{"cases", input}})).at("cases");
    REQUIRE(results.size() == cases.size());
    for (std::size_t k = 0; k < cases.size(); ++k) {
        const Case& c = cases[k];
        const nlohmann::json& r = results[k];
        const GaussianProcess gp(c.x, c.y, c.params);
        const GpPosterior post = gp.posterior(c.points);
        compareRelative(gp.logMarginalLikelihood(), r.at("lml").get<double>(), 1e-6,
                        "log marginal likelihood");
        for (Eigen::Index i = 0; i < c.points.rows(); ++i) {
            const auto j = static_cast<std::size_t>(i);
            compareRelative(post.mean(i), r.at("mean")[j].get<double>(), 1e-6, "mean");
            compareRelative(std::sqrt(post.variance(i) + c.params.noiseVariance),
                            r.at("std")[j].get<double>(), 1e-6, "std");
            compareRelative(expectedImprovement(post.mean(i), std::sqrt(post.variance(i)), c.best),
                            r.at("ei")[j].get<double>(), 1e-6, "expected improvement");
        }
        // Our fit within scikit-learn's default bounds reaches (at least nearly) its optimum.
        KernelBounds bounds;
        bounds.maxNoiseVariance = 1.0;
        const KernelFit fit = fitKernelParameters(c.x, c.y, bounds, 10, 0, 200);
        const double theirs = r.at("fitted_lml").get<double>();
        char text[160];
        std::snprintf(text, sizeof text,
                      "case %zu: fitted log marginal likelihood %.6f (scikit-learn %.6f)", k,
                      fit.logMarginalLikelihood, theirs);
        REQUIRE_MESSAGE(
            fit.logMarginalLikelihood >= theirs - 1e-3 * std::max(1.0, std::abs(theirs)), text);
        MESSAGE(text);
        const GaussianProcess refit(c.x, c.y, fit.params);
        compareRelative(refit.logMarginalLikelihood(), fit.logMarginalLikelihood, 1e-9,
                        "fitted likelihood");
    }
}

TEST_CASE("logExpectedImprovementIsStable") {
    for (double z : {3.0, 0.5, 0.0, -1.0, -5.0, -12.0, -24.0})
        REQUIRE(std::abs(logExpectedImprovement(z, 1.0, 0.0) -
                         std::log(expectedImprovement(z, 1.0, 0.0))) < 1e-9);
    // Far below the best, EI underflows but its logarithm stays finite and ordered.
    REQUIRE(expectedImprovement(-40.0, 1.0, 0.0) == nearly(0.0));
    const double a = logExpectedImprovement(-40.0, 1.0, 0.0);
    const double b = logExpectedImprovement(-45.0, 1.0, 0.0);
    REQUIRE((std::isfinite(a) && std::isfinite(b) && a > b));
    // The asymptotic series joins the direct formula at z = -25.
    REQUIRE(std::abs(logExpectedImprovement(-25.0 - 1e-9, 1.0, 0.0) -
                     logExpectedImprovement(-25.0 + 1e-9, 1.0, 0.0)) < 1e-6);
}

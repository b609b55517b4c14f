// The Bayesian search. Configurations are encoded in a unit cube: Continuous and Integer ranges
// as one dimension under their scaling, Categorical ranges one-hot (k dimensions). Candidates are
// snapped before the kernel sees them (integers to their value's cell, categoricals to a one-hot
// vertex), as in Garrido-Merchán and Hernández-Lobato's treatment of discrete variables. The
// objective is standardised and maximised (Minimize is negated); pending trials enter with the
// constant liar (the mean of the observations) so parallel proposals spread out.
#include "engine/tune/bayesian_search.h"

#include "engine/tune/gaussian_process.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace studio::tune {

namespace {

// The largest number of observations the kernel parameters are fitted on; beyond it the fit uses
// the best half and the most recent others, which keeps a proposal with 500 observations fast.
constexpr Eigen::Index kMaxFitPoints = 80;
constexpr int kRefinedCandidates = 5;

std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t n) {
    std::uint64_t x = seed ^ (n * 0x9e3779b97f4a7c15ULL) ^ 0x5bd1e9955bd1e995ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// Where each range lives in the encoded vector.
class Encoding {
public:
    explicit Encoding(const std::vector<ParameterRange>& ranges)
        : m_ranges(ranges) {
        for (const auto& r : ranges) {
            m_offsets.push_back(m_dims);
            m_dims += r.type == ParameterType::Categorical ? static_cast<int>(r.values.size()) : 1;
        }
    }
    int dims() const { return m_dims; }

    Eigen::VectorXd encode(const Point& p) const {
        Eigen::VectorXd v = Eigen::VectorXd::Zero(m_dims);
        for (std::size_t i = 0; i < m_ranges.size(); ++i) {
            if (m_ranges[i].type == ParameterType::Categorical)
                v(m_offsets[i] + static_cast<int>(std::llround(p[i]))) = 1.0;
            else
                v(m_offsets[i]) = toUnit(m_ranges[i], p[i]);
        }
        return v;
    }

    // A candidate's configuration: unit values through the scalings, categoricals by argmax.
    Point decode(const Eigen::VectorXd& v) const {
        Point p(m_ranges.size());
        for (std::size_t i = 0; i < m_ranges.size(); ++i) {
            if (m_ranges[i].type == ParameterType::Categorical) {
                Eigen::Index k = 0;
                v.segment(m_offsets[i], static_cast<Eigen::Index>(m_ranges[i].values.size()))
                    .maxCoeff(&k);
                p[i] = static_cast<double>(k);
            } else {
                p[i] = fromUnit(m_ranges[i], v(m_offsets[i]));
            }
        }
        return p;
    }

    Eigen::VectorXd snap(const Eigen::VectorXd& v) const { return encode(decode(v)); }

    Eigen::VectorXd sample(std::mt19937_64& rng) const {
        Eigen::VectorXd v = Eigen::VectorXd::Zero(m_dims);
        std::uniform_real_distribution<double> unit(0.0, 1.0);
        for (std::size_t i = 0; i < m_ranges.size(); ++i) {
            if (m_ranges[i].type == ParameterType::Categorical)
                v(m_offsets[i] + pick(m_ranges[i], rng)) = 1.0;
            else
                v(m_offsets[i]) = unit(rng);
        }
        return v;
    }

    // A neighbour: continuous dimensions moved by a normal step, each categorical switched to a
    // random value with a small probability.
    Eigen::VectorXd perturb(const Eigen::VectorXd& v, double step, std::mt19937_64& rng) const {
        Eigen::VectorXd out = v;
        std::normal_distribution<double> normal(0.0, step);
        std::uniform_real_distribution<double> unit(0.0, 1.0);
        for (std::size_t i = 0; i < m_ranges.size(); ++i) {
            if (m_ranges[i].type == ParameterType::Categorical) {
                if (unit(rng) < 0.2) {
                    out.segment(m_offsets[i], static_cast<Eigen::Index>(m_ranges[i].values.size()))
                        .setZero();
                    out(m_offsets[i] + pick(m_ranges[i], rng)) = 1.0;
                }
            } else {
                out(m_offsets[i]) = std::clamp(v(m_offsets[i]) + normal(rng), 0.0, 1.0);
            }
        }
        return out;
    }

private:
    static int pick(const ParameterRange& r, std::mt19937_64& rng) {
        return std::uniform_int_distribution<int>(0, static_cast<int>(r.values.size()) - 1)(rng);
    }

    std::vector<ParameterRange> m_ranges;
    std::vector<int> m_offsets;
    int m_dims = 0;
};

// The observations in model form: snapped inputs and standardised, maximised values.
struct Observations {
    Eigen::MatrixXd x;
    Eigen::VectorXd y;
    Eigen::MatrixXd pending;
};

Observations collect(const Encoding& enc, const std::vector<TrialRecord>& trials, bool maximize) {
    std::vector<Eigen::VectorXd> xs, pend;
    std::vector<double> ys;
    for (const auto& t : trials) {
        if (t.state == TrialState::Pending)
            pend.push_back(enc.encode(t.point));
        else if (t.state != TrialState::Failed && t.value && std::isfinite(*t.value)) {
            xs.push_back(enc.encode(t.point));
            ys.push_back(maximize ? *t.value : -*t.value);
        }
    }
    Observations o;
    o.x.resize(static_cast<Eigen::Index>(xs.size()), enc.dims());
    o.y.resize(static_cast<Eigen::Index>(ys.size()));
    for (std::size_t i = 0; i < xs.size(); ++i) {
        o.x.row(static_cast<Eigen::Index>(i)) = xs[i];
        o.y(static_cast<Eigen::Index>(i)) = ys[i];
    }
    o.pending.resize(static_cast<Eigen::Index>(pend.size()), enc.dims());
    for (std::size_t i = 0; i < pend.size(); ++i)
        o.pending.row(static_cast<Eigen::Index>(i)) = pend[i];
    if (o.y.size() == 0)
        return o;
    const double mean = o.y.mean();
    const double sd = std::sqrt((o.y.array() - mean).square().mean());
    o.y = (o.y.array() - mean) / (sd > 0 ? sd : 1.0);
    return o;
}

// The rows the kernel parameters are fitted on: all of them, or for many observations the best
// half of kMaxFitPoints and the most recent of the others.
std::vector<Eigen::Index> fitRows(const Eigen::VectorXd& y) {
    std::vector<Eigen::Index> rows(static_cast<std::size_t>(y.size()));
    std::iota(rows.begin(), rows.end(), 0);
    if (y.size() <= kMaxFitPoints)
        return rows;
    std::vector<Eigen::Index> byValue = rows;
    std::stable_sort(byValue.begin(), byValue.end(),
                     [&](Eigen::Index a, Eigen::Index b) { return y(a) > y(b); });
    std::vector<bool> taken(rows.size(), false);
    std::vector<Eigen::Index> chosen;
    for (std::size_t i = 0; i < static_cast<std::size_t>(kMaxFitPoints / 2); ++i) {
        chosen.push_back(byValue[i]);
        taken[static_cast<std::size_t>(byValue[i])] = true;
    }
    for (Eigen::Index i = y.size();
         i-- > 0 && static_cast<Eigen::Index>(chosen.size()) < kMaxFitPoints;)
        if (!taken[static_cast<std::size_t>(i)])
            chosen.push_back(i);
    std::sort(chosen.begin(), chosen.end());
    return chosen;
}

KernelParameters fitKernel(const Observations& o, std::uint64_t seed) {
    const std::vector<Eigen::Index> rows = fitRows(o.y);
    Eigen::MatrixXd x(static_cast<Eigen::Index>(rows.size()), o.x.cols());
    Eigen::VectorXd y(static_cast<Eigen::Index>(rows.size()));
    for (std::size_t i = 0; i < rows.size(); ++i) {
        x.row(static_cast<Eigen::Index>(i)) = o.x.row(rows[i]);
        y(static_cast<Eigen::Index>(i)) = o.y(rows[i]);
    }
    KernelBounds bounds;
    bounds.minLengthScale = 0.01;
    bounds.maxLengthScale = 20.0;
    bounds.minSignalVariance = 0.05;
    bounds.maxSignalVariance = 20.0;
    bounds.minNoiseVariance = 1e-6;
    bounds.maxNoiseVariance = 0.5;
    // Fewer starts as the data grows: each costs O(n^3) per step, and with much data the
    // likelihood has fewer competing optima.
    const int starts = o.y.size() <= 40 ? 4 : o.y.size() <= kMaxFitPoints ? 2 : 1;
    return fitKernelParameters(x, y, bounds, starts, seed).params;
}

class BayesianSearcher : public Searcher {
public:
    explicit BayesianSearcher(SearchSettings settings)
        : m_settings(std::move(settings))
        , m_encoding(m_settings.ranges)
        , m_startup(bayesianStartupTrials(m_settings.ranges)) {}

    std::optional<Point> propose(const std::vector<TrialRecord>& trials) override;

private:
    Eigen::VectorXd maximiseAcquisition(const GaussianProcess& gp, const Observations& o,
                                        std::mt19937_64& rng) const;

    SearchSettings m_settings;
    Encoding m_encoding;
    int m_startup;
};

std::optional<Point> BayesianSearcher::propose(const std::vector<TrialRecord>& trials) {
    const Observations o = collect(m_encoding, trials, m_settings.maximize);
    if (o.y.size() < m_startup)
        return randomPoint(m_settings.ranges, m_settings.seed, trials.size());
    const std::uint64_t seed = mixSeed(m_settings.seed, trials.size());
    KernelParameters params = fitKernel(o, seed);
    // Pending points are told the mean of the observations (0 after standardising).
    Eigen::MatrixXd x(o.x.rows() + o.pending.rows(), o.x.cols());
    x << o.x, o.pending;
    Eigen::VectorXd y = Eigen::VectorXd::Zero(x.rows());
    y.head(o.y.size()) = o.y;
    for (int attempt = 0;; ++attempt) {
        try {
            const GaussianProcess gp(x, y, params);
            std::mt19937_64 rng(seed);
            return m_encoding.decode(maximiseAcquisition(gp, o, rng));
        } catch (const std::runtime_error&) {
            // Repeated points with almost no noise: more noise makes the matrix definite.
            if (attempt >= 5)
                throw;
            params.noiseVariance *= 100.0;
        }
    }
}

Eigen::VectorXd BayesianSearcher::maximiseAcquisition(const GaussianProcess& gp,
                                                      const Observations& o,
                                                      std::mt19937_64& rng) const {
    const double best = o.y.maxCoeff();
    const auto n = static_cast<double>(o.x.rows() + o.pending.rows());
    // The candidate budget shrinks with the observations: each costs O(n^2) for its variance.
    const auto random = static_cast<int>(std::clamp(2.5e7 / std::max(n * n, 1.0), 128.0, 2000.0));
    const auto score = [&](const std::vector<Eigen::VectorXd>& raw) {
        Eigen::MatrixXd snapped(static_cast<Eigen::Index>(raw.size()), m_encoding.dims());
        for (std::size_t i = 0; i < raw.size(); ++i)
            snapped.row(static_cast<Eigen::Index>(i)) = m_encoding.snap(raw[i]);
        const GpPosterior p = gp.posterior(snapped);
        std::vector<double> s(raw.size());
        for (std::size_t i = 0; i < raw.size(); ++i)
            s[i] =
                logExpectedImprovement(p.mean(static_cast<Eigen::Index>(i)),
                                       std::sqrt(p.variance(static_cast<Eigen::Index>(i))), best);
        return s;
    };
    // Random candidates, and neighbours of the best observations (the optimum is often near).
    std::vector<Eigen::VectorXd> raw;
    for (int i = 0; i < random; ++i)
        raw.push_back(m_encoding.sample(rng));
    std::vector<Eigen::Index> order(static_cast<std::size_t>(o.y.size()));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](Eigen::Index a, Eigen::Index b) { return o.y(a) > o.y(b); });
    for (std::size_t k = 0; k < std::min<std::size_t>(order.size(), 5); ++k)
        for (int i = 0; i < random / 20; ++i)
            raw.push_back(m_encoding.perturb(o.x.row(order[k]).transpose(), 0.05, rng));
    std::vector<double> scores = score(raw);
    std::vector<std::size_t> top(raw.size());
    std::iota(top.begin(), top.end(), 0);
    const std::size_t keep = std::min<std::size_t>(n > 200 ? 3 : kRefinedCandidates, top.size());
    std::partial_sort(top.begin(), top.begin() + static_cast<std::ptrdiff_t>(keep), top.end(),
                      [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    // Local refinement: a batch of neighbours per round, the step halved after a round that
    // found nothing better.
    Eigen::VectorXd bestRaw = raw[top[0]];
    double bestScore = scores[top[0]];
    const int batch = 16;
    const int rounds = n > 200 ? 3 : 10;
    for (std::size_t t = 0; t < keep; ++t) {
        Eigen::VectorXd centre = raw[top[t]];
        double centreScore = scores[top[t]];
        double step = 0.05;
        for (int round = 0; round < rounds; ++round) {
            std::vector<Eigen::VectorXd> around;
            for (int i = 0; i < batch; ++i)
                around.push_back(m_encoding.perturb(centre, step, rng));
            const std::vector<double> s = score(around);
            const auto it = std::max_element(s.begin(), s.end());
            if (*it > centreScore) {
                centreScore = *it;
                centre = around[static_cast<std::size_t>(it - s.begin())];
            } else {
                step *= 0.5;
            }
        }
        if (centreScore > bestScore) {
            bestScore = centreScore;
            bestRaw = centre;
        }
    }
    return bestRaw;
}

} // namespace

int bayesianStartupTrials(const std::vector<ParameterRange>& ranges) {
    return std::clamp(static_cast<int>(ranges.size()) + 1, 5, 10);
}

std::unique_ptr<Searcher> makeBayesianSearcher(const SearchSettings& settings) {
    return std::make_unique<BayesianSearcher>(settings);
}

} // namespace studio::tune

// The Gaussian process: kernel, conditioning, the log marginal likelihood with its gradient,
// its maximisation, and expected improvement.
#include "engine/tune/gaussian_process.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>

namespace studio::tune {

namespace {

constexpr double kSqrt5 = 2.2360679774997896964;

// Squared distances between rows after dividing each dimension by its length scale.
Eigen::MatrixXd scaledSquaredDistances(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b,
                                       const Eigen::VectorXd& lengthScales) {
    const Eigen::RowVectorXd inv = lengthScales.cwiseInverse().transpose();
    const Eigen::MatrixXd as = a.array().rowwise() * inv.array();
    const Eigen::MatrixXd bs = b.array().rowwise() * inv.array();
    Eigen::MatrixXd s = (-2.0 * as * bs.transpose()).eval();
    s.colwise() += as.rowwise().squaredNorm();
    s.rowwise() += bs.rowwise().squaredNorm().transpose();
    return s.cwiseMax(0.0);
}

Eigen::MatrixXd maternFromSquared(const Eigen::MatrixXd& s, double signalVariance) {
    const Eigen::ArrayXXd r = s.array().sqrt();
    return signalVariance * (1.0 + kSqrt5 * r + (5.0 / 3.0) * s.array()) * (-kSqrt5 * r).exp();
}

// The negative log marginal likelihood and its gradient over
// theta = (log length scales, log signal variance, log noise variance).
class NegativeLikelihood {
public:
    NegativeLikelihood(const Eigen::MatrixXd& x, const Eigen::VectorXd& y)
        : m_y(y) {
        const auto n = x.rows();
        for (Eigen::Index d = 0; d < x.cols(); ++d) {
            const Eigen::VectorXd c = x.col(d);
            m_squaredDiffs.push_back(
                (c.replicate(1, n) - c.transpose().replicate(n, 1)).array().square().matrix());
        }
    }

    double operator()(const Eigen::VectorXd& theta, Eigen::VectorXd& grad) const {
        const auto dims = static_cast<Eigen::Index>(m_squaredDiffs.size());
        const auto n = m_y.size();
        const double signal = std::exp(theta(dims));
        const double noise = std::exp(theta(dims + 1));
        Eigen::MatrixXd s = Eigen::MatrixXd::Zero(n, n);
        Eigen::VectorXd invSq(dims);
        for (Eigen::Index d = 0; d < dims; ++d) {
            invSq(d) = std::exp(-2.0 * theta(d));
            s += invSq(d) * m_squaredDiffs[static_cast<std::size_t>(d)];
        }
        const Eigen::ArrayXXd r = s.array().sqrt();
        const Eigen::ArrayXXd e = (-kSqrt5 * r).exp();
        Eigen::MatrixXd kf = (signal * (1.0 + kSqrt5 * r + (5.0 / 3.0) * s.array()) * e).matrix();
        Eigen::MatrixXd k = kf;
        k.diagonal().array() += noise;
        const Eigen::LLT<Eigen::MatrixXd> llt(k);
        if (llt.info() != Eigen::Success)
            return std::numeric_limits<double>::infinity();
        const Eigen::VectorXd alpha = llt.solve(m_y);
        const double logDet = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
        // W = alpha alpha^T - K^-1; d(LML)/d(theta_i) = 0.5 * sum(W .* dK/d(theta_i)).
        Eigen::MatrixXd w = -llt.solve(Eigen::MatrixXd::Identity(n, n));
        w.noalias() += alpha * alpha.transpose();
        const Eigen::ArrayXXd g = signal * (5.0 / 3.0) * (1.0 + kSqrt5 * r) * e * w.array();
        grad.resize(dims + 2);
        for (Eigen::Index d = 0; d < dims; ++d)
            grad(d) =
                -0.5 * invSq(d) * (g * m_squaredDiffs[static_cast<std::size_t>(d)].array()).sum();
        grad(dims) = -0.5 * (w.array() * kf.array()).sum();
        grad(dims + 1) = -0.5 * noise * w.trace();
        return 0.5 * m_y.dot(alpha) + 0.5 * logDet +
               0.5 * static_cast<double>(n) * std::log(2.0 * std::numbers::pi);
    }

private:
    Eigen::VectorXd m_y;
    std::vector<Eigen::MatrixXd> m_squaredDiffs;
};

struct Box {
    Eigen::VectorXd low;
    Eigen::VectorXd high;
    Eigen::VectorXd clamp(const Eigen::VectorXd& v) const { return v.cwiseMax(low).cwiseMin(high); }
};

// L-BFGS's two-loop recursion: the quasi-Newton direction for gradient g.
Eigen::VectorXd lbfgsDirection(const Eigen::VectorXd& g, const std::deque<Eigen::VectorXd>& s,
                               const std::deque<Eigen::VectorXd>& y) {
    Eigen::VectorXd q = -g;
    std::vector<double> a(s.size());
    for (std::size_t i = s.size(); i-- > 0;) {
        a[i] = s[i].dot(q) / y[i].dot(s[i]);
        q -= a[i] * y[i];
    }
    if (!s.empty())
        q *= s.back().dot(y.back()) / y.back().squaredNorm();
    for (std::size_t i = 0; i < s.size(); ++i)
        q += (a[i] - y[i].dot(q) / y[i].dot(s[i])) * s[i];
    return q;
}

// Minimises f over the box by L-BFGS with projected steps and a backtracking line search.
double minimiseInBox(const NegativeLikelihood& f, Eigen::VectorXd& x, const Box& box,
                     int maxIterations) {
    x = box.clamp(x);
    Eigen::VectorXd g;
    double fx = f(x, g);
    if (!std::isfinite(fx))
        return fx;
    std::deque<Eigen::VectorXd> ss, ys;
    for (int it = 0; it < maxIterations; ++it) {
        Eigen::VectorXd d = lbfgsDirection(g, ss, ys);
        // Components that push through an active bound are dropped.
        for (Eigen::Index i = 0; i < d.size(); ++i)
            if ((x(i) <= box.low(i) && d(i) < 0) || (x(i) >= box.high(i) && d(i) > 0))
                d(i) = 0;
        if (g.dot(d) >= 0) {
            ss.clear();
            ys.clear();
            d = -g;
            for (Eigen::Index i = 0; i < d.size(); ++i)
                if ((x(i) <= box.low(i) && d(i) < 0) || (x(i) >= box.high(i) && d(i) > 0))
                    d(i) = 0;
            if (d.squaredNorm() < 1e-20)
                break;
        }
        double step = ss.empty() ? std::min(1.0, 1.0 / d.norm()) : 1.0;
        Eigen::VectorXd xn, gn;
        double fn = fx;
        bool accepted = false;
        for (int k = 0; k < 30 && !accepted; ++k, step *= 0.5) {
            xn = box.clamp(x + step * d);
            fn = f(xn, gn);
            accepted = std::isfinite(fn) && fn <= fx + 1e-4 * g.dot(xn - x);
        }
        if (!accepted)
            break;
        const Eigen::VectorXd s = xn - x;
        const Eigen::VectorXd yv = gn - g;
        const double improvement = fx - fn;
        x = xn;
        g = gn;
        fx = fn;
        if (s.dot(yv) > 1e-12) {
            ss.push_back(s);
            ys.push_back(yv);
            if (ss.size() > 8) {
                ss.pop_front();
                ys.pop_front();
            }
        }
        if (improvement < 1e-9 * (1.0 + std::abs(fx)))
            break;
    }
    return fx;
}

double normalPdf(double z) {
    return std::exp(-0.5 * z * z) / std::sqrt(2.0 * std::numbers::pi);
}
double normalCdf(double z) {
    return 0.5 * std::erfc(-z / std::numbers::sqrt2);
}

} // namespace

Eigen::MatrixXd maternKernel(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b,
                             const KernelParameters& params) {
    return maternFromSquared(scaledSquaredDistances(a, b, params.lengthScales),
                             params.signalVariance);
}

GaussianProcess::GaussianProcess(Eigen::MatrixXd x, Eigen::VectorXd y, KernelParameters params)
    : m_x(std::move(x))
    , m_params(std::move(params)) {
    if (m_params.lengthScales.size() != m_x.cols() || y.size() != m_x.rows())
        throw std::invalid_argument("Gaussian process: the data and length scales disagree");
    Eigen::MatrixXd k = maternKernel(m_x, m_x, m_params);
    k.diagonal().setConstant(m_params.signalVariance + m_params.noiseVariance);
    m_cholesky.compute(k);
    if (m_cholesky.info() != Eigen::Success)
        throw std::runtime_error("Gaussian process: the kernel matrix is not positive definite");
    m_alpha = m_cholesky.solve(y);
    const double logDet = 2.0 * m_cholesky.matrixLLT().diagonal().array().log().sum();
    m_logMarginalLikelihood =
        -0.5 * y.dot(m_alpha) - 0.5 * logDet -
        0.5 * static_cast<double>(y.size()) * std::log(2.0 * std::numbers::pi);
}

GpPosterior GaussianProcess::posterior(const Eigen::MatrixXd& points) const {
    const Eigen::MatrixXd ks = maternKernel(m_x, points, m_params); // n x m
    GpPosterior p;
    p.mean = ks.transpose() * m_alpha;
    const Eigen::MatrixXd v = m_cholesky.matrixL().solve(ks);
    p.variance = (m_params.signalVariance - v.colwise().squaredNorm().transpose().array())
                     .cwiseMax(1e-12 * m_params.signalVariance)
                     .matrix();
    return p;
}

KernelFit fitKernelParameters(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                              const KernelBounds& bounds, int starts, std::uint64_t seed,
                              int maxIterations) {
    const auto dims = x.cols();
    Box box{Eigen::VectorXd(dims + 2), Eigen::VectorXd(dims + 2)};
    box.low.head(dims).setConstant(std::log(bounds.minLengthScale));
    box.high.head(dims).setConstant(std::log(bounds.maxLengthScale));
    box.low(dims) = std::log(bounds.minSignalVariance);
    box.high(dims) = std::log(bounds.maxSignalVariance);
    box.low(dims + 1) = std::log(bounds.minNoiseVariance);
    box.high(dims + 1) = std::log(bounds.maxNoiseVariance);
    const NegativeLikelihood f(x, y);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    Eigen::VectorXd best;
    double bestValue = std::numeric_limits<double>::infinity();
    for (int start = 0; start < std::max(starts, 1); ++start) {
        Eigen::VectorXd theta(dims + 2);
        for (Eigen::Index i = 0; i < theta.size(); ++i) {
            const double t = start == 0 ? 0.5 : unit(rng);
            theta(i) = box.low(i) + t * (box.high(i) - box.low(i));
        }
        const double value = minimiseInBox(f, theta, box, maxIterations);
        if (value < bestValue) {
            bestValue = value;
            best = theta;
        }
    }
    if (!std::isfinite(bestValue))
        throw std::runtime_error("Gaussian process: no kernel parameters fit the data");
    KernelFit fit;
    fit.params.lengthScales = best.head(dims).array().exp();
    fit.params.signalVariance = std::exp(best(dims));
    fit.params.noiseVariance = std::exp(best(dims + 1));
    fit.logMarginalLikelihood = -bestValue;
    return fit;
}

double expectedImprovement(double mean, double stdDev, double best) {
    if (!(stdDev > 0))
        return std::max(mean - best, 0.0);
    const double z = (mean - best) / stdDev;
    return stdDev * (z * normalCdf(z) + normalPdf(z));
}

double logExpectedImprovement(double mean, double stdDev, double best) {
    if (!(stdDev > 0))
        return std::log(std::max(mean - best, 0.0));
    const double z = (mean - best) / stdDev;
    if (z > -25) {
        const double h = z * normalCdf(z) + normalPdf(z);
        if (h > 0)
            return std::log(stdDev) + std::log(h);
    }
    // Far below best: z Phi(z) + phi(z) = phi(z) / z^2 * (1 - 3/z^2 + 15/z^4 - 105/z^6 + ...).
    const double z2 = z * z;
    const double series = 1.0 - 3.0 / z2 + 15.0 / (z2 * z2) - 105.0 / (z2 * z2 * z2);
    return std::log(stdDev) - 0.5 * z2 - 0.5 * std::log(2.0 * std::numbers::pi) - std::log(z2) +
           std::log(series);
}

} // namespace studio::tune

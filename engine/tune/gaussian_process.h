// A Gaussian process regressor for the Bayesian search: a Matérn 5/2 kernel with one length
// scale per input dimension (ARD), a signal variance and a noise variance, fitted by maximising
// the log marginal likelihood; and expected improvement. The same model as scikit-learn's
// GaussianProcessRegressor(ConstantKernel * Matern(nu=2.5, length_scale=[...]) + WhiteKernel),
// with a zero prior mean (callers standardise y).
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <cstdint>

namespace studio::tune {

struct KernelParameters {
    Eigen::VectorXd lengthScales; // one per input dimension
    double signalVariance = 1;    // ConstantKernel's constant_value
    double noiseVariance = 1e-6;  // WhiteKernel's noise_level
};

// The latent function's posterior at some points; add noiseVariance to variance for the
// predictive variance of an observation (what scikit-learn's predict returns with a WhiteKernel).
struct GpPosterior {
    Eigen::VectorXd mean;
    Eigen::VectorXd variance;
};

// signalVariance * Matérn 5/2 between the rows of a and the rows of b.
Eigen::MatrixXd maternKernel(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b,
                             const KernelParameters& params);

// A process conditioned on observations with fixed kernel parameters. Immutable; safe to read
// from several threads.
class GaussianProcess {
public:
    // x: one observation per row. Throws std::runtime_error when the kernel matrix is not
    // positive definite (duplicate points with no noise).
    GaussianProcess(Eigen::MatrixXd x, Eigen::VectorXd y, KernelParameters params);

    double logMarginalLikelihood() const { return m_logMarginalLikelihood; }
    GpPosterior posterior(const Eigen::MatrixXd& points) const;
    const KernelParameters& parameters() const { return m_params; }

private:
    Eigen::MatrixXd m_x;
    KernelParameters m_params;
    Eigen::LLT<Eigen::MatrixXd> m_cholesky;
    Eigen::VectorXd m_alpha; // K^-1 y
    double m_logMarginalLikelihood = 0;
};

// Box bounds on the kernel parameters (the optimiser works on their logarithms).
struct KernelBounds {
    double minLengthScale = 1e-2;
    double maxLengthScale = 1e2;
    double minSignalVariance = 1e-2;
    double maxSignalVariance = 1e2;
    double minNoiseVariance = 1e-6;
    double maxNoiseVariance = 1.0;
};

struct KernelFit {
    KernelParameters params;
    double logMarginalLikelihood = 0;
};

// Maximises the log marginal likelihood from `starts` starting points (the first the middle of
// the box in log space, the others drawn from seed) with L-BFGS on the log-parameters, projected
// onto the box. maxIterations bounds each start.
KernelFit fitKernelParameters(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                              const KernelBounds& bounds, int starts, std::uint64_t seed,
                              int maxIterations = 60);

// Expected improvement over `best` for maximisation, sigma * (z Phi(z) + phi(z)) with
// z = (mean - best) / sigma, and its logarithm computed without underflow far below best.
double expectedImprovement(double mean, double stdDev, double best);
double logExpectedImprovement(double mean, double stdDev, double best);

} // namespace studio::tune

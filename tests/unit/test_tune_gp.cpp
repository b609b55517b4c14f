// The Bayesian search's Gaussian process against an independent implementation: scikit-learn's
// GaussianProcessRegressor with the same kernel and fixed hyperparameters (posterior mean and
// standard deviation, log marginal likelihood) and the closed-form expected improvement, run by
// tests/unit/python/gp_reference.py; and our fitted log marginal likelihood against the optimum
// scikit-learn's optimiser finds within the same bounds.
#include "engine/tune/gaussian_process.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include <cmath>
#include <random>

using namespace studio::tune;

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

QJsonArray rows(const Eigen::MatrixXd& m) {
    QJsonArray out;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        QJsonArray row;
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            row.append(m(i, j));
        out.append(row);
    }
    return out;
}

QJsonArray values(const Eigen::VectorXd& v) {
    QJsonArray out;
    for (Eigen::Index i = 0; i < v.size(); ++i)
        out.append(v(i));
    return out;
}

void compareRelative(double ours, double theirs, double tolerance, const char* what) {
    const double scale = std::max(std::abs(theirs), 1e-12);
    QVERIFY2(std::abs(ours - theirs) <= tolerance * scale,
             qPrintable(QStringLiteral("%1: ours %2, scikit-learn %3")
                            .arg(QLatin1String(what))
                            .arg(ours, 0, 'g', 17)
                            .arg(theirs, 0, 'g', 17)));
}

} // namespace

class TuneGpTest : public QObject {
    Q_OBJECT
private slots:
    void matchesScikitLearn();
    void logExpectedImprovementIsStable();
};

void TuneGpTest::matchesScikitLearn() {
    const QString python = QStringLiteral(STUDIO_TOOLS_PYTHON);
    if (!QFileInfo(python).isExecutable())
        QSKIP("no tools Python with scikit-learn (STUDIO_TOOLS_PYTHON)");
    const std::vector<Case> cases{
        makeCase(6, {0.3}, 1.5, 1e-3, 1), makeCase(15, {0.2, 0.5, 1.0}, 0.8, 1e-2, 2),
        makeCase(25, {0.4, 0.1}, 2.0, 1e-4, 3), makeCase(40, {0.7, 0.3, 0.5, 2.0}, 1.2, 0.05, 4)};
    QJsonArray input;
    for (const auto& c : cases)
        input.append(QJsonObject{{QStringLiteral("x"), rows(c.x)},
                                 {QStringLiteral("y"), values(c.y)},
                                 {QStringLiteral("length_scales"), values(c.params.lengthScales)},
                                 {QStringLiteral("signal"), c.params.signalVariance},
                                 {QStringLiteral("noise"), c.params.noiseVariance},
                                 {QStringLiteral("points"), rows(c.points)},
                                 {QStringLiteral("best"), c.best}});
    QProcess proc;
    proc.start(python, {QStringLiteral(STUDIO_GP_REFERENCE)});
    QVERIFY(proc.waitForStarted());
    proc.write(QJsonDocument(QJsonObject{{QStringLiteral("cases"), input}}).toJson());
    proc.closeWriteChannel();
    QVERIFY(proc.waitForFinished(120000));
    QVERIFY2(proc.exitCode() == 0, proc.readAllStandardError().constData());
    const QJsonArray results = QJsonDocument::fromJson(proc.readAllStandardOutput())
                                   .object()[QStringLiteral("cases")]
                                   .toArray();
    QCOMPARE(results.size(), static_cast<qsizetype>(cases.size()));
    for (std::size_t k = 0; k < cases.size(); ++k) {
        const Case& c = cases[k];
        const QJsonObject r = results[static_cast<qsizetype>(k)].toObject();
        const GaussianProcess gp(c.x, c.y, c.params);
        const GpPosterior post = gp.posterior(c.points);
        compareRelative(gp.logMarginalLikelihood(), r[QStringLiteral("lml")].toDouble(), 1e-6,
                        "log marginal likelihood");
        for (Eigen::Index i = 0; i < c.points.rows(); ++i) {
            const auto j = static_cast<qsizetype>(i);
            compareRelative(post.mean(i), r[QStringLiteral("mean")].toArray()[j].toDouble(), 1e-6,
                            "mean");
            compareRelative(std::sqrt(post.variance(i) + c.params.noiseVariance),
                            r[QStringLiteral("std")].toArray()[j].toDouble(), 1e-6, "std");
            compareRelative(expectedImprovement(post.mean(i), std::sqrt(post.variance(i)), c.best),
                            r[QStringLiteral("ei")].toArray()[j].toDouble(), 1e-6,
                            "expected improvement");
        }
        // Our fit within scikit-learn's default bounds reaches (at least nearly) its optimum.
        KernelBounds bounds;
        bounds.maxNoiseVariance = 1.0;
        const KernelFit fit = fitKernelParameters(c.x, c.y, bounds, 10, 0, 200);
        const double theirs = r[QStringLiteral("fitted_lml")].toDouble();
        QVERIFY2(fit.logMarginalLikelihood >= theirs - 1e-3 * std::max(1.0, std::abs(theirs)),
                 qPrintable(QStringLiteral("fitted: ours %1, scikit-learn %2")
                                .arg(fit.logMarginalLikelihood)
                                .arg(theirs)));
        qInfo("case %zu: fitted log marginal likelihood %.6f (scikit-learn %.6f)", k,
              fit.logMarginalLikelihood, theirs);
        const GaussianProcess refit(c.x, c.y, fit.params);
        compareRelative(refit.logMarginalLikelihood(), fit.logMarginalLikelihood, 1e-9,
                        "fitted likelihood");
    }
}

void TuneGpTest::logExpectedImprovementIsStable() {
    for (double z : {3.0, 0.5, 0.0, -1.0, -5.0, -12.0, -24.0})
        QVERIFY(std::abs(logExpectedImprovement(z, 1.0, 0.0) -
                         std::log(expectedImprovement(z, 1.0, 0.0))) < 1e-9);
    // Far below the best, EI underflows but its logarithm stays finite and ordered.
    QCOMPARE(expectedImprovement(-40.0, 1.0, 0.0), 0.0);
    const double a = logExpectedImprovement(-40.0, 1.0, 0.0);
    const double b = logExpectedImprovement(-45.0, 1.0, 0.0);
    QVERIFY(std::isfinite(a) && std::isfinite(b) && a > b);
    // The asymptotic series joins the direct formula at z = -25.
    QVERIFY(std::abs(logExpectedImprovement(-25.0 - 1e-9, 1.0, 0.0) -
                     logExpectedImprovement(-25.0 + 1e-9, 1.0, 0.0)) < 1e-6);
}

QTEST_GUILESS_MAIN(TuneGpTest)
#include "test_tune_gp.moc"

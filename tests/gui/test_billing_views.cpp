// Spot billing views over a real store: the cumulative cost and strip math, a spot job's bill
// with two interruptions (figures equal the engine's billing of the same segments), an on-demand
// job, an experiment's totals, and screenshots.
#include "engine/control/studio_home.h"
#include "engine/spot/billing.h"
#include "engine/store/store_writer.h"
#include "models/billing/cost_curve.h"
#include "models/data/data_service.h"
#include "tests/support/screenshot.h"
#include "widgets/billing/experiment_billing_view.h"
#include "widgets/billing/job_billing_view.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;

namespace {

constexpr double kT0 = 1795300000;

std::vector<store::BillingSegment> spotSegments() {
    // A waiting segment belongs to the attempt it waits to start, as the runner records it.
    return {{1, kT0, kT0 + 600, "running"},
            {2, kT0 + 600, kT0 + 720, "waiting"},
            {2, kT0 + 720, kT0 + 1320, "running"},
            {3, kT0 + 1320, kT0 + 1380, "waiting"},
            {3, kT0 + 1380, kT0 + 2280, "running"}};
}

} // namespace

class TestBillingViews : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    QString m_db;

private Q_SLOTS:
    void initTestCase() {
        m_db = QString::fromStdString(control::databasePath(m_home.path().toStdString()));
        store::StoreWriter w(m_db.toStdString());
        auto job = [&](const std::string& name, bool spot, const std::string& type,
                       const std::vector<store::BillingSegment>& segments) {
            store::NewComponent c;
            c.name = name;
            c.experiment = "spot-study";
            c.instanceType = type;
            c.created = kT0;
            c.specJson = nlohmann::json{
                {"entry_point", "builtin:mlp"},
                {"instance_type", type},
                {"use_spot_instances",
                 spot}}.dump();
            const auto id = w.createComponent(c);
            w.setStarted(id, kT0);
            for (const auto& s : segments)
                w.addBillingSegment(id, s);
            w.setStatus(id, "Completed", "Completed", "", kT0 + 2280);
            w.setEnded(id, kT0 + 2280);
        };
        job("spot-job", true, "ml.g5.xlarge", spotSegments());
        job("on-demand-job", false, "ml.g5.xlarge", {{1, kT0, kT0 + 1800, "running"}});
    }

    void cumulativeCost_data() {
        QTest::addColumn<int>("instances");
        QTest::addColumn<double>("spotTotal");
        QTest::addColumn<double>("onDemandTotal");
        // 2100 s running in all: 0.58333 h.
        QTest::newRow("one instance") << 1 << 2100.0 / 3600 * 0.5 << 2100.0 / 3600 * 1.5;
        QTest::newRow("two instances") << 2 << 2 * 2100.0 / 3600 * 0.5 << 2 * 2100.0 / 3600 * 1.5;
    }
    void cumulativeCost() {
        QFETCH(int, instances);
        QFETCH(double, spotTotal);
        QFETCH(double, onDemandTotal);
        auto segments = spotSegments();
        std::reverse(segments.begin(), segments.end()); // any order
        const auto points = models::cumulativeCost(segments, 1.5, 0.5, instances);
        QCOMPARE(points.size(), std::size_t(10));
        QCOMPARE(points.front().time, kT0);
        QVERIFY(std::abs(points.back().spotUsd - spotTotal) < 1e-9);
        QVERIFY(std::abs(points.back().onDemandUsd - onDemandTotal) < 1e-9);
        // Flat while waiting: the cost at the end of the first wait equals its start.
        QCOMPARE(points[2].spotUsd, points[3].spotUsd);
        for (std::size_t i = 1; i < points.size(); ++i) {
            QVERIFY(points[i].time >= points[i - 1].time);
            QVERIFY(points[i].spotUsd >= points[i - 1].spotUsd);
        }
    }

    void strip() {
        const auto s = layoutStrip(spotSegments());
        QCOMPARE(s.size(), std::size_t(5));
        QCOMPARE(s[0].x, 0.0);
        QVERIFY(std::abs(s[0].width - 600.0 / 2280) < 1e-12);
        QVERIFY(!s[0].interruptedBefore);
        QVERIFY(s[1].interruptedBefore && !s[1].running);
        QCOMPARE(s[4].attempt, 3);
        QVERIFY(std::abs(s[4].x + s[4].width - 1.0) < 1e-12);
        QVERIFY(layoutStrip({}).empty());
    }

    void spotJobBill() {
        DataService service(m_db);
        JobBillingView view(&service, QStringLiteral("spot-job"));
        view.resize(1200, 760);
        view.show();
        QTRY_VERIFY(view.loaded());
        const auto& d = view.data();
        QVERIFY(d.spot);
        QVERIFY(d.prices.has_value());
        spot::BillingInputs in;
        in.segments = spotSegments();
        in.prices = d.prices;
        in.spot = true;
        const auto expected = spot::computeBilling(in);
        QCOMPARE(d.summary.trainingTimeSeconds, 2100.0);
        QCOMPARE(d.summary.waitingTimeSeconds, 180.0);
        QCOMPARE(d.summary.interruptions, 2);
        QCOMPARE(d.summary.billableTimeSeconds, expected.billableTimeSeconds);
        QCOMPARE(d.summary.savingsPercent, expected.savingsPercent);
        QVERIFY(d.summary.savingsPercent > 0);
        QVERIFY(view.headline().contains(QStringLiteral("saved")));
        shoot(&view, "billing-spot-job.png");
    }

    void onDemandJobBill() {
        DataService service(m_db);
        JobBillingView view(&service, QStringLiteral("on-demand-job"));
        QTRY_VERIFY(view.loaded());
        QVERIFY(!view.data().spot);
        QCOMPARE(view.data().summary.savingsPercent, 0.0);
        QVERIFY(view.headline().contains(QStringLiteral("On-demand job")));
    }

    void experimentTotals() {
        DataService service(m_db);
        ExperimentBillingView view(&service, QStringLiteral("spot-study"));
        view.resize(1200, 400);
        view.show();
        QTRY_VERIFY(view.loaded());
        QAbstractItemModelTester tester(view.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(view.model()->rowCount(), 2);
        const auto t = totalsOf(view.model()->rows());
        QCOMPARE(t.trainingTimeSeconds, 3900.0);
        QCOMPARE(t.pricedJobs, 2);
        QVERIFY(t.spotCostUsd < t.onDemandCostUsd);
        const double expected = (1.0 - t.billableTimeSeconds / t.trainingTimeSeconds) * 100.0;
        QCOMPARE(t.savingsPercent, expected);
        QVERIFY(view.summaryText().contains(QStringLiteral("Spot saved")));
        QSignalSpy open(&view, &ExperimentBillingView::openJobRequested);
        shoot(&view, "billing-experiment.png");
    }
};

QTEST_MAIN(TestBillingViews)
#include "test_billing_views.moc"

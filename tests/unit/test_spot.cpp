// Managed spot training units: billing from segments to every figure (data-driven rows), the
// shipped price catalog, and the simulated market's determinism.
#include "engine/spot/billing.h"
#include "engine/spot/instance_catalog.h"
#include "engine/spot/interruption_source.h"
#include "engine/spot/job_billing.h"

#include <QtTest>

#include <cmath>

using namespace studio;
using namespace studio::spot;

Q_DECLARE_METATYPE(std::vector<store::BillingSegment>)

class SpotTest : public QObject {
    Q_OBJECT
private slots:
    void billing_data();
    void billing();
    void onDemandJobHasNoSavings();
    void catalogPricesEveryCloudType();
    void localPricesComeFromTheSpec();
    void marketIsDeterministic();
    void noticeQueueDropsStaleNotices();
};

void SpotTest::billing_data() {
    using Segs = std::vector<store::BillingSegment>;
    QTest::addColumn<Segs>("segments");
    QTest::addColumn<double>("onDemand");
    QTest::addColumn<double>("spot");
    QTest::addColumn<int>("instances");
    QTest::addColumn<double>("training");
    QTest::addColumn<double>("billable");
    QTest::addColumn<double>("savings");
    QTest::addColumn<double>("spotCost");
    QTest::addColumn<double>("onDemandCost");
    QTest::addColumn<int>("interruptions");
    QTest::addColumn<double>("waiting");

    QTest::newRow("one attempt, no interruption")
        << Segs{{1, 0, 3600, "running"}} << 1.0 << 0.3 << 1 << 3600.0 << 1080.0 << 70.0 << 0.3
        << 1.0 << 0 << 0.0;
    QTest::newRow("three interruptions, waits excluded")
        << Segs{{1, 0, 600, "running"},     {2, 600, 660, "waiting"},   {2, 660, 1260, "running"},
                {3, 1260, 1290, "waiting"}, {3, 1290, 1890, "running"}, {4, 1890, 1900, "waiting"},
                {4, 1900, 2500, "running"}}
        << 2.0 << 0.5 << 1 << 2400.0 << 600.0 << 75.0 << (2400.0 / 3600 * 0.5)
        << (2400.0 / 3600 * 2.0) << 3 << 100.0;
    QTest::newRow("two instances bill twice the dollars, same seconds")
        << Segs{{1, 10, 1810, "running"}} << 1.408 << 0.4928 << 2 << 1800.0 << 630.0 << 65.0
        << (0.5 * 2 * 0.4928) << (0.5 * 2 * 1.408) << 0 << 0.0;
    QTest::newRow("stopped while waiting: the wait still counts as an interruption")
        << Segs{{1, 0, 100, "running"}, {2, 100, 400, "waiting"}} << 1.0 << 0.25 << 1 << 100.0
        << 25.0 << 75.0 << (100.0 / 3600 * 0.25) << (100.0 / 3600) << 1 << 300.0;
    QTest::newRow("initial capacity wait is not an interruption")
        << Segs{{1, 0, 20, "waiting"}, {1, 20, 120, "running"}} << 1.0 << 0.5 << 1 << 100.0 << 50.0
        << 50.0 << (100.0 / 3600 * 0.5) << (100.0 / 3600) << 0 << 20.0;
    QTest::newRow("no segments") << Segs{} << 1.0 << 0.5 << 1 << 0.0 << 0.0 << 0.0 << 0.0 << 0.0
                                 << 0 << 0.0;
}

void SpotTest::billing() {
    QFETCH(std::vector<store::BillingSegment>, segments);
    QFETCH(double, onDemand);
    QFETCH(double, spot);
    QFETCH(int, instances);
    BillingInputs in;
    in.segments = segments;
    in.prices = InstancePrices{onDemand, spot, "test"};
    in.instanceCount = instances;
    in.lostSteps = 7;
    const BillingSummary b = computeBilling(in);
    auto near = [](double a, double e) {
        return std::abs(a - e) < 1e-9 * std::max(1.0, e);
    };
    QFETCH(double, training);
    QFETCH(double, billable);
    QFETCH(double, savings);
    QFETCH(double, spotCost);
    QFETCH(double, onDemandCost);
    QFETCH(int, interruptions);
    QFETCH(double, waiting);
    QVERIFY2(near(b.trainingTimeSeconds, training),
             qPrintable(QString::number(b.trainingTimeSeconds)));
    QVERIFY2(near(b.billableTimeSeconds, billable),
             qPrintable(QString::number(b.billableTimeSeconds)));
    QVERIFY2(near(b.savingsPercent, savings), qPrintable(QString::number(b.savingsPercent)));
    QVERIFY(b.spotCostUsd && near(*b.spotCostUsd, spotCost));
    QVERIFY(b.onDemandCostUsd && near(*b.onDemandCostUsd, onDemandCost));
    QCOMPARE(b.interruptions, interruptions);
    QVERIFY(near(b.waitingTimeSeconds, waiting));
    QCOMPARE(b.lostSteps, std::int64_t(7));
}

void SpotTest::onDemandJobHasNoSavings() {
    BillingInputs in;
    in.segments = {{1, 0, 7200, "running"}};
    in.prices = InstancePrices{3.825, 1.1475, "test"};
    in.spot = false;
    const BillingSummary b = computeBilling(in);
    QCOMPARE(b.billableTimeSeconds, 7200.0);
    QCOMPARE(b.savingsPercent, 0.0);
    QCOMPARE(*b.spotCostUsd, *b.onDemandCostUsd);
    QVERIFY(std::abs(*b.onDemandCostUsd - 7.65) < 1e-9);
    in.prices.reset();
    QVERIFY(!computeBilling(in).spotCostUsd);
}

void SpotTest::catalogPricesEveryCloudType() {
    const auto& c = spot::InstanceCatalog::shipped();
    QVERIFY(!c.priceSource().empty());
    QVERIFY(!c.priceDate().empty());
    for (const auto& t : c.all()) {
        if (t.name == "local")
            continue;
        QVERIFY2(t.onDemandPerHour && t.spotPerHour, t.name.c_str());
        QVERIFY2(*t.spotPerHour > 0 && *t.spotPerHour < *t.onDemandPerHour, t.name.c_str());
    }
    auto p = pricesFor("ml.g5.xlarge", "{}");
    QVERIFY(p);
    QVERIFY(p->onDemandPerHour > 1.0);
}

void SpotTest::localPricesComeFromTheSpec() {
    auto p = pricesFor("local", R"({"local_prices":{"on_demand_per_hour":2,"spot_per_hour":0.5}})");
    QVERIFY(p);
    QCOMPARE(p->onDemandPerHour, 2.0);
    QCOMPARE(p->spotPerHour, 0.5);
    QVERIFY(!pricesFor("local", "{}"));
}

void SpotTest::marketIsDeterministic() {
    SimulatedMarket a(30, 5, 7), b(30, 5, 7), c(30, 5, 8);
    for (int attempt = 1; attempt <= 5; ++attempt) {
        QCOMPARE(a.interruptionDelay(attempt), b.interruptionDelay(attempt));
        QCOMPARE(a.capacityWait(attempt), b.capacityWait(attempt));
        QVERIFY(a.interruptionDelay(attempt) > 0);
    }
    QVERIFY(a.interruptionDelay(1) != c.interruptionDelay(1));
    QCOMPARE(a.capacityWait(1), 0.0);
    // The mean of many gaps approaches 3600 / rate.
    double sum = 0;
    for (int attempt = 1; attempt <= 4000; ++attempt)
        sum += a.interruptionDelay(attempt);
    QVERIFY(std::abs(sum / 4000 - 120.0) < 12.0);
    a.attemptStarted(1, 1000);
    QVERIFY(!a.poll(1000));
    QVERIFY(a.poll(1000 + a.interruptionDelay(1)));
    QVERIFY(!a.poll(1e12)); // once
    QVERIFY(std::isinf(SimulatedMarket(0, 0, 1).interruptionDelay(1)));
}

void SpotTest::noticeQueueDropsStaleNotices() {
    NoticeQueue q("manual");
    q.push("user");
    auto n = q.poll(0);
    QVERIFY(n);
    QCOMPARE(n->source, std::string("manual"));
    QVERIFY(!q.poll(0));
    q.push("late");
    q.attemptStarted(2, 0);
    QVERIFY(!q.poll(0));
}

QTEST_GUILESS_MAIN(SpotTest)
#include "test_spot.moc"

// Managed spot training units: billing from segments to every figure (data-driven rows), the
// shipped price catalog, and the simulated market's determinism.
#include "engine/spot/billing.h"
#include "engine/spot/instance_catalog.h"
#include "engine/spot/interruption_source.h"
#include "engine/spot/job_billing.h"

#include "tests/support/plain_test.h"

#include <algorithm>
#include <cmath>

using namespace studio;
using namespace studio::spot;
using studio::testing::nearly;

namespace {

// One job's billing segments and prices, and every figure they must give.
struct BillingRow {
    const char* row;
    std::vector<store::BillingSegment> segments;
    double onDemand, spot;
    int instances;
    double training, billable, savings, spotCost, onDemandCost;
    int interruptions;
    double waiting;
};

const BillingRow kBillingRows[] = {
    {"one attempt, no interruption",
     {{1, 0, 3600, "running"}},
     1.0,
     0.3,
     1,
     3600.0,
     1080.0,
     70.0,
     0.3,
     1.0,
     0,
     0.0},
    {"three interruptions, waits excluded",
     {{1, 0, 600, "running"},
      {2, 600, 660, "waiting"},
      {2, 660, 1260, "running"},
      {3, 1260, 1290, "waiting"},
      {3, 1290, 1890, "running"},
      {4, 1890, 1900, "waiting"},
      {4, 1900, 2500, "running"}},
     2.0,
     0.5,
     1,
     2400.0,
     600.0,
     75.0,
     (2400.0 / 3600 * 0.5),
     (2400.0 / 3600 * 2.0),
     3,
     100.0},
    {"two instances bill twice the dollars, same seconds",
     {{1, 10, 1810, "running"}},
     1.408,
     0.4928,
     2,
     1800.0,
     630.0,
     65.0,
     (0.5 * 2 * 0.4928),
     (0.5 * 2 * 1.408),
     0,
     0.0},
    {"stopped while waiting: the wait still counts as an interruption",
     {{1, 0, 100, "running"}, {2, 100, 400, "waiting"}},
     1.0,
     0.25,
     1,
     100.0,
     25.0,
     75.0,
     (100.0 / 3600 * 0.25),
     (100.0 / 3600),
     1,
     300.0},
    {"initial capacity wait is not an interruption",
     {{1, 0, 20, "waiting"}, {1, 20, 120, "running"}},
     1.0,
     0.5,
     1,
     100.0,
     50.0,
     50.0,
     (100.0 / 3600 * 0.5),
     (100.0 / 3600),
     0,
     20.0},
    {"no segments", {}, 1.0, 0.5, 1, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0.0},
};

bool near(double a, double e) {
    return std::abs(a - e) < 1e-9 * std::max(1.0, e);
}

} // namespace

TEST_CASE("billing") {
    for (const BillingRow& row : kBillingRows) {
        INFO("row: ", row.row);
        BillingInputs in;
        in.segments = row.segments;
        in.prices = InstancePrices{row.onDemand, row.spot, "test"};
        in.instanceCount = row.instances;
        in.lostSteps = 7;
        const BillingSummary b = computeBilling(in);
        REQUIRE_MESSAGE(near(b.trainingTimeSeconds, row.training), b.trainingTimeSeconds);
        REQUIRE_MESSAGE(near(b.billableTimeSeconds, row.billable), b.billableTimeSeconds);
        REQUIRE_MESSAGE(near(b.savingsPercent, row.savings), b.savingsPercent);
        REQUIRE((b.spotCostUsd && near(*b.spotCostUsd, row.spotCost)));
        REQUIRE((b.onDemandCostUsd && near(*b.onDemandCostUsd, row.onDemandCost)));
        REQUIRE(b.interruptions == row.interruptions);
        REQUIRE(near(b.waitingTimeSeconds, row.waiting));
        REQUIRE(b.lostSteps == std::int64_t(7));
    }
}

TEST_CASE("onDemandJobHasNoSavings") {
    BillingInputs in;
    in.segments = {{1, 0, 7200, "running"}};
    in.prices = InstancePrices{3.825, 1.1475, "test"};
    in.spot = false;
    const BillingSummary b = computeBilling(in);
    REQUIRE(b.billableTimeSeconds == nearly(7200.0));
    REQUIRE(b.savingsPercent == nearly(0.0));
    REQUIRE(*b.spotCostUsd == nearly(*b.onDemandCostUsd));
    REQUIRE(std::abs(*b.onDemandCostUsd - 7.65) < 1e-9);
    in.prices.reset();
    REQUIRE(!computeBilling(in).spotCostUsd);
}

TEST_CASE("catalogPricesEveryCloudType") {
    const auto& c = spot::InstanceCatalog::shipped();
    REQUIRE(!c.priceSource().empty());
    REQUIRE(!c.priceDate().empty());
    for (const auto& t : c.all()) {
        if (t.name == "local")
            continue;
        REQUIRE_MESSAGE((t.onDemandPerHour && t.spotPerHour), t.name.c_str());
        REQUIRE_MESSAGE((*t.spotPerHour > 0 && *t.spotPerHour < *t.onDemandPerHour),
                        t.name.c_str());
    }
    auto p = pricesFor("ml.g5.xlarge", "{}");
    REQUIRE(p);
    REQUIRE(p->onDemandPerHour > 1.0);
}

TEST_CASE("localPricesComeFromTheSpec") {
    auto p = pricesFor("local", R"({"local_prices":{"on_demand_per_hour":2,"spot_per_hour":0.5}})");
    REQUIRE(p);
    REQUIRE(p->onDemandPerHour == nearly(2.0));
    REQUIRE(p->spotPerHour == nearly(0.5));
    REQUIRE(!pricesFor("local", "{}"));
}

TEST_CASE("marketIsDeterministic") {
    SimulatedMarket a(30, 5, 7), b(30, 5, 7), c(30, 5, 8);
    for (int attempt = 1; attempt <= 5; ++attempt) {
        REQUIRE(a.interruptionDelay(attempt) == nearly(b.interruptionDelay(attempt)));
        REQUIRE(a.capacityWait(attempt) == nearly(b.capacityWait(attempt)));
        REQUIRE(a.interruptionDelay(attempt) > 0);
    }
    REQUIRE(a.interruptionDelay(1) != c.interruptionDelay(1));
    REQUIRE(a.capacityWait(1) == nearly(0.0));
    // The mean of many gaps approaches 3600 / rate.
    double sum = 0;
    for (int attempt = 1; attempt <= 4000; ++attempt)
        sum += a.interruptionDelay(attempt);
    REQUIRE(std::abs(sum / 4000 - 120.0) < 12.0);
    a.attemptStarted(1, 1000);
    REQUIRE(!a.poll(1000));
    REQUIRE(a.poll(1000 + a.interruptionDelay(1)));
    REQUIRE(!a.poll(1e12)); // once
    REQUIRE(std::isinf(SimulatedMarket(0, 0, 1).interruptionDelay(1)));
}

TEST_CASE("noticeQueueDropsStaleNotices") {
    NoticeQueue q("manual");
    q.push("user");
    auto n = q.poll(0);
    REQUIRE(n);
    REQUIRE(n->source == std::string("manual"));
    REQUIRE(!q.poll(0));
    q.push("late");
    q.attemptStarted(2, 0);
    REQUIRE(!q.poll(0));
}

// Resources of the installed package (usr/share/mlstudio) are found from mlstudio in usr/bin and
// from a helper in usr/lib/mlstudio; $MLSTUDIO_RESOURCES comes first and the source tree last.
TEST_CASE("resourceRootsOfTheInstalledLayout") {
    const auto roots = resourceRoots("/opt/root/usr/bin/mlstudio", "/res");
    REQUIRE(roots.size() == 4);
    REQUIRE(roots[0].path == std::string("/res"));
    REQUIRE(roots[0].origin == std::string("MLSTUDIO_RESOURCES"));
    REQUIRE(roots[1].path == std::string("/opt/root/usr/share/mlstudio"));
    REQUIRE(roots[1].origin == std::string("installed"));
    REQUIRE(roots[2].path == std::string("/opt/root/share/mlstudio"));

    const auto helper = resourceRoots("/opt/root/usr/lib/mlstudio/studio-train", nullptr);
    REQUIRE(helper.size() == 3);
    REQUIRE(helper[1].path == std::string("/opt/root/usr/share/mlstudio"));
    REQUIRE(helper[2].path == std::string(STUDIO_SOURCE_DIR) + "/resources");
    REQUIRE(helper[2].origin == std::string("source tree"));

    REQUIRE(resourceRoots("", "").size() == 1); // no executable, an empty variable: the tree only
    // This test runs from the build tree: the catalogue comes from the source tree.
    const ResourceRoot found = findResourceRoot("catalog/instances.json");
    REQUIRE(found.origin == std::string("source tree"));
    std::string message;
    try {
        findResource("catalog/missing.json");
    } catch (const std::runtime_error& e) {
        message = e.what();
    }
    REQUIRE(message.find("catalog/missing.json not found (tried") != std::string::npos);
}

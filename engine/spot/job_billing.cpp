#include "engine/spot/job_billing.h"

#include "engine/spot/instance_catalog.h"
#include "engine/wire/event.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace studio::spot {

std::optional<InstancePrices> pricesFor(const std::string& instanceType,
                                        const std::string& specJson) {
    if (instanceType == "local") {
        auto j = nlohmann::json::parse(specJson, nullptr, false);
        if (!j.is_object() || !j.contains("local_prices") || !j["local_prices"].is_object())
            return std::nullopt;
        const auto& lp = j["local_prices"];
        if (!lp.contains("on_demand_per_hour") || !lp["on_demand_per_hour"].is_number())
            return std::nullopt;
        InstancePrices p;
        p.onDemandPerHour = lp["on_demand_per_hour"].get<double>();
        p.spotPerHour = lp.value("spot_per_hour", p.onDemandPerHour);
        p.source = "local_prices in the spec";
        return p;
    }
    const auto& catalog = InstanceCatalog::shipped();
    const InstanceType* t = catalog.find(instanceType);
    if (!t || !t->onDemandPerHour)
        return std::nullopt;
    InstancePrices p;
    p.onDemandPerHour = *t->onDemandPerHour;
    p.spotPerHour = t->spotPerHour.value_or(p.onDemandPerHour);
    p.source = catalog.priceSource() + " (" + catalog.priceDate() + ")";
    return p;
}

BillingSummary jobBilling(const store::ComponentDetail& detail,
                          const std::vector<store::BillingSegment>& segments, double now) {
    BillingInputs in;
    auto spec = nlohmann::json::parse(detail.specJson, nullptr, false);
    in.spot = spec.is_object() && spec.value("use_spot_instances", false);
    in.instanceCount = detail.row.instanceCount;
    in.prices = pricesFor(detail.row.instanceType, detail.specJson);
    in.segments = segments;
    if (in.segments.empty() && detail.row.started > 0) {
        const double end = detail.row.ended > 0 ? detail.row.ended : now;
        in.segments.push_back(store::BillingSegment{1, detail.row.started, end, "running"});
    }
    for (const auto& a : detail.artifacts)
        if (a.name == kLostStepsArtifact) {
            try {
                in.lostSteps = std::stoll(a.value);
            } catch (const std::exception&) {
                in.lostSteps = 0; // a damaged row: the other figures still stand
            }
        }
    return computeBilling(in);
}

BillingSummary jobBilling(store::StoreReader& reader, const std::string& job) {
    const store::ComponentRow row = reader.resolveJob(job);
    auto detail = reader.detail(row.name);
    if (!detail)
        throw std::runtime_error("no job named " + job);
    return jobBilling(*detail, reader.billingSegments(row.id), wire::nowSeconds());
}

} // namespace studio::spot

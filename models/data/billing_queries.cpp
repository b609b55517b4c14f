#include "models/data/billing_queries.h"

#include "engine/spot/job_billing.h"
#include "engine/store/store_reader.h"
#include "models/common/background_task.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace studio::models {

bool usesSpot(const std::string& specJson) {
    const auto spec = nlohmann::json::parse(specJson, nullptr, false);
    return spec.is_object() && spec.value("use_spot_instances", false);
}

JobBillingData loadJobBilling(store::StoreReader& reader, const std::string& job, double now) {
    const auto detail = reader.detail(job);
    if (!detail)
        throw std::runtime_error("no job named " + job);
    JobBillingData d;
    d.segments = reader.billingSegments(detail->row.id);
    d.summary = spot::jobBilling(*detail, d.segments, now);
    d.prices = spot::pricesFor(detail->row.instanceType, detail->specJson);
    d.instanceType = QString::fromStdString(detail->row.instanceType);
    d.instanceCount = detail->row.instanceCount;
    d.spot = usesSpot(detail->specJson);
    d.status = QString::fromStdString(detail->row.status);
    return d;
}

std::vector<JobBillingRow> loadExperimentBilling(store::StoreReader& reader,
                                                 const std::string& experiment, double now,
                                                 const CancelFlag& cancel) {
    std::vector<JobBillingRow> rows;
    store::ComponentFilter filter;
    filter.experiment = experiment;
    for (const auto& c : reader.components(filter)) {
        if (cancel.cancelled())
            break;
        const auto detail = reader.detail(c.name);
        if (!detail)
            continue;
        JobBillingRow r;
        r.job = QString::fromStdString(c.name);
        r.status = QString::fromStdString(c.status);
        r.instance = QStringLiteral("%1 × %2")
                         .arg(c.instanceCount)
                         .arg(QString::fromStdString(c.instanceType));
        r.spot = usesSpot(detail->specJson);
        r.summary = spot::jobBilling(*detail, reader.billingSegments(c.id), now);
        rows.push_back(std::move(r));
    }
    return rows;
}

} // namespace studio::models

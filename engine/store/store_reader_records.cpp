// StoreReader: system samples, step timings, debugger output, checkpoints, billing and tags.
#include "engine/store/store_reader.h"
#include "engine/store/store_reader_impl.h"

namespace studio::store {

std::vector<SystemSeries> StoreReader::systemSeries(ComponentId id, double fromTime) {
    using Row = std::tuple<std::int64_t, SystemSeries, SystemSample>;
    std::vector<SystemSeries> out;
    std::int64_t current = -1;
    queryEach<Row>(
        *d->db,
        "SELECT s.id, " + columnList<SystemSeries>() + ", " + columnList<SystemSample>() +
            " FROM system_series s JOIN system_samples p ON p.series_id = s.id "
            "WHERE s.component_id=? AND p.time >= ? ORDER BY s.node, s.device, s.metric, p.time",
        [&](Row&& r) {
            auto& [series, header, sample] = r;
            if (series != current) {
                out.push_back(std::move(header));
                current = series;
            }
            out.back().samples.push_back(sample);
        },
        id, fromTime);
    return out;
}

std::vector<StepTiming> StoreReader::stepTimings(ComponentId id) {
    return componentRows<StepTiming>(*d->db, "step_timings", "time, rowid", id);
}

std::vector<TensorReduction> StoreReader::tensorReductions(ComponentId id,
                                                           const std::string& tensor) {
    return queryAll<TensorReduction>(
        *d->db,
        selectColumns<TensorReduction>("FROM tensor_reductions WHERE component_id=?1 AND "
                                       "(?2 = '' OR tensor = ?2) ORDER BY tensor, step, rowid"),
        id, tensor);
}

std::vector<FrameworkEventRow> StoreReader::frameworkEvents(ComponentId id) {
    return componentRows<FrameworkEventRow>(*d->db, "framework_events", "start, rowid", id);
}

std::vector<CheckpointRow> StoreReader::checkpoints(ComponentId id) {
    return componentRows<CheckpointRow>(*d->db, "checkpoints", "time, rowid", id);
}

std::vector<RuleStatusRow> StoreReader::ruleStatuses(ComponentId id) {
    return componentRows<RuleStatusRow>(*d->db, "rule_evaluations", "kind, rule", id);
}

std::vector<FindingRow> StoreReader::findings(ComponentId id) {
    return componentRows<FindingRow>(*d->db, "findings", "time, id", id);
}

std::vector<NotificationRow> StoreReader::notifications(double sinceTime) {
    return queryAll<NotificationRow>(
        *d->db,
        selectColumns<NotificationRow>("FROM notifications n JOIN trial_components c ON c.id = "
                                       "n.component_id WHERE n.time >= ? ORDER BY n.time, n.id"),
        sinceTime);
}

std::vector<BillingSegment> StoreReader::billingSegments(ComponentId id) {
    return componentRows<BillingSegment>(*d->db, "billing_segments", "start, rowid", id);
}

std::vector<ArtifactRow> StoreReader::artifacts(ComponentId id) {
    return componentRows<ArtifactRow>(*d->db, "artifacts", "kind, name", id);
}

std::vector<FactsRow> StoreReader::facts(ComponentId id, const std::string& topic) {
    if (topic.empty())
        return componentRows<FactsRow>(*d->db, "component_facts", "topic, node, rank", id);
    return queryAll<FactsRow>(*d->db,
                              selectColumns<FactsRow>("FROM component_facts WHERE component_id=? "
                                                      "AND topic=? ORDER BY node, rank"),
                              id, topic);
}

std::map<std::string, std::string> StoreReader::tags(ComponentId id) {
    std::map<std::string, std::string> out;
    using Row = std::pair<std::string, std::string>;
    queryEach<Row>(
        *d->db, "SELECT key, value FROM tags WHERE component_id=? ORDER BY key",
        [&out](Row&& r) { out[r.first] = std::move(r.second); }, id);
    return out;
}

std::optional<ComponentDetail> StoreReader::detail(const std::string& name) {
    auto row = component(name);
    if (!row)
        return std::nullopt;
    ComponentDetail out;
    out.row = *row;
    out.parameters = parameters({row->id})[row->id];
    out.transitions = transitions(row->id);
    out.metrics = metricSummaries(row->id);
    out.nodes = nodes(row->id);
    out.ranks = ranks(row->id);
    out.logs = logFiles(row->id);
    out.checkpoints = checkpoints(row->id);
    out.artifacts = artifacts(row->id);
    out.tags = tags(row->id);
    out.rules = ruleStatuses(row->id);
    out.findings = findings(row->id);
    out.journals = journals(row->id);
    out.slurmJobs = slurmJobs(row->id);
    out.facts = facts(row->id);
    if (auto spec = queryOne<std::string>(
            *d->db, "SELECT spec_json FROM trial_components WHERE id=?", row->id))
        out.specJson = std::move(*spec);
    return out;
}

std::vector<ClusterRow> StoreReader::clusters() {
    return queryAll<ClusterRow>(*d->db, selectColumns<ClusterRow>("FROM clusters ORDER BY name"));
}

std::optional<ClusterRow> StoreReader::cluster(const std::string& name) {
    return queryOne<ClusterRow>(*d->db, selectColumns<ClusterRow>("FROM clusters WHERE name=?"),
                                name);
}

std::vector<SlurmJobRow> StoreReader::slurmJobs(ComponentId id) {
    using Row = std::pair<SlurmJobRow, std::string>;
    std::vector<SlurmJobRow> out;
    queryEach<Row>(
        *d->db,
        "SELECT " + columnList<SlurmJobRow>() +
            ", script FROM slurm_jobs WHERE component_id=? ORDER BY submitted, job_id",
        [&out](Row&& r) {
            r.first.script = std::move(r.second);
            out.push_back(std::move(r.first));
        },
        id);
    return out;
}

std::map<ComponentId, SlurmJobRow> StoreReader::newestSlurmJobs() {
    // One statement for the whole list, in slurmJobs()' order: the last row of each component.
    using Row = std::pair<ComponentId, SlurmJobRow>;
    std::map<ComponentId, SlurmJobRow> out;
    queryEach<Row>(*d->db,
                   "SELECT component_id, " + columnList<SlurmJobRow>() +
                       " FROM (SELECT component_id, " + columnList<SlurmJobRow>() +
                       ", row_number() OVER (PARTITION BY component_id ORDER BY submitted DESC, "
                       "job_id DESC) AS newest FROM slurm_jobs) WHERE newest=1",
                   [&out](Row&& r) { out[r.first] = std::move(r.second); });
    return out;
}

std::vector<JournalRow> StoreReader::journals(ComponentId id) {
    return componentRows<JournalRow>(*d->db, "journals", "node", id);
}

std::string StoreReader::runState(ComponentId id) {
    return queryOne<std::string>(*d->db, "SELECT run_state FROM trial_components WHERE id=?", id)
        .value_or(std::string());
}

} // namespace studio::store

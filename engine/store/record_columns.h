// The columns of the records in records.h and summary.h: each SELECT expression beside the member
// it fills, read by typed_query.h. Above each list: the tables (and aliases) its expressions name.
// Internal to engine/store.
#pragma once

#include "engine/store/records.h"
#include "engine/store/typed_query.h"

namespace studio::store {

// experiments e.
template <>
struct Columns<ExperimentRow> {
    using R = ExperimentRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"e.id", &R::id},
        {"e.name", &R::name},
        {"e.description", &R::description},
        {"e.created", &R::created},
        {"(SELECT COUNT(*) FROM trials t WHERE t.experiment_id = e.id)", &R::trials},
        {"(SELECT COUNT(*) FROM trial_components c JOIN trials t ON t.id = c.trial_id "
         "WHERE t.experiment_id = e.id)",
         &R::components},
    });
};

// trials t JOIN experiments e.
template <>
struct Columns<TrialRow> {
    using R = TrialRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"t.id", &R::id},
        {"e.name", &R::experiment},
        {"t.name", &R::name},
        {"t.created", &R::created},
        {"(SELECT COUNT(*) FROM trial_components c WHERE c.trial_id = t.id)", &R::components},
    });
};

// trial_components c JOIN trials t JOIN experiments e.
template <>
struct Columns<ComponentRow> {
    using R = ComponentRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"c.id", &R::id},
        {"c.name", &R::name},
        {"c.display_name", &R::displayName},
        {"e.name", &R::experiment},
        {"t.name", &R::trial},
        {"c.status", &R::status},
        {"c.secondary_status", &R::secondaryStatus},
        {"c.failure_reason", &R::failureReason},
        {"c.instance_type", &R::instanceType},
        {"c.instance_count", &R::instanceCount},
        {"c.processes_per_host", &R::processesPerHost},
        {"c.entry_point", &R::entryPoint},
        {"c.job_dir", &R::jobDir},
        {"c.created", &R::created},
        {"c.started", &R::started},
        {"c.ended", &R::ended},
        {"c.notes", &R::notes},
        {"c.protocol_errors", &R::protocolErrors},
        {"c.cluster", &R::cluster},
        {"c.owner", &R::owner},
    });
};

// metric_points p.
template <>
struct Columns<MetricPoint> {
    using R = MetricPoint;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"p.step", &R::step},
        {"p.time", &R::time},
        {"p.value", &R::value, OnNull::NaN},
        {"p.node", &R::node},
        {"p.rank", &R::rank},
    });
};

// metric_summaries. A series whose values were all NaN or infinite has NULL min and max.
template <>
struct Columns<MetricSummary> {
    using R = MetricSummary;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"count", &R::count},
        {"min", &R::min},
        {"max", &R::max},
        {"mean", &R::mean},
        {"m2", &R::m2},
        {"last", &R::last, OnNull::NaN},
        {"last_step", &R::lastStep},
        {"last_time", &R::lastTime},
        {"non_finite", &R::nonFinite},
    });
};

// parameters.
template <>
struct Columns<ParameterRow> {
    using R = ParameterRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"name", &R::name},
        {"value", &R::value},
        {"number", &R::number},
    });
};

// status_history; endTime is the next transition's start.
template <>
struct Columns<StatusTransition> {
    using R = StatusTransition;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"status", &R::status},
        {"secondary_status", &R::secondaryStatus},
        {"time", &R::startTime},
        {"message", &R::message},
    });
};

// nodes.
template <>
struct Columns<NodeRow> {
    using R = NodeRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"node", &R::node},
        {"host", &R::host},
        {"launcher_pid", &R::launcherPid},
        {"cores", &R::cores},
        {"gpus", &R::gpus},
        {"started", &R::started},
        {"ended", &R::ended},
        {"exit_code", &R::exitCode},
    });
};

// ranks.
template <>
struct Columns<RankRow> {
    using R = RankRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"rank", &R::rank},
        {"node", &R::node},
        {"local_rank", &R::localRank},
        {"pid", &R::pid},
        {"started", &R::started},
        {"ended", &R::ended},
        {"exit_code", &R::exitCode},
        {"signal", &R::signal},
        {"device", &R::device},
    });
};

// log_files.
template <>
struct Columns<LogFileRow> {
    using R = LogFileRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"node", &R::node},
        {"rank", &R::rank},
        {"path", &R::path},
        {"lines", &R::lines},
        {"bytes", &R::bytes},
    });
};

// system_series s; the samples come as SystemSample rows.
template <>
struct Columns<SystemSeries> {
    using R = SystemSeries;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"s.node", &R::node},
        {"s.device", &R::device},
        {"s.metric", &R::metric},
    });
};

// system_samples p.
template <>
struct Columns<SystemSample> {
    using R = SystemSample;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"p.time", &R::time},
        {"p.value", &R::value},
    });
};

// step_timings.
template <>
struct Columns<StepTiming> {
    using R = StepTiming;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"node", &R::node},
        {"rank", &R::rank},
        {"step", &R::step},
        {"phase", &R::phase},
        {"time", &R::time},
        {"data_ms", &R::dataMs},
        {"forward_ms", &R::forwardMs},
        {"backward_ms", &R::backwardMs},
        {"comm_ms", &R::commMs},
        {"optimizer_ms", &R::optimizerMs},
    });
};

// tensor_reductions.
template <>
struct Columns<TensorReduction> {
    using R = TensorReduction;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"step", &R::step},
        {"collection", &R::collection},
        {"tensor", &R::tensor},
        {"reduction", &R::reduction},
        {"value", &R::value, OnNull::NaN},
        {"node", &R::node},
        {"rank", &R::rank},
        {"phase", &R::phase},
    });
};

// framework_events.
template <>
struct Columns<FrameworkEventRow> {
    using R = FrameworkEventRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"node", &R::node},
        {"rank", &R::rank},
        {"step", &R::step},
        {"phase", &R::phase},
        {"name", &R::name},
        {"category", &R::category},
        {"start", &R::start},
        {"duration_ms", &R::durationMs},
        {"pid", &R::pid},
    });
};

// checkpoints.
template <>
struct Columns<CheckpointRow> {
    using R = CheckpointRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"node", &R::node},
        {"rank", &R::rank},
        {"step", &R::step},
        {"time", &R::time},
        {"path", &R::path},
        {"sha256", &R::sha256},
        {"bytes", &R::bytes},
    });
};

// rule_evaluations.
template <>
struct Columns<RuleStatusRow> {
    using R = RuleStatusRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"rule", &R::rule},
        {"kind", &R::kind},
        {"status", &R::status},
        {"message", &R::message},
        {"updated", &R::updated},
        {"fired", &R::fired},
        {"datapoints", &R::datapoints},
        {"parameters", &R::parameters},
        {"actions", &R::actions},
        {"details", &R::details},
        {"criteria", &R::criteria},
    });
};

// findings; a finding of no particular step, node or device has NULL there.
template <>
struct Columns<FindingRow> {
    using R = FindingRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"rule", &R::rule},
        {"time", &R::time},
        {"step", &R::step},
        {"node", &R::node},
        {"device", &R::device},
        {"message", &R::message},
        {"recommendation", &R::recommendation},
        {"criteria", &R::criteria},
    });
};

// notifications n JOIN trial_components c.
template <>
struct Columns<NotificationRow> {
    using R = NotificationRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"n.id", &R::id},
        {"c.name", &R::component},
        {"n.time", &R::time},
        {"n.rule", &R::rule},
        {"n.message", &R::message},
    });
};

// billing_segments.
template <>
struct Columns<BillingSegment> {
    using R = BillingSegment;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"attempt", &R::attempt},
        {"start", &R::start},
        {"end", &R::end},
        {"kind", &R::kind},
    });
};

// artifacts.
template <>
struct Columns<ArtifactRow> {
    using R = ArtifactRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"name", &R::name},
        {"kind", &R::kind},
        {"value", &R::value},
        {"media_type", &R::mediaType},
    });
};

// component_facts.
template <>
struct Columns<FactsRow> {
    using R = FactsRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"topic", &R::topic},
        {"node", &R::node},
        {"rank", &R::rank},
        {"time", &R::time},
        {"body", &R::body},
    });
};

// clusters.
template <>
struct Columns<ClusterRow> {
    using R = ClusterRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"name", &R::name},
        {"kind", &R::kind},
        {"config", &R::config},
        {"created", &R::created},
        {"updated", &R::updated},
        {"last_check", &R::lastCheck},
    });
};

// journals.
template <>
struct Columns<JournalRow> {
    using R = JournalRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"node", &R::node},
        {"attempt", &R::attempt},
        {"host", &R::host},
        {"path", &R::path},
        {"launcher_pid", &R::launcherPid},
        {"launcher_start", &R::launcherStart},
        {"byte_offset", &R::offset},
        {"state", &R::state},
        {"state_since", &R::stateSince},
        {"message", &R::message},
    });
};

// slurm_jobs, without the script (list views read many rows); slurmJobs() adds it.
template <>
struct Columns<SlurmJobRow> {
    using R = SlurmJobRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"job_id", &R::jobId},
        {"attempt", &R::attempt},
        {"cluster", &R::cluster},
        {"partition", &R::partition},
        {"state", &R::state},
        {"reason", &R::reason},
        {"nodes", &R::nodes},
        {"restarts", &R::restarts},
        {"exit_code", &R::exitCode},
        {"submitted", &R::submitted},
        {"started", &R::started},
        {"ended", &R::ended},
        {"updated", &R::updated},
    });
};

} // namespace studio::store

#include "models/jobs/what_ran_models.h"

#include "engine/report/what_ran.h"

#include <QLocale>

#include <nlohmann/json.hpp>

namespace studio::models {

namespace {

using nlohmann::json;

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

// A document of the record as an object (an empty one when it is missing or not an object).
const json& object(const json& j) {
    static const json empty = json::object();
    return j.is_object() ? j : empty;
}

QString text(const json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return {};
    return it->is_string() ? qs(it->get<std::string>()) : qs(it->dump());
}

void addSource(WhatRanSummary& s, const json& src) {
    auto add = [&s](const QString& label, const QString& value) {
        if (!value.isEmpty())
            s.lines.emplace_back(label, value);
    };
    add(QObject::tr("Entry point"), text(src, "entry_point"));
    add(QObject::tr("Source folder"), text(src, "source_dir"));
    const QString tree = text(src, "tree_hash");
    add(QObject::tr("Source tree"), tree.isEmpty() ? tree : QStringLiteral("sha256 ") + tree);
    if (src.contains("files") && src["files"].is_object())
        add(QObject::tr("Files"), QString::number(src["files"].size()));
    if (src.contains("git") && src["git"].is_object()) {
        const json& g = src["git"];
        add(QObject::tr("Git"),
            QStringLiteral("%1 @ %2%3")
                .arg(text(g, "branch"), text(g, "commit").left(12),
                     g.value("dirty", false) ? QObject::tr(", with uncommitted changes")
                                             : QObject::tr(", clean")));
        add(QObject::tr("Remote"), text(g, "remote"));
        s.gitDiff = text(g, "diff");
    }
    if (src.contains("environment_names") && src["environment_names"].is_array()) {
        QStringList names;
        for (const auto& n : src["environment_names"])
            if (n.is_string())
                names << qs(n.get<std::string>());
        add(QObject::tr("Environment"), names.join(QStringLiteral(", ")));
    }
}

} // namespace

WhatRanSummary WhatRanSummary::fromFacts(const std::vector<store::FactsRow>& facts) {
    WhatRanSummary s;
    const report::WhatRan w = report::whatRanFromFacts(facts);
    addSource(s, object(w.source));
    for (const auto& r : w.ranks) {
        const json& p = object(r.body);
        QStringList parts;
        parts << QStringLiteral("Python ") + text(p, "python");
        if (p.contains("torch") && p["torch"].is_string())
            parts << QStringLiteral("torch ") + text(p, "torch");
        if (p.contains("cuda") && p["cuda"].is_string())
            parts << QStringLiteral("CUDA ") + text(p, "cuda");
        if (p.contains("nccl") && p["nccl"].is_string())
            parts << QStringLiteral("NCCL ") + text(p, "nccl");
        const QString host = text(p, "host");
        s.lines.emplace_back(QObject::tr("Rank %1").arg(r.rank),
                             parts.join(QStringLiteral(", ")) +
                                 (host.isEmpty() ? QString() : QStringLiteral(" on ") + host));
    }
    s.traceFile = text(object(w.operators), "trace");
    return s;
}

void PackagesModel::setFacts(const std::vector<store::FactsRow>& facts) {
    std::vector<PackageRow> rows;
    const report::WhatRan w = report::whatRanFromFacts(facts);
    const json& p = object(w.firstRank());
    if (p.contains("packages") && p["packages"].is_object())
        for (const auto& [name, version] : p["packages"].items())
            rows.push_back({qs(name), version.is_string() ? qs(version.get<std::string>())
                                                          : qs(version.dump())});
    setRecords(std::move(rows));
}

QStringList PackagesModel::headers() const {
    return {tr("Package"), tr("Version")};
}

QVariant PackagesModel::cell(const PackageRow& p, int column, int role) const {
    if (role != Qt::DisplayRole)
        return {};
    return column == NameColumn ? p.name : p.version;
}

void OperatorsModel::setFacts(const std::vector<store::FactsRow>& facts) {
    std::vector<OperatorRow> rows;
    const report::WhatRan w = report::whatRanFromFacts(facts);
    const json& doc = object(w.operators);
    if (doc.contains("ops") && doc["ops"].is_array())
        for (const auto& o : doc["ops"]) {
            if (!o.is_object())
                continue;
            rows.push_back({qs(o.value("name", std::string())), o.value("calls", qint64{0}),
                            o.value("self_cpu_ms", 0.0), o.value("cpu_total_ms", 0.0),
                            o.value("self_cuda_ms", 0.0), o.value("cuda_total_ms", 0.0),
                            o.value("cpu_memory_bytes", qint64{0})});
        }
    const qint64 start = doc.value("start_step", qint64{-1});
    const qint64 count = doc.value("num_steps", qint64{0});
    m_window = start < 0
                   ? QString()
                   : tr("steps %1 to %2").arg(start).arg(start + std::max<qint64>(count, 1) - 1);
    setRecords(std::move(rows));
}

QStringList OperatorsModel::headers() const {
    return {tr("Operator"),       tr("Calls"),           tr("Self CPU (ms)"), tr("CPU total (ms)"),
            tr("Self CUDA (ms)"), tr("CUDA total (ms)"), tr("CPU memory")};
}

QVariant OperatorsModel::cell(const OperatorRow& o, int column, int role) const {
    if (role == Qt::TextAlignmentRole && column != NameColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    const QLocale c = QLocale::c();
    switch (column) {
    case NameColumn:
        return o.name;
    case CallsColumn:
        return o.calls;
    case SelfCpuColumn:
        return c.toString(o.selfCpuMs, 'f', 3);
    case CpuTotalColumn:
        return c.toString(o.cpuTotalMs, 'f', 3);
    case SelfCudaColumn:
        return c.toString(o.selfCudaMs, 'f', 3);
    case CudaTotalColumn:
        return c.toString(o.cudaTotalMs, 'f', 3);
    case MemoryColumn:
        return c.formattedDataSize(o.cpuMemoryBytes);
    default:
        return {};
    }
}

} // namespace studio::models

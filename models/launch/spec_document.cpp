#include "models/launch/spec_document.h"

#include <QDir>
#include <QFileInfo>

#include <cmath>
#include <vector>

namespace studio::models {
namespace {

std::vector<std::string> tokens(std::string_view pointer) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos < pointer.size()) {
        // Every pointer starts with '/'; the tokens are the pieces between slashes.
        const std::size_t start = pos + 1;
        std::size_t end = pointer.find('/', start);
        if (end == std::string_view::npos)
            end = pointer.size();
        out.emplace_back(pointer.substr(start, end - start));
        pos = end;
    }
    return out;
}

std::string normalizedPath(std::string_view path) {
    std::string out;
    out.reserve(path.size());
    for (std::size_t i = 0; i < path.size(); ++i) {
        out.push_back(path[i]);
        if (path[i] != '[')
            continue;
        std::size_t j = i + 1;
        while (j < path.size() && path[j] >= '0' && path[j] <= '9')
            ++j;
        if (j > i + 1 && j < path.size() && path[j] == ']')
            i = j - 1; // drop the digits, keep the ']'
    }
    return out;
}

} // namespace

const SpecDocument* findAt(const SpecDocument& doc, std::string_view pointer) {
    const SpecDocument* node = &doc;
    for (const auto& t : tokens(pointer)) {
        if (!node->is_object())
            return nullptr;
        auto it = node->find(t);
        if (it == node->end())
            return nullptr;
        node = &*it;
    }
    return node;
}

SpecDocument valueAt(const SpecDocument& doc, std::string_view pointer) {
    const SpecDocument* v = findAt(doc, pointer);
    return v ? *v : SpecDocument();
}

void putAt(SpecDocument& doc, std::string_view pointer, SpecDocument value) {
    SpecDocument* node = &doc;
    for (const auto& t : tokens(pointer)) {
        if (!node->is_object())
            *node = SpecDocument::object();
        node = &(*node)[t];
    }
    *node = std::move(value);
}

void eraseAt(SpecDocument& doc, std::string_view pointer) {
    const std::vector<std::string> path = tokens(pointer);
    for (std::size_t depth = path.size(); depth > 0; --depth) {
        SpecDocument* parent = &doc;
        for (std::size_t i = 0; i + 1 < depth; ++i) {
            if (!parent->is_object() || !parent->contains(path[i]))
                return;
            parent = &(*parent)[path[i]];
        }
        if (!parent->is_object())
            return;
        const std::string& key = path[depth - 1];
        auto it = parent->find(key);
        if (it == parent->end())
            return;
        // Only the target itself, or a parent the removal left empty, goes.
        if (depth < path.size() && !(it->is_object() && it->empty()))
            return;
        parent->erase(key);
    }
}

SpecDocument canonicalOrder(const SpecDocument& doc) {
    if (!doc.is_object())
        return doc;
    static const std::vector<std::string> order = {"name",
                                                   "base_job_name",
                                                   "entry_point",
                                                   "source_dir",
                                                   "hyperparameters",
                                                   "instance_type",
                                                   "instance_count",
                                                   "distribution",
                                                   "inputs",
                                                   "environment",
                                                   "metric_definitions",
                                                   "use_spot_instances",
                                                   "max_run",
                                                   "max_wait",
                                                   "max_retry_attempts",
                                                   "checkpoint_local_path",
                                                   "spot_simulation",
                                                   "local_prices",
                                                   "debugger_hook_config",
                                                   "profiler_config",
                                                   "disable_profiler",
                                                   "rules",
                                                   "experiment_config",
                                                   "tags"};
    SpecDocument out = SpecDocument::object();
    for (const auto& key : order)
        if (auto it = doc.find(key); it != doc.end())
            out[key] = *it;
    for (auto it = doc.begin(); it != doc.end(); ++it)
        if (!out.contains(it.key()))
            out[it.key()] = it.value();
    return out;
}

SpecDocument rebasedSpec(const SpecDocument& doc, const QString& fromDir, const QString& toDir) {
    const QDir from(fromDir);
    if (!doc.is_object() || from.absolutePath() == QDir(toDir).absolutePath())
        return doc;
    SpecDocument out = doc;
    // Relative paths (optionally file:// URIs) become absolute ones under fromDir.
    auto absolute = [&from](SpecDocument& v) {
        if (!v.is_string())
            return;
        QString p = QString::fromStdString(v.get<std::string>());
        const bool uri = p.startsWith(QLatin1String("file://"));
        const QString path = uri ? p.mid(7) : p;
        if (path.isEmpty() || QFileInfo(path).isAbsolute() ||
            (p.contains(QLatin1String("://")) && !uri))
            return;
        v = QDir::cleanPath(from.absoluteFilePath(path)).toStdString();
    };
    if (auto it = out.find("source_dir"); it != out.end()) {
        absolute(*it);
    } else if (auto e = out.find("entry_point"); e != out.end()) {
        const bool builtin = e->is_string() && e->get<std::string>().rfind("builtin:", 0) == 0;
        if (!builtin)
            out["source_dir"] = QDir::cleanPath(from.absolutePath()).toStdString();
    }
    if (auto it = out.find("inputs"); it != out.end() && it->is_object())
        for (auto& v : *it)
            absolute(v);
    if (auto it = out.find("checkpoint_local_path"); it != out.end())
        absolute(*it);
    return canonicalOrder(out);
}

QString valueText(const SpecDocument& value) {
    if (value.is_null())
        return {};
    if (value.is_string())
        return QString::fromStdString(value.get<std::string>());
    return QString::fromStdString(value.dump());
}

SpecDocument valueFromText(const QString& text, const SpecDocument& previous, TextTyping typing) {
    if (text.isEmpty())
        return {};
    const std::string s = text.toStdString();
    if (previous.is_string())
        return s;
    const SpecDocument parsed = SpecDocument::parse(s, nullptr, false);
    const bool number = !parsed.is_discarded() && parsed.is_number();
    const bool boolean = !parsed.is_discarded() && parsed.is_boolean();
    if (previous.is_number() && number)
        return parsed;
    if (previous.is_boolean() && boolean)
        return parsed;
    if (typing == TextTyping::Inferred && previous.is_null() && (number || boolean))
        return parsed;
    return s;
}

SpecDocument numberValue(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
        return static_cast<std::int64_t>(v);
    return v;
}

bool pathMatches(std::string_view pattern, std::string_view path) {
    const std::string p = normalizedPath(path);
    if (pattern.empty())
        return p.empty();
    if (p.size() < pattern.size() || std::string_view(p).substr(0, pattern.size()) != pattern)
        return false;
    return p.size() == pattern.size() || p[pattern.size()] == '.' || p[pattern.size()] == '[';
}

} // namespace studio::models

#include "models/shell/palette_index.h"

#include <QObject>

#include <algorithm>

namespace studio::models {

namespace {

QString normalized(const QString& text) {
    QString out;
    for (QChar c : text)
        if (!c.isSpace())
            out.append(c.toLower());
    return out;
}

} // namespace

QString paletteKindName(PaletteKind kind) {
    switch (kind) {
    case PaletteKind::Action:
        return QObject::tr("Action");
    case PaletteKind::Job:
        return QObject::tr("Job");
    case PaletteKind::Notebook:
        return QObject::tr("Notebook");
    case PaletteKind::Spec:
        return QObject::tr("Spec");
    case PaletteKind::Experiment:
        return QObject::tr("Experiment");
    case PaletteKind::Trial:
        return QObject::tr("Trial");
    case PaletteKind::TuningJob:
        return QObject::tr("Tuning job");
    case PaletteKind::Cluster:
        return QObject::tr("Cluster");
    case PaletteKind::Count:
        break;
    }
    return {};
}

PaletteMode PaletteMode::commands() {
    return {{PaletteKind::Action, PaletteKind::Job, PaletteKind::Notebook, PaletteKind::Spec,
             PaletteKind::Experiment, PaletteKind::Trial, PaletteKind::TuningJob,
             PaletteKind::Cluster}};
}

PaletteMode PaletteMode::open() {
    return {{PaletteKind::Job, PaletteKind::Notebook, PaletteKind::Spec}};
}

void PaletteIndex::setEntries(PaletteKind kind, std::vector<PaletteEntry> entries) {
    for (auto& e : entries)
        e.kind = kind;
    m_byKind[static_cast<std::size_t>(kind)] = std::move(entries);
    rebuild();
}

int PaletteIndex::count(PaletteKind kind) const {
    return static_cast<int>(m_byKind[static_cast<std::size_t>(kind)].size());
}

void PaletteIndex::rebuild() {
    m_entries.clear();
    for (const auto& list : m_byKind)
        m_entries.insert(m_entries.end(), list.begin(), list.end());
    m_lastValid = false;
}

std::vector<PaletteHit> PaletteIndex::query(const QString& text, const PaletteMode& mode,
                                            int limit) {
    std::array<int, static_cast<std::size_t>(PaletteKind::Count)> rank{};
    rank.fill(-1);
    for (std::size_t i = 0; i < mode.kinds.size(); ++i)
        rank[static_cast<std::size_t>(mode.kinds[i])] = static_cast<int>(i);
    auto rankOf = [&](int e) {
        return rank[static_cast<std::size_t>(entry(e).kind)];
    };

    const QString key = normalized(text);
    // Typing on narrows: only the previous query's matches can match a longer query.
    const bool narrow = m_lastValid && mode.kinds == m_lastKinds && !m_lastText.isEmpty() &&
                        key.startsWith(m_lastText);
    std::vector<int> candidates;
    if (narrow) {
        candidates = m_lastMatches;
    } else {
        candidates.reserve(m_entries.size());
        for (int e = 0; e < size(); ++e)
            if (rankOf(e) >= 0)
                candidates.push_back(e);
    }
    std::vector<PaletteHit> hits;
    hits.reserve(candidates.size());
    for (int e : candidates)
        if (auto m = fuzzyMatch(text, entry(e).name))
            hits.push_back({e, m->score, std::move(m->positions)});
    m_lastText = key;
    m_lastKinds = mode.kinds;
    m_lastMatches.clear();
    m_lastMatches.reserve(hits.size());
    for (const auto& h : hits)
        m_lastMatches.push_back(h.entry);
    m_lastValid = true;

    auto before = [&](const PaletteHit& a, const PaletteHit& b) {
        if (a.score != b.score)
            return a.score > b.score;
        if (rankOf(a.entry) != rankOf(b.entry))
            return rankOf(a.entry) < rankOf(b.entry);
        if (entry(a.entry).order != entry(b.entry).order)
            return entry(a.entry).order < entry(b.entry).order;
        return a.entry < b.entry;
    };
    const auto shown = std::min<std::size_t>(hits.size(), static_cast<std::size_t>(limit));
    std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(shown), hits.end(),
                      before);
    hits.resize(shown);
    return hits;
}

} // namespace studio::models

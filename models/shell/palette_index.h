// The command palette's index: the menus' actions and the store's jobs, experiments, trials,
// tuning jobs and clusters, plus the workspace's notebooks and specs, each with a name, what it
// is and its shortcut. A query fuzzy-matches names and orders the hits by score, then by kind
// (the palette's mode decides which kinds come first), then by each kind's own order (menu
// order; newest job first). Typing on from a query searches only the previous query's hits.
// Not thread-safe; the palette uses it on the GUI thread.
#pragma once

#include "models/shell/fuzzy_match.h"

#include <QString>
#include <QStringList>

#include <array>
#include <cstdint>
#include <vector>

namespace studio::models {

enum class PaletteKind : std::uint8_t {
    Action,
    Job,
    Notebook,
    Spec,
    Experiment,
    Trial,
    TuningJob,
    Cluster,
    Count
};

QString paletteKindName(PaletteKind kind); // "Action", "Job", ... as the palette shows them

struct PaletteEntry {
    PaletteKind kind = PaletteKind::Action;
    QString name;     // what is matched and shown
    QString detail;   // shown beside it: the menu, a job's status, a notebook's folder
    QString shortcut; // native text, "" when none
    QString target;   // what opening it means to the window: an action's id, a job's name, a path
    int order = 0;    // within its kind, lower first when scores tie
};

struct PaletteHit {
    int entry = 0; // index into entries()
    int score = 0;
    std::vector<int> positions;
};

// Which kinds a query looks at, in the order they rank when scores tie.
struct PaletteMode {
    std::vector<PaletteKind> kinds;
    static PaletteMode commands(); // Ctrl+Shift+P: actions first, then everything else
    static PaletteMode open();     // Ctrl+P: jobs, notebooks and specs by name
};

class PaletteIndex {
public:
    // Replaces the entries of one kind (each entry's kind is set to it).
    void setEntries(PaletteKind kind, std::vector<PaletteEntry> entries);
    int size() const { return static_cast<int>(m_entries.size()); }
    const PaletteEntry& entry(int i) const { return m_entries[static_cast<std::size_t>(i)]; }
    int count(PaletteKind kind) const;

    // At most `limit` hits, best first. An empty text lists the mode's kinds in their order.
    std::vector<PaletteHit> query(const QString& text, const PaletteMode& mode, int limit);

private:
    void rebuild();

    std::array<std::vector<PaletteEntry>, static_cast<std::size_t>(PaletteKind::Count)> m_byKind;
    std::vector<PaletteEntry> m_entries;
    // The last query's matching entries (all of them, not only the shown ones): a query that
    // extends it can only match among these.
    QString m_lastText;
    std::vector<PaletteKind> m_lastKinds;
    std::vector<int> m_lastMatches;
    bool m_lastValid = false;
};

} // namespace studio::models

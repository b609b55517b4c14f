// The command palette's list: the hits of the current query over a PaletteIndex, one row each,
// with the name (and which characters matched), the kind, the detail and the shortcut. GUI thread.
#pragma once

#include "models/shell/palette_index.h"

#include <QAbstractListModel>

namespace studio::models {

class PaletteModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role {
        KindRole = Qt::UserRole + 1, // int (PaletteKind)
        KindNameRole,                // "Job", "Action", ...
        DetailRole,
        ShortcutRole,
        TargetRole,
        MatchedRole // QList<int>: positions of the name's matched characters
    };
    static constexpr int kLimit = 200; // rows shown at most; the rest are a keystroke away

    explicit PaletteModel(QObject* parent = nullptr);

    PaletteIndex& paletteIndex() { return m_index; }
    // Switches the mode and runs `text` in it (one query, one reset).
    void setMode(const PaletteMode& mode, const QString& text);
    const PaletteMode& mode() const { return m_mode; }
    // Runs the query and resets the rows.
    void setQuery(const QString& text);
    const QString& query() const { return m_query; }
    const PaletteEntry* entryAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

private:
    PaletteIndex m_index;
    PaletteMode m_mode = PaletteMode::commands();
    QString m_query;
    std::vector<PaletteHit> m_hits;
};

} // namespace studio::models

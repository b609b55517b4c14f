#include "models/shell/palette_model.h"

namespace studio::models {

PaletteModel::PaletteModel(QObject* parent)
    : QAbstractListModel(parent) {
}

void PaletteModel::setMode(const PaletteMode& mode, const QString& text) {
    m_mode = mode;
    setQuery(text);
}

void PaletteModel::setQuery(const QString& text) {
    beginResetModel();
    m_query = text;
    m_hits = m_index.query(text, m_mode, kLimit);
    endResetModel();
}

const PaletteEntry* PaletteModel::entryAt(int row) const {
    if (row < 0 || row >= rowCount())
        return nullptr;
    return &m_index.entry(m_hits[static_cast<std::size_t>(row)].entry);
}

int PaletteModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_hits.size());
}

QVariant PaletteModel::data(const QModelIndex& index, int role) const {
    const PaletteEntry* e =
        checkIndex(index, CheckIndexOption::IndexIsValid) ? entryAt(index.row()) : nullptr;
    if (!e)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        return e->name;
    case Qt::ToolTipRole:
        return e->detail.isEmpty() ? e->name : QString(e->name + QStringLiteral(" — ") + e->detail);
    case Qt::AccessibleTextRole:
        return QString(paletteKindName(e->kind) + QStringLiteral(": ") + e->name +
                       (e->shortcut.isEmpty() ? QString() : QStringLiteral(", ") + e->shortcut));
    case KindRole:
        return static_cast<int>(e->kind);
    case KindNameRole:
        return paletteKindName(e->kind);
    case DetailRole:
        return e->detail;
    case ShortcutRole:
        return e->shortcut;
    case TargetRole:
        return e->target;
    case MatchedRole: {
        QList<int> out;
        for (int p : m_hits[static_cast<std::size_t>(index.row())].positions)
            out.append(p);
        return QVariant::fromValue(out);
    }
    default:
        return {};
    }
}

QHash<int, QByteArray> PaletteModel::roleNames() const {
    QHash<int, QByteArray> names = QAbstractListModel::roleNames();
    names.insert(KindRole, "kind");
    names.insert(KindNameRole, "kindName");
    names.insert(DetailRole, "detail");
    names.insert(ShortcutRole, "shortcut");
    names.insert(TargetRole, "target");
    names.insert(MatchedRole, "matched");
    return names;
}

} // namespace studio::models

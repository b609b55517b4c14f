#include "models/charts/parameter_diff_model.h"

#include "models/common/status_style.h"

#include <QFont>
#include <QHash>
#include <QIcon>
#include <QPainter>
#include <QPixmap>

#include <algorithm>

namespace studio::models {

namespace {

QIcon swatch(const QColor& color) {
    static QHash<QRgb, QIcon> cache;
    if (auto it = cache.constFind(color.rgba()); it != cache.constEnd())
        return *it;
    QPixmap pm(12, 12);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(color);
    p.drawRoundedRect(QRectF(1, 1, 10, 10), 2, 2);
    p.end();
    QIcon icon(pm);
    cache.insert(color.rgba(), icon);
    return icon;
}

} // namespace

ParameterDiffModel::ParameterDiffModel(QObject* parent)
    : QAbstractTableModel(parent) {
}

void ParameterDiffModel::setJobs(const QList<CompareJob>& jobs) {
    beginResetModel();
    m_jobs.clear();
    m_names.clear();
    for (const CompareJob& job : jobs) {
        m_jobs.append({job.name, job.status, job.color, job.parameters});
        for (auto it = job.parameters.cbegin(); it != job.parameters.cend(); ++it)
            if (!m_names.contains(it.key()))
                m_names.append(it.key());
    }
    m_names.sort();
    const QStringList differing = differingParameters(jobs);
    m_differs.clear();
    for (const QString& name : m_names)
        m_differs.append(differing.contains(name));
    endResetModel();
}

int ParameterDiffModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_names.size());
}

int ParameterDiffModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_jobs.size()) + 1;
}

QVariant ParameterDiffModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row();
    const QString& name = m_names[row];
    const bool differs = m_differs[row];
    if (role == DiffersRole)
        return differs;
    if (role == Qt::BackgroundRole && differs)
        return QColor(0xe3, 0xa0, 0x08, 46); // amber tint that reads on light and dark bases
    if (index.column() == 0) {
        switch (role) {
        case Qt::DisplayRole:
        case SortRole:
            return name;
        case Qt::ToolTipRole:
            return differs ? tr("%1 differs between the jobs").arg(name)
                           : tr("%1 is the same in every job").arg(name);
        case Qt::FontRole:
            if (differs) {
                QFont f;
                f.setBold(true);
                return f;
            }
            return {};
        default:
            return {};
        }
    }
    const Job& job = m_jobs[index.column() - 1];
    const auto it = job.parameters.constFind(name);
    const bool present = it != job.parameters.cend();
    switch (role) {
    case Qt::DisplayRole:
        return present ? it->text : QStringLiteral("\u2014");
    case SortRole:
        if (!present)
            return QString();
        return it->number ? QVariant(*it->number) : QVariant(it->text);
    case Qt::ToolTipRole:
        return present ? QStringLiteral("%1 = %2 (%3)").arg(name, it->text, job.name)
                       : tr("%1 has no %2").arg(job.name, name);
    case Qt::ForegroundRole:
        if (!present)
            return mutedColor();
        return {};
    default:
        return {};
    }
}

QVariant ParameterDiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    if (section == 0)
        return role == Qt::DisplayRole ? QVariant(tr("Parameter")) : QVariant();
    const Job& job = m_jobs[section - 1];
    switch (role) {
    case Qt::DisplayRole:
        return job.name;
    case Qt::DecorationRole:
        return swatch(job.color);
    case Qt::ToolTipRole:
        return tr("%1 (%2)").arg(job.name, job.status);
    default:
        return {};
    }
}

int ParameterDiffModel::rowOf(const QString& parameter) const {
    return static_cast<int>(m_names.indexOf(parameter));
}

bool ParameterDiffModel::rowDiffers(int row) const {
    return row >= 0 && row < m_differs.size() && m_differs[row];
}

int ParameterDiffModel::differingCount() const {
    return static_cast<int>(std::count(m_differs.cbegin(), m_differs.cend(), true));
}

DifferingRowsFilter::DifferingRowsFilter(QObject* parent)
    : QSortFilterProxyModel(parent) {
    setSortRole(ParameterDiffModel::SortRole);
}

void DifferingRowsFilter::setOnlyDiffering(bool on) {
    if (on == m_onlyDiffering)
        return;
    m_onlyDiffering = on;
    invalidateFilter();
}

bool DifferingRowsFilter::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (!m_onlyDiffering)
        return true;
    return sourceModel()
        ->index(sourceRow, 0, sourceParent)
        .data(ParameterDiffModel::DiffersRole)
        .toBool();
}

} // namespace studio::models

#include "widgets/experiments/leaderboard_columns.h"

#include "models/experiments/leaderboard_model.h"

#include <QFontMetrics>
#include <QHeaderView>

#include <algorithm>

namespace studio::widgets {

LeaderboardColumns::LeaderboardColumns(QHeaderView* header, const models::LeaderboardModel* model,
                                       QObject* parent)
    : QObject(parent)
    , m_header(header)
    , m_model(model) {
    connect(header, &QHeaderView::sectionResized, this, [this](int section, int, int size) {
        // Hiding a section resizes it to 0: not a width anyone chose.
        if (!m_applying && size > 0)
            m_widths.insert(titleOf(section), size);
    });
    connect(header, &QHeaderView::sectionMoved, this, [this] {
        if (m_applying)
            return;
        m_order.clear();
        for (int v = 0; v < m_header->count(); ++v)
            m_order.push_back(titleOf(m_header->logicalIndex(v)));
    });
}

QString LeaderboardColumns::titleOf(int section) const {
    return m_model->headerData(section, Qt::Horizontal, models::LeaderboardModel::ColumnTitleRole)
        .toString();
}

bool LeaderboardColumns::hiddenByDefault(int section) const {
    // The tree already says the experiment and trial; Last, Min and Max tell most of a metric.
    const auto& c = m_model->table().columns[static_cast<std::size_t>(section)];
    if (c.kind == models::ColumnKind::Experiment || c.kind == models::ColumnKind::Trial)
        return true;
    return c.kind == models::ColumnKind::Metric &&
           (c.statistic == QLatin1String("Avg") || c.statistic == QLatin1String("StdDev") ||
            c.statistic == QLatin1String("Count"));
}

QStringList LeaderboardColumns::defaultOrder() const {
    // What identifies a job, its scores, what produced them, then the rest.
    QStringList order;
    const auto& columns = m_model->table().columns;
    auto add = [&](auto&& which) {
        for (const auto& c : columns)
            if (which(c))
                order.push_back(c.title);
    };
    auto leading = [](const models::LeaderboardColumn& c) {
        return c.kind == models::ColumnKind::Name || c.kind == models::ColumnKind::Status;
    };
    add(leading);
    add([](const models::LeaderboardColumn& c) { return c.group == models::ColumnGroup::Metrics; });
    add([](const models::LeaderboardColumn& c) {
        return c.group == models::ColumnGroup::Parameters;
    });
    add([&](const models::LeaderboardColumn& c) {
        return c.group == models::ColumnGroup::Job && !leading(c);
    });
    return order;
}

void LeaderboardColumns::apply() {
    m_applying = true;
    for (int i = 0; i < m_header->count(); ++i) {
        const bool shown = m_shown.value(titleOf(i), !hiddenByDefault(i));
        m_header->setSectionHidden(i, !shown && i != 0); // the name column always shows
    }
    int visual = 0;
    for (const QString& title : m_order.isEmpty() ? defaultOrder() : m_order) {
        const int logical = m_model->table().columnOf(title);
        if (logical < 0)
            continue;
        if (m_header->visualIndex(logical) != visual)
            m_header->moveSection(m_header->visualIndex(logical), visual);
        ++visual;
    }
    if (m_model->sortColumn() >= 0)
        m_header->setSortIndicator(m_model->sortColumn(), m_model->sortOrder());
    m_applying = false;
    fit();
}

void LeaderboardColumns::fit(bool forgetUserWidths) {
    if (forgetUserWidths)
        m_widths.clear();
    m_applying = true;
    const QFontMetrics cell(m_header->parentWidget() ? m_header->parentWidget()->font()
                                                     : m_header->font());
    const QFontMetrics head(m_header->font());
    const int sample = std::min(m_model->rowCount(), 60);
    for (int c = 0; c < m_model->columnCount(); ++c) {
        const auto& column = m_model->table().columns[static_cast<std::size_t>(c)];
        if (auto it = m_widths.constFind(column.title); it != m_widths.constEnd()) {
            m_header->resizeSection(c, *it);
            continue;
        }
        int width = 0;
        const QStringList lines =
            m_model->headerData(c, Qt::Horizontal).toString().split(QLatin1Char('\n'));
        for (const QString& l : lines)
            width = std::max(width, head.horizontalAdvance(l) + 26); // room for the sort arrow
        for (int r = 0; r < sample; ++r)
            width = std::max(
                width, cell.horizontalAdvance(m_model->displayText(c, m_model->tableRow(r))) + 14);
        if (column.kind == models::ColumnKind::Status)
            width += 20; // the icon
        const int cap = column.kind == models::ColumnKind::Name   ? 320
                        : column.kind == models::ColumnKind::Tags ? 180
                                                                  : 200;
        m_header->resizeSection(c, std::clamp(width, 56, cap));
    }
    m_applying = false;
}

void LeaderboardColumns::rememberVisibility() {
    // Every column's state becomes a choice; columns that appear later get defaults.
    for (int i = 0; i < m_header->count(); ++i)
        m_shown.insert(titleOf(i), !m_header->isSectionHidden(i));
}

void LeaderboardColumns::setVisible(const QString& title, bool visible) {
    const int column = m_model->table().columnOf(title);
    if (column <= 0) // absent, or the name column
        return;
    m_header->setSectionHidden(column, !visible);
    rememberVisibility();
}

bool LeaderboardColumns::isVisible(const QString& title) const {
    const int column = m_model->table().columnOf(title);
    return column >= 0 && !m_header->isSectionHidden(column);
}

QList<int> LeaderboardColumns::shownInOrder() const {
    QList<int> out;
    for (int v = 0; v < m_header->count(); ++v) {
        const int logical = m_header->logicalIndex(v);
        if (!m_header->isSectionHidden(logical))
            out.push_back(logical);
    }
    return out;
}

} // namespace studio::widgets

#include "widgets/experiments/column_chooser.h"

#include "models/experiments/leaderboard_model.h"

#include <QHeaderView>
#include <QMenu>
#include <QMouseEvent>

namespace studio::widgets {

namespace {

const char* const kStatistics[] = {"Last", "Min", "Max", "Avg", "StdDev", "Count"};

} // namespace

ColumnChooser::ColumnChooser(QHeaderView* header, QWidget* parent)
    : QToolButton(parent)
    , m_header(header)
    , m_menu(new QMenu(this)) {
    setObjectName(QStringLiteral("columnsButton"));
    setText(QStringLiteral("Columns ▾"));
    setStyleSheet(QStringLiteral("QToolButton::menu-indicator { image: none; width: 0px; }"));
    setToolTip(QStringLiteral("Choose the columns the table shows"));
    setPopupMode(QToolButton::InstantPopup);
    setToolButtonStyle(Qt::ToolButtonTextOnly);
    setMenu(m_menu);
    connect(m_menu, &QMenu::aboutToShow, this, &ColumnChooser::rebuild);
}

QList<int> ColumnChooser::sections(const std::function<bool(int)>& which) const {
    QList<int> out;
    for (int i = 0; i < m_header->count(); ++i)
        if (which(i))
            out.push_back(i);
    return out;
}

void ColumnChooser::setShown(const QList<int>& list, bool shown) {
    const QAbstractItemModel* model = m_header->model();
    for (int s : list) {
        // The name column identifies rows: it stays.
        if (model->headerData(s, Qt::Horizontal, models::LeaderboardModel::ColumnKindRole)
                .toInt() == static_cast<int>(models::ColumnKind::Name))
            continue;
        m_header->setSectionHidden(s, !shown);
    }
    syncChecks();
    Q_EMIT columnsChanged();
}

QAction* ColumnChooser::addToggle(QMenu* menu, const QString& text, const QList<int>& list) {
    QAction* a = menu->addAction(text);
    a->setCheckable(true);
    a->setEnabled(!list.isEmpty());
    m_toggles.emplace_back(a, list);
    connect(a, &QAction::triggered, this, [this, list](bool) {
        // Checked means every section shows: a click on a partly shown group shows all of it.
        const bool allShown = std::none_of(list.begin(), list.end(),
                                           [this](int s) { return m_header->isSectionHidden(s); });
        setShown(list, !allShown);
    });
    return a;
}

void ColumnChooser::syncChecks() {
    for (auto& [action, list] : m_toggles) {
        const bool allShown =
            !list.isEmpty() && std::none_of(list.begin(), list.end(),
                                            [this](int s) { return m_header->isSectionHidden(s); });
        action->setChecked(allShown);
    }
}

void ColumnChooser::rebuild() {
    m_menu->clear();
    m_toggles.clear();
    for (QMenu* sub : m_menu->findChildren<QMenu*>(QString(), Qt::FindDirectChildrenOnly))
        sub->deleteLater();
    m_menu->installEventFilter(this);
    const QAbstractItemModel* model = m_header->model();
    if (!model)
        return;
    auto group = [model](int s) {
        return static_cast<models::ColumnGroup>(
            model->headerData(s, Qt::Horizontal, models::LeaderboardModel::ColumnGroupRole)
                .toInt());
    };
    auto title = [model](int s) {
        return model->headerData(s, Qt::Horizontal, models::LeaderboardModel::ColumnTitleRole)
            .toString();
    };
    const struct {
        models::ColumnGroup group;
        const char* name;
    } groups[] = {{models::ColumnGroup::Job, "Job"},
                  {models::ColumnGroup::Parameters, "Parameters"},
                  {models::ColumnGroup::Metrics, "Metrics"}};

    m_menu->addSection(QStringLiteral("Groups"));
    for (const auto& g : groups) {
        const QList<int> list = sections([&](int s) { return group(s) == g.group; });
        addToggle(m_menu,
                  QLatin1String(g.name) + QStringLiteral("  (") + QString::number(list.size()) +
                      QLatin1Char(')'),
                  list);
    }
    m_menu->addSection(QStringLiteral("Metric statistics"));
    for (const char* stat : kStatistics) {
        const QString suffix = QStringLiteral(" - ") + QLatin1String(stat);
        addToggle(m_menu, QLatin1String(stat), sections([&](int s) {
                      return group(s) == models::ColumnGroup::Metrics && title(s).endsWith(suffix);
                  }));
    }
    m_menu->addSection(QStringLiteral("Columns"));
    for (const auto& g : groups) {
        const QList<int> list = sections([&](int s) { return group(s) == g.group; });
        QMenu* sub = m_menu->addMenu(QLatin1String(g.name));
        sub->setEnabled(!list.isEmpty());
        sub->installEventFilter(this);
        for (int s : list) {
            QAction* a = addToggle(sub, title(s), {s});
            if (model->headerData(s, Qt::Horizontal, models::LeaderboardModel::ColumnKindRole)
                    .toInt() == static_cast<int>(models::ColumnKind::Name))
                a->setEnabled(false);
        }
    }
    m_menu->addSeparator();
    QAction* all = m_menu->addAction(QStringLiteral("Show all columns"));
    connect(all, &QAction::triggered, this,
            [this] { setShown(sections([](int) { return true; }), true); });
    syncChecks();
}

bool ColumnChooser::eventFilter(QObject* watched, QEvent* event) {
    // A click on a checkable entry toggles it without closing the menu.
    if (event->type() == QEvent::MouseButtonRelease) {
        if (auto* menu = qobject_cast<QMenu*>(watched)) {
            auto* me = static_cast<QMouseEvent*>(event);
            QAction* a = menu->actionAt(me->position().toPoint());
            if (a && a->isCheckable() && a->isEnabled()) {
                a->trigger();
                return true;
            }
        }
    }
    return QToolButton::eventFilter(watched, event);
}

} // namespace studio::widgets

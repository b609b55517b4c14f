// The leaderboard's column chooser: a tool button whose menu shows and hides the header's
// sections by group (Job, Parameters, Metrics), by metric statistic and one by one. The menu
// stays open while the user toggles, so several columns change in one visit.
#pragma once

#include <QToolButton>

#include <functional>
#include <vector>

class QHeaderView;
class QMenu;

namespace studio::widgets {

class ColumnChooser : public QToolButton {
    Q_OBJECT
public:
    // header shows a LeaderboardModel.
    explicit ColumnChooser(QHeaderView* header, QWidget* parent = nullptr);

Q_SIGNALS:
    void columnsChanged(); // after any section was shown or hidden here

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rebuild();
    void syncChecks();
    QList<int> sections(const std::function<bool(int)>& which) const;
    void setShown(const QList<int>& sections, bool shown);
    QAction* addToggle(QMenu* menu, const QString& text, const QList<int>& sections);

    QHeaderView* m_header;
    QMenu* m_menu;
    std::vector<std::pair<QAction*, QList<int>>> m_toggles;
};

} // namespace studio::widgets

// The Console: rank-tagged log lines of running (or opened) jobs, filterable by job, node, rank
// and stream, searchable, following the newest line unless the user scrolls away.
#pragma once

#include "models/console/log_model.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLayout;
class QLineEdit;
class QListView;
class QToolButton;

namespace studio::widgets {

class ConsolePanel : public QWidget {
    Q_OBJECT
public:
    // model: shared with other views, or null for a model of its own.
    explicit ConsolePanel(models::LogModel* model = nullptr, QWidget* parent = nullptr);

    models::LogModel* model() const { return m_model; }
    models::LogFilterProxy* proxy() const { return m_proxy; }
    // Pins the panel to one job (the job filter is hidden); "" shows the job chooser.
    void setFixedJob(const QString& job);
    void showJob(const QString& job);
    void focusSearch();

private:
    QLayout* buildFilterBar();
    void connectUi();
    void refreshChoosers();
    void updateCount();

    models::LogModel* m_model;
    models::LogFilterProxy* m_proxy;
    QComboBox* m_job;
    QComboBox* m_node;
    QComboBox* m_rank;
    QToolButton* m_stdout;
    QToolButton* m_stderr;
    QToolButton* m_events;
    QLineEdit* m_search;
    QToolButton* m_follow;
    QLabel* m_count;
    QListView* m_view;
    QString m_fixedJob;
};

} // namespace studio::widgets

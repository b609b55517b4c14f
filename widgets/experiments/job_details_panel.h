// The leaderboard's side panel: what the selected job is, and its tags ("key=value, ...") and
// notes, editable when the studio can write. It only validates and asks: the leaderboard writes.
#pragma once

#include "models/experiments/leaderboard_table.h"

#include <QMap>
#include <QWidget>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QStackedWidget;
class QVBoxLayout;

namespace studio::widgets {

class JobDetailsPanel : public QWidget {
    Q_OBJECT
public:
    explicit JobDetailsPanel(QWidget* parent = nullptr);

    // One job (row may be null: nothing selected); selected > 1 shows a count instead.
    void showJob(const models::LeaderboardRow* row, int selected);
    void setEditable(bool editable);
    qint64 componentId() const { return m_id; }

Q_SIGNALS:
    void saveRequested(qint64 componentId, const QMap<QString, QString>& tags,
                       const QString& notes);
    void openRequested(const QString& jobName);
    void cloneRequested(const QString& jobName);

private:
    void addJobSection(QWidget* page, QVBoxLayout* v);
    void addAnnotationSection(QWidget* page, QVBoxLayout* v);
    void save();
    void revert();
    void updateButtons();

    qint64 m_id = 0;
    QString m_name;
    QMap<QString, QString> m_tags;
    QString m_notes;
    bool m_editable = false;

    QStackedWidget* m_pages = nullptr;
    QLabel* m_placeholder = nullptr;
    QLabel* m_title = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_where = nullptr;
    QLineEdit* m_tagsEdit = nullptr;
    QLabel* m_tagsError = nullptr;
    QPlainTextEdit* m_notesEdit = nullptr;
    QPushButton* m_save = nullptr;
    QPushButton* m_revert = nullptr;
    QLabel* m_readOnly = nullptr;
};

} // namespace studio::widgets

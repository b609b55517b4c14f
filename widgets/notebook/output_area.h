// The outputs of a code cell, as nbformat output objects: stream text (stderr tinted), rich
// results (HTML in a browser sized to its content, PNG images, else plain text), errors with their
// traceback, and job outputs (kJobMimeType) as live JobOutputWidget cards. setOutputs() keeps the
// widgets of outputs that did not change, so a job card survives its display being updated.
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QVector>
#include <QWidget>

class QVBoxLayout;

namespace studio::models {
class DataService;
} // namespace studio::models

namespace studio::widgets {

class JobOutputWidget;

class OutputArea : public QWidget {
    Q_OBJECT
public:
    explicit OutputArea(models::DataService* service, QWidget* parent = nullptr);

    void setOutputs(const QJsonArray& outputs);
    void append(const QJsonObject& output);
    void clear();
    int count() const { return static_cast<int>(m_items.size()); }
    QList<JobOutputWidget*> jobCards() const;
    // All text shown (streams, plain and HTML results as text, errors), for tests and copying.
    QString text() const;

Q_SIGNALS:
    void openLogs(const QString& job);
    void openInsights(const QString& job);
    void stopJob(const QString& job);

private:
    struct Item {
        QJsonObject output;
        QWidget* widget = nullptr;
    };
    QWidget* build(const QJsonObject& output);
    void replaceAt(int index, const QJsonObject& output);

    models::DataService* m_service;
    QVBoxLayout* m_layout;
    QVector<Item> m_items;
};

// The job name of a job output (data[kJobMimeType].job); "" when it is not one.
QString jobOfOutput(const QJsonObject& output);

} // namespace studio::widgets

// The outputs of a code cell, one view per nbformat output object, rendered natively as
// JupyterLab renders them: stream text with ANSI colours and carriage returns applied (stderr
// tinted), errors with IPython's coloured traceback, and for a rich result the richest type the
// studio shows (models::chooseOutput: the live job and tuning cards, images, SVG, HTML,
// markdown, JSON, plain text). A stream output that follows a stream of the same name joins it
// (models::appendOutputTo, the document's rule) and its view grows by the new text only.
// setOutputs() keeps the views of outputs that did not change, so a live card survives its
// display being updated. GUI thread only.
#pragma once

#include "models/notebook/output_mime.h"

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
class TuningOutputWidget;

class OutputArea : public QWidget {
    Q_OBJECT
public:
    explicit OutputArea(models::DataService* service, QWidget* parent = nullptr);

    // Shows these outputs, one view each (as the document holds them: streams are not joined
    // here), keeping the views of outputs that did not change.
    void setOutputs(const QJsonArray& outputs);
    // Adds an output as the kernel sends it: a stream joins the previous stream of its name.
    void append(const QJsonObject& output);
    // update_display_data: the output at index becomes this one (a card of the same job or
    // tuning job stays and takes the new payload).
    void replaceAt(int index, const QJsonObject& output);
    void clear();

    int count() const { return static_cast<int>(m_items.size()); }
    // The output at index as shown (a joined stream with all its text).
    QJsonObject output(int index) const;
    QWidget* viewAt(int index) const { return m_items.at(index).widget; }
    QList<JobOutputWidget*> jobCards() const;
    QList<TuningOutputWidget*> tuningCards() const;
    // All text shown (streams, errors, plain, HTML and markdown as text, JSON, card names), for
    // tests and copying.
    QString text() const;

Q_SIGNALS:
    void openLogs(const QString& job);
    void openInsights(const QString& job);
    void stopJob(const QString& job);
    void openTuning(const QString& tuning);
    void stopTuning(const QString& tuning);

private:
    struct Item {
        QJsonObject output; // a stream's without its text, which streamText holds
        QString streamText; // resolved (models/notebook/stream_text.h)
        models::OutputKind kind = models::OutputKind::Empty;
        QWidget* widget = nullptr;
    };
    Item build(const QJsonObject& output);
    QWidget* buildRich(const QJsonObject& output, const models::OutputChoice& choice);
    QWidget* buildCard(const QJsonObject& output, const models::OutputChoice& choice);
    void add(const QJsonObject& output);
    // Brings item to output in place when it can (a grown stream, a card's new payload).
    bool updateInPlace(Item& item, const QJsonObject& output);
    void setStreamText(Item& item, const QString& text);

    models::DataService* m_service;
    QVBoxLayout* m_layout;
    QVector<Item> m_items;
};

} // namespace studio::widgets

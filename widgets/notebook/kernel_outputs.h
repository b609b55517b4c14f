// Keeps a notebook's document and its code cells' views in step with the notebook's kernel:
// execution counts and the In [*] marks, outputs (streams joined as the document joins them),
// display updates in every cell, clear_output now or at the next output, and Python's input()
// asked in the running cell and answered to the kernel. The editor owns it; GUI thread only.
#pragma once

#include "models/notebook/notebook_document.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>

#include <functional>

namespace studio::models {
class NotebookKernel;
} // namespace studio::models

namespace studio::widgets {

class CodeCellWidget;

class KernelOutputs : public QObject {
    Q_OBJECT
public:
    // cellView finds a code cell's widget by cell id (null when it has none).
    KernelOutputs(models::NotebookDocument& doc,
                  std::function<CodeCellWidget*(const QString& cellId)> cellView,
                  QObject* parent = nullptr);

    // Follows this kernel's signals (none: nullptr).
    void setKernel(models::NotebookKernel* kernel);
    // Every cell stops running (a restart or the kernel's death).
    void stopAll(const QList<CodeCellWidget*>& cells);

Q_SIGNALS:
    // The document changed (an output, a count).
    void documentChanged();

private:
    void onStarted(const QString& cellId, int count);
    void onOutput(const QString& cellId, const QJsonObject& output, const QString& displayId);
    void onDisplayUpdated(const QString& displayId, const QJsonObject& output);
    void onOutputCleared(const QString& cellId, bool wait);
    void onEnded(const QString& cellId, bool cancelled);
    void onInputRequested(const QString& cellId, const QString& prompt, bool password);

    models::NotebookDocument& m_doc;
    std::function<CodeCellWidget*(const QString&)> m_cellView;
    QPointer<models::NotebookKernel> m_kernel;
};

} // namespace studio::widgets

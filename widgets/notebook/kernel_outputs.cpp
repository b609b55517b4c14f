#include "widgets/notebook/kernel_outputs.h"

#include "models/notebook/notebook_kernel.h"
#include "widgets/notebook/code_cell_widget.h"
#include "widgets/notebook/input_prompt.h"
#include "widgets/notebook/output_area.h"

namespace studio::widgets {

KernelOutputs::KernelOutputs(models::NotebookDocument& doc,
                             std::function<CodeCellWidget*(const QString&)> cellView,
                             QObject* parent)
    : QObject(parent)
    , m_doc(doc)
    , m_cellView(std::move(cellView)) {
}

void KernelOutputs::setKernel(models::NotebookKernel* kernel) {
    if (m_kernel)
        disconnect(m_kernel, nullptr, this, nullptr);
    m_kernel = kernel;
    if (!kernel)
        return;
    using K = models::NotebookKernel;
    connect(kernel, &K::started, this, &KernelOutputs::onStarted);
    connect(kernel, &K::output, this, &KernelOutputs::onOutput);
    connect(kernel, &K::displayUpdated, this, &KernelOutputs::onDisplayUpdated);
    connect(kernel, &K::outputCleared, this, &KernelOutputs::onOutputCleared);
    connect(kernel, &K::finished, this, [this](const QString& id) { onEnded(id, false); });
    connect(kernel, &K::cancelled, this, [this](const QString& id) { onEnded(id, true); });
    connect(kernel, &K::inputRequested, this, &KernelOutputs::onInputRequested);
}

void KernelOutputs::stopAll(const QList<CodeCellWidget*>& cells) {
    for (CodeCellWidget* cell : cells) {
        cell->setRunning(false);
        cell->closeInput();
    }
}

void KernelOutputs::onStarted(const QString& cellId, int count) {
    const int i = m_doc.indexOf(cellId);
    if (i < 0)
        return;
    m_doc.cells[i].executionCount = count;
    if (CodeCellWidget* w = m_cellView(cellId)) {
        w->setExecutionCount(count);
        w->setRunning(true);
    }
    Q_EMIT documentChanged();
}

void KernelOutputs::onOutput(const QString& cellId, const QJsonObject& output,
                             const QString& displayId) {
    const int i = m_doc.indexOf(cellId);
    if (i < 0)
        return;
    const bool clearFirst = m_doc.cells[i].clearPending;
    // The document joins stream text as Jupyter does; the area joins it the same way.
    if (m_doc.appendOutput(cellId, output, displayId) < 0)
        return;
    if (CodeCellWidget* w = m_cellView(cellId)) {
        if (clearFirst)
            w->outputs()->clear();
        w->outputs()->append(output);
    }
    Q_EMIT documentChanged();
}

void KernelOutputs::onDisplayUpdated(const QString& displayId, const QJsonObject& output) {
    for (const int i : m_doc.updateDisplay(displayId, output))
        if (CodeCellWidget* w = m_cellView(m_doc.cells[i].id))
            w->outputs()->setOutputs(m_doc.cells[i].outputs);
    Q_EMIT documentChanged();
}

void KernelOutputs::onOutputCleared(const QString& cellId, bool wait) {
    if (!m_doc.clearOutput(cellId, wait))
        return;
    if (!wait)
        if (CodeCellWidget* w = m_cellView(cellId))
            w->outputs()->clear();
    Q_EMIT documentChanged();
}

void KernelOutputs::onEnded(const QString& cellId, bool cancelled) {
    // A cell that never ran has no count, as in Jupyter.
    if (const int i = m_doc.indexOf(cellId); cancelled && i >= 0)
        m_doc.cells[i].executionCount.reset();
    if (CodeCellWidget* w = m_cellView(cellId)) {
        w->setRunning(false);
        if (cancelled)
            w->setExecutionCount(std::nullopt);
        w->closeInput();
    }
}

void KernelOutputs::onInputRequested(const QString& cellId, const QString& prompt, bool password) {
    CodeCellWidget* w = m_cellView(cellId);
    if (!w) {
        m_kernel->sendInput(QString()); // the cell is gone: the code gets an empty line
        return;
    }
    InputPrompt* input = w->showInput(prompt, password);
    connect(input, &InputPrompt::submitted, this,
            [this, cellId, prompt, password](const QString& v) {
                if (CodeCellWidget* cell = m_cellView(cellId))
                    cell->closeInput();
                // The answer stays in the cell's output, as Jupyter shows it (hidden for getpass).
                onOutput(
                    cellId,
                    QJsonObject{{QStringLiteral("output_type"), QStringLiteral("stream")},
                                {QStringLiteral("name"), QStringLiteral("stdout")},
                                {QStringLiteral("text"),
                                 QString(prompt + (password ? QString() : v) + QLatin1Char('\n'))}},
                    QString());
                if (m_kernel)
                    m_kernel->sendInput(v);
            });
    input->setFocus(Qt::OtherFocusReason);
}

} // namespace studio::widgets

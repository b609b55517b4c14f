#include "widgets/notebook/notebook_editor.h"

#include "models/notebook/notebook_kernel.h"
#include "widgets/notebook/cell_source_edit.h"
#include "widgets/notebook/code_assist.h"
#include "widgets/notebook/code_cell_widget.h"
#include "widgets/notebook/kernel_outputs.h"
#include "widgets/notebook/markdown_cell_widget.h"
#include "widgets/notebook/message_bar.h"
#include "widgets/notebook/notebook_files.h"
#include "widgets/notebook/output_area.h"

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QSaveFile>
#include <QScrollArea>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

namespace studio::widgets {

NotebookEditor::NotebookEditor(models::DataService* service, QWidget* parent)
    : QWidget(parent)
    , m_service(service)
    , m_doc(models::NotebookDocument::create())
    , m_assist(new CodeAssist(this))
    , m_outputs(new KernelOutputs(
          m_doc, [this](const QString& id) { return codeCellById(id); }, this)) {
    connect(m_outputs, &KernelOutputs::documentChanged, this, [this] { setModified(true); });
    setObjectName(QStringLiteral("notebookEditor"));
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(0);
    buildToolbar(v);
    m_notice = new MessageBar(this);
    m_notice->setObjectName(QStringLiteral("notebookNotice"));
    v->addWidget(m_notice);
    m_recovery = new MessageBar(this);
    m_recovery->setObjectName(QStringLiteral("notebookRecovery"));
    v->addWidget(m_recovery);

    m_scroll = new QScrollArea(this);
    m_scroll->setObjectName(QStringLiteral("notebookCells"));
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* column = new QWidget(m_scroll);
    column->setBackgroundRole(QPalette::Window);
    m_column = new QVBoxLayout(column);
    m_column->setContentsMargins(12, 10, 18, 24);
    m_column->setSpacing(6);
    m_column->addStretch(1);
    m_scroll->setWidget(column);
    v->addWidget(m_scroll, 1);

    m_autosave = new QTimer(this);
    m_autosave->setInterval(30000);
    connect(m_autosave, &QTimer::timeout, this, &NotebookEditor::autosaveNow);
    m_autosave->start();

    rebuildCells();
    setKernel(nullptr);
}

NotebookEditor::~NotebookEditor() = default;

void NotebookEditor::buildToolbar(QVBoxLayout* layout) {
    auto* bar = new QToolBar(this);
    bar->setObjectName(QStringLiteral("notebookToolbar"));
    bar->setIconSize(QSize(16, 16));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    auto add = [this, bar](const QString& text, const char* name, QStyle::StandardPixmap icon,
                           auto slot, const QKeySequence& keys = {}) {
        QAction* a = bar->addAction(style()->standardIcon(icon), text);
        a->setObjectName(QLatin1String(name));
        a->setShortcut(keys);
        // Each notebook tab has its own shortcuts; only the visible one's fire.
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        addAction(a);
        if (!keys.isEmpty())
            a->setToolTip(
                QStringLiteral("%1 (%2)").arg(text, keys.toString(QKeySequence::NativeText)));
        connect(a, &QAction::triggered, this, slot);
        return a;
    };
    m_runActions.append(add(
        tr("Run"), "notebookRun", QStyle::SP_MediaPlay, [this] { runCurrentAndAdvance(); },
        QKeySequence(tr("Shift+Return"))));
    m_runActions.append(
        add(tr("Run all"), "notebookRunAll", QStyle::SP_MediaSeekForward, [this] { runAll(); }));
    m_runActions.append(add(tr("Run this cell and those below"), "notebookRunBelow",
                            QStyle::SP_ArrowDown, [this] { runBelow(); }));
    m_interrupt =
        add(tr("Interrupt"), "notebookInterrupt", QStyle::SP_MediaStop, [this] { interrupt(); });
    m_restart = add(tr("Restart"), "notebookRestart", QStyle::SP_BrowserReload,
                    [this] { restartKernel(); });
    bar->addSeparator();
    m_editActions.append(add(tr("+ Code"), "notebookAddCode", QStyle::SP_FileIcon,
                             [this] { insertCell(m_current + 1, models::CellType::Code); }));
    m_editActions.append(add(tr("+ Markdown"), "notebookAddMarkdown",
                             QStyle::SP_FileDialogDetailedView,
                             [this] { insertCell(m_current + 1, models::CellType::Markdown); }));
    m_editActions.append(add(tr("Delete cell"), "notebookDeleteCell", QStyle::SP_TrashIcon,
                             [this] { deleteCell(m_current); }));
    m_editActions.append(add(tr("Move cell up"), "notebookMoveUp", QStyle::SP_ArrowUp,
                             [this] { moveCell(m_current, -1); }));
    m_editActions.append(add(tr("Move cell down"), "notebookMoveDown", QStyle::SP_ArrowDown,
                             [this] { moveCell(m_current, 1); }));
    m_editActions[0]->setToolTip(tr("Add a code cell below"));
    m_editActions[1]->setToolTip(tr("Add a markdown cell below"));
    bar->addSeparator();
    m_save = add(
        tr("Save"), "notebookSave", QStyle::SP_DialogSaveButton, [this] { save(); },
        QKeySequence::Save);
    add(
        tr("Save as…"), "notebookSaveAs", QStyle::SP_DialogSaveButton, [this] { saveAs(); },
        QKeySequence(tr("Ctrl+Shift+S")));

    // Less used actions show as icons (their text is the tooltip) so the bar fits a narrow tab.
    for (const char* name : {"notebookRunBelow", "notebookDeleteCell", "notebookMoveUp",
                             "notebookMoveDown", "notebookSaveAs"})
        if (auto* b = qobject_cast<QToolButton*>(
                bar->widgetForAction(findChild<QAction*>(QLatin1String(name)))))
            b->setToolButtonStyle(Qt::ToolButtonIconOnly);

    // The kernel's state stays in sight however narrow the tab: outside the toolbar.
    auto* row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(0);
    row->addWidget(bar, 1);
    m_kernelLabel = new QLabel(this);
    m_kernelLabel->setObjectName(QStringLiteral("kernelState"));
    m_kernelLabel->setContentsMargins(8, 0, 12, 0);
    row->addWidget(m_kernelLabel);
    layout->addLayout(row);
}

// --- files -------------------------------------------------------------------------------------

QString NotebookEditor::workingDir() const {
    if (!m_path.isEmpty())
        return QFileInfo(m_path).absolutePath();
    return m_workingDir.isEmpty() ? QDir::currentPath() : m_workingDir;
}

QString NotebookEditor::title() const {
    const QString name = m_path.isEmpty() ? tr("Untitled.ipynb") : QFileInfo(m_path).fileName();
    return m_modified ? name + QStringLiteral(" ●") : name;
}

bool NotebookEditor::readOnly() const {
    return !m_kernel || m_doc.isJavaScript();
}

bool NotebookEditor::openFile(const QString& path) {
    m_path = QFileInfo(path).absoluteFilePath();
    m_loadError.clear();
    try {
        m_doc = models::NotebookDocument::load(m_path);
    } catch (const models::NotebookError& e) {
        // The file stays as it is: the editor shows an empty notebook and save() refuses.
        m_loadError = QString::fromUtf8(e.what());
        m_doc = models::NotebookDocument::create();
    }
    rebuildCells();
    setModified(false);
    updateNotice();
    updateActions();
    Q_EMIT pathChanged(m_path);
    offerRecovery();
    return m_loadError.isEmpty();
}

bool NotebookEditor::saveTo(const QString& path) {
    const QString target = QFileInfo(path).absoluteFilePath();
    try {
        m_doc.save(target);
    } catch (const models::NotebookError& e) {
        m_notice->showMessage(MessageBar::Kind::Error, QString::fromUtf8(e.what()));
        return false;
    }
    // The work is in the file now: the side files of its old and new names are stale.
    QFile::remove(autosavePathFor(target));
    if (!m_path.isEmpty())
        QFile::remove(autosavePathFor(m_path));
    m_recovery->dismiss();
    const bool renamed = target != m_path;
    m_path = target;
    if (renamed && m_kernel)
        m_kernel->setWorkingDir(QFileInfo(target).absolutePath());
    m_loadError.clear();
    setModified(false);
    updateNotice();
    if (renamed)
        Q_EMIT pathChanged(m_path);
    Q_EMIT saved(m_path);
    return true;
}

bool NotebookEditor::save() {
    if (m_path.isEmpty())
        return saveAs();
    if (loadFailed()) {
        m_notice->showMessage(MessageBar::Kind::Error,
                              tr("%1\n\nThe file is not overwritten: use Save as… to save this "
                                 "notebook under a name.")
                                  .arg(m_loadError));
        return false;
    }
    return saveTo(m_path);
}

bool NotebookEditor::saveAs() {
    const QString start =
        m_path.isEmpty() ? QDir(workingDir()).filePath(QStringLiteral("Untitled.ipynb")) : m_path;
    QString path = QFileDialog::getSaveFileName(this, tr("Save notebook as"), start,
                                                tr("Notebooks (*.ipynb)"));
    if (path.isEmpty())
        return false;
    if (!path.endsWith(QLatin1String(".ipynb")))
        path += QStringLiteral(".ipynb");
    return saveTo(path);
}

void NotebookEditor::setAutosaveInterval(int ms) {
    m_autosave->setInterval(ms);
}

bool NotebookEditor::autosaveNow() {
    // An untitled notebook has no folder to keep a side file in yet.
    if (!m_modified || m_path.isEmpty())
        return false;
    QSaveFile f(autosavePathFor(m_path));
    if (!f.open(QIODevice::WriteOnly))
        return false;
    f.write(m_doc.toJson());
    return f.commit();
}

void NotebookEditor::offerRecovery() {
    m_recovery->dismiss();
    const QFileInfo side(autosavePathFor(m_path));
    if (!side.exists())
        return;
    m_recovery->showMessage(
        MessageBar::Kind::Warning,
        tr("This notebook has unsaved changes from %1 that autosave kept. "
           "Recover them?")
            .arg(QLocale().toString(side.lastModified(), QLocale::ShortFormat)));
    m_recovery->addButton(tr("Recover"), QStringLiteral("recoverAutosave"),
                          [this] { recoverAutosave(); });
    m_recovery->addButton(tr("Discard"), QStringLiteral("discardAutosave"),
                          [this] { discardAutosave(); });
}

bool NotebookEditor::recoverAutosave() {
    try {
        models::NotebookDocument recovered =
            models::NotebookDocument::load(autosavePathFor(m_path));
        m_doc = std::move(recovered);
    } catch (const models::NotebookError& e) {
        m_recovery->showMessage(
            MessageBar::Kind::Error,
            tr("The autosaved changes cannot be read: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    m_recovery->dismiss();
    rebuildCells();
    setModified(true); // in the side file only until the user saves
    updateNotice();
    updateActions();
    return true;
}

void NotebookEditor::discardAutosave() {
    QFile::remove(autosavePathFor(m_path));
    m_recovery->dismiss();
}

void NotebookEditor::setModified(bool modified) {
    m_modified = modified;
    Q_EMIT titleChanged(title());
}

// --- kernel ------------------------------------------------------------------------------------

void NotebookEditor::setKernel(models::NotebookKernel* kernel) {
    if (m_kernel)
        disconnect(m_kernel, nullptr, this, nullptr);
    m_kernel = kernel;
    m_assist->setKernel(kernel);
    m_outputs->setKernel(kernel);
    if (kernel) {
        using K = models::NotebookKernel;
        connect(kernel, &K::started, this, &NotebookEditor::updateKernelLabel);
        connect(kernel, &K::finished, this, &NotebookEditor::updateKernelLabel);
        connect(kernel, &K::cancelled, this, &NotebookEditor::updateKernelLabel);
        connect(kernel, &K::restarted, this, &NotebookEditor::onRestarted);
        connect(kernel, &K::stateChanged, this, &NotebookEditor::onStateChanged);
        connect(kernel, &K::died, this, &NotebookEditor::onDied);
    }
    updateNotice();
    updateActions();
}

QString NotebookEditor::kernelState() const {
    return m_kernelLabel->text();
}

void NotebookEditor::updateKernelLabel() {
    if (!m_kernel) {
        m_kernelLabel->setText(tr("No kernel"));
        m_interrupt->setEnabled(false);
        return;
    }
    const models::KernelState state = m_kernel->state();
    // The kernel may be idle between two queued cells; the notebook is busy while any waits.
    const bool busy = m_kernel->busy() && state != models::KernelState::Dead;
    const QString word = busy && state == models::KernelState::Idle
                             ? models::kernelStateName(models::KernelState::Busy)
                             : models::kernelStateName(state);
    m_kernelLabel->setText(QStringLiteral("%1 — %2").arg(m_kernel->displayName(), word));
    m_kernelLabel->setToolTip(state == models::KernelState::Dead
                                  ? tr("The kernel is not running: restart it")
                              : busy ? tr("A cell runs or waits")
                                     : tr("The kernel is %1").arg(word));
    m_interrupt->setEnabled(busy);
}

void NotebookEditor::updateNotice() {
    if (loadFailed()) {
        m_notice->showMessage(MessageBar::Kind::Error,
                              tr("%1\n\nThe file is left as it is; Save as… keeps what you write "
                                 "here under another name.")
                                  .arg(m_loadError));
        m_notice->addButton(tr("Save as…"), QStringLiteral("noticeSaveAs"), [this] { saveAs(); });
    } else if (m_doc.isJavaScript())
        m_notice->showMessage(
            MessageBar::Kind::Warning,
            tr("This notebook was written for the studio's old JavaScript kernel, which is gone: "
               "it opens read-only. Notebooks now run on Jupyter kernels (Python); copy its cells "
               "into a new notebook to rewrite them."));
    else if (!m_kernel)
        m_notice->showMessage(MessageBar::Kind::Info,
                              tr("No notebook kernel is available: this notebook is view-only."));
    else
        m_notice->dismiss();
}

void NotebookEditor::updateActions() {
    const bool ro = readOnly();
    for (QAction* a : m_runActions)
        a->setEnabled(!ro);
    for (QAction* a : m_editActions)
        a->setEnabled(!ro);
    m_restart->setEnabled(!ro);
    for (CellWidget* c : m_cells)
        c->setReadOnly(ro);
    updateKernelLabel();
}

void NotebookEditor::onStateChanged() {
    if (m_kernel && m_kernel->state() == models::KernelState::Idle &&
        !m_kernel->languageInfo().isEmpty() && !m_doc.isJavaScript())
        m_doc.setKernelMetadata(m_kernel->kernelspec(), m_kernel->languageInfo());
    updateKernelLabel();
}

void NotebookEditor::onDied(const QString& cellId, const QString& message) {
    if (CodeCellWidget* w = codeCellById(cellId))
        w->setRunning(false);
    m_notice->showMessage(MessageBar::Kind::Error, message);
    m_notice->addButton(tr("Restart kernel"), QStringLiteral("noticeRestart"),
                        [this] { restartKernel(); });
    updateKernelLabel();
}

void NotebookEditor::onRestarted() {
    QList<CodeCellWidget*> code;
    for (CellWidget* c : m_cells)
        if (auto* w = qobject_cast<CodeCellWidget*>(c))
            code.append(w);
    m_outputs->stopAll(code);
    updateNotice();
    updateKernelLabel();
}

// --- running -----------------------------------------------------------------------------------

void NotebookEditor::runCell(int index) {
    CellWidget* c = cell(index);
    if (!c)
        return;
    if (auto* md = qobject_cast<MarkdownCellWidget*>(c)) {
        md->setEditing(false);
        return;
    }
    auto* code = qobject_cast<CodeCellWidget*>(c);
    if (!code || code->type() != models::CellType::Code || readOnly())
        return;
    models::NotebookCell& doc = m_doc.cells[index];
    doc.outputs = QJsonArray();
    doc.displayIds.clear();
    doc.clearPending = false;
    code->outputs()->clear();
    code->setRunning(true);
    setModified(true);
    m_kernel->execute(doc.id, doc.source);
    updateKernelLabel();
}

void NotebookEditor::runCurrentAndAdvance() {
    if (m_current < 0)
        return;
    runCell(m_current);
    if (m_current + 1 >= cellCount() && !readOnly())
        insertCell(cellCount(), models::CellType::Code);
    else
        setCurrentIndex(m_current + 1);
    if (CellWidget* c = cell(m_current); c && c->type() == models::CellType::Code)
        c->focusEditor();
}

void NotebookEditor::runAll() {
    for (int i = 0; i < cellCount(); ++i)
        runCell(i);
}

void NotebookEditor::runBelow() {
    for (int i = std::max(0, m_current); i < cellCount(); ++i)
        runCell(i);
}

void NotebookEditor::interrupt() {
    if (m_kernel)
        m_kernel->interrupt();
}

void NotebookEditor::restartKernel() {
    if (m_kernel)
        m_kernel->restart();
}

// --- cells -------------------------------------------------------------------------------------

CellWidget* NotebookEditor::makeCell(const models::NotebookCell& c) {
    CellWidget* w = nullptr;
    if (c.type == models::CellType::Markdown)
        w = new MarkdownCellWidget(c, m_scroll->widget());
    else
        w = new CodeCellWidget(c, m_service, m_scroll->widget());
    if (auto* code = qobject_cast<CodeCellWidget*>(w)) {
        connect(code->outputs(), &OutputArea::openLogs, this, &NotebookEditor::openLogs);
        connect(code->outputs(), &OutputArea::openInsights, this, &NotebookEditor::openInsights);
        connect(code->outputs(), &OutputArea::stopJob, this, &NotebookEditor::stopJob);
        connect(code->outputs(), &OutputArea::openTuning, this, &NotebookEditor::openTuning);
        connect(code->outputs(), &OutputArea::stopTuning, this, &NotebookEditor::stopTuning);
        connect(code->editor(), &CellSourceEdit::completionRequested, this,
                [this, code] { m_assist->complete(code->editor()); });
        connect(code->editor(), &CellSourceEdit::inspectRequested, this,
                [this, code] { m_assist->inspect(code->editor()); });
    }
    connect(w, &CellWidget::sourceChanged, this, [this, w] {
        const int i = m_doc.indexOf(w->cellId());
        if (i < 0 || m_doc.cells[i].source == w->source())
            return;
        m_doc.cells[i].source = w->source();
        setModified(true);
    });
    connect(w, &CellWidget::activated, this,
            [this, w] { setCurrentIndex(static_cast<int>(m_cells.indexOf(w))); });
    connect(w, &CellWidget::runAndAdvance, this, [this, w] {
        setCurrentIndex(static_cast<int>(m_cells.indexOf(w)));
        runCurrentAndAdvance();
    });
    connect(w, &CellWidget::runInPlace, this,
            [this, w] { runCell(static_cast<int>(m_cells.indexOf(w))); });
    w->setReadOnly(readOnly());
    return w;
}

void NotebookEditor::rebuildCells() {
    qDeleteAll(m_cells);
    m_cells.clear();
    for (const models::NotebookCell& c : m_doc.cells) {
        CellWidget* w = makeCell(c);
        m_column->insertWidget(m_column->count() - 1, w);
        m_cells.append(w);
    }
    m_current = -1;
    setCurrentIndex(m_cells.isEmpty() ? -1 : 0);
}

CodeCellWidget* NotebookEditor::codeCell(int index) const {
    return qobject_cast<CodeCellWidget*>(cell(index));
}

CodeCellWidget* NotebookEditor::codeCellById(const QString& cellId) const {
    for (CellWidget* c : m_cells)
        if (c->cellId() == cellId)
            return qobject_cast<CodeCellWidget*>(c);
    return nullptr;
}

void NotebookEditor::setCurrentIndex(int index) {
    if (index < 0 || index >= cellCount())
        index = cellCount() > 0 ? std::clamp(index, 0, cellCount() - 1) : -1;
    m_current = index;
    for (int i = 0; i < cellCount(); ++i)
        m_cells[i]->setSelected(i == index);
    if (CellWidget* c = cell(index))
        m_scroll->ensureWidgetVisible(c, 0, 40);
}

int NotebookEditor::insertCell(int index, models::CellType type, const QString& source) {
    index = std::clamp(index, 0, cellCount());
    models::NotebookCell c;
    c.id = m_doc.newCellId();
    c.type = type;
    c.source = source;
    m_doc.cells.insert(index, c);
    CellWidget* w = makeCell(c);
    m_column->insertWidget(index, w);
    m_cells.insert(index, w);
    setModified(true);
    setCurrentIndex(index);
    w->focusEditor();
    return index;
}

void NotebookEditor::deleteCell(int index) {
    if (index < 0 || index >= cellCount() || readOnly())
        return;
    m_doc.cells.removeAt(index);
    delete m_cells.takeAt(index);
    setModified(true);
    setCurrentIndex(std::min(index, cellCount() - 1));
}

void NotebookEditor::moveCell(int index, int delta) {
    const int to = index + delta;
    if (index < 0 || index >= cellCount() || to < 0 || to >= cellCount() || readOnly())
        return;
    m_doc.cells.move(index, to);
    m_cells.move(index, to);
    CellWidget* w = m_cells[to];
    m_column->removeWidget(w);
    m_column->insertWidget(to, w);
    setModified(true);
    setCurrentIndex(to);
}

} // namespace studio::widgets

#include "widgets/shell/notebook_tabs.h"

#include "engine/control/controller.h"
#include "models/live/engine_bridge.h"
#include "widgets/jobs/job_view.h"
#include "widgets/notebook/notebook_editor.h"
#include "widgets/notebook/notebook_files.h"
#include "widgets/shell/explorer.h"
#include "widgets/shell/main_window.h"
#include "widgets/shell/tuning_tabs.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <QStyle>
#include <QTabWidget>

namespace studio::widgets {

NotebookTabs::NotebookTabs(MainWindow& window, QString settingsPath)
    : QObject(&window)
    , m_window(window)
    , m_settingsPath(std::move(settingsPath)) {
}

NotebookEditor* NotebookTabs::makeEditor() {
    auto* editor = new NotebookEditor(m_window.dataService(), &m_window);
    editor->setWorkingDir(m_window.explorer()->workspace());
    QTabWidget* tabs = m_window.tabs();
    connect(editor, &NotebookEditor::titleChanged, this, [tabs, editor](const QString& title) {
        if (const int at = tabs->indexOf(editor); at >= 0)
            tabs->setTabText(at, title);
    });
    connect(editor, &NotebookEditor::pathChanged, this, [this, tabs, editor](const QString& path) {
        editor->setProperty(MainWindow::kTabKey, QString(QStringLiteral("notebook:") + path));
        if (const int at = tabs->indexOf(editor); at >= 0)
            tabs->setTabToolTip(at, path);
        QSettings settings(m_settingsPath, QSettings::IniFormat);
        addRecentNotebook(settings, path);
    });
    connect(editor, &NotebookEditor::openLogs, this, &NotebookTabs::openLogs);
    connect(editor, &NotebookEditor::openInsights, this,
            [this](const QString& job) { m_window.openInsights(job); });
    connect(editor, &NotebookEditor::stopJob, this, [this](const QString& job) {
        m_window.bridge()->controller().stop(job.toStdString());
    });
    connect(editor, &NotebookEditor::openTuning, this,
            [this](const QString& tuning) { m_window.openTuningJob(tuning); });
    connect(editor, &NotebookEditor::stopTuning, this,
            [this](const QString& tuning) { m_window.tuning()->stop(tuning); });
    return editor;
}

void NotebookTabs::attachKernel(NotebookEditor* editor) {
    // The kernel is the editor's child: closing the tab ends its process (its jobs go on).
    if (!m_factory || editor->document().isJavaScript()) {
        editor->setKernel(nullptr);
        return;
    }
    const QString name = editor->document()
                             .metadata.value(QStringLiteral("kernelspec"))
                             .toObject()
                             .value(QStringLiteral("name"))
                             .toString();
    editor->setKernel(m_factory(editor->workingDir(), name, editor));
}

void NotebookTabs::setKernelFactory(KernelFactory factory) {
    m_factory = std::move(factory);
    QTabWidget* tabs = m_window.tabs();
    for (int i = 0; i < tabs->count(); ++i)
        if (auto* editor = qobject_cast<NotebookEditor*>(tabs->widget(i));
            editor && !editor->kernel())
            attachKernel(editor);
}

NotebookEditor* NotebookTabs::open(const QString& path) {
    if (path.isEmpty())
        return nullptr;
    const QString absolute = QFileInfo(path).absoluteFilePath();
    const QString key = QStringLiteral("notebook:") + absolute;
    if (const int at = m_window.tabIndexOf(key); at >= 0) {
        m_window.tabs()->setCurrentIndex(at);
        return qobject_cast<NotebookEditor*>(m_window.tabs()->widget(at));
    }
    NotebookEditor* editor = makeEditor();
    editor->openFile(absolute);
    attachKernel(editor);
    m_window.addTab(editor, key, editor->title(),
                    m_window.style()->standardIcon(QStyle::SP_FileDialogContentsView));
    m_window.tabs()->setTabToolTip(m_window.tabs()->indexOf(editor), absolute);
    return editor;
}

NotebookEditor* NotebookTabs::create() {
    NotebookEditor* editor = makeEditor();
    attachKernel(editor);
    m_window.addTab(editor, QStringLiteral("notebook-new:%1").arg(++m_untitled), editor->title(),
                    m_window.style()->standardIcon(QStyle::SP_FileDialogContentsView));
    return editor;
}

void NotebookTabs::addMenuEntries(QMenu* file) {
    QAction* created = file->addAction(tr("New &notebook"), this, [this] { create(); });
    created->setObjectName(QStringLiteral("newNotebookAction"));
    created->setShortcut(QKeySequence(tr("Ctrl+Alt+N")));
    file->addAction(tr("Open note&book…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(&m_window, tr("Open a notebook"),
                                                          m_window.explorer()->workspace(),
                                                          tr("Notebooks (*.ipynb)"));
        open(path);
    });
    QMenu* recent = file->addMenu(tr("&Recent notebooks"));
    recent->setObjectName(QStringLiteral("recentNotebooks"));
    connect(recent, &QMenu::aboutToShow, this, [this, recent] { fillRecent(recent); });
    fillRecent(recent);
}

void NotebookTabs::fillRecent(QMenu* menu) {
    menu->clear();
    const QStringList paths = recentNotebooks(QSettings(m_settingsPath, QSettings::IniFormat));
    for (const QString& path : paths)
        menu->addAction(QFileInfo(path).fileName(), this, [this, path] { open(path); })
            ->setToolTip(path);
    if (paths.isEmpty())
        menu->addAction(tr("No notebooks yet"))->setEnabled(false);
}

void NotebookTabs::openLogs(const QString& job) {
    JobView* v = m_window.openJob(job);
    if (!v)
        return;
    for (int i = 0; i < v->tabs()->count(); ++i)
        if (v->tabs()->tabText(i) == JobView::tr("Logs"))
            v->tabs()->setCurrentIndex(i);
}

bool NotebookTabs::mayClose(QWidget* tab) {
    auto* editor = qobject_cast<NotebookEditor*>(tab);
    if (!editor || !editor->isModified())
        return true;
    const QString name = editor->title().remove(QStringLiteral(" ●"));
    const QMessageBox::StandardButton answer =
        m_ask
            ? m_ask(name)
            : QMessageBox::question(&m_window, tr("Unsaved notebook"),
                                    tr("Save the changes to %1 before closing it?").arg(name),
                                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel,
                                    QMessageBox::Save);
    if (answer == QMessageBox::Discard)
        return true;
    if (answer == QMessageBox::Save)
        return editor->save();
    return false;
}

bool NotebookTabs::mayCloseAll() {
    QTabWidget* tabs = m_window.tabs();
    for (int i = 0; i < tabs->count(); ++i)
        if (!mayClose(tabs->widget(i)))
            return false;
    return true;
}

} // namespace studio::widgets

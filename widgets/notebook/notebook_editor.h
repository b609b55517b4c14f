// A notebook's tab: a toolbar (run, interrupt, restart, add/delete/move cells, save), the
// kernel's name and state (starting, idle, busy, dead) and a scrolling column of cells over a
// NotebookDocument. Runs code cells on the NotebookKernel it is given (it creates none: without
// one, or for a notebook written for a JavaScript kernel, it is view-only) and keeps the document
// in step with the kernel's outputs, display updates and clears; answers input() in the running
// cell; completes (Tab) and documents (Shift+Tab) through the kernel; a dead kernel is reported
// on its cell with a Restart offer. Saves atomically, autosaves
// unsaved work to a side file, and never writes over a file it could not parse unless the user
// picks Save as. GUI thread only.
#pragma once

#include "models/notebook/notebook_document.h"
#include "models/notebook/notebook_kernel.h"

#include <QPointer>
#include <QSet>
#include <QWidget>

class QAction;
class QLabel;
class QScrollArea;
class QTimer;
class QVBoxLayout;

namespace studio::models {
class DataService;
} // namespace studio::models

namespace studio::widgets {

class CellWidget;
class CodeAssist;
class CodeCellWidget;
class KernelOutputs;
class MessageBar;

class NotebookEditor : public QWidget {
    Q_OBJECT
public:
    // The job cards read through the data service and follow its engine bridge (when it has one).
    explicit NotebookEditor(models::DataService* service, QWidget* parent = nullptr);
    ~NotebookEditor() override;

    // Files. openFile shows a parse error in the editor and returns false; the file stays as it
    // was. saveTo writes without asking; save() asks for a name when there is none and refuses
    // to write over a file that did not parse; saveAs() asks.
    bool openFile(const QString& path);
    bool saveTo(const QString& path);
    bool save();
    bool saveAs();
    // Where relative paths and a new notebook's Save as start (the workspace for a new one).
    void setWorkingDir(const QString& dir) { m_workingDir = dir; }
    QString workingDir() const;
    const QString& path() const { return m_path; }
    // "name.ipynb", with " ●" while modified.
    QString title() const;
    bool isModified() const { return m_modified; }
    bool loadFailed() const { return !m_loadError.isEmpty(); }
    bool readOnly() const;
    const models::NotebookDocument& document() const { return m_doc; }
    MessageBar* notice() const { return m_notice; }
    MessageBar* recoveryBar() const { return m_recovery; }

    // Autosave: unsaved work goes to autosavePathFor(path()) every interval (30 s).
    void setAutosaveInterval(int ms);
    bool autosaveNow();
    bool recoverAutosave();
    void discardAutosave();

    // The kernel (not owned; give it this editor as parent to tie their lives). Null: view-only.
    void setKernel(models::NotebookKernel* kernel);
    models::NotebookKernel* kernel() const { return m_kernel; }
    QString kernelState() const;

    int cellCount() const { return static_cast<int>(m_cells.size()); }
    CellWidget* cell(int index) const { return m_cells.value(index); }
    CodeCellWidget* codeCell(int index) const;
    int currentIndex() const { return m_current; }
    void setCurrentIndex(int index);
    // Inserts a cell at index (clamped) and makes it current; returns its index.
    int insertCell(int index, models::CellType type, const QString& source = {});
    void deleteCell(int index);
    void moveCell(int index, int delta);

    void runCell(int index);
    void runCurrentAndAdvance(); // Shift+Enter
    void runAll();
    void runBelow(); // the current cell and those after it
    void interrupt();
    void restartKernel();

    CodeAssist* codeAssist() const { return m_assist; }

Q_SIGNALS:
    void titleChanged(const QString& title);
    void pathChanged(const QString& path);
    void saved(const QString& path);
    // From a job card's buttons.
    void openLogs(const QString& job);
    void openInsights(const QString& job);
    void stopJob(const QString& job);
    // From a tuning job's card.
    void openTuning(const QString& tuning);
    void stopTuning(const QString& tuning);

private:
    void buildToolbar(QVBoxLayout* layout);
    void rebuildCells();
    CellWidget* makeCell(const models::NotebookCell& cell);
    void setModified(bool modified);
    void updateNotice();
    void updateActions();
    void updateKernelLabel();
    void offerRecovery();
    CodeCellWidget* codeCellById(const QString& cellId) const;

    void onStateChanged();
    void onDied(const QString& cellId, const QString& message);
    void onRestarted();

    models::DataService* m_service;
    models::NotebookDocument m_doc;
    QString m_path;
    QString m_workingDir;
    QString m_loadError;
    bool m_modified = false;
    QPointer<models::NotebookKernel> m_kernel;
    QList<CellWidget*> m_cells;
    int m_current = -1;
    QTimer* m_autosave;

    MessageBar* m_notice;
    MessageBar* m_recovery;
    QLabel* m_kernelLabel;
    QScrollArea* m_scroll;
    QVBoxLayout* m_column;
    CodeAssist* m_assist;
    KernelOutputs* m_outputs;      // the kernel's outputs into m_doc and the cells
    QList<QAction*> m_runActions;  // need a kernel and a notebook it can run
    QList<QAction*> m_editActions; // need an editable notebook
    QAction* m_interrupt = nullptr;
    QAction* m_restart = nullptr;
    QAction* m_save = nullptr;
};

} // namespace studio::widgets

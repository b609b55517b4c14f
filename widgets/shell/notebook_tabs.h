// The studio window's notebooks: opens .ipynb files (and new notebooks) as NotebookEditor tabs
// with a kernel from the application's factory, keeps the File menu's New / Open / Recent
// notebooks entries, asks to save a modified notebook before its tab closes, and routes a
// notebook's requests (a job's tab, its logs or insights, Stop) to the window. GUI thread only.
#pragma once

#include <QMessageBox>
#include <QObject>

#include <functional>

class QMenu;
class QWidget;

namespace studio::models {
class NotebookKernel;
} // namespace studio::models

namespace studio::widgets {

class MainWindow;
class NotebookEditor;

class NotebookTabs : public QObject {
    Q_OBJECT
public:
    // A kernel for a notebook: the kernelspec its metadata names ("" for the default) started in
    // its folder; null when none can be made.
    using KernelFactory = std::function<models::NotebookKernel*(
        const QString& workingDir, const QString& kernelName, QObject* parent)>;
    // Answers "save changes to <name>?": Save, Discard or Cancel.
    using SaveQuestion = std::function<QMessageBox::StandardButton(const QString& name)>;

    NotebookTabs(MainWindow& window, QString settingsPath);

    // Open notebooks without a kernel get one now (but those written for a JavaScript kernel,
    // which open read-only).
    void setKernelFactory(KernelFactory factory);
    void setSaveQuestion(SaveQuestion ask) { m_ask = std::move(ask); }
    // The notebook's tab (an open one is brought forward); null when path is empty.
    NotebookEditor* open(const QString& path);
    NotebookEditor* create();
    // Adds New notebook, Open notebook… and Recent notebooks to the File menu.
    void addMenuEntries(QMenu* file);
    // Whether the tab may close: true for other tabs and for a notebook that is saved, saved now
    // or whose changes the user discards.
    bool mayClose(QWidget* tab);
    bool mayCloseAll();

private:
    NotebookEditor* makeEditor();
    void attachKernel(NotebookEditor* editor);
    void fillRecent(QMenu* menu);
    void openLogs(const QString& job); // the job's tab, on its Logs page

    MainWindow& m_window;
    QString m_settingsPath;
    KernelFactory m_factory;
    SaveQuestion m_ask;
    int m_untitled = 0;
};

} // namespace studio::widgets

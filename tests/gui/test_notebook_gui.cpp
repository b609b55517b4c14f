// Notebooks in the studio window, with the real JavaScript kernel and the embedded controller:
// cells edited and run (print, markdown, an error with its line), a training job started from a
// cell whose card goes live while another cell runs and reaches Completed, outputs that survive
// save and reopen, interrupt and restart, a file that does not parse (shown, never overwritten),
// autosave recovery, a Python notebook that opens read-only, and the recent-notebooks list.
#include "app/notebook/js_kernel.h"
#include "engine/control/controller.h"
#include "tests/support/screenshot.h"
#include "tests/support/test_controller.h"
#include "widgets/notebook/auto_height_browser.h"
#include "widgets/notebook/cell_source_edit.h"
#include "widgets/notebook/code_cell_widget.h"
#include "widgets/notebook/job_output_widget.h"
#include "widgets/notebook/loss_sparkline.h"
#include "widgets/notebook/markdown_cell_widget.h"
#include "widgets/notebook/message_bar.h"
#include "widgets/notebook/notebook_editor.h"
#include "widgets/notebook/notebook_files.h"
#include "widgets/notebook/output_area.h"
#include "widgets/shell/explorer.h"
#include "widgets/shell/main_window.h"
#include "widgets/shell/notebook_tabs.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;

namespace {

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A cell's finished() among the kernel's signals so far: -1 none, 0 failed, 1 ok.
int finishedState(const QSignalSpy& spy, const QString& cellId) {
    for (const QList<QVariant>& args : spy)
        if (args.at(0).toString() == cellId)
            return args.at(1).toBool() ? 1 : 0;
    return -1;
}

} // namespace

class TestNotebookGui : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    QString m_workspace;
    std::unique_ptr<control::Controller> m_controller;

    control::ControllerOptions options() const { return testControllerOptions(m_home.path()); }

    std::unique_ptr<MainWindow> window() {
        auto w = std::make_unique<MainWindow>(*m_controller);
        w->setKernelFactory([this](const QString& dir, QObject* parent) -> NotebookKernel* {
            return new notebook::JsKernel(*m_controller, notebook::KernelOptions{dir}, parent);
        });
        w->notebooks()->setSaveQuestion([](const QString&) { return QMessageBox::Discard; });
        w->resize(1500, 1000);
        w->show();
        return w;
    }

    QString writeNotebook(const QString& name, const QStringList& codeCells) {
        NotebookDocument doc = NotebookDocument::create();
        doc.cells.clear();
        for (const QString& source : codeCells) {
            NotebookCell c;
            c.id = doc.newCellId();
            c.source = source;
            doc.cells.append(c);
        }
        const QString path = QDir(m_workspace).filePath(name);
        doc.save(path);
        return path;
    }

    // Runs a cell and waits for its end; returns whether it succeeded.
    static bool runAndWait(NotebookEditor* ed, int index, int timeoutMs = 60000) {
        QSignalSpy finished(ed->kernel(), &NotebookKernel::finished);
        const QString id = ed->cell(index)->cellId();
        ed->runCell(index);
        return QTest::qWaitFor([&] { return finishedState(finished, id) >= 0; }, timeoutMs) &&
               finishedState(finished, id) == 1;
    }

    static void closeTab(MainWindow& w, QWidget* tab) {
        QPointer<QWidget> gone = tab;
        Q_EMIT w.tabs()->tabCloseRequested(w.tabs()->indexOf(tab));
        QTRY_VERIFY(gone.isNull());
    }

    // Shift+Enter runs the cell and moves on to a new one.
    void checkShiftEnter(MainWindow& w, NotebookEditor* ed) {
        QSignalSpy finished(ed->kernel(), &NotebookKernel::finished);
        CodeCellWidget* first = ed->codeCell(0);
        first->focusEditor();
        QTest::keyClick(first->editor(), Qt::Key_Return, Qt::ShiftModifier);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        QVERIFY(finished.at(0).at(1).toBool());
        QCOMPARE(first->outputs()->text().trimmed(), QStringLiteral("2"));
        QCOMPARE(first->gutterText(), QStringLiteral("In [1]:"));
        QCOMPARE(ed->cellCount(), 2);
        QCOMPARE(ed->currentIndex(), 1);
        QVERIFY(ed->isModified());
        QVERIFY(w.tabs()->tabText(w.tabs()->indexOf(ed)).contains(QStringLiteral("●")));
    }

    // A markdown cell renders, edits on double-click and renders again on Shift+Enter.
    void checkMarkdownCell(NotebookEditor* ed) {
        const int md = ed->insertCell(1, CellType::Markdown,
                                      QStringLiteral("# Results\n\nThe *loss* goes down."));
        auto* mdCell = qobject_cast<MarkdownCellWidget*>(ed->cell(md));
        QVERIFY(mdCell);
        ed->runCell(md);
        QVERIFY(!mdCell->editing());
        QVERIFY(mdCell->rendered()->toPlainText().contains(QStringLiteral("Results")));
        QVERIFY(!mdCell->rendered()->toPlainText().contains(QStringLiteral("#")));
        QTest::mouseDClick(mdCell->rendered()->viewport(), Qt::LeftButton);
        QVERIFY(mdCell->editing());
        QTest::keyClick(mdCell->editor(), Qt::Key_Return, Qt::ShiftModifier);
        QVERIFY(!mdCell->editing());
    }

    // An error shows its message and the line it came from; bad is set to the failing cell.
    void checkErrorCell(NotebookEditor* ed, int& bad) {
        bad = ed->insertCell(ed->cellCount(), CellType::Code,
                             QStringLiteral("const a = 1;\nnoSuchFunction(a);\n"));
        QVERIFY(!runAndWait(ed, bad));
        auto* error =
            ed->codeCell(bad)->outputs()->findChild<QTextBrowser*>(QStringLiteral("errorOutput"));
        QVERIFY(error);
        const QString message = error->toPlainText();
        QVERIFY2(message.contains(QStringLiteral("ReferenceError")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("line 2")), qPrintable(message));
        QVERIFY(message.contains(QStringLiteral("noSuchFunction(a)")));
    }

    // A cell starts a training job: its card goes live while another cell runs, follows the job
    // to its end, and the sleeping cell is interrupted; jobCell and job are set to the cell and
    // its job.
    void checkJobCard(MainWindow& w, NotebookEditor* ed, int& jobCell, QString& job) {
        jobCell = ed->insertCell(
            ed->cellCount(), CellType::Code,
            QStringLiteral("const est = new Estimator({\n"
                           "    entry_point: \"builtin:mlp\",\n"
                           "    hyperparameters: {epochs: 1, \"max-steps\": 200, dataset: "
                           "\"synthetic\", \"log-interval\": 5},\n"
                           "});\nest.fit({wait: false});"));
        QVERIFY(runAndWait(ed, jobCell));
        QCOMPARE(ed->codeCell(jobCell)->outputs()->jobCards().size(), 1);
        JobOutputWidget* card = ed->codeCell(jobCell)->outputs()->jobCards().front();
        job = card->job();
        QVERIFY(!job.isEmpty());
        const int sleeper = ed->insertCell(ed->cellCount(), CellType::Code,
                                           QStringLiteral("sleep(120);\nprint(\"slept\");\n"));
        ed->runCell(sleeper);
        QTRY_COMPARE(ed->codeCell(sleeper)->gutterText(), QStringLiteral("In [*]:"));
        QTRY_VERIFY_WITH_TIMEOUT(card->step() >= 20 || card->ended(), 60000);
        shoot(&w, "notebook-running-job.png");
        QTRY_COMPARE_WITH_TIMEOUT(card->status(), QStringLiteral("Completed"), 120000);
        // The card followed the job while the sleeping cell still ran.
        QCOMPARE(ed->codeCell(sleeper)->gutterText(), QStringLiteral("In [*]:"));
        QVERIFY(ed->kernel()->busy());
        QTRY_VERIFY(card->lossPoints() >= 10);
        // One epoch of the synthetic set ends before max-steps: the runner's total counts.
        QVERIFY2(card->totalSteps() > 0 && card->totalSteps() <= 200,
                 qPrintable(QString::number(card->totalSteps())));
        // The card repaints on its own timer after the status arrives.
        QTRY_VERIFY(!card->findChild<QPushButton*>(QStringLiteral("jobOutputStop"))->isEnabled());
        auto* bar = card->findChild<QProgressBar*>(QStringLiteral("jobOutputProgress"));
        QTRY_COMPARE(bar->value(), bar->maximum());
        ed->interrupt();
        QTRY_VERIFY(ed->codeCell(sleeper)->gutterText() != QStringLiteral("In [*]:"));
        QTRY_VERIFY(!ed->kernel()->busy());
        QVERIFY(ed->kernelState().contains(QStringLiteral("idle")));
        shoot(&w, "notebook-done.png");
        // The card's buttons reach the window: Logs opens the job's tab, Insights its dashboard.
        card->findChild<QPushButton*>(QStringLiteral("jobOutputLogs"))->click();
        QVERIFY(w.tabs()->tabText(w.tabs()->currentIndex()).contains(job));
        w.tabs()->setCurrentWidget(ed);
        card->findChild<QPushButton*>(QStringLiteral("jobOutputInsights"))->click();
        QVERIFY(w.tabs()->tabText(w.tabs()->currentIndex()).contains(job));
        w.tabs()->setCurrentWidget(ed);
    }

    // Saved, closed and reopened: outputs, counts and the job card come back.
    void checkReopened(MainWindow& w, NotebookEditor* ed, const QString& path, int bad, int jobCell,
                       const QString& job) {
        QVERIFY(ed->save());
        QVERIFY(!ed->isModified());
        QVERIFY(readAll(path).contains(job.toUtf8()));
        const int cells = ed->cellCount();
        closeTab(w, ed);
        ed = w.openNotebook(path);
        QVERIFY(ed);
        QCOMPARE(ed->cellCount(), cells);
        QCOMPARE(ed->codeCell(0)->outputs()->text().trimmed(), QStringLiteral("2"));
        QCOMPARE(ed->codeCell(0)->gutterText(), QStringLiteral("In [1]:"));
        QVERIFY(ed->codeCell(bad)->outputs()->text().contains(QStringLiteral("ReferenceError")));
        QCOMPARE(ed->codeCell(jobCell)->outputs()->jobCards().size(), 1);
        JobOutputWidget* card = ed->codeCell(jobCell)->outputs()->jobCards().front();
        QCOMPARE(card->job(), job);
        QTRY_COMPARE(card->status(), QStringLiteral("Completed"));
        QTRY_VERIFY(card->lossPoints() >= 10);
        QVERIFY(!ed->isModified());
    }

private Q_SLOTS:
    void initTestCase() {
        qputenv("STUDIO_NO_DIALOGS", "1");
        qputenv("MLSTUDIO_HOME", m_home.path().toUtf8());
        m_controller = std::make_unique<control::Controller>(options());
        m_workspace = m_home.filePath(QStringLiteral("workspace"));
        QDir().mkpath(m_workspace);
    }

    // Before: an HTML output's link of any scheme was handed to the desktop (file:, custom
    // URL handlers); now only web and mail links leave the studio.
    void htmlOutputLinksAreChecked() {
        AutoHeightBrowser b;
        QVERIFY(!b.openExternalLinks());
        QVERIFY(!b.openLinks());
        QVERIFY(AutoHeightBrowser::opensExternally(QUrl(QStringLiteral("https://example.org/x"))));
        QVERIFY(AutoHeightBrowser::opensExternally(QUrl(QStringLiteral("mailto:a@example.org"))));
        for (const char* bad : {"file:///etc/passwd", "javascript:alert(1)", "smb://host/share",
                                "vscode://open?x", "relative/path.html", "data:text/html,x"})
            QVERIFY2(!AutoHeightBrowser::opensExternally(QUrl(QString::fromLatin1(bad))), bad);
    }

    void runCellsWithAJobAndReopen() {
        const QString path =
            writeNotebook(QStringLiteral("demo.ipynb"), {QStringLiteral("print(1+1)")});
        auto w = window();
        NotebookEditor* ed = w->openNotebook(path);
        QVERIFY(ed);
        QCOMPARE(w->tabs()->currentWidget(), ed);
        QVERIFY(!ed->readOnly());
        QVERIFY(ed->kernelState().contains(ed->kernel()->displayName()));

        checkShiftEnter(*w, ed);
        checkMarkdownCell(ed);
        int bad = -1;
        checkErrorCell(ed, bad);
        int jobCell = -1;
        QString job;
        checkJobCard(*w, ed, jobCell, job);
        if (QTest::currentTestFailed())
            return;
        checkReopened(*w, ed, path, bad, jobCell, job);

        // The file is in File ▸ Recent notebooks.
        QSettings settings(m_home.filePath(QStringLiteral("studio.ini")), QSettings::IniFormat);
        QVERIFY(recentNotebooks(settings).contains(QFileInfo(path).absoluteFilePath()));
        auto* recent = w->findChild<QMenu*>(QStringLiteral("recentNotebooks"));
        QVERIFY(recent);
        Q_EMIT recent->aboutToShow();
        QCOMPARE(recent->actions().value(0)->text(), QStringLiteral("demo.ipynb"));
    }

    void interruptAndRestart() {
        const QString path = writeNotebook(QStringLiteral("loop.ipynb"),
                                           {QStringLiteral("var kept = 42;\nlet n = 0;\n"),
                                            QStringLiteral("while (true) { n++; }\n"),
                                            QStringLiteral("print(n > 0, kept);\n"),
                                            QStringLiteral("print(typeof kept);\n")});
        auto w = window();
        NotebookEditor* ed = w->openNotebook(path);
        QVERIFY(ed);
        QVERIFY(runAndWait(ed, 0));
        QSignalSpy started(ed->kernel(), &NotebookKernel::started);
        QSignalSpy finished(ed->kernel(), &NotebookKernel::finished);
        ed->runCell(1);
        QTRY_COMPARE(started.count(), 1);
        // Time must pass: the loop has to run a while before the interrupt (n > 0 below), and
        // nothing outside the kernel shows how far it got.
        QTest::qWait(300);
        QVERIFY(ed->kernel()->busy());
        QVERIFY(ed->kernelState().contains(QStringLiteral("busy")));
        ed->interrupt();
        QTRY_COMPARE_WITH_TIMEOUT(finishedState(finished, ed->cell(1)->cellId()), 0, 10000);
        QCOMPARE(ed->codeCell(1)->gutterText(), QStringLiteral("In [2]:"));
        QVERIFY(!ed->codeCell(1)->outputs()->text().isEmpty());
        // The context survived the interrupt.
        QVERIFY(runAndWait(ed, 2));
        QVERIFY2(ed->codeCell(2)->outputs()->text().contains(QStringLiteral("true 42")),
                 qPrintable(ed->codeCell(2)->outputs()->text()));

        QSignalSpy restarted(ed->kernel(), &NotebookKernel::restarted);
        ed->restartKernel();
        QTRY_COMPARE(restarted.count(), 1);
        QVERIFY(runAndWait(ed, 3));
        QCOMPARE(ed->codeCell(3)->outputs()->text().trimmed(), QStringLiteral("undefined"));
        QCOMPARE(ed->codeCell(3)->gutterText(), QStringLiteral("In [1]:"));
    }

    void fileThatDoesNotParseIsNeverOverwritten() {
        const QString path = QDir(m_workspace).filePath(QStringLiteral("broken.ipynb"));
        const QByteArray bytes = "{\"cells\": [ {\"cell_type\": \"code\", oops";
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(bytes);
        }
        QString expected;
        try {
            NotebookDocument::load(path);
        } catch (const NotebookError& e) {
            expected = QString::fromUtf8(e.what());
        }
        QVERIFY(!expected.isEmpty());

        auto w = window();
        NotebookEditor* ed = w->openNotebook(path);
        QVERIFY(ed);
        QVERIFY(ed->loadFailed());
        QVERIFY(ed->notice()->isVisible());
        QCOMPARE(ed->notice()->kind(), MessageBar::Kind::Error);
        QVERIFY2(ed->notice()->text().contains(expected), qPrintable(ed->notice()->text()));
        shoot(w.get(), "notebook-parse-error.png");

        // The user writes something and presses Save: refused, the file is as it was.
        ed->codeCell(0)->setSource(QStringLiteral("print(3)"));
        QVERIFY(ed->isModified());
        QVERIFY(!ed->save());
        QVERIFY(ed->notice()->text().contains(QStringLiteral("Save as")));
        QVERIFY(ed->autosaveNow());
        QCOMPARE(readAll(path), bytes);
        // Save as (here without its dialog) writes elsewhere; the broken file still stays.
        const QString other = QDir(m_workspace).filePath(QStringLiteral("fixed.ipynb"));
        QVERIFY(ed->saveTo(other));
        QCOMPARE(readAll(path), bytes);
        QCOMPARE(NotebookDocument::load(other).cells.value(0).source, QStringLiteral("print(3)"));
        QVERIFY(!ed->loadFailed());
        QVERIFY(!ed->notice()->isVisible());
        QFile::remove(autosavePathFor(path));
    }

    void autosaveIsOfferedForRecovery() {
        const QString path =
            writeNotebook(QStringLiteral("recover.ipynb"), {QStringLiteral("print(1)")});
        const QString side = autosavePathFor(path);
        QCOMPARE(side, QDir(m_workspace).filePath(QStringLiteral(".recover.ipynb.autosave")));
        auto w = window();
        NotebookEditor* ed = w->openNotebook(path);
        QVERIFY(ed);
        QVERIFY(!ed->recoveryBar()->isVisible());
        ed->codeCell(0)->setSource(QStringLiteral("print(2)"));
        ed->setAutosaveInterval(100);
        QTRY_VERIFY(QFile::exists(side));
        // Autosave never writes the notebook itself.
        QCOMPARE(NotebookDocument::load(path).cells.value(0).source, QStringLiteral("print(1)"));

        // Closing asks; Cancel keeps the tab, Discard closes it (the side file stays).
        int asked = 0;
        w->notebooks()->setSaveQuestion([&asked](const QString&) {
            ++asked;
            return QMessageBox::Cancel;
        });
        Q_EMIT w->tabs()->tabCloseRequested(w->tabs()->indexOf(ed));
        QCOMPARE(asked, 1);
        QVERIFY(w->tabs()->indexOf(ed) >= 0);
        w->notebooks()->setSaveQuestion([](const QString&) { return QMessageBox::Discard; });
        closeTab(*w, ed);
        QVERIFY(QFile::exists(side));

        ed = w->openNotebook(path);
        QVERIFY(ed->recoveryBar()->isVisible());
        QCOMPARE(ed->codeCell(0)->source(), QStringLiteral("print(1)"));
        shoot(w.get(), "notebook-recovery.png");
        auto* recover =
            ed->recoveryBar()->findChild<QPushButton*>(QStringLiteral("recoverAutosave"));
        QVERIFY(recover);
        recover->click();
        QVERIFY(!ed->recoveryBar()->isVisible());
        QCOMPARE(ed->codeCell(0)->source(), QStringLiteral("print(2)"));
        QVERIFY(ed->isModified());
        QVERIFY(ed->save());
        QVERIFY(!QFile::exists(side));
        QCOMPARE(NotebookDocument::load(path).cells.value(0).source, QStringLiteral("print(2)"));
    }

    void pythonNotebookOpensReadOnly() {
        NotebookDocument doc = NotebookDocument::create();
        doc.metadata.insert(QStringLiteral("language_info"),
                            QJsonObject{{QStringLiteral("name"), QStringLiteral("python")}});
        doc.metadata.insert(QStringLiteral("kernelspec"),
                            QJsonObject{{QStringLiteral("name"), QStringLiteral("python3")},
                                        {QStringLiteral("language"), QStringLiteral("python")}});
        doc.cells[0].source = QStringLiteral("import torch\nprint(torch.__version__)");
        const QString path = QDir(m_workspace).filePath(QStringLiteral("python.ipynb"));
        doc.save(path);
        auto w = window();
        NotebookEditor* ed = w->openNotebook(path);
        QVERIFY(ed);
        QVERIFY(ed->readOnly());
        QVERIFY(ed->notice()->isVisible());
        QVERIFY(ed->notice()->text().contains(QStringLiteral("do not run")));
        QVERIFY(!ed->findChild<QAction*>(QStringLiteral("notebookRun"))->isEnabled());
        QVERIFY(ed->codeCell(0)->editor()->isReadOnly());
        ed->runCell(0);
        QVERIFY(!ed->kernel()->busy());
        QCOMPARE(ed->codeCell(0)->gutterText(), QStringLiteral("In [ ]:"));
    }

    void withoutAKernelNotebooksAreViewOnly() {
        const QString path =
            writeNotebook(QStringLiteral("view.ipynb"), {QStringLiteral("print(\"hi\")")});
        MainWindow w(*m_controller); // no kernel factory
        w.show();
        NotebookEditor* fresh = w.newNotebook();
        QVERIFY(fresh);
        QVERIFY(fresh->readOnly());
        QVERIFY(fresh->notice()->text().contains(QStringLiteral("view-only")));
        QVERIFY(fresh->kernelState().contains(QStringLiteral("No kernel")));
        QVERIFY(!fresh->findChild<QAction*>(QStringLiteral("notebookInterrupt"))->isEnabled());
        // The explorer's double-click on a notebook opens it in a tab.
        Q_EMIT w.explorer()->openNotebookRequested(path);
        auto* opened = qobject_cast<NotebookEditor*>(w.tabs()->currentWidget());
        QVERIFY(opened);
        QCOMPARE(opened->path(), QFileInfo(path).absoluteFilePath());
        QVERIFY(opened->codeCell(0)->editor()->isReadOnly());
        // A kernel factory that comes later gives the open notebooks their kernels.
        w.setKernelFactory([this](const QString& dir, QObject* parent) -> NotebookKernel* {
            return new notebook::JsKernel(*m_controller, notebook::KernelOptions{dir}, parent);
        });
        QVERIFY(opened->kernel());
        QVERIFY(!opened->readOnly());
        QVERIFY(!opened->notice()->isVisible());
        QVERIFY(runAndWait(opened, 0));
        QCOMPARE(opened->codeCell(0)->outputs()->text().trimmed(), QStringLiteral("hi"));
    }

    // An example of resources/notebooks run with Run all: a diverging run that the Debugger's
    // rules stop, its card Stopped, the findings table below it.
    void exampleNotebookRunsInTheStudio() {
        const QString path = QDir(m_workspace).filePath(QStringLiteral("debugger-rules.ipynb"));
        QVERIFY(QFile::copy(
            QStringLiteral(STUDIO_SOURCE_DIR "/resources/notebooks/debugger-rules.ipynb"), path));
        auto w = window();
        NotebookEditor* ed = w->openNotebook(path);
        QVERIFY(ed);
        QVERIFY(!ed->loadFailed());
        QSignalSpy finished(ed->kernel(), &NotebookKernel::finished);
        int code = 0;
        for (const NotebookCell& c : ed->document().cells)
            code += c.type == CellType::Code ? 1 : 0;
        ed->runAll();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), code, 180000);
        for (const QList<QVariant>& args : finished)
            QVERIFY2(args.at(1).toBool(), qPrintable(args.at(0).toString()));
        JobOutputWidget* card = ed->findChild<JobOutputWidget*>();
        QVERIFY(card);
        QTRY_COMPARE_WITH_TIMEOUT(card->status(), QStringLiteral("Stopped"), 30000);
        QTRY_VERIFY(card->lossPoints() >= 1);
        bool findings = false;
        for (const auto* browser : ed->findChildren<QTextBrowser*>())
            findings = findings ||
                       browser->toPlainText().contains(QStringLiteral("lower the learning rate"));
        QVERIFY(findings);
        if (auto* scroll = ed->findChild<QScrollArea*>()) {
            scroll->ensureWidgetVisible(card, 0, 40);
            QCoreApplication::sendPostedEvents(); // pending layouts place the card
            QTRY_VERIFY(!card->visibleRegion().isEmpty());
            scroll->verticalScrollBar()->setValue(scroll->verticalScrollBar()->value() +
                                                  card->mapTo(scroll->widget(), QPoint()).y() -
                                                  scroll->verticalScrollBar()->value() - 140);
        }
        shoot(w.get(), "notebook-debugger.png");
    }

    void sparklineMapping() {
        const QPolygonF line =
            sparklinePolygon({{0, 2.0}, {5, 1.0}, {10, 0.0}}, QRectF(0, 0, 100, 50));
        QCOMPARE(line.size(), 3);
        QCOMPARE(line[0], QPointF(0, 0));
        QCOMPARE(line[1], QPointF(50, 25));
        QCOMPARE(line[2], QPointF(100, 50));
        const QPolygonF flat = sparklinePolygon({{3, 1.0}}, QRectF(0, 0, 100, 50));
        QCOMPARE(flat.value(0), QPointF(50, 25));
        QVERIFY(sparklinePolygon({}, QRectF(0, 0, 10, 10)).isEmpty());
    }
};

QTEST_MAIN(TestNotebookGui)
#include "test_notebook_gui.moc"

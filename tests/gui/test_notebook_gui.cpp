// Notebooks in the studio window on a real Jupyter kernel (Debian's ipykernel): cells edited and
// run (print, markdown, a Python error with its traceback), input() answered in the cell, Tab
// completion and Shift+Tab documentation from the kernel, outputs that survive save and reopen,
// interrupt and restart, a file that does not parse (shown, never overwritten), autosave
// recovery, a notebook of the old JavaScript kernel that opens read-only, and the recent-notebooks
// list. Kernel processes, plots, tables and live job cards: test_notebook_kernel_gui.
#include "tests/gui/notebook_fixture.h"
#include "tests/support/screenshot.h"
#include "widgets/notebook/auto_height_browser.h"
#include "widgets/notebook/cell_source_edit.h"
#include "widgets/notebook/code_assist.h"
#include "widgets/notebook/input_prompt.h"
#include "widgets/notebook/loss_sparkline.h"
#include "widgets/notebook/markdown_cell_widget.h"
#include "widgets/notebook/message_bar.h"
#include "widgets/notebook/notebook_files.h"
#include "widgets/notebook/output_area.h"
#include "widgets/shell/explorer.h"

#include <QAction>
#include <QApplication>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QTextBrowser>

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;
using namespace notebook_fixture;

class TestNotebookGui : public QObject {
    Q_OBJECT
    Fixture f;

    std::unique_ptr<MainWindow> window() { return f.window(); }
    QString writeNotebook(const QString& name, const QStringList& cells) {
        return f.writeNotebook(name, cells);
    }
    static bool runAndWait(NotebookEditor* ed, int index, int timeoutMs = 60000) {
        return Fixture::runAndWait(ed, index, timeoutMs);
    }
    static void closeTab(MainWindow& w, QWidget* tab) { Fixture::closeTab(w, tab); }

    // Shift+Enter runs the cell and moves on to a new one.
    void checkShiftEnter(MainWindow& w, NotebookEditor* ed) {
        QSignalSpy finished(ed->kernel(), &NotebookKernel::finished);
        CodeCellWidget* first = ed->codeCell(0);
        first->focusEditor();
        QTest::keyClick(first->editor(), Qt::Key_Return, Qt::ShiftModifier);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
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

    // A Python error shows its name, message and traceback with the failing line; bad is set to
    // the failing cell.
    void checkErrorCell(NotebookEditor* ed, int& bad) {
        bad = ed->insertCell(ed->cellCount(), CellType::Code,
                             QStringLiteral("a = 1\nno_such_function(a)\n"));
        QVERIFY(!runAndWait(ed, bad));
        const QString message = ed->codeCell(bad)->outputs()->text();
        QVERIFY2(message.contains(QStringLiteral("NameError")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("no_such_function(a)")), qPrintable(message));
        QVERIFY2(!message.contains(QLatin1Char('\x1b')),
                 qPrintable(message)); // colours, not escapes
    }

    // Python's input() asks in the cell; the answer reaches the code and stays in the output.
    void checkInput(NotebookEditor* ed) {
        const int cell = ed->insertCell(
            ed->cellCount(), CellType::Code,
            QStringLiteral("name = input('Your name: ')\nprint('hello', name.upper())"));
        QSignalSpy finished(ed->kernel(), &NotebookKernel::finished);
        ed->runCell(cell);
        QTRY_VERIFY_WITH_TIMEOUT(ed->codeCell(cell)->inputPrompt(), 30000);
        InputPrompt* prompt = ed->codeCell(cell)->inputPrompt();
        QCOMPARE(prompt->prompt(), QStringLiteral("Your name: "));
        QTest::keyClicks(prompt->entry(), QStringLiteral("ada"));
        QTest::keyClick(prompt->entry(), Qt::Key_Return);
        QTRY_COMPARE_WITH_TIMEOUT(finishedState(finished, ed->cell(cell)->cellId()), 1, 30000);
        QVERIFY(!ed->codeCell(cell)->inputPrompt());
        const QString text = ed->codeCell(cell)->outputs()->text();
        QVERIFY2(text.contains(QStringLiteral("Your name: ada")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("hello ADA")), qPrintable(text));
    }

    // Tab completes from the kernel's namespace; Shift+Tab shows a docstring.
    void checkCompletionAndDocs(NotebookEditor* ed) {
        QVERIFY(runAndWait(ed, ed->insertCell(ed->cellCount(), CellType::Code,
                                              QStringLiteral("unusual_variable_name = 3"))));
        const int cell =
            ed->insertCell(ed->cellCount(), CellType::Code, QStringLiteral("unusual_var"));
        CellSourceEdit* edit = ed->codeCell(cell)->editor();
        edit->moveCursor(QTextCursor::End);
        QTest::keyClick(edit, Qt::Key_Tab);
        QTRY_COMPARE_WITH_TIMEOUT(edit->toPlainText(), QStringLiteral("unusual_variable_name"),
                                  20000);
        // Tab at the start of a line indents instead.
        edit->moveCursor(QTextCursor::StartOfLine);
        QTest::keyClick(edit, Qt::Key_Tab);
        QCOMPARE(edit->toPlainText(), QStringLiteral("    unusual_variable_name"));
        // Several matches: a popup to pick from.
        edit->setPlainText(QStringLiteral("import os\nos.pa"));
        edit->moveCursor(QTextCursor::End);
        QTest::keyClick(edit, Qt::Key_Tab);
        QTRY_VERIFY_WITH_TIMEOUT(ed->codeAssist()->popup()->isVisible(), 20000);
        QVERIFY(ed->codeAssist()->popup()->count() >= 2);
        QVERIFY(!ed->codeAssist()
                     ->popup()
                     ->findItems(QStringLiteral("pardir"), Qt::MatchExactly)
                     .isEmpty());
        ed->codeAssist()->popup()->setCurrentRow(
            ed->codeAssist()->popup()->row(ed->codeAssist()
                                               ->popup()
                                               ->findItems(QStringLiteral("path"), Qt::MatchExactly)
                                               .value(0)));
        QTest::keyClick(ed->codeAssist()->popup(), Qt::Key_Return);
        QCOMPARE(edit->toPlainText(), QStringLiteral("import os\nos.path"));
        edit->setPlainText(QStringLiteral("len("));
        edit->moveCursor(QTextCursor::End);
        QTest::keyClick(edit, Qt::Key_Backtab, Qt::ShiftModifier);
        QTRY_VERIFY_WITH_TIMEOUT(!ed->codeAssist()->lastDocumentation().isEmpty(), 20000);
        QVERIFY2(ed->codeAssist()->lastDocumentation().contains(QStringLiteral("number of items")),
                 qPrintable(ed->codeAssist()->lastDocumentation()));
        ed->deleteCell(cell);
    }

    // Saved, closed and reopened: outputs and counts come back.
    void checkReopened(MainWindow& w, NotebookEditor* ed, const QString& path, int bad) {
        QVERIFY(ed->save());
        QVERIFY(!ed->isModified());
        const int cells = ed->cellCount();
        closeTab(w, ed);
        ed = w.openNotebook(path);
        QVERIFY(ed);
        QCOMPARE(ed->cellCount(), cells);
        QCOMPARE(ed->codeCell(0)->outputs()->text().trimmed(), QStringLiteral("2"));
        QCOMPARE(ed->codeCell(0)->gutterText(), QStringLiteral("In [1]:"));
        QVERIFY(ed->codeCell(bad)->outputs()->text().contains(QStringLiteral("NameError")));
        QVERIFY(!ed->isModified());
        // The file is what Jupyter writes: the kernel that ran it and its language.
        const NotebookDocument saved = NotebookDocument::load(path);
        QCOMPARE(saved.metadata.value(QStringLiteral("kernelspec"))
                     .toObject()
                     .value(QStringLiteral("name"))
                     .toString(),
                 QStringLiteral("python3"));
        QVERIFY(!saved.metadata.value(QStringLiteral("language_info"))
                     .toObject()
                     .value(QStringLiteral("version"))
                     .toString()
                     .isEmpty());
    }

private Q_SLOTS:
    void initTestCase() { f.init(); }

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

    void runCellsAndReopen() {
        const QString path =
            writeNotebook(QStringLiteral("demo.ipynb"), {QStringLiteral("print(1+1)")});
        auto w = window();
        NotebookEditor* ed = w->openNotebook(path);
        QVERIFY(ed);
        QCOMPARE(w->tabs()->currentWidget(), ed);
        QVERIFY(!ed->readOnly());
        QVERIFY(ed->kernelState().contains(ed->kernel()->displayName()));
        QVERIFY(ed->kernelState().contains(QStringLiteral("Python 3")));

        checkShiftEnter(*w, ed);
        checkMarkdownCell(ed);
        int bad = -1;
        checkErrorCell(ed, bad);
        checkInput(ed);
        checkCompletionAndDocs(ed);
        shoot(w.get(), "notebook-python.png");
        if (QTest::currentTestFailed())
            return;
        checkReopened(*w, ed, path, bad);

        // The file is in File ▸ Recent notebooks.
        QSettings settings(QDir(f.home()).filePath(QStringLiteral("studio.ini")),
                           QSettings::IniFormat);
        QVERIFY(recentNotebooks(settings).contains(QFileInfo(path).absoluteFilePath()));
        auto* recent = w->findChild<QMenu*>(QStringLiteral("recentNotebooks"));
        QVERIFY(recent);
        Q_EMIT recent->aboutToShow();
        QCOMPARE(recent->actions().value(0)->text(), QStringLiteral("demo.ipynb"));
    }

    void interruptAndRestart() {
        const QString path = writeNotebook(
            QStringLiteral("loop.ipynb"),
            {QStringLiteral("kept = 42\nn = 0\n"),
             QStringLiteral("import time\nprint('looping', flush=True)\nwhile True:\n"
                            "    n += 1\n    time.sleep(0.001)\n"),
             QStringLiteral("print(n > 0, kept)\n"), QStringLiteral("print('kept' in dir())\n")});
        auto w = window();
        NotebookEditor* ed = w->openNotebook(path);
        QVERIFY(ed);
        QVERIFY(runAndWait(ed, 0));
        QSignalSpy started(ed->kernel(), &NotebookKernel::started);
        QSignalSpy finished(ed->kernel(), &NotebookKernel::finished);
        ed->runCell(1);
        QTRY_COMPARE(started.count(), 1);
        // An interrupt before the cell's code runs would be lost (ipykernel's SIGINT handler is
        // not installed yet): wait for the loop's first word.
        QTRY_VERIFY_WITH_TIMEOUT(
            ed->codeCell(1)->outputs()->text().contains(QStringLiteral("looping")), 20000);
        QVERIFY(ed->kernel()->busy());
        QVERIFY(ed->kernelState().contains(QStringLiteral("busy")));
        ed->interrupt();
        QTRY_COMPARE_WITH_TIMEOUT(finishedState(finished, ed->cell(1)->cellId()), 0, 10000);
        QCOMPARE(ed->codeCell(1)->gutterText(), QStringLiteral("In [2]:"));
        QVERIFY2(ed->codeCell(1)->outputs()->text().contains(QStringLiteral("KeyboardInterrupt")),
                 qPrintable(ed->codeCell(1)->outputs()->text()));
        // The namespace survived the interrupt.
        QVERIFY(runAndWait(ed, 2));
        QVERIFY2(ed->codeCell(2)->outputs()->text().contains(QStringLiteral("True 42")),
                 qPrintable(ed->codeCell(2)->outputs()->text()));

        QSignalSpy restarted(ed->kernel(), &NotebookKernel::restarted);
        ed->restartKernel();
        QTRY_COMPARE_WITH_TIMEOUT(restarted.count(), 1, 60000);
        QVERIFY(runAndWait(ed, 3));
        QCOMPARE(ed->codeCell(3)->outputs()->text().trimmed(), QStringLiteral("False"));
        QCOMPARE(ed->codeCell(3)->gutterText(), QStringLiteral("In [1]:"));
        // The restart kept the notebook: its cells and outputs are there.
        QCOMPARE(ed->cellCount(), 4);
        QVERIFY(ed->codeCell(2)->outputs()->text().contains(QStringLiteral("True 42")));
    }

    void fileThatDoesNotParseIsNeverOverwritten() {
        const QString path = QDir(f.workspace()).filePath(QStringLiteral("broken.ipynb"));
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
        const QString other = QDir(f.workspace()).filePath(QStringLiteral("fixed.ipynb"));
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
        QCOMPARE(side, QDir(f.workspace()).filePath(QStringLiteral(".recover.ipynb.autosave")));
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

    void javaScriptNotebookOpensReadOnly() {
        NotebookDocument doc = NotebookDocument::create();
        doc.metadata.insert(QStringLiteral("language_info"),
                            QJsonObject{{QStringLiteral("name"), QStringLiteral("javascript")}});
        doc.metadata.insert(
            QStringLiteral("kernelspec"),
            QJsonObject{{QStringLiteral("name"), QStringLiteral("mlstudio-javascript")},
                        {QStringLiteral("display_name"), QStringLiteral("JavaScript (ML Studio)")},
                        {QStringLiteral("language"), QStringLiteral("javascript")}});
        doc.cells[0].source = QStringLiteral("const est = new Estimator({});");
        const QString path = QDir(f.workspace()).filePath(QStringLiteral("old-js.ipynb"));
        doc.save(path);
        auto w = window();
        NotebookEditor* ed = w->openNotebook(path);
        QVERIFY(ed);
        QVERIFY(ed->readOnly());
        QVERIFY(!ed->kernel()); // no kernel process is started for it
        QVERIFY(ed->notice()->isVisible());
        QVERIFY2(ed->notice()->text().contains(QStringLiteral("JavaScript")),
                 qPrintable(ed->notice()->text()));
        QVERIFY(!ed->findChild<QAction*>(QStringLiteral("notebookRun"))->isEnabled());
        QVERIFY(ed->codeCell(0)->editor()->isReadOnly());
        ed->runCell(0);
        QCOMPARE(ed->codeCell(0)->gutterText(), QStringLiteral("In [ ]:"));
        shoot(w.get(), "notebook-javascript-read-only.png");
    }

    void withoutAKernelNotebooksAreViewOnly() {
        const QString path =
            writeNotebook(QStringLiteral("view.ipynb"), {QStringLiteral("print(\"hi\")")});
        MainWindow w(f.controller()); // no kernel factory
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
        w.setKernelFactory(kernelFactory(f.home()));
        QVERIFY(opened->kernel());
        QVERIFY(!opened->readOnly());
        QVERIFY(!opened->notice()->isVisible());
        QVERIFY(runAndWait(opened, 0));
        QCOMPARE(opened->codeCell(0)->outputs()->text().trimmed(), QStringLiteral("hi"));
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

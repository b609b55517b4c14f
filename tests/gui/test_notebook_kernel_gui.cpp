// The notebook panes as a Jupyter frontend, with real ipykernel processes: a matplotlib figure
// shows as an image and a pandas DataFrame as a table; a training job started from a cell with
// the `mlstudio` SDK gets a live card (status, steps, loss) whose Stop button stops it; a kernel
// killed under its cell is reported there with a Restart that works; no kernel process is left
// after a tab closes, after the window goes, or after the studio process itself is killed. And
// the seed as a user types it: a new notebook, a 2-node PyTorch estimator with a Debugger
// rule and fit() with its live card, the job's metrics as a pandas table and a matplotlib plot;
// the same saved file then runs in Jupyter's own nbclient.
#include "tests/gui/notebook_fixture.h"
#include "tests/support/screenshot.h"
#include "widgets/shell/explorer.h"
#include "widgets/notebook/image_output_view.h"
#include "widgets/notebook/job_output_widget.h"
#include "widgets/notebook/message_bar.h"
#include "widgets/notebook/output_area.h"

#include <QImage>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTextBrowser>

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;
using namespace notebook_fixture;

class TestNotebookKernelGui : public QObject {
    Q_OBJECT
    Fixture f;

    // Scrolls the notebook so that w is in sight, for a screenshot.
    static void bringIntoView(NotebookEditor* ed, QWidget* w) {
        if (auto* scroll = ed->findChild<QScrollArea*>()) {
            QCoreApplication::sendPostedEvents(); // pending layouts place the widget
            scroll->verticalScrollBar()->setValue(w->mapTo(scroll->widget(), QPoint()).y() - 60);
        }
    }

private Q_SLOTS:
    void initTestCase() { f.init(); }

    void plotsAndTablesShowNatively() {
        const QString path = f.writeNotebook(
            QStringLiteral("plots.ipynb"),
            {QStringLiteral("%matplotlib inline\nimport matplotlib.pyplot as plt\n"
                            "plt.plot([0, 1, 2, 3], [3.0, 1.5, 0.9, 0.7], marker='o')\n"
                            "plt.title('loss')\nplt.show()"),
             QStringLiteral("import pandas as pd\n"
                            "pd.DataFrame({'job': ['a', 'b'], 'loss': [0.31, 0.27]})"),
             QStringLiteral("from IPython.display import Markdown\nMarkdown('**bold** text')")});
        auto w = f.window();
        NotebookEditor* ed = w->openNotebook(path);
        QVERIFY(ed);
        for (int i = 0; i < 3; ++i)
            QVERIFY2(Fixture::runAndWait(ed, i), qPrintable(ed->codeCell(i)->outputs()->text()));
        // The figure: a PNG the kernel sent, shown as an image.
        const QJsonObject figure = ed->document().cells[0].outputs.last().toObject();
        QVERIFY(
            figure.value(QStringLiteral("data")).toObject().contains(QStringLiteral("image/png")));
        const auto images = ed->codeCell(0)->outputs()->findChildren<ImageOutputView*>();
        QCOMPARE(images.size(), 1);
        QVERIFY(!images.front()->isSvg());
        QVERIFY2(images.front()->naturalSize().width() > 100,
                 qPrintable(QString::number(images.front()->naturalSize().width())));
        QTRY_VERIFY(!images.front()->pixmap().isNull());
        // The DataFrame: its HTML table, with the numbers in cells.
        const QJsonObject table = ed->document().cells[1].outputs.last().toObject();
        QVERIFY(
            table.value(QStringLiteral("data")).toObject().contains(QStringLiteral("text/html")));
        bool shown = false;
        for (const QTextBrowser* b : ed->codeCell(1)->outputs()->findChildren<QTextBrowser*>())
            shown = shown || (b->toHtml().contains(QStringLiteral("<table")) &&
                              b->toPlainText().contains(QStringLiteral("0.27")));
        QVERIFY(shown);
        QVERIFY(ed->codeCell(2)->outputs()->text().contains(QStringLiteral("bold")));
        QVERIFY(!ed->codeCell(2)->outputs()->text().contains(QStringLiteral("**")));
        shoot(w.get(), "notebook-plot-and-table.png");
    }

    // A job from a cell: its card follows it live while another cell runs; a second job's card
    // stops it.
    void jobCardsAreLiveAndStop() {
        const QString path = f.writeNotebook(
            QStringLiteral("jobs.ipynb"),
            {QStringLiteral(
                 "from mlstudio.estimator import Estimator\n"
                 "est = Estimator(entry_point='builtin:mlp', instance_count=1,\n"
                 "                hyperparameters={'epochs': 1, 'max-steps': 200,\n"
                 "                                 'dataset': 'synthetic', 'log-interval': 5})\n"
                 "est.fit(wait=False)"),
             QStringLiteral("import time\ntime.sleep(600)"),
             QStringLiteral(
                 "long = Estimator(entry_point='builtin:mlp',\n"
                 "                 hyperparameters={'epochs': 100, 'max-steps': 1000000,\n"
                 "                                  'dataset': 'synthetic', 'log-interval': 5})\n"
                 "long.fit(wait=False)")});
        auto w = f.window();
        NotebookEditor* ed = w->openNotebook(path);
        QVERIFY(ed);
        QVERIFY2(Fixture::runAndWait(ed, 0, 120000),
                 qPrintable(ed->codeCell(0)->outputs()->text()));
        QTRY_COMPARE_WITH_TIMEOUT(ed->codeCell(0)->outputs()->jobCards().size(), 1, 10000);
        JobOutputWidget* card = ed->codeCell(0)->outputs()->jobCards().front();
        QVERIFY(!card->job().isEmpty());
        ed->runCell(1);
        QTRY_COMPARE(ed->codeCell(1)->gutterText(), QStringLiteral("In [*]:"));
        QTRY_VERIFY_WITH_TIMEOUT(card->step() >= 20 || card->ended(), 90000);
        bringIntoView(ed, card);
        shoot(w.get(), "notebook-running-job.png");
        QTRY_COMPARE_WITH_TIMEOUT(card->status(), QStringLiteral("Completed"), 180000);
        // The card followed the job while the sleeping cell still ran.
        QCOMPARE(ed->codeCell(1)->gutterText(), QStringLiteral("In [*]:"));
        QTRY_VERIFY(card->lossPoints() >= 10);
        QTRY_VERIFY(!card->findChild<QPushButton*>(QStringLiteral("jobOutputStop"))->isEnabled());
        ed->interrupt();
        QTRY_VERIFY_WITH_TIMEOUT(ed->codeCell(1)->gutterText() != QStringLiteral("In [*]:"), 20000);
        QTRY_VERIFY(!ed->kernel()->busy());

        QVERIFY(Fixture::runAndWait(ed, 2, 120000));
        QTRY_COMPARE_WITH_TIMEOUT(ed->codeCell(2)->outputs()->jobCards().size(), 1, 10000);
        JobOutputWidget* longCard = ed->codeCell(2)->outputs()->jobCards().front();
        QTRY_VERIFY_WITH_TIMEOUT(longCard->step() >= 5, 90000);
        auto* stop = longCard->findChild<QPushButton*>(QStringLiteral("jobOutputStop"));
        QVERIFY(stop && stop->isEnabled());
        stop->click();
        QTRY_COMPARE_WITH_TIMEOUT(longCard->status(), QStringLiteral("Stopped"), 60000);
        // The card's Logs button reaches the window: the job's tab.
        card->findChild<QPushButton*>(QStringLiteral("jobOutputLogs"))->click();
        QVERIFY(w->tabs()->tabText(w->tabs()->currentIndex()).contains(card->job()));
    }

    void seedStyleNotebookEndToEnd() {
        auto w = f.window();
        NotebookEditor* ed = w->newNotebook();
        QVERIFY(ed);
        ed->codeCell(0)->setSource(QStringLiteral(
            "from mlstudio.pytorch import PyTorch\n"
            "from mlstudio.debugger import Rule, rule_configs\n"
            "estimator = PyTorch(entry_point='builtin:fmnist-cnn', instance_count=2,\n"
            "                    distribution={'pytorchddp': {'enabled': True}},\n"
            "                    hyperparameters={'epochs': 1, 'max-steps': 24, 'batch-size': 64,\n"
            "                                     'log-interval': 2, 'eval-interval': 12,\n"
            "                                     'eval-samples': 256},\n"
            "                    rules=[Rule.sagemaker(rule_configs.loss_not_decreasing())])\n"
            "estimator.fit({'train': '/usr/share/datasets/fashion-mnist'}, logs='None')"));
        ed->insertCell(1, CellType::Code,
                       QStringLiteral("from mlstudio.analytics import TrainingJobAnalytics\n"
                                      "job = estimator.latest_training_job.name\n"
                                      "df = TrainingJobAnalytics(job, ['train:loss']).dataframe()\n"
                                      "df.head()"));
        ed->insertCell(2, CellType::Code,
                       QStringLiteral("%matplotlib inline\nimport matplotlib.pyplot as plt\n"
                                      "plt.plot(range(len(df)), df['value'])\n"
                                      "plt.title(job); plt.show()"));
        QVERIFY(Fixture::waitIdle(ed));
        QSignalSpy finished(ed->kernel(), &NotebookKernel::finished);
        ed->runAll();
        // The card is live while fit() waits: it shows the job running before the cell ends.
        QTRY_VERIFY_WITH_TIMEOUT(ed->codeCell(0)->outputs()->jobCards().size() == 1, 120000);
        JobOutputWidget* card = ed->codeCell(0)->outputs()->jobCards().front();
        QTRY_VERIFY_WITH_TIMEOUT(card->status() == QLatin1String("InProgress") || card->ended(),
                                 60000);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 3, 300000);
        for (const QList<QVariant>& args : finished)
            QVERIFY2(args.at(1).toBool(), qPrintable(ed->codeCell(0)->outputs()->text() +
                                                     ed->codeCell(1)->outputs()->text()));
        QTRY_COMPARE(card->status(), QStringLiteral("Completed"));
        QTRY_VERIFY(card->lossPoints() >= 3);
        QVERIFY(!ed->codeCell(1)->outputs()->findChildren<QTextBrowser*>().isEmpty());
        QCOMPARE(ed->codeCell(2)->outputs()->findChildren<ImageOutputView*>().size(), 1);
        // The README's picture: the notebook with the room a user gives it (no side panel).
        w->explorer()->hide();
        bringIntoView(ed, ed->codeCell(0)->outputs());
        shoot(w.get(), "notebook-seed.png");
        w->explorer()->show();

        // The file the studio saves runs in Jupyter's own client, unchanged.
        const QString path = QDir(f.workspace()).filePath(QStringLiteral("seed.ipynb"));
        QVERIFY(ed->saveTo(path));
        QProcess nbclient;
        nbclient.setProcessChannelMode(QProcess::MergedChannels);
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PYTHONPATH"), QStringLiteral(STUDIO_SOURCE_DIR "/python"));
        nbclient.setProcessEnvironment(env);
        nbclient.start(QStringLiteral("/usr/bin/python3"),
                       {QStringLiteral("-c"),
                        QStringLiteral("import sys, nbformat, nbclient\n"
                                       "nb = nbformat.read(sys.argv[1], as_version=4)\n"
                                       "nbclient.NotebookClient(nb, timeout=600).execute()\n"
                                       "nbformat.validate(nb)\n"
                                       "print('cells', sum(1 for c in nb.cells if c.outputs))"),
                        path});
        QVERIFY(nbclient.waitForFinished(600000));
        const QString said = QString::fromUtf8(nbclient.readAll());
        QVERIFY2(nbclient.exitCode() == 0 && said.contains(QStringLiteral("cells 3")),
                 qPrintable(said));
    }

    void killedKernelIsReportedOnItsCell() {
        const QString path = f.writeNotebook(
            QStringLiteral("die.ipynb"),
            {QStringLiteral("import os, signal, sys\nprint('about to die', file=sys.stderr)\n"
                            "os.kill(os.getpid(), signal.SIGKILL)"),
             QStringLiteral("print('after restart')")});
        auto w = f.window();
        NotebookEditor* ed = w->openNotebook(path);
        QVERIFY(ed);
        QVERIFY(Fixture::waitIdle(ed));
        const int pid = static_cast<notebook::JupyterKernel*>(ed->kernel())->pid();
        QVERIFY(processAlive(pid));
        QSignalSpy died(ed->kernel(), &NotebookKernel::died);
        QVERIFY(!Fixture::runAndWait(ed, 0));
        QTRY_COMPARE(died.count(), 1);
        QCOMPARE(died.at(0).at(0).toString(), ed->cell(0)->cellId());
        const QString text = ed->codeCell(0)->outputs()->text();
        QVERIFY2(text.contains(QStringLiteral("DeadKernelError")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("SIGKILL")), qPrintable(text));
        QVERIFY(ed->kernelState().contains(QStringLiteral("dead")));
        QCOMPARE(ed->notice()->kind(), MessageBar::Kind::Error);
        QVERIFY(!processAlive(pid));
        shoot(w.get(), "notebook-kernel-died.png");
        // Nothing else is lost, and Restart brings a kernel back.
        QCOMPARE(ed->cellCount(), 2);
        auto* restart = ed->notice()->findChild<QPushButton*>(QStringLiteral("noticeRestart"));
        QVERIFY(restart);
        QSignalSpy restarted(ed->kernel(), &NotebookKernel::restarted);
        restart->click();
        QTRY_COMPARE_WITH_TIMEOUT(restarted.count(), 1, 60000);
        QVERIFY(!ed->notice()->isVisible());
        QVERIFY(Fixture::runAndWait(ed, 1));
        QCOMPARE(ed->codeCell(1)->outputs()->text().trimmed(), QStringLiteral("after restart"));
    }

    void noKernelOutlivesItsTabOrWindow() {
        const QString path =
            f.writeNotebook(QStringLiteral("pids.ipynb"), {QStringLiteral("print('up')")});
        auto w = f.window();
        NotebookEditor* ed = w->openNotebook(path);
        QVERIFY(ed && Fixture::waitIdle(ed));
        const int first = static_cast<notebook::JupyterKernel*>(ed->kernel())->pid();
        QVERIFY(processAlive(first));
        Fixture::closeTab(*w, ed);
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(first), 15000);

        NotebookEditor* again = w->openNotebook(path);
        QVERIFY(again && Fixture::waitIdle(again));
        const int second = static_cast<notebook::JupyterKernel*>(again->kernel())->pid();
        QVERIFY(processAlive(second) && second != first);
        w.reset(); // the studio exits
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(second), 15000);
    }

    // The studio killed outright (SIGKILL: no destructor runs) takes its kernel with it.
    void noKernelOutlivesAKilledStudio() {
        const QString pidFile = QDir(f.workspace()).filePath(QStringLiteral("kernel.pid"));
        const QString path = f.writeNotebook(
            QStringLiteral("crash.ipynb"),
            {QStringLiteral("import os, time\nopen(%1, 'w').write(str(os.getpid()))\n"
                            "time.sleep(600)")
                 .arg(QStringLiteral("'") + pidFile + QStringLiteral("'"))});
        QProcess studio;
        studio.setProcessChannelMode(QProcess::ForwardedChannels);
        studio.start(QStringLiteral(STUDIO_BIN_DIR "/mlstudio"), {QStringLiteral("nbrun"), path});
        QVERIFY(studio.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(pidFile) && !readAll(pidFile).isEmpty(), 60000);
        const int kernel = readAll(pidFile).toInt();
        QVERIFY(processAlive(kernel));
        ::kill(static_cast<pid_t>(studio.processId()), SIGKILL);
        QVERIFY(studio.waitForFinished(10000));
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(kernel), 15000);
    }
};

QTEST_MAIN(TestNotebookKernelGui)
#include "test_notebook_kernel_gui.moc"

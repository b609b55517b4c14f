// Notebooks end to end: every example in resources/notebooks run by `mlstudio nbrun` (outputs
// checked, the file valid for Jupyter's own nbformat validator), bad files refused untouched, a
// failing cell stopping the run, and the JavaScript kernel itself: a persistent context, errors
// with their cell line, interrupt, restart, spec errors naming the field, waits that leave jobs
// running, custom rules that break. The tuning API's own cases: test_notebook_tuning.
#include "app/notebook/js_kernel.h"
#include "app/notebook/tuning_card.h"
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/store/store_reader.h"
#include "models/notebook/notebook_document.h"
#include "tests/support/kernel_cells.h"
#include "tests/support/test_controller.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using studio::models::NotebookDocument;

namespace {

QJsonObject jobOf(const QJsonArray& outputs) {
    return dataOf(outputs, studio::models::kJobMimeType);
}

QJsonObject tableOf(const QJsonArray& outputs) {
    return dataOf(outputs, studio::models::kTableMimeType);
}

} // namespace

class TestNotebooks : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    QTemporaryDir m_files;
    std::unique_ptr<studio::control::Controller> m_controller;
    std::unique_ptr<studio::notebook::JsKernel> m_kernel;
    int m_cells = 0;

    struct Result {
        int code = -1;
        QString err;
    };

    Result nbrun(const QStringList& args, int timeoutMs = 240000) {
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("MLSTUDIO_HOME"), m_home.path());
        env.insert(QStringLiteral("MLSTUDIO_IMDS_ENDPOINT"), QStringLiteral("off"));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(STUDIO_BIN_DIR "/mlstudio"),
                QStringList{QStringLiteral("nbrun")} + args);
        if (!p.waitForStarted())
            return {};
        if (!p.waitForFinished(timeoutMs)) {
            p.kill();
            p.waitForFinished();
        }
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                QString::fromUtf8(p.readAllStandardError())};
    }

    // Jupyter's own validator (python3-nbformat) accepts the file.
    static bool validNbformat(const QString& path, QString* why) {
        QProcess p;
        p.start(QStringLiteral("/usr/bin/python3"),
                {QStringLiteral("-c"),
                 QStringLiteral("import nbformat, sys\n"
                                "nb = nbformat.read(sys.argv[1], as_version=4)\n"
                                "nbformat.validate(nb)\n"),
                 path});
        p.waitForFinished(60000);
        *why = QString::fromUtf8(p.readAllStandardError());
        return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    }

    QString writeNotebook(const QString& name, const QStringList& cells) {
        NotebookDocument doc = NotebookDocument::create();
        doc.cells.clear();
        for (const QString& source : cells) {
            studio::models::NotebookCell c;
            c.id = doc.newCellId();
            c.source = source;
            doc.cells.append(c);
        }
        const QString path = m_files.filePath(name);
        doc.save(path);
        return path;
    }

    CellRun run(const QString& source, int timeoutMs = 120000) {
        return runCell(*m_kernel, QStringLiteral("c%1").arg(++m_cells), source, timeoutMs);
    }

    // The tuning job completed with a best job, and the analytics table has a row with an
    // objective for each of its max_jobs training jobs.
    static void checkTuningExample(const NotebookDocument& doc, const QJsonArray& all) {
        const QJsonObject card = dataOf(all, studio::notebook::kTuningMimeType);
        QCOMPARE(card.value(QStringLiteral("status")).toString(), QStringLiteral("Completed"));
        const int maxJobs = card.value(QStringLiteral("max_jobs")).toInt();
        QCOMPARE(maxJobs, 4);
        QCOMPARE(card.value(QStringLiteral("done")).toInt(), maxJobs);
        const QString best = card.value(QStringLiteral("best_job")).toString();
        QVERIFY(!best.isEmpty());
        QCOMPARE(card.value(QStringLiteral("jobs")).toArray().size(), maxJobs);
        QJsonObject table;
        QString printed;
        for (const auto& cell : doc.cells) {
            if (cell.source.contains(QStringLiteral("analytics()")))
                table = tableOf(cell.outputs);
            if (cell.source.contains(QStringLiteral("best_training_job()")))
                for (const QJsonValue& o : cell.outputs)
                    printed +=
                        studio::models::joinedText(o.toObject().value(QStringLiteral("text")));
        }
        QVERIFY2(printed.contains(QStringLiteral("best training job: ") + best),
                 qPrintable(printed));
        const int objective = tableColumn(table, QStringLiteral("FinalObjectiveValue"));
        const int jobName = tableColumn(table, QStringLiteral("TrainingJobName"));
        QVERIFY(objective >= 0 && jobName >= 0);
        QVERIFY(tableColumn(table, QStringLiteral("lr")) >= 0);
        QVERIFY(tableColumn(table, QStringLiteral("StoppedEarly")) >= 0);
        const QJsonArray rows = table.value(QStringLiteral("rows")).toArray();
        QCOMPARE(rows.size(), maxJobs);
        bool bestListed = false;
        for (const QJsonValue& row : rows) {
            QVERIFY2(row.toArray().at(objective).isDouble(),
                     QJsonDocument(row.toArray()).toJson().constData());
            bestListed = bestListed || row.toArray().at(jobName).toString() == best;
        }
        QVERIFY(bestListed);
    }

    // Every code cell ran once, in order, without an error; their outputs, in order, go to all.
    static void collectCodeOutputs(const NotebookDocument& doc, QJsonArray& all) {
        int expected = 1;
        for (const auto& cell : doc.cells) {
            if (cell.type != studio::models::CellType::Code)
                continue;
            QCOMPARE(cell.executionCount.value_or(-1), expected++);
            for (const QJsonValue& o : cell.outputs) {
                QVERIFY2(o.toObject().value(QStringLiteral("output_type")).toString() !=
                             QStringLiteral("error"),
                         qPrintable(o.toObject().value(QStringLiteral("evalue")).toString()));
                all.append(o);
            }
        }
    }

    // The printed text and the text/plain data of the outputs, joined.
    static QString outputText(const QJsonArray& all) {
        QString text;
        for (const QJsonValue& o : all)
            text += studio::models::joinedText(o.toObject().value(QStringLiteral("text"))) +
                    studio::models::joinedText(o.toObject()
                                                   .value(QStringLiteral("data"))
                                                   .toObject()
                                                   .value(QStringLiteral("text/plain")));
        return text;
    }

    // A rule stopped the job and the notebook printed its findings.
    static void checkDebuggerExample(const QJsonObject& job, const QString& text) {
        QCOMPARE(job.value(QStringLiteral("status")).toString(), QStringLiteral("Stopped"));
        QVERIFY2(job.value(QStringLiteral("failure_reason"))
                     .toString()
                     .startsWith(QStringLiteral("Stopped by rule")),
                 qPrintable(job.value(QStringLiteral("failure_reason")).toString()));
        QVERIFY(text.contains(QStringLiteral("LossAboveTen")));
        QVERIFY(text.contains(QStringLiteral("IssuesFound")));
    }

    // What each completed training example shows beyond its job card.
    static void checkTrainingExample(const QString& name, const NotebookDocument& doc,
                                     const QJsonObject& job, const QString& text) {
        if (name.startsWith(QStringLiteral("data-parallel"))) {
            QVERIFY(text.contains(QStringLiteral("[0,0]<stdout>:")));
            QVERIFY(text.contains(QStringLiteral("ranks: 2")));
            QVERIFY(text.contains(QStringLiteral("final accuracy")));
        } else if (name.startsWith(QStringLiteral("pipeline"))) {
            QVERIFY(text.contains(QStringLiteral("pipeline:busy_fraction")) ||
                    job.value(QStringLiteral("metrics"))
                        .toObject()
                        .contains(QStringLiteral("pipeline:busy_fraction")));
            const QJsonObject stages = tableOf(doc.cells.last().outputs);
            QCOMPARE(stages.value(QStringLiteral("rows")).toArray().size(), 2);
        } else if (name.startsWith(QStringLiteral("spot"))) {
            QVERIFY2(text.contains(QStringLiteral("Managed Spot Training savings: ")),
                     qPrintable(text));
            QVERIFY2(text.contains(QStringLiteral("interruptions: 1, lost steps: 0")),
                     qPrintable(text));
            QVERIFY(text.contains(QStringLiteral("resuming from the checkpoint")));
        } else if (name.startsWith(QStringLiteral("experiments"))) {
            checkExperimentsExample(doc, text);
        }
    }

    // The analytics table lists every trial component, sorted by ascending final loss.
    static void checkExperimentsExample(const NotebookDocument& doc, const QString& text) {
        QJsonObject table;
        for (const auto& cell : doc.cells)
            if (cell.source.contains(QStringLiteral("ExperimentAnalytics")))
                table = tableOf(cell.outputs);
        const int loss = tableColumn(table, QStringLiteral("train:loss - Last"));
        QVERIFY(loss >= 0);
        QVERIFY(tableColumn(table, QStringLiteral("lr")) >= 0);
        const QJsonArray rows = table.value(QStringLiteral("rows")).toArray();
        QCOMPARE(rows.size(), 4); // three trained trials and the tracked preprocessing
        double previous = -1;
        for (const QJsonValue& row : rows) { // ascending; the tracker has no loss (last)
            const QJsonValue v = row.toArray().at(loss);
            if (v.isNull())
                continue;
            QVERIFY(v.toDouble() >= previous);
            previous = v.toDouble();
        }
        QVERIFY(text.contains(QStringLiteral("best learning rate:")));
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_home.isValid() && m_files.isValid());
        m_controller =
            std::make_unique<studio::control::Controller>(testControllerOptions(m_home.path()));
        studio::notebook::KernelOptions ko;
        ko.workingDir = m_files.path();
        ko.updateIntervalSeconds = 0.2;
        m_kernel = std::make_unique<studio::notebook::JsKernel>(*m_controller, ko);
    }
    void cleanupTestCase() {
        m_kernel.reset();
        m_controller.reset(); // stops what still runs and waits for it
    }

    void examples_data() {
        QTest::addColumn<QString>("name");
        const QDir dir(QStringLiteral(STUDIO_SOURCE_DIR "/resources/notebooks"));
        const QStringList files =
            dir.entryList({QStringLiteral("*.ipynb")}, QDir::Files, QDir::Name);
        QVERIFY(files.size() >= 6);
        for (const QString& f : files)
            QTest::newRow(qPrintable(f)) << f;
    }
    void examples() {
        QFETCH(QString, name);
        const QString source = QStringLiteral(STUDIO_SOURCE_DIR "/resources/notebooks/") + name;
        QFile in(source);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray before = in.readAll();
        const QString out = m_files.filePath(QStringLiteral("ran-") + name);
        const Result r = nbrun({source, QStringLiteral("--out"), out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("wrote ")), qPrintable(r.err));
        QFile again(source);
        QVERIFY(again.open(QIODevice::ReadOnly));
        QCOMPARE(again.readAll(), before); // --out leaves the example as it is

        QString why;
        QVERIFY2(validNbformat(out, &why), qPrintable(why));
        const NotebookDocument doc = NotebookDocument::load(out);
        QJsonArray all;
        collectCodeOutputs(doc, all);
        if (QTest::currentTestFailed())
            return;
        if (name.startsWith(QStringLiteral("hyperparameter-tuning"))) {
            checkTuningExample(doc, all);
            return;
        }
        const QJsonObject job = jobOf(all);
        QVERIFY(!job.isEmpty());
        const QString text = outputText(all);
        if (name.startsWith(QStringLiteral("debugger"))) {
            checkDebuggerExample(job, text);
            return;
        }
        QCOMPARE(job.value(QStringLiteral("status")).toString(), QStringLiteral("Completed"));
        checkTrainingExample(name, doc, job, text);
    }

    void nbrunRefusesBadFiles() {
        const QString broken = m_files.filePath(QStringLiteral("broken.ipynb"));
        {
            QFile f(broken);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"nbformat\": 4, \"cells\": [ {\"cell_type\": \"code\", ");
        }
        const Result r = nbrun({broken});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(broken) && r.err.contains(QStringLiteral("not valid JSON")),
                 qPrintable(r.err));
        QFile f(broken);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(),
                 QByteArray("{\"nbformat\": 4, \"cells\": [ {\"cell_type\": \"code\", "));

        NotebookDocument py = NotebookDocument::create();
        py.metadata =
            QJsonObject{{QStringLiteral("language_info"),
                         QJsonObject{{QStringLiteral("name"), QStringLiteral("python")}}}};
        const QString pyPath = m_files.filePath(QStringLiteral("python.ipynb"));
        py.save(pyPath);
        const Result p = nbrun({pyPath});
        QCOMPARE(p.code, 2);
        QVERIFY2(p.err.contains(QStringLiteral("not a JavaScript notebook")), qPrintable(p.err));
    }

    void failingCellStopsTheRun() {
        const QString path = writeNotebook(QStringLiteral("fails.ipynb"),
                                           {QStringLiteral("let a = 1;\nprint('first', a)"),
                                            QStringLiteral("a += 1;\nundefinedFunction(a);"),
                                            QStringLiteral("print('third', a)")});
        const QString out = m_files.filePath(QStringLiteral("fails-out.ipynb"));
        const Result r = nbrun({path, QStringLiteral("--out"), out});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("ReferenceError: undefinedFunction is not defined")),
                 qPrintable(r.err));
        NotebookDocument doc = NotebookDocument::load(out);
        QCOMPARE(doc.cells[1].outputs.last().toObject().value(QStringLiteral("ename")).toString(),
                 QStringLiteral("ReferenceError"));
        QVERIFY(doc.cells[1]
                    .outputs.last()
                    .toObject()
                    .value(QStringLiteral("evalue"))
                    .toString()
                    .contains(QStringLiteral("cell line 2")));
        QVERIFY(!doc.cells[2].executionCount.has_value());

        const Result all =
            nbrun({path, QStringLiteral("--out"), out, QStringLiteral("--allow-errors")});
        QCOMPARE(all.code, 1);
        doc = NotebookDocument::load(out);
        QCOMPARE(doc.cells[2].executionCount.value_or(-1), 3);
        QCOMPARE(studio::models::joinedText(
                     doc.cells[2].outputs[0].toObject().value(QStringLiteral("text"))),
                 QStringLiteral("third 2\n"));
    }

    void kernelKeepsContextAndReportsLines() {
        CellRun a =
            run(QStringLiteral("const base = 40;\nclass Adder { add(x) { return x + base; } }"));
        QVERIFY(a.ok);
        QVERIFY(a.outputs.isEmpty());
        CellRun b = run(QStringLiteral("new Adder().add(2)"));
        QVERIFY(b.ok);
        QCOMPARE(b.count, a.count + 1);
        QCOMPARE(b.outputs[0].toObject().value(QStringLiteral("output_type")).toString(),
                 QStringLiteral("execute_result"));
        QCOMPARE(b.text(), QStringLiteral("42"));
        CellRun again =
            run(QStringLiteral("const base = 1;\nnew Adder().add(1)")); // run twice: fine
        QVERIFY(again.ok);
        QCOMPARE(again.text(), QStringLiteral("2"));
        CellRun err = run(QStringLiteral("print('before');\nconst o = null;\no.field"));
        QVERIFY(!err.ok);
        QVERIFY(err.text().startsWith(QStringLiteral("before\n")));
        const QJsonObject e = err.error();
        QCOMPARE(e.value(QStringLiteral("ename")).toString(), QStringLiteral("TypeError"));
        QVERIFY2(
            e.value(QStringLiteral("evalue")).toString().endsWith(QStringLiteral("(cell line 3)")),
            qPrintable(e.value(QStringLiteral("evalue")).toString()));
        QVERIFY(e.value(QStringLiteral("traceback"))
                    .toArray()
                    .last()
                    .toString()
                    .contains(QStringLiteral("o.field")));
        CellRun table = run(QStringLiteral("new Table(['a', 'b'], [[1, 'x'], [2, 'y']])"));
        QVERIFY(table.ok);
        const QJsonObject data =
            table.outputs[0].toObject().value(QStringLiteral("data")).toObject();
        QVERIFY(studio::models::joinedText(data.value(QStringLiteral("text/html")))
                    .contains(QStringLiteral("<td>y</td>")));
        QCOMPARE(tableOf(table.outputs).value(QStringLiteral("rows")).toArray().size(), 2);
    }

    void specErrorsNameTheField() {
        CellRun r = run(QStringLiteral(
            "new Estimator({entry_point: 'builtin:mlp', hyperparameters: {epochs: 'many'},\n"
            "               instance_cont: 2}).fit()"));
        QVERIFY(!r.ok);
        const QJsonObject e = r.error();
        QCOMPARE(e.value(QStringLiteral("ename")).toString(), QStringLiteral("SpecError"));
        const QString v = e.value(QStringLiteral("evalue")).toString();
        QVERIFY2(v.contains(QStringLiteral("hyperparameters.epochs")), qPrintable(v));
        QVERIFY2(v.contains(QStringLiteral("instance_cont")) &&
                     v.contains(QStringLiteral("instance_count")),
                 qPrintable(v)); // the "did you mean" of the spec parser
        CellRun t = run(QStringLiteral(
            "Tracker.create({display_name: 'x', experiment_name: 'no-such-experiment'})"));
        QVERIFY(!t.ok);
        QVERIFY2(
            t.text().contains(QStringLiteral("experiment \"no-such-experiment\" does not exist")),
            qPrintable(t.text()));
        CellRun rule = run(QStringLiteral("Rule.custom('Bad', 42)"));
        QVERIFY(!rule.ok);
        QVERIFY(rule.text().contains(QStringLiteral("must be a function")));
    }

    void interruptAndRestart() {
        QVERIFY(run(QStringLiteral("var survivor = 7")).ok);
        QTimer::singleShot(500, m_kernel.get(), [this] { m_kernel->interrupt(); });
        CellRun loop = run(QStringLiteral("let n = 0;\nwhile (true) { n++; }"), 30000);
        QVERIFY(!loop.ok);
        QCOMPARE(loop.error().value(QStringLiteral("ename")).toString(),
                 QStringLiteral("Interrupted"));
        CellRun after = run(QStringLiteral("survivor"));
        QVERIFY(after.ok); // the context survives an interrupt
        QCOMPARE(after.text(), QStringLiteral("7"));

        QSignalSpy restarted(m_kernel.get(), &studio::models::NotebookKernel::restarted);
        m_kernel->restart();
        QVERIFY(restarted.wait(10000));
        CellRun gone = run(QStringLiteral("typeof survivor"));
        QVERIFY(gone.ok);
        QCOMPARE(gone.count, 1);
        QCOMPARE(gone.text(), QStringLiteral("undefined"));
    }

    void interruptedWaitLeavesTheJobRunning() {
        CellRun start = run(QStringLiteral(
            "const sleeper = new Estimator({entry_point: ['/bin/sh', '-c', 'echo up; exec sleep "
            "60'],\n"
            "                               disable_profiler: true}).fit({wait: false});\n"
            "sleeper.name"));
        QVERIFY2(start.ok, qPrintable(start.text()));
        QVERIFY(!jobOf(start.outputs).isEmpty());
        const std::string job = start.outputs.last()
                                    .toObject()
                                    .value(QStringLiteral("data"))
                                    .toObject()
                                    .value(QStringLiteral("text/plain"))
                                    .toString()
                                    .toStdString();
        QTimer::singleShot(1500, m_kernel.get(), [this] { m_kernel->interrupt(); });
        CellRun wait = run(QStringLiteral("sleeper.wait()"), 30000);
        QVERIFY(!wait.ok);
        QVERIFY2(wait.text().contains(QStringLiteral("go on running")), qPrintable(wait.text()));
        const auto running = m_controller->runningJobs();
        QVERIFY(std::find(running.begin(), running.end(), job) != running.end());
        CellRun stop = run(QStringLiteral("sleeper.stop();\nsleeper.wait({logs: false})"), 60000);
        QVERIFY2(stop.ok, qPrintable(stop.text()));
        QCOMPARE(stop.text(), QStringLiteral("Stopped"));
    }

    void brokenCustomRuleIsAnError() {
        CellRun r =
            run(QStringLiteral(
                    "const broken = Rule.custom('Broken', (e) => { throw new Error('boom at ' + "
                    "e.kind); });\n"
                    "const ruled = new Estimator({entry_point: 'builtin:mlp', rules: [broken],\n"
                    "  hyperparameters: {dataset: 'synthetic', 'max-steps': 20, 'log-interval': "
                    "5}}).fit({logs: false});\n"
                    "ruled.rules().records().find(r => r.rule === 'Broken')"),
                120000);
        QVERIFY2(r.ok, qPrintable(r.text()));
        QVERIFY2(r.text().contains(QStringLiteral("\"status\": \"Error\"")), qPrintable(r.text()));
        QVERIFY2(r.text().contains(QStringLiteral("threw Error: boom at ")), qPrintable(r.text()));
    }
};

QTEST_GUILESS_MAIN(TestNotebooks)
#include "test_notebooks.moc"

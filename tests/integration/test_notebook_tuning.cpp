// The notebook API of hyperparameter tuning jobs on a real kernel, controller and tuner: the
// parameter classes and HyperparameterTuner building the tuning document (with and without
// `new`, the SDK's positional form and option names), the parser's errors naming the field as
// the notebook wrote it, a small tuning job run to its end with its live card, then attached
// from a fresh context (describe, best job, analytics), stop, and a kernel without a tuner.
#include "app/notebook/js_kernel.h"
#include "app/notebook/tuning_card.h"
#include "engine/control/controller.h"
#include "engine/control/tuner.h"
#include "tests/support/kernel_cells.h"
#include "tests/support/test_controller.h"

#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

namespace {

// A cell's last value when it is JSON text (a cell ending in JSON.stringify(...)).
QJsonObject resultObject(const CellRun& r) {
    for (const QJsonValue& v : r.outputs) {
        const QJsonObject o = v.toObject();
        if (o.value(QStringLiteral("output_type")).toString() == QStringLiteral("execute_result"))
            return QJsonDocument::fromJson(
                       studio::models::joinedText(o.value(QStringLiteral("data"))
                                                       .toObject()
                                                       .value(QStringLiteral("text/plain")))
                           .toUtf8())
                .object();
    }
    return {};
}

// An estimator whose training jobs take a second or two: the MLP on synthetic data.
const char* kEstimator =
    "const est = new Estimator({entry_point: 'builtin:mlp', disable_profiler: true,\n"
    "  hyperparameters: {dataset: 'synthetic', 'max-steps': 6, 'log-interval': 2, threads: 1}});\n";

} // namespace

class TestNotebookTuning : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    std::unique_ptr<studio::control::Controller> m_controller;
    std::unique_ptr<studio::control::Tuner> m_tuner;
    std::unique_ptr<studio::notebook::JsKernel> m_kernel;
    int m_cells = 0;
    QString m_fitted; // the tuning job fitShowsALiveCard ran

    CellRun run(const QString& source, int timeoutMs = 60000) {
        return runCell(*m_kernel, QStringLiteral("t%1").arg(++m_cells), source, timeoutMs);
    }
    // {name, field, message} of the error a cell's code throws, caught in the cell.
    QJsonObject caught(const QString& code) {
        const CellRun r = run(QStringLiteral("let caught = null;\ntry {\n") + code +
                              QStringLiteral("\n} catch (e) { caught = {name: e.name, field: "
                                             "e.field, message: e.message}; }\n"
                                             "JSON.stringify(caught)"));
        return resultObject(r);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_home.isValid());
        m_controller =
            std::make_unique<studio::control::Controller>(testControllerOptions(m_home.path()));
        m_tuner = std::make_unique<studio::control::Tuner>(*m_controller);
        studio::notebook::KernelOptions ko;
        ko.workingDir = m_home.path();
        ko.updateIntervalSeconds = 0.2;
        m_kernel = std::make_unique<studio::notebook::JsKernel>(*m_controller, *m_tuner, ko);
    }
    // Kernel first (its cells may wait on the tuner), then the tuner, then the controller,
    // which stops every training job still running and waits for its processes.
    void cleanupTestCase() {
        m_kernel.reset();
        m_tuner.reset();
        m_controller.reset();
    }

    void rangesBuildTheDocument() {
        const CellRun r = run(
            QString::fromLatin1(kEstimator) +
            QStringLiteral(
                "const t = new HyperparameterTuner(est, 'eval:accuracy', {\n"
                "    lr: ContinuousParameter(0.001, 0.1, 'Logarithmic'),\n"
                "    hidden: new IntegerParameter(16, 64),\n"
                "    optimizer: CategoricalParameter(['sgd', 'adam'])},\n"
                "  [{Name: 'custom', Regex: 'x=([0-9.]+)'}],\n"
                "  {strategy: 'Random', max_jobs: 6, max_parallel_jobs: 3, objective_type: "
                "'Maximize',\n"
                "   early_stopping_type: 'Auto', random_seed: 5, base_tuning_job_name: 'ranges',\n"
                "   completion_criteria_config: TuningJobCompletionCriteriaConfig({\n"
                "     max_number_of_training_jobs_not_improving: 4, target_objective_metric_value: "
                "0.9}),\n"
                "   warm_start_config: WarmStartConfig(WarmStartTypes.TRANSFER_LEARNING, "
                "['parent'])});\n"
                "JSON.stringify(t.document().document)"));
        QVERIFY2(r.ok, qPrintable(r.text()));
        const QJsonObject doc = resultObject(r);
        const QJsonObject tuning = doc.value(QStringLiteral("tuning")).toObject();
        const QJsonObject ranges = tuning.value(QStringLiteral("hyperparameter_ranges")).toObject();
        QCOMPARE(
            QJsonDocument(ranges.value(QStringLiteral("lr")).toObject())
                .toJson(QJsonDocument::Compact),
            QByteArray(
                R"({"max_value":0.1,"min_value":0.001,"scaling_type":"Logarithmic","type":"Continuous"})"));
        QCOMPARE(ranges.value(QStringLiteral("hidden"))
                     .toObject()
                     .value(QStringLiteral("type"))
                     .toString(),
                 QStringLiteral("Integer"));
        QCOMPARE(ranges.value(QStringLiteral("hidden"))
                     .toObject()
                     .value(QStringLiteral("scaling_type"))
                     .toString(),
                 QStringLiteral("Auto"));
        QCOMPARE(ranges.value(QStringLiteral("optimizer"))
                     .toObject()
                     .value(QStringLiteral("values"))
                     .toArray()
                     .size(),
                 2);
        QCOMPARE(tuning.value(QStringLiteral("objective_metric_name")).toString(),
                 QStringLiteral("eval:accuracy"));
        QCOMPARE(tuning.value(QStringLiteral("name")).toString(), QStringLiteral("ranges"));
        QCOMPARE(tuning.value(QStringLiteral("max_parallel_jobs")).toInt(), 3);
        QCOMPARE(tuning.value(QStringLiteral("completion_criteria"))
                     .toObject()
                     .value(QStringLiteral("max_number_training_jobs_not_improving"))
                     .toInt(),
                 4);
        QCOMPARE(tuning.value(QStringLiteral("warm_start_config"))
                     .toObject()
                     .value(QStringLiteral("type"))
                     .toString(),
                 QStringLiteral("TransferLearning"));
        const QJsonObject training = doc.value(QStringLiteral("training")).toObject();
        QCOMPARE(training.value(QStringLiteral("entry_point")).toString(),
                 QStringLiteral("builtin:mlp"));
        QCOMPARE(training.value(QStringLiteral("metric_definitions")).toArray().size(), 1);

        const CellRun sdk = run(QStringLiteral(
            "JSON.stringify({c: ContinuousParameter(1, 2).as_tuning_range('lr'),\n"
            "                k: CategoricalParameter([1, 'a']).as_tuning_range('x')})"));
        QCOMPARE(
            QJsonDocument(resultObject(sdk)).toJson(QJsonDocument::Compact),
            QByteArray(R"({"c":{"MaxValue":"2","MinValue":"1","Name":"lr","ScalingType":"Auto"},)"
                       R"("k":{"Name":"x","Values":["1","a"]}})"));
    }

    void errorsNameTheFieldAsWritten() {
        const QString est = QString::fromLatin1(kEstimator);
        QJsonObject e = caught(
            est +
            QStringLiteral("new HyperparameterTuner(est, {objective_metric_name: 'eval:accuracy',\n"
                           "  hyperparameter_ranges: {lr: ContinuousParameter(0.1, 0.01)}, "
                           "max_jobs: 2}).fit()"));
        QCOMPARE(e.value(QStringLiteral("name")).toString(), QStringLiteral("SpecError"));
        QCOMPARE(e.value(QStringLiteral("field")).toString(),
                 QStringLiteral("hyperparameter_ranges.lr.max_value"));
        QVERIFY2(e.value(QStringLiteral("message"))
                     .toString()
                     .contains(
                         QStringLiteral("\n  hyperparameter_ranges.lr.max_value: must be greater")),
                 qPrintable(e.value(QStringLiteral("message")).toString()));
        QVERIFY(!e.value(QStringLiteral("message")).toString().contains(QStringLiteral("tuning.")));

        e = caught(est +
                   QStringLiteral(
                       "new HyperparameterTuner(est, {objective_metric_name: 'eval:acuracy',\n"
                       "  hyperparameter_ranges: {lr: ContinuousParameter(0.01, 0.1)}}).fit()"));
        QCOMPARE(e.value(QStringLiteral("field")).toString(),
                 QStringLiteral("objective_metric_name"));
        QVERIFY(e.value(QStringLiteral("message"))
                    .toString()
                    .contains(QStringLiteral("eval:accuracy")));

        e = caught(est +
                   QStringLiteral(
                       "new HyperparameterTuner(est, {objective_metric_name: 'eval:accuracy',\n"
                       "  base_tuning_job_name: 'bad name!', completion_criteria_config: \n"
                       "  {max_number_of_training_jobs_not_improving: 1},\n"
                       "  hyperparameter_ranges: {lr: ContinuousParameter(0.01, 0.1)}}).fit()"));
        QCOMPARE(e.value(QStringLiteral("field")).toString(),
                 QStringLiteral("base_tuning_job_name"));
        QVERIFY2(e.value(QStringLiteral("message"))
                     .toString()
                     .contains(QStringLiteral(
                         "completion_criteria_config.max_number_of_training_jobs_not_improving:")),
                 qPrintable(e.value(QStringLiteral("message")).toString()));

        e = caught(QStringLiteral(
            "new HyperparameterTuner(new Estimator({entry_point: 'builtin:mlp',\n"
            "  hyperparameters: {epochs: 'many'}}), {objective_metric_name: 'eval:accuracy',\n"
            "  hyperparameter_ranges: {lr: ContinuousParameter(0.01, 0.1)}}).fit()"));
        QCOMPARE(e.value(QStringLiteral("field")).toString(),
                 QStringLiteral("hyperparameters.epochs"));

        e = caught(
            est +
            QStringLiteral("new HyperparameterTuner(est, {objective_metric_name: 'eval:accuracy',\n"
                           "  hyperparameter_ranges: {lr: 0.1}}).fit()"));
        QCOMPARE(e.value(QStringLiteral("field")).toString(),
                 QStringLiteral("hyperparameter_ranges.lr"));

        e = caught(QStringLiteral("HyperparameterTuner.attach('no-such-tuning-job')"));
        QCOMPARE(e.value(QStringLiteral("field")).toString(), QStringLiteral("tuning"));
        QVERIFY(e.value(QStringLiteral("message"))
                    .toString()
                    .contains(QStringLiteral("no-such-tuning-job")));
    }

    void fitShowsALiveCard() {
        QSignalSpy updates(m_kernel.get(), &studio::models::NotebookKernel::outputUpdated);
        const CellRun fit = run(
            QString::fromLatin1(kEstimator) +
                QStringLiteral(
                    "const tuner = new HyperparameterTuner(est, {objective_metric_name: "
                    "'train:loss',\n"
                    "  objective_type: 'Minimize', strategy: 'Random', max_jobs: 3, "
                    "max_parallel_jobs: 2,\n"
                    "  hyperparameter_ranges: {lr: ContinuousParameter(0.01, 0.2, 'Logarithmic'),\n"
                    "                          hidden: IntegerParameter(8, 32)},\n"
                    "  base_tuning_job_name: 'nb-tuning', random_seed: 3});\n"
                    "tuner.fit();\n"
                    "tuner.name"),
            240000);
        QVERIFY2(fit.ok, qPrintable(fit.text()));
        QVERIFY2(fit.text().contains(QStringLiteral("Completed - 3/3 jobs done")),
                 qPrintable(fit.text()));
        // The card: shown at once, updated in place to the end (the kernel sends updates as
        // outputUpdated; the cell's own output is the first state).
        const QJsonObject card = dataOf(fit.outputs, studio::notebook::kTuningMimeType);
        QVERIFY(!card.isEmpty());
        const QString name = card.value(QStringLiteral("tuning")).toString();
        QVERIFY(name.startsWith(QStringLiteral("nb-tuning-")));
        QCOMPARE(card.value(QStringLiteral("max_jobs")).toInt(), 3);

        // Updated in place as its training jobs end, to the final state.
        auto last = [&] {
            QJsonObject card;
            for (const auto& args : updates)
                if (args.at(1).toString() == QStringLiteral("tuning:") + name)
                    card = dataOf(QJsonArray{args.at(2).toJsonObject()},
                                  studio::notebook::kTuningMimeType);
            return card;
        };
        QTRY_COMPARE_WITH_TIMEOUT(last().value(QStringLiteral("status")).toString(),
                                  QStringLiteral("Completed"), 10000);
        QCOMPARE(last().value(QStringLiteral("done")).toInt(), 3);
        QVERIFY(!last().value(QStringLiteral("best_job")).toString().isEmpty());
        m_fitted = name;
    }

    // The tuning job fitShowsALiveCard ran, from a fresh context.
    void attachFromAFreshContext() {
        QVERIFY(!m_fitted.isEmpty());
        const QString name = m_fitted;
        QSignalSpy restarted(m_kernel.get(), &studio::models::NotebookKernel::restarted);
        m_kernel->restart();
        QVERIFY(restarted.wait(10000));
        const CellRun attached = run(QStringLiteral(
            "const t = HyperparameterTuner.attach('nb-tuning');\n"
            "const d = t.describe();\n"
            "JSON.stringify({name: t.name, status: d.HyperParameterTuningJobStatus,\n"
            "  strategy: d.Strategy, counters: d.TrainingJobStatusCounters,\n"
            "  objectives: d.ObjectiveStatusCounters, best: d.BestTrainingJob,\n"
            "  best_job: t.best_training_job(), rows: t.analytics().table().records(),\n"
            "  estimator: t.estimator.options.entry_point,\n"
            "  best_lr: t.best_estimator().options.hyperparameters.lr})"));
        QVERIFY2(attached.ok, qPrintable(attached.text()));
        const QJsonObject a = resultObject(attached);
        QCOMPARE(a.value(QStringLiteral("name")).toString(), name);
        QCOMPARE(a.value(QStringLiteral("status")).toString(), QStringLiteral("Completed"));
        QCOMPARE(a.value(QStringLiteral("strategy")).toString(), QStringLiteral("Random"));
        QCOMPARE(a.value(QStringLiteral("estimator")).toString(), QStringLiteral("builtin:mlp"));
        QCOMPARE(a.value(QStringLiteral("counters"))
                     .toObject()
                     .value(QStringLiteral("Completed"))
                     .toInt(),
                 3);
        QCOMPARE(a.value(QStringLiteral("objectives"))
                     .toObject()
                     .value(QStringLiteral("Succeeded"))
                     .toInt(),
                 3);
        const QJsonObject best = a.value(QStringLiteral("best")).toObject();
        QCOMPARE(best.value(QStringLiteral("TrainingJobName")).toString(),
                 a.value(QStringLiteral("best_job")).toString());
        QCOMPARE(best.value(QStringLiteral("FinalHyperParameterTuningJobObjectiveMetric"))
                     .toObject()
                     .value(QStringLiteral("MetricName"))
                     .toString(),
                 QStringLiteral("train:loss"));
        QVERIFY(best.value(QStringLiteral("TunedHyperParameters"))
                    .toObject()
                    .contains(QStringLiteral("hidden")));
        QCOMPARE(a.value(QStringLiteral("best_lr")),
                 best.value(QStringLiteral("TunedHyperParameters"))
                     .toObject()
                     .value(QStringLiteral("lr")));
        const QJsonArray rows = a.value(QStringLiteral("rows")).toArray();
        QCOMPARE(rows.size(), 3);
        double lowest = 1e300;
        for (const QJsonValue& row : rows) {
            const QJsonObject o = row.toObject();
            QVERIFY(o.value(QStringLiteral("FinalObjectiveValue")).isDouble());
            QVERIFY(o.value(QStringLiteral("TrainingElapsedTimeSeconds")).isDouble());
            QCOMPARE(o.value(QStringLiteral("TrainingJobStatus")).toString(),
                     QStringLiteral("Completed"));
            QCOMPARE(o.value(QStringLiteral("StoppedEarly")).toString(), QStringLiteral("false"));
            const double lr = o.value(QStringLiteral("lr")).toDouble();
            QVERIFY(lr >= 0.01 && lr <= 0.2);
            lowest = std::min(lowest, o.value(QStringLiteral("FinalObjectiveValue")).toDouble());
        }
        QCOMPARE(best.value(QStringLiteral("FinalHyperParameterTuningJobObjectiveMetric"))
                     .toObject()
                     .value(QStringLiteral("Value"))
                     .toDouble(),
                 lowest); // Minimize

        const CellRun shown = run(QStringLiteral("t"));
        const QJsonObject final = dataOf(shown.outputs, studio::notebook::kTuningMimeType);
        QCOMPARE(final.value(QStringLiteral("status")).toString(), QStringLiteral("Completed"));
        QCOMPARE(final.value(QStringLiteral("done")).toInt(), 3);
        QCOMPARE(final.value(QStringLiteral("jobs")).toArray().size(), 3);
        QCOMPARE(final.value(QStringLiteral("best_job")).toString(),
                 a.value(QStringLiteral("best_job")).toString());
    }

    void stopEndsTheTuningJob() {
        const CellRun start = run(
            QStringLiteral(
                "const long = new Estimator({entry_point: 'builtin:mlp', disable_profiler: true,\n"
                "  hyperparameters: {dataset: 'synthetic', 'max-steps': 1000000, threads: 1}});\n"
                "const stopped = new HyperparameterTuner(long, {objective_metric_name: "
                "'train:loss',\n"
                "  objective_type: 'Minimize', strategy: 'Random', max_jobs: 4, max_parallel_jobs: "
                "2,\n"
                "  hyperparameter_ranges: {lr: ContinuousParameter(0.01, 0.1)}});\n"
                "stopped.fit({wait: false});\n"
                "sleep(2);\n"
                "stopped.stop();\n"
                "stopped.wait({logs: false})"),
            120000);
        QVERIFY2(start.ok, qPrintable(start.text()));
        QVERIFY2(start.text().contains(QStringLiteral("Stopped")), qPrintable(start.text()));
        QVERIFY(m_tuner->runningTuningJobs().empty());
        QTRY_VERIFY_WITH_TIMEOUT(m_controller->runningJobs().empty(), 30000);
    }

    void kernelWithoutTunerCannotStartOne() {
        studio::notebook::KernelOptions ko;
        ko.workingDir = m_home.path();
        studio::notebook::JsKernel plain(*m_controller, ko);
        const CellRun r = runCell(
            plain, QStringLiteral("p1"),
            QString::fromLatin1(kEstimator) +
                QStringLiteral(
                    "new HyperparameterTuner(est, {objective_metric_name: 'train:loss',\n"
                    "  hyperparameter_ranges: {lr: ContinuousParameter(0.01, 0.1)}}).fit()"),
            30000);
        QVERIFY(!r.ok);
        QVERIFY2(r.text().contains(QStringLiteral("has no tuner")), qPrintable(r.text()));
    }
};

QTEST_GUILESS_MAIN(TestNotebookTuning)
#include "test_notebook_tuning.moc"

// The launch dialog through its widgets: a built-in job filled in field by field, problems shown
// next to the fields they name, every example spec loaded and written back unchanged, a saved
// spec the CLI accepts, "Run on" a cluster checked against its hosts, and the produced spec run
// for real by the engine's Controller. The form's models are tested in test_launch_models.
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "models/launch/hyperparameter_model.h"
#include "tests/support/json_compare.h"
#include "tests/support/screenshot.h"
#include "widgets/common/theme.h"
#include "widgets/launch/launch_dialog.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace studio;
using studio::widgets::LaunchDialog;
using Json = nlohmann::json;

namespace {

const QString kExamples = QStringLiteral(STUDIO_SOURCE_DIR "/resources/examples");

QString readFile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

Json parsed(const QString& text) {
    return Json::parse(text.toStdString());
}

template <typename T>
T* field(const QWidget& dialog, const char* name) {
    T* w = dialog.findChild<T*>(QString::fromLatin1(name));
    if (!w)
        qFatal("no %s named %s", T::staticMetaObject.className(), name);
    return w;
}

// Types text into a table cell through the view's own editor, as a user does.
void editCell(QTableView* view, const QModelIndex& index, const QString& text) {
    view->setCurrentIndex(index);
    view->edit(index);
    auto* editor = qobject_cast<QLineEdit*>(view->indexWidget(index));
    QVERIFY2(editor, "the cell opened no editor");
    editor->selectAll();
    QTest::keyClicks(editor, text);
    QTest::keyClick(editor, Qt::Key_Return);
    // The delegate commits and closes the editor in a queued call.
    QTRY_VERIFY(!view->indexWidget(index));
    QCOMPARE(index.data(Qt::EditRole).toString(), text);
}

int rowOf(const QAbstractItemModel* model, const QString& text, int column = 0) {
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->index(r, column).data(Qt::EditRole).toString() == text)
            return r;
    return -1;
}

void selectData(QComboBox* combo, const QString& data) {
    const int i = combo->findData(data);
    QVERIFY2(i >= 0, qPrintable(data));
    combo->setCurrentIndex(i);
}

void typeInto(QLineEdit* edit, const QString& text) {
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Delete);
    QTest::keyClicks(edit, text);
}

} // namespace

class TestLaunchDialog : public QObject {
    Q_OBJECT

    void settle(LaunchDialog& d) { QTRY_VERIFY_WITH_TIMEOUT(!d.validationPending(), 5000); }

    // A short built-in fmnist-cnn data-parallel run, entered field by field.
    void fillShortRun(LaunchDialog& d, int maxSteps) {
        typeInto(field<QLineEdit>(d, "jobName"), QStringLiteral("launch-dialog"));
        typeInto(field<QLineEdit>(d, "experimentName"), QStringLiteral("launch-tests"));
        typeInto(field<QLineEdit>(d, "trialName"), QStringLiteral("fmnist-dp"));
        QTest::mouseClick(field<QRadioButton>(d, "builtinEntry"), Qt::LeftButton);
        selectData(field<QComboBox>(d, "builtinModel"), QStringLiteral("fmnist-cnn"));
        typeInto(field<QLineEdit>(d, "trainInput"),
                 QStringLiteral("/usr/share/datasets/fashion-mnist"));

        d.showSection(2);
        auto* table = field<QTableView>(d, "hyperparameterTable");
        auto* hp = qobject_cast<models::HyperparameterModel*>(table->model());
        QVERIFY(hp);
        for (const auto& [name, value] : {std::pair{QStringLiteral("max-steps"), maxSteps},
                                          std::pair{QStringLiteral("eval-samples"), 200},
                                          std::pair{QStringLiteral("batch-size"), 64}}) {
            const QModelIndex idx = hp->setParameter(name, nullptr);
            editCell(table, idx, QString::number(value));
        }

        d.showSection(3);
        field<QSpinBox>(d, "instanceCount")->setValue(1);
        field<QSpinBox>(d, "processesPerHost")->setValue(2);
        selectData(field<QComboBox>(d, "distributionStrategy"), QStringLiteral("data"));
        selectData(field<QComboBox>(d, "dataParallelBackend"), QStringLiteral("pytorchddp"));
    }

private Q_SLOTS:
    void initTestCase() {
        widgets::applyTheme(*qobject_cast<QApplication*>(QCoreApplication::instance()),
                            widgets::ThemeChoice::Light);
    }

    void fillsAValidBuiltinJob() {
        LaunchDialog d;
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        fillShortRun(d, 20);
        settle(d);
        QVERIFY2(d.problemCount() == 0, qPrintable(d.problems().join(QLatin1Char('\n'))));
        QVERIFY(field<QPushButton>(d, "runButton")->isEnabled());

        const Json spec = parsed(d.spec());
        JSON_COMPARE(spec["name"], "launch-dialog");
        JSON_COMPARE(spec["entry_point"], "builtin:fmnist-cnn");
        JSON_COMPARE(spec["hyperparameters"]["max-steps"], 20);
        QVERIFY(spec["hyperparameters"]["max-steps"].is_number_integer());
        JSON_COMPARE(spec["hyperparameters"]["lr"], 0.01);
        JSON_COMPARE(spec["distribution"], Json::parse(R"({"pytorchddp": {"enabled": true},
                                 "mpi": {"enabled": true, "processes_per_host": 2}})"));
        JSON_COMPARE(spec["inputs"]["train"], "/usr/share/datasets/fashion-mnist");
        JSON_COMPARE(
            spec["experiment_config"],
            Json::parse(R"({"ExperimentName": "launch-tests", "TrialName": "fmnist-dp"})"));
        QVERIFY(!spec.contains("instance_count")); // 1 is the default: not written
        const auto result = d.parsedSpec();
        QVERIFY(result.ok());
        QCOMPARE(result.spec->worldSize(), 2);
        QCOMPARE(result.spec->distribution.strategy, spec::Strategy::PyTorchDdp);
        // The JSON page shows the same document.
        JSON_COMPARE(parsed(field<QPlainTextEdit>(d, "jsonView")->toPlainText()), spec);

        const QStringList slugs = {
            QStringLiteral("job"),     QStringLiteral("entry"), QStringLiteral("hyperparameters"),
            QStringLiteral("compute"), QStringLiteral("spot"),  QStringLiteral("debugger"),
            QStringLiteral("rules"),   QStringLiteral("tuning")};
        QCOMPARE(d.sectionTitles().size(), slugs.size());
        for (int i = 0; i < slugs.size(); ++i) {
            d.showSection(i);
            shoot(&d, QStringLiteral("launch-") + slugs[i] + QStringLiteral(".png"));
        }
        d.showJsonPage();
        shoot(&d, "launch-json.png");
    }

    void showsProblemsNextToTheirFields() {
        LaunchDialog d;
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        settle(d);
        QCOMPARE(d.problemCount(), 0);
        auto* run = field<QPushButton>(d, "runButton");

        // A rule parameter that must be an integer.
        d.showSection(6);
        selectData(field<QComboBox>(d, "ruleCatalogCombo"), QStringLiteral("LossNotDecreasing"));
        QTest::mouseClick(field<QPushButton>(d, "addRule"), Qt::LeftButton);
        auto* params = field<QTableView>(d, "ruleParameterTable");
        const int numSteps = rowOf(params->model(), QStringLiteral("num_steps"));
        QVERIFY(numSteps >= 0);
        editCell(params, params->model()->index(numSteps, 1), QStringLiteral("abc"));
        settle(d);
        QCOMPARE(d.problemCount(), 1);
        QVERIFY(d.problems().front().startsWith(QStringLiteral("rules[0].parameters.num_steps")));
        auto* message = field<QLabel>(d, "ruleParameterTableMessage");
        QVERIFY(message->isVisible());
        QVERIFY2(message->text().contains(QStringLiteral("num_steps")) &&
                     message->text().contains(QStringLiteral("integer")),
                 qPrintable(message->text()));
        QVERIFY(!run->isEnabled());
        QVERIFY(field<QLabel>(d, "problemSummary")->text().contains(QStringLiteral("1 problem")));
        QCOMPARE(field<QListWidget>(d, "sectionList")->item(6)->data(Qt::UserRole + 1).toInt(), 1);
        QCOMPARE(params->model()->index(numSteps, 1).data(Qt::ToolTipRole).toString().isEmpty(),
                 false);
        shoot(&d, "launch-rules-problem.png");

        editCell(params, params->model()->index(numSteps, 1), QStringLiteral("20"));
        settle(d);
        QVERIFY2(d.problemCount() == 0, qPrintable(d.problems().join(QLatin1Char('\n'))));
        QVERIFY(message->isHidden());
        QVERIFY(run->isEnabled());
        JSON_COMPARE(
            parsed(d.spec())["rules"],
            Json::parse(R"([{"name": "LossNotDecreasing", "parameters": {"num_steps": "20"}}])"));

        // A global batch that 3 ranks cannot share: named on the hyperparameter table.
        d.showSection(3);
        field<QSpinBox>(d, "processesPerHost")->setValue(3);
        selectData(field<QComboBox>(d, "distributionStrategy"), QStringLiteral("data"));
        settle(d);
        QCOMPARE(d.problemCount(), 1);
        auto* hpMessage = field<QLabel>(d, "hyperparameterTableMessage");
        QVERIFY2(!hpMessage->isHidden() &&
                     hpMessage->text().startsWith(QStringLiteral("batch-size:")),
                 qPrintable(hpMessage->text()));
        QVERIFY(!run->isEnabled());
        field<QSpinBox>(d, "processesPerHost")->setValue(2);

        // A missing input folder, under the input field.
        typeInto(field<QLineEdit>(d, "trainInput"), QStringLiteral("/no/such/data"));
        settle(d);
        auto* inputMessage = field<QLabel>(d, "trainInputMessage");
        QVERIFY2(!inputMessage->isHidden() &&
                     inputMessage->text().contains(QStringLiteral("does not exist")),
                 qPrintable(d.problems().join(QLatin1Char('\n'))));
        d.showSection(1);
        shoot(&d, "launch-entry-problem.png");

        // Pipeline partitions the world size cannot hold: under the partitions field.
        typeInto(field<QLineEdit>(d, "trainInput"),
                 QStringLiteral("/usr/share/datasets/fashion-mnist"));
        selectData(field<QComboBox>(d, "distributionStrategy"), QStringLiteral("pipeline"));
        field<QSpinBox>(d, "partitions")->setValue(3);
        settle(d);
        QVERIFY2(!field<QLabel>(d, "partitionsMessage")->isHidden(),
                 qPrintable(d.problems().join(QLatin1Char('\n'))));
        QVERIFY(!run->isEnabled());
        d.showSection(3);
        shoot(&d, "launch-compute-problem.png");
    }

    void showsProblemsOfRowsAndUnknownKeys() {
        LaunchDialog d;
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        auto* run = field<QPushButton>(d, "runButton");

        // Problems inside table rows name the row.
        QVERIFY(d.setSpec(QStringLiteral(R"({"entry_point": "builtin:fmnist-cnn",
            "debugger_hook_config": {"collection_configs": [
                {"name": "gradients", "parameters": {"reductions": "l3_norm"}}]},
            "rules": [{"name": "DeadRelu"}, {"name": "DeadRelu"}]})")));
        settle(d);
        const QString collections = field<QLabel>(d, "collectionTableMessage")->text();
        QVERIFY2(
            collections.startsWith(QStringLiteral("gradients › parameters.reductions: unknown")),
            qPrintable(collections));
        const QString rules = field<QLabel>(d, "ruleTableMessage")->text();
        QVERIFY2(rules.startsWith(QStringLiteral("DeadRelu › name: ")), qPrintable(rules));

        // Keys the form has no field for: listed in the summary.
        QVERIFY(d.setSpec(QStringLiteral(R"({"entry_point": "builtin:mlp", "instance_cont": 2})")));
        settle(d);
        auto* details = field<QLabel>(d, "problemDetails");
        QVERIFY2(!details->isHidden() && details->text().contains(QStringLiteral("instance_cont")),
                 qPrintable(details->text()));
        QVERIFY(!run->isEnabled());
        // Run with problems shows them instead of accepting.
        d.run();
        QCOMPARE(d.result(), int(QDialog::Rejected));
        QVERIFY(d.isVisible());
    }

    void examplesRoundTrip_data() {
        QTest::addColumn<QString>("file");
        for (const auto& f : QDir(kExamples).entryList({QStringLiteral("*.json")}, QDir::Files))
            QTest::newRow(qPrintable(f)) << f;
    }

    void examplesRoundTrip() {
        QFETCH(QString, file);
        const QString text = readFile(kExamples + QLatin1Char('/') + file);
        LaunchDialog d;
        QVERIFY(d.setSpec(text, kExamples));
        JSON_COMPARE(parsed(d.spec()), parsed(text));
        settle(d);
        QVERIFY2(d.problemCount() == 0, qPrintable(d.problems().join(QLatin1Char('\n'))));
        // Visiting every field changes nothing either.
        for (int i = 0; i <= d.sectionTitles().size(); ++i)
            d.showSection(i);
        JSON_COMPARE(parsed(d.spec()), parsed(text));

        // One edit changes that one value and nothing else.
        auto* ppn = field<QSpinBox>(d, "processesPerHost");
        const int before = ppn->value();
        ppn->setValue(before + 2);
        Json expected = parsed(text);
        // A tuning document's form edits its training spec.
        Json& job = expected.contains("training") ? expected["training"] : expected;
        job["distribution"]["mpi"]["enabled"] = true;
        job["distribution"]["mpi"]["processes_per_host"] = before + 2;
        JSON_COMPARE(parsed(d.spec()), expected);
        ppn->setValue(before);
        JSON_COMPARE(parsed(d.spec()), parsed(text));
    }

    void cloneAndEdit() {
        // The debugger example, as "Clone and edit" shows it.
        LaunchDialog d;
        d.setWindowTitle(QStringLiteral("Clone and edit"));
        QVERIFY(
            d.setSpec(readFile(kExamples + QStringLiteral("/fmnist-debugger.json")), kExamples));
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        settle(d);
        QCOMPARE(d.problemCount(), 0);
        QCOMPARE(field<QTableView>(d, "collectionTable")->model()->rowCount(), 4);
        QCOMPARE(field<QTableView>(d, "ruleTable")->model()->rowCount(), 6);
        QCOMPARE(field<QComboBox>(d, "systemMonitorInterval")->currentData().toInt(), 200);
        QVERIFY(field<QCheckBox>(d, "frameworkProfiling")->isChecked());
        d.showSection(5);
        shoot(&d, "launch-clone-debugger.png");
        d.showSection(6);
        shoot(&d, "launch-clone-rules.png");
        QVERIFY(d.setSpec(readFile(kExamples + QStringLiteral("/lm-hybrid-2x2.json")), kExamples));
        settle(d);
        QCOMPARE(field<QComboBox>(d, "distributionStrategy")->currentData().toString(),
                 QStringLiteral("hybrid"));
        d.showSection(3);
        shoot(&d, "launch-clone-compute.png");
        QVERIFY(
            d.setSpec(readFile(kExamples + QStringLiteral("/pytorch-ddp-script.json")), kExamples));
        settle(d);
        QVERIFY(field<QRadioButton>(d, "scriptEntry")->isChecked());
        d.showSection(1);
        shoot(&d, "launch-clone-entry.png");
    }

    void keepsWhatTheFormDoesNotShow() {
        const QString text = QStringLiteral(R"({
          "base_job_name": "kept",
          "entry_point": ["/usr/bin/python3", "scripts/ddp_train.py", "--flag"],
          "hyperparameters": {"lr": "0.1", "epochs": 1},
          "environment": {"MY_VAR": "1"},
          "tags": [{"Key": "owner", "Value": "ana"}],
          "local_prices": {"on_demand_per_hour": 1.5},
          "max_run": "3600",
          "debugger_hook_config": {"hook_parameters": {"save_interval": "7"},
                                   "collection_configs": [{"name": "losses", "parameters": {"save_steps": "1,2"}}]},
          "profiler_config": {"framework_profile_params": {"start_unix_time": 1, "duration": 5}},
          "rules": [{"name": "ProfilerReport", "parameters": {"CPUBottleneck_threshold": 70}}],
          "distribution": {"smdistributed": {"modelparallel": {"enabled": true, "parameters": {
              "pipeline_parallel_degree": 2, "active_microbatches": 3}}},
                           "mpi": {"enabled": true, "processes_per_host": 2, "custom_mpi_options": "-x A"}},
          "future_key": {"anything": [1, 2, 3]}
        })");
        LaunchDialog d;
        QVERIFY(d.setSpec(text, kExamples));
        JSON_COMPARE(parsed(d.spec()), parsed(text));
        QCOMPARE(field<QLineEdit>(d, "jobName")->text(), QStringLiteral("kept"));
        QCOMPARE(field<QLineEdit>(d, "scriptCommand")->text(),
                 QStringLiteral("/usr/bin/python3 scripts/ddp_train.py --flag"));
        QCOMPARE(field<QSpinBox>(d, "partitions")->value(), 2);

        // Edits write where the spec had the value: the alias, the pipeline degree.
        typeInto(field<QLineEdit>(d, "jobName"), QStringLiteral("renamed"));
        field<QSpinBox>(d, "partitions")->setValue(1);
        field<QCheckBox>(d, "debuggerHook")->setChecked(false);
        Json expected = parsed(text);
        expected["base_job_name"] = "renamed";
        expected["distribution"]["smdistributed"]["modelparallel"]["parameters"]
                ["pipeline_parallel_degree"] = 1;
        expected["debugger_hook_config"] = false;
        JSON_COMPARE(parsed(d.spec()), expected);

        // Switching to data parallel drops the pipeline and keeps the mpi options.
        selectData(field<QComboBox>(d, "distributionStrategy"), QStringLiteral("data"));
        selectData(field<QComboBox>(d, "dataParallelBackend"), QStringLiteral("torch_distributed"));
        expected["distribution"] = Json::parse(
            R"({"torch_distributed": {"enabled": true},
                "mpi": {"enabled": true, "processes_per_host": 2, "custom_mpi_options": "-x A"}})");
        JSON_COMPARE(parsed(d.spec()), expected);

        QString error;
        QVERIFY(!d.setSpec(QStringLiteral("[1, 2]"), {}, &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!d.setSpec(QStringLiteral("{nope"), {}, &error));
        JSON_COMPARE(parsed(d.spec()), expected); // unchanged
    }

    void switchingModelsUpdatesDefaults() {
        LaunchDialog d;
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        auto* model = field<QComboBox>(d, "builtinModel");
        selectData(model, QStringLiteral("mlp"));
        JSON_COMPARE(
            parsed(d.spec())["hyperparameters"],
            Json::parse(
                R"({"epochs": 1, "batch-size": 64, "lr": 0.05, "hidden": 256, "depth": 2})"));
        // An edited table keeps its values; an lr left at the old default follows the model.
        auto* table = field<QTableView>(d, "hyperparameterTable");
        editCell(table, table->model()->index(rowOf(table->model(), QStringLiteral("epochs")), 1),
                 QStringLiteral("3"));
        selectData(model, QStringLiteral("transformer-lm"));
        JSON_COMPARE(
            parsed(d.spec())["hyperparameters"],
            Json::parse(
                R"({"epochs": 3, "batch-size": 64, "lr": 0.001, "hidden": 256, "depth": 2})"));
        settle(d);
        auto* message = field<QLabel>(d, "hyperparameterTableMessage");
        QVERIFY2(message->text().contains(QStringLiteral("hidden:")) &&
                     message->text().contains(QStringLiteral("depth:")),
                 qPrintable(message->text()));
        d.showSection(2);
        shoot(&d, "launch-hyperparameters-problem.png");
        // A script: no trainer descriptions, the job named after the script.
        QTest::mouseClick(field<QRadioButton>(d, "scriptEntry"), Qt::LeftButton);
        typeInto(field<QLineEdit>(d, "scriptCommand"), QStringLiteral("/usr/bin/python3 train.py"));
        JSON_COMPARE(parsed(d.spec())["entry_point"],
                     Json::parse(R"(["/usr/bin/python3", "train.py"])"));
        QCOMPARE(field<QLineEdit>(d, "jobName")->placeholderText(), QStringLiteral("train"));
        typeInto(field<QLineEdit>(d, "scriptCommand"), QStringLiteral("no_such_train.py"));
        JSON_COMPARE(parsed(d.spec())["entry_point"], "no_such_train.py");
        settle(d);
        auto* entryMessage = field<QLabel>(d, "scriptCommandMessage");
        QVERIFY2(!entryMessage->isHidden() &&
                     entryMessage->text().contains(QStringLiteral("does not exist")),
                 qPrintable(d.problems().join(QLatin1Char('\n'))));
    }

    void savesASpecTheCliRuns() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        LaunchDialog d;
        // A script spec with paths relative to its folder, saved somewhere else.
        QVERIFY(
            d.setSpec(readFile(kExamples + QStringLiteral("/pytorch-ddp-script.json")), kExamples));
        const QString path = dir.filePath(QStringLiteral("script.json"));
        QString error;
        QVERIFY2(d.saveSpec(path, &error), qPrintable(error));
        auto result = spec::parseSpecFile(path.toStdString());
        QVERIFY2(result.ok(), result.errors.empty() ? "" : result.errors.front().text().c_str());
        QCOMPARE(QString::fromStdString(result.spec->sourceDir), QDir(kExamples).absolutePath());

        LaunchDialog fresh;
        fillShortRun(fresh, 20);
        const QString builtin = dir.filePath(QStringLiteral("builtin.json"));
        QVERIFY(fresh.saveSpec(builtin));
        result = spec::parseSpecFile(builtin.toStdString());
        QVERIFY(result.ok());
        JSON_COMPARE(parsed(readFile(builtin)), parsed(fresh.spec()));
        QVERIFY(!fresh.saveSpec(dir.filePath(QStringLiteral("missing/folder/x.json"))));
    }

    void runsOnACluster() {
        QTemporaryDir dir;
        LaunchDialog d;
        d.setClusters({{QStringLiteral("one-host"), 1}, {QStringLiteral("gpu-lab"), 2}});
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        d.showSection(3);
        settle(d);
        QCOMPARE(d.problemCount(), 0);
        QVERIFY(!parsed(d.spec()).contains("cluster")); // this machine: no key
        auto* runOn = field<QComboBox>(d, "runOn");
        QCOMPARE(runOn->count(), 3);
        selectData(runOn, QStringLiteral("one-host"));
        field<QSpinBox>(d, "instanceCount")->setValue(2);
        settle(d);
        auto* message = field<QLabel>(d, "runOnMessage");
        QVERIFY2(!message->isHidden() &&
                     message->text() ==
                         QStringLiteral("cluster one-host has 1 host; instance_count is 2"),
                 qPrintable(d.problems().join(QLatin1Char('\n'))));
        QVERIFY(!field<QPushButton>(d, "runButton")->isEnabled());
        QCOMPARE(field<QLabel>(d, "runsOn")->text(), QStringLiteral("Runs on cluster one-host"));
        shoot(&d, "launch-run-on-problem.png");

        selectData(runOn, QStringLiteral("gpu-lab"));
        settle(d);
        QVERIFY2(d.problemCount() == 0, qPrintable(d.problems().join(QLatin1Char('\n'))));
        QVERIFY(message->isHidden());
        const QString path = dir.filePath(QStringLiteral("on-gpu-lab.json"));
        QVERIFY(d.saveSpec(path));
        const Json saved = parsed(readFile(path));
        QCOMPARE(QString::fromStdString(saved.value("cluster", "")), QStringLiteral("gpu-lab"));
        QCOMPARE(saved.value("instance_count", 0), 2);
        auto result = spec::parseSpecFile(path.toStdString());
        QVERIFY(result.ok());
        QCOMPARE(result.spec->cluster, std::string("gpu-lab"));
        selectData(runOn, QStringLiteral("local"));
        QVERIFY(!parsed(d.spec()).contains("cluster"));

        // A cloned job's cluster that is gone is kept, listed, and named.
        QVERIFY(d.setSpec(QStringLiteral(R"({"entry_point": "builtin:mlp", "cluster": "gone"})")));
        settle(d);
        QCOMPARE(runOn->currentData().toString(), QStringLiteral("gone"));
        QVERIFY2(message->text().startsWith(QStringLiteral("there is no cluster \"gone\"")),
                 qPrintable(message->text()));
        JSON_COMPARE(parsed(d.spec())["cluster"], Json("gone"));
    }

    void runsTheProducedSpec() {
        LaunchDialog d;
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        fillShortRun(d, 10);
        d.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&d));
        QTest::keyClick(&d, Qt::Key_Return, Qt::ControlModifier); // Ctrl+Return runs
        QTRY_COMPARE(d.result(), int(QDialog::Accepted));

        const auto result = d.parsedSpec();
        QVERIFY2(result.ok(), result.errors.empty() ? "" : result.errors.front().text().c_str());
        QTemporaryDir home;
        control::ControllerOptions o;
        o.home = home.path().toStdString();
        o.launcherPath = std::string(STUDIO_BIN_DIR) + "/studio-launcher";
        o.trainerPath = std::string(STUDIO_BIN_DIR) + "/studio-train";
        control::Controller controller(o);
        const auto job = controller.submit(*result.spec);
        QVERIFY(QString::fromStdString(job.name).startsWith(QStringLiteral("launch-dialog-")));
        QCOMPARE(QString::fromStdString(controller.wait(job.name)), QStringLiteral("Completed"));
        // Both ranks ran the 10 steps the form asked for.
        store::StoreReader reader(control::databasePath(o.home));
        const auto detail = reader.detail(job.name);
        QVERIFY(detail);
        QCOMPARE(detail->ranks.size(), std::size_t(2));
        QVERIFY(detail->metrics.count("train:loss"));
        QCOMPARE(detail->metrics.at("train:loss").lastStep, std::int64_t(10));
        QCOMPARE(QString::fromStdString(detail->row.experiment), QStringLiteral("launch-tests"));
    }
};

QTEST_MAIN(TestLaunchDialog)
#include "test_launch_dialog.moc"

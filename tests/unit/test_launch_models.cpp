// The launch dialog's form models under QAbstractItemModelTester: hyperparameters (kinds kept
// through edits, unique names, problems, order), collections, rules and a rule's parameters
// (defaults left implicit, actions, keys the form does not show kept).
#include "models/launch/collection_model.h"
#include "models/launch/hyperparameter_model.h"
#include "models/launch/rule_model.h"
#include "models/launch/rule_parameter_model.h"
#include "tests/support/json_compare.h"

#include <QAbstractItemModelTester>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace studio;
using Json = nlohmann::json;

class TestLaunchModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void hyperparameterModel() {
        models::HyperparameterModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setBuiltinModel(QStringLiteral("fmnist-cnn"));
        model.setDocument(
            models::SpecDocument::parse(R"({"epochs": 2, "lr": "0.1", "deterministic": true})"));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(1, 1).data().toString(), QStringLiteral("0.1"));
        QVERIFY(!model.index(0, 2).data().toString().isEmpty()); // the trainer's description
        // Kinds survive edits: a number stays a number, a string a string.
        QVERIFY(model.setData(model.index(0, 1), QStringLiteral("3")));
        QVERIFY(model.setData(model.index(1, 1), QStringLiteral("0.2")));
        QVERIFY(!model.setData(model.index(0, 0), QStringLiteral("lr"))); // names are unique
        QVERIFY(model.setData(model.index(0, 0), QStringLiteral("max-steps")));
        const QModelIndex added = model.setParameter(QStringLiteral("batch-size"), nullptr);
        QVERIFY(model.setData(added, QStringLiteral("128")));
        model.setProblems({{QStringLiteral("lr"), QStringLiteral("must be > 0")}});
        QCOMPARE(model.index(1, 1).data(Qt::ToolTipRole).toString(), QStringLiteral("must be > 0"));
        QVERIFY(model.removeRows(2, 1));
        const Json out = model.toDocument();
        JSON_COMPARE(out, Json::parse(R"({"max-steps": 3, "lr": "0.2", "batch-size": 128})"));
        QCOMPARE(QString::fromStdString(model.toDocument().begin().key()),
                 QStringLiteral("max-steps"));
        model.setBuiltinModel(QString());
        model.setDocument(models::SpecDocument::array());
        QCOMPARE(model.rowCount(), 0);
    }

    void otherModels() {
        models::CollectionModel collections;
        QAbstractItemModelTester t1(&collections,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        collections.setDocument(models::SpecDocument::parse(
            R"([{"name": "gradients", "parameters": {"save_interval": "25", "reductions": "abs_mean,l2_norm", "save_steps": "1,2"}}])"));
        QCOMPARE(collections.index(0, models::CollectionModel::ReductionsColumn).data().toString(),
                 QStringLiteral("abs_mean,l2_norm"));
        QVERIFY(
            collections.setData(collections.index(0, models::CollectionModel::SaveIntervalColumn),
                                QStringLiteral("10")));
        collections.addCollection(QStringLiteral("losses"));
        collections.setProblems({{1, QStringLiteral("bad")}});
        QVERIFY(collections.removeRows(1, 1));
        JSON_COMPARE(
            collections.toDocument(),
            Json::parse(
                R"([{"name": "gradients", "parameters": {"save_interval": "10", "reductions": "abs_mean,l2_norm", "save_steps": "1,2"}}])"));

        models::RuleModel rules;
        models::RuleParameterModel params(&rules);
        QAbstractItemModelTester t2(&rules, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t3(&params,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        rules.setDocument(models::SpecDocument::parse(
            R"([{"name": "LossNotDecreasing", "parameters": {"num_steps": "20"}, "actions": ["Notify"], "x": 1}])"));
        params.setRuleRow(0);
        QVERIFY(params.rowCount() >= 6);
        const int numSteps = params.rowOf(QStringLiteral("num_steps"));
        QCOMPARE(params.index(numSteps, 1).data().toString(), QStringLiteral("20"));
        QVERIFY(params.setData(params.index(numSteps, 1), QStringLiteral("30")));
        const int diff = params.rowOf(QStringLiteral("diff_percent"));
        QVERIFY(
            params.setData(params.index(diff, 1), QStringLiteral("0.0"))); // the default: implicit
        QVERIFY(rules.setData(rules.index(0, models::RuleModel::StopColumn), Qt::Checked,
                              Qt::CheckStateRole));
        const int row = rules.addRule(QStringLiteral("ProfilerReport"));
        params.setRuleRow(row);
        QVERIFY(params.rowOf(QStringLiteral("StepOutlier_stddev")) >= 0);
        params.setProblems({{QStringLiteral("StepOutlier_stddev"), QStringLiteral("bad")}});
        QVERIFY(rules.removeRows(row, 1));
        QCOMPARE(params.rowCount(), 0);
        JSON_COMPARE(
            rules.toDocument(),
            Json::parse(R"([{"name": "LossNotDecreasing", "parameters": {"num_steps": "30"},
                                  "actions": ["StopTraining", "Notify"], "x": 1}])"));
    }
};

QTEST_MAIN(TestLaunchModels)
#include "test_launch_models.moc"

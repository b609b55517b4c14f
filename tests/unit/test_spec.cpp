// Spec validation: every example validates; each invalid case names its JSON path and what is
// allowed; all errors of a spec come at once; --set overrides edit the document.
#include "engine/spec/spec_json.h"
#include "engine/spec/spec_parser.h"
#include "engine/spec/spec_sections.h"
#include "engine/spec/suggest.h"
#include "tests/unit/spec_cases.h"

#include "tests/support/markdown_blocks.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

using namespace studio::spec;
namespace fs = std::filesystem;

namespace {

const std::string kExamples = std::string(STUDIO_SOURCE_DIR) + "/resources/examples";

ParseResult parse(const std::string& text, const std::vector<std::string>& overrides = {}) {
    return parseSpecText(text, kExamples, overrides);
}

std::string allErrors(const ParseResult& r) {
    std::string s;
    for (const auto& e : r.errors)
        s += e.text() + "\n";
    return s;
}

} // namespace

class TestSpec : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void examplesValidate() {
        int count = 0;
        for (const auto& entry : fs::directory_iterator(kExamples)) {
            if (entry.path().extension() != ".json")
                continue;
            // Tuning specs wrap a job spec; test_tuning_spec validates them.
            std::ifstream in(entry.path());
            const auto doc = nlohmann::json::parse(in, nullptr, false);
            if (doc.is_object() && doc.contains("tuning"))
                continue;
            ParseResult r = parseSpecFile(entry.path().string());
            QVERIFY2(r.ok(), (entry.path().string() + ":\n" + allErrors(r)).c_str());
            ++count;
        }
        QVERIFY(count >= 1);
    }

    // Every ```json block of SPEC.md is a complete spec and must validate.
    void specDocumentExamplesValidate() {
        int count = 0;
        for (const std::string& text :
             jsonBlocks(std::string(STUDIO_SOURCE_DIR) + "/resources/specs/SPEC.md")) {
            ParseResult r = parse(text);
            QVERIFY2(r.ok(), ("SPEC.md example " + std::to_string(count + 1) + ":\n" + text + "\n" +
                              allErrors(r))
                                 .c_str());
            ++count;
        }
        QVERIFY2(count >= 6, "SPEC.md should show several complete examples");
    }

    void defaultsAndDerivedFields() {
        ParseResult r = parse(R"({"entry_point": "scripts/ddp_train.py",
                                  "hyperparameters": {"lr": 0.1, "name": "x", "flag": true}})");
        QVERIFY2(r.ok(), allErrors(r).c_str());
        const JobSpec& s = *r.spec;
        QCOMPARE(s.name, std::string("ddp-train"));
        QCOMPARE(s.instanceType, std::string("local"));
        QCOMPARE(s.instanceCount, 1);
        QCOMPARE(s.maxRun, std::int64_t(86400));
        QCOMPARE(s.distribution.strategy, Strategy::None);
        QCOMPARE(s.profiler.systemMonitorIntervalMillis, 500);
        QVERIFY(s.debugger.enabled);
        QCOMPARE(s.entryPoint.script, kExamples + "/scripts/ddp_train.py");
        QCOMPARE(s.command().back(), kExamples + "/scripts/ddp_train.py");
        QCOMPARE(s.hyperparameterArgs(),
                 (std::vector<std::string>{"--flag", "true", "--lr", "0.1", "--name", "x"}));
        QCOMPARE(*s.hyperparameters.at("lr").number, 0.1);
    }

    void slurmSection() {
        ParseResult r = parse(R"({"entry_point": "builtin:fmnist-cnn", "cluster": "hpc",
            "max_run": 3601, "slurm": {"partition": "gpu", "account": "ml", "qos": "high",
            "time_limit": "1-02:00:30", "gres": "gpu:2", "constraint": "a100&ib",
            "exclusive": true, "extra_sbatch": {"mail_type": "END", "nice": 10}}})");
        QVERIFY2(r.ok(), allErrors(r).c_str());
        const SlurmOptions& o = *r.spec->slurm;
        QCOMPARE(o.partition, std::string("gpu"));
        QCOMPARE(o.account, std::string("ml"));
        QCOMPARE(o.qos, std::string("high"));
        QCOMPARE(o.timeLimitMinutes, std::int64_t(26 * 60 + 1)); // seconds round up
        QCOMPARE(o.gres, std::string("gpu:2"));
        QCOMPARE(o.constraint, std::string("a100&ib"));
        QVERIFY(o.exclusive);
        QCOMPARE(o.extra.at("mail_type"), std::string("\"END\""));
        QCOMPARE(o.extra.at("nice"), std::string("10"));
        QVERIFY(!parse(R"({"entry_point": "builtin:fmnist-cnn"})").spec->slurm);
        // Slurm's time formats
        QCOMPARE(*slurmMinutes("90"), std::int64_t(90));
        QCOMPARE(*slurmMinutes("90:30"), std::int64_t(91));
        QCOMPARE(*slurmMinutes("1:30:00"), std::int64_t(90));
        QCOMPARE(*slurmMinutes("2-0"), std::int64_t(2880));
        QCOMPARE(*slurmMinutes("1-01:01"), std::int64_t(1501));
        QVERIFY(!slurmMinutes("1:2:3:4"));
        QVERIFY(!slurmMinutes("x"));
        QVERIFY(!slurmMinutes(""));
    }

    void modelParallelDefaults() {
        ParseResult r = parse(R"({"entry_point": "builtin:transformer-lm",
            "distribution": {"smdistributed": {"modelparallel": {"enabled": true,
                "parameters": {"partitions": 2, "microbatches": 4, "optimize": "speed"}}},
                "mpi": {"enabled": true, "processes_per_host": 2}}})");
        QVERIFY2(r.ok(), allErrors(r).c_str());
        const auto& mp = *r.spec->distribution.modelParallel;
        QCOMPARE(r.spec->distribution.strategy, Strategy::SmModelParallel);
        QCOMPARE(mp.pipeline, std::string("interleaved"));
        QCOMPARE(mp.activeMicrobatches, 4); // partitions + 2
        QCOMPARE(mp.memoryWeight, 0.2);     // optimize: speed
        QCOMPARE(r.spec->worldSize(), 2);
    }

    void invalidSpecs_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("message");
        const auto cases = invalidSpecCases();
        QVERIFY(cases.size() >= 40);
        for (const auto& c : cases)
            QTest::newRow(c.tag.c_str())
                << QString::fromStdString(c.spec) << QString::fromStdString(c.path)
                << QString::fromStdString(c.message);
    }
    void invalidSpecs() {
        QFETCH(QString, spec);
        QFETCH(QString, path);
        QFETCH(QString, message);
        ParseResult r = parse(spec.toStdString());
        QVERIFY2(!r.ok(), "the spec should be rejected");
        QVERIFY(!r.spec);
        const std::string want = path.toStdString();
        bool found = false;
        for (const auto& e : r.errors)
            found = found ||
                    (e.path == want && e.message.find(message.toStdString()) != std::string::npos);
        QVERIFY2(found,
                 ("expected " + want + ": ..." + message.toStdString() + "\ngot:\n" + allErrors(r))
                     .c_str());
    }

    void exactMessageOfTheIssuesExample() {
        ParseResult r = parse(R"({"entry_point": ["/bin/true"],
            "distribution": {"mpi": {"enabled": true, "processes_per_host": "two"}}})");
        QCOMPARE(r.errors.size(), std::size_t(1));
        QCOMPARE(r.errors[0].text(),
                 std::string(
                     "distribution.mpi.processes_per_host: must be an integer >= 1, got \"two\""));
    }

    void everyErrorAtOnce() {
        ParseResult r = parse(R"({"entry_point": "builtin:fmnist-cnn", "instance_count": 0,
            "hyperparameters": {"epochs": -1, "optimiser": "adam"}, "rules": [{"name": "Nope"}],
            "max_run": "long"})");
        QCOMPARE(r.errors.size(), std::size_t(5));
    }

    void invalidJsonNamesLineAndColumn() {
        ParseResult r = parse("{\n  \"entry_point\": \"builtin:mlp\",\n  \"instance_count\": ,\n}");
        QCOMPARE(r.errors.size(), std::size_t(1));
        QVERIFY2(r.errors[0].message.find("line 3, column 21") != std::string::npos,
                 r.errors[0].message.c_str());
    }

    void missingFileIsNamed() {
        ParseResult r = parseSpecFile("/nonexistent/spec.json");
        QCOMPARE(r.errors.size(), std::size_t(1));
        QVERIFY(r.errors[0].message.find("/nonexistent/spec.json") != std::string::npos);
    }

    void overrides() {
        ParseResult r =
            parse(R"({"entry_point": "builtin:mlp", "hyperparameters": {"epochs": 3}})",
                  {"hyperparameters.max-steps=50", "instance_count=2", "name=override-me",
                   "rules[0].name=AllZero", "rules.0.actions=[\"Notify\"]",
                   "distribution.mpi.enabled=true", "distribution.mpi.processes_per_host=2"});
        QVERIFY2(r.ok(), allErrors(r).c_str());
        QCOMPARE(r.spec->hyperparameters.at("max-steps").text, std::string("50"));
        QCOMPARE(r.spec->instanceCount, 2);
        QCOMPARE(r.spec->name, std::string("override-me"));
        QCOMPARE(r.spec->rules.at(0).name, std::string("AllZero"));
        QCOMPARE(r.spec->rules.at(0).actions, std::vector<std::string>{"Notify"});
        QCOMPARE(r.spec->worldSize(), 4);
        QVERIFY(r.spec->effectiveJson.find("override-me") != std::string::npos);
    }

    void overrideErrors_data() {
        QTest::addColumn<QString>("assignment");
        QTest::addColumn<QString>("message");
        QTest::newRow("no equals") << "instance_count"
                                   << "expected key.path=value";
        QTest::newRow("empty key") << "=3"
                                   << "expected key.path=value";
        QTest::newRow("index past end") << "rules[3].name=AllZero"
                                        << "has 0 elements";
        QTest::newRow("through scalar") << "name.first=x"
                                        << "name is not an object";
    }
    void overrideErrors() {
        QFETCH(QString, assignment);
        QFETCH(QString, message);
        ParseResult r = parse(R"({"entry_point": ["/bin/true"], "name": "n", "rules": []})",
                              {assignment.toStdString()});
        QCOMPARE(r.errors.size(), std::size_t(1));
        QVERIFY2(r.errors[0].message.find(message.toStdString()) != std::string::npos,
                 r.errors[0].message.c_str());
        QVERIFY(r.errors[0].message.find("--set") != std::string::npos);
    }

    // Hostile input is an error, never an exception or a crash (found by tests/fuzz): a number
    // past a double, bytes that are not UTF-8 in --set, patterns long enough that compiling them
    // with std::regex overflows the stack.
    void hostileInputIsAnError() {
        auto expectOne = [](const ParseResult& r, const std::string& message) {
            QCOMPARE(r.errors.size(), std::size_t(1));
            QVERIFY2(r.errors[0].message.find(message) != std::string::npos, allErrors(r).c_str());
        };
        expectOne(parse(R"({"entry_point": ["/bin/true"], "max_run": 1e400})"), "number overflow");
        for (const char* assignment : {"environment.FOO=\x8b", "en\x8bvironment.FOO=bar"})
            expectOne(parse(R"({"entry_point": ["/bin/true"]})", {assignment}), "not valid UTF-8");
        const std::string longPattern(100000, 'a');
        expectOne(parse(R"({"entry_point": "builtin:mlp", "debugger_hook_config": )"
                        R"({"collection_configs": [{"name": "custom", "parameters": )"
                        R"({"include_regex": [")" +
                        longPattern + R"("]}}]}})"),
                  "at most 1024 characters");
        expectOne(parse(R"({"entry_point": "builtin:mlp", "rules": [{"name": "AllZero", )"
                        R"("parameters": {"tensor_regex": ")" +
                        longPattern + R"("}}]})"),
                  "at most 1024 characters");
    }

    void suggestions() {
        QCOMPARE(closestMatch("instance-count", {"instance_count", "instance_type"}),
                 std::string("instance_count"));
        QCOMPARE(closestMatch("hyperparamters", {"hyperparameters", "environment"}),
                 std::string("hyperparameters"));
        QCOMPARE(closestMatch("zzz", {"instance_count"}), std::string());
        QCOMPARE(editDistance("ab", "ba"), 1);
    }
};

QTEST_GUILESS_MAIN(TestSpec)
#include "test_spec.moc"

// Spec validation: every example validates; each invalid case names its JSON path and what is
// allowed; all errors of a spec come at once; --set overrides edit the document.
#include "engine/spec/spec_json.h"
#include "engine/spec/spec_parser.h"
#include "engine/spec/spec_sections.h"
#include "engine/spec/suggest.h"
#include "tests/unit/spec_cases.h"

#include "tests/support/markdown_blocks.h"

#include "tests/support/plain_test.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

using namespace studio::spec;
namespace fs = std::filesystem;
using studio::testing::nearly;

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

TEST_CASE("examplesValidate") {
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
        REQUIRE_MESSAGE(r.ok(), (entry.path().string() + ":\n" + allErrors(r)).c_str());
        ++count;
    }
    REQUIRE(count >= 1);
}

// Every ```json block of SPEC.md is a complete spec and must validate.
TEST_CASE("specDocumentExamplesValidate") {
    int count = 0;
    for (const std::string& text :
         jsonBlocks(std::string(STUDIO_SOURCE_DIR) + "/resources/specs/SPEC.md")) {
        ParseResult r = parse(text);
        REQUIRE_MESSAGE(r.ok(), ("SPEC.md example " + std::to_string(count + 1) + ":\n" + text +
                                 "\n" + allErrors(r))
                                    .c_str());
        ++count;
    }
    REQUIRE_MESSAGE(count >= 6, "SPEC.md should show several complete examples");
}

TEST_CASE("defaultsAndDerivedFields") {
    ParseResult r = parse(R"({"entry_point": "scripts/ddp_train.py",
                              "hyperparameters": {"lr": 0.1, "name": "x", "flag": true}})");
    REQUIRE_MESSAGE(r.ok(), allErrors(r).c_str());
    const JobSpec& s = *r.spec;
    REQUIRE(s.name == std::string("ddp-train"));
    REQUIRE(s.instanceType == std::string("local"));
    REQUIRE(s.instanceCount == 1);
    REQUIRE(s.maxRun == std::int64_t(86400));
    REQUIRE(s.distribution.strategy == Strategy::None);
    REQUIRE(s.profiler.systemMonitorIntervalMillis == 500);
    REQUIRE(s.debugger.enabled);
    REQUIRE(s.entryPoint.script == kExamples + "/scripts/ddp_train.py");
    REQUIRE(s.command().back() == kExamples + "/scripts/ddp_train.py");
    REQUIRE(s.hyperparameterArgs() ==
            (std::vector<std::string>{"--flag", "true", "--lr", "0.1", "--name", "x"}));
    REQUIRE(*s.hyperparameters.at("lr").number == nearly(0.1));
}

TEST_CASE("slurmSection") {
    ParseResult r = parse(R"({"entry_point": "builtin:fmnist-cnn", "cluster": "hpc",
        "max_run": 3601, "slurm": {"partition": "gpu", "account": "ml", "qos": "high",
        "time_limit": "1-02:00:30", "gres": "gpu:2", "constraint": "a100&ib",
        "exclusive": true, "extra_sbatch": {"mail_type": "END", "nice": 10}}})");
    REQUIRE_MESSAGE(r.ok(), allErrors(r).c_str());
    const SlurmOptions& o = *r.spec->slurm;
    REQUIRE(o.partition == std::string("gpu"));
    REQUIRE(o.account == std::string("ml"));
    REQUIRE(o.qos == std::string("high"));
    REQUIRE(o.timeLimitMinutes == std::int64_t(26 * 60 + 1)); // seconds round up
    REQUIRE(o.gres == std::string("gpu:2"));
    REQUIRE(o.constraint == std::string("a100&ib"));
    REQUIRE(o.exclusive);
    REQUIRE(o.extra.at("mail_type") == std::string("\"END\""));
    REQUIRE(o.extra.at("nice") == std::string("10"));
    REQUIRE(!parse(R"({"entry_point": "builtin:fmnist-cnn"})").spec->slurm);
    // Slurm's time formats
    REQUIRE(*slurmMinutes("90") == std::int64_t(90));
    REQUIRE(*slurmMinutes("90:30") == std::int64_t(91));
    REQUIRE(*slurmMinutes("1:30:00") == std::int64_t(90));
    REQUIRE(*slurmMinutes("2-0") == std::int64_t(2880));
    REQUIRE(*slurmMinutes("1-01:01") == std::int64_t(1501));
    REQUIRE(!slurmMinutes("1:2:3:4"));
    REQUIRE(!slurmMinutes("x"));
    REQUIRE(!slurmMinutes(""));
}

TEST_CASE("tensorboardOutputConfig") {
    // A relative folder is relative to the spec's folder; s3_output_path beside it is ignored.
    ParseResult r = parse(R"({"entry_point": ["/bin/true"], "tensorboard_output_config":
        {"local_path": "runs/tb", "s3_output_path": "s3://bucket/tb"}})");
    REQUIRE_MESSAGE(r.ok(), allErrors(r).c_str());
    REQUIRE(r.spec->tensorboardLocalPath == kExamples + "/runs/tb");
    r = parse(R"({"entry_point": ["/bin/true"],
        "tensorboard_output_config": {"container_local_output_path": "/var/tb/"}})");
    REQUIRE_MESSAGE(r.ok(), allErrors(r).c_str());
    REQUIRE(r.spec->tensorboardLocalPath == std::string("/var/tb/"));
    REQUIRE(parse(R"({"entry_point": ["/bin/true"]})").spec->tensorboardLocalPath.empty());
    r = parse(R"({"entry_point": ["/bin/true"], "tensorboard_output_config":
        {"local_path": "a", "container_local_output_path": "b"}})");
    REQUIRE(r.errors.size() == std::size_t(1));
    REQUIRE(r.errors[0].path ==
            std::string("tensorboard_output_config.container_local_output_path"));
}

TEST_CASE("modelParallelDefaults") {
    ParseResult r = parse(R"({"entry_point": "builtin:transformer-lm",
        "distribution": {"smdistributed": {"modelparallel": {"enabled": true,
            "parameters": {"partitions": 2, "microbatches": 4, "optimize": "speed"}}},
            "mpi": {"enabled": true, "processes_per_host": 2}}})");
    REQUIRE_MESSAGE(r.ok(), allErrors(r).c_str());
    const auto& mp = *r.spec->distribution.modelParallel;
    REQUIRE(r.spec->distribution.strategy == Strategy::SmModelParallel);
    REQUIRE(mp.pipeline == std::string("interleaved"));
    REQUIRE(mp.activeMicrobatches == 4);     // partitions + 2
    REQUIRE(mp.memoryWeight == nearly(0.2)); // optimize: speed
    REQUIRE(r.spec->worldSize() == 2);
}

TEST_CASE("invalidSpecs") {
    const auto cases = invalidSpecCases();
    REQUIRE(cases.size() >= 40);
    for (const SpecCase& c : cases) {
        INFO("row: ", c.tag);
        ParseResult r = parse(c.spec);
        REQUIRE_MESSAGE(!r.ok(), "the spec should be rejected");
        REQUIRE(!r.spec);
        bool found = false;
        for (const auto& e : r.errors)
            found = found || (e.path == c.path && e.message.find(c.message) != std::string::npos);
        REQUIRE_MESSAGE(found,
                        ("expected " + c.path + ": ..." + c.message + "\ngot:\n" + allErrors(r)));
    }
}

TEST_CASE("exactMessageOfTheIssuesExample") {
    ParseResult r = parse(R"({"entry_point": ["/bin/true"],
        "distribution": {"mpi": {"enabled": true, "processes_per_host": "two"}}})");
    REQUIRE(r.errors.size() == std::size_t(1));
    REQUIRE(
        r.errors[0].text() ==
        std::string("distribution.mpi.processes_per_host: must be an integer >= 1, got \"two\""));
}

// Rule.custom's entries: a Python rule file passed through, resolved against the spec's folder,
// its parameters as strings and its collections validated like the hook's.
TEST_CASE("customRules") {
    ParseResult r = parse(R"({"entry_point": "builtin:mlp", "rules": [
        {"name": "AllZero"},
        {"name": "my-rule", "source": "scripts/ddp_train.py", "rule_to_invoke": "MyRule",
         "rule_parameters": {"threshold": 0.5, "mode": "train", "strict": true},
         "collections_to_save": [{"name": "acts", "parameters": {"include_regex": ".*relu",
                                                                 "save_interval": "5"}}],
         "actions": ["StopTraining"]}]})");
    REQUIRE_MESSAGE(r.ok(), allErrors(r).c_str());
    REQUIRE(r.spec->rules.size() == std::size_t(1));
    REQUIRE(r.spec->customRules.size() == std::size_t(1));
    const CustomRuleConfig& c = r.spec->customRules[0];
    REQUIRE(c.name == std::string("my-rule"));
    REQUIRE(c.source == kExamples + "/scripts/ddp_train.py");
    REQUIRE(c.ruleToInvoke == std::string("MyRule"));
    REQUIRE(c.parameters.at("threshold") == std::string("0.5"));
    REQUIRE(c.parameters.at("strict") == std::string("True"));
    REQUIRE(c.parameters.at("mode") == std::string("train"));
    REQUIRE(c.collectionsToSave.size() == std::size_t(1));
    REQUIRE(c.collectionsToSave[0].saveInterval == 5);
    REQUIRE(c.actions == (std::vector<std::string>{"StopTraining"}));

    ParseResult twice = parse(R"({"entry_point": "builtin:mlp", "rules": [
        {"name": "r", "source": "scripts/ddp_train.py", "rule_to_invoke": "A"},
        {"name": "r", "source": "scripts/ddp_train.py", "rule_to_invoke": "B"}]})");
    REQUIRE(twice.errors.size() == std::size_t(1));
    REQUIRE(twice.errors[0].path == std::string("rules[1].name"));

    ParseOptions noFiles;
    noFiles.checkFiles = false;
    ParseResult elsewhere = parseSpecText(
        R"({"entry_point": ["/bin/true"], "rules": [{"name": "r", "source": "/gone/rule.py",
            "rule_to_invoke": "R"}]})",
        kExamples, {}, noFiles);
    REQUIRE_MESSAGE(elsewhere.ok(), allErrors(elsewhere).c_str());
}

TEST_CASE("everyErrorAtOnce") {
    ParseResult r = parse(R"({"entry_point": "builtin:fmnist-cnn", "instance_count": 0,
        "hyperparameters": {"epochs": -1, "optimiser": "adam"}, "rules": [{"name": "Nope"}],
        "max_run": "long"})");
    REQUIRE(r.errors.size() == std::size_t(5));
}

TEST_CASE("invalidJsonNamesLineAndColumn") {
    ParseResult r = parse("{\n  \"entry_point\": \"builtin:mlp\",\n  \"instance_count\": ,\n}");
    REQUIRE(r.errors.size() == std::size_t(1));
    REQUIRE_MESSAGE(r.errors[0].message.find("line 3, column 21") != std::string::npos,
                    r.errors[0].message.c_str());
}

TEST_CASE("missingFileIsNamed") {
    ParseResult r = parseSpecFile("/nonexistent/spec.json");
    REQUIRE(r.errors.size() == std::size_t(1));
    REQUIRE(r.errors[0].message.find("/nonexistent/spec.json") != std::string::npos);
}

TEST_CASE("overrides") {
    ParseResult r =
        parse(R"({"entry_point": "builtin:mlp", "hyperparameters": {"epochs": 3}})",
              {"hyperparameters.max-steps=50", "instance_count=2", "name=override-me",
               "rules[0].name=AllZero", "rules.0.actions=[\"Notify\"]",
               "distribution.mpi.enabled=true", "distribution.mpi.processes_per_host=2"});
    REQUIRE_MESSAGE(r.ok(), allErrors(r).c_str());
    REQUIRE(r.spec->hyperparameters.at("max-steps").text == std::string("50"));
    REQUIRE(r.spec->instanceCount == 2);
    REQUIRE(r.spec->name == std::string("override-me"));
    REQUIRE(r.spec->rules.at(0).name == std::string("AllZero"));
    REQUIRE(r.spec->rules.at(0).actions == (std::vector<std::string>{"Notify"}));
    REQUIRE(r.spec->worldSize() == 4);
    REQUIRE(r.spec->effectiveJson.find("override-me") != std::string::npos);
}

TEST_CASE("overrideErrors") {
    const struct {
        const char* row;
        const char* assignment;
        const char* message;
    } rows[] = {
        {"no equals", "instance_count", "expected key.path=value"},
        {"empty key", "=3", "expected key.path=value"},
        {"index past end", "rules[3].name=AllZero", "has 0 elements"},
        {"through scalar", "name.first=x", "name is not an object"},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        ParseResult r =
            parse(R"({"entry_point": ["/bin/true"], "name": "n", "rules": []})", {row.assignment});
        REQUIRE(r.errors.size() == std::size_t(1));
        REQUIRE_MESSAGE(r.errors[0].message.find(row.message) != std::string::npos,
                        r.errors[0].message);
        REQUIRE(r.errors[0].message.find("--set") != std::string::npos);
    }
}

// Hostile input is an error, never an exception or a crash (found by tests/fuzz): a number
// past a double, bytes that are not UTF-8 in --set, patterns long enough that compiling them
// with std::regex overflows the stack.
TEST_CASE("hostileInputIsAnError") {
    auto expectOne = [](const ParseResult& r, const std::string& message) {
        REQUIRE(r.errors.size() == std::size_t(1));
        REQUIRE_MESSAGE(r.errors[0].message.find(message) != std::string::npos,
                        allErrors(r).c_str());
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

TEST_CASE("suggestions") {
    REQUIRE(closestMatch("instance-count", {"instance_count", "instance_type"}) ==
            std::string("instance_count"));
    REQUIRE(closestMatch("hyperparamters", {"hyperparameters", "environment"}) ==
            std::string("hyperparameters"));
    REQUIRE(closestMatch("zzz", {"instance_count"}) == std::string());
    REQUIRE(editDistance("ab", "ba") == 1);
}

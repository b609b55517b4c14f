// studio-train: the built-in trainer, one process per rank, started by studio-launcher.
//   studio-train --spec jobs/<job>/spec.json [--set key.path=value]...
//   studio-train --model mlp [--set hyperparameters.max-steps=100]...
//   studio-train --probe [--json]     what this trainer can train with (LibTorch, CUDA, NCCL)
#include "engine/spec/spec_parser.h"
#include "engine/train/probe.h"
#include "engine/train/trainer.h"

#include <CLI/CLI.hpp>

#include <atomic>
#include <csignal>
#include <cstdio>

namespace {
std::atomic<bool> g_stop{false};
void onSignal(int) {
    g_stop = true;
}
} // namespace

int main(int argc, char** argv) {
    using namespace studio;
    CLI::App app{
        "studio-train: ML Studio's built-in LibTorch trainer (one process per rank). "
        "Exits 0 when done, 75 after SIGTERM (checkpointed, resumable), 2 on a bad config.",
        "studio-train"};
    std::string specPath, model;
    std::vector<std::string> sets;
    app.add_option("--spec", specPath, "the job's spec.json");
    app.add_option("--model", model, "a built-in model, instead of --spec");
    app.add_option("--set", sets, "override a spec field: key.path=value");
    bool probe = false, json = false;
    app.add_flag("--probe", probe,
                 "print the LibTorch version, CUDA devices, NCCL, Gloo, BLAS and threads; exit");
    app.add_flag("--json", json, "with --probe: one JSON object");
    CLI11_PARSE(app, argc, argv);
    if (probe) {
        const nlohmann::json facts = train::probeTrainer();
        std::fputs(json ? (facts.dump() + "\n").c_str() : train::probeText(facts).c_str(), stdout);
        return train::kTrainOk;
    }

    spec::ParseResult parsed;
    spec::ParseOptions opts;
    opts.checkFiles = false; // inputs arrive through SM_CHANNEL_* on this host
    if (!specPath.empty())
        parsed = spec::parseSpecFile(specPath, sets, opts);
    else if (!model.empty())
        parsed =
            spec::parseSpecText("{\"entry_point\": \"builtin:" + model + "\"}", ".", sets, opts);
    else {
        std::fprintf(stderr, "studio-train: give --spec FILE or --model NAME\n");
        return train::kTrainBadConfig;
    }
    if (!parsed.ok()) {
        for (const auto& e : parsed.errors)
            std::fprintf(stderr, "%s\n", e.text().c_str());
        return train::kTrainBadConfig;
    }
    train::TrainerConfig config;
    train::RankEnvironment env;
    try {
        config = train::TrainerConfig::fromSpec(*parsed.spec);
        env = train::RankEnvironment::fromEnvironment();
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "studio-train: %s\n", e.what());
        return train::kTrainBadConfig;
    }
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    ::sigaction(SIGTERM, &sa, nullptr);
    ::sigaction(SIGINT, &sa, nullptr);

    train::EventWriter events = train::EventWriter::fromEnvironment();
    try {
        train::TrainResult r = train::train(config, env, events, g_stop);
        return r.interrupted ? train::kTrainInterrupted : train::kTrainOk;
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "studio-train (rank %d): %s\n", env.rank, e.what());
        return train::kTrainBadConfig;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "studio-train (rank %d): %s\n", env.rank, e.what());
        return train::kTrainError;
    }
}

#include "engine/train/debug_hook.h"

#include "engine/train/npy_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace studio::train {

namespace r = debugger::reduction;
namespace fs = std::filesystem;

namespace {

// What a collection gets when its spec lists no reductions.
const std::vector<std::string> kDefaultReductions = {"min", "max", "mean", "std", "l2_norm"};

bool isScalarCollection(const debugger::CollectionPlan& c) {
    return c.name == "losses" || c.name == "metrics";
}

std::vector<std::string> reductionsOf(const debugger::CollectionPlan& c) {
    std::vector<std::string> out;
    if (c.defaultReductions)
        out = kDefaultReductions;
    for (const auto& x : c.reductions)
        if (std::find(out.begin(), out.end(), x) == out.end())
            out.push_back(x);
    return out;
}

std::string fileSafe(std::string name) {
    for (auto& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-')
            ch = '_';
    return name;
}

} // namespace

DebugHook::DebugHook(debugger::HookPlan plan, EventWriter& events, DebugHookOptions options)
    : m_plan(std::move(plan))
    , m_events(events)
    , m_options(std::move(options)) {
    m_capture.wanted = [this](const std::string& name) {
        return savesTensor(m_step, name);
    };
}

bool DebugHook::savesTensor(std::int64_t step, const std::string& name) const {
    auto it = m_membership.find(name);
    if (it == m_membership.end())
        it = m_membership.emplace(name, m_plan.collectionsOf(name)).first;
    for (const auto* c : it->second)
        if (c->savesStep(step))
            return true;
    return false;
}

bool DebugHook::savesLoss(std::int64_t step) const {
    return m_plan.enabled && m_options.reporter && savesTensor(step, debugger::tensor::kLoss);
}

ReductionOptions DebugHook::optionsFor(const std::string& name) const {
    ReductionOptions o;
    o.channelAxis = m_plan.inputChannelAxis;
    if (name.find("tanh") != std::string::npos || name.find("sigmoid") != std::string::npos) {
        o.inactivityPercent = m_plan.saturationInactivityPercent;
        o.hasActiveRange = true;
        o.activeRange =
            name.find("tanh") != std::string::npos ? m_plan.tanhRange : m_plan.sigmoidRange;
    } else {
        o.inactivityPercent = m_plan.reluInactivityPercent;
    }
    return o;
}

ActivationCapture* DebugHook::beginStep(std::int64_t step, const NamedTensors& parameters) {
    m_step = step;
    m_capture.tensors.clear();
    m_before.clear();
    m_capturing = m_plan.enabled && m_options.saves && m_plan.savesAnything(step);
    if (!m_capturing)
        return nullptr;
    torch::NoGradGuard noGrad;
    for (const auto& [name, p] : parameters)
        for (const auto* c : m_plan.collectionsOf(name))
            if (c->savesStep(step) && c->hasReduction(r::kUpdateL2Norm)) {
                m_before[name] = p.detach().clone();
                break;
            }
    return &m_capture;
}

void DebugHook::observeBatch(const torch::Tensor& output, const torch::Tensor& target) {
    if (!m_capturing)
        return;
    const bool labels = savesTensor(m_step, debugger::tensor::kLabels);
    const bool predictions = savesTensor(m_step, debugger::tensor::kPredictions);
    if (!labels && !predictions)
        return;
    torch::NoGradGuard noGrad;
    torch::Tensor predicted = output.detach().argmax(-1);
    m_capture.tensors.emplace_back("#labels", target.detach().flatten().clone());
    m_capture.tensors.emplace_back("#predicted", predicted.flatten());
}

void DebugHook::emit(std::int64_t step, const std::string& name, const torch::Tensor& t,
                     wire::Phase phase) {
    auto it = m_membership.find(name);
    if (it == m_membership.end())
        it = m_membership.emplace(name, m_plan.collectionsOf(name)).first;
    std::map<std::string, double> computed;
    for (const auto* c : it->second) {
        if (!c->savesStep(step) || isScalarCollection(*c))
            continue;
        std::vector<std::string> wanted;
        for (const auto& x : reductionsOf(*c))
            if (!computed.count(x) && x != r::kUpdateL2Norm)
                wanted.push_back(x);
        for (auto& [k, v] : reduceTensor(t, wanted, optionsFor(name)))
            computed[k] = v;
        if (c->hasReduction(r::kUpdateL2Norm) && !computed.count(r::kUpdateL2Norm)) {
            if (auto before = m_before.find(name); before != m_before.end()) {
                torch::NoGradGuard noGrad;
                computed[r::kUpdateL2Norm] = (t.detach() - before->second).norm().item<double>();
            }
        }
        wire::TensorEvent e;
        e.collection = c->name;
        e.name = name;
        e.step = step;
        e.phase = phase;
        for (const auto& x : reductionsOf(*c)) {
            if (x == r::kChannelMeanPrefix) { // expanded per channel
                for (const auto& [k, v] : computed)
                    if (k.rfind(r::kChannelMeanPrefix, 0) == 0 || k == r::kSamples)
                        e.reductions.emplace_back(k, v);
            } else if (auto v = computed.find(x); v != computed.end()) {
                e.reductions.emplace_back(x, v->second);
            }
        }
        if (!e.reductions.empty())
            m_events.send(std::move(e));
        if (c->saveRawTensor)
            writeRaw(step, c->name, name, t);
    }
}

void DebugHook::emitScalar(const std::string& collection, const std::string& name,
                           std::int64_t step, double value, wire::Phase phase) {
    wire::TensorEvent e;
    e.collection = collection;
    e.name = name;
    e.step = step;
    e.phase = phase;
    e.reductions = {{r::kValue, value}};
    m_events.send(std::move(e));
}

void DebugHook::endStep(std::int64_t step, const NamedTensors& parameters,
                        std::optional<double> loss) {
    if (!m_plan.enabled)
        return;
    if (loss && m_options.reporter)
        for (const auto* c : m_plan.collectionsOf(debugger::tensor::kLoss))
            if (c->savesStep(step))
                emitScalar(c->name, debugger::tensor::kLoss, step, *loss, wire::Phase::Train);
    if (!m_capturing)
        return;
    for (const auto& [name, p] : parameters) {
        if (savesTensor(step, name))
            emit(step, name, p);
        const std::string gradName = debugger::tensor::kGradientPrefix + name;
        if (p.grad().defined() && savesTensor(step, gradName))
            emit(step, gradName, p.grad());
    }
    torch::Tensor labels, predicted;
    for (const auto& [name, t] : m_capture.tensors) {
        if (name == "#labels")
            labels = labels.defined() ? torch::cat({labels, t}) : t;
        else if (name == "#predicted")
            predicted = predicted.defined() ? torch::cat({predicted, t}) : t;
        else
            emit(step, name, t);
    }
    if (labels.defined()) {
        auto send = [&](const char* tensorName, std::vector<std::pair<std::string, double>> v) {
            for (const auto* c : m_plan.collectionsOf(tensorName))
                if (c->savesStep(step)) {
                    m_events.send(
                        wire::TensorEvent{c->name, tensorName, step, v, wire::Phase::Train});
                    if (c->saveRawTensor)
                        writeRaw(step, c->name, tensorName,
                                 tensorName == std::string(debugger::tensor::kLabels) ? labels
                                                                                      : predicted);
                }
        };
        send(debugger::tensor::kLabels, labelCounts(labels, predicted));
        send(debugger::tensor::kPredictions, predictionCounts(predicted));
    }
    m_capture.tensors.clear();
    m_before.clear();
    m_capturing = false;
}

void DebugHook::evaluation(std::int64_t step, double loss, double accuracy) {
    if (!m_plan.enabled || !m_options.reporter)
        return;
    // Evaluations are sparse already: every one is saved.
    for (const auto* c : m_plan.collectionsOf(debugger::tensor::kLoss))
        if (c->everyEval)
            emitScalar(c->name, debugger::tensor::kLoss, step, loss, wire::Phase::Eval);
    for (const auto* c : m_plan.collectionsOf(debugger::tensor::kAccuracy))
        if (c->everyEval)
            emitScalar(c->name, debugger::tensor::kAccuracy, step, accuracy, wire::Phase::Eval);
}

void DebugHook::writeRaw(std::int64_t step, const std::string& collection, const std::string& name,
                         const torch::Tensor& t) {
    if (m_options.rawDir.empty())
        return;
    char stepDir[32];
    std::snprintf(stepDir, sizeof stepDir, "step-%012lld", static_cast<long long>(step));
    const fs::path dir = fs::path(m_options.rawDir) / "tensors" / stepDir /
                         ("rank-" + std::to_string(m_options.rank));
    const fs::path file = dir / (fileSafe(name) + ".npy");
    if (fs::exists(file)) // already written for another collection
        return;
    torch::Tensor c = t.detach().cpu().contiguous(); // a GPU rank's tensors come to the host
    const bool integral = !c.is_floating_point();
    c = integral ? c.to(torch::kLong) : c.to(torch::kFloat);
    std::vector<std::int64_t> shape(c.sizes().begin(), c.sizes().end());
    writeNpy(file.string(), integral ? "<i8" : "<f4", shape, c.data_ptr(),
             static_cast<std::size_t>(c.numel()) * c.element_size());
    nlohmann::json line = {{"step", step},
                           {"rank", m_options.rank},
                           {"collection", collection},
                           {"tensor", name},
                           {"file", fs::relative(file, m_options.rawDir).string()},
                           {"shape", shape},
                           {"dtype", integral ? "int64" : "float32"}};
    std::ofstream index(fs::path(m_options.rawDir) /
                            ("index-rank-" + std::to_string(m_options.rank) + ".jsonl"),
                        std::ios::app);
    index << line.dump() << "\n";
}

} // namespace studio::train

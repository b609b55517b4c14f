#include "engine/train/probe.h"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <c10/util/Exception.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/cuda.h>
#include <torch/version.h>

#ifdef STUDIO_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime_api.h>
#include <torch/csrc/cuda/nccl.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <cstdio>
#include <sstream>

namespace studio::train {

namespace {

#ifdef STUDIO_WITH_CUDA
constexpr bool kCudaCompiled = true;
#else
constexpr bool kCudaCompiled = false;
#endif

std::string firstLine(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

// c10 errors carry a backtrace: the message alone.
std::string errorText(const std::exception& e) {
    if (const auto* c = dynamic_cast<const c10::Error*>(&e))
        return firstLine(c->what_without_backtrace());
    return firstLine(e.what());
}

// "BLAS_INFO=open" from LibTorch's build configuration, "ATen parallel backend: OpenMP" from its
// parallel info: the value after the key.
std::string configValue(const std::string& text, const std::string& key) {
    auto at = text.find(key);
    if (at == std::string::npos)
        return {};
    at += key.size();
    while (at < text.size() && (text[at] == '=' || text[at] == ':' || text[at] == ' '))
        ++at;
    return text.substr(at, text.find_first_of(",\n", at) - at);
}

// A one-rank Gloo group on loopback: Gloo is compiled in and can open its transport.
std::string glooCheck() {
    try {
        auto store = c10::make_intrusive<c10d::HashStore>();
        auto opts = c10d::ProcessGroupGloo::Options::create();
        opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
        c10d::ProcessGroupGloo group(store, 0, 1, opts);
        return "ok";
    } catch (const std::exception& e) {
        return "unavailable: " + errorText(e);
    }
}

nlohmann::json cudaFacts() {
    nlohmann::json j = {{"cuda_runtime", ""}, {"devices", nlohmann::json::array()}};
    nlohmann::json nccl = {{"compiled", false}, {"version", ""}, {"process_group", ""}};
#ifdef STUDIO_WITH_CUDA
    int runtime = 0;
    if (cudaRuntimeGetVersion(&runtime) == cudaSuccess)
        j["cuda_runtime"] =
            std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
    const int count =
        torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
    for (int i = 0; i < count; ++i) {
        const cudaDeviceProp* p = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(i));
        j["devices"].push_back(
            {{"index", i},
             {"name", p->name},
             {"memory_bytes", static_cast<std::int64_t>(p->totalGlobalMem)},
             {"capability", std::to_string(p->major) + "." + std::to_string(p->minor)}});
    }
    const std::uint64_t v = torch::cuda::nccl::version();
    nccl["compiled"] = true;
    nccl["version"] = std::to_string(v >> 32) + "." + std::to_string((v >> 16) & 0xffff) + "." +
                      std::to_string(v & 0xffff);
    // Construct a one-rank NCCL group: without a device this fails, and says why.
    try {
        auto store = c10::make_intrusive<c10d::HashStore>();
        auto opts = c10d::ProcessGroupNCCL::Options::create();
        c10d::ProcessGroupNCCL group(store, 0, 1, opts);
        nccl["process_group"] = "ok";
    } catch (const std::exception& e) {
        nccl["process_group"] = "unavailable: " + errorText(e);
    }
#else
    nccl["process_group"] = "unavailable: this LibTorch was built without CUDA";
#endif
    j["nccl"] = nccl;
    return j;
}

} // namespace

nlohmann::json probeTrainer() {
    const std::string config = at::show_config();
    nlohmann::json j = {{"libtorch", TORCH_VERSION},
                        {"cuda_compiled", kCudaCompiled},
                        {"cuda_available", torch::cuda::is_available()}};
    j.update(cudaFacts());
    const std::string gloo = glooCheck();
    j["gloo"] = gloo == "ok";
    j["gloo_check"] = gloo;
    std::string blas = configValue(config, "BLAS_INFO");
    j["blas"] = blas.empty() ? "unknown" : blas;
    j["threads"] = {{"intra_op", at::get_num_threads()},
                    {"inter_op", at::get_num_interop_threads()}};
    j["parallel"] = configValue(at::get_parallel_info(), "ATen parallel backend");
    j["amp"] =
        torch::cuda::is_available() ? nlohmann::json{"bf16", "fp16"} : nlohmann::json{"bf16"};
    return j;
}

std::string probeText(const nlohmann::json& p) {
    std::ostringstream out;
    auto line = [&](const char* label, const std::string& value) {
        char head[24];
        std::snprintf(head, sizeof head, "%-16s", label);
        out << head << value << "\n";
    };
    line("LibTorch", p["libtorch"].get<std::string>() +
                         (p["cuda_compiled"].get<bool>() ? " (CUDA build)" : " (CPU build)"));
    line("CUDA", p["cuda_available"].get<bool>()
                     ? "available, runtime " + p["cuda_runtime"].get<std::string>()
                     : "no CUDA device");
    for (const auto& d : p["devices"]) {
        char gib[32];
        std::snprintf(gib, sizeof gib, "%.1f GiB",
                      static_cast<double>(d["memory_bytes"].get<std::int64_t>()) / (1 << 30));
        line(("  cuda:" + std::to_string(d["index"].get<int>())).c_str(),
             d["name"].get<std::string>() + ", " + gib + ", compute " +
                 d["capability"].get<std::string>());
    }
    const auto& nccl = p["nccl"];
    line("NCCL", nccl["compiled"].get<bool>()
                     ? nccl["version"].get<std::string>() + "; process group " +
                           nccl["process_group"].get<std::string>()
                     : "not compiled in");
    line("Gloo", p["gloo_check"].get<std::string>());
    line("BLAS", p["blas"].get<std::string>());
    line("Threads", std::to_string(p["threads"]["intra_op"].get<int>()) + " intra-op, " +
                        std::to_string(p["threads"]["inter_op"].get<int>()) + " inter-op");
    line("Parallel", p["parallel"].get<std::string>());
    std::string amp;
    for (const auto& a : p["amp"])
        amp += (amp.empty() ? "" : ", ") + a.get<std::string>();
    line("Mixed precision", amp);
    return out.str();
}

} // namespace studio::train

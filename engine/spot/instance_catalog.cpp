#include "engine/spot/instance_catalog.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace studio::spot {

namespace fs = std::filesystem;

InstanceCatalog InstanceCatalog::load(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("cannot read instance catalog " + path);
    nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("instances") ||
        !doc["instances"].is_array())
        throw std::runtime_error(path + ": expected an object with an \"instances\" array");
    InstanceCatalog c;
    c.m_priceSource = doc.value("price_source", "");
    c.m_priceDate = doc.value("price_date", "");
    std::size_t i = 0;
    for (const auto& item : doc["instances"]) {
        const std::string where = path + ": instances[" + std::to_string(i++) + "]";
        if (!item.is_object() || !item.contains("name") || !item["name"].is_string())
            throw std::runtime_error(where + ": needs a \"name\" string");
        InstanceType t;
        try {
            t.name = item["name"].get<std::string>();
            t.vcpus = item.value("vcpus", 0);
            t.memoryGiB = item.value("memory_gib", 0.0);
            t.gpus = item.value("gpus", 0);
            t.gpu = item.value("gpu", "");
            if (item.contains("on_demand_per_hour"))
                t.onDemandPerHour = item["on_demand_per_hour"].get<double>();
            if (item.contains("spot_per_hour"))
                t.spotPerHour = item["spot_per_hour"].get<double>();
        } catch (const nlohmann::json::exception& e) {
            throw std::runtime_error(where + ": " + e.what());
        }
        c.m_types.push_back(std::move(t));
    }
    return c;
}

const InstanceCatalog& InstanceCatalog::shipped() {
    static const InstanceCatalog catalog = load(findResource("catalog/instances.json"));
    return catalog;
}

const InstanceType* InstanceCatalog::find(std::string_view name) const {
    for (const auto& t : m_types)
        if (t.name == name)
            return &t;
    return nullptr;
}

std::vector<std::string> InstanceCatalog::names() const {
    std::vector<std::string> out;
    for (const auto& t : m_types)
        out.push_back(t.name);
    return out;
}

std::vector<ResourceRoot> resourceRoots(const std::string& self, const char* env) {
    std::vector<ResourceRoot> roots;
    if (env && *env)
        roots.push_back({env, "MLSTUDIO_RESOURCES"});
    if (!self.empty()) {
        const fs::path dir = fs::path(self).parent_path();
        roots.push_back({(dir.parent_path() / "share" / "mlstudio").string(), "installed"});
        roots.push_back(
            {(dir.parent_path().parent_path() / "share" / "mlstudio").string(), "installed"});
    }
    roots.push_back({(fs::path(STUDIO_SOURCE_DIR) / "resources").string(), "source tree"});
    return roots;
}

ResourceRoot findResourceRoot(std::string_view relative) {
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    const std::string self = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
    const auto roots = resourceRoots(self, std::getenv("MLSTUDIO_RESOURCES"));
    std::string tried;
    for (const auto& root : roots) {
        const fs::path p = fs::path(root.path) / relative;
        std::error_code ec;
        if (fs::exists(p, ec))
            return {fs::path(root.path).lexically_normal().string(), root.origin};
        tried += (tried.empty() ? "" : ", ") + p.string();
    }
    throw std::runtime_error("resource " + std::string(relative) + " not found (tried " + tried +
                             ")");
}

std::string findResource(std::string_view relative) {
    return (fs::path(findResourceRoot(relative).path) / relative).string();
}

} // namespace studio::spot

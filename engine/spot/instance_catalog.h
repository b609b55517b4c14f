// Instance types and their prices from resources/catalog/instances.json, and where the studio's
// resources live. A library of its own (studio_spot_catalog): the spec parser checks instance_type
// against it, billing prices a job with it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace studio::spot {

struct InstanceType {
    std::string name;
    int vcpus = 0;
    double memoryGiB = 0;
    int gpus = 0;
    std::string gpu;
    std::optional<double> onDemandPerHour; // USD
    std::optional<double> spotPerHour;     // USD
};

class InstanceCatalog {
public:
    // Throws std::runtime_error naming the file when it is missing or malformed.
    static InstanceCatalog load(const std::string& path);
    // The catalog shipped with the studio (loaded once).
    static const InstanceCatalog& shipped();

    const InstanceType* find(std::string_view name) const;
    std::vector<std::string> names() const;
    const std::vector<InstanceType>& all() const { return m_types; }
    const std::string& priceSource() const { return m_priceSource; }
    const std::string& priceDate() const { return m_priceDate; }

private:
    std::vector<InstanceType> m_types;
    std::string m_priceSource;
    std::string m_priceDate;
};

// A folder that may hold the studio's resources (resources/ of the source tree, or
// /usr/share/mlstudio once installed), and why it is on the list.
struct ResourceRoot {
    std::string path;
    std::string origin; // "MLSTUDIO_RESOURCES", "installed" or "source tree"
};

// The folders looked in, in order, for an executable at self: env ($MLSTUDIO_RESOURCES) when
// set, <self's folder>/../share/mlstudio (mlstudio in /usr/bin), <self's folder>/../../share/
// mlstudio (a helper in /usr/lib/mlstudio), then the source tree this build was made from.
std::vector<ResourceRoot> resourceRoots(const std::string& self, const char* env);

// The first root of this process's resourceRoots that holds relative. Throws
// std::runtime_error listing the places tried.
ResourceRoot findResourceRoot(std::string_view relative);

// Absolute path of a file under the resources: findResourceRoot(relative)'s path / relative.
std::string findResource(std::string_view relative);

} // namespace studio::spot

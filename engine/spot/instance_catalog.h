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

// Absolute path of a file under resources/: $MLSTUDIO_RESOURCES, then <exe>/../share/mlstudio,
// then the source tree. Throws std::runtime_error listing the places tried.
std::string findResource(std::string_view relative);

} // namespace studio::spot

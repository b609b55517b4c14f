// Fuzzes the checkpoint manifest check: any JSON is an entry or a reason, and an entry never
// names a file outside the checkpoint folder.
#include "engine/train/checkpoint_files.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto manifest = nlohmann::json::parse(data, data + size, nullptr, false);
    std::string why;
    const auto entry = studio::train::manifestEntry(manifest, "model", why);
    if (!entry) {
        if (why.empty())
            std::abort();
        return 0;
    }
    const std::string& file = entry->path;
    if (file.empty() || file == "." || file == ".." || file.find('/') != std::string::npos ||
        file.find('\0') != std::string::npos || entry->tag != "model")
        std::abort();
    return 0;
}

// Typed reads from a JSON spec document that collect every error with its path instead of
// stopping at the first. Internal to engine/spec.
#pragma once

#include "engine/spec/spec_error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace studio::spec {

using nlohmann::json;

std::string childPath(const std::string& path, const std::string& key);
std::string indexPath(const std::string& path, std::size_t i);
// Compact rendering of a value for "got ..." (long values are cut).
std::string describeValue(const json& v);

// Specs nest a few levels; deeper text is refused before it is parsed (pretty-printing a
// deeply nested document takes time and memory quadratic in its depth).
inline constexpr std::size_t kMaxSpecNesting = 32;
// The deepest nesting of [ and { outside strings, and the byte offset where it is reached.
std::size_t jsonNesting(std::string_view text, std::size_t* where = nullptr);
std::string quoteList(const std::vector<std::string>& items);

class SpecReader {
public:
    std::vector<SpecError> errors;

    void error(const std::string& path, std::string message);
    void mustBe(const std::string& path, const std::string& what, const json& got);

    // Reports keys of obj that are not in allowed, each with a suggestion.
    void checkKeys(const json& obj, const std::string& path,
                   const std::vector<std::string>& allowed);
    bool isObject(const json& v, const std::string& path);

    // Field readers: absent -> nullopt without error; present but invalid -> error and nullopt.
    std::optional<std::string> string(const json& obj, const std::string& key,
                                      const std::string& path, bool allowEmpty = false);
    std::optional<std::string> oneOf(const json& obj, const std::string& key,
                                     const std::string& path,
                                     const std::vector<std::string>& allowed);
    // SageMaker passes many integers as strings ("500"); acceptString allows that form.
    std::optional<std::int64_t> integer(const json& obj, const std::string& key,
                                        const std::string& path, std::int64_t min,
                                        std::int64_t max = INT64_MAX, bool acceptString = false);
    std::optional<double> number(const json& obj, const std::string& key, const std::string& path,
                                 double min, double max, bool acceptString = false);
    std::optional<bool> boolean(const json& obj, const std::string& key, const std::string& path,
                                bool acceptString = false);

    // Same checks on a bare value (for array items and map values).
    std::optional<std::int64_t> integerValue(const json& v, const std::string& path,
                                             std::int64_t min, std::int64_t max, bool acceptString);
    std::optional<double> numberValue(const json& v, const std::string& path, double min,
                                      double max, bool acceptString);
    std::optional<bool> booleanValue(const json& v, const std::string& path, bool acceptString);
};

} // namespace studio::spec

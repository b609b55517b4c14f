// --set key.path=value: edits a spec document before validation.
#include "engine/spec/spec_json.h"
#include "engine/spec/spec_reader.h"

#include <charconv>

namespace studio::spec {
namespace {

// "rules[0].parameters.threshold" and "rules.0.parameters.threshold" address the same field.
std::vector<std::string> splitPath(std::string_view path) {
    std::vector<std::string> parts;
    std::string cur;
    for (char c : path) {
        if (c == '.' || c == '[' || c == ']') {
            if (!cur.empty())
                parts.push_back(cur);
            cur.clear();
        } else {
            cur.push_back(c);
        }
    }
    if (!cur.empty())
        parts.push_back(cur);
    return parts;
}

std::optional<std::size_t> asIndex(const std::string& s) {
    std::size_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size())
        return std::nullopt;
    return v;
}

} // namespace

void applyOverride(nlohmann::json& doc, std::string_view assignment) {
    const std::string where = "--set " + std::string(assignment);
    auto fail = [&](const std::string& message) {
        throw SpecException({SpecError{"", where + ": " + message}});
    };
    auto eq = assignment.find('=');
    if (eq == std::string_view::npos || eq == 0)
        fail("expected key.path=value");
    // A command line may carry any bytes, but the document is JSON, whose strings are UTF-8:
    // refused here, it names the --set; kept, dumping the document would throw later.
    try {
        (void)nlohmann::json(std::string(assignment)).dump();
    } catch (const nlohmann::json::type_error&) {
        fail("not valid UTF-8");
    }
    std::vector<std::string> parts = splitPath(assignment.substr(0, eq));
    if (parts.empty())
        fail("expected key.path=value");
    std::string_view text = assignment.substr(eq + 1);
    if (jsonNesting(text) > kMaxSpecNesting)
        fail("the value nests deeper than " + std::to_string(kMaxSpecNesting) + " levels");
    nlohmann::json value = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
    if (value.is_discarded())
        value = std::string(text);

    nlohmann::json* node = &doc;
    std::string walked;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string& part = parts[i];
        const bool last = i + 1 == parts.size();
        if (node->is_null()) // a new level: an array when addressed by index, else an object
            *node = asIndex(part) ? nlohmann::json::array() : nlohmann::json::object();
        if (node->is_array()) {
            auto idx = asIndex(part);
            if (!idx)
                fail(walked + " is an array; \"" + part + "\" is not an index");
            if (*idx > node->size())
                fail(walked + " has " + std::to_string(node->size()) + " elements");
            if (*idx == node->size())
                node->push_back(nullptr);
            node = &(*node)[*idx];
        } else if (node->is_object()) {
            node = &(*node)[part];
        } else {
            fail((walked.empty() ? "the document" : walked) + " is not an object");
        }
        walked += (walked.empty() ? "" : ".") + part;
        if (last)
            *node = value;
    }
}

} // namespace studio::spec

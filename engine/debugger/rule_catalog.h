// The built-in Debugger rules a spec may name, with SageMaker's parameter names and defaults.
// Data only, in a library of its own (studio_debugger_catalog): the rules in this folder implement
// them, and the spec parser validates against this table without linking them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace studio::debugger {

enum class RuleKind { Model, Profiler };
enum class ParamType { Number, Integer, Boolean, Text, Regex, NumberPair };

struct RuleParam {
    std::string name;
    ParamType type;
    std::string defaultValue; // as SageMaker writes it; "" means None
};

struct RuleInfo {
    std::string name;
    RuleKind kind;
    std::string description;
    std::vector<RuleParam> params;
};

const std::vector<RuleInfo>& ruleCatalog();
const RuleInfo* findRule(std::string_view name);
std::vector<std::string> ruleNames();

// Longest regular expression a spec may hold: std::regex compiles recursively, about a stack
// frame per character, and 100 KiB of pattern overflows the stack.
inline constexpr std::size_t kMaxRegexLength = 1024;

// True when text is a valid value of the type ("" is valid for every type: None).
bool paramValueValid(ParamType type, const std::string& text);
const char* paramTypeDescription(ParamType type);

} // namespace studio::debugger

#include "engine/debugger/rule_registry.h"

namespace studio::debugger {

std::unique_ptr<Rule> makeBuiltinRule(const std::string& name,
                                      const std::map<std::string, std::string>& parameters) {
    const RuleInfo* info = findRule(name);
    if (!info)
        throw RuleConfigError("unknown rule \"" + name + "\"");
    RuleParams params(*info, parameters);
    std::unique_ptr<Rule> rule =
        info->kind == RuleKind::Model ? makeModelRule(params) : makeProfilerRule(params);
    if (!rule)
        throw RuleConfigError("rule \"" + name + "\" has no implementation");
    return rule;
}

} // namespace studio::debugger

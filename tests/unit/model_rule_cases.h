// The rule rows of test_model_rules (model_rule_cases.cpp).
#pragma once

#include <string>
#include <vector>

namespace studio::testing {

struct ModelRuleCase {
    std::string tag;
    std::string rule;
    std::string params;   // "key=value;key=value"
    std::string stream;   // a name model_rule_streams.h knows
    std::string status;   // IssuesFound, NoIssuesFound or NotApplicable
    std::string text;     // in the first finding, or the NotApplicable reason
    std::string criteria; // in criteria(); "" not checked
    std::string device;   // the first finding's device; "" not checked
};

std::vector<ModelRuleCase> modelRuleCases();

} // namespace studio::testing

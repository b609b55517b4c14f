#include "engine/debugger/rule.h"

#include <charconv>
#include <cmath>

namespace studio::debugger {

const char* ruleStatusName(RuleStatus s) {
    switch (s) {
    case RuleStatus::InProgress:
        return "InProgress";
    case RuleStatus::NoIssuesFound:
        return "NoIssuesFound";
    case RuleStatus::IssuesFound:
        return "IssuesFound";
    case RuleStatus::Error:
        return "Error";
    case RuleStatus::NotApplicable:
        return "NotApplicable";
    }
    return "Error";
}

namespace {

std::string trim(std::string s) {
    s.erase(0, s.find_first_not_of(" \t"));
    s.erase(s.find_last_not_of(" \t") + 1);
    return s;
}

std::optional<double> parseNumber(const std::string& text) {
    const std::string t = trim(text);
    double v = 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size() || t.empty())
        return std::nullopt;
    return v;
}

} // namespace

RuleParams::RuleParams(const RuleInfo& info, std::map<std::string, std::string> given)
    : m_info(&info)
    , m_given(std::move(given)) {
    for (const auto& [name, value] : m_given) {
        bool known = false;
        for (const auto& p : info.params)
            known = known || p.name == name;
        if (!known)
            throw RuleConfigError(info.name + ": unknown parameter \"" + name + "\"");
    }
}

std::string RuleParams::raw(const std::string& name) const {
    if (auto it = m_given.find(name); it != m_given.end())
        return it->second;
    for (const auto& p : m_info->params)
        if (p.name == name)
            return p.defaultValue;
    throw RuleConfigError(m_info->name + " has no parameter \"" + name + "\"");
}

bool RuleParams::has(const std::string& name) const {
    return !raw(name).empty() && raw(name) != "None";
}

double RuleParams::number(const std::string& name) const {
    const std::string r = raw(name);
    if (r.empty() || r == "None")
        throw RuleConfigError(m_info->name + ": parameter " + name + " needs a value");
    auto v = parseNumber(r);
    if (!v || !std::isfinite(*v))
        throw RuleConfigError(m_info->name + ": parameter " + name + " must be a number, got \"" +
                              r + "\"");
    return *v;
}

std::int64_t RuleParams::integer(const std::string& name) const {
    const double v = number(name);
    if (std::floor(v) != v)
        throw RuleConfigError(m_info->name + ": parameter " + name + " must be an integer, got " +
                              raw(name));
    return static_cast<std::int64_t>(v);
}

bool RuleParams::boolean(const std::string& name) const {
    const std::string r = trim(raw(name));
    if (r == "True" || r == "true")
        return true;
    if (r == "False" || r == "false" || r.empty() || r == "None")
        return false;
    throw RuleConfigError(m_info->name + ": parameter " + name +
                          " must be \"True\" or \"False\", got \"" + r + "\"");
}

std::string RuleParams::text(const std::string& name) const {
    const std::string r = raw(name);
    return r == "None" ? std::string() : r;
}

std::pair<double, double> RuleParams::numberPair(const std::string& name) const {
    std::string r = raw(name);
    // SageMaker writes pairs as "(-9.4999, 9.4999)" or "-9.4999,9.4999".
    if (!r.empty() && r.front() == '(' && r.back() == ')')
        r = r.substr(1, r.size() - 2);
    const auto comma = r.find(',');
    std::optional<double> a, b;
    if (comma != std::string::npos) {
        a = parseNumber(r.substr(0, comma));
        b = parseNumber(r.substr(comma + 1));
    }
    if (!a || !b)
        throw RuleConfigError(m_info->name + ": parameter " + name +
                              " must be two numbers \"min,max\", got \"" + raw(name) + "\"");
    return {*a, *b};
}

std::vector<std::string> RuleParams::list(const std::string& name) const {
    std::vector<std::string> out;
    const std::string r = text(name);
    std::size_t pos = 0;
    while (pos < r.size()) {
        std::size_t comma = r.find(',', pos);
        std::string item = trim(r.substr(pos, comma - pos));
        if (!item.empty())
            out.push_back(item);
        pos = comma == std::string::npos ? r.size() : comma + 1;
    }
    return out;
}

std::optional<double> RuleParams::optionalNumber(const std::string& name) const {
    if (!has(name))
        return std::nullopt;
    return number(name);
}

std::optional<std::int64_t> RuleParams::optionalInteger(const std::string& name) const {
    if (!has(name))
        return std::nullopt;
    return integer(name);
}

std::string RuleParams::describe() const {
    std::string out;
    for (const auto& p : m_info->params) {
        const std::string r = raw(p.name);
        out += (out.empty() ? "" : ", ") + p.name + "=" + (r.empty() ? "None" : r);
    }
    return out;
}

Rule::Rule(std::string name, RuleKind kind)
    : m_name(std::move(name))
    , m_kind(kind) {
}

void Rule::finish(double /*now*/) {
    if (m_status != RuleStatus::InProgress)
        return;
    if (m_datapoints > 0) {
        m_status = RuleStatus::NoIssuesFound;
    } else {
        m_status = RuleStatus::NotApplicable;
        m_statusMessage = noDataReason();
    }
}

std::vector<Finding> Rule::takeNewFindings() {
    std::vector<Finding> out;
    out.swap(m_new);
    return out;
}

void Rule::setError(const std::string& message) {
    m_status = RuleStatus::Error;
    m_statusMessage = message;
}

void Rule::fire(Finding f) {
    if (m_status == RuleStatus::Error)
        return;
    if (f.criteria.empty())
        f.criteria = criteria();
    ++m_fired;
    m_status = RuleStatus::IssuesFound;
    m_statusMessage = f.message;
    m_new.push_back(std::move(f));
}

void Rule::setNotApplicable(const std::string& why) {
    if (m_status == RuleStatus::IssuesFound || m_status == RuleStatus::Error)
        return;
    m_status = RuleStatus::NotApplicable;
    m_statusMessage = why;
}

} // namespace studio::debugger

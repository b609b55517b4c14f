#include "engine/spec/spec_reader.h"

#include "engine/spec/suggest.h"

#include <charconv>
#include <cmath>

namespace studio::spec {

SpecException::SpecException(std::vector<SpecError> errors)
    : m_errors(std::move(errors)) {
    for (const auto& e : m_errors) {
        if (!m_text.empty())
            m_text += "\n";
        m_text += e.text();
    }
}

std::string childPath(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
}

std::string indexPath(const std::string& path, std::size_t i) {
    return path + "[" + std::to_string(i) + "]";
}

std::size_t jsonNesting(std::string_view text, std::size_t* where) {
    std::size_t depth = 0, deepest = 0;
    bool inString = false, escaped = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > deepest) {
                deepest = depth;
                if (where)
                    *where = i;
            }
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

std::string describeValue(const json& v) {
    std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
    if (s.size() > 60)
        s = s.substr(0, 57) + "...";
    return s;
}

std::string quoteList(const std::vector<std::string>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i)
            out += i + 1 == items.size() ? " or " : ", ";
        out += "\"" + items[i] + "\"";
    }
    return out;
}

void SpecReader::error(const std::string& path, std::string message) {
    errors.push_back(SpecError{path, std::move(message)});
}

void SpecReader::mustBe(const std::string& path, const std::string& what, const json& got) {
    error(path, "must be " + what + ", got " + describeValue(got));
}

void SpecReader::checkKeys(const json& obj, const std::string& path,
                           const std::vector<std::string>& allowed) {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end())
            continue;
        std::string hint = didYouMean(it.key(), allowed);
        if (hint.empty())
            hint = "; allowed keys: " + quoteList(allowed);
        error(childPath(path, it.key()), "unknown key" + hint);
    }
}

bool SpecReader::isObject(const json& v, const std::string& path) {
    if (v.is_object())
        return true;
    mustBe(path, "an object", v);
    return false;
}

std::optional<std::string> SpecReader::string(const json& obj, const std::string& key,
                                              const std::string& path, bool allowEmpty) {
    auto it = obj.find(key);
    if (it == obj.end())
        return std::nullopt;
    const std::string p = childPath(path, key);
    if (!it->is_string()) {
        mustBe(p, "a string", *it);
        return std::nullopt;
    }
    std::string s = it->get<std::string>();
    if (s.empty() && !allowEmpty) {
        error(p, "must not be empty");
        return std::nullopt;
    }
    return s;
}

std::optional<std::string> SpecReader::oneOf(const json& obj, const std::string& key,
                                             const std::string& path,
                                             const std::vector<std::string>& allowed) {
    auto it = obj.find(key);
    if (it == obj.end())
        return std::nullopt;
    const std::string p = childPath(path, key);
    if (!it->is_string() ||
        std::find(allowed.begin(), allowed.end(), it->get<std::string>()) == allowed.end()) {
        std::string hint = it->is_string() ? didYouMean(it->get<std::string>(), allowed) : "";
        mustBe(p, "one of " + quoteList(allowed), *it);
        if (!hint.empty())
            errors.back().message += hint;
        return std::nullopt;
    }
    return it->get<std::string>();
}

namespace {
std::string rangeText(const char* kind, double min, double max, bool isInt) {
    auto fmt = [isInt](double v) {
        if (isInt)
            return std::to_string(static_cast<std::int64_t>(v));
        std::string s = std::to_string(v);
        s.erase(s.find_last_not_of('0') + 1);
        if (s.back() == '.')
            s.pop_back();
        return s;
    };
    std::string text = kind;
    const double top = isInt ? static_cast<double>(INT64_MAX) : HUGE_VAL;
    if (max < top)
        text += " between " + fmt(min) + " and " + fmt(max);
    else
        text += " >= " + fmt(min);
    return text;
}
} // namespace

std::optional<std::int64_t> SpecReader::integerValue(const json& v, const std::string& path,
                                                     std::int64_t min, std::int64_t max,
                                                     bool acceptString) {
    const std::string what =
        rangeText("an integer", static_cast<double>(min), static_cast<double>(max), true);
    std::optional<std::int64_t> value;
    if (v.is_number_integer()) {
        value = v.get<std::int64_t>();
    } else if (v.is_number_float()) {
        double d = v.get<double>();
        if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9e15)
            value = static_cast<std::int64_t>(d);
    } else if (acceptString && v.is_string()) {
        const auto& s = v.get_ref<const std::string&>();
        std::int64_t parsed = 0;
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), parsed);
        if (ec == std::errc() && end == s.data() + s.size() && !s.empty())
            value = parsed;
    }
    if (!value || *value < min || *value > max) {
        mustBe(path, what, v);
        return std::nullopt;
    }
    return value;
}

std::optional<double> SpecReader::numberValue(const json& v, const std::string& path, double min,
                                              double max, bool acceptString) {
    std::optional<double> value;
    if (v.is_number()) {
        value = v.get<double>();
    } else if (acceptString && v.is_string()) {
        const auto& s = v.get_ref<const std::string&>();
        double parsed = 0;
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), parsed);
        if (ec == std::errc() && end == s.data() + s.size() && !s.empty())
            value = parsed;
    }
    if (!value || !std::isfinite(*value) || *value < min || *value > max) {
        mustBe(path, rangeText("a number", min, max, false), v);
        return std::nullopt;
    }
    return value;
}

std::optional<bool> SpecReader::booleanValue(const json& v, const std::string& path,
                                             bool acceptString) {
    if (v.is_boolean())
        return v.get<bool>();
    if (acceptString && v.is_string()) {
        const auto& s = v.get_ref<const std::string&>();
        if (s == "true" || s == "True")
            return true;
        if (s == "false" || s == "False")
            return false;
    }
    mustBe(path, "true or false", v);
    return std::nullopt;
}

std::optional<std::int64_t> SpecReader::integer(const json& obj, const std::string& key,
                                                const std::string& path, std::int64_t min,
                                                std::int64_t max, bool acceptString) {
    auto it = obj.find(key);
    if (it == obj.end())
        return std::nullopt;
    return integerValue(*it, childPath(path, key), min, max, acceptString);
}

std::optional<double> SpecReader::number(const json& obj, const std::string& key,
                                         const std::string& path, double min, double max,
                                         bool acceptString) {
    auto it = obj.find(key);
    if (it == obj.end())
        return std::nullopt;
    return numberValue(*it, childPath(path, key), min, max, acceptString);
}

std::optional<bool> SpecReader::boolean(const json& obj, const std::string& key,
                                        const std::string& path, bool acceptString) {
    auto it = obj.find(key);
    if (it == obj.end())
        return std::nullopt;
    return booleanValue(*it, childPath(path, key), acceptString);
}

} // namespace studio::spec

#include "app/cli/studio_url.h"

#include "app/cli/cli.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <stdexcept>
#include <string_view>

namespace studio::cli {

namespace {

constexpr std::string_view kScheme = "mlstudio:";
constexpr std::string_view kJobPrefix = "//job/";

bool startsWithNoCase(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() &&
           std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) ==
                      std::tolower(static_cast<unsigned char>(b));
           });
}

int hexValue(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// The name (a view into url) with its %XX escapes decoded; throws naming the character (from 1)
// where a bad escape starts.
std::string percentDecoded(std::string_view name, const std::string& url) {
    std::string out;
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] != '%') {
            out += name[i];
            continue;
        }
        const int high = i + 2 < name.size() ? hexValue(name[i + 1]) : -1;
        const int low = high >= 0 ? hexValue(name[i + 2]) : -1;
        if (high < 0 || low < 0)
            throw std::invalid_argument(url + ": '%' must be followed by two hex digits (at " +
                                        "character " +
                                        std::to_string(name.data() - url.data() + i + 1) + ")");
        out += static_cast<char>(high * 16 + low);
        i += 2;
    }
    return out;
}

} // namespace

bool isStudioUrl(const std::string& word) {
    return startsWithNoCase(word, kScheme);
}

StudioUrl parseStudioUrl(const std::string& url) {
    if (!isStudioUrl(url))
        throw std::invalid_argument(url + ": not a mlstudio:// address");
    std::string_view rest = std::string_view(url).substr(kScheme.size());
    if (!startsWithNoCase(rest, kJobPrefix))
        throw std::invalid_argument(url + ": expected mlstudio://job/NAME");
    rest.remove_prefix(kJobPrefix.size());
    if (rest.find_first_of("?#") != std::string_view::npos)
        throw std::invalid_argument(url + ": a job address has no query or fragment (?, #)");
    if (!rest.empty() && rest.back() == '/')
        rest.remove_suffix(1);
    if (rest.empty())
        throw std::invalid_argument(url + ": no job name after mlstudio://job/");
    StudioUrl parsed{percentDecoded(rest, url)};
    for (const char c : parsed.job)
        if (c == '/' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            throw std::invalid_argument(url + ": a job name has no '/' or control characters");
    return parsed;
}

int cmdOpenUrl(const std::string& url, const QtHooks& hooks) {
    StudioUrl parsed;
    try {
        parsed = parseStudioUrl(url);
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "mlstudio: %s\n", e.what());
        return kExitUsage;
    }
    if (hooks.openJob)
        return hooks.openJob(parsed.job);
    std::printf("No display: %s would open job %s in the studio window. Its summary:\n\n",
                url.c_str(), parsed.job.c_str());
    std::fflush(stdout);
    try {
        return cmdShow(parsed.job, false);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mlstudio: %s\n", e.what());
        return kExitFailed;
    }
}

} // namespace studio::cli

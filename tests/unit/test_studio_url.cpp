// mlstudio://job/NAME addresses, as notebooks link them and the desktop hands them over: the
// names they give (percent-encoding decoded) and the errors bad ones get.
#include "app/cli/studio_url.h"

#include "tests/support/plain_test.h"

#include <stdexcept>
#include <string>

using studio::cli::isStudioUrl;
using studio::cli::parseStudioUrl;

namespace {

// The message a bad address gets; "" when it parses.
std::string errorOf(const std::string& url) {
    try {
        parseStudioUrl(url);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return {};
}

struct GoodRow {
    const char* url;
    const char* job;
};

const GoodRow kGood[] = {
    {"mlstudio://job/fmnist-dp-1x2", "fmnist-dp-1x2"},
    {"mlstudio://job/fmnist-2026-11-26-19-55-00-123/", "fmnist-2026-11-26-19-55-00-123"},
    {"MLStudio://JOB/Tb-Run", "Tb-Run"},
    {"mlstudio://job/run%201%2db%2D2", "run 1-b-2"},
    {"mlstudio://job/caf%C3%A9", "caf\xc3\xa9"},
    {"mlstudio://job/a%2e", "a."},
};

struct BadRow {
    const char* url;
    const char* message;
};

const BadRow kBad[] = {
    {"mlstudio:job/x", "mlstudio:job/x: expected mlstudio://job/NAME"},
    {"mlstudio://experiment/x", "mlstudio://experiment/x: expected mlstudio://job/NAME"},
    {"mlstudio://job/", "mlstudio://job/: no job name after mlstudio://job/"},
    {"mlstudio://job//", "mlstudio://job//: no job name after mlstudio://job/"},
    {"mlstudio://job/x?tab=logs",
     "mlstudio://job/x?tab=logs: a job address has no query or fragment (?, #)"},
    {"mlstudio://job/x#y", "mlstudio://job/x#y: a job address has no query or fragment (?, #)"},
    {"mlstudio://job/a%2", "mlstudio://job/a%2: '%' must be followed by two hex digits (at "
                           "character 17)"},
    {"mlstudio://job/a%zz", "mlstudio://job/a%zz: '%' must be followed by two hex digits (at "
                            "character 17)"},
    {"mlstudio://job/a/b", "mlstudio://job/a/b: a job name has no '/' or control characters"},
    {"mlstudio://job/a%2Fb", "mlstudio://job/a%2Fb: a job name has no '/' or control characters"},
    {"mlstudio://job/a%0Ab", "mlstudio://job/a%0Ab: a job name has no '/' or control characters"},
    {"https://job/x", "https://job/x: not a mlstudio:// address"},
};

} // namespace

TEST_CASE("jobNamesOfGoodAddresses") {
    for (const auto& row : kGood) {
        INFO(row.url);
        REQUIRE(isStudioUrl(row.url));
        REQUIRE(errorOf(row.url).empty());
        REQUIRE(parseStudioUrl(row.url).job == std::string(row.job));
    }
}

TEST_CASE("badAddressesSayWhatIsWrong") {
    for (const auto& row : kBad) {
        INFO(row.url);
        REQUIRE(errorOf(row.url) == std::string(row.message));
    }
    REQUIRE(isStudioUrl("mlstudio:anything"));
    REQUIRE(!isStudioUrl("run"));
    REQUIRE(!isStudioUrl("mlstudio"));
}

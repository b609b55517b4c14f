// mlstudio://job/NAME addresses: what a job's link in a notebook's output points at, and what
// the desktop hands `mlstudio` when such a link is clicked (the .desktop entry handles
// x-scheme-handler/mlstudio with `mlstudio %u`).
#pragma once

#include <string>

namespace studio::cli {

struct StudioUrl {
    std::string job; // the job's name, percent-decoded
};

// Whether a command-line word is meant as a studio address (its scheme is mlstudio, in any case),
// so that a malformed one is reported as a bad address rather than as an unknown command.
bool isStudioUrl(const std::string& word);

// Parses mlstudio://job/NAME (one trailing slash allowed; %XX escapes decoded). Throws
// std::invalid_argument naming the address and what is wrong with it: another scheme or kind,
// no name, a query or fragment, a bad escape, or a name with '/' or control characters.
StudioUrl parseStudioUrl(const std::string& url);

} // namespace studio::cli

// Table of invalid job specs with the error each must produce.
#pragma once

#include <string>
#include <vector>

struct SpecCase {
    std::string tag;
    std::string spec;
    std::string path;
    std::string message;
};

std::vector<SpecCase> invalidSpecCases();

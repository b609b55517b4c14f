// The JSON-level entry points of the spec parser, for callers that build documents themselves
// (the launch dialog, notebooks).
#pragma once

#include "engine/spec/spec_parser.h"

#include <nlohmann/json.hpp>

namespace studio::spec {

ParseResult parseSpecJson(nlohmann::json doc, const std::string& baseDir,
                          const ParseOptions& options = {});

// Applies one "key.path=value" assignment; throws SpecException naming the assignment.
void applyOverride(nlohmann::json& doc, std::string_view assignment);

} // namespace studio::spec

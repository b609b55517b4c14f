// Parsing and validation of job specs. Every error of a spec is reported at once, each naming its
// JSON path and what is allowed there; unknown keys come with a "did you mean" suggestion.
#pragma once

#include "engine/spec/job_spec.h"
#include "engine/spec/spec_error.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace studio::spec {

struct ParseOptions {
    bool checkFiles = true; // entry point script, source_dir and input paths must exist
};

struct ParseResult {
    std::optional<JobSpec> spec; // set only when errors is empty
    std::vector<SpecError> errors;

    bool ok() const { return errors.empty(); }
};

// overrides: "key.path=value" assignments applied to the document before validation; the value
// is JSON when it parses as JSON, else a string ("rules[0].name=AllZero", "instance_count=2").
ParseResult parseSpecFile(const std::string& path, const std::vector<std::string>& overrides = {},
                          const ParseOptions& options = {});
ParseResult parseSpecText(std::string_view text, const std::string& baseDir,
                          const std::vector<std::string>& overrides = {},
                          const ParseOptions& options = {});

} // namespace studio::spec

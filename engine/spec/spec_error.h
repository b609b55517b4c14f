// A validation error: the JSON path of the offending field and what is allowed there.
#pragma once

#include <string>
#include <vector>

namespace studio::spec {

struct SpecError {
    std::string path;    // "distribution.mpi.processes_per_host", "rules[0].name", "" for the file
    std::string message; // "must be an integer >= 1, got \"two\""

    std::string text() const { return path.empty() ? message : path + ": " + message; }
};

// Thrown by APIs that cannot return a list; carries every error found.
class SpecException : public std::exception {
public:
    explicit SpecException(std::vector<SpecError> errors);
    const char* what() const noexcept override { return m_text.c_str(); }
    const std::vector<SpecError>& errors() const { return m_errors; }

private:
    std::vector<SpecError> m_errors;
    std::string m_text;
};

} // namespace studio::spec

#include "engine/spec/mpi_launch.h"

#include "engine/spec/job_spec.h"

#include <string_view>

namespace studio::spec {

RankLauncher rankLauncher(const JobSpec& spec) {
    const Distribution& d = spec.distribution;
    if (!d.mpiEnabled)
        return {false, "torchrun",
                "distribution.mpi is not enabled: the studio's launcher starts each node's ranks "
                "with torchrun's environment"};
    if (spec.isBuiltin())
        return {false, "torchrun",
                "the built-in trainer runs its own launch: distribution.mpi only sets "
                "processes_per_host"};
    if (d.strategy == Strategy::TorchDistributed)
        return {false, "torchrun",
                "torch_distributed is enabled: torchrun-style ranks, distribution.mpi only sets "
                "processes_per_host"};
    return {true, "mpirun",
            "distribution.mpi is enabled for a script: one Open MPI mpirun starts all " +
                std::to_string(spec.worldSize()) + " ranks (-np " +
                std::to_string(spec.worldSize()) + ", " + std::to_string(d.processesPerHost) +
                " per host), as SageMaker's mpi does"};
}

std::optional<std::vector<std::string>> splitMpiOptions(const std::string& text,
                                                        std::string* error) {
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    char quote = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quote == '\'') {
            if (c == '\'')
                quote = 0;
            else
                word += c;
            continue;
        }
        if (c == '\\' && quote == 0) {
            if (i + 1 == text.size()) {
                if (error)
                    *error = "ends with a lone backslash";
                return std::nullopt;
            }
            word += text[++i];
            inWord = true;
            continue;
        }
        if (quote == '"') {
            if (c == '"')
                quote = 0;
            else if (c == '\\' && i + 1 < text.size() &&
                     std::string_view("$`\"\\\n").find(text[i + 1]) != std::string_view::npos)
                word += text[++i];
            else
                word += c;
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            inWord = true;
        } else if (c == ' ' || c == '\t' || c == '\n') {
            if (inWord)
                words.push_back(std::move(word));
            word.clear();
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (quote != 0) {
        if (error)
            *error = std::string("a ") + quote + " quote is not closed";
        return std::nullopt;
    }
    if (inWord)
        words.push_back(std::move(word));
    return words;
}

} // namespace studio::spec

// Section parsers of the spec document; internal to engine/spec.
#pragma once

#include "engine/spec/job_spec.h"
#include "engine/spec/spec_parser.h"
#include "engine/spec/spec_reader.h"

namespace studio::spec {

void parseDistribution(SpecReader& r, const json& root, JobSpec& spec);
void parseDebugger(SpecReader& r, const json& root, JobSpec& spec);
// Built-in rules by name, and custom (Python) rules: entries with "source"; opt.checkFiles
// says whether a custom rule's source file must exist.
void parseRules(SpecReader& r, const json& root, JobSpec& spec, const ParseOptions& opt);
void parseSlurm(SpecReader& r, const json& root, JobSpec& spec);
// A Slurm time ("MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS") in whole minutes,
// rounded up; nullopt when the text is none of these.
std::optional<std::int64_t> slurmMinutes(const std::string& text);
// Checks that need several sections: pipeline world size, microbatches, builtin batch sizes.
void checkParallelLayout(SpecReader& r, const JobSpec& spec);
void checkBuiltinHyperparameters(SpecReader& r, const JobSpec& spec);

} // namespace studio::spec

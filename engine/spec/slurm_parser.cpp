// The spec's "slurm" section: the batch job's partition, account, QOS, time limit, GRES,
// constraint, exclusivity and further job-description fields.
#include "engine/spec/spec_sections.h"

#include <algorithm>

namespace studio::spec {

namespace {

// Fields the studio sets itself; "extra_sbatch" may not name them.
const std::vector<std::string> kStudioFields = {"name",
                                                "script",
                                                "nodes",
                                                "tasks",
                                                "tasks_per_node",
                                                "cpus_per_task",
                                                "partition",
                                                "account",
                                                "qos",
                                                "time_limit",
                                                "tres_per_node",
                                                "constraints",
                                                "exclusive",
                                                "requeue",
                                                "environment",
                                                "current_working_directory",
                                                "standard_output",
                                                "standard_error",
                                                "standard_input",
                                                "argv"};

bool fieldName(const std::string& s) {
    return !s.empty() && s.size() <= 64 && s.front() >= 'a' && s.front() <= 'z' &&
           std::all_of(s.begin(), s.end(), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
           });
}

bool digits(const std::string& s) {
    return !s.empty() && s.size() <= 9 &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t at = s.find(sep); at != std::string::npos; at = s.find(sep, start)) {
        parts.push_back(s.substr(start, at - start));
        start = at + 1;
    }
    parts.push_back(s.substr(start));
    return parts;
}

void readText(SpecReader& r, const json& obj, const char* key, std::string& out) {
    if (auto v = r.string(obj, key, "slurm")) {
        if (v->find_first_of("\n\r") != std::string::npos || v->size() > 256)
            r.error(childPath("slurm", key), "one line of at most 256 characters");
        else
            out = *v;
    }
}

} // namespace

std::optional<std::int64_t> slurmMinutes(const std::string& text) {
    std::int64_t days = 0;
    std::string rest = text;
    const bool hasDays = rest.find('-') != std::string::npos;
    if (hasDays) {
        const auto dash = rest.find('-');
        if (!digits(rest.substr(0, dash)))
            return std::nullopt;
        days = std::stoll(rest.substr(0, dash));
        rest = rest.substr(dash + 1);
    }
    const std::vector<std::string> parts = split(rest, ':');
    if (parts.size() > 3 || !std::all_of(parts.begin(), parts.end(), digits))
        return std::nullopt;
    std::vector<std::int64_t> v;
    for (const auto& p : parts)
        v.push_back(std::stoll(p));
    std::int64_t seconds = 0;
    if (hasDays) // D-HH, D-HH:MM, D-HH:MM:SS
        seconds = v[0] * 3600 + (v.size() > 1 ? v[1] * 60 : 0) + (v.size() > 2 ? v[2] : 0);
    else if (v.size() == 1) // MM
        seconds = v[0] * 60;
    else if (v.size() == 2) // MM:SS
        seconds = v[0] * 60 + v[1];
    else // HH:MM:SS
        seconds = v[0] * 3600 + v[1] * 60 + v[2];
    seconds += days * 86400;
    return (seconds + 59) / 60;
}

void parseSlurm(SpecReader& r, const json& root, JobSpec& spec) {
    auto it = root.find("slurm");
    if (it == root.end())
        return;
    if (!r.isObject(*it, "slurm"))
        return;
    const json& s = *it;
    r.checkKeys(s, "slurm",
                {"partition", "account", "qos", "time_limit", "gres", "constraint", "exclusive",
                 "extra_sbatch"});
    SlurmOptions o;
    readText(r, s, "partition", o.partition);
    readText(r, s, "account", o.account);
    readText(r, s, "qos", o.qos);
    readText(r, s, "gres", o.gres);
    readText(r, s, "constraint", o.constraint);
    if (auto e = r.boolean(s, "exclusive", "slurm"))
        o.exclusive = *e;
    if (auto t = s.find("time_limit"); t != s.end()) {
        const std::string path = childPath("slurm", "time_limit");
        if (t->is_number_integer() && t->get<std::int64_t>() >= 1 &&
            t->get<std::int64_t>() <= 28 * 24 * 60) {
            o.timeLimitMinutes = t->get<std::int64_t>();
        } else if (t->is_string() && slurmMinutes(t->get<std::string>()) &&
                   *slurmMinutes(t->get<std::string>()) >= 1) {
            o.timeLimitMinutes = *slurmMinutes(t->get<std::string>());
        } else {
            r.mustBe(path,
                     "minutes (an integer from 1) or a Slurm time such as \"90\", \"1:30:00\" "
                     "or \"2-00:00:00\"",
                     *t);
        }
    }
    if (auto x = s.find("extra_sbatch"); x != s.end()) {
        const std::string path = childPath("slurm", "extra_sbatch");
        if (r.isObject(*x, path)) {
            for (auto f = x->begin(); f != x->end(); ++f) {
                const std::string p = childPath(path, f.key());
                if (!fieldName(f.key()))
                    r.error(p, "a field of slurmrestd's job description, in snake_case "
                               "(\"mail_type\", \"comment\")");
                else if (std::find(kStudioFields.begin(), kStudioFields.end(), f.key()) !=
                         kStudioFields.end())
                    r.error(p, "the studio sets this field itself (use the slurm section's own "
                               "keys, instance_count or distribution)");
                else if (f->is_object() || f->is_null())
                    r.mustBe(p, "a string, number, boolean or array", *f);
                else
                    o.extra[f.key()] = f->dump();
            }
        }
    }
    spec.slurm = std::move(o);
}

} // namespace studio::spec

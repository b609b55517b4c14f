#include "engine/report/what_ran.h"

#include "engine/report/line_diff.h"

#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace studio::report {

namespace fs = std::filesystem;
using nlohmann::json;

const json& WhatRan::firstRank() const {
    static const json none;
    return ranks.empty() ? none : ranks.front().body;
}

WhatRan whatRanFromFacts(const std::vector<store::FactsRow>& facts) {
    WhatRan w;
    for (const store::FactsRow& f : facts) {
        json body = json::parse(f.body, nullptr, false);
        if (body.is_discarded())
            continue;
        if (f.topic == "source")
            w.source = std::move(body);
        else if (f.topic == "provenance")
            w.ranks.push_back({f.node, f.rank, std::move(body)});
        else if (f.topic == "operators" && w.operators.is_null())
            w.operators = std::move(body);
        else if (f.topic == "logging")
            w.logging.push_back({f.node, f.rank, std::move(body)});
    }
    return w;
}

WhatRan loadWhatRan(store::StoreReader& reader, const store::ComponentRow& job,
                    const std::string& jobFolder) {
    WhatRan w = whatRanFromFacts(reader.facts(job.id));
    w.job = job.name;
    auto params = reader.parameters({job.id});
    if (auto it = params.find(job.id); it != params.end())
        w.parameters = it->second;
    std::error_code ec;
    if (w.source.is_object() && w.source.contains("snapshot") &&
        fs::is_directory(fs::path(jobFolder) / "source", ec))
        w.snapshotDir = (fs::path(jobFolder) / "source").string();
    return w;
}

namespace {

json perRank(const std::vector<RankProvenance>& rows) {
    json out = json::array();
    for (const auto& r : rows) {
        json one = r.body;
        one["node"] = r.node;
        one["rank"] = r.rank;
        out.push_back(std::move(one));
    }
    return out;
}

} // namespace

json whatRanJson(const WhatRan& w) {
    json source = w.source;
    if (source.is_object())
        source.erase("files"); // per-file hashes: for diff, too long to show
    return {{"source", source},
            {"ranks", perRank(w.ranks)},
            {"operators", w.operators},
            {"logging", perRank(w.logging)}};
}

namespace {

std::string text(const json& j, const char* key) {
    if (!j.is_object())
        return {};
    auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return {};
    return it->is_string() ? it->get<std::string>() : it->dump();
}

std::string gitLine(const json& source) {
    if (!source.is_object() || !source.contains("git") || !source["git"].is_object())
        return {};
    const json& g = source["git"];
    std::string commit = text(g, "commit");
    return text(g, "branch") + "@" + commit.substr(0, 12) +
           (g.value("dirty", false) ? " (uncommitted changes)" : " (clean)");
}

std::string readFile(const std::string& dir, const std::string& rel) {
    if (dir.empty())
        return {};
    std::ifstream in(fs::path(dir) / rel, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

using Values = std::map<std::string, std::string>;

// Each name of either map with its value in a and in b ("" where it has none), by name.
std::vector<std::array<std::string, 3>> pairUp(const Values& a, const Values& b) {
    std::set<std::string> names;
    for (const Values* m : {&a, &b})
        for (const auto& [k, v] : *m)
            names.insert(k);
    std::vector<std::array<std::string, 3>> out;
    for (const auto& n : names) {
        auto ia = a.find(n), ib = b.find(n);
        out.push_back({n, ia == a.end() ? "" : ia->second, ib == b.end() ? "" : ib->second});
    }
    return out;
}

class Differ {
public:
    WhatRanDiff out;
    void field(const std::string& section, const std::string& name, const std::string& a,
               const std::string& b, std::string detail = {}) {
        if (a != b)
            out.differences.push_back({section, name, a, b, std::move(detail)});
    }
    void maps(const std::string& section, const Values& a, const Values& b) {
        for (const auto& [name, va, vb] : pairUp(a, b))
            field(section, name, va, vb);
    }
};

std::map<std::string, std::string> stringMap(const json& j) {
    std::map<std::string, std::string> m;
    if (j.is_object())
        for (const auto& [k, v] : j.items())
            m[k] = v.is_string() ? v.get<std::string>() : v.dump();
    return m;
}

std::map<std::string, std::string> nameSet(const json& j) {
    std::map<std::string, std::string> m;
    if (j.is_array())
        for (const auto& v : j)
            if (v.is_string())
                m[v.get<std::string>()] = "set";
    return m;
}

void diffCode(Differ& d, const WhatRan& a, const WhatRan& b) {
    d.field("code", "entry point", text(a.source, "entry_point"), text(b.source, "entry_point"));
    d.field("code", "git", gitLine(a.source), gitLine(b.source));
    const auto fa = stringMap(a.source.is_object() ? a.source.value("files", json()) : json());
    const auto fb = stringMap(b.source.is_object() ? b.source.value("files", json()) : json());
    for (const auto& [n, ha, hb] : pairUp(fa, fb)) {
        if (ha == hb)
            continue;
        std::string patch;
        const std::string ta = ha.empty() ? "" : readFile(a.snapshotDir, n);
        const std::string tb = hb.empty() ? "" : readFile(b.snapshotDir, n);
        if (ta.find('\0') == std::string::npos && tb.find('\0') == std::string::npos &&
            (!ta.empty() || ha.empty()) && (!tb.empty() || hb.empty()))
            patch = unifiedDiff(ta, tb, a.job + "/" + n, b.job + "/" + n);
        d.field("code", n, ha.empty() ? "" : "sha256 " + ha.substr(0, 12),
                hb.empty() ? "" : "sha256 " + hb.substr(0, 12), patch);
    }
}

} // namespace

WhatRanDiff diffWhatRan(const WhatRan& a, const WhatRan& b) {
    Differ d;
    diffCode(d, a, b);
    const json& ra = a.firstRank();
    const json& rb = b.firstRank();
    for (const char* key :
         {"python", "implementation", "executable", "torch", "cuda", "cudnn", "nccl", "platform"})
        d.field("runtime", key, text(ra, key), text(rb, key));
    d.maps("packages", stringMap(ra.is_object() ? ra.value("packages", json()) : json()),
           stringMap(rb.is_object() ? rb.value("packages", json()) : json()));
    std::map<std::string, std::string> pa, pb;
    for (const auto& p : a.parameters)
        pa[p.name] = p.value;
    for (const auto& p : b.parameters)
        pb[p.name] = p.value;
    d.maps("hyperparameters", pa, pb);
    auto envNames = [](const WhatRan& w) {
        auto names =
            nameSet(w.source.is_object() ? w.source.value("environment_names", json()) : json());
        const json& r = w.firstRank();
        for (auto& [k, v] : nameSet(r.is_object() ? r.value("env_names", json()) : json()))
            names[k] = v;
        return names;
    };
    d.maps("environment", envNames(a), envNames(b));
    return d.out;
}

json WhatRanDiff::toJson() const {
    json list = json::array();
    for (const auto& x : differences) {
        json one = {{"section", x.section}, {"name", x.name}, {"a", x.a}, {"b", x.b}};
        if (!x.detail.empty())
            one["diff"] = x.detail;
        list.push_back(std::move(one));
    }
    return {{"same", same()}, {"differences", list}};
}

std::string WhatRanDiff::toText(const std::string& jobA, const std::string& jobB) const {
    if (same())
        return "No differences in code, runtime, packages, hyperparameters or environment names "
               "between " +
               jobA + " and " + jobB + ".\n";
    std::string out = "--- " + jobA + "\n+++ " + jobB + "\n";
    std::string section;
    for (const auto& x : differences) {
        if (x.section != section) {
            section = x.section;
            out += "\n[" + section + "]\n";
        }
        const std::string a = x.a.empty() ? "(none)" : x.a;
        const std::string b = x.b.empty() ? "(none)" : x.b;
        out += "  " + x.name + ": " + a + " -> " + b + "\n";
        for (const auto& line : splitLines(x.detail))
            out += "    " + line + "\n";
    }
    return out;
}

} // namespace studio::report

// Building blocks of the report's HTML: tables, status badges, notes, section frames and the
// block that shows one rule's outcome.
#include "engine/report/report_html.h"

#include <algorithm>
#include <cctype>

namespace studio::report::html {

std::string esc(std::string_view text) {
    return htmlEscape(text);
}

std::string table(const std::vector<Column>& columns,
                  const std::vector<std::vector<std::string>>& rows, const std::string& cssClass) {
    std::string s = "<div class=\"table-wrap\"><table" +
                    (cssClass.empty() ? std::string() : " class=\"" + cssClass + "\"") +
                    "><thead><tr>";
    for (const auto& c : columns)
        s += std::string(c.numeric ? "<th class=\"num\">" : "<th>") + esc(c.header) + "</th>";
    s += "</tr></thead><tbody>";
    for (const auto& row : rows) {
        s += "<tr>";
        for (std::size_t i = 0; i < row.size(); ++i)
            s += std::string(i < columns.size() && columns[i].numeric ? "<td class=\"num\">"
                                                                      : "<td>") +
                 row[i] + "</td>";
        s += "</tr>";
    }
    return s + "</tbody></table></div>";
}

std::string statusBadge(const std::string& status) {
    std::string cls;
    for (char c : status)
        if (std::isalnum(static_cast<unsigned char>(c)))
            cls += c;
    return "<span class=\"badge s-" + cls + "\">" + esc(status) + "</span>";
}

std::string note(const std::string& htmlText, const std::string& kind) {
    return "<p class=\"note " + kind + "\">" + htmlText + "</p>";
}

std::string chartGrid(const std::vector<std::string>& charts) {
    std::string s = "<div class=\"charts\">";
    for (const auto& c : charts)
        s += "<figure>" + c + "</figure>";
    return s + "</div>";
}

std::string sectionOpen(int number, const std::string& id, const std::string& title,
                        const std::string& explanation) {
    return "<section id=\"" + id + "\"><h2><span class=\"num\">" + std::to_string(number) +
           "</span>" + esc(title) + "</h2><p class=\"explain\">" + explanation + "</p>";
}

std::string sectionClose() {
    return "</section>\n";
}

plot::RelativeTime timeAxis(const ReportData& data) {
    constexpr double kMaxUnits = 600; // of seconds, then of minutes
    return {data.summary.start,
            plot::timeUnitFor(data.summary.end - data.summary.start, kMaxUnits)};
}

std::string timeAxisLabel(const plot::RelativeTime& axis) {
    return "time since start (" + axis.unit.label + ")";
}

std::vector<XY> timePoints(const std::vector<store::SystemSample>& samples,
                           const plot::RelativeTime& axis, double divisor) {
    std::vector<XY> out;
    out.reserve(samples.size());
    for (const auto& s : samples)
        out.push_back({axis(s.time), s.value / divisor});
    std::sort(out.begin(), out.end(), [](const XY& a, const XY& b) { return a.x < b.x; });
    return out;
}

namespace {

constexpr std::size_t kMaxFigures = 40;

std::string findingsTable(const ReportData& d, const RuleView& r, std::size_t maxFindings) {
    const plot::RelativeTime axis = timeAxis(d);
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < r.findings.size() && i < maxFindings; ++i) {
        const auto& f = r.findings[i];
        rows.push_back({esc(f.time > 0 ? formatDuration(f.time - axis.origin) : "n/a"),
                        f.step >= 0 ? std::to_string(f.step) : "&ndash;",
                        f.node >= 0 ? std::to_string(f.node) : "&ndash;",
                        f.device.empty() ? "&ndash;" : esc(f.device), esc(f.message)});
    }
    std::string s =
        table({{"Time since start"}, {"Step", true}, {"Node", true}, {"Device"}, {"Finding"}}, rows,
              "findings");
    if (r.findings.size() > maxFindings)
        s += "<p class=\"muted small\">and " + std::to_string(r.findings.size() - maxFindings) +
             " more findings, not shown.</p>";
    return s;
}

} // namespace

std::string ruleBlock(const ReportData& d, const std::string& name, bool noteWhenAbsent,
                      std::size_t maxFindings) {
    const RuleView* r = d.rule(name);
    if (!r && !noteWhenAbsent)
        return {};
    if (!r)
        return "<p class=\"muted rule-absent\">The <b>" + esc(name) +
               "</b> rule did not run on this job: add it to the job spec's <code>rules</code> "
               "to have it evaluated.</p>";
    const auto& st = r->status;
    std::string s = "<div class=\"rule\"><div class=\"rule-head\"><span class=\"rule-name\">" +
                    esc(st.rule) + "</span>" + statusBadge(st.status) + "<span class=\"muted\">" +
                    esc(st.kind) + " rule &middot; fired " + std::to_string(st.fired) + " time" +
                    (st.fired == 1 ? "" : "s") + " &middot; " + std::to_string(st.datapoints) +
                    " datapoints</span></div>";
    if (!r->description.empty())
        s += "<p class=\"rule-desc\">" + esc(r->description) + "</p>";
    if (!st.message.empty())
        s += "<p class=\"rule-msg\">" + esc(st.message) + "</p>";
    if (!st.parameters.empty())
        s += "<p class=\"rule-params\"><span class=\"label\">Parameters</span><code>" +
             esc(st.parameters) + "</code></p>";
    const std::string criteria = !st.criteria.empty()  ? st.criteria
                                 : r->findings.empty() ? std::string()
                                                       : r->findings.front().criteria;
    if (!criteria.empty())
        s += "<p class=\"criteria\"><span class=\"label\">Triggered when</span>" + esc(criteria) +
             "</p>";
    if (!r->findings.empty()) {
        const auto& first = r->findings.front();
        if (!first.recommendation.empty())
            s += "<p class=\"advice\"><span class=\"label\">Recommendation</span>" +
                 esc(first.recommendation) + "</p>";
        s += findingsTable(d, *r, maxFindings);
    }
    const auto details = nlohmann::json::parse(st.details, nullptr, false);
    std::vector<std::vector<std::string>> rows;
    std::size_t figures = 0;
    if (details.is_discarded()) {
        rows.push_back({"details", esc(st.details)});
    } else {
        const auto flat = flattenDetails(details);
        figures = flat.size();
        for (std::size_t i = 0; i < flat.size() && i < kMaxFigures; ++i)
            rows.push_back({"<code>" + esc(flat[i].first) + "</code>", esc(flat[i].second)});
    }
    if (!rows.empty())
        // The section's tables and charts show the figures already; a rule that found issues
        // opens its own to explain them.
        s += std::string(st.status == "IssuesFound" ? "<details open>" : "<details>") +
             "<summary>Rule figures</summary>" + table({{"Figure"}, {"Value"}}, rows, "kv") +
             (figures > kMaxFigures
                  ? "<p class=\"muted small\">and " + std::to_string(figures - kMaxFigures) +
                        " more figures, in profiler-reports/report.json.</p>"
                  : std::string()) +
             "</details>";
    return s + "</div>";
}

} // namespace studio::report::html

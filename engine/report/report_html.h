// The profiler report's HTML: the page (inline CSS, a header with the job's name, a table of
// contents) and SageMaker's twelve sections, from figures already computed in ReportData.
// Internal to engine/report; the public entry points are in profiler_report.h.
#pragma once

#include "engine/plot/time_axis.h"
#include "engine/report/report_data.h"

#include <string>
#include <vector>

namespace studio::report {

std::string renderReportHtml(const ReportData& data);

namespace html {

// Building blocks shared by the section files (report_html.cpp, report_html_analysis.cpp).
std::string esc(std::string_view text);

struct Column {
    std::string header;
    bool numeric = false; // right-aligned
};
// Cells are HTML (escape database text with esc()).
std::string table(const std::vector<Column>& columns,
                  const std::vector<std::vector<std::string>>& rows,
                  const std::string& cssClass = {});
std::string statusBadge(const std::string& status);
std::string note(const std::string& htmlText, const std::string& kind = "info"); // info | na
std::string chartGrid(const std::vector<std::string>& charts);
std::string sectionOpen(int number, const std::string& id, const std::string& title,
                        const std::string& explanation);
std::string sectionClose();
// A rule's status, message, parameters, findings (at most maxFindings) and details; for a rule
// that did not run, a note saying how to run it, or nothing when !noteWhenAbsent.
std::string ruleBlock(const ReportData& data, const std::string& rule, bool noteWhenAbsent = true,
                      std::size_t maxFindings = 8);

// Time axes of the charts: time since the job's start in a unit fitting its length (seconds up
// to 10 minutes, minutes up to 10 hours, else hours).
plot::RelativeTime timeAxis(const ReportData& data);
// "time since start (min)".
std::string timeAxisLabel(const plot::RelativeTime& axis);
std::vector<XY> timePoints(const std::vector<store::SystemSample>& samples,
                           const plot::RelativeTime& axis, double divisor = 1);

// Sections 1-4 (report_html.cpp) and 5-12 (report_html_analysis.cpp).
std::string sectionSummary(const ReportData& d);
std::string sectionSystemUsage(const ReportData& d);
std::string sectionFramework(const ReportData& d);
std::string sectionRules(const ReportData& d);
std::string sectionStepDurations(const ReportData& d);
std::string sectionGpuUtilization(const ReportData& d);
std::string sectionBatchSize(const ReportData& d);
std::string sectionCpuBottlenecks(const ReportData& d);
std::string sectionIoBottlenecks(const ReportData& d);
std::string sectionLoadBalancing(const ReportData& d);
std::string sectionGpuMemory(const ReportData& d);
std::string sectionDataLoading(const ReportData& d);

} // namespace html
} // namespace studio::report

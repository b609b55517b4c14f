#include "engine/report/profiler_report.h"

#include "engine/report/report_data.h"
#include "engine/report/report_html.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace studio::report {
namespace {

void writeText(const std::filesystem::path& path, const std::string& text, const std::string& job) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out)
        throw std::runtime_error("profiler report of job " + job + ": cannot write " +
                                 path.string());
}

} // namespace

std::string renderProfilerReport(store::StoreReader& reader, const std::string& job) {
    return renderReportHtml(gatherReport(reader, job));
}

std::string writeProfilerReport(const std::string& databasePath, const std::string& job,
                                const std::string& outDir) {
    store::StoreReader reader(databasePath);
    const ReportData data = gatherReport(reader, job);
    const std::filesystem::path dir(outDir);
    const std::filesystem::path reports = dir / "profiler-reports";
    std::error_code ec;
    std::filesystem::create_directories(reports, ec);
    if (ec)
        throw std::runtime_error("profiler report of job " + data.job.name +
                                 ": cannot create folder " + reports.string() + ": " +
                                 ec.message());
    const std::filesystem::path html = dir / "profiler-report.html";
    writeText(html, renderReportHtml(data), data.job.name);
    writeText(reports / "report.json", reportJson(data).dump(2) + "\n", data.job.name);
    return html.string();
}

} // namespace studio::report

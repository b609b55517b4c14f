#include "launcher/system_sampler.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace studio::launcher {

namespace {

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<std::string_view> splitWords(std::string_view line) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        std::size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t')
            ++j;
        if (j > i)
            words.push_back(line.substr(i, j - i));
        i = j;
    }
    return words;
}

std::uint64_t toU64(std::string_view s) {
    std::uint64_t v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

template <typename F>
void forEachLine(std::string_view text, F&& f) {
    while (!text.empty()) {
        auto nl = text.find('\n');
        f(text.substr(0, nl));
        if (nl == std::string_view::npos)
            break;
        text.remove_prefix(nl + 1);
    }
}

double percent(std::uint64_t part, std::uint64_t whole) {
    return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// A whole disk, not a partition: sda, vda, xvda, nvme0n1, mmcblk0 (not sda1, nvme0n1p1).
bool wholeDisk(std::string_view name) {
    if (name.rfind("loop", 0) == 0 || name.rfind("ram", 0) == 0 || name.rfind("dm-", 0) == 0)
        return false;
    if (name.rfind("nvme", 0) == 0 || name.rfind("mmcblk", 0) == 0)
        return name.find('p', 4) == std::string_view::npos;
    return !name.empty() && !std::isdigit(static_cast<unsigned char>(name.back()));
}

} // namespace

ProcStat parseProcStat(std::string_view text) {
    ProcStat out;
    forEachLine(text, [&](std::string_view line) {
        if (line.rfind("cpu", 0) != 0)
            return;
        auto w = splitWords(line);
        if (w.size() < 8)
            return;
        // user nice system idle iowait irq softirq steal [guest guest_nice]
        std::uint64_t f[8];
        for (int i = 0; i < 8; ++i)
            f[i] = toU64(w[static_cast<std::size_t>(i) + 1]);
        CpuTimes t;
        t.busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
        t.iowait = f[4];
        t.total = t.busy + f[3] + f[4];
        if (w[0] == "cpu")
            out.all = t;
        else
            out.cores.push_back(t);
    });
    return out;
}

std::optional<double> parseMeminfo(std::string_view text) {
    std::uint64_t total = 0, available = 0;
    bool haveAvail = false;
    forEachLine(text, [&](std::string_view line) {
        auto w = splitWords(line);
        if (w.size() < 2)
            return;
        if (w[0] == "MemTotal:")
            total = toU64(w[1]);
        else if (w[0] == "MemAvailable:") {
            available = toU64(w[1]);
            haveAvail = true;
        }
    });
    if (!total || !haveAvail)
        return std::nullopt;
    return percent(total - available, total);
}

void parseNetDev(std::string_view text, Counters& out) {
    forEachLine(text, [&](std::string_view line) {
        auto colon = line.find(':');
        if (colon == std::string_view::npos)
            return;
        auto w = splitWords(line.substr(colon + 1));
        if (w.size() < 9)
            return;
        out.netRx += toU64(w[0]);
        out.netTx += toU64(w[8]);
    });
}

void parseDiskstats(std::string_view text, Counters& out) {
    forEachLine(text, [&](std::string_view line) {
        auto w = splitWords(line);
        // major minor name reads merged sectors_read ms writes merged sectors_written ...
        if (w.size() < 10 || !wholeDisk(w[2]))
            return;
        out.diskRead += toU64(w[5]) * 512;
        out.diskWrite += toU64(w[9]) * 512;
    });
}

SystemSampler::SystemSampler(std::string procRoot)
    : m_root(std::move(procRoot)) {
    ProcStat s = parseProcStat(readFile(m_root + "/stat"));
    m_cores = s.cores.empty() ? 1 : static_cast<int>(s.cores.size());
}

std::vector<Sample> SystemSampler::sample(double now) {
    std::vector<Sample> out;
    ProcStat stat = parseProcStat(readFile(m_root + "/stat"));
    Counters counters;
    parseNetDev(readFile(m_root + "/net/dev"), counters);
    parseDiskstats(readFile(m_root + "/diskstats"), counters);

    if (m_lastStat && m_lastCounters && now > m_lastTime) {
        auto util = [](const CpuTimes& a, const CpuTimes& b) {
            return percent(b.busy - a.busy, b.total - a.total);
        };
        out.push_back({"cpu", "util", util(m_lastStat->all, stat.all)});
        out.push_back({"cpu", "iowait",
                       percent(stat.all.iowait - m_lastStat->all.iowait,
                               stat.all.total - m_lastStat->all.total)});
        for (std::size_t i = 0; i < stat.cores.size() && i < m_lastStat->cores.size(); ++i)
            out.push_back(
                {"cpu" + std::to_string(i), "util", util(m_lastStat->cores[i], stat.cores[i])});
        const double dt = now - m_lastTime;
        auto rate = [dt](std::uint64_t a, std::uint64_t b) {
            return b >= a ? static_cast<double>(b - a) / dt : 0.0;
        };
        out.push_back({"net", "rx", rate(m_lastCounters->netRx, counters.netRx)});
        out.push_back({"net", "tx", rate(m_lastCounters->netTx, counters.netTx)});
        out.push_back({"disk", "read", rate(m_lastCounters->diskRead, counters.diskRead)});
        out.push_back({"disk", "write", rate(m_lastCounters->diskWrite, counters.diskWrite)});
    }
    if (auto mem = parseMeminfo(readFile(m_root + "/meminfo")))
        out.push_back({"mem", "used", *mem});
    auto gpus = m_nvml.read();
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        // A failed read leaves a gap in the series, not a false 0 %.
        if (gpus[i].utilization)
            out.push_back({"gpu" + std::to_string(i), "util", *gpus[i].utilization});
        if (gpus[i].memoryPercent)
            out.push_back({"gpu" + std::to_string(i), "mem", *gpus[i].memoryPercent});
    }
    m_lastStat = std::move(stat);
    m_lastCounters = counters;
    m_lastTime = now;
    return out;
}

} // namespace studio::launcher

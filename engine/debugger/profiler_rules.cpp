#include "engine/debugger/profiler_rules.h"

#include "engine/debugger/rule_registry.h"
#include "engine/plot/stats.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace studio::debugger {

namespace {

// Samples of one snapshot may carry slightly different stamps (smdebug allows 20 ms).
constexpr double kSnapshotTolerance = 0.02;
// Open snapshots are counted once data this much newer has arrived (a launcher's snapshot may
// interleave with other nodes' events); finish counts them all.
constexpr double kSettleGrace = 1.0;
// A tick evaluates waiting data only this long after its scan window closed: data arriving late
// from a launcher still lands in the window it belongs to.
constexpr double kTickGrace = 5.0;

} // namespace

std::unique_ptr<Rule> makeProfilerRule(const RuleParams& params) {
    if (params.info().kind != RuleKind::Profiler)
        return nullptr;
    for (auto make : {makeGpuProfilerRule, makeSystemProfilerRule, makeFrameworkProfilerRule,
                      makeDataloaderRule})
        if (auto rule = make(params))
            return rule;
    return nullptr;
}

std::string formatNumber(double v) {
    if (!std::isfinite(v))
        return std::isnan(v) ? "n/a" : (v > 0 ? "inf" : "-inf");
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    std::string s = buf;
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.')
        s.pop_back();
    return s == "-0" ? "0" : s;
}

std::optional<int> deviceIndex(std::string_view device, std::string_view prefix) {
    if (device.size() <= prefix.size() || device.substr(0, prefix.size()) != prefix)
        return std::nullopt;
    int index = 0;
    const char* begin = device.data() + prefix.size();
    const char* end = device.data() + device.size();
    auto [ptr, ec] = std::from_chars(begin, end, index);
    if (ec != std::errc() || ptr != end || index < 0)
        return std::nullopt;
    return index;
}

std::int64_t integerAtLeast(const RuleParams& params, const std::string& name, std::int64_t min) {
    const std::int64_t v = params.integer(name);
    if (v < min)
        throw RuleConfigError(params.info().name + ": parameter " + name + " must be at least " +
                              std::to_string(min) + ", got " + std::to_string(v));
    return v;
}

double numberAtLeast(const RuleParams& params, const std::string& name, double min) {
    const double v = params.number(name);
    if (v < min)
        throw RuleConfigError(params.info().name + ": parameter " + name + " must be at least " +
                              formatNumber(min) + ", got " + formatNumber(v));
    return v;
}

void SampleSeries::add(double v) {
    if (m_count == 0) {
        m_min = v;
        m_max = v;
    } else {
        m_min = std::min(m_min, v);
        m_max = std::max(m_max, v);
    }
    if (m_count % m_stride == 0) {
        if (m_kept.size() >= kCap) {
            // Keep the samples whose index is a multiple of the doubled stride.
            std::size_t out = 0;
            for (std::size_t i = 0; i < m_kept.size(); i += 2)
                m_kept[out++] = m_kept[i];
            m_kept.resize(out);
            m_stride *= 2;
        }
        if (m_count % m_stride == 0)
            m_kept.push_back(v);
    }
    ++m_count;
}

double SampleSeries::min() const {
    return m_count ? m_min : std::numeric_limits<double>::quiet_NaN();
}

double SampleSeries::max() const {
    return m_count ? m_max : std::numeric_limits<double>::quiet_NaN();
}

double SampleSeries::percentile(double q) const {
    if (q <= 0)
        return min();
    if (q >= 100)
        return max();
    return plot::percentile(m_kept, q);
}

nlohmann::json SampleSeries::boxStats() const {
    std::vector<double> sorted = m_kept;
    std::sort(sorted.begin(), sorted.end());
    const double p25 = plot::sortedPercentile(sorted, 25);
    const double p75 = plot::sortedPercentile(sorted, 75);
    const double iqr = p75 - p25;
    return {{"p25", p25},
            {"p50", plot::sortedPercentile(sorted, 50)},
            {"p75", p75},
            {"p95", plot::sortedPercentile(sorted, 95)},
            {"lower", std::max(p25 - 1.5 * iqr, min())},
            {"upper", std::min(p75 + 1.5 * iqr, max())},
            {"max", max()}};
}

void RecentWindow::add(double v) {
    m_values.push_back(v);
    while (m_values.size() > m_size)
        m_values.pop_front();
}

double RecentWindow::percentile(double q) const {
    return plot::percentile(std::vector<double>(m_values.begin(), m_values.end()), q);
}

ScanningRule::ScanningRule(const RuleParams& params)
    : Rule(params.info().name, RuleKind::Profiler)
    , m_params(params)
    , m_scanSeconds(static_cast<double>(integerAtLeast(params, "scan_interval_us", 1)) / 1e6) {
}

void ScanningRule::onEvent(const wire::Event& e) {
    if (m_pending && e.t >= m_windowEnd)
        runEvaluation(e.t);
    if (!take(e))
        return;
    if (!m_started) {
        m_started = true;
        m_windowEnd = e.t + m_scanSeconds;
    }
    m_pending = true;
    m_lastData = std::max(m_lastData, e.t);
}

void ScanningRule::onTick(double now) {
    if (m_pending && now >= m_windowEnd + kTickGrace)
        runEvaluation(now - kTickGrace);
}

void ScanningRule::finish(double now) {
    settle(std::numeric_limits<double>::infinity());
    if (m_pending)
        runEvaluation(std::numeric_limits<double>::infinity());
    if (const std::string why = notApplicableReason(); !why.empty())
        setNotApplicable(why);
    Rule::finish(now);
}

void ScanningRule::runEvaluation(double settleBefore) {
    settle(settleBefore);
    ++m_evaluations;
    m_pending = false;
    evaluate(m_lastData);
    // The next window is the first one of the grid that ends after the data seen so far.
    const double reference = std::isfinite(settleBefore) ? settleBefore : m_lastData;
    if (reference >= m_windowEnd)
        m_windowEnd += (std::floor((reference - m_windowEnd) / m_scanSeconds) + 1) * m_scanSeconds;
}

void ScanningRule::fireFirst(std::vector<Finding> found, double time, const std::string& others) {
    if (found.empty())
        return;
    Finding f = std::move(found.front());
    f.time = time;
    if (found.size() > 1)
        f.message += "; " + std::to_string(found.size() - 1) + " more " + others + " show the same";
    fire(std::move(f));
}

std::string gpuName(int index) {
    return "gpu" + std::to_string(index);
}

std::string gpuWhere(const GpuKey& key) {
    return gpuName(key.second) + " of node " + std::to_string(key.first);
}

Finding gpuFinding(const GpuKey& key) {
    Finding f;
    f.node = key.first;
    f.device = gpuName(key.second);
    return f;
}

double jensenShannonDistance(const std::vector<double>& a, const std::vector<double>& b) {
    double na = 0, nb = 0;
    for (double v : a)
        na += v;
    for (double v : b)
        nb += v;
    if (na <= 0 || nb <= 0 || a.size() != b.size())
        return std::numeric_limits<double>::quiet_NaN();
    double divergence = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double p = a[i] / na, q = b[i] / nb, m = (p + q) / 2;
        divergence += (p > 0 ? p * std::log(p / m) : 0) + (q > 0 ? q * std::log(q / m) : 0);
    }
    return std::sqrt(std::max(divergence / 2, 0.0));
}

nlohmann::json gpuDetails(int node, int gpu, const SampleSeries& all) {
    nlohmann::json row = {{"node", node}, {"gpu", gpuName(gpu)}, {"datapoints", all.count()}};
    row.update(all.boxStats());
    return row;
}

nlohmann::json parameterDetails(const RuleParams& params) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& p : params.info().params) {
        if (!params.has(p.name))
            out[p.name] = nullptr;
        else if (p.type == ParamType::Integer)
            out[p.name] = params.integer(p.name);
        else if (p.type == ParamType::Number)
            out[p.name] = params.number(p.name);
        else
            out[p.name] = params.text(p.name);
    }
    return out;
}

std::optional<double> SystemSnapshot::value(std::string_view device,
                                            std::string_view metric) const {
    for (const auto& s : samples)
        if (s.device == device && s.metric == metric)
            return s.value;
    return std::nullopt;
}

std::optional<double> SystemSnapshot::cpuUtilization() const {
    if (auto total = value("cpu", "util"))
        return total;
    double sum = 0;
    int cores = 0;
    for (const auto& s : samples) {
        if (s.metric == "util" && deviceIndex(s.device, "cpu")) {
            sum += s.value;
            ++cores;
        }
    }
    if (cores == 0)
        return std::nullopt;
    return sum / cores;
}

SystemSnapshotRule::SystemSnapshotRule(const RuleParams& params, bool needsGpu)
    : ScanningRule(params)
    , m_needsGpu(needsGpu) {
}

bool SystemSnapshotRule::take(const wire::Event& e) {
    const auto* sys = e.as<wire::SysEvent>();
    if (!sys)
        return false;
    if (deviceIndex(sys->device, "gpu"))
        m_sawGpu = true;
    auto it = m_open.find(e.node);
    if (it != m_open.end() && std::abs(it->second.t - e.t) > kSnapshotTolerance) {
        const SystemSnapshot done = std::move(it->second);
        m_open.erase(it);
        onSnapshot(done);
        it = m_open.end();
    }
    if (it == m_open.end())
        it = m_open.emplace(e.node, SystemSnapshot{e.node, e.t, {}}).first;
    it->second.samples.push_back(*sys);
    return true;
}

void SystemSnapshotRule::settle(double before) {
    for (auto it = m_open.begin(); it != m_open.end();) {
        if (it->second.t < before - kSettleGrace) {
            const SystemSnapshot done = std::move(it->second);
            it = m_open.erase(it);
            onSnapshot(done);
        } else {
            ++it;
        }
    }
}

std::string SystemSnapshotRule::notApplicableReason() const {
    return m_needsGpu && !m_sawGpu ? kNoGpuReason : std::string();
}

std::string SystemSnapshotRule::noDataReason() const {
    if (m_needsGpu && !m_sawGpu)
        return kNoGpuReason;
    return "no system metrics were recorded (is the profiler disabled?)";
}

} // namespace studio::debugger

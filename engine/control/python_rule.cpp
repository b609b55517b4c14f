#include "engine/control/python_rule.h"

#include "engine/process/fd.h"
#include "engine/process/process.h"
#include "engine/process/python_root.h"
#include "engine/wire/codec.h"
#include "engine/wire/line_splitter.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <deque>
#include <fcntl.h>
#include <functional>
#include <poll.h>
#include <stdexcept>
#include <sys/eventfd.h>
#include <thread>
#include <unistd.h>

namespace studio::control {

namespace {

using nlohmann::json;

// Reads what a non-blocking pipe has: raw bytes to `bytes` (when set), whole lines to `line`
// (a line over the splitter's limit comes in pieces, which are dropped); at its end the pipe is
// closed and an unterminated last line still counts.
void drain(process::Fd& fd, wire::LineSplitter& lines,
           const std::function<void(std::string_view)>& bytes,
           const std::function<void(std::string)>& line) {
    auto give = [&line](std::vector<wire::SplitLine> split) {
        for (auto& l : split)
            if (l.part == wire::LinePart::Whole && !l.text.empty())
                line(std::move(l.text));
    };
    char buf[65536];
    while (fd.get() >= 0) {
        const ssize_t r = ::read(fd.get(), buf, sizeof buf);
        if (r > 0) {
            const std::string_view chunk(buf, static_cast<std::size_t>(r));
            if (bytes)
                bytes(chunk);
            give(lines.append(chunk));
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == EAGAIN)
            return;
        fd.reset();
        give({lines.finish()});
    }
}

std::string criteriaOf(const spec::CustomRuleConfig& rule) {
    std::string params;
    for (const auto& [k, v] : rule.parameters)
        params += (params.empty() ? "" : ", ") + k + "=" + v;
    return rule.ruleToInvoke + ".invoke_at_step(step) returns True (" + rule.source +
           (params.empty() ? "" : "; " + params) + ")";
}

json configLine(const spec::CustomRuleConfig& rule, const RuleProcessSetup& s) {
    json params = json::object();
    for (const auto& [k, v] : rule.parameters)
        params[k] = v;
    return {{"config",
             {{"name", rule.name},
              {"source", rule.source},
              {"rule_to_invoke", rule.ruleToInvoke},
              {"rule_parameters", params},
              {"job", s.jobName},
              {"home", s.home},
              {"debug_output", s.debugOutput},
              {"cli", process::selfExecutable()}}}};
}

} // namespace

struct PythonRuleProcess::Impl {
    std::string name;
    std::string criteria;
    std::shared_ptr<debugger::ExternalRuleLink> link =
        std::make_shared<debugger::ExternalRuleLink>();
    process::Process child;
    process::Fd input; // the child's stdin
    process::Fd output;
    process::Fd errors;
    process::Fd wake;
    process::Fd log;
    std::atomic<bool> quit{false};
    std::thread io;
    std::deque<std::string> stderrTail;
    std::string pending; // bytes for the child's stdin
    wire::LineSplitter outLines, errLines;
    bool endSent = false;

    void run();
    bool pump(); // one round; false when the loop ends
    void feed();
    void readOutput();
    void readErrors();
    void handleLine(const std::string& line);
    void ended();
    std::string tail() const;
};

const std::set<std::string>& PythonRuleProcess::kinds() {
    static const std::set<std::string> k = {"tensor", "metric", "step"};
    return k;
}

PythonRuleProcess::PythonRuleProcess(const spec::CustomRuleConfig& rule, RuleProcessSetup setup)
    : d(std::make_unique<Impl>()) {
    d->name = rule.name;
    d->criteria = criteriaOf(rule);
    const std::string root = process::findPythonRoot(process::selfExecutable());
    if (root.empty())
        throw std::runtime_error("rules." + rule.name +
                                 ": the studio's mlstudio Python package is not installed beside "
                                 "this program, and custom rules run with it");
    process::Pipe in = process::makePipe();
    process::SpawnOptions o;
    // The Python script jobs run with ($MLSTUDIO_PYTHON, else the build's).
    o.argv = {spec::defaultPythonInterpreter(), "-m", "mlstudio.debugger._rule_host"};
    o.env = process::currentEnvironment();
    auto inherited = o.env.find("PYTHONPATH");
    o.env["PYTHONPATH"] = inherited == o.env.end() || inherited->second.empty()
                              ? root
                              : root + ":" + inherited->second;
    o.env["PYTHONUNBUFFERED"] = "1";
    o.env["PYTHONDONTWRITEBYTECODE"] = "1";
    if (!setup.home.empty())
        o.env["MLSTUDIO_HOME"] = setup.home;
    o.parentDeathSignal = SIGKILL; // a studio that dies takes its rule processes along
    o.passFds = {{in.read.get(), 0}};
    try {
        d->child = process::Process::spawn(o);
    } catch (const std::exception& e) {
        throw std::runtime_error("rules." + rule.name +
                                 ": the rule process cannot start: " + e.what());
    }
    in.read.reset();
    d->input = std::move(in.write);
    d->output = d->child.takeStdout();
    d->errors = d->child.takeStderr();
    for (int fd : {d->input.get(), d->output.get(), d->errors.get()})
        process::setNonBlocking(fd);
    d->wake.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!setup.logPath.empty())
        d->log.reset(
            ::open(setup.logPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
    d->pending = configLine(rule, setup).dump() + "\n";
    d->link->expectEnd();
    const int wakeFd = d->wake.get();
    d->link->setWakeup([wakeFd] {
        const std::uint64_t one = 1;
        [[maybe_unused]] const ssize_t n = ::write(wakeFd, &one, sizeof one);
    });
    d->io = std::thread([impl = d.get()] { impl->run(); });
}

PythonRuleProcess::~PythonRuleProcess() {
    d->quit = true;
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(d->wake.get(), &one, sizeof one);
    d->io.join();
    d->link->fail("the job ended"); // no wake-ups into a gone evaluator (a no-op after finish)
    d->input.reset();
    if (d->child.running() && !d->child.waitFor(static_cast<int>(kGraceSeconds * 1000)))
        d->child.kill();
}

std::unique_ptr<debugger::Rule> PythonRuleProcess::makeRule() {
    return std::make_unique<debugger::ExternalRule>(d->name, d->criteria, kinds(), d->link);
}

pid_t PythonRuleProcess::pid() const {
    return d->child.pid();
}

void PythonRuleProcess::Impl::run() {
    while (!quit && pump()) {
    }
}

bool PythonRuleProcess::Impl::pump() {
    feed();
    pollfd fds[4];
    nfds_t n = 0;
    fds[n++] = {wake.get(), POLLIN, 0};
    if (output.get() >= 0)
        fds[n++] = {output.get(), POLLIN, 0};
    if (errors.get() >= 0)
        fds[n++] = {errors.get(), POLLIN, 0};
    if (input.get() >= 0 && !pending.empty())
        fds[n++] = {input.get(), POLLOUT, 0};
    if (::poll(fds, n, 500) < 0 && errno != EINTR)
        return false;
    std::uint64_t count = 0;
    while (::read(wake.get(), &count, sizeof count) > 0) {
    }
    if (quit)
        return false;
    readOutput();
    readErrors();
    if (output.get() < 0 && errors.get() < 0) {
        ended();
        return false;
    }
    return true;
}

// Moves queued events (and, once the job ended, the end mark) to the child's stdin.
void PythonRuleProcess::Impl::feed() {
    if (input.get() < 0)
        return;
    // Asked before taking: every event pushed before endInput() is then among those taken, and
    // the end mark comes after them.
    const bool ending = !endSent && link->inputEnded();
    for (const wire::Event& e : link->takeEvents()) {
        pending += wire::encode(e);
        pending += '\n';
    }
    if (ending) {
        pending += "{\"end\": true}\n";
        endSent = true;
    }
    while (!pending.empty()) {
        const ssize_t w = ::write(input.get(), pending.data(), pending.size());
        if (w > 0) {
            pending.erase(0, static_cast<std::size_t>(w));
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            return;
        input.reset(); // the child closed its stdin: its exit says why
        pending.clear();
        return;
    }
    if (endSent)
        input.reset();
}

void PythonRuleProcess::Impl::readOutput() {
    drain(output, outLines, {}, [this](std::string line) { handleLine(line); });
}

void PythonRuleProcess::Impl::readErrors() {
    drain(
        errors, errLines,
        [this](std::string_view bytes) {
            if (log.get() >= 0)
                process::writeAll(log.get(), bytes);
        },
        [this](std::string line) {
            stderrTail.push_back(std::move(line));
            if (stderrTail.size() > 20)
                stderrTail.pop_front();
        });
}

void PythonRuleProcess::Impl::handleLine(const std::string& line) {
    const json o = json::parse(line, nullptr, false);
    if (o.is_discarded() || !o.is_object())
        return;
    if (auto a = o.find("ack"); a != o.end() && a->is_number_unsigned()) {
        link->done(a->get<std::size_t>());
    } else if (auto f = o.find("finding"); f != o.end() && f->is_object()) {
        debugger::Finding finding;
        finding.time = f->value("time", 0.0);
        finding.step = f->value("step", std::int64_t{-1});
        finding.device = f->value("device", std::string());
        finding.message = f->value("message", name + " fired");
        finding.criteria = criteria;
        link->post(std::move(finding));
    } else if (auto e = o.find("error"); e != o.end() && e->is_string()) {
        link->fail(e->get<std::string>()); // the host's headline names what failed
    }
}

// stdout and stderr are closed: the child is ending. Its status says how the rule went.
void PythonRuleProcess::Impl::ended() {
    const process::ExitStatus status = child.wait();
    if (status.success() && endSent)
        link->finished();
    else
        link->fail("the rule process " + status.describe() +
                   (endSent ? "" : " before the job ended") + tail());
}

std::string PythonRuleProcess::Impl::tail() const {
    std::string out;
    for (const auto& l : stderrTail)
        out += "\n" + l;
    return out.empty() ? out : ":" + out;
}

} // namespace studio::control

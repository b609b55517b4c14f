// The Jupyter client's execute-to-idle round trip: `1+1` sent as execute_request until both its
// idle status on IOPub and its execute_reply on shell have arrived (jupyter-protocol.md §6),
// p50 and p99 over N rounds. Goal: ours / anchor <= 1.0 on both.
// Anchor (same run, same kernel, rounds interleaved in blocks: ours, anchor, anchor, ours, ...):
// jupyter_client's own BlockingKernelClient (Debian python3-jupyter-client), connected to the
// kernel's connection file by tests/bench/python/jupyter_client_roundtrip.py and timing the same
// rounds the way execute_interactive waits. Both clients subscribe to IOPub, so each also
// receives the other's messages: ours reads them as they come (on its I/O thread), the anchor
// drains its queue, untimed, before each of its blocks.
// Checks: every round of both sides got execute_result '2' and status ok.
// Usage: bench_kernel_roundtrip [--quick] [--json FILE] [rounds per side]
//   (quick: 20 rounds in blocks of 10; full: 2,000 in blocks of 100)
#include "engine/jupyter/kernel_client.h"
#include "engine/plot/stats.h"
#include "engine/process/process.h"
#include "tests/bench/bench_support.h"

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using namespace studio;
using namespace studio::jupyter;

namespace {

constexpr const char* kPython = "/usr/bin/python3";

// The anchor script as a child speaking one JSON object per line.
class Anchor {
public:
    explicit Anchor(const std::filesystem::path& connectionFile) {
        process::Pipe input = process::makePipe();
        process::SpawnOptions o;
        o.argv = {kPython,
                  std::string(STUDIO_SOURCE_DIR) +
                      "/tests/bench/python/jupyter_client_roundtrip.py",
                  connectionFile.string()};
        o.env = process::currentEnvironment();
        o.captureStderr = false; // a failing anchor explains itself on the bench's stderr
        o.passFds = {{input.read.get(), 0}};
        m_process = process::Process::spawn(o);
        m_input = std::move(input.write);
        m_output = ::fdopen(m_process.takeStdout().release(), "r");
    }
    ~Anchor() {
        process::writeAll(m_input.get(), "quit\n");
        m_input.reset();
        if (m_output)
            std::fclose(m_output);
        if (!m_process.waitFor(10000))
            m_process.kill();
    }
    Anchor(const Anchor&) = delete;
    Anchor& operator=(const Anchor&) = delete;

    // The next line as JSON; null when the anchor ended or wrote something else.
    bench::Json readLine() {
        std::string line;
        for (int c; (c = std::fgetc(m_output)) != EOF && c != '\n';)
            line.push_back(static_cast<char>(c));
        bench::Json json = bench::Json::parse(line, nullptr, false);
        return json.is_discarded() ? bench::Json() : json;
    }
    bench::Json run(int rounds) {
        process::writeAll(m_input.get(), "run " + std::to_string(rounds) + "\n");
        return readLine();
    }

private:
    process::Process m_process;
    process::Fd m_input;
    std::FILE* m_output = nullptr;
};

// One timed round of ours; false when the result was not '2' or the reply not ok.
bool ourRound(KernelClient& client, std::vector<double>& times) {
    const auto start = bench::Clock::now();
    const ExecuteResult r = client.executeAndWait("1+1");
    times.push_back(bench::secondsSince(start));
    bool two = false;
    for (const Message& m : r.iopub)
        if (m.msgType() == "execute_result")
            two = m.content["data"].value("text/plain", "") == "2";
    return two && r.reply.value("status", "") == "ok";
}

void addFigures(bench::Report& report, const std::vector<double>& ours,
                const std::vector<double>& anchor) {
    for (double q : {50.0, 99.0}) {
        bench::Figure f;
        f.name = "execute-to-idle round trip of 1+1, p" + std::to_string(static_cast<int>(q));
        f.unit = "ms";
        f.ours = plot::percentile(ours, q) * 1000;
        f.anchor = plot::percentile(anchor, q) * 1000;
        f.anchorName = "jupyter_client";
        f.goal = bench::Goal::ratioAtMost(1.0);
        report.figure(f);
    }
}

} // namespace

int main(int argc, char** argv) {
    const bench::Options options = bench::Options::parse(argc, argv);
    bench::Report report("bench_kernel_roundtrip", options);
    const int rounds = options.pick(0, 20, 2000);
    const int block = options.quick ? 10 : 100;

    KernelClient::Options o;
    o.spec = defaultKernelSpec();
    KernelClient client(o, {});
    client.start();
    // Warm-up, untimed: the first executes import what IPython needs for display.
    for (int i = 0; i < 10; ++i)
        client.executeAndWait("1+1");

    Anchor anchor(client.connectionFile());
    const bench::Json hello = anchor.readLine();
    if (!report.check(hello.value("ready", false), "the jupyter_client anchor connected"))
        return report.finish();
    report.anchor({"jupyter_client",
                   "jupyter_client's BlockingKernelClient on the same kernel (Debian "
                   "python3-jupyter-client, /usr/bin/python3), execute then IOPub until idle "
                   "then shell until the reply",
                   hello.value("jupyter_client", ""), 0, "none", "ZeroMQ over loopback TCP",
                   "execute_request '1+1' until its idle status and execute_reply"});

    std::vector<double> ours, theirs;
    bool oursOk = true, theirsOk = true;
    std::string anchorError;
    bench::interleave(rounds / block, {[&](int) {
                                           for (int i = 0; i < block; ++i)
                                               oursOk = ourRound(client, ours) && oursOk;
                                       },
                                       [&](int) {
                                           const bench::Json r = anchor.run(block);
                                           theirsOk = theirsOk && r.value("ok", false);
                                           if (r.contains("error") && anchorError.empty())
                                               anchorError = r["error"].get<std::string>();
                                           for (double t : r.value("times", std::vector<double>{}))
                                               theirs.push_back(t);
                                       }});
    const int expected = rounds / block * block;
    report.check(oursOk && static_cast<int>(ours.size()) == expected,
                 "every round of ours got execute_result 2 and status ok");
    report.check(theirsOk && static_cast<int>(theirs.size()) == expected,
                 "every round of the anchor got execute_result 2 and status ok" +
                     (anchorError.empty() ? std::string() : " (" + anchorError + ")"));
    addFigures(report, ours, theirs);
    report.details() = {{"rounds_per_side", expected},
                        {"block", block},
                        {"kernel", client.kernelInfo().value("implementation", "") + " " +
                                       client.kernelInfo().value("implementation_version", "")}};
    return report.finish();
}

// The Jupyter client against a real ipykernel (Debian's python3-ipykernel): executes and their
// outputs, signatures checked both ways, interrupt, restart, a killed kernel, input(),
// completion / inspection / is_complete / history, failed starts, and no process or connection
// file left behind.
#include "engine/jupyter/kernel_client.h"
#include "engine/process/fd.h"

#include "tests/support/plain_test.h"
#include "tests/support/temp_dir.h"

#include <zmq.hpp>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace studio::jupyter;
using studio::testing::TempDir;
namespace process = studio::process;
namespace fs = std::filesystem;

namespace {

// What the callbacks saw, with a way to wait for a condition on it.
struct Recorder {
    std::mutex mutex;
    std::condition_variable cv;
    std::vector<Message> iopub;
    std::vector<Message> replies;
    std::vector<Message> inputRequests;
    std::vector<std::string> logs;
    std::vector<std::pair<std::string, std::string>> failed;
    std::optional<std::pair<int, std::string>> died;
    std::function<void(const Message&)> onInput; // runs on the I/O thread

    KernelClient::Callbacks callbacks() {
        KernelClient::Callbacks c;
        auto keep = [this](std::vector<Message>& into) {
            return [this, &into](const Message& m) {
                std::lock_guard lock(mutex);
                into.push_back(m);
                cv.notify_all();
            };
        };
        c.iopub = keep(iopub);
        c.shellReply = keep(replies);
        c.stdinRequest = [this](const Message& m) {
            {
                std::lock_guard lock(mutex);
                inputRequests.push_back(m);
                cv.notify_all();
            }
            if (onInput)
                onInput(m);
        };
        c.log = [this](const std::string& line) {
            std::lock_guard lock(mutex);
            logs.push_back(line);
            cv.notify_all();
        };
        c.died = [this](int status, const std::string& tail) {
            std::lock_guard lock(mutex);
            died = {status, tail};
            cv.notify_all();
        };
        c.requestFailed = [this](const std::string& id, const std::string& why) {
            std::lock_guard lock(mutex);
            failed.emplace_back(id, why);
            cv.notify_all();
        };
        return c;
    }

    // Waits (at most timeoutS, far beyond what any step needs) until pred holds.
    template <class Pred>
    bool waitFor(Pred pred, double timeoutS = 60) {
        std::unique_lock lock(mutex);
        return cv.wait_for(lock, std::chrono::duration<double>(timeoutS), pred);
    }

    std::optional<Message> replyTo(const std::string& id) {
        for (const Message& m : replies)
            if (m.parentMsgId() == id)
                return m;
        return std::nullopt;
    }
    std::string allLogs() {
        std::lock_guard lock(mutex);
        std::string text;
        for (const std::string& line : logs)
            text += line + "\n";
        for (const Message& m : iopub)
            text += "iopub " + m.msgType() + " parent " + m.parentMsgId() + "\n";
        return text;
    }
    bool logged(const std::string& text) {
        for (const std::string& line : logs)
            if (line.find(text) != std::string::npos)
                return true;
        return false;
    }
    std::string streamText(const std::string& name) {
        std::string text;
        for (const Message& m : iopub)
            if (m.msgType() == "stream" && m.content.value("name", "") == name)
                text += m.content.value("text", "");
        return text;
    }
};

KernelClient::Options pythonOptions(const TempDir& tmp, KernelSpec spec = defaultKernelSpec()) {
    KernelClient::Options o;
    o.spec = std::move(spec);
    o.runtimeDir = tmp.filePath("runtime");
    o.workingDir = tmp.path();
    // IPython's history database and profile go into the test's folder.
    o.env = {{"IPYTHONDIR", tmp.filePath("ipython")}};
    return o;
}

const Message* findType(const std::vector<Message>& msgs, const std::string& type) {
    for (const Message& m : msgs)
        if (m.msgType() == type)
            return &m;
    return nullptr;
}

// "status execute_input stream ..." for a failure's message.
std::string typesOf(const std::vector<Message>& msgs) {
    std::string text;
    for (const Message& m : msgs)
        text += m.msgType() + " ";
    return text;
}

// Waits until the cell with request id has written `marker` to stdout: its code is running.
// (An interrupt that lands before the user's code starts, while ipykernel is still in its
// execute_request handler, raises KeyboardInterrupt outside the cell and the cell never replies:
// a race of ipykernel's that a person clicking Stop does not meet.)
bool waitForCellOutput(Recorder& rec, const std::string& id, const std::string& marker) {
    return rec.waitFor([&] {
        for (const Message& m : rec.iopub)
            if (m.parentMsgId() == id && m.msgType() == "stream" &&
                m.content.value("text", "").find(marker) != std::string::npos)
                return true;
        return false;
    });
}

// Whether a process has ended (a zombie of an init that does not reap counts as ended).
bool processGone(int pid) {
    if (pid <= 0 || (::kill(pid, 0) == -1 && errno == ESRCH))
        return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), {});
    const auto close = text.rfind(')');
    return close == std::string::npos || text.substr(close + 2, 1) == "Z";
}

// Live children of this process whose command line contains `mentioning`.
std::vector<int> children(const std::string& mentioning = "ipykernel_launcher") {
    std::vector<int> found;
    for (const auto& entry : fs::directory_iterator("/proc")) {
        const std::string name = entry.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::ifstream stat(entry.path() / "stat");
        std::string text((std::istreambuf_iterator<char>(stat)), {});
        const auto close = text.rfind(')');
        if (close == std::string::npos)
            continue;
        std::istringstream rest(text.substr(close + 2));
        std::string state;
        int ppid = 0;
        rest >> state >> ppid;
        std::ifstream cmd(entry.path() / "cmdline");
        std::string cmdline((std::istreambuf_iterator<char>(cmd)), {});
        if (ppid == ::getpid() && state != "Z" && cmdline.find(mentioning) != std::string::npos)
            found.push_back(std::stoi(name));
    }
    return found;
}

} // namespace

TEST_CASE("execute: results, streams, errors and display data, with execution counts") {
    TempDir tmp;
    Recorder rec;
    KernelClient client(pythonOptions(tmp), rec.callbacks());
    client.start();
    CHECK(client.alive());
    CHECK(client.pid() > 0);
    const Json info = client.kernelInfo();
    CHECK(info.value("protocol_version", "").rfind("5.", 0) == 0);
    CHECK(info["language_info"]["name"] == "python");

    ExecuteResult r = client.executeAndWait("1+1");
    CHECK(r.reply["status"] == "ok");
    CHECK(r.reply["execution_count"] == 1);
    REQUIRE(!r.iopub.empty());
    CHECK(r.iopub.front().msgType() == "status");
    CHECK(r.iopub.front().content["execution_state"] == "busy");
    CHECK(r.iopub.back().content["execution_state"] == "idle");
    const Message* input = findType(r.iopub, "execute_input");
    REQUIRE(input);
    CHECK(input->content["code"] == "1+1");
    const Message* result = findType(r.iopub, "execute_result");
    REQUIRE(result);
    CHECK(result->content["data"]["text/plain"] == "2");
    CHECK(result->content["execution_count"] == 1);
    // The callbacks saw the same messages (they are not swallowed by the blocking call).
    CHECK(rec.waitFor([&] { return rec.replyTo(result->parentMsgId()).has_value(); }));

    r = client.executeAndWait("print('to out'); import sys; print('to err', file=sys.stderr)");
    CHECK(r.reply["execution_count"] == 2);
    std::string out, err;
    for (const Message& m : r.iopub)
        if (m.msgType() == "stream")
            (m.content["name"] == "stdout" ? out : err) += m.content["text"].get<std::string>();
    CHECK(out == "to out\n");
    CHECK(err == "to err\n");

    // stop_on_error false: with true, ipykernel aborts requests that reach it before it stops
    // aborting (a timer after the error), and the next cell here is sent at once.
    r = client.executeAndWait("1/0", 60, false, false);
    CHECK(r.reply["status"] == "error");
    CHECK(r.reply["ename"] == "ZeroDivisionError");
    const Message* error = findType(r.iopub, "error");
    REQUIRE(error);
    CHECK(error->content["ename"] == "ZeroDivisionError");
    CHECK(error->content["traceback"].size() > 0);

    r = client.executeAndWait(
        "from IPython.display import display, HTML\ndisplay(HTML('<b>bold</b>'))");
    CHECK(r.reply["status"] == "ok");
    const Message* display = findType(r.iopub, "display_data");
    REQUIRE_MESSAGE(display, "IOPub: " << typesOf(r.iopub) << "\nlog:\n" << rec.allLogs());
    CHECK(display->content["data"]["text/html"] == "<b>bold</b>");
    CHECK(display->content["data"].contains("text/plain"));
}

TEST_CASE("signatures: the kernel ignores a forged request; we refuse forged and replayed ones") {
    TempDir tmp;
    Recorder rec;
    KernelClient client(pythonOptions(tmp), rec.callbacks());
    client.start();
    const ConnectionInfo conn = client.connectionInfo();
    CHECK(conn.key.size() == 64);

    // A stranger on the shell port: its request signed with a wrong key gets no reply, while
    // the same request signed with the connection's key does (shell requests are handled in
    // order, so the genuine reply coming first proves the forged one was dropped).
    zmq::context_t ctx;
    zmq::socket_t stranger(ctx, zmq::socket_type::dealer);
    stranger.set(zmq::sockopt::linger, 0);
    stranger.set(zmq::sockopt::rcvtimeo, 30000);
    stranger.connect(conn.url(Channel::Shell));
    auto sendAs = [&](const Signer& signer, const std::string& id) {
        Message m;
        m.header = makeHeader("kernel_info_request", id, "stranger", "mallory");
        const auto frames = serialize(m, signer);
        for (std::size_t i = 0; i < frames.size(); ++i)
            stranger.send(zmq::buffer(frames[i]),
                          i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
    };
    sendAs(Signer("not the key"), "forged");
    sendAs(Signer(conn.key), "genuine");
    std::vector<std::string> frames;
    zmq::message_t part;
    do {
        REQUIRE(stranger.recv(part));
        frames.push_back(part.to_string());
    } while (part.more());
    Decoded reply = deserialize(frames, Signer(conn.key));
    REQUIRE_MESSAGE(reply, reply.error);
    CHECK(reply.value->message.parentMsgId() == "genuine");
    CHECK(rec.waitFor([&] { return rec.logged("Invalid Message"); })); // ipykernel's own log

    // The kernel publishes a message signed with a wrong key, then one genuine message twice.
    client.executeAndWait(R"(k = get_ipython().kernel
forged = k.session.serialize(k.session.msg("stream", {"name": "stdout", "text": "forged\n"}))
forged[1] = b"0" * 64
k.iopub_socket.send_multipart(forged)
twice = k.session.serialize(k.session.msg("stream", {"name": "stdout", "text": "once\n"}))
k.iopub_socket.send_multipart(twice)
k.iopub_socket.send_multipart(twice)
)");
    CHECK(rec.waitFor([&] {
        return rec.logged("iopub: refused a message: bad signature") &&
               rec.logged("iopub: refused a message: duplicate signature");
    }));
    // Both refusals are logged after "once" was dispatched (the I/O thread keeps order).
    std::lock_guard lock(rec.mutex);
    CHECK(rec.streamText("stdout") == "once\n");
}

TEST_CASE("interrupt ends a sleeping cell with KeyboardInterrupt") {
    TempDir tmp;
    Recorder rec;
    KernelClient client(pythonOptions(tmp), rec.callbacks());
    client.start();
    const std::string id = client.execute("import time\nprint('sleeping', flush=True)\n"
                                          "time.sleep(600)");
    REQUIRE(waitForCellOutput(rec, id, "sleeping"));
    client.interrupt();
    REQUIRE(rec.waitFor([&] { return rec.replyTo(id).has_value(); }));
    std::lock_guard lock(rec.mutex);
    const Message reply = *rec.replyTo(id);
    CHECK(reply.content["status"] == "error");
    CHECK(reply.content["ename"] == "KeyboardInterrupt");
}

TEST_CASE("a kernelspec with interrupt_mode message is interrupted on the control channel") {
    TempDir tmp;
    KernelSpec spec = defaultKernelSpec();
    spec.interruptMode = "message";
    Recorder rec;
    KernelClient client(pythonOptions(tmp, spec), rec.callbacks());
    client.start();
    // ipykernel raises SIGINT itself, from its control thread. Under load, about one run in a
    // dozen, a long time.sleep on its main thread did not wake for it (interrupt_request got its
    // reply and idle status, the cell went on); short sleeps act on the signal at their next step.
    const std::string id = client.execute("import time\nprint('sleeping', flush=True)\n"
                                          "for _ in range(60000): time.sleep(0.01)");
    REQUIRE(waitForCellOutput(rec, id, "sleeping"));
    client.interrupt();
    REQUIRE_MESSAGE(rec.waitFor([&] { return rec.replyTo(id).has_value(); }), rec.allLogs());
    std::lock_guard lock(rec.mutex);
    CHECK(rec.replyTo(id)->content["ename"] == "KeyboardInterrupt");
    CHECK(findType(rec.replies, "interrupt_reply"));
}

TEST_CASE("restart: a new process, execution count back to 1, variables gone, pending failed") {
    TempDir tmp;
    Recorder rec;
    KernelClient client(pythonOptions(tmp), rec.callbacks());
    client.start();
    const int firstPid = client.pid();
    const fs::path file = client.connectionFile();
    client.executeAndWait("x = 41");
    ExecuteResult before = client.executeAndWait("x + 1");
    CHECK(before.reply["execution_count"] == 2);
    REQUIRE(findType(before.iopub, "execute_result"));
    CHECK(findType(before.iopub, "execute_result")->content["data"]["text/plain"] == "42");
    // A cell that ignores SIGINT: the restart must escalate to SIGTERM, and its request fails.
    const std::string stuck =
        client.execute("import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                       "print('deaf', flush=True)\ntime.sleep(600)");
    REQUIRE(waitForCellOutput(rec, stuck, "deaf"));
    client.restart();
    CHECK(client.alive());
    CHECK(client.pid() != firstPid);
    CHECK(processGone(firstPid));
    CHECK(client.connectionFile() == file); // the same file and ports
    {
        std::lock_guard lock(rec.mutex);
        REQUIRE(rec.failed.size() == 1);
        CHECK(rec.failed[0].first == stuck);
        CHECK(rec.failed[0].second == "the kernel was restarted");
        CHECK_FALSE(rec.died);
    }
    ExecuteResult r = client.executeAndWait("x");
    CHECK(r.reply["execution_count"] == 1);
    CHECK(r.reply["ename"] == "NameError");
}

TEST_CASE("a kernel killed by a signal is reported, its request fails, and restart revives it") {
    TempDir tmp;
    Recorder rec;
    KernelClient client(pythonOptions(tmp), rec.callbacks());
    client.start();
    // Written to the process's own stderr (not IOPub): the report must carry it.
    client.executeAndWait("import sys; print('last words', file=sys.__stderr__, flush=True)");
    CHECK(rec.waitFor([&] { return rec.logged("kernel stderr: last words"); }));
    const std::string id = client.execute("import os; os.kill(os.getpid(), 9)");
    REQUIRE(rec.waitFor([&] { return rec.died.has_value(); }));
    {
        std::lock_guard lock(rec.mutex);
        CHECK(rec.died->first == -9);
        CHECK(rec.died->second.find("last words") != std::string::npos);
        REQUIRE(rec.failed.size() == 1);
        CHECK(rec.failed[0].first == id);
        CHECK(rec.failed[0].second.find("killed by signal 9") != std::string::npos);
    }
    CHECK_FALSE(client.alive());
    CHECK(client.pid() == -1);
    CHECK_THROWS_WITH_AS(client.execute("1"), doctest::Contains("the kernel is dead"), KernelError);
    client.restart();
    CHECK(client.executeAndWait("6*7").reply["status"] == "ok");
}

TEST_CASE("input() asks on stdin and gets the answer") {
    TempDir tmp;
    Recorder rec;
    std::atomic<KernelClient*> target{nullptr};
    rec.onInput = [&](const Message&) {
        target.load()->inputReply("abc");
    };
    KernelClient client(pythonOptions(tmp), rec.callbacks());
    target = &client;
    client.start();
    ExecuteResult r =
        client.executeAndWait("name = input('who? ')\nprint('hello', name)", 60, true);
    CHECK(r.reply["status"] == "ok");
    std::lock_guard lock(rec.mutex);
    REQUIRE(rec.inputRequests.size() == 1);
    CHECK(rec.inputRequests[0].content["prompt"] == "who? ");
    CHECK(rec.streamText("stdout") == "hello abc\n");
}

TEST_CASE("complete, inspect, is_complete and history") {
    TempDir tmp;
    Recorder rec;
    KernelClient client(pythonOptions(tmp), rec.callbacks());
    client.start();
    Message m = client.requestAndWait("complete_request", {{"code", "impo"}, {"cursor_pos", 4}});
    CHECK(m.msgType() == "complete_reply");
    const auto matches = m.content["matches"].get<std::vector<std::string>>();
    CHECK(std::find(matches.begin(), matches.end(), "import") != matches.end());
    CHECK(m.content["cursor_start"] == 0);

    m = client.requestAndWait("inspect_request",
                              {{"code", "len"}, {"cursor_pos", 3}, {"detail_level", 0}});
    CHECK(m.content["found"] == true);
    CHECK(m.content["data"]["text/plain"].get<std::string>().find("Return the number of items") !=
          std::string::npos);

    m = client.requestAndWait("is_complete_request", {{"code", "for i in x:"}});
    CHECK(m.content["status"] == "incomplete");
    CHECK(m.content["indent"] == "    ");
    m = client.requestAndWait("is_complete_request", {{"code", "x = 1"}});
    CHECK(m.content["status"] == "complete");

    client.executeAndWait("first = 1");
    client.executeAndWait("second = 2");
    m = client.requestAndWait("history_request", {{"output", false},
                                                  {"raw", true},
                                                  {"hist_access_type", "range"},
                                                  {"session", 0},
                                                  {"start", 1},
                                                  {"stop", nullptr}});
    std::vector<std::string> inputs;
    for (const Json& row : m.content["history"])
        inputs.push_back(row[2]);
    CHECK(inputs == std::vector<std::string>{"first = 1", "second = 2"});
}

TEST_CASE("after the client goes no kernel process, child of it, or connection file is left") {
    TempDir tmp;
    int kernelPid = -1, grandchild = -1;
    fs::path file;
    {
        Recorder rec;
        KernelClient client(pythonOptions(tmp), rec.callbacks());
        client.start();
        kernelPid = client.pid();
        file = client.connectionFile();
        CHECK(fs::exists(file));
        ExecuteResult r = client.executeAndWait(
            "import subprocess\nchild = subprocess.Popen(['sleep', '600'])\nchild.pid");
        grandchild = std::stoi(
            findType(r.iopub, "execute_result")->content["data"]["text/plain"].get<std::string>());
        CHECK_FALSE(processGone(grandchild));
        CHECK(children() == std::vector<int>{kernelPid});
    }
    CHECK(processGone(kernelPid));
    CHECK(children().empty());
    CHECK_FALSE(fs::exists(file));
    // The kernel's own children go with its process group.
    for (int i = 0; i < 100 && !processGone(grandchild); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK(processGone(grandchild));
}

TEST_CASE("a kernel does not outlive a studio that crashes") {
    TempDir tmp;
    process::Pipe report = process::makePipe();
    const pid_t studio = ::fork();
    REQUIRE(studio >= 0);
    if (studio == 0) { // the "studio": starts a kernel, says its pid, and is killed
        report.read.reset();
        try {
            KernelClient client(pythonOptions(tmp), {});
            client.start();
            const std::string pid = std::to_string(client.pid()) + "\n";
            process::writeAll(report.write.get(), pid);
            ::pause();
        } catch (...) {
        }
        ::_exit(1);
    }
    report.write.reset();
    std::string line;
    char c;
    while (::read(report.read.get(), &c, 1) == 1 && c != '\n')
        line.push_back(c);
    REQUIRE_MESSAGE(!line.empty(), "the forked studio did not start its kernel");
    const int kernel = std::stoi(line);
    CHECK_FALSE(processGone(kernel));
    ::kill(studio, SIGKILL);
    int status = 0;
    ::waitpid(studio, &status, 0);
    // The parent-death signal (SIGTERM) ends it; ipykernel's parent poller would too.
    for (int i = 0; i < 600 && !processGone(kernel); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK(processGone(kernel));
}

TEST_CASE("a kernel that cannot start is reported with its spec and stderr, and reaped") {
    TempDir tmp;
    KernelSpec spec;
    spec.name = "broken";
    spec.displayName = "Broken";
    spec.argv = {"python3", "-c",
                 "import sys; sys.stderr.write('boom: no kernel here\\n'); sys.exit(3)",
                 "{connection_file}"};
    Recorder rec;
    {
        KernelClient client(pythonOptions(tmp, spec), rec.callbacks());
        try {
            client.start();
            FAIL("start() returned for a kernel that exits at once");
        } catch (const KernelError& e) {
            const std::string what = e.what();
            CHECK(what.find("kernel 'broken' (Broken) exited with code 3 before it was ready") !=
                  std::string::npos);
            CHECK(what.find("boom: no kernel here") != std::string::npos);
        }
        CHECK_FALSE(client.alive());
        CHECK(children("boom").empty());

        spec.argv = {"/nonexistent/kernel", "{connection_file}"};
        KernelClient missing(pythonOptions(tmp, spec), rec.callbacks());
        CHECK_THROWS_WITH_AS(missing.start(),
                             doctest::Contains("kernel 'broken' (Broken): cannot execute "
                                               "'/nonexistent/kernel'"),
                             KernelError);

        // A kernel that never answers: the ready timeout names it, and it is killed.
        spec.argv = {"python3", "-c", "import time; time.sleep(600)", "{connection_file}"};
        KernelClient::Options o = pythonOptions(tmp, spec);
        o.readyTimeoutS = 2;
        KernelClient silent(o, rec.callbacks());
        CHECK_THROWS_WITH_AS(silent.start(), doctest::Contains("was not ready within 2 s"),
                             KernelError);
        CHECK(children("time.sleep(600)").empty());
    }
    // Their connection files went with the clients.
    CHECK(fs::is_empty(tmp.filePath("runtime")));

    // No runtime folder: start names it, and restart cannot bring back what never began.
    std::ofstream(tmp.filePath("a-file")) << "not a folder";
    KernelClient::Options o = pythonOptions(tmp);
    o.runtimeDir = tmp.filePath("a-file/runtime");
    KernelClient homeless(o, rec.callbacks());
    const std::string folderError = "cannot create the runtime folder " + o.runtimeDir.string();
    CHECK_THROWS_WITH_AS(homeless.start(), doctest::Contains(folderError.c_str()), KernelError);
    CHECK_THROWS_WITH_AS(homeless.restart(), doctest::Contains("make a new client"), KernelError);
}

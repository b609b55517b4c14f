// The job control socket under hostile clients: a peer that hangs up, wrong field types, a slow
// and a huge request, another uid, a home spelled with a trailing slash, and a second controller
// (another studio process) stopping a job it does not run.
#include "engine/control/control_channel.h"
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "tests/support/test_controller.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace studio;

namespace {

spec::JobSpec sleeper(const std::string& name) {
    auto r = spec::parseSpecText(
        R"({"name": ")" + name + R"(", "entry_point": ["/bin/sleep", "60"]})", STUDIO_SOURCE_DIR);
    if (!r.ok())
        throw std::runtime_error(r.errors.front().text());
    return *r.spec;
}

// A raw client; -1 when nothing listens.
int connectTo(const std::string& path) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

std::string ask(const std::string& path, const std::string& request) {
    const int fd = connectTo(path);
    if (fd < 0)
        return "no socket";
    (void)!::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    std::string reply;
    char buf[512];
    ssize_t n;
    while (reply.find('\n') == std::string::npos && (n = ::read(fd, buf, sizeof buf)) > 0)
        reply.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
    return reply;
}

} // namespace

class TestControlChannel : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    std::unique_ptr<control::Controller> m_controller;

    std::string home() const { return m_home.path().toStdString(); }
    std::string status(const std::string& job) {
        return store::StoreReader(control::databasePath(home())).component(job)->status;
    }
    std::string startSleeper(const std::string& name) {
        auto job = m_controller->submit(sleeper(name));
        const std::string path = control::controlSocketPath(home(), job.name);
        for (int i = 0; i < 200 && ::access(path.c_str(), F_OK) != 0; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (::access(path.c_str(), F_OK) != 0)
            throw std::runtime_error("no control socket at " + path);
        return job.name;
    }

private Q_SLOTS:
    void initTestCase() {
        m_controller = std::make_unique<control::Controller>(testControllerOptions(m_home.path()));
    }
    void cleanupTestCase() { m_controller.reset(); }

    void socketLivesInAPrivateFolder() {
        const std::string job = startSleeper("private");
        struct stat st {};
        QCOMPARE(::stat(control::controlSocketDirectory(home()).c_str(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0700u);
        QCOMPARE(st.st_uid, ::geteuid());
        QVERIFY(m_controller->stop(job));
        QCOMPARE(m_controller->wait(job), std::string("Stopped"));
        QVERIFY(::access(control::controlSocketPath(home(), job).c_str(), F_OK) != 0);
    }

    // Before: the first hang-up killed this process with SIGPIPE; a number as the reason threw
    // out of the job's thread.
    void hangUpsAndWrongTypesAreAnswered() {
        const std::string job = startSleeper("hostile-requests");
        const std::string path = control::controlSocketPath(home(), job);
        for (int i = 0; i < 5; ++i)
            ::close(connectTo(path));
        const int partial = connectTo(path);
        (void)!::send(partial, "{\"action\":", 10, MSG_NOSIGNAL);
        ::close(partial);
        for (const char* bad : {R"({"action":"stop","reason":5})", R"({"action":5})", "[]", "\"x\"",
                                "{", R"({"action":["stop"]})"}) {
            const std::string reply = ask(path, std::string(bad) + "\n");
            QVERIFY2(reply.find("\"ok\":false") != std::string::npos,
                     (bad + (" -> " + reply)).c_str());
            QVERIFY2(reply.find("malformed") != std::string::npos, reply.c_str());
        }
        const std::string unknown = ask(path, R"({"action":"explode"})"
                                              "\n");
        QVERIFY2(unknown.find("unknown action") != std::string::npos, unknown.c_str());
        QCOMPARE(status(job), std::string("InProgress"));
        const std::string reply = ask(path, "{\"action\":\"stop\",\"reason\":\"bye\"}\n");
        QVERIFY2(reply.find("\"ok\":true") != std::string::npos, reply.c_str());
        QCOMPARE(m_controller->wait(job), std::string("Stopped"));
    }

    // Before: a client dribbling bytes held the job's supervision thread, so not even this
    // process could stop the job; a megabyte without a newline was rescanned on every read.
    void slowAndHugeClientsDoNotHoldTheJob() {
        const std::string job = startSleeper("slow-client");
        const std::string path = control::controlSocketPath(home(), job);
        std::atomic<bool> done{false};
        std::atomic<bool> dribbledToTheEnd{false}; // all 60 bytes sent before the job ended
        std::thread slow([&] {
            const int fd = connectTo(path);
            int i = 0;
            for (; i < 60 && !done; ++i) {
                (void)!::send(fd, " ", 1, MSG_NOSIGNAL);
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
            dribbledToTheEnd = i == 60;
            ::close(fd);
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const std::string huge = ask(path, std::string(1 << 20, ' '));
        QVERIFY2(huge.find("too large") != std::string::npos, huge.c_str());
        QVERIFY(m_controller->stop(job));
        const std::string end = m_controller->wait(job);
        done = true;
        slow.join();
        QCOMPARE(end, std::string("Stopped"));
        // The stop did not wait for the slow client to finish its request.
        QVERIFY(!dribbledToTheEnd);
    }

    void trailingSlashAndAnotherController() {
        const std::string job = startSleeper("other-studio");
        auto interrupt = control::sendControl(home() + "/", job, "interrupt");
        QVERIFY(interrupt);
        QVERIFY2(!interrupt->ok && interrupt->message.find("not a spot job") != std::string::npos,
                 interrupt->message.c_str());
        // A second studio process (here a second controller on the same home) stops it.
        control::Controller other(testControllerOptions(m_home.path() + "/"));
        QVERIFY(other.stop(job, "Stopped from another studio"));
        QCOMPARE(m_controller->wait(job), std::string("Stopped"));
        auto row = store::StoreReader(control::databasePath(home())).component(job);
        QCOMPARE(row->failureReason, std::string("Stopped from another studio"));
        QVERIFY(!other.stop(job)); // ended: nobody answers
    }

    // Another uid can neither reach the socket nor, when it could, be answered.
    void anotherUserCannotStopTheJob() {
        if (::geteuid() != 0)
            QSKIP("needs root to act as another uid");
        const std::string job = startSleeper("other-uid");
        QVERIFY(::chmod(home().c_str(), 0755) == 0); // a careless home: the run folder still holds
        const std::string path = control::controlSocketPath(home(), job);
        const pid_t pid = ::fork();
        if (pid == 0) {
            if (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0)
                ::_exit(3);
            const int fd = connectTo(path);
            const bool reached = fd >= 0 || control::sendControl(home(), job, "stop").has_value();
            ::_exit(reached ? 1 : 0);
        }
        int st = 0;
        ::waitpid(pid, &st, 0);
        QVERIFY(WIFEXITED(st));
        QCOMPARE(WEXITSTATUS(st), 0);
        QCOMPARE(status(job), std::string("InProgress"));
        QVERIFY(m_controller->stop(job));
        QCOMPARE(m_controller->wait(job), std::string("Stopped"));
    }
};

QTEST_GUILESS_MAIN(TestControlChannel)
#include "test_control_channel.moc"

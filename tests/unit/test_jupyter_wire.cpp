// The Jupyter client's pure parts: HMAC signatures against vectors computed independently, the
// wire format (delimiter, identities, refusals), kernelspec search order and argv templating,
// environment expansion, and connection files (modes 0600 / 0700, fields).
#include "engine/jupyter/connection.h"
#include "engine/jupyter/kernelspec.h"
#include "engine/jupyter/message.h"

#include "tests/support/plain_test.h"
#include "tests/support/temp_dir.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sys/stat.h>

using namespace studio::jupyter;
using studio::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// Sets and unsets environment variables for one test and restores them afterwards.
class ScopedEnv {
public:
    ScopedEnv& set(const std::string& name, const std::optional<std::string>& value) {
        if (!m_saved.count(name)) {
            const char* old = std::getenv(name.c_str());
            m_saved[name] = old ? std::optional<std::string>(old) : std::nullopt;
        }
        if (value)
            ::setenv(name.c_str(), value->c_str(), 1);
        else
            ::unsetenv(name.c_str());
        return *this;
    }
    ~ScopedEnv() {
        for (const auto& [name, value] : m_saved)
            if (value)
                ::setenv(name.c_str(), value->c_str(), 1);
            else
                ::unsetenv(name.c_str());
    }

private:
    std::map<std::string, std::optional<std::string>> m_saved;
};

// An environment where only what a test sets decides the search path: HOME is the temp dir,
// the other variables the search reads are unset.
ScopedEnv& isolate(ScopedEnv& env, const TempDir& home) {
    env.set("HOME", home.path());
    for (const char* name :
         {"JUPYTER_PATH", "JUPYTER_DATA_DIR", "XDG_DATA_HOME", "JUPYTER_PREFER_ENV_PATH",
          "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYTHONUSERBASE", "IPYTHONDIR",
          "JUPYTER_RUNTIME_DIR", "XDG_RUNTIME_DIR"})
        env.set(name, std::nullopt);
    return env;
}

void writeSpec(const fs::path& dir, const std::string& json) {
    fs::create_directories(dir);
    std::ofstream(dir / "kernel.json") << json;
}

unsigned modeOf(const fs::path& p) {
    struct stat st {};
    ::stat(p.c_str(), &st);
    return st.st_mode & 0777;
}

Message sampleMessage() {
    Message m;
    m.header = makeHeader("execute_request", "m-1", "session-1", "ada");
    m.content = Json{{"code", "print('größe')"}, {"silent", false}};
    m.metadata = Json{{"cellId", "c1"}};
    m.buffers = {std::string("\x00\x01\x02", 3)};
    return m;
}

} // namespace

TEST_CASE("HMAC-SHA256 signatures equal Python's hmac module") {
    // RFC 4231 test case 2 (key "Jefe"): HMAC runs over the frames as one byte stream.
    CHECK(Signer("Jefe").sign({"what do ya", " want", " for nothing", "?"}) ==
          "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    // The next vectors were printed by /usr/bin/python3 with hmac.new(key, digestmod=...) and
    // one update() per frame.
    CHECK(Signer("0123456789abcdef")
              .sign({R"({"msg_id":"m1","msg_type":"execute_request"})", "{}", "{}",
                     R"({"code":"1+1"})"}) ==
          "8572747e8649478f05a16615615476a0cb6fd3be35619fe48d509c544cee09a7");
    CHECK(Signer("k\xc3\xa9y")
              .sign({R"({"msg_type":"stream"})", "{}", "{}",
                     "{\"text\":\"gr\xc3\xb6\xc3\x9f"
                     "e \xe2\x9c\x93\"}"}) ==
          "dfa8716db20e445ec47fd93f3680c15d657a476288388545083531de72531649");
    CHECK(Signer("key", "hmac-sha512").sign({"a", "b", "c", "d"}) ==
          "4c8e5ab0ebf28bd7d54d86fceb1c15e36517ba1522d3b30485d8af148238771c5e046821c457a399db9c936a"
          "1e2b9c2f370688ced9968e78a6a7ca678e6d3e84");
}

TEST_CASE("a signer verifies its own signatures and nothing else; an empty key signs nothing") {
    Signer signer("k");
    const std::string sig = signer.sign({"h", "p", "m", "c"});
    CHECK(signer.verify({"h", "p", "m", "c"}, sig));
    CHECK_FALSE(signer.verify({"h", "p", "m", "C"}, sig));
    CHECK_FALSE(signer.verify({"h", "p", "m", "c"}, sig.substr(0, 63)));
    CHECK_FALSE(Signer("other").verify({"h", "p", "m", "c"}, sig));
    CHECK_FALSE(Signer().enabled());
    CHECK(Signer().sign({"h", "p", "m", "c"}).empty());
    CHECK_THROWS_WITH_AS(Signer("k", "md5-hmac"),
                         doctest::Contains("signature_scheme 'md5-hmac': must start with 'hmac-'"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(Signer("k", "hmac-nosuch"), doctest::Contains("unknown digest 'NOSUCH'"),
                         std::invalid_argument);
}

TEST_CASE("serialize and deserialize round-trip a message with identities and buffers") {
    Signer signer("secret");
    const Message m = sampleMessage();
    const auto frames = serialize(m, signer, {"id-a", "<not the delimiter>"});
    REQUIRE(frames.size() == 2 + 6 + 1);
    CHECK(frames[2] == "<IDS|MSG>");
    CHECK(frames[3] == signer.sign({frames[4], frames[5], frames[6], frames[7]}));
    CHECK(frames[7].find("größe") != std::string::npos); // UTF-8 written raw, as jupyter_client

    ReplayGuard guard;
    Decoded d = deserialize(frames, signer, &guard);
    REQUIRE_MESSAGE(d, d.error);
    CHECK(d.value->identities == std::vector<std::string>{"id-a", "<not the delimiter>"});
    const Message& back = d.value->message;
    CHECK(back.header == m.header);
    CHECK(back.parentHeader == Json::object());
    CHECK(back.metadata == m.metadata);
    CHECK(back.content == m.content);
    CHECK(back.buffers == m.buffers);
    CHECK(back.msgType() == "execute_request");
    CHECK(back.msgId() == "m-1");
    CHECK(back.parentMsgId().empty());
    CHECK(back.header["version"] == "5.3");
    const std::string date = back.header["date"];
    CHECK(date.size() == 27);
    CHECK(date.back() == 'Z');
    CHECK(date[10] == 'T');
}

TEST_CASE("a bad signature is refused, and so is a replayed one") {
    Signer signer("secret");
    ReplayGuard guard;
    auto frames = serialize(sampleMessage(), signer);
    REQUIRE(deserialize(frames, signer, &guard));

    Decoded again = deserialize(frames, signer, &guard);
    CHECK_FALSE(again);
    CHECK(again.error.find("duplicate signature") != std::string::npos);

    auto forged = serialize(sampleMessage(), Signer("wrong key"));
    Decoded refused = deserialize(forged, signer, &guard);
    CHECK_FALSE(refused);
    CHECK(refused.error == "bad signature");

    auto tampered = serialize(sampleMessage(), signer);
    tampered[5] = R"j({"code":"import os; os.system('rm -rf ~')"})j";
    CHECK(deserialize(tampered, signer, &guard).error == "bad signature");

    auto unsigned_ = serialize(sampleMessage(), Signer());
    CHECK(deserialize(unsigned_, signer, &guard).error.find("unsigned message") !=
          std::string::npos);
    // Without a key nothing is checked.
    CHECK(deserialize(forged, Signer(), &guard));
}

TEST_CASE("the replay guard forgets its oldest signatures beyond its capacity") {
    ReplayGuard guard(3);
    for (const char* s : {"a", "b", "c", "d"})
        guard.remember(s);
    CHECK(guard.size() == 3);
    CHECK_FALSE(guard.seen("a"));
    CHECK(guard.seen("d"));
    CHECK(ReplayGuard().seen("x") == false);
}

TEST_CASE("malformed frames are refused with the reason") {
    Signer signer("secret");
    CHECK(deserialize({"a", "b"}, signer).error.find("no <IDS|MSG> delimiter") !=
          std::string::npos);
    CHECK(deserialize({"<IDS|MSG>", "sig", "{}"}, signer).error.find("truncated message") !=
          std::string::npos);
    Signer none;
    CHECK(deserialize({"<IDS|MSG>", "", "{not json", "{}", "{}", "{}"}, none)
              .error.find("header: not valid JSON") != std::string::npos);
    CHECK(deserialize({"<IDS|MSG>", "", "[1]", "{}", "{}", "{}"}, none).error ==
          "header: not a JSON object");
    CHECK(deserialize({"<IDS|MSG>", "", "{}", "{}", "{}", "{}"}, none).error ==
          "header: no msg_type");
    CHECK(deserialize({"<IDS|MSG>", "", R"({"msg_type":"x"})", "{}", "{}", "3"}, none).error ==
          "content: not a JSON object");
    // A SUB topic before the delimiter is kept as an identity.
    Decoded topic = deserialize(
        {"kernel.abc.status", "<IDS|MSG>", "", R"({"msg_type":"status"})", "{}", "{}", "{}"}, none);
    REQUIRE(topic);
    CHECK(topic.value->identities == std::vector<std::string>{"kernel.abc.status"});
}

TEST_CASE("kernelspec search path follows jupyter_path('kernels')") {
    TempDir home;
    ScopedEnv env;
    isolate(env, home);
    const fs::path h = home.path();
    auto path = kernelSearchPath();
    const std::vector<fs::path> plain = {h / ".local/share/jupyter/kernels",
                                         "/usr/local/share/jupyter/kernels",
                                         "/usr/share/jupyter/kernels", h / ".ipython/kernels"};
    CHECK(path == plain);

    env.set("JUPYTER_PATH", "/a/:/b").set("XDG_DATA_HOME", "/xdg").set("IPYTHONDIR", "/ipy");
    path = kernelSearchPath();
    REQUIRE(path.size() >= 4);
    CHECK(path[0] == "/a/kernels");
    CHECK(path[1] == "/b/kernels");
    CHECK(path[2] == "/xdg/jupyter/kernels");
    CHECK(path[3] == h / ".local/share/jupyter/kernels"); // the Python user base's
    CHECK(path.back() == "/ipy/kernels");

    env.set("JUPYTER_DATA_DIR", "/data").set("PYTHONUSERBASE", "/ub");
    path = kernelSearchPath();
    CHECK(path[2] == "/data/kernels");
    CHECK(path[3] == "/ub/share/jupyter/kernels");

    // A virtualenv comes after the user's folders unless it is preferred, which it is by
    // default when one is active, as jupyter_core decides.
    env.set("VIRTUAL_ENV", "/venv").set("JUPYTER_PREFER_ENV_PATH", "no");
    path = kernelSearchPath();
    CHECK(path[2] == "/data/kernels");
    CHECK(path[4] == "/venv/share/jupyter/kernels");
    env.set("JUPYTER_PREFER_ENV_PATH", std::nullopt);
    path = kernelSearchPath();
    CHECK(path[2] == "/venv/share/jupyter/kernels");
    CHECK(path[3] == "/data/kernels");
}

TEST_CASE("the first kernelspec of a name wins, names are case-insensitive, bad ones are named") {
    TempDir home;
    ScopedEnv env;
    isolate(env, home);
    const fs::path first = fs::path(home.path()) / "first";
    const fs::path second = fs::path(home.path()) / "second";
    env.set("JUPYTER_PATH", first.string() + ":" + second.string());
    writeSpec(first / "kernels/MyKernel", R"({"argv":["mk","{connection_file}"],
        "display_name":"Mine","language":"lisp","interrupt_mode":"message",
        "env":{"A":"1"},"metadata":{"debugger":false}})");
    writeSpec(second / "kernels/mykernel", R"({"argv":["other"],"display_name":"Other"})");
    writeSpec(second / "kernels/python3",
              R"j({"argv":["python3","-m","ipykernel_launcher","-f","{connection_file}"],
                  "display_name":"Python 3 (here)","language":"python"})j");
    writeSpec(second / "kernels/broken", R"({"argv":"not a list"})");
    writeSpec(second / "kernels/bad name", R"({"argv":["x"]})");
    writeSpec(second / "kernels/badmode", R"({"argv":["x"],"interrupt_mode":"telepathy"})");

    std::vector<std::string> problems;
    const auto specs = findKernelSpecs(&problems);
    auto named = [&](const std::string& n) {
        return std::find_if(specs.begin(), specs.end(),
                            [&](const KernelSpec& s) { return s.name == n; });
    };
    REQUIRE(named("mykernel") != specs.end());
    const KernelSpec& mine = *named("mykernel");
    CHECK(mine.displayName == "Mine");
    CHECK(mine.language == "lisp");
    CHECK(mine.interruptMode == "message");
    CHECK(mine.env.at("A") == "1");
    CHECK(mine.metadata == Json{{"debugger", false}});
    CHECK(mine.resourceDir == first / "kernels/MyKernel");
    CHECK(named("broken") == specs.end());
    CHECK(named("bad name") == specs.end());
    CHECK(named("badmode") == specs.end());
    auto mentions = [&](const std::string& text) {
        return std::any_of(problems.begin(), problems.end(),
                           [&](const std::string& p) { return p.find(text) != std::string::npos; });
    };
    CHECK(mentions("broken/kernel.json: \"argv\" must be a non-empty list of strings"));
    CHECK(mentions("bad name: not a kernel name"));
    CHECK(mentions("\"interrupt_mode\" must be \"signal\" or \"message\", got \"telepathy\""));

    REQUIRE(findKernelSpec("PYTHON3"));
    CHECK(findKernelSpec("python3")->displayName == "Python 3 (here)");
    CHECK(defaultKernelSpec().resourceDir == second / "kernels/python3");
    CHECK_FALSE(findKernelSpec("nosuch"));
}

TEST_CASE("without an installed python3 kernelspec the ipykernel default is built in") {
    TempDir home;
    ScopedEnv env;
    isolate(env, home);
    const KernelSpec builtin = builtinPythonSpec();
    CHECK(builtin.argv == std::vector<std::string>{"/usr/bin/python3", "-m", "ipykernel_launcher",
                                                   "-f", "{connection_file}"});
    CHECK(builtin.resourceDir.empty());
    CHECK(builtin.interruptMode == "signal");
    const KernelSpec def = defaultKernelSpec();
    CHECK(def.name == "python3");
    CHECK(def.language == "python");
}

TEST_CASE("argv templating fills what jupyter_client fills and resolves a bare python") {
    KernelSpec spec;
    spec.resourceDir = "/specs/k";
    spec.argv = {"python",
                 "-f",
                 "{connection_file}",
                 "--res={resource_dir}",
                 "{prefix}/lib",
                 "{unknown}",
                 "{connection_file}{connection_file}"};
    const auto argv = formatKernelArgv(spec, "/run/j/kernel-1.json", "/opt/py/bin/python3");
    CHECK(argv == std::vector<std::string>{"/opt/py/bin/python3", "-f", "/run/j/kernel-1.json",
                                           "--res=/specs/k", "/opt/py/lib", "{unknown}",
                                           "/run/j/kernel-1.json/run/j/kernel-1.json"});
    spec.argv = {"python3", "x"};
    CHECK(formatKernelArgv(spec, "/f.json", "/usr/bin/python3")[0] == "/usr/bin/python3");
    spec.argv = {"python2", "x"};
    CHECK(formatKernelArgv(spec, "/f.json", "/usr/bin/python3")[0] == "python2");
    spec.argv = {"/abs/python", "x"};
    CHECK(formatKernelArgv(spec, "/f.json", "/usr/bin/python3")[0] == "/abs/python");

    spec.argv = {"k", "{connection_file}"};
    CHECK(formatKernelArgv(spec, "rel.json", "/usr/bin/python3")[1] ==
          (fs::current_path() / "rel.json").string());
}

TEST_CASE("environment values expand as string.Template.safe_substitute") {
    const std::map<std::string, std::string> vars = {{"HOME", "/home/ada"}, {"N", "3"}};
    CHECK(expandVariables("${HOME}/lib:$HOME/bin", vars) == "/home/ada/lib:/home/ada/bin");
    CHECK(expandVariables("$$HOME costs $N$", vars) == "$HOME costs 3$");
    CHECK(expandVariables("${MISSING}:$MISSING:${HOME", vars) == "${MISSING}:$MISSING:${HOME");
    CHECK(expandVariables("a$1b $", vars) == "a$1b $");

    KernelSpec spec;
    spec.env = {{"PYTHONPATH", "${EXTRA}:${PYTHONPATH}"}, {"MODE", "spec"}};
    const auto env = kernelEnvironment(spec, {{"EXTRA", "/sdk"}, {"MODE", "caller"}},
                                       {{"PYTHONPATH", "/base"}, {"PATH", "/bin"}});
    CHECK(env.at("PYTHONPATH") == "/sdk:/base");
    CHECK(env.at("MODE") == "spec"); // the spec's env wins, as in jupyter_client
    CHECK(env.at("PATH") == "/bin");
    CHECK(env.at("EXTRA") == "/sdk");
}

TEST_CASE("a connection file is written 0600 into a 0700 folder and reads back") {
    TempDir tmp;
    const fs::path runtime = fs::path(tmp.path()) / "nested/runtime";
    const ConnectionInfo info = ConnectionInfo::loopback("python3");
    CHECK(info.key.size() == 64);
    CHECK(info.key.find_first_not_of("0123456789abcdef") == std::string::npos);
    std::set<int> ports = {info.shellPort, info.iopubPort, info.stdinPort, info.controlPort,
                           info.hbPort};
    CHECK(ports.size() == 5);
    CHECK(*ports.begin() > 0);

    const fs::path file = writeConnectionFile(info, runtime);
    CHECK(file.parent_path() == runtime);
    CHECK(file.filename().string().rfind("kernel-", 0) == 0);
    CHECK(modeOf(runtime) == 0700);
    CHECK(modeOf(file) == 0600);
    const ConnectionInfo back = readConnectionFile(file);
    CHECK(back.toJson() == info.toJson());
    CHECK(back.url(Channel::Shell) == "tcp://127.0.0.1:" + std::to_string(info.shellPort));
    CHECK(writeConnectionFile(info, runtime) != file);

    // A folder others can enter is made private before a secret goes into it.
    const fs::path open = fs::path(tmp.path()) / "open";
    fs::create_directories(open);
    ::chmod(open.c_str(), 0755);
    writeConnectionFile(info, open);
    CHECK(modeOf(open) == 0700);
}

TEST_CASE("connection fields are checked by name") {
    Json j = ConnectionInfo::loopback("k").toJson();
    j.erase("shell_port");
    CHECK_THROWS_WITH_AS(ConnectionInfo::fromJson(j), "missing field \"shell_port\"",
                         std::invalid_argument);
    j = ConnectionInfo::loopback("k").toJson();
    j["hb_port"] = "5555";
    CHECK_THROWS_WITH(ConnectionInfo::fromJson(j), doctest::Contains("\"hb_port\" must be a port"));
    j = ConnectionInfo::loopback("k").toJson();
    j["signature_scheme"] = "sha256";
    CHECK_THROWS_WITH(ConnectionInfo::fromJson(j), doctest::Contains("\"signature_scheme\""));
    j = ConnectionInfo::loopback("k").toJson();
    j["transport"] = "ipc";
    j["ip"] = "/tmp/kernel";
    CHECK(ConnectionInfo::fromJson(j).url(Channel::Heartbeat) ==
          "ipc:///tmp/kernel-" + std::to_string(j["hb_port"].get<int>()));

    TempDir tmp;
    std::ofstream(tmp.filePath("bad.json")) << "{ nope";
    CHECK_THROWS_WITH(readConnectionFile(tmp.filePath("bad.json")),
                      doctest::Contains("bad.json: not valid JSON"));
}

TEST_CASE("the runtime folder: JUPYTER_RUNTIME_DIR, XDG_RUNTIME_DIR/jupyter, data/runtime") {
    TempDir home;
    ScopedEnv env;
    isolate(env, home);
    CHECK(defaultRuntimeDir() == fs::path(home.path()) / ".local/share/jupyter/runtime");
    env.set("JUPYTER_DATA_DIR", "/data");
    CHECK(defaultRuntimeDir() == "/data/runtime");
    env.set("XDG_RUNTIME_DIR", "/run/user/7");
    CHECK(defaultRuntimeDir() == "/run/user/7/jupyter");
    env.set("JUPYTER_RUNTIME_DIR", "/rt");
    CHECK(defaultRuntimeDir() == "/rt");
}

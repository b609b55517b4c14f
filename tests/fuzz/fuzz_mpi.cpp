// Fuzzes what distribution.mpi reads from others: mpirun's tagged output (every byte of a line
// is a tag or some rank's text, and nothing comes out that did not go in), the rank shim's
// messages (a parsed exit line writes back to one that parses the same), and custom_mpi_options
// (the words it splits into, quoted again, split back into the same words).
#include "engine/spec/mpi_launch.h"
#include "launcher/mpi_wire.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using namespace studio::launcher::mpi;

[[noreturn]] void broken(const char* what, std::string_view detail) {
    std::fprintf(stderr, "invariant broken: %s: %.*s\n", what, static_cast<int>(detail.size()),
                 detail.data());
    std::abort();
}

void checkTagged(std::string_view data) {
    TaggedOutput t;
    std::size_t in = 0, out = 0;
    for (std::size_t at = 0; at <= data.size();) {
        const std::size_t end = std::min(data.find('\n', at), data.size());
        const std::string_view line = data.substr(at, end - at);
        in += line.size();
        for (const auto& l : t.line(line)) {
            if (l.rank < -1)
                broken("a negative rank", line);
            out += l.text.size();
        }
        at = end + 1;
    }
    for (const auto& l : t.finish())
        out += l.text.size();
    if (out > in)
        broken("more text out than in", data);
}

void checkMessages(std::string_view data) {
    if (auto e = parseExit(data)) {
        const std::string again = exitLine(*e);
        const auto back = parseExit(again);
        if (!back || back->status.code != e->status.code ||
            back->status.signal != e->status.signal || back->stderrTail != e->stderrTail)
            broken("an exit line does not read back", again);
    }
    if (auto s = parseSetup(data)) {
        const auto back = parseSetup(setupLine(*s));
        if (!back || back->env != s->env || back->argv != s->argv || back->cpus != s->cpus)
            broken("a set-up line does not read back", data);
    }
    (void)parseHello(data);
}

// Each word in single quotes, a ' as '\''.
std::string quoted(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) {
        out += out.empty() ? "'" : " '";
        for (char c : w)
            out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        out += "'";
    }
    return out;
}

void checkOptions(std::string_view data) {
    const auto words = studio::spec::splitMpiOptions(std::string(data));
    if (!words)
        return;
    const std::string text = quoted(*words);
    const auto again = studio::spec::splitMpiOptions(text);
    if (!again || *again != *words)
        broken("quoted words do not split back", text);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    checkTagged(text);
    checkMessages(text);
    checkOptions(text);
    return 0;
}

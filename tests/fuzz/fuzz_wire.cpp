// Fuzzes the wire protocol: any line decodes to an event, an error or "ignored"; an event that
// decoded encodes to a line that decodes again to the same line; and the line splitter gives out
// every byte of a stream exactly once, in pieces no longer than its limit.
#include "engine/wire/codec.h"
#include "engine/wire/line_splitter.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using studio::wire::LinePart;

[[noreturn]] void broken(const char* what, std::string_view detail) {
    std::fprintf(stderr, "invariant broken: %s: %.*s\n", what, static_cast<int>(detail.size()),
                 detail.data());
    std::abort();
}

void checkCodec(std::string_view line) {
    const studio::wire::Decoded d = studio::wire::decode(line);
    if (d.event && !d.error.empty())
        broken("an event with an error", d.error);
    if (!d.event)
        return;
    // What the controller relays or journals must read back as the same event.
    const std::string encoded = studio::wire::encode(*d.event);
    const studio::wire::Decoded again = studio::wire::decode(encoded);
    if (!again.event)
        broken("an encoded event does not decode", encoded + " -> " + again.error);
    if (studio::wire::encode(*again.event) != encoded)
        broken("an encoded event changes on a second round trip", encoded);
}

// Feeds the bytes in chunks whose sizes come from the bytes themselves, so that terminators and
// the length limit fall on every side of a chunk boundary.
void checkSplitter(std::string_view bytes) {
    if (bytes.empty())
        return;
    const std::size_t maxLine = 1 + static_cast<std::uint8_t>(bytes.front()) % 64;
    studio::wire::LineSplitter splitter(maxLine);
    std::string content; // every byte but the terminators, in order
    std::string given;   // what the splitter gave out, in order
    std::size_t pieces = 0;
    auto take = [&](const studio::wire::SplitLine& l) {
        if (l.text.size() > maxLine)
            broken("a line longer than the limit", l.text);
        given += l.text;
        if (l.part == LinePart::Piece) {
            pieces += l.text.size();
            return;
        }
        const std::size_t whole = (l.part == LinePart::Last ? pieces : 0) + l.text.size();
        if (l.lineBytes != whole || (l.part == LinePart::Whole && pieces != 0))
            broken("a line's length does not add up", l.text);
        pieces = 0;
    };
    std::size_t at = 0;
    while (at < bytes.size()) {
        const std::size_t chunk =
            std::min<std::size_t>(bytes.size() - at, 1 + static_cast<std::uint8_t>(bytes[at]));
        for (const auto& l : splitter.append(bytes.substr(at, chunk)))
            take(l);
        at += chunk;
    }
    const studio::wire::SplitLine rest = splitter.finish();
    if (!rest.text.empty() || rest.part != LinePart::Whole)
        take(rest);
    for (char c : bytes)
        if (c != '\n' && c != '\r')
            content.push_back(c);
    if (given != content)
        broken("the splitter lost or invented bytes", given);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    checkCodec(bytes);
    checkSplitter(bytes);
    return 0;
}

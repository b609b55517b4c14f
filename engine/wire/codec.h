// Text form of wire events: one JSON object per line,
// {"v":1,"kind":"metric","t":1732218900.5,"node":0,"rank":1,"name":"train:loss",...}.
// Unknown kinds and fields are ignored; NaN and infinities travel as "NaN", "Infinity",
// "-Infinity".
#pragma once

#include "engine/wire/event.h"

#include <optional>
#include <string>
#include <string_view>

namespace studio::wire {

// One line, without the trailing newline.
std::string encode(const Event& e);

struct Decoded {
    std::optional<Event> event; // set when the line is a known, well-formed event
    std::string error;          // set when the line is malformed (then event is empty)
    bool hasTime = false;       // the line carried "t"
    bool hasOrigin = false;     // the line carried "node" and "rank"

    bool ignored() const { return !event && error.empty(); } // a kind this version does not know
};

Decoded decode(std::string_view line);

// What a malformed line becomes: a log line, so nothing a rank writes is lost.
Event malformedAsLog(std::string_view line, double t, int node, int rank);

} // namespace studio::wire

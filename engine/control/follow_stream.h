// Reads the output of `studio-launcher follow` (launcher/journal_follower.h): journal lines
// with the byte count they advance the journal by, and the follower's control lines. What a
// login shell prints before the marker line is noise and is skipped. Pure, so it is
// unit-tested on fixed text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace studio::control {

struct FollowItem {
    enum class Kind {
        Marker,    // the follower runs; text: its start offset
        Line,      // a journal line (text without its newline)
        Heartbeat, // the follower is alive and everything was sent
        End,       // the launcher's exit event was sent: the journal is complete
        Gone,      // the launcher ended without an exit event
        Error,     // the journal cannot be followed; text says why
        Noise,     // a line before the marker (a login shell's output) or not understood
    };
    Kind kind = Kind::Noise;
    std::string text;
};

class FollowStream {
public:
    // Splits bytes into items; a line without its newline waits for the next call.
    std::vector<FollowItem> append(std::string_view bytes);
    bool started() const { return m_started; }

private:
    FollowItem classify(std::string line);
    std::string m_partial;
    bool m_started = false;
};

} // namespace studio::control

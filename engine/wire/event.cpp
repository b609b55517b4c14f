#include "engine/wire/event.h"

#include <chrono>

namespace studio::wire {

const char* streamName(Stream s) {
    switch (s) {
    case Stream::Stdout:
        return "stdout";
    case Stream::Stderr:
        return "stderr";
    case Stream::Events:
        return "events";
    }
    return "stdout";
}

const char* phaseName(Phase p) {
    return p == Phase::Eval ? "eval" : "train";
}

const char* kindName(const Payload& p) {
    static constexpr const char* names[] = {"log",     "metric", "sys",        "step",
                                            "tensor",  "status", "checkpoint", "exit",
                                            "profile", "param",  "artifact",   "facts"};
    return names[p.index()];
}

double nowSeconds() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

} // namespace studio::wire

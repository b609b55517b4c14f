// Events of the wire protocol: what launchers, ranks and the trainer tell the controller.
// One event is one JSON object on one line; see codec.h for the text form.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace studio::wire {

inline constexpr int kProtocolVersion = 1;

enum class Stream { Stdout, Stderr, Events };
enum class Phase { Train, Eval };

const char* streamName(Stream s);
const char* phaseName(Phase p);

// Where a piece of text stands in its line: a line longer than the launcher's limit (1 MiB)
// travels in pieces (Piece: more follows; Last: it ends the line).
enum class LinePart { Whole, Piece, Last };

// A line of a rank's output (or of the launcher itself when rank is -1).
struct LogEvent {
    Stream stream = Stream::Stdout;
    std::string text;
    LinePart part = LinePart::Whole;
};

struct MetricEvent {
    std::string name;
    std::int64_t step = 0;
    double value = 0.0;
    Phase phase = Phase::Train;
};

// One system sample: device "cpu", "cpu3", "mem", "net", "disk", "gpu0"; metric "util", "iowait",
// "used", "rx", "tx", "read", "write", "mem". Percentages or bytes per second.
struct SysEvent {
    std::string device;
    std::string metric;
    double value = 0.0;
};

// Phase timings of one training step, in milliseconds.
struct StepEvent {
    std::int64_t step = 0;
    Phase phase = Phase::Train;
    double dataMs = 0, forwardMs = 0, backwardMs = 0, commMs = 0, optimizerMs = 0;
};

// Reductions of one saved tensor at one step (the debugger hook): "min", "abs_mean", "l2_norm",
// ..., and the statistics rules read ("nonfinite", "zero_percent", ...; see
// engine/debugger/hook_plan.h). Scalars (losses, metrics) carry one reduction, "value".
struct TensorEvent {
    std::string collection;
    std::string name;
    std::int64_t step = 0;
    std::vector<std::pair<std::string, double>> reductions;
    Phase phase = Phase::Train;
};

// One timed framework event of a rank in the profiled window: a block's forward or backward
// pass, a step's data loading, a gradient bucket's all-reduce, the optimizer.
// category: "forward", "backward", "dataloader", "comm", "optimizer", "step".
struct ProfileEvent {
    std::string name;
    std::string category;
    std::int64_t step = 0;
    double start = 0; // unix seconds
    double durationMs = 0;
    std::int64_t pid = 0;
    Phase phase = Phase::Train;
};

// Lifecycle of a launcher or a trainer. Launcher states: "started" (host, cores, gpus),
// "ranks_started" (pids), "stopping", "node_failure" (message: why the node stopped its ranks by
// itself, e.g. a full disk), "finished" (message). Trainer: "progress" (step, total).
struct StatusEvent {
    std::string state;
    std::string message;
    std::string host;
    int cores = 0;
    int gpus = 0;
    std::int64_t step = -1;
    std::int64_t total = -1;
    std::vector<std::int64_t> pids;
};

struct CheckpointEvent {
    std::int64_t step = 0;
    std::string path;
    std::string sha256;
    std::int64_t bytes = 0;
};

// A rank's end: exit code (or -1) and the signal that ended it (or 0); for a failed rank the
// launcher adds the last lines of its stderr.
struct ExitEvent {
    int code = 0;
    int signal = 0;
    std::vector<std::string> stderrTail;
};

// A parameter a script logs (a Tracker's log_parameter): text, or a number when it was one.
struct ParamEvent {
    std::string name;
    std::string value;
    bool isNumber = false;
    double number = 0.0;
};

// An artifact a script logs (log_artifact, log_file): a value (a path or a URI) with its media
// type; type "output" or "input".
struct ArtifactEvent {
    std::string name;
    std::string value;
    std::string mediaType;
    std::string type = "output";
};

// A document a rank reports once or rarely, stored whole per (topic, node, rank), the last one
// winning: "provenance" (its interpreter and packages), "operators" (a profiled window's top
// operators), "logging" (points dropped under back-pressure). body is a JSON object's text.
struct FactsEvent {
    std::string topic;
    std::string body = "{}";
};

using Payload =
    std::variant<LogEvent, MetricEvent, SysEvent, StepEvent, TensorEvent, StatusEvent,
                 CheckpointEvent, ExitEvent, ProfileEvent, ParamEvent, ArtifactEvent, FactsEvent>;

struct Event {
    double t = 0.0; // unix seconds
    int node = 0;
    int rank = -1; // -1: the node's launcher
    Payload payload;

    template <typename T>
    const T* as() const {
        return std::get_if<T>(&payload);
    }
};

const char* kindName(const Payload& p);
double nowSeconds();

} // namespace studio::wire

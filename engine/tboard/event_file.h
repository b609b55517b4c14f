// TensorBoard event files (`events.out.tfevents.*`): a writer and an incremental reader of
// scalar summaries and the HParams plugin's session and experiment summaries. Records are framed
// as TensorBoard's record format (length, masked CRC-32C of the length, data, masked CRC-32C of
// the data); messages are encoded by protobuf from the vendored .proto files in proto/.
// Neither class is thread-safe; use one per thread.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace studio::tboard {

// One point of one scalar series (a tag) of a run.
struct ScalarPoint {
    std::string tag;
    std::int64_t step = 0;
    double wallTime = 0; // unix seconds
    double value = 0;    // stored as a 32-bit float in the file (TensorBoard's DT_FLOAT scalar)
};

// A hyperparameter's value, as the HParams plugin stores it (google.protobuf.Value).
using HParamValue = std::variant<double, std::string, bool>;

// One session (a run) of the HParams plugin: `_hparams_/session_start_info`.
struct SessionStart {
    std::map<std::string, HParamValue> hparams;
    double startTime = 0;  // unix seconds
    std::string groupName; // "" for the run's own name
};

// The experiment (`_hparams_/experiment`, in the root run): which hparams and metrics exist.
struct Experiment {
    std::vector<std::string> hparamNames;
    std::vector<int> hparamTypes;        // per name: 0 unset, 1 string, 2 bool, 3 float64
    std::vector<std::string> metricTags; // scalar tags the HParams tab shows as metrics
    double timeCreated = 0;
};

// `events.out.tfevents.<unix seconds>.<host name>.<pid>.<n>[.<suffix>]`, as TensorBoard's own
// writers name files (n counts this process's files, so two writers never share a name).
std::string eventFileName(double wallTime, const std::string& suffix = {});
// The pid in a name of that form (TensorBoard's, PyTorch's and Keras' writers use it); 0 if none.
long pidInEventFileName(const std::string& fileName);

// The event files of one run directory (not its subdirectories), in the order TensorBoard reads
// them (lexicographic).
std::vector<std::filesystem::path> eventFilesIn(const std::filesystem::path& runDir);

// Appends to a new event file in runDir (created with its parents). The first record is the
// file_version event ("brain.Event:2"). Scalars use TensorBoard's tensor form (rank-0 DT_FLOAT
// with the scalars plugin's metadata on each tag's first value). Throws std::runtime_error that
// names the file when it cannot be created or written.
class EventFileWriter {
public:
    explicit EventFileWriter(const std::filesystem::path& runDir, const std::string& suffix = {},
                             double wallTime = 0 /* 0: now */);
    ~EventFileWriter(); // flushes and closes
    EventFileWriter(const EventFileWriter&) = delete;
    EventFileWriter& operator=(const EventFileWriter&) = delete;

    void addScalar(const ScalarPoint& p);
    void addSessionStart(const SessionStart& s, double wallTime = 0);
    // status as tensorboard.hparams.Status: 0 unknown, 1 success, 2 failure, 3 running.
    void addSessionEnd(int status, double endTime);
    void addExperiment(const Experiment& e, double wallTime = 0);
    void flush(); // to the file, so a reader sees every record written so far
    const std::filesystem::path& path() const { return m_path; }

private:
    void writeRecord(const std::string& data);

    std::filesystem::path m_path;
    std::FILE* m_file = nullptr;
    std::string m_buffer;
    std::set<std::string> m_taggedOnce; // tags whose metadata has been written
};

// Reads an event file as it grows. poll() returns what was appended since the last call. A
// truncated last record (a writer mid-write) is left for the next poll; a record whose length or
// data CRC does not match, or that does not parse, ends the file: error() then names the file and
// the record's byte offset, and poll() returns nothing more. Scalars are read in both the tensor
// form (DT_FLOAT, also DT_DOUBLE and DT_HALF) and the legacy simple_value form.
class EventFileReader {
public:
    explicit EventFileReader(std::filesystem::path file);
    ~EventFileReader();
    EventFileReader(const EventFileReader&) = delete;
    EventFileReader& operator=(const EventFileReader&) = delete;

    struct Batch {
        std::vector<ScalarPoint> scalars;
        std::optional<SessionStart> session;  // the last session_start_info seen
        std::optional<Experiment> experiment; // the last experiment seen
        std::optional<int> sessionEndStatus;  // the last session_end_info seen
        double sessionEndTime = 0;
        std::uint64_t records = 0; // records read in this poll
    };
    // Reads at most about maxBytes of the file; call again until a batch has no records.
    Batch poll(std::size_t maxBytes = 64u << 20);

    bool failed() const { return !m_error.empty(); }
    const std::string& error() const { return m_error; } // "<file>: <what> at byte <offset>"
    std::uint64_t offset() const { return m_offset; }    // bytes consumed so far
    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
    std::uint64_t m_offset = 0;
    std::string m_error;
    std::set<std::string> m_scalarTags; // tags declared by metadata as scalars plugin data

    bool parseEvent(const char* data, std::size_t size, Batch& out); // false: not an Event
};

} // namespace studio::tboard

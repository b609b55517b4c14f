#include "engine/tboard/event_file.h"

#include "engine/tboard/proto/event.pb.h"
#include "engine/tboard/proto/hparams.pb.h"
#include "engine/tboard/record_io.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <unistd.h>

namespace studio::tboard {

namespace fs = std::filesystem;

namespace {

constexpr const char* kScalarsPlugin = "scalars";
constexpr const char* kHParamsPlugin = "hparams";
constexpr const char* kExperimentTag = "_hparams_/experiment";
constexpr const char* kSessionStartTag = "_hparams_/session_start_info";
constexpr const char* kSessionEndTag = "_hparams_/session_end_info";
constexpr std::size_t kWriteChunk = 1u << 20;

double nowSeconds() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

std::string hostName() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0 || !buf[0])
        return "localhost";
    return buf;
}

std::string serialize(const google::protobuf::MessageLite& m) {
    std::string out;
    if (!m.SerializeToString(&out))
        throw std::runtime_error("cannot encode a TensorBoard event");
    return out;
}

// An event holding one summary value of the HParams plugin (an empty DT_FLOAT tensor of shape
// [0] as its value, as TensorBoard's own hparams summaries carry).
tensorboard::Event hparamsEvent(const char* tag, const tensorboard::hparams::HParamsPluginData& d,
                                double wallTime) {
    tensorboard::Event e;
    e.set_wall_time(wallTime > 0 ? wallTime : nowSeconds());
    auto* v = e.mutable_summary()->add_value();
    v->set_tag(tag);
    auto* plugin = v->mutable_metadata()->mutable_plugin_data();
    plugin->set_plugin_name(kHParamsPlugin);
    plugin->set_content(serialize(d));
    auto* t = v->mutable_tensor();
    t->set_dtype(tensorboard::DT_FLOAT);
    t->mutable_tensor_shape()->add_dim()->set_size(0);
    return e;
}

google::protobuf::Value toValue(const HParamValue& h) {
    google::protobuf::Value v;
    if (const auto* d = std::get_if<double>(&h))
        v.set_number_value(*d);
    else if (const auto* b = std::get_if<bool>(&h))
        v.set_bool_value(*b);
    else
        v.set_string_value(std::get<std::string>(h));
    return v;
}

std::optional<HParamValue> fromValue(const google::protobuf::Value& v) {
    switch (v.kind_case()) {
    case google::protobuf::Value::kNumberValue:
        return v.number_value();
    case google::protobuf::Value::kBoolValue:
        return v.bool_value();
    case google::protobuf::Value::kStringValue:
        return v.string_value();
    default:
        return std::nullopt;
    }
}

// IEEE half to float from the bits alone (no libm: studio-launcher links only libc).
float halfToFloat(std::uint16_t h) {
    const std::uint32_t sign = (h >> 15) & 1u, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    float v;
    if (exponent == 0) {
        v = static_cast<float>(mantissa) * 0x1p-24f; // zero and subnormals
        return sign ? -v : v;
    }
    const std::uint32_t bits = (sign << 31) |
                               (exponent == 31 ? (0xffu << 23) : ((exponent - 15 + 127) << 23)) |
                               (mantissa << 13);
    std::memcpy(&v, &bits, 4);
    return v;
}

// The value of a rank-0 float tensor (DT_FLOAT, DT_DOUBLE, DT_HALF); nullopt for anything else.
std::optional<double> scalarOf(const tensorboard::TensorProto& t) {
    if (t.tensor_shape().dim_size() != 0)
        return std::nullopt;
    const std::string& raw = t.tensor_content();
    switch (t.dtype()) {
    case tensorboard::DT_FLOAT:
        if (raw.size() == 4) {
            float f;
            std::memcpy(&f, raw.data(), 4);
            return f;
        }
        return t.float_val_size() ? std::optional<double>(t.float_val(0)) : std::nullopt;
    case tensorboard::DT_DOUBLE:
        if (raw.size() == 8) {
            double d;
            std::memcpy(&d, raw.data(), 8);
            return d;
        }
        return t.double_val_size() ? std::optional<double>(t.double_val(0)) : std::nullopt;
    case tensorboard::DT_HALF:
        if (raw.size() == 2) {
            std::uint16_t h;
            std::memcpy(&h, raw.data(), 2);
            return halfToFloat(h);
        }
        return t.half_val_size()
                   ? std::optional<double>(halfToFloat(static_cast<std::uint16_t>(t.half_val(0))))
                   : std::nullopt;
    default:
        return std::nullopt;
    }
}

} // namespace

std::string eventFileName(double wallTime, const std::string& suffix) {
    static std::atomic<int> counter{0};
    const auto seconds = static_cast<long long>(wallTime > 0 ? wallTime : nowSeconds());
    char head[64];
    std::snprintf(head, sizeof head, "events.out.tfevents.%010lld.", seconds);
    std::string name = head + hostName() + "." + std::to_string(::getpid()) + "." +
                       std::to_string(counter.fetch_add(1));
    return suffix.empty() ? name : name + "." + suffix;
}

long pidInEventFileName(const std::string& fileName) {
    // events.out.tfevents.<ts>.<host>.<pid>.<n>[.v2|.suffix]: the host may hold dots, so the
    // pid is the number right before the counter, counted from the end.
    const std::string prefix = "events.out.tfevents.";
    if (fileName.rfind(prefix, 0) != 0)
        return 0;
    std::vector<std::string> parts;
    std::size_t at = prefix.size();
    while (at <= fileName.size()) {
        const std::size_t dot = fileName.find('.', at);
        parts.push_back(
            fileName.substr(at, dot == std::string::npos ? std::string::npos : dot - at));
        if (dot == std::string::npos)
            break;
        at = dot + 1;
    }
    const auto numeric = [](const std::string& s) {
        return !s.empty() &&
               std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    // Drop a trailing non-numeric suffix (v2, mlstudio, ...), then expect <pid>.<n> at the end
    // after <ts>.<host>.
    while (!parts.empty() && !numeric(parts.back()))
        parts.pop_back();
    if (parts.size() < 4 || !numeric(parts[0]))
        return 0;
    const std::string& pid = parts[parts.size() - 2];
    return numeric(pid) && pid.size() < 10 ? std::stol(pid) : 0;
}

std::vector<fs::path> eventFilesIn(const fs::path& runDir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::directory_iterator it(runDir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) &&
            it->path().filename().string().find("tfevents") != std::string::npos)
            files.push_back(it->path());
    std::sort(files.begin(), files.end());
    return files;
}

EventFileWriter::EventFileWriter(const fs::path& runDir, const std::string& suffix,
                                 double wallTime) {
    std::error_code ec;
    fs::create_directories(runDir, ec);
    m_path = runDir / eventFileName(wallTime, suffix);
    m_file = std::fopen(m_path.c_str(), "wbx");
    if (!m_file)
        throw std::runtime_error("cannot create the TensorBoard event file " + m_path.string() +
                                 ": " + std::strerror(errno));
    tensorboard::Event e;
    e.set_wall_time(wallTime > 0 ? wallTime : nowSeconds());
    e.set_file_version("brain.Event:2");
    writeRecord(serialize(e));
    flush();
}

EventFileWriter::~EventFileWriter() {
    try {
        flush();
    } catch (...) { // a destructor never throws; the last flush's error is lost with it
    }
    std::fclose(m_file);
}

void EventFileWriter::writeRecord(const std::string& data) {
    appendRecord(m_buffer, data);
    if (m_buffer.size() >= kWriteChunk)
        flush();
}

void EventFileWriter::flush() {
    if (!m_buffer.empty() &&
        std::fwrite(m_buffer.data(), 1, m_buffer.size(), m_file) != m_buffer.size())
        throw std::runtime_error("cannot write " + m_path.string() + ": " + std::strerror(errno));
    m_buffer.clear();
    if (std::fflush(m_file) != 0)
        throw std::runtime_error("cannot write " + m_path.string() + ": " + std::strerror(errno));
}

void EventFileWriter::addScalar(const ScalarPoint& p) {
    tensorboard::Event e;
    e.set_wall_time(p.wallTime);
    e.set_step(p.step);
    auto* v = e.mutable_summary()->add_value();
    v->set_tag(p.tag);
    auto* t = v->mutable_tensor();
    t->set_dtype(tensorboard::DT_FLOAT);
    t->mutable_tensor_shape(); // rank 0: present and empty
    const auto f = static_cast<float>(p.value);
    t->mutable_tensor_content()->assign(reinterpret_cast<const char*>(&f), 4);
    // The scalars plugin's metadata on the tag's first value only, and without data_class: the
    // bytes TensorFlow's tf.summary.scalar writes (TensorBoard sets DATA_CLASS_SCALAR itself on
    // reading a scalars plugin value that has none).
    if (m_taggedOnce.insert(p.tag).second)
        v->mutable_metadata()->mutable_plugin_data()->set_plugin_name(kScalarsPlugin);
    writeRecord(serialize(e));
}

void EventFileWriter::addSessionStart(const SessionStart& s, double wallTime) {
    tensorboard::hparams::HParamsPluginData d;
    d.set_version(0);
    auto* info = d.mutable_session_start_info();
    for (const auto& [name, value] : s.hparams)
        (*info->mutable_hparams())[name] = toValue(value);
    info->set_group_name(s.groupName);
    info->set_start_time_secs(s.startTime);
    writeRecord(serialize(hparamsEvent(kSessionStartTag, d, wallTime)));
}

void EventFileWriter::addSessionEnd(int status, double endTime) {
    tensorboard::hparams::HParamsPluginData d;
    d.set_version(0);
    auto* info = d.mutable_session_end_info();
    info->set_status(static_cast<tensorboard::hparams::Status>(status));
    info->set_end_time_secs(endTime);
    writeRecord(serialize(hparamsEvent(kSessionEndTag, d, endTime)));
}

void EventFileWriter::addExperiment(const Experiment& x, double wallTime) {
    tensorboard::hparams::HParamsPluginData d;
    d.set_version(0);
    auto* e = d.mutable_experiment();
    e->set_time_created_secs(x.timeCreated);
    for (std::size_t i = 0; i < x.hparamNames.size(); ++i) {
        auto* info = e->add_hparam_infos();
        info->set_name(x.hparamNames[i]);
        if (i < x.hparamTypes.size())
            info->set_type(static_cast<tensorboard::hparams::DataType>(x.hparamTypes[i]));
    }
    for (const auto& tag : x.metricTags)
        e->add_metric_infos()->mutable_name()->set_tag(tag);
    writeRecord(serialize(hparamsEvent(kExperimentTag, d, wallTime)));
}

EventFileReader::EventFileReader(fs::path file)
    : m_path(std::move(file)) {
}

EventFileReader::~EventFileReader() = default;

namespace {

// Up to n bytes of the file from offset; nullopt (errno set) when it cannot be opened.
std::optional<std::string> readAt(const fs::path& path, std::uint64_t offset, std::size_t n) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        return std::nullopt;
    std::string buf;
    if (::fseeko(f, static_cast<off_t>(offset), SEEK_SET) == 0) {
        buf.resize(n);
        buf.resize(std::fread(buf.data(), 1, n, f));
    }
    std::fclose(f);
    return buf;
}

void readHParams(const tensorboard::hparams::HParamsPluginData& d, EventFileReader::Batch& out) {
    if (d.has_session_start_info()) {
        const auto& info = d.session_start_info();
        SessionStart s;
        for (const auto& [name, value] : info.hparams())
            if (auto v = fromValue(value))
                s.hparams[name] = *v;
        s.startTime = info.start_time_secs();
        s.groupName = info.group_name();
        out.session = std::move(s);
    } else if (d.has_session_end_info()) {
        out.sessionEndStatus = static_cast<int>(d.session_end_info().status());
        out.sessionEndTime = d.session_end_info().end_time_secs();
    } else if (d.has_experiment()) {
        Experiment x;
        x.timeCreated = d.experiment().time_created_secs();
        for (const auto& h : d.experiment().hparam_infos()) {
            x.hparamNames.push_back(h.name());
            x.hparamTypes.push_back(static_cast<int>(h.type()));
        }
        for (const auto& m : d.experiment().metric_infos())
            x.metricTags.push_back(m.name().tag());
        out.experiment = std::move(x);
    }
}

} // namespace

EventFileReader::Batch EventFileReader::poll(std::size_t maxBytes) {
    Batch out;
    if (failed())
        return out;
    const std::size_t want = std::max<std::size_t>(maxBytes, 1u << 16);
    std::optional<std::string> buf = readAt(m_path, m_offset, want);
    if (buf && buf->size() == want && readRecord(*buf).status == RecordStatus::Incomplete &&
        recordFramedSize(*buf) > want) // one record larger than the read: read it whole
        buf = readAt(m_path, m_offset, recordFramedSize(*buf));
    if (!buf) {
        if (errno != ENOENT) // a file not there yet is not an error
            m_error = m_path.string() + ": " + std::strerror(errno);
        return out;
    }
    std::string_view rest(*buf);
    while (!rest.empty()) {
        const RecordView r = readRecord(rest);
        if (r.status == RecordStatus::Incomplete)
            break; // a writer mid-record, or the end of this read: the next poll goes on
        if (r.status != RecordStatus::Ok || !parseEvent(r.data.data(), r.data.size(), out)) {
            const char* what = r.status == RecordStatus::BadLength ? "bad length checksum"
                               : r.status == RecordStatus::BadData
                                   ? "bad data checksum"
                                   : "a record that is not a TensorBoard event";
            m_error = m_path.string() + ": " + what + " at byte " + std::to_string(m_offset);
            break;
        }
        ++out.records;
        m_offset += r.consumed;
        rest.remove_prefix(r.consumed);
    }
    return out;
}

bool EventFileReader::parseEvent(const char* data, std::size_t size, Batch& out) {
    tensorboard::Event e;
    if (!e.ParseFromArray(data, static_cast<int>(size)))
        return false;
    if (!e.has_summary())
        return true; // file_version, graphs, session logs: nothing the studio keeps
    for (const auto& v : e.summary().value()) {
        const std::string& plugin = v.metadata().plugin_data().plugin_name();
        if (plugin == kHParamsPlugin) {
            tensorboard::hparams::HParamsPluginData d;
            if (!d.ParseFromString(v.metadata().plugin_data().content()))
                continue; // another version's content: skipped, as TensorBoard does
            readHParams(d, out);
            continue;
        }
        if (plugin == kScalarsPlugin)
            m_scalarTags.insert(v.tag());
        std::optional<double> value;
        if (v.value_case() == tensorboard::Summary::Value::kSimpleValue)
            value = v.simple_value();
        else if (v.value_case() == tensorboard::Summary::Value::kTensor &&
                 m_scalarTags.count(v.tag()))
            value = scalarOf(v.tensor());
        if (value)
            out.scalars.push_back({v.tag(), e.step(), e.wall_time(), *value});
    }
    return true;
}

} // namespace studio::tboard

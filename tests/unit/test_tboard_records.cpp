// TensorBoard event files: CRC-32C and its masked form against the format's test vectors, the
// record framing, the writer's bytes against TensorBoard's worked example, and the reader:
// round trips, a truncated tail that a later write completes, a corrupt record, legacy values.
#include "engine/tboard/crc32c.h"
#include "engine/tboard/event_file.h"
#include "engine/tboard/proto/event.pb.h"
#include "engine/tboard/record_io.h"

#include "tests/support/plain_test.h"
#include "tests/support/temp_dir.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

using namespace studio;
using namespace studio::tboard;

namespace {

std::string fileBytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string hex(std::string_view s) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : s) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

std::string unhex(std::string_view h) {
    std::string out;
    for (std::size_t i = 0; i + 1 < h.size(); i += 2)
        out += static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16));
    return out;
}

// The only file a writer left in dir.
std::filesystem::path onlyFile(const std::string& dir) {
    const auto files = eventFilesIn(dir);
    REQUIRE(files.size() == 1u);
    return files.front();
}

} // namespace

TEST_CASE("crc32cTestVectors") {
    const std::string zeros(32, '\0');
    REQUIRE(crc32c(zeros.data(), zeros.size()) == 0x8a9136aau);
    const std::string text = "\x1a\x11"
                             "CRC test, one two";
    REQUIRE(maskedCrc32c(text.data(), text.size()) == 0x5794d08au);
    // The hardware path and the table path agree on every length and alignment.
    std::mt19937 rng(7);
    std::string data(4200, '\0');
    for (auto& c : data)
        c = static_cast<char>(rng());
    for (std::size_t start : {0u, 1u, 3u, 7u})
        for (std::size_t n : {0u, 1u, 7u, 8u, 9u, 63u, 4096u})
            REQUIRE(crc32c(data.data() + start, n) == crc32cPortable(data.data() + start, n));
}

TEST_CASE("recordFraming") {
    std::string out;
    appendRecord(out, std::string(24, 'x'));
    REQUIRE(hex(out.substr(8, 4)) == std::string("a37f4b22")); // the length 24's masked CRC
    REQUIRE(out.size() == 24 + kRecordOverhead);
    REQUIRE(recordFramedSize(out) == out.size());
    REQUIRE(recordFramedSize(std::string_view(out).substr(0, 5)) == 0u);
    RecordView r = readRecord(out);
    REQUIRE(r.status == RecordStatus::Ok);
    REQUIRE(r.data == std::string(24, 'x'));
    REQUIRE(readRecord(std::string_view(out).substr(0, out.size() - 1)).status ==
            RecordStatus::Incomplete);
    std::string bad = out;
    bad[20] ^= 1;
    REQUIRE(readRecord(bad).status == RecordStatus::BadData);
    bad = out;
    bad[0] ^= 1;
    REQUIRE(readRecord(bad).status == RecordStatus::BadLength);
}

TEST_CASE("writerMatchesTensorBoardsWorkedBytes") {
    // TensorBoard's own test file: the file_version record, then tf.summary.scalar("accuracy",
    // 0.99, step=77). Its wall time is the double 09's 8 bytes below.
    const std::string expected = unhex("1800000000000000a37f4b22090000803899d6d741"
                                       "1a0d627261696e2e4576656e743a32124b36ab");
    double wall;
    std::memcpy(&wall, expected.data() + 13, 8);
    testing::TempDir dir;
    {
        EventFileWriter w(dir.path(), {}, wall);
        w.addScalar({"accuracy", 77, wall, 0.99});
    }
    const std::string bytes = fileBytes(onlyFile(dir.path()));
    REQUIRE_MESSAGE(bytes.substr(0, expected.size()) == expected, hex(bytes).c_str());
    // The scalar's record: exactly the worked example's 50-byte payload (tensor form, the
    // scalars plugin's metadata on the tag's first value, no data_class, as TensorFlow writes).
    RecordView r = readRecord(std::string_view(bytes).substr(expected.size()));
    REQUIRE(r.status == RecordStatus::Ok);
    std::string wallBytes(8, '\0');
    std::memcpy(wallBytes.data(), &wall, 8);
    const std::string payload = "\x09" + wallBytes + unhex("104d2a250a230a08") + "accuracy" +
                                unhex("420a080112002204a4707d3f4a0b0a090a07") + "scalars";
    REQUIRE_MESSAGE(r.data == payload, hex(r.data).c_str());
}

TEST_CASE("roundTripScalarsAndHParams") {
    testing::TempDir dir;
    SessionStart start;
    start.hparams = {{"lr", 0.001}, {"optimizer", std::string("adam")}, {"nesterov", true}};
    start.startTime = 1700000000.5;
    start.groupName = "job-a";
    {
        EventFileWriter w(dir.path(), "mlstudio", 1700000000);
        w.addSessionStart(start, 1700000000.5);
        for (int i = 0; i < 1000; ++i)
            w.addScalar(
                {i % 2 ? "train:loss" : "eval:acc", i, 1700000001.0 + i * 0.25, 1.0 / (i + 1)});
        w.addSessionEnd(1, 1700000300);
    }
    const auto file = onlyFile(dir.path());
    REQUIRE(file.filename().string().find(".mlstudio") != std::string::npos);
    REQUIRE(pidInEventFileName(file.filename().string()) == ::getpid());
    EventFileReader r(file);
    auto b = r.poll();
    REQUIRE(!r.failed());
    REQUIRE(b.records == 1003u);
    REQUIRE(b.scalars.size() == 1000u);
    for (int i = 0; i < 1000; ++i) {
        const auto& p = b.scalars[static_cast<std::size_t>(i)];
        REQUIRE(p.tag == std::string(i % 2 ? "train:loss" : "eval:acc"));
        REQUIRE(p.step == i);
        REQUIRE(p.wallTime == 1700000001.0 + i * 0.25);
        REQUIRE(p.value == static_cast<double>(static_cast<float>(1.0 / (i + 1))));
    }
    REQUIRE(b.session.has_value());
    REQUIRE(b.session->hparams == start.hparams);
    REQUIRE(b.session->groupName == std::string("job-a"));
    REQUIRE(b.session->startTime == 1700000000.5);
    REQUIRE(b.sessionEndStatus == std::optional<int>(1));
    REQUIRE(r.poll().records == 0u); // nothing new
}

TEST_CASE("truncatedTailIsReadOnceComplete") {
    testing::TempDir dir;
    std::filesystem::path file;
    std::string bytes;
    {
        EventFileWriter w(dir.path());
        for (int i = 0; i < 10; ++i)
            w.addScalar({"x", i, 1.0 * i, i * 2.0});
        file = w.path();
    }
    bytes = fileBytes(file);
    // Cut the file inside its last record, as a writer mid-write leaves it.
    std::filesystem::resize_file(file, bytes.size() - 5);
    EventFileReader r(file);
    auto b = r.poll();
    REQUIRE(!r.failed());
    REQUIRE(b.scalars.size() == 9u);
    std::ofstream(file, std::ios::binary | std::ios::app) << bytes.substr(bytes.size() - 5);
    b = r.poll();
    REQUIRE(!r.failed());
    REQUIRE(b.scalars.size() == 1u);
    REQUIRE(b.scalars[0].step == 9);
    REQUIRE(b.scalars[0].value == 18.0);
}

TEST_CASE("corruptRecordNamesFileAndOffset") {
    testing::TempDir dir;
    std::filesystem::path file;
    {
        EventFileWriter w(dir.path());
        for (int i = 0; i < 4; ++i)
            w.addScalar({"x", i, 1.0 * i, 1.0});
        file = w.path();
    }
    std::string bytes = fileBytes(file);
    // Flip a byte inside the third record's data (records after the file_version one).
    const std::size_t first = readRecord(bytes).consumed;
    const std::size_t second = readRecord(std::string_view(bytes).substr(first)).consumed;
    const std::size_t third =
        first + second + readRecord(std::string_view(bytes).substr(first + second)).consumed;
    bytes[third + 14] ^= 0x40;
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    EventFileReader r(file);
    auto b = r.poll();
    REQUIRE(b.scalars.size() == 2u); // the two records before the bad one
    REQUIRE(r.failed());
    REQUIRE_MESSAGE(r.error().find(file.string()) == 0, r.error().c_str());
    REQUIRE_MESSAGE(r.error().find("at byte " + std::to_string(third)) != std::string::npos,
                    r.error().c_str());
    REQUIRE(r.poll().records == 0u);
}

TEST_CASE("pidInFileNames") {
    REQUIRE(pidInEventFileName("events.out.tfevents.1700000000.node-1.example.org.4242.0") == 4242);
    REQUIRE(pidInEventFileName("events.out.tfevents.1700000000.host.77.3.v2") == 77);
    REQUIRE(pidInEventFileName("events.out.tfevents.1700000000.host") == 0);
    REQUIRE(pidInEventFileName("notes.txt") == 0);
}

TEST_CASE("halfScalarsAreRead") {
    // A scalar written as DT_HALF (2-byte tensor_content): 1.5, -2.0, a subnormal, infinity.
    const std::vector<std::pair<std::uint16_t, double>> cases = {
        {0x3e00, 1.5}, {0xc000, -2.0}, {0x0001, 0x1p-24}, {0x7c00, INFINITY}};
    std::string bytes;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        tensorboard::Event e;
        e.set_step(static_cast<std::int64_t>(i));
        auto* v = e.mutable_summary()->add_value();
        v->set_tag("h");
        if (i == 0)
            v->mutable_metadata()->mutable_plugin_data()->set_plugin_name("scalars");
        auto* t = v->mutable_tensor();
        t->set_dtype(tensorboard::DT_HALF);
        t->mutable_tensor_shape();
        t->set_tensor_content(std::string(reinterpret_cast<const char*>(&cases[i].first), 2));
        appendRecord(bytes, e.SerializeAsString());
    }
    testing::TempDir dir;
    const std::string file = dir.path() + "/events.out.tfevents.1.host";
    std::ofstream(file, std::ios::binary) << bytes;
    EventFileReader r(file);
    const auto b = r.poll();
    REQUIRE(b.scalars.size() == cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i)
        REQUIRE(b.scalars[i].value == cases[i].second);
}

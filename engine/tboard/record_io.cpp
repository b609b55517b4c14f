#include "engine/tboard/record_io.h"

#include "engine/tboard/crc32c.h"

#include <cstring>

namespace studio::tboard {

namespace {

void putLe(std::string& out, std::uint64_t v, int bytes) {
    char b[8];
    for (int i = 0; i < bytes; ++i)
        b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    out.append(b, static_cast<std::size_t>(bytes));
}

std::uint64_t getLe(const char* p, int bytes) {
    std::uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i)
        v = (v << 8) | static_cast<unsigned char>(p[i]);
    return v;
}

} // namespace

void appendRecord(std::string& out, std::string_view data) {
    const std::size_t start = out.size();
    putLe(out, data.size(), 8);
    putLe(out, maskedCrc32c(out.data() + start, 8), 4);
    out.append(data);
    putLe(out, maskedCrc32c(data.data(), data.size()), 4);
}

std::size_t recordFramedSize(std::string_view buf) {
    if (buf.size() < 8)
        return 0;
    const std::uint64_t length = getLe(buf.data(), 8);
    return length > (std::uint64_t{1} << 34) ? 0
                                             : static_cast<std::size_t>(length) + kRecordOverhead;
}

RecordView readRecord(std::string_view buf) {
    RecordView r;
    if (buf.size() < 12)
        return r;
    const std::uint64_t length = getLe(buf.data(), 8);
    if (static_cast<std::uint32_t>(getLe(buf.data() + 8, 4)) != maskedCrc32c(buf.data(), 8)) {
        r.status = RecordStatus::BadLength;
        return r;
    }
    if (length > buf.size() - 12 || buf.size() - 12 - length < 4)
        return r;
    const char* data = buf.data() + 12;
    const auto size = static_cast<std::size_t>(length);
    if (static_cast<std::uint32_t>(getLe(data + size, 4)) != maskedCrc32c(data, size)) {
        r.status = RecordStatus::BadData;
        return r;
    }
    r.status = RecordStatus::Ok;
    r.data = std::string_view(data, size);
    r.consumed = size + kRecordOverhead;
    return r;
}

} // namespace studio::tboard

// TensorBoard's record framing (TFRecord): uint64 length, uint32 masked CRC-32C of the length,
// the data, uint32 masked CRC-32C of the data; integers little-endian.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace studio::tboard {

inline constexpr std::size_t kRecordOverhead = 16; // 8 length + 4 + 4 CRCs

// Appends one framed record holding data to out.
void appendRecord(std::string& out, std::string_view data);

enum class RecordStatus {
    Ok,         // data is the record's payload; consumed is its framed size
    Incomplete, // the buffer ends inside the record (a writer may still be writing it)
    BadLength,  // the length's CRC does not match
    BadData,    // the data's CRC does not match
};

struct RecordView {
    RecordStatus status = RecordStatus::Incomplete;
    std::string_view data;
    std::size_t consumed = 0;
};

// The record at the start of buf.
RecordView readRecord(std::string_view buf);

// The framed size the length at the start of buf announces (its CRC unchecked); 0 when buf is
// shorter than a length or the length is beyond any record (16 GiB).
std::size_t recordFramedSize(std::string_view buf);

} // namespace studio::tboard

// Fuzzes the job spec parser: any text, with any --set overrides, must come back as a spec or as
// errors, never as a crash, an exception or undefined behaviour.
// Input: the spec text, then optionally NUL-separated "key.path=value" overrides.
#include "engine/spec/spec_parser.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    std::size_t cut = input.find('\0');
    const std::string_view text = input.substr(0, cut);
    std::vector<std::string> overrides;
    while (cut != std::string_view::npos) {
        const std::size_t next = input.find('\0', cut + 1);
        overrides.emplace_back(input.substr(
            cut + 1, next == std::string_view::npos ? std::string_view::npos : next - cut - 1));
        cut = next;
    }
    studio::spec::ParseOptions options;
    options.checkFiles = false; // the parser, not the file system, is under test
    const auto result = studio::spec::parseSpecText(text, "/nonexistent", overrides, options);
    // The header's contract: a spec exactly when there are no errors.
    if (result.spec.has_value() == !result.errors.empty())
        std::abort();
    return 0;
}

#include "app/present/tagged_line.h"

namespace studio::present {

std::string taggedLine(int node, int rank, const std::string& stream, const std::string& text) {
    return "[" + std::to_string(node) + "," +
           (rank < 0 ? std::string("launcher") : std::to_string(rank)) + "]<" + stream +
           ">:" + text;
}

} // namespace studio::present

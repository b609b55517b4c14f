// The ```json blocks of a Markdown document (the spec documents' examples, which tests validate).
#pragma once

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

// The whole text in *text; the blocks' contents in order. Empty (and *text empty) when the file
// cannot be read.
inline std::vector<std::string> jsonBlocks(const std::string& path, std::string* text = nullptr) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string doc = ss.str();
    if (text)
        *text = doc;
    const std::regex block("```json\\n([\\s\\S]*?)```");
    std::vector<std::string> out;
    for (auto it = std::sregex_iterator(doc.begin(), doc.end(), block);
         it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1].str());
    return out;
}

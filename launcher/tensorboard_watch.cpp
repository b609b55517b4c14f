#include "launcher/tensorboard_watch.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace studio::launcher {

namespace fs = std::filesystem;

namespace {

// Per file and poll, read in chunks; a file written faster than this is caught up over the next
// polls.
constexpr std::uint64_t kPollBytes = 4u << 20;
constexpr std::uint64_t kChunkBytes = 1u << 20;
// How far a writer's parents are followed towards a rank (a shell, torchrun, a worker pool).
constexpr int kMaxAncestors = 32;
constexpr int kMaxDepth = 8; // subfolders below a watched folder

bool digits(const std::string& s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

} // namespace

std::vector<fs::path> scriptEventFiles(const fs::path& folder) {
    std::vector<fs::path> files;
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
        return files;
    fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
    for (const fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
        if (it.depth() >= kMaxDepth)
            it.disable_recursion_pending();
        const std::string name = it->path().filename().string();
        if (name.find("tfevents") == std::string::npos || endsWith(name, ".mlstudio"))
            continue;
        std::error_code fileEc;
        if (it->is_regular_file(fileEc))
            files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::optional<int> rankFromFolders(const fs::path& file, const fs::path& root) {
    const fs::path rel = file.parent_path().lexically_relative(root);
    std::optional<int> rank;
    for (const auto& part : rel) { // the deepest such folder wins
        const std::string s = part.string();
        std::size_t at = s.rfind("rank");
        if (at == std::string::npos || !digits(s.substr(at + 4)) || s.size() - at - 4 > 6)
            continue;
        const std::string head = s.substr(0, at);
        if (head.empty() || (head.rfind("node", 0) == 0 && head.back() == '-' &&
                             digits(head.substr(4, head.size() - 5))))
            rank = std::stoi(s.substr(at + 4));
    }
    return rank;
}

long parentPid(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!in || !std::getline(in, text))
        return 0;
    // "<pid> (<comm>) <state> <ppid> ...": comm may hold spaces and parentheses.
    const std::size_t close = text.rfind(')');
    if (close == std::string::npos)
        return 0;
    std::istringstream rest(text.substr(close + 1));
    std::string state;
    long ppid = 0;
    rest >> state >> ppid;
    return ppid;
}

TensorboardWatch::TensorboardWatch(std::vector<fs::path> folders, int firstRank)
    : m_folders(std::move(folders))
    , m_firstRank(firstRank) {
    for (const auto& folder : m_folders)
        for (auto& f : scriptEventFiles(folder))
            m_before.insert(std::move(f));
}

std::optional<int> TensorboardWatch::rankOf(const fs::path& file, const fs::path& root,
                                            std::string& note) const {
    const long pid = tboard::pidInEventFileName(file.filename().string());
    if (pid > 0) {
        long p = pid;
        for (int i = 0; i < kMaxAncestors && p > 1; ++i) {
            if (const auto it = m_rankPids.find(p); it != m_rankPids.end())
                return it->second;
            p = parentPid(p);
        }
        if (parentPid(pid) != 0) { // alive, and no rank of this job among its parents
            note = "tensorboard: " + file.string() + " is written by pid " + std::to_string(pid) +
                   ", which is no process of this job's ranks: not read";
            return std::nullopt;
        }
    }
    return rankFromFolders(file, root).value_or(m_firstRank);
}

TensorboardWatch::Update TensorboardWatch::poll(bool toTheEnd) {
    Update out;
    for (const auto& folder : m_folders) {
        for (const auto& file : scriptEventFiles(folder)) {
            if (m_before.count(file) || m_readers.count(file))
                continue;
            Watched w;
            std::string note;
            if (const auto rank = rankOf(file, folder, note)) {
                w.rank = *rank;
                w.reader = std::make_unique<tboard::EventFileReader>(file);
            } else {
                out.warnings.push_back(note);
            }
            m_readers.emplace(file, std::move(w));
        }
    }
    for (auto& [file, w] : m_readers)
        if (w.reader && !w.warned)
            read(file, w, toTheEnd, out);
    return out;
}

void TensorboardWatch::read(const fs::path& file, Watched& w, bool toTheEnd, Update& out) {
    try {
        const std::uint64_t start = w.reader->offset();
        while (true) {
            std::error_code ec;
            const std::uintmax_t size = fs::file_size(file, ec);
            if (ec || size <= w.reader->offset()) // nothing new: no read at all
                break;
            const std::uint64_t left = size - w.reader->offset();
            tboard::EventFileReader::Batch b =
                w.reader->poll(static_cast<std::size_t>(std::min(left, kChunkBytes)));
            for (auto& p : b.scalars) {
                const bool first = m_tags.emplace(w.rank, p.tag).second;
                out.scalars.push_back(WatchedScalar{w.rank, first, std::move(p)});
            }
            if (b.records == 0 || w.reader->failed() ||
                (!toTheEnd && w.reader->offset() - start >= kPollBytes))
                break;
        }
        if (w.reader->failed()) {
            w.warned = true;
            out.warnings.push_back("tensorboard: " + w.reader->error() +
                                   "; the points before it are kept, the rest of the file is "
                                   "not read");
        }
    } catch (const std::exception& e) {
        w.warned = true;
        out.warnings.push_back("tensorboard: " + file.string() + ": " + e.what() +
                               "; the file is no longer read");
    }
}

} // namespace studio::launcher

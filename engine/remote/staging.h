// Shipping local folders and files to a host, and bringing a job's outputs back. Content is
// addressed by a SHA-256 over the tree (names, modes, links and bytes), so a tree already on the
// host is never sent again. The transfer is a tar stream: local tar -> ssh -> studio-launcher
// stage, and studio-launcher pack -> ssh -> local tar.
#pragma once

#include "engine/remote/host_executor.h"

#include <string>
#include <vector>

namespace studio::remote {

// Throws std::runtime_error naming the path when it cannot be read.
std::string treeHash(const std::string& path);

struct StageItem {
    std::string local; // a folder or a file on this machine
    std::string hash;  // treeHash(local)
    bool isFile = false;
    std::string remote; // <cache>/<hash> on the host
    // What the host's programs use: the folder itself, or the file inside it.
    std::string remotePath() const;
};

StageItem planStage(const std::string& local, const std::string& remoteCacheDir);

// Sends the items the host lacks (one round trip to ask, one transfer each). Throws
// std::runtime_error naming the host and the item. launcher: studio-launcher on the host.
void stageItems(const HostExecutor& host, const std::string& launcher,
                const std::vector<StageItem>& items, double timeoutSeconds);

// Copies a folder of the host into a local folder (created; existing files are replaced).
// False when the host has no such folder; throws std::runtime_error on a failed transfer.
bool fetchFolder(const HostExecutor& host, const std::string& launcher,
                 const std::string& remoteDir, const std::string& localDir, double timeoutSeconds);

} // namespace studio::remote

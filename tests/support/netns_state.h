// What a NetnsHosts fixture has created, kept in a state file at a fixed place so that a later
// test process can remove what a killed one left behind, and the removal itself.
// Qt-free. One fixture per machine at a time: FixtureLock serialises them across processes.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace studio::testing {

inline constexpr const char* kNetnsStateFile = "/tmp/mlstudio-netns-fixture.state";
inline constexpr const char* kNetnsLockFile = "/tmp/mlstudio-netns-fixture.lock";

struct TrackedProcess {
    int pid = 0;
    unsigned long long startTime = 0; // with the pid, tells our process from a reused pid
    std::string name;
};

// Every entry is recorded before the resource is created (names) or right after (pids), so that
// a crash leaves nothing the file does not list.
struct FixtureState {
    int ownerPid = 0;
    std::vector<TrackedProcess> processes; // in start order
    std::vector<std::string> namespaces;
    std::vector<std::string> links; // root-namespace veth ends
    std::string bridge;
    std::string user;
    std::string dir;

    bool empty() const;
    // Writes the file atomically (temp file + rename). Throws std::runtime_error.
    void save(const std::string& path = kNetnsStateFile) const;
    // nullopt when there is no file; throws std::runtime_error on a file it cannot parse.
    static std::optional<FixtureState> load(const std::string& path = kNetnsStateFile);
};

// Removes everything `state` lists, tolerating a half-built or already removed environment:
// processes (SIGTERM in reverse start order, then SIGKILL), processes still inside the
// namespaces, processes of the user, the namespaces, veths, bridge, user and directory.
// Never throws. Returns a description of each thing that is still there afterwards.
std::vector<std::string> removeResources(const FixtureState& state);

// "mlstudio-..." login names: the only ones the fixture creates or deletes, so that a bad option
// or state file can never name a real account.
bool validUserName(const std::string& user);

// Whether a uid is in Debian's range for ordinary accounts (UID_MIN..UID_MAX); system users and
// nobody (65534) are never touched.
bool ordinaryUid(int uid);

// uid of `user`, or -1 when there is no such user.
int userId(const std::string& user);

// Pids (not zombies) whose real or effective uid is `uid`, read from /proc.
std::vector<int> processesOfUid(int uid);

// Pids inside a named network namespace (`ip netns pids`).
std::vector<int> processesInNamespace(const std::string& ns);

// An exclusive flock on kNetnsLockFile, released by the kernel even when the process is killed.
class FixtureLock {
public:
    // Waits up to `wait`; throws std::runtime_error naming the holder when it cannot lock.
    explicit FixtureLock(std::chrono::milliseconds wait = std::chrono::seconds(60));
    ~FixtureLock();
    FixtureLock(const FixtureLock&) = delete;
    FixtureLock& operator=(const FixtureLock&) = delete;

private:
    int m_fd = -1;
};

} // namespace studio::testing

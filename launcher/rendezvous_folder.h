// A private folder (0700, fresh from mkdtemp) for the rendezvous file of a one-host job, removed
// with what is in it when the launcher ends. Its name carries the launcher's pid, so a later
// launcher, as it ends, removes what a killed one left ("studio-rendezvous-<pid>-XXXXXX" under
// $TMPDIR).
#pragma once

#include <string>

namespace studio::launcher {

class RendezvousFolder {
public:
    RendezvousFolder() = default;
    RendezvousFolder(const RendezvousFolder&) = delete;
    RendezvousFolder& operator=(const RendezvousFolder&) = delete;
    ~RendezvousFolder();

    // The store file's path, or empty (with a warning on stderr) when no folder could be made.
    std::string create();

private:
    std::string m_path;
};

} // namespace studio::launcher

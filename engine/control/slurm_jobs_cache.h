// Many jobs of one Slurm cluster are followed with one request: a GET of every job serves all
// runners that ask within maxAge of it, so following 50 jobs costs about what following one
// does. Thread-safe; one process-wide instance.
#pragma once

#include "engine/remote/slurm_client.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace studio::control {

class SlurmJobsCache {
public:
    static SlurmJobsCache& instance();

    // The job as of a listing fetched at most maxAge seconds ago and no earlier than
    // notBefore (unix time: a job submitted later is not in an older listing). Empty when
    // Slurm no longer lists it. Throws what the request threw.
    std::optional<remote::SlurmJobInfo> job(remote::SlurmClient& client, std::int64_t jobId,
                                            double maxAge, double notBefore);
    // Requests sent since the process started (for the benchmark).
    std::int64_t requests() const;

private:
    struct Listing {
        std::mutex fetch; // one request at a time per cluster
        std::mutex data;
        double fetchedAt = 0; // unix time the request was sent
        std::map<std::int64_t, remote::SlurmJobInfo> jobs;
    };
    std::shared_ptr<Listing> listing(const remote::ClusterConfig& c);

    mutable std::mutex m_mutex;
    std::map<std::string, std::shared_ptr<Listing>> m_listings; // by cluster name and URL
    std::int64_t m_requests = 0;
};

} // namespace studio::control

#include "engine/control/slurm_jobs_cache.h"

#include "engine/wire/event.h"

namespace studio::control {

SlurmJobsCache& SlurmJobsCache::instance() {
    static SlurmJobsCache cache;
    return cache;
}

std::shared_ptr<SlurmJobsCache::Listing> SlurmJobsCache::listing(const remote::ClusterConfig& c) {
    std::lock_guard lock(m_mutex);
    auto& l = m_listings[c.name + "\n" + c.slurm.url];
    if (!l)
        l = std::make_shared<Listing>();
    return l;
}

std::int64_t SlurmJobsCache::requests() const {
    std::lock_guard lock(m_mutex);
    return m_requests;
}

std::optional<remote::SlurmJobInfo> SlurmJobsCache::job(remote::SlurmClient& client,
                                                        std::int64_t jobId, double maxAge,
                                                        double notBefore) {
    const std::shared_ptr<Listing> l = listing(client.cluster());
    const auto lookup = [&]() -> std::optional<std::optional<remote::SlurmJobInfo>> {
        std::lock_guard lock(l->data);
        const double now = wire::nowSeconds();
        if (l->fetchedAt <= 0 || now - l->fetchedAt > maxAge || l->fetchedAt < notBefore)
            return std::nullopt; // too old: fetch
        const auto it = l->jobs.find(jobId);
        if (it == l->jobs.end())
            return std::optional<remote::SlurmJobInfo>{};
        return std::optional<remote::SlurmJobInfo>{it->second};
    };
    if (auto hit = lookup())
        return *hit;
    std::lock_guard fetching(l->fetch);
    if (auto hit = lookup()) // another runner fetched meanwhile
        return *hit;
    const double sent = wire::nowSeconds();
    std::vector<remote::SlurmJobInfo> all = client.jobs();
    {
        std::lock_guard lock(m_mutex);
        ++m_requests;
    }
    std::lock_guard lock(l->data);
    l->jobs.clear();
    for (auto& j : all)
        l->jobs[j.jobId] = std::move(j);
    l->fetchedAt = sent;
    const auto it = l->jobs.find(jobId);
    if (it == l->jobs.end())
        return std::nullopt;
    return it->second;
}

} // namespace studio::control

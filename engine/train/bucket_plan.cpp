#include "engine/train/bucket_plan.h"

namespace studio::train {

BucketPlan planBuckets(const std::vector<std::size_t>& paramBytes, std::size_t firstCapBytes,
                       std::size_t capBytes) {
    BucketPlan plan;
    std::vector<std::size_t> current;
    std::size_t size = 0;
    for (std::size_t k = paramBytes.size(); k-- > 0;) {
        current.push_back(k);
        size += paramBytes[k];
        const std::size_t cap = plan.buckets.empty() ? firstCapBytes : capBytes;
        if (size >= cap) {
            plan.buckets.push_back(std::move(current));
            current.clear();
            size = 0;
        }
    }
    if (!current.empty())
        plan.buckets.push_back(std::move(current));
    return plan;
}

} // namespace studio::train

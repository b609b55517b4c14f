// Data-parallel gradient reduction like PyTorch DDP's reducer: parameters grouped into buckets
// (1 MiB first, then up to 25 MiB, in reverse registration order); every parameter's .grad is a
// view into its bucket, so autograd accumulates straight into the bucket; a hook on each
// gradient accumulator marks the parameter ready, and a full bucket is all-reduced
// asynchronously while backward still runs. Buckets launch in index order on every rank.
// Averaging costs no pass over the gradients: the caller scales its loss by lossScale() (1/world)
// so the all-reduced sum is the mean.
// Thread-safety: the training thread drives it; hooks run on the thread that runs backward.
#pragma once

#include "engine/train/bucket_plan.h"
#include "engine/train/communicator.h"
#include "engine/train/torch_compat.h"

#include <torch/torch.h>

#include <memory>
#include <vector>

namespace studio::train {

class GradientReducer {
public:
    GradientReducer(std::vector<torch::Tensor> params, std::shared_ptr<Communicator> comm,
                    std::size_t firstBucketBytes, std::size_t bucketBytes);
    ~GradientReducer();
    GradientReducer(const GradientReducer&) = delete;
    GradientReducer& operator=(const GradientReducer&) = delete;

    // Multiply the loss by this before backward: the summed gradients are then averaged.
    double lossScale() const { return 1.0 / static_cast<double>(m_comm->size()); }
    // Zeroes every bucket (the gradients) before a new accumulation.
    void zeroGrad();
    // false: the next backward passes accumulate locally without communication (DDP's no_sync).
    void setSync(bool sync) { m_sync = sync; }
    // Values every rank contributes to each synchronised step, summed by the same all-reduce as
    // the gradients: slot 0 carries stop requests, slot 1 the loss (so the sum is the mean).
    static constexpr int kControlSlots = 2;
    void setControl(int slot, float value);
    float control(int slot) const;
    // After backward: launches buckets no hook launched, waits for all, leaves averaged grads.
    // Returns the seconds spent waiting on communication.
    double finish();

    const BucketPlan& plan() const { return m_plan; }
    std::size_t gradientBytes() const { return m_bytes; }

private:
    struct Bucket {
        torch::Tensor flat;
        std::vector<std::size_t> params;
        std::size_t pending = 0;
        bool launched = false;
        Communicator::Handle work;
    };
    void markReady(std::size_t param);
    void launchReady();
    void launch(Bucket& b);

    std::vector<torch::Tensor> m_params;
    std::shared_ptr<Communicator> m_comm;
    BucketPlan m_plan;
    std::vector<Bucket> m_buckets;
    std::vector<std::size_t> m_bucketOf;
    std::vector<bool> m_ready;
    std::vector<compat::NodePtr> m_accumulators;
    std::vector<std::uintptr_t> m_hookKeys;
    std::size_t m_nextLaunch = 0;
    std::size_t m_bytes = 0;
    bool m_sync = true;
    bool m_inBackward = false;
};

} // namespace studio::train

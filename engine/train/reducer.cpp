#include "engine/train/reducer.h"

#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <chrono>
#include <stdexcept>

namespace studio::train {

namespace {

class ReadyHook : public torch::autograd::FunctionPostHook {
public:
    explicit ReadyHook(std::function<void()> fn)
        : m_fn(std::move(fn)) {}
    torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                              const torch::autograd::variable_list&) override {
        m_fn();
        return outputs;
    }

private:
    std::function<void()> m_fn;
};

} // namespace

GradientReducer::GradientReducer(std::vector<torch::Tensor> params,
                                 std::shared_ptr<Communicator> comm, std::size_t firstBucketBytes,
                                 std::size_t bucketBytes)
    : m_params(std::move(params))
    , m_comm(std::move(comm)) {
    std::vector<std::size_t> bytes;
    for (const auto& p : m_params)
        bytes.push_back(static_cast<std::size_t>(p.numel()) * p.element_size());
    m_plan = planBuckets(bytes, firstBucketBytes, bucketBytes);
    m_bucketOf.assign(m_params.size(), 0);
    m_ready.assign(m_params.size(), false);
    for (std::size_t b = 0; b < m_plan.buckets.size(); ++b) {
        Bucket bucket;
        bucket.params = m_plan.buckets[b];
        std::int64_t numel = 0;
        for (auto i : bucket.params)
            numel += m_params[i].numel();
        const bool last = b + 1 == m_plan.buckets.size();
        // The last bucket carries the control slots after the gradients.
        bucket.flat =
            torch::zeros({numel + (last ? kControlSlots : 0)}, m_params.front().options());
        std::int64_t offset = 0;
        for (auto i : bucket.params) {
            torch::Tensor& p = m_params[i];
            const std::int64_t n = p.numel();
            // The gradient is a view of the bucket with the parameter's own layout.
            p.mutable_grad() = bucket.flat.narrow(0, offset, n).as_strided(p.sizes(), p.strides());
            offset += n;
            m_bucketOf[i] = b;
            m_bytes += static_cast<std::size_t>(n) * p.element_size();
        }
        m_buckets.push_back(std::move(bucket));
    }
    for (std::size_t i = 0; i < m_params.size(); ++i) {
        auto acc = torch::autograd::impl::grad_accumulator(m_params[i]);
        if (!acc)
            throw std::runtime_error("parameter " + std::to_string(i) +
                                     " is not a leaf that requires grad");
        m_hookKeys.push_back(
            acc->add_post_hook(std::make_unique<ReadyHook>([this, i] { markReady(i); })));
        m_accumulators.push_back(std::move(acc)); // keeps the accumulator (and hook) alive
    }
}

GradientReducer::~GradientReducer() {
    for (auto& b : m_buckets)
        b.work.wait();
    for (std::size_t i = 0; i < m_accumulators.size(); ++i)
        m_accumulators[i]->del_post_hook(m_hookKeys[i]);
}

void GradientReducer::zeroGrad() {
    for (auto& b : m_buckets)
        b.flat.zero_();
}

// The control slots live in the last bucket, on the gradients' device: written in place on a
// CPU, through a small fill on a GPU.
void GradientReducer::setControl(int slot, float value) {
    auto& last = m_buckets.back().flat;
    const std::int64_t at = last.numel() - kControlSlots + slot;
    if (last.is_cpu())
        last.data_ptr<float>()[at] = value;
    else
        last.narrow(0, at, 1).fill_(value);
}

float GradientReducer::control(int slot) const {
    const auto& last = m_buckets.back().flat;
    const std::int64_t at = last.numel() - kControlSlots + slot;
    return last.is_cpu() ? last.data_ptr<float>()[at] : last[at].item<float>();
}

void GradientReducer::markReady(std::size_t param) {
    if (!m_sync)
        return;
    if (!m_inBackward) { // the first hook of a backward pass
        m_inBackward = true;
        m_nextLaunch = 0;
        std::fill(m_ready.begin(), m_ready.end(), false);
        for (auto& b : m_buckets) {
            b.pending = b.params.size();
            b.launched = false;
        }
    }
    if (m_ready[param])
        return; // a parameter used twice in the graph reports twice
    m_ready[param] = true;
    Bucket& b = m_buckets[m_bucketOf[param]];
    if (--b.pending == 0)
        launchReady();
}

void GradientReducer::launchReady() {
    // In bucket order only: ranks must issue the same collectives in the same order.
    while (m_nextLaunch < m_buckets.size() && m_buckets[m_nextLaunch].pending == 0 &&
           !m_buckets[m_nextLaunch].launched) {
        launch(m_buckets[m_nextLaunch]);
        ++m_nextLaunch;
    }
}

void GradientReducer::launch(Bucket& b) {
    b.launched = true;
    b.work = m_comm->allreduceAsync(b.flat); // the loss was scaled by 1/world: the sum is the mean
}

double GradientReducer::finish() {
    const auto start = std::chrono::steady_clock::now();
    if (!m_sync) {
        m_inBackward = false;
        return 0;
    }
    if (!m_inBackward) { // no hook ran (no parameter received a gradient)
        for (auto& b : m_buckets) {
            b.pending = 0;
            b.launched = false;
        }
        m_nextLaunch = 0;
    }
    // Parameters unused in this step leave their bucket pending: launch it anyway, in order.
    for (; m_nextLaunch < m_buckets.size(); ++m_nextLaunch)
        if (!m_buckets[m_nextLaunch].launched)
            launch(m_buckets[m_nextLaunch]);
    for (auto& b : m_buckets)
        b.work.wait();
    m_inBackward = false;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace studio::train

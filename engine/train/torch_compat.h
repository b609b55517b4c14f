// What differs between the LibTorch versions the studio builds against (Debian's 1.13 and the
// current wheel's 2.x), in one place: the rest of engine/train uses these names and has no
// version checks of its own.
#pragma once

#include <ATen/autocast_mode.h>
#include <c10/core/Allocator.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/version.h>

#include <utility>

namespace c10d {
class Backend;
class ProcessGroup;
} // namespace c10d

namespace studio::train::compat {

// The class c10d's Gloo and NCCL groups derive from: ProcessGroup in 1.13, Backend in 2.x. Both
// have the same collective methods returning intrusive_ptr<c10d::Work>.
#if TORCH_VERSION_MAJOR >= 2
using ProcessGroupBase = c10d::Backend;
#else
using ProcessGroupBase = c10d::ProcessGroup;
#endif

// A parameter's gradient accumulator: a shared_ptr in 1.13, an intrusive_ptr in 2.x.
using NodePtr =
    decltype(torch::autograd::impl::grad_accumulator(std::declval<const at::Tensor&>()));

// An allocator: 2.x made allocate() non-const and added copy_data(); subclasses implement
// allocateBlock() and work with both.
class Allocator : public c10::Allocator {
public:
#if TORCH_VERSION_MAJOR >= 2
    c10::DataPtr allocate(size_t bytes) override {
        return allocateBlock(bytes);
    }
    void copy_data(void* dest, const void* src, std::size_t count) const override {
        default_copy_data(dest, src, count);
    }
#else
    c10::DataPtr allocate(size_t bytes) const override {
        return allocateBlock(bytes);
    }
#endif

protected:
    virtual c10::DataPtr allocateBlock(size_t bytes) const = 0;
};

// Autocast (mixed precision) for the forward passes in its scope, on one device type, to dtype;
// the previous state comes back when it ends. 2.x takes the device type, 1.13 has a function per
// device type.
class AutocastGuard {
public:
    AutocastGuard(bool enabled, c10::DeviceType type, at::ScalarType dtype)
        : m_enabled(enabled)
        , m_type(type) {
        if (!m_enabled)
            return;
        m_wasEnabled = isEnabled();
        m_oldType = dtypeOf();
        set(true, dtype);
        at::autocast::increment_nesting();
    }
    ~AutocastGuard() {
        if (!m_enabled)
            return;
        if (at::autocast::decrement_nesting() == 0)
            at::autocast::clear_cache();
        set(m_wasEnabled, m_oldType);
    }
    AutocastGuard(const AutocastGuard&) = delete;
    AutocastGuard& operator=(const AutocastGuard&) = delete;

private:
#if TORCH_VERSION_MAJOR >= 2
    bool isEnabled() const {
        return at::autocast::is_autocast_enabled(m_type);
    }
    at::ScalarType dtypeOf() const {
        return at::autocast::get_autocast_dtype(m_type);
    }
    void set(bool on, at::ScalarType dtype) {
        at::autocast::set_autocast_dtype(m_type, dtype);
        at::autocast::set_autocast_enabled(m_type, on);
    }
#else
    bool cuda() const {
        return m_type == c10::DeviceType::CUDA;
    }
    bool isEnabled() const {
        return cuda() ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
    }
    at::ScalarType dtypeOf() const {
        return cuda() ? at::autocast::get_autocast_gpu_dtype()
                      : at::autocast::get_autocast_cpu_dtype();
    }
    void set(bool on, at::ScalarType dtype) {
        if (cuda()) {
            at::autocast::set_autocast_gpu_dtype(dtype);
            at::autocast::set_enabled(on);
        } else {
            at::autocast::set_autocast_cpu_dtype(dtype);
            at::autocast::set_cpu_enabled(on);
        }
    }
#endif
    bool m_enabled;
    c10::DeviceType m_type;
    bool m_wasEnabled = false;
    at::ScalarType m_oldType = at::kFloat;
};

} // namespace studio::train::compat

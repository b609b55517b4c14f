// One thread working through a queue of operations in order, each of which a caller can wait for:
// what the shared-memory all-reduce and the shared-memory sends run on, so that neither blocks
// the thread that asked. Thread-safety: push, idle and wait from any thread.
#pragma once

#include <concepts>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace studio::train {

// An operation's end, as a caller waits for it: done, or failed with what the worker caught.
class Completion {
public:
    // Blocks until the worker is done with the operation; rethrows what it threw.
    void wait() {
        std::unique_lock lock(m_mutex);
        m_cv.wait(lock, [&] { return m_done; });
        if (m_error)
            std::rethrow_exception(m_error);
    }

    void complete(std::exception_ptr error = nullptr) {
        std::lock_guard lock(m_mutex);
        m_error = std::move(error);
        m_done = true;
        m_cv.notify_all();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_done = false;
    std::exception_ptr m_error;
};

template <std::derived_from<Completion> Op>
class QueueWorker {
public:
    // work runs on the worker's thread, one operation at a time, in the order they were pushed.
    explicit QueueWorker(std::function<void(Op&)> work)
        : m_work(std::move(work))
        , m_thread([this] { run(); }) {}
    // Lets the worker finish what is queued, then joins it.
    ~QueueWorker() {
        {
            std::lock_guard lock(m_mutex);
            m_stopping = true;
            m_wake.notify_all();
        }
        m_thread.join();
    }
    QueueWorker(const QueueWorker&) = delete;
    QueueWorker& operator=(const QueueWorker&) = delete;

    void push(std::shared_ptr<Op> op) {
        std::lock_guard lock(m_mutex);
        m_queue.push_back(std::move(op));
        m_wake.notify_one();
    }

    // Nothing queued or running: an operation done by the caller now overtakes none.
    bool idle() const {
        std::lock_guard lock(m_mutex);
        return m_queue.empty() && !m_busy;
    }

private:
    void run() {
        while (true) {
            std::shared_ptr<Op> op;
            {
                std::unique_lock lock(m_mutex);
                m_wake.wait(lock, [&] { return m_stopping || !m_queue.empty(); });
                if (m_queue.empty())
                    return;
                op = std::move(m_queue.front());
                m_queue.pop_front();
                m_busy = true;
            }
            std::exception_ptr error;
            try {
                m_work(*op);
            } catch (...) {
                error = std::current_exception();
            }
            {
                std::lock_guard lock(m_mutex);
                m_busy = false;
            }
            op->complete(std::move(error));
        }
    }

    std::function<void(Op&)> m_work;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::shared_ptr<Op>> m_queue;
    bool m_busy = false; // an operation taken and not finished
    bool m_stopping = false;
    std::thread m_thread; // last: starts once the rest is set up
};

} // namespace studio::train

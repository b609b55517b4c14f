// A studio store with many finished jobs, as the leaderboard and window benches read it: each job
// has 10 parameters, 2 tags, 4 metrics of 3 points each and a final status. Jobs are created from
// several threads at once so the writer commits them in shared batches. Also: a long learning
// curve appended to one job. Qt-free; throws std::runtime_error when the store refuses a write.
#pragma once

#include "engine/store/store_writer.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace studio::bench {

// Writes jobs "job-0" .. "job-<count-1>" (20 experiments, 400 trials); their ids by index.
inline std::vector<store::ComponentId> writeFinishedJobs(store::StoreWriter& w, int count) {
    const char* optimizers[] = {"sgd", "adam", "adamw", "rmsprop"};
    const char* models[] = {"cnn", "resnet18", "mlp", "transformer"};
    std::vector<store::ComponentId> ids(static_cast<std::size_t>(count));
    std::atomic<int> next{0};
    std::atomic<bool> failed{false};
    std::string error;
    std::vector<std::thread> pool;
    for (int t = 0; t < 8; ++t) {
        pool.emplace_back([&] {
            for (int i = next++; i < count && !failed; i = next++) {
                store::NewComponent c;
                c.name = "job-" + std::to_string(i);
                c.experiment = "experiment-" + std::to_string(i % 20);
                c.trial = "trial-" + std::to_string(i % 400);
                c.created = 1.7e9 + i;
                c.instanceCount = 1 + i % 2;
                c.processesPerHost = 1 << (i % 4);
                const double lr = 1e-4 * (1 + (i * 7919) % 1000);
                c.parameters = {{"lr", std::to_string(lr), lr},
                                {"batch_size", std::to_string(32 << (i % 4)), 32 << (i % 4)},
                                {"epochs", std::to_string(5 + i % 20), 5 + i % 20},
                                {"momentum", "0.9", 0.9},
                                {"weight_decay", "0.0005", 0.0005 * (1 + i % 3)},
                                {"dropout", std::to_string(0.1 * (i % 5)), 0.1 * (i % 5)},
                                {"seed", std::to_string(i), i},
                                {"warmup_steps", std::to_string(100 * (i % 10)), 100 * (i % 10)},
                                {"optimizer", optimizers[i % 4], std::nullopt},
                                {"model", models[(i / 4) % 4], std::nullopt}};
                c.tags = {{"owner", i % 3 ? "ana" : "bo"}};
                if (i % 10 == 0)
                    c.tags["stage"] = "candidate";
                try {
                    const store::ComponentId id = w.createComponent(c);
                    ids[static_cast<std::size_t>(i)] = id;
                    w.setStarted(id, c.created + 1);
                    for (int s = 0; s < 3; ++s) {
                        const double x = (i % 997) / 997.0;
                        w.addMetric(id, "train:loss", {s, c.created + s, 2.0 - x - 0.3 * s, 0, 0});
                        w.addMetric(id, "eval:loss", {s, c.created + s, 2.1 - x - 0.3 * s, 0, 0});
                        w.addMetric(id, "eval:accuracy",
                                    {s, c.created + s, 0.5 + 0.4 * x + 0.02 * s, 0, 0});
                        w.addMetric(id, "throughput", {s, c.created + s, 1000.0 + i % 500, 0, 0});
                    }
                    w.setStatus(id, i % 17 == 0 ? "Failed" : "Completed", "Completed", "",
                                c.created + 100);
                    w.setEnded(id, c.created + 60 + i % 600);
                } catch (const std::exception& e) {
                    if (!failed.exchange(true))
                        error = e.what();
                }
            }
        });
    }
    for (auto& t : pool)
        t.join();
    w.flush();
    if (failed)
        throw std::runtime_error("writing the jobs failed: " + error);
    if (!w.lastError().empty())
        throw std::runtime_error("writing the jobs failed: " + w.lastError());
    return ids;
}

// Extends a job of writeFinishedJobs() to `points` train:loss points (steps 0 .. points-1, rank
// 0): a decaying noisy curve past the 3 points it has.
inline void writeLongCurve(store::StoreWriter& w, store::ComponentId id, std::int64_t points) {
    std::uint32_t seed = 7;
    for (std::int64_t s = 3; s < points; ++s) {
        seed = seed * 1664525u + 1013904223u;
        const double noise = ((seed >> 8) / double(1 << 24) - 0.5) * 0.3;
        const double loss = 0.15 + 2.3 * std::exp(-double(s) / (double(points) / 6.0)) + noise;
        w.addMetric(id, "train:loss", {s, 1.7e9 + double(s) * 0.05, loss, 0, 0});
    }
    w.flush();
    if (!w.lastError().empty())
        throw std::runtime_error("writing the curve failed: " + w.lastError());
}

} // namespace studio::bench

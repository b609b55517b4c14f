// Dynamic loss scaling for float16 training, with torch.cuda.amp.GradScaler's defaults: the loss
// is multiplied by scale() before backward; a step whose gradients hold inf or NaN is skipped and
// halves the scale; 2000 clean steps in a row double it. Plain and tested.
#pragma once

#include <cstdint>

namespace studio::train {

class LossScaler {
public:
    struct Options {
        double initialScale = 65536.0;
        double growthFactor = 2.0;
        double backoffFactor = 0.5;
        int growthInterval = 2000;
    };
    LossScaler()
        : LossScaler(Options{}) {}
    explicit LossScaler(Options o)
        : m_o(o)
        , m_scale(o.initialScale) {}

    double scale() const { return m_scale; }
    std::int64_t skippedSteps() const { return m_skipped; }
    // After the gradients of a step were checked: true when the optimizer may step.
    bool update(bool foundNonFinite);
    // For checkpoints: the scale and the clean steps since it last changed.
    int cleanSteps() const { return m_clean; }
    void restore(double scale, int cleanSteps);

private:
    Options m_o;
    double m_scale;
    int m_clean = 0;
    std::int64_t m_skipped = 0;
};

} // namespace studio::train

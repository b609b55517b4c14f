#include "engine/train/loss_scaler.h"

namespace studio::train {

bool LossScaler::update(bool foundNonFinite) {
    if (foundNonFinite) {
        m_scale *= m_o.backoffFactor;
        m_clean = 0;
        ++m_skipped;
        return false;
    }
    if (++m_clean >= m_o.growthInterval) {
        m_scale *= m_o.growthFactor;
        m_clean = 0;
    }
    return true;
}

void LossScaler::restore(double scale, int cleanSteps) {
    if (scale > 0)
        m_scale = scale;
    m_clean = cleanSteps;
}

} // namespace studio::train

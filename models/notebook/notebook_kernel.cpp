#include "models/notebook/notebook_kernel.h"

namespace studio::models {

QString kernelStateName(KernelState state) {
    switch (state) {
    case KernelState::Starting:
        return QStringLiteral("starting");
    case KernelState::Idle:
        return QStringLiteral("idle");
    case KernelState::Busy:
        return QStringLiteral("busy");
    case KernelState::Restarting:
        return QStringLiteral("restarting");
    case KernelState::Dead:
        break;
    }
    return QStringLiteral("dead");
}

} // namespace studio::models

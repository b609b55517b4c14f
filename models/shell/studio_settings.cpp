#include "models/shell/studio_settings.h"

#include <QSettings>

#include <cmath>

namespace studio::models {

namespace {

const QString kTheme = QStringLiteral("theme");
const QString kCluster = QStringLiteral("defaultCluster");
const QString kWorkspace = QStringLiteral("workspace");
const QString kSmoothing = QStringLiteral("charts/smoothing");
const QString kRefresh = QStringLiteral("refreshMs");

QString notifyKey(NoticeKind kind) {
    return QStringLiteral("notifications/") + noticeKindKey(kind);
}

} // namespace

StudioSettings StudioSettings::load(const QString& iniPath) {
    const QSettings s(iniPath, QSettings::IniFormat);
    StudioSettings out;
    bool ok = true;
    if (s.contains(kTheme)) {
        const int theme = s.value(kTheme).toInt(&ok);
        if (ok && theme >= 0 && theme <= 2)
            out.theme = theme;
        else
            out.problems << QStringLiteral("%1: %2 is not 0, 1 or 2 (system, light, dark)")
                                .arg(kTheme, s.value(kTheme).toString());
    }
    for (int k = 0; k < kNoticeKinds; ++k)
        out.notify[static_cast<std::size_t>(k)] =
            s.value(notifyKey(static_cast<NoticeKind>(k)), true).toBool();
    out.defaultCluster = s.value(kCluster).toString();
    out.workspace = s.value(kWorkspace).toString();
    if (s.contains(kSmoothing)) {
        const double v = s.value(kSmoothing).toDouble(&ok);
        if (ok && std::isfinite(v) && v >= 0 && v <= 0.99)
            out.smoothing = v;
        else
            out.problems << QStringLiteral("%1: %2 is not between 0 and 0.99")
                                .arg(kSmoothing, s.value(kSmoothing).toString());
    }
    if (s.contains(kRefresh)) {
        const int v = s.value(kRefresh).toInt(&ok);
        if (ok && v >= kMinRefreshMs && v <= kMaxRefreshMs)
            out.refreshMs = v;
        else
            out.problems << QStringLiteral("%1: %2 is not between %3 and %4 ms")
                                .arg(kRefresh, s.value(kRefresh).toString())
                                .arg(kMinRefreshMs)
                                .arg(kMaxRefreshMs);
    }
    return out;
}

void StudioSettings::save(const QString& iniPath) const {
    QSettings s(iniPath, QSettings::IniFormat);
    s.setValue(kTheme, theme);
    for (int k = 0; k < kNoticeKinds; ++k)
        s.setValue(notifyKey(static_cast<NoticeKind>(k)), notify[static_cast<std::size_t>(k)]);
    s.setValue(kCluster, defaultCluster);
    if (workspace.isEmpty())
        s.remove(kWorkspace);
    else
        s.setValue(kWorkspace, workspace);
    s.setValue(kSmoothing, smoothing);
    s.setValue(kRefresh, refreshMs);
}

QString StudioSettings::workspaceOr(const QString& home) const {
    return workspace.isEmpty() ? home + QStringLiteral("/workspace") : workspace;
}

} // namespace studio::models

// The studio's settings as values: what studio.ini holds besides the window's layout (theme,
// notifications per kind, the default cluster of new jobs, the workspace folder, the charts'
// smoothing, the refresh rate of running jobs' views). load() reads the file and keeps every
// value in range (a bad value in the file falls back to its default and is named in
// problems()); save() writes them back, leaving the file's other keys alone.
#pragma once

#include "models/shell/notices.h"

#include <QString>
#include <QStringList>

#include <array>

namespace studio::models {

struct StudioSettings {
    static constexpr int kMinRefreshMs = 250;
    static constexpr int kMaxRefreshMs = 60000;

    int theme = 0; // 0 follow the system, 1 light, 2 dark (widgets::ThemeChoice)
    std::array<bool, kNoticeKinds> notify{true, true, true};
    QString defaultCluster; // "" or "local": this machine
    QString workspace;      // "" means <home>/workspace
    double smoothing = 0.6; // new charts' EMA weight, 0 … 0.99
    int refreshMs = 1000;   // how often views of running jobs reload from the store
    QStringList problems;   // what load() found out of range, by key

    static StudioSettings load(const QString& iniPath);
    void save(const QString& iniPath) const;
    bool notifies(NoticeKind kind) const { return notify[static_cast<std::size_t>(kind)]; }
    QString workspaceOr(const QString& home) const;
};

} // namespace studio::models

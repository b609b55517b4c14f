// The studio's look: light and dark palettes (following the system unless the user chose one),
// status colours and icons shared by every view.
#pragma once

#include <QColor>
#include <QIcon>
#include <QString>

class QApplication;
class QMenu;

namespace studio::widgets {

enum class ThemeChoice { System, Light, Dark };

// Applies the Fusion style with the chosen palette; System follows the platform's palette.
void applyTheme(QApplication& app, ThemeChoice choice);
bool darkThemeActive();
// A "Theme" submenu of parent (follow the system, light, dark) that applies the choice at once and
// keeps it in the settings file (key "theme").
void addThemeMenu(QMenu* parent, const QString& settingsPath);

// Colour of a job status ("Completed", "Failed", "InProgress", "Stopping", "Stopped") or a rule
// status ("IssuesFound", "NoIssuesFound", "NotApplicable", "Error").
QColor statusColor(const QString& status);
// A small round icon in the status colour, with a mark (check, cross, dot) that reads without
// colour too. Cached.
QIcon statusIcon(const QString& status);

// Distinct colours for series in charts, in a fixed order.
QColor seriesColor(int index);

// "12.3 s", "4 min 05 s", "2 h 10 min" for durations; "-" for negative values.
QString formatDuration(double seconds);
// "2026-11-21 19:54:00" in local time; "" for 0.
QString formatTime(double unixSeconds);

} // namespace studio::widgets

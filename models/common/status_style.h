// What every model and view shows the same way: status colours and icons, series colours, and
// durations and times as text. Qt Gui only (no widgets), so models can use them.
#pragma once

#include <QColor>
#include <QFont>
#include <QIcon>
#include <QString>

namespace studio::models {

// Colour of a job status ("Completed", "Failed", "InProgress", "Stopping", "Stopped",
// "Imported") or a rule status ("IssuesFound", "NoIssuesFound", "NotApplicable", "Error").
QColor statusColor(const QString& status);
// A small round icon in the status colour, with a mark (check, cross, dot, arrow) that reads
// without colour too. Cached.
QIcon statusIcon(const QString& status);

// Distinct colours for series in charts, in a fixed order.
QColor seriesColor(int index);

// "12.3 s", "4 min 05 s", "2 h 10 min" for durations; "-" for negative values.
QString formatDuration(double seconds);
// "2026-11-21 19:54:00" in local time; "" for 0.
QString formatTime(double unixSeconds);

// Grey for secondary text: defaults, hints, placeholders.
QColor mutedColor();
// The fixed-width font of names, values and patterns in tables.
QFont monospaceFont();

} // namespace studio::models

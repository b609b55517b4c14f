// Where a notebook's unsaved work is kept and which notebooks were opened lately: the side file
// autosave writes next to a notebook (never the notebook itself), and the recent-files list the
// File menu shows, in the studio's settings.
#pragma once

#include <QString>
#include <QStringList>

class QSettings;

namespace studio::widgets {

// "<dir>/.<name>.ipynb.autosave" for "<dir>/<name>.ipynb".
QString autosavePathFor(const QString& notebookPath);

// Newest first, at most kMaxRecentNotebooks, only files that still exist.
inline constexpr int kMaxRecentNotebooks = 10;
QStringList recentNotebooks(const QSettings& settings);
void addRecentNotebook(QSettings& settings, const QString& path);

} // namespace studio::widgets

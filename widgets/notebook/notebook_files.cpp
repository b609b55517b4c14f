#include "widgets/notebook/notebook_files.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace studio::widgets {

namespace {

const char* kRecentKey = "recentNotebooks";

} // namespace

QString autosavePathFor(const QString& notebookPath) {
    const QFileInfo info(notebookPath);
    QString name = info.fileName();
    if (!name.endsWith(QLatin1String(".ipynb")))
        name += QStringLiteral(".ipynb");
    return info.absoluteDir().filePath(QLatin1Char('.') + name + QStringLiteral(".autosave"));
}

QStringList recentNotebooks(const QSettings& settings) {
    QStringList out;
    for (const QString& p : settings.value(QLatin1String(kRecentKey)).toStringList())
        if (QFileInfo::exists(p) && !out.contains(p) && out.size() < kMaxRecentNotebooks)
            out.append(p);
    return out;
}

void addRecentNotebook(QSettings& settings, const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = settings.value(QLatin1String(kRecentKey)).toStringList();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMaxRecentNotebooks)
        list.removeLast();
    settings.setValue(QLatin1String(kRecentKey), list);
}

} // namespace studio::widgets
